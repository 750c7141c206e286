// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_model.c - libFuzzer target for the model API
 *
 * The first bytes choose the parameters (any values: invalid ones must be
 * refused cleanly, never crash); the rest is an event stream of 1- or
 * 2-byte file ids, so that small alphabets with many repeats are reached
 * quickly; when the parameters ask for several streams, each event is
 * preceded by a byte naming its context and the context's parent (a few
 * values, so that contexts are new, reused and reclaimed often), and
 * whether both models only learn it (ppf_model_learn(): it tells nothing,
 * so what the twin is told next must cover what stood).  A twin
 * fed the same events through ppf_model_event_new() must be told exactly
 * what is news: each of its predictions is one of the model's, and each of
 * the model's that it was not told of it was told of before, since the
 * context last opened that file; after ppf_model_restate() (both models,
 * when the context byte's top bit is set) it is told of everything.  The
 * model's invariants (a walk of the whole model) are checked after each of
 * the first 256 events, then after every 64th and after the last: checking
 * all of a 4 KiB input's events made it O(events x nodes), 145 executions
 * a second, too slow for a long run (make fuzz-long).
 */
#include "../../models/ppf_model.h"
#include <stdio.h>

#define FUZZ_CONTEXTS	16
#define FUZZ_FILES	65536	/* file ids are 1 or 2 bytes */

/*
 * What the twin was told, across contexts (a new context takes up its
 * parent's chain, told under the parent): when each file was last told
 * and when each context last opened it, as event numbers, each valid only
 * for the input stamped (so that nothing is cleared between inputs).
 */
static struct {
	u32 input;
	u32 told[FUZZ_FILES], told_input[FUZZ_FILES];
	u32 opened[FUZZ_CONTEXTS][FUZZ_FILES];
	u32 opened_input[FUZZ_CONTEXTS][FUZZ_FILES];
} fz;

/*
 * Was @file told since @ctx last opened it?  (An event's predictions come
 * after its open: told at that very event is since.)
 */
static bool told_since(u32 ctx, u32 file)
{
	if (fz.told_input[file] != fz.input)
		return false;
	return fz.opened_input[ctx][file] != fz.input ||
	       fz.told[file] >= fz.opened[ctx][file];
}

/* Is (@file, @lead) among @n predictions of @p? */
static bool predicted(const struct ppf_prediction *p, unsigned int n, u32 file,
		      u32 lead)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (p[i].file == file && p[i].lead == lead)
			return true;
	return false;
}

/*
 * Event @ev of context @ctx opened @file.  @news (@nn of them) against
 * everything, @full (@nf): each piece of news is in @full, and whatever
 * else @full has was told since the context last opened it, unless the
 * models were just restated (then everything is news).  Then the news is
 * remembered as told.
 */
static bool news_right(u32 ev, u32 ctx, u32 file,
		       const struct ppf_prediction *news, unsigned int nn,
		       const struct ppf_prediction *full, unsigned int nf,
		       bool restated)
{
	unsigned int i;

	fz.opened[ctx][file] = ev;
	fz.opened_input[ctx][file] = fz.input;
	for (i = 0; i < nn; i++)
		if (!predicted(full, nf, news[i].file, news[i].lead))
			return false;
	for (i = 0; i < nf; i++) {
		if (predicted(news, nn, full[i].file, full[i].lead))
			continue;
		if (restated || !told_since(ctx, full[i].file))
			return false;
	}
	for (i = 0; i < nn; i++) {
		fz.told[news[i].file] = ev;
		fz.told_input[news[i].file] = fz.input;
	}
	return true;
}

static u32 take(const u8 **data, size_t *size, unsigned int bytes)
{
	u32 v = 0;

	while (bytes-- && *size) {
		v = (v << 8) | **data;
		(*data)++;
		(*size)--;
	}
	return v;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct ppf_prediction out[PPF_MAX_PREDICTIONS], out2[PPF_MAX_PREDICTIONS];
	struct ppf_model_params p;
	struct ppf_model *m, *twin;
	struct ppf_model_stats st;
	u32 wide, streams, events = 0;
	const char *why;
	int err;

	p.kind = take(&data, &size, 1) % 4;
	p.partition_size = take(&data, &size, 1);
	p.model_order = take(&data, &size, 1);
	p.threshold_pct = take(&data, &size, 1);
	/*
	 * Budgets up to 4095 nodes: every path (reclaim, halving, a full pool)
	 * is reached as well with small ones, and creating two models of 65535
	 * nodes per input took most of the fuzzer's time.
	 */
	p.max_nodes = take(&data, &size, 2);
	if (p.max_nodes >= 1024)
		p.max_nodes = 1024 + p.max_nodes % 3072;
	p.max_predictions = take(&data, &size, 1) % (PPF_MAX_PREDICTIONS + 2);
	p.max_contexts = take(&data, &size, 1) % 8;
	wide = take(&data, &size, 1);
	streams = wide & 2;
	wide &= 1;
	m = ppf_model_create(&p, &err);
	if (!m) {
		if (err != -EINVAL || ppf_model_params_validate(&p) != -EINVAL)
			__builtin_trap();
		return 0;
	}
	twin = ppf_model_create(&p, &err);
	if (!twin)
		__builtin_trap();
	fz.input++;
	while (size) {
		u32 c = streams ? take(&data, &size, 1) : 0;
		u32 ctx = c & 15, parent = (c >> 4) & 3;
		bool learn = c & 0x40, restate = c & 0x80;
		u32 f = take(&data, &size, wide ? 2 : 1);
		unsigned int n = 0, n2 = 0;

		if (restate) {
			ppf_model_restate(m);
			ppf_model_restate(twin);
		}
		if (learn) {
			ppf_model_learn(m, ctx, parent, f);
			ppf_model_learn(twin, ctx, parent, f);
		} else {
			n = ppf_model_event(m, ctx, parent, f, out,
					    PPF_MAX_PREDICTIONS);
			n2 = ppf_model_event_new(twin, ctx, parent, f, out2,
						 PPF_MAX_PREDICTIONS);
		}

		events++;
		why = events <= 256 || events % 64 == 0 || !size ?
		      ppf_model_check(m) : NULL;
		if (why) {
			fprintf(stderr, "invariant broken: %s\n", why);
			__builtin_trap();
		}
		if (n > p.max_predictions || n2 > n ||
		    !news_right(events + 1, ctx, f, out2, n2, out, n, restate))
			__builtin_trap();
		ppf_model_stats(m, &st);
		if (st.nodes > p.max_nodes || st.contexts > p.max_contexts)
			__builtin_trap();
	}
	ppf_model_destroy(m);
	ppf_model_destroy(twin);
	return 0;
}
