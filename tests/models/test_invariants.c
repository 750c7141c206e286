// SPDX-License-Identifier: GPL-2.0
/*
 * test_invariants.c - the models' invariants on long generated streams
 *
 * For every model and several shapes, small node budgets (so that
 * reclaiming is exercised constantly) and large ones, on streams that are
 * random, repetitive, and repetitive with noise: the full invariant check
 * holds after every event, no partition exceeds its size, the budget is
 * never exceeded, and two models fed the same events give the same
 * predictions.
 */
#include "../../models/ppf_model.h"
#include "test_harness.h"

struct ppf_rng {
	u64 s;
};

static u32 ppf_rng_next(struct ppf_rng *r)
{
	/* xorshift64*: fixed seeds make every run the same. */
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return (u32)((r->s * 0x2545f4914f6cdd1dull) >> 32);
}

enum stream_kind { STREAM_RANDOM, STREAM_REPEAT, STREAM_NOISY };

static u32 stream_next(enum stream_kind kind, struct ppf_rng *r, u64 i,
		       u32 files)
{
	switch (kind) {
	case STREAM_RANDOM:
		return ppf_rng_next(r) % files;
	case STREAM_REPEAT:
		return (u32)(i % files);
	default:
		return ppf_rng_next(r) % 8 == 0 ? ppf_rng_next(r) % files
						 : (u32)(i % files);
	}
}

static u64 prediction_hash(u64 h, const struct ppf_prediction *out,
			   unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		h = (h ^ out[i].file) * 0x100000001b3ull;
		h = (h ^ out[i].likelihood) * 0x100000001b3ull;
		h = (h ^ out[i].lead) * 0x100000001b3ull;
	}
	return (h ^ n) * 0x100000001b3ull;
}

/* A model of @kind and shape with room for @max_ctx contexts, or NULL. */
static struct ppf_model *make_model(enum ppf_model_kind kind, u32 ps, u32 order,
				    u32 max_nodes, u32 max_ctx)
{
	struct ppf_model_params p;
	struct ppf_model *m;
	int err;

	ppf_model_params_init(&p, kind);
	p.partition_size = ps;
	p.model_order = order;
	p.max_nodes = max_nodes;
	p.max_predictions = PPF_MAX_PREDICTIONS;
	p.max_contexts = max_ctx;
	m = ppf_model_create(&p, &err);
	EXPECT(m, "create %s ps %u order %u: %d", ppf_model_kind_name(kind), ps,
	       order, err);
	return m;
}

/*
 * @nctx streams share the model, each event from a random one of them, its
 * parent the one before it; a model holding @max_ctx of them reclaims.
 */
static void run_streams(enum ppf_model_kind kind, u32 ps, u32 order,
			u32 max_nodes, enum stream_kind sk, u32 files,
			u64 events, u32 check_every, u32 nctx, u32 max_ctx)
{
	struct ppf_prediction out[PPF_MAX_PREDICTIONS], out2[PPF_MAX_PREDICTIONS];
	struct ppf_model *m = make_model(kind, ps, order, max_nodes, max_ctx);
	struct ppf_model *twin = make_model(kind, ps, order, max_nodes, max_ctx);
	struct ppf_model_stats st;
	struct ppf_rng r = { 0x9e3779b97f4a7c15ull ^ files };
	u64 i, h1 = 1469598103934665603ull, h2 = h1;
	const char *why = NULL;

	if (!m || !twin) {
		ppf_model_destroy(m);
		ppf_model_destroy(twin);
		return;
	}
	for (i = 0; i < events && !why; i++) {
		u32 ctx = nctx > 1 ? ppf_rng_next(&r) % nctx : 0;
		u32 parent = ctx ? ctx - 1 : 0;
		u32 f = stream_next(sk, &r, i, files);
		unsigned int n = ppf_model_event(m, ctx, parent, f, out,
						 PPF_MAX_PREDICTIONS);
		unsigned int n2 = ppf_model_event(twin, ctx, parent, f, out2,
						  PPF_MAX_PREDICTIONS);

		h1 = prediction_hash(h1, out, n);
		h2 = prediction_hash(h2, out2, n2);
		if (check_every && i % check_every == 0)
			why = ppf_model_check(m);
		ppf_model_stats(m, &st);
		if (st.nodes > max_nodes)
			why = "budget exceeded";
		if (st.contexts > max_ctx)
			why = "more contexts than max_contexts";
	}
	if (!why)
		why = ppf_model_check(m);
	EXPECT(why == NULL, "%s ps %u order %u budget %u stream %d files %u contexts %u/%u: %s at event %llu",
	       ppf_model_kind_name(kind), ps, order, max_nodes, sk, files,
	       nctx, max_ctx, why, (unsigned long long)i);
	EXPECT(h1 == h2, "%s: same events, different predictions",
	       ppf_model_kind_name(kind));
	ppf_model_destroy(m);
	ppf_model_destroy(twin);
}

static void run_stream(enum ppf_model_kind kind, u32 ps, u32 order,
		       u32 max_nodes, enum stream_kind sk, u32 files,
		       u64 events, u32 check_every)
{
	run_streams(kind, ps, order, max_nodes, sk, files, events, check_every,
		    1, 1);
}

static void test_invariants_small_budget(void)
{
	int kind, sk;

	for (kind = PPF_MODEL_LAST_SUCCESSOR; kind <= PPF_MODEL_EPCM; kind++)
		for (sk = STREAM_RANDOM; sk <= STREAM_NOISY; sk++) {
			run_stream(kind, 4, 2, PPF_MIN_NODES, sk, 50, 20000, 1);
			run_stream(kind, 16, 12, 256, sk, 200, 20000, 1);
			run_stream(kind, 64, 51, 1024, sk, 3000, 20000, 7);
		}
}

static void test_invariants_large(void)
{
	int kind, sk;

	for (kind = PPF_MODEL_LAST_SUCCESSOR; kind <= PPF_MODEL_EPCM; kind++)
		for (sk = STREAM_RANDOM; sk <= STREAM_NOISY; sk++) {
			run_stream(kind, 32, 2, 1 << 16, sk, 5000, 200000, 9973);
			run_stream(kind, 2, 1, 1 << 12, sk, 100000, 100000, 9973);
		}
}

/* Degenerate streams: one file, two files alternating, all distinct. */
static void test_invariants_degenerate(void)
{
	int kind;

	for (kind = PPF_MODEL_LAST_SUCCESSOR; kind <= PPF_MODEL_EPCM; kind++) {
		run_stream(kind, 8, 7, PPF_MIN_NODES, STREAM_REPEAT, 1, 5000, 1);
		run_stream(kind, 8, 7, PPF_MIN_NODES, STREAM_REPEAT, 2, 5000, 1);
		run_stream(kind, 8, 7, PPF_MIN_NODES, STREAM_REPEAT, 1u << 30, 5000, 1);
	}
}

/*
 * Several streams: walks of every context survive the shrinks that other
 * contexts' events cause, and contexts are reclaimed (12 streams, room for
 * 1, 5 or 64).
 */
static void test_invariants_contexts(void)
{
	static const u32 rooms[] = { 1, 5, 64 };
	int kind, sk;
	unsigned int r;

	for (kind = PPF_MODEL_LAST_SUCCESSOR; kind <= PPF_MODEL_EPCM; kind++)
		for (sk = STREAM_RANDOM; sk <= STREAM_NOISY; sk++)
			for (r = 0; r < ARRAY_SIZE(rooms); r++) {
				run_streams(kind, 4, 2, PPF_MIN_NODES, sk, 50,
					    20000, 1, 12, rooms[r]);
				run_streams(kind, 64, 51, 1024, sk, 3000, 20000,
					    7, 12, rooms[r]);
			}
}

/*
 * Processes that fork: 8 running at once, each going round the same cycle
 * of files from its own place; now and then one is replaced by a new
 * context, a child of another, that starts at its parent's place and so
 * continues with the same files as its parent.  Parent and child then
 * step the same nodes with the same files: only one of them may count.
 */
static void run_forks(enum ppf_model_kind kind, u32 ps, u32 order,
		      u32 max_nodes, u32 files, u32 max_ctx, u32 check_every)
{
	struct ppf_prediction out[PPF_MAX_PREDICTIONS];
	struct ppf_rng r = { 0x2545f4914f6cdd1dull ^ files ^ max_ctx };
	u32 id[8], pos[8], next_id = 8, k;
	struct ppf_model *m = make_model(kind, ps, order, max_nodes, max_ctx);
	const char *why = NULL;
	u64 i;

	if (!m)
		return;
	for (k = 0; k < 8; k++) {
		id[k] = k;
		pos[k] = ppf_rng_next(&r) % files;
	}
	for (i = 0; i < 20000 && !why; i++) {
		u32 c = ppf_rng_next(&r) % 8, parent = id[c];

		if (ppf_rng_next(&r) % 16 == 0) {
			u32 from = ppf_rng_next(&r) % 8;

			parent = id[from];
			pos[c] = pos[from];
			id[c] = next_id++;
		}
		ppf_model_event(m, id[c], parent, pos[c]++ % files, out,
				PPF_MAX_PREDICTIONS);
		if (i % check_every == 0)
			why = ppf_model_check(m);
	}
	if (!why)
		why = ppf_model_check(m);
	EXPECT(why == NULL, "%s ps %u order %u files %u contexts %u: %s at event %llu",
	       ppf_model_kind_name(kind), ps, order, files, max_ctx, why,
	       (unsigned long long)i);
	ppf_model_destroy(m);
}

static void test_invariants_forks(void)
{
	int kind;

	for (kind = PPF_MODEL_LAST_SUCCESSOR; kind <= PPF_MODEL_EPCM; kind++) {
		run_forks(kind, 4, 2, PPF_MIN_NODES, 20, 2, 1);
		run_forks(kind, 16, 12, 4096, 40, 3, 1);
		run_forks(kind, 64, 51, 8192, 100, 4, 7);
	}
}

static const struct ppf_test tests[] = {
	{ "invariants_forks", test_invariants_forks },
	{ "invariants_small_budget", test_invariants_small_budget },
	{ "invariants_contexts", test_invariants_contexts },
	{ "invariants_large", test_invariants_large },
	{ "invariants_degenerate", test_invariants_degenerate },
};

int main(int argc, char **argv)
{
	return ppf_run_tests(tests, sizeof(tests) / sizeof(tests[0]),
			     argc > 1 ? argv[1] : NULL);
}
