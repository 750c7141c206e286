// SPDX-License-Identifier: GPL-2.0
/*
 * test_models.c - the models against hand-worked sequences
 *
 * Every expected number below was worked out by hand from the rules in
 * docs/models.md, not read back from the code.
 */
#include "../../models/ppf_model.h"
#include "test_harness.h"

#define A 'A'
#define B 'B'
#define C 'C'
#define D 'D'
#define E 'E'

static struct ppf_model *make(enum ppf_model_kind kind, u32 ps, u32 order,
			      u32 threshold)
{
	struct ppf_model_params p;
	struct ppf_model *m;
	int err;

	ppf_model_params_init(&p, kind);
	p.partition_size = ps;
	p.model_order = order;
	p.threshold_pct = threshold;
	m = ppf_model_create(&p, &err);
	EXPECT(m != NULL, "create failed with %d", err);
	return m;
}

/* Feed @seq as events of context @ctx (parent @parent); the last predictions. */
static unsigned int feed_ctx(struct ppf_model *m, u32 ctx, u32 parent,
			     const char *seq, struct ppf_prediction *out)
{
	unsigned int n = 0;

	for (; *seq; seq++)
		n = ppf_model_event(m, ctx, parent, (u32)*seq, out,
				    PPF_MAX_PREDICTIONS);
	return n;
}

static unsigned int feed(struct ppf_model *m, const char *seq,
			 struct ppf_prediction *out)
{
	return feed_ctx(m, 0, 0, seq, out);
}

static u32 count_of(struct ppf_model *m, const char *pattern)
{
	u32 files[16];
	u32 len = 0;

	for (; *pattern; pattern++)
		files[len++] = (u32)*pattern;
	return ppf_model_pattern_count(m, files, len);
}

/* The paper's example: C A C B C A A B C A, order 2. */
static void test_pcm_paper_trie(void)
{
	static const struct { const char *pat; u32 count; } want[] = {
		{ "C", 4 }, { "A", 4 }, { "B", 2 },
		{ "CA", 3 }, { "AC", 1 }, { "CB", 1 }, { "BC", 2 },
		{ "AA", 1 }, { "AB", 1 },
		{ "CAC", 1 }, { "ACB", 1 }, { "CBC", 1 }, { "BCA", 2 },
		{ "CAA", 1 }, { "AAB", 1 }, { "ABC", 1 },
		{ "BA", 0 }, { "CC", 0 }, { "CACB", 0 },
	};
	struct ppf_prediction out[PPF_MAX_PREDICTIONS];
	struct ppf_model_stats st;
	struct ppf_model *m = make(PPF_MODEL_PCM, 32, 2, 10);
	unsigned int i, n;

	n = feed(m, "CACBCAABCA", out);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		EXPECT(count_of(m, want[i].pat) == want[i].count,
		       "count(%s) = %u, want %u", want[i].pat,
		       count_of(m, want[i].pat), want[i].count);
	ppf_model_stats(m, &st);
	EXPECT(st.nodes == 16, "nodes %u, want 3 + 6 + 7", st.nodes);
	EXPECT(st.partitions == 3, "partitions %u", st.partitions);
	/*
	 * Context "C A" was seen 3 times, its last occurrence is now: the 2
	 * earlier ones were followed once by C and once by A: 1/2 each.
	 */
	EXPECT(n == 2, "%u predictions", n);
	if (n == 2) {
		EXPECT(out[0].likelihood == 500 && out[1].likelihood == 500,
		       "likelihoods %u %u", out[0].likelihood, out[1].likelihood);
		EXPECT((out[0].file == A && out[1].file == C) ||
		       (out[0].file == C && out[1].file == A),
		       "files %c %c", out[0].file, out[1].file);
		EXPECT(out[0].lead == 1 && out[1].lead == 1, "leads");
	}
	/* With a threshold above 50% neither is predicted. */
	ppf_model_destroy(m);
	m = make(PPF_MODEL_PCM, 32, 2, 51);
	n = feed(m, "CACBCAABCA", out);
	EXPECT(n == 0, "%u predictions above 51%%", n);
	EXPECT(ppf_model_check(m) == NULL, "%s", ppf_model_check(m));
	ppf_model_destroy(m);
}

/* Order 1 keeps patterns of two files only. */
static void test_pcm_order_bounds_patterns(void)
{
	struct ppf_prediction out[PPF_MAX_PREDICTIONS];
	struct ppf_model *m = make(PPF_MODEL_PCM, 32, 1, 10);

	feed(m, "CACBCAABCA", out);
	EXPECT(count_of(m, "CA") == 3, "CA %u", count_of(m, "CA"));
	EXPECT(count_of(m, "BCA") == 0, "BCA %u", count_of(m, "BCA"));
	ppf_model_destroy(m);
}

/* A full partition halves its counts and frees the nodes reaching 0. */
static void test_pcm_partition_halves(void)
{
	struct ppf_prediction out[PPF_MAX_PREDICTIONS];
	struct ppf_model_stats st;
	struct ppf_model *m = make(PPF_MODEL_PCM, 4, 1, 10);

	/* Partition A fills with A, AB, AC, AD: 4 nodes. */
	feed(m, "ABACAD", out);
	EXPECT(count_of(m, "A") == 3, "A %u", count_of(m, "A"));
	EXPECT(count_of(m, "AD") == 1, "AD %u", count_of(m, "AD"));
	/* A again (count 4), then E needs a fifth node: halve. */
	feed(m, "AE", out);
	EXPECT(count_of(m, "A") == 2, "A %u after halving", count_of(m, "A"));
	EXPECT(count_of(m, "AB") == 0 && count_of(m, "AC") == 0 &&
	       count_of(m, "AD") == 0, "singletons freed");
	EXPECT(count_of(m, "AE") == 1, "AE %u", count_of(m, "AE"));
	ppf_model_stats(m, &st);
	EXPECT(st.halvings == 1 && st.halving_freed == 3,
	       "halvings %llu freed %llu", (unsigned long long)st.halvings,
	       (unsigned long long)st.halving_freed);
	EXPECT(ppf_model_check(m) == NULL, "%s", ppf_model_check(m));
	ppf_model_destroy(m);
}

/* A full partition whose halving frees nothing drops the new node. */
static void test_pcm_partition_drops(void)
{
	struct ppf_prediction out[PPF_MAX_PREDICTIONS];
	struct ppf_model_stats st;
	struct ppf_model *m = make(PPF_MODEL_PCM, 2, 1, 10);

	/* A(3) AB(2) fill partition A; A C: halve to A 1, AB 1; drop AC. */
	feed(m, "ABABAC", out);
	EXPECT(count_of(m, "A") == 1, "A %u", count_of(m, "A"));
	EXPECT(count_of(m, "AB") == 1, "AB %u", count_of(m, "AB"));
	EXPECT(count_of(m, "AC") == 0, "AC %u", count_of(m, "AC"));
	ppf_model_stats(m, &st);
	EXPECT(st.nodes_dropped == 1, "dropped %llu",
	       (unsigned long long)st.nodes_dropped);
	ppf_model_destroy(m);
}

/* EPCM extends a pattern by one file per occurrence. */
static void test_epcm_grows_one_node_per_occurrence(void)
{
	struct ppf_prediction out[PPF_MAX_PREDICTIONS];
	struct ppf_model *m = make(PPF_MODEL_EPCM, 16, 12, 10);

	feed(m, "ABCDX", out);
	EXPECT(count_of(m, "AB") == 1, "AB after 1");
	EXPECT(count_of(m, "ABC") == 0, "ABC after 1");
	feed(m, "ABCDY", out);
	EXPECT(count_of(m, "AB") == 2, "AB after 2: %u", count_of(m, "AB"));
	EXPECT(count_of(m, "ABC") == 1, "ABC after 2");
	EXPECT(count_of(m, "ABCD") == 0, "ABCD after 2");
	feed(m, "ABCDZ", out);
	EXPECT(count_of(m, "ABC") == 2, "ABC after 3");
	EXPECT(count_of(m, "ABCD") == 1, "ABCD after 3");
	EXPECT(count_of(m, "ABCDZ") == 0, "ABCDZ after 3");
	/* PCM of the same order would have the whole pattern at once. */
	ppf_model_destroy(m);
	m = make(PPF_MODEL_PCM, 16, 12, 10);
	feed(m, "ABCDX", out);
	EXPECT(count_of(m, "ABCDX") == 1, "PCM ABCDX");
	EXPECT(ppf_model_check(m) == NULL, "%s", ppf_model_check(m));
	ppf_model_destroy(m);
}

/* Trained on a repeated sequence, EPCM predicts the sequence ahead. */
static void test_epcm_predicts_chain(void)
{
	struct ppf_prediction out[PPF_MAX_PREDICTIONS];
	struct ppf_model *m = make(PPF_MODEL_EPCM, 64, 51, 60);
	unsigned int i, n;

	for (i = 0; i < 8; i++)
		feed(m, "ABCDEX", out);
	n = feed(m, "YA", out);
	/* A is always followed by B C D E X: each step certain. */
	EXPECT(n >= 5, "%u predictions", n);
	if (n >= 5) {
		static const char want[] = "BCDEX";

		for (i = 0; i < 5; i++) {
			EXPECT(out[i].file == (u32)want[i] && out[i].lead == i + 1,
			       "prediction %u: %c lead %u", i, out[i].file,
			       out[i].lead);
			EXPECT(out[i].likelihood == 1000, "likelihood %u",
			       out[i].likelihood);
		}
	}
	/* PCM names only the next file. */
	ppf_model_destroy(m);
	m = make(PPF_MODEL_PCM, 64, 2, 60);
	for (i = 0; i < 8; i++)
		feed(m, "ABCDEX", out);
	n = feed(m, "YA", out);
	EXPECT(n == 1 && out[0].file == B && out[0].lead == 1, "PCM %u", n);
	ppf_model_destroy(m);
}

/*
 * File ids are the caller's: 0 is as good an id as any.  (A chain once took
 * id 0 for "no file" and stopped jumping at it.)
 */
static void test_epcm_chain_with_file_id_zero(void)
{
	struct ppf_prediction out[PPF_MAX_PREDICTIONS];
	struct ppf_model *m = make(PPF_MODEL_EPCM, 64, 51, 25);
	unsigned int i, pass, n = 0;

	for (pass = 0; pass < 5; pass++)
		for (i = 0; i < 5; i++)
			ppf_model_event(m, 0, 0, i, out, PPF_MAX_PREDICTIONS);
	n = ppf_model_event(m, 0, 0, 0, out, PPF_MAX_PREDICTIONS);
	EXPECT(n >= 4, "%u predictions after file 0", n);
	for (i = 0; i < 4 && i < n; i++)
		EXPECT(out[i].file == i + 1 && out[i].lead == i + 1,
		       "prediction %u: file %u lead %u", i, out[i].file, out[i].lead);
	ppf_model_destroy(m);
}

/* A branch below the threshold ends the chain. */
static void test_epcm_chain_stops_below_threshold(void)
{
	struct ppf_prediction out[PPF_MAX_PREDICTIONS];
	struct ppf_model *m = make(PPF_MODEL_EPCM, 64, 51, 60);
	unsigned int i, n;

	/* After A B: C half the time, D the other half. */
	for (i = 0; i < 8; i++)
		feed(m, i % 2 ? "ABCX" : "ABDX", out);
	n = feed(m, "YA", out);
	EXPECT(n == 1 && out[0].file == B, "%u predictions, first %c", n,
	       n ? out[0].file : '-');
	ppf_model_destroy(m);
}

/*
 * A prologue P Q R repeated before a different file each time (a cp of
 * each of 8 sources): after R no source meets the threshold, so each
 * source is a surprise, and the surprise that followed it twice in a row
 * is named after the chain, as many events ahead as it came last time.
 */
#define SURPRISE_SOURCES	8

static void feed_sources_max(struct ppf_model *m, bool reverse,
			     struct ppf_prediction *out, unsigned int *n,
			     u32 at, unsigned int max_out)
{
	unsigned int i;

	for (i = 0; i < SURPRISE_SOURCES; i++) {
		u32 src = 100 + (reverse ? SURPRISE_SOURCES - 1 - i : i);

		feed(m, "PQR", out);
		n[i] = ppf_model_event(m, 0, 0, src, out, max_out);
		if (src == at)
			return;
	}
}

static void feed_sources(struct ppf_model *m, bool reverse,
			 struct ppf_prediction *out, unsigned int *n, u32 at)
{
	feed_sources_max(m, reverse, out, n, at, PPF_MAX_PREDICTIONS);
}

static bool names(const struct ppf_prediction *out, unsigned int n, u32 file,
		  u32 lead)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (out[i].file == file && (!lead || out[i].lead == lead))
			return true;
	return false;
}

static void test_epcm_surprise_follows_surprise(void)
{
	struct ppf_prediction out[PPF_MAX_PREDICTIONS];
	unsigned int n[SURPRISE_SOURCES] = { 0 }, pass;
	struct ppf_model *m = make(PPF_MODEL_EPCM, 64, 51, 25);
	struct ppf_model_stats st;

	/*
	 * In the first pass every event is a surprise; from the second on,
	 * the prologue is expected and the sources alone are surprises, each
	 * confirmed by the third.  Measured in the fourth.
	 */
	for (pass = 0; pass < 3; pass++)
		feed_sources(m, false, out, n, ~0u);
	feed_sources(m, false, out, n, 103);
	/* At source 103: 104 four events on (P Q R 104), 105 eight on... */
	EXPECT(names(out, n[3], 104, 4), "104 at lead 4 not among %u", n[3]);
	EXPECT(names(out, n[3], 105, 8), "105 at lead 8 not among %u", n[3]);
	EXPECT(names(out, n[3], 107, 16), "107 at lead 16 not among %u", n[3]);
	/* ...but only what is due within the model's 16-event horizon. */
	for (pass = 0; pass < n[3]; pass++)
		EXPECT(out[pass].lead <= 16, "%u at lead %u", out[pass].file,
		       out[pass].lead);
	ppf_model_stats(m, &st);
	EXPECT(st.surprises >= SURPRISE_SOURCES && st.surprise_predictions >= 4,
	       "%llu surprises, %llu named from them",
	       (unsigned long long)st.surprises,
	       (unsigned long long)st.surprise_predictions);
	ppf_model_destroy(m);
}

/*
 * A caller that asks for 8 predictions bounds how many are named, not how
 * far ahead: the surprises due 12 and 16 events on are named too, within
 * the model's 16-event horizon.
 */
static void test_epcm_surprise_beyond_a_short_call(void)
{
	struct ppf_prediction out[PPF_MAX_PREDICTIONS];
	unsigned int n[SURPRISE_SOURCES] = { 0 }, pass;
	struct ppf_model *m = make(PPF_MODEL_EPCM, 64, 51, 25);

	for (pass = 0; pass < 3; pass++)
		feed_sources(m, false, out, n, ~0u);
	feed_sources_max(m, false, out, n, 103, 8);
	EXPECT(n[3] <= 8, "%u predictions for 8 places", n[3]);
	EXPECT(names(out, n[3], 106, 12), "106 at lead 12 not among %u", n[3]);
	EXPECT(names(out, n[3], 107, 16), "107 at lead 16 not among %u", n[3]);
	ppf_model_destroy(m);
}

/* Surprises whose successor changes every pass name nothing. */
static void test_epcm_surprise_unconfirmed_names_nothing(void)
{
	struct ppf_prediction out[PPF_MAX_PREDICTIONS];
	unsigned int n[SURPRISE_SOURCES] = { 0 }, pass, i;
	struct ppf_model *m = make(PPF_MODEL_EPCM, 64, 51, 25);

	/* Ascending, then descending: 103 is followed by 104, then 102. */
	for (pass = 0; pass < 4; pass++)
		feed_sources(m, pass % 2, out, n, ~0u);
	feed_sources(m, false, out, n, 103);
	for (i = 0; i < n[3]; i++)
		EXPECT(out[i].file < 100, "source %u named at 103", out[i].file);
	ppf_model_destroy(m);
}

/*
 * With news, a chain made afresh names again only what it names for
 * other events: on a learnt cycle of 40 files every event adds one file
 * at the chain's end, and the chain made afresh every 16 events (it was
 * kept long enough) names the same files for the same events as the one
 * it replaces, so no event writes more than the children and that file.
 * The full call still names the whole chain at every event.
 */
static void test_epcm_news_chain_afresh(void)
{
	struct ppf_prediction out[PPF_MAX_PREDICTIONS];
	struct ppf_model *m = make(PPF_MODEL_EPCM, 64, 51, 25);
	unsigned int pass, i, n, most = 0, full_least = ~0u;

	for (pass = 0; pass < 6; pass++)
		for (i = 0; i < 40; i++)
			ppf_model_event(m, 0, 0, i, out, 16);
	ppf_model_restate(m);	/* everything is news once */
	n = ppf_model_event_new(m, 0, 0, 0, out, 16);
	EXPECT(n >= 8, "a learnt cycle names %u files after a restate", n);
	for (i = 1; i < 40; i++) {
		n = ppf_model_event_new(m, 0, 0, i, out, 16);
		if (n > most)
			most = n;
	}
	EXPECT(most <= 2, "an event of the learnt cycle wrote %u predictions", most);
	for (i = 0; i < 40; i++) {
		n = ppf_model_event(m, 0, 0, i, out, 16);
		if (n < full_least)
			full_least = n;
	}
	EXPECT(full_least >= 8, "the full call named only %u", full_least);
	ppf_model_destroy(m);
}

/*
 * ppf_model_learn() learns an event as ppf_model_event() does, for every
 * model: fed the same stream, some of it only learnt, a model predicts
 * afterwards exactly what its twin fed nothing but full events does.
 */
static void test_learn_learns_as_event(void)
{
	static const enum ppf_model_kind kinds[] = {
		PPF_MODEL_LAST_SUCCESSOR, PPF_MODEL_PCM, PPF_MODEL_EPCM };
	struct ppf_prediction out[PPF_MAX_PREDICTIONS], ref[PPF_MAX_PREDICTIONS];
	unsigned int k, i, j, n, nr, differ = 0;

	for (k = 0; k < 3; k++) {
		struct ppf_model *m = make(kinds[k], 64, 3, 25);
		struct ppf_model *twin = make(kinds[k], 64, 3, 25);

		/* Two interleaved cycles, with a detour every 7th event. */
		for (i = 0; i < 600; i++) {
			u32 f = i % 7 == 6 ? 500 + i % 11 : i % 30;

			if (i >= 200 && i < 400 && i % 3)
				ppf_model_learn(m, 0, 0, f);
			else
				ppf_model_event(m, 0, 0, f, out, 16);
			ppf_model_event(twin, 0, 0, f, ref, 16);
		}
		EXPECT(ppf_model_surprises(m) == ppf_model_surprises(twin),
		       "%s: %llu surprises learnt against %llu",
		       ppf_model_kind_name(kinds[k]),
		       (unsigned long long)ppf_model_surprises(m),
		       (unsigned long long)ppf_model_surprises(twin));
		for (i = 0; i < 60; i++) {
			n = ppf_model_event(m, 0, 0, i % 30, out, 16);
			nr = ppf_model_event(twin, 0, 0, i % 30, ref, 16);
			if (n != nr) {
				differ++;
				continue;
			}
			for (j = 0; j < n; j++)
				if (out[j].file != ref[j].file ||
				    out[j].lead != ref[j].lead)
					differ++;
		}
		EXPECT(differ == 0, "%s: %u predictions differ after learning",
		       ppf_model_kind_name(kinds[k]), differ);
		ppf_model_destroy(m);
		ppf_model_destroy(twin);
	}
}

/*
 * A learnt event names nothing and tells nothing: EPCM's next event with
 * news names its whole chain again (a caller that acted on nothing at a
 * paused device plans it after the pause), then only news once more.
 */
static void test_epcm_learn_then_news(void)
{
	struct ppf_prediction out[PPF_MAX_PREDICTIONS], ref[PPF_MAX_PREDICTIONS];
	struct ppf_model *m = make(PPF_MODEL_EPCM, 64, 51, 25);
	struct ppf_model *twin = make(PPF_MODEL_EPCM, 64, 51, 25);
	unsigned int pass, i, j, n, nr, most = 0, missing = 0;

	for (pass = 0; pass < 6; pass++)
		for (i = 0; i < 40; i++) {
			ppf_model_event(m, 0, 0, i, out, 16);
			ppf_model_event(twin, 0, 0, i, ref, 16);
		}
	for (i = 0; i < 10; i++) {
		ppf_model_event_new(m, 0, 0, i, out, 16);
		ppf_model_event(twin, 0, 0, i, ref, 16);
	}
	for (; i < 20; i++) {
		ppf_model_learn(m, 0, 0, i);
		ppf_model_event(twin, 0, 0, i, ref, 16);
	}
	n = ppf_model_event_new(m, 0, 0, i, out, 16);
	nr = ppf_model_event(twin, 0, 0, i, ref, 16);
	EXPECT(nr >= 8, "the full call names only %u files", nr);
	for (j = 0; j < nr; j++)
		if (!names(out, n, ref[j].file, ref[j].lead))
			missing++;
	EXPECT(missing == 0,
	       "after learnt events, %u of the %u files named are not news",
	       missing, nr);
	for (i++; i < 40; i++) {
		n = ppf_model_event_new(m, 0, 0, i, out, 16);
		if (n > most)
			most = n;
	}
	EXPECT(most <= 2, "an event of the learnt cycle wrote %u predictions",
	       most);
	ppf_model_destroy(m);
	ppf_model_destroy(twin);
}

/* Last successor predicts what followed last time, and replaces it. */
static void test_last_successor_replaces(void)
{
	struct ppf_prediction out[PPF_MAX_PREDICTIONS];
	struct ppf_model *m = make(PPF_MODEL_LAST_SUCCESSOR, 32, 2, 10);
	unsigned int n;

	n = feed(m, "A", out);
	EXPECT(n == 0, "nothing known yet");
	n = feed(m, "BA", out);
	EXPECT(n == 1 && out[0].file == B, "A -> B");
	EXPECT(out[0].likelihood == PPF_LIKELIHOOD_UNKNOWN, "no likelihood");
	n = feed(m, "CA", out);
	EXPECT(n == 1 && out[0].file == C, "A -> C replaces A -> B");
	EXPECT(count_of(m, "AC") == 1 && count_of(m, "AB") == 0, "one successor");
	EXPECT(ppf_model_check(m) == NULL, "%s", ppf_model_check(m));
	ppf_model_destroy(m);
}

/* Counts that would pass 255 halve the partition instead. */
static void test_count_saturation_halves(void)
{
	struct ppf_prediction out[PPF_MAX_PREDICTIONS];
	struct ppf_model_stats st;
	struct ppf_model *m = make(PPF_MODEL_PCM, 8, 1, 10);
	unsigned int i;

	for (i = 0; i < 300; i++)
		feed(m, "AB", out);
	ppf_model_stats(m, &st);
	EXPECT(st.count_saturations >= 1, "saturations %llu",
	       (unsigned long long)st.count_saturations);
	/*
	 * 300 uses of A reach 255 once: the halving leaves about 128, and the
	 * uses after it count on from there, so A is between 128 and 255 (not
	 * stuck at 255, not reset).  A halving keeps the proportions: B follows
	 * every A, so A -> B stays within one of A.
	 */
	EXPECT(count_of(m, "A") >= 128 && count_of(m, "A") < 255 &&
	       count_of(m, "AB") + 1 >= count_of(m, "A") &&
	       count_of(m, "AB") <= count_of(m, "A"),
	       "halved, proportions kept: A %u, A -> B %u",
	       count_of(m, "A"), count_of(m, "AB"));
	EXPECT(ppf_model_check(m) == NULL, "%s", ppf_model_check(m));
	ppf_model_destroy(m);
}

static bool predicts(const struct ppf_prediction *out, unsigned int n, u32 file)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (out[i].file == file)
			return true;
	return false;
}

/*
 * Two streams, A B C D and V W X Y, interleaved event by event.  As one
 * stream the model sees A V B W ...: each file's successor is the other
 * stream's file.  As two contexts, each keeps its own order.
 */
static void test_contexts_keep_interleaved_streams_apart(void)
{
	static const char one[] = "ABCD", two[] = "VWXY";
	struct ppf_prediction out[PPF_MAX_PREDICTIONS];
	enum ppf_model_kind kind;
	unsigned int i, n;

	for (kind = PPF_MODEL_LAST_SUCCESSOR; kind <= PPF_MODEL_EPCM; kind++) {
		struct ppf_model *apart = make(kind, 64, kind == PPF_MODEL_EPCM ? 51 : 2, 25);
		struct ppf_model *mixed = make(kind, 64, kind == PPF_MODEL_EPCM ? 51 : 2, 25);

		for (i = 0; i < 8 * 4; i++) {
			ppf_model_event(apart, 1, 1, one[i % 4], out, PPF_MAX_PREDICTIONS);
			ppf_model_event(apart, 2, 2, two[i % 4], out, PPF_MAX_PREDICTIONS);
			ppf_model_event(mixed, 0, 0, one[i % 4], out, PPF_MAX_PREDICTIONS);
			ppf_model_event(mixed, 0, 0, two[i % 4], out, PPF_MAX_PREDICTIONS);
		}
		n = ppf_model_event(apart, 1, 1, 'A', out, PPF_MAX_PREDICTIONS);
		EXPECT(n >= 1 && out[0].file == 'B', "%s: context 1 after A: %u, %c",
		       ppf_model_kind_name(kind), n, n ? out[0].file : '-');
		n = ppf_model_event(apart, 2, 2, 'V', out, PPF_MAX_PREDICTIONS);
		EXPECT(n >= 1 && out[0].file == 'W', "%s: context 2 after V: %u, %c",
		       ppf_model_kind_name(kind), n, n ? out[0].file : '-');
		n = ppf_model_event(mixed, 0, 0, 'A', out, PPF_MAX_PREDICTIONS);
		EXPECT(n >= 1 && out[0].file == 'V', "%s: one stream after A: %u, %c",
		       ppf_model_kind_name(kind), n, n ? out[0].file : '-');
		EXPECT(ppf_model_check(apart) == NULL, "%s", ppf_model_check(apart));
		ppf_model_destroy(apart);
		ppf_model_destroy(mixed);
	}
}

/*
 * A new context starts where its parent is.  Learnt: X Y Z W and Q Y Z V,
 * alike.  After X Y, Z is followed by W; after Q Y, by V; after Z alone,
 * by either.  A child whose first event is Z predicts W if its parent had
 * seen X Y, and both if it has no parent to start from.
 */
static void test_contexts_start_from_parent(void)
{
	struct ppf_prediction out[PPF_MAX_PREDICTIONS];
	struct ppf_model *m = make(PPF_MODEL_PCM, 64, 3, 25);
	unsigned int i, n;

	for (i = 0; i < 6; i++)
		feed_ctx(m, 1, 1, i % 2 ? "XYZW." : "QYZV.", out);
	feed_ctx(m, 1, 1, "XY", out);
	n = feed_ctx(m, 7, 1, "Z", out);
	EXPECT(n == 1 && out[0].file == 'W', "child of X Y: %u, %c", n,
	       n ? out[0].file : '-');
	n = feed_ctx(m, 8, 99, "Z", out);
	EXPECT(n == 2 && predicts(out, n, 'W') && predicts(out, n, 'V'),
	       "no parent: %u predictions", n);
	ppf_model_destroy(m);
}

/*
 * A fork does not count a pattern twice.  Context 1 sees X A; its child 2
 * sees B; its child 3 starts after that (the family's latest place, X A B)
 * and sees C; then 2 sees C too.  A B C and B C occurred once (in 3, which
 * continues the stream from 2's place, whose copy of it only follows); C
 * itself was opened twice.
 */
static void test_contexts_fork_counts_once(void)
{
	struct ppf_prediction out[PPF_MAX_PREDICTIONS];
	struct ppf_model *m = make(PPF_MODEL_PCM, 16, 2, 25);

	feed_ctx(m, 1, 1, "XA", out);
	feed_ctx(m, 2, 1, "B", out);
	feed_ctx(m, 3, 1, "C", out);
	feed_ctx(m, 2, 2, "C", out);
	EXPECT(count_of(m, "ABC") == 1 && count_of(m, "BC") == 1,
	       "ABC %u BC %u, want 1 1", count_of(m, "ABC"), count_of(m, "BC"));
	EXPECT(count_of(m, "C") == 2 && count_of(m, "XAB") == 1, "C %u XAB %u",
	       count_of(m, "C"), count_of(m, "XAB"));
	EXPECT(ppf_model_check(m) == NULL, "%s", ppf_model_check(m));
	ppf_model_destroy(m);
}

/*
 * A shell runs cat A, then cat B, round after round, each cat a new
 * context; the shell opens nothing itself.  Each cat continues where the
 * one before it ended, so A -> B is learnt across processes.
 */
static void test_contexts_children_in_turn(void)
{
	struct ppf_prediction out[PPF_MAX_PREDICTIONS];
	enum ppf_model_kind kind;
	unsigned int r, n;

	for (kind = PPF_MODEL_LAST_SUCCESSOR; kind <= PPF_MODEL_EPCM; kind++) {
		struct ppf_model *m = make(kind, 64, kind == PPF_MODEL_EPCM ? 51 : 2, 25);

		for (r = 0; r < 6; r++) {
			feed_ctx(m, 100 + 2 * r, 1, "A", out);
			feed_ctx(m, 101 + 2 * r, 1, "B", out);
		}
		n = feed_ctx(m, 200, 1, "A", out);
		EXPECT(n >= 1 && out[0].file == 'B', "%s: cat A predicts %u, %c",
		       ppf_model_kind_name(kind), n, n ? out[0].file : '-');
		EXPECT(ppf_model_check(m) == NULL, "%s", ppf_model_check(m));
		ppf_model_destroy(m);
	}
}

/*
 * The shell itself opens G after running cat P and dd E, then runs cat Q:
 * each part, the shell's own open too, continues where the one before it
 * ended, so after P the model names E, G and Q.
 */
static void test_contexts_parent_continues_after_children(void)
{
	struct ppf_prediction out[PPF_MAX_PREDICTIONS];
	struct ppf_model *m = make(PPF_MODEL_EPCM, 64, 51, 25);
	unsigned int r, n;

	for (r = 0; r < 6; r++) {
		feed_ctx(m, 100 + 3 * r, 1, "P", out);
		feed_ctx(m, 101 + 3 * r, 1, "E", out);
		feed_ctx(m, 1, 1, "G", out);
		feed_ctx(m, 102 + 3 * r, 1, "Q", out);
	}
	n = feed_ctx(m, 300, 1, "P", out);
	EXPECT(n >= 3 && out[0].file == 'E' && out[1].file == 'G' &&
	       out[2].file == 'Q', "after P: %u predictions, %c %c %c", n,
	       n > 0 ? out[0].file : '-', n > 1 ? out[1].file : '-',
	       n > 2 ? out[2].file : '-');
	EXPECT(ppf_model_check(m) == NULL, "%s", ppf_model_check(m));
	ppf_model_destroy(m);
}

/* Room for two contexts: a third makes the least recently used one go. */
static void test_contexts_reclaim_least_recent(void)
{
	struct ppf_prediction out[PPF_MAX_PREDICTIONS];
	struct ppf_model_params p;
	struct ppf_model_stats st;
	struct ppf_model *m;
	unsigned int i, n;
	int err;

	ppf_model_params_init_shape(&p, PPF_MODEL_PCM, 16);
	p.max_contexts = 2;
	m = ppf_model_create(&p, &err);
	EXPECT(m != NULL, "create: %d", err);
	if (!m)
		return;
	for (i = 0; i < 4; i++)
		feed_ctx(m, 1, 1, "AB", out);
	feed_ctx(m, 1, 1, "A", out);	/* context 1 is at A */
	feed_ctx(m, 2, 2, "C", out);
	feed_ctx(m, 3, 3, "D", out);	/* context 1 is the least recent */
	ppf_model_stats(m, &st);
	EXPECT(st.contexts == 2 && st.contexts_reclaimed == 1, "%u live, %llu reclaimed",
	       st.contexts, (unsigned long long)st.contexts_reclaimed);
	/* Back, context 1 starts again: its A is an order-1 context now. */
	n = feed_ctx(m, 1, 1, "B", out);
	EXPECT(n == 1 && out[0].file == 'A', "restarted context: %u", n);
	EXPECT(count_of(m, "AB") == 4, "AB %u: B after a restart is not after A",
	       count_of(m, "AB"));
	EXPECT(ppf_model_check(m) == NULL, "%s", ppf_model_check(m));
	ppf_model_destroy(m);
}

static void expect_invalid(struct ppf_model_params p, const char *what)
{
	struct ppf_model *m;
	int err = 0;

	EXPECT(ppf_model_params_validate(&p) == -EINVAL, "%s accepted", what);
	m = ppf_model_create(&p, &err);
	EXPECT(m == NULL && err == -EINVAL, "%s created (err %d)", what, err);
	ppf_model_destroy(m);
}

static void test_params_validation(void)
{
	struct ppf_model_params good, p;
	enum ppf_model_kind kind;
	int k;

	for (k = PPF_MODEL_LAST_SUCCESSOR; k <= PPF_MODEL_EPCM; k++) {
		EXPECT(ppf_model_params_init(&good, k) == 0, "init %d", k);
		EXPECT(ppf_model_params_validate(&good) == 0, "defaults %d", k);
		EXPECT(ppf_model_bytes_needed(&good) > 0, "bytes %d", k);
		p = good; p.kind = 3; expect_invalid(p, "kind 3");
		p = good; p.kind = (enum ppf_model_kind)-1; expect_invalid(p, "kind -1");
		p = good; p.partition_size = 0; expect_invalid(p, "ps 0");
		p = good; p.partition_size = 1; expect_invalid(p, "ps 1");
		p = good; p.partition_size = PPF_MAX_PARTITION_SIZE + 1;
		expect_invalid(p, "ps max+1");
		p = good; p.partition_size = 0xffffffffu; expect_invalid(p, "ps huge");
		p = good; p.model_order = 0; expect_invalid(p, "order 0");
		p = good; p.model_order = p.partition_size; expect_invalid(p, "order = ps");
		p = good; p.model_order = 0xffffffffu; expect_invalid(p, "order huge");
		p = good; p.threshold_pct = 0; expect_invalid(p, "threshold 0");
		p = good; p.threshold_pct = 101; expect_invalid(p, "threshold 101");
		p = good; p.max_nodes = PPF_MIN_NODES - 1; expect_invalid(p, "nodes min-1");
		p = good; p.max_nodes = PPF_MAX_NODES + 1; expect_invalid(p, "nodes max+1");
		p = good; p.partition_size = 128; p.max_nodes = 100;
		expect_invalid(p, "nodes < ps");
		p = good; p.max_predictions = 0; expect_invalid(p, "predictions 0");
		p = good; p.max_predictions = PPF_MAX_PREDICTIONS + 1;
		expect_invalid(p, "predictions max+1");
		p = good; p.max_contexts = 0; expect_invalid(p, "contexts 0");
		p = good; p.max_contexts = PPF_MAX_CONTEXTS + 1;
		expect_invalid(p, "contexts max+1");
	}
	/* Edges that are valid. */
	p = good; p.partition_size = 2; p.model_order = 1; p.max_nodes = PPF_MIN_NODES;
	EXPECT(ppf_model_params_validate(&p) == 0, "smallest shape");
	p = good; p.partition_size = PPF_MAX_PARTITION_SIZE;
	p.model_order = PPF_MAX_PARTITION_SIZE - 1;
	EXPECT(ppf_model_params_validate(&p) == 0, "largest shape");
	EXPECT(ppf_model_params_init(&p, 7) == -EINVAL, "init unknown kind");
	/* The default shapes: EPCM's order is 80% of the partition size. */
	EXPECT(ppf_model_params_init(&p, PPF_MODEL_EPCM) == 0 && p.partition_size == 64 &&
	       p.model_order == 51, "epcm default 64/51");
	EXPECT(ppf_model_params_init(&p, PPF_MODEL_PCM) == 0 && p.partition_size == 32 &&
	       p.model_order == 2, "pcm default 32/2");
	EXPECT(ppf_model_params_init_shape(&p, PPF_MODEL_EPCM, 16) == 0 &&
	       p.partition_size == 16 && p.model_order == 12 &&
	       ppf_model_params_validate(&p) == 0, "epcm 16/12");
	EXPECT(ppf_model_params_init_shape(&p, PPF_MODEL_PCM, 8) == 0 && p.model_order == 2,
	       "pcm order stays 2");
	EXPECT(ppf_model_default_order(PPF_MODEL_EPCM, 1) == 1, "epcm order at least 1");
	EXPECT(ppf_model_params_init_shape(&p, 7, 16) == -EINVAL, "init_shape unknown kind");
	EXPECT(ppf_model_kind_parse("epcm", &kind) == 0 && kind == PPF_MODEL_EPCM, "epcm");
	kind = PPF_MODEL_PCM;
	EXPECT(ppf_model_kind_parse("EPCM", &kind) == -EINVAL && kind == PPF_MODEL_PCM,
	       "names are exact and a bad one leaves the old value");
	EXPECT(ppf_model_kind_parse("", &kind) == -EINVAL, "empty name");
	EXPECT(ppf_model_kind_name(PPF_MODEL_LAST_SUCCESSOR) &&
	       strcmp(ppf_model_kind_name(PPF_MODEL_LAST_SUCCESSOR), "last_successor") == 0,
	       "name");
}

/*
 * The memory-to-nodes rule (the kernel's memory_kb): the most nodes that
 * fit, so one more does not; none when not even the least does.
 */
static void test_nodes_for_bytes(void)
{
	struct ppf_model_params p, q;
	u32 n;
	u64 bytes;
	int k;

	for (k = PPF_MODEL_LAST_SUCCESSOR; k <= PPF_MODEL_EPCM; k++) {
		EXPECT(ppf_model_params_init(&p, k) == 0, "init %d", k);
		p.max_nodes = 12345;	/* not read */
		n = ppf_model_nodes_for_bytes(&p, 16384 * 1024ULL);
		q = p;
		q.max_nodes = n;
		bytes = ppf_model_bytes_needed(&q);
		EXPECT(n >= PPF_MIN_NODES && bytes && bytes <= 16384 * 1024ULL,
		       "%d: %u nodes fit 16 MiB", k, n);
		q.max_nodes = n + 1;
		EXPECT(n == PPF_MAX_NODES || ppf_model_bytes_needed(&q) > 16384 * 1024ULL,
		       "%d: %u nodes are the most", k, n);
		q.max_nodes = PPF_MIN_NODES;
		bytes = ppf_model_bytes_needed(&q);
		EXPECT(ppf_model_nodes_for_bytes(&p, bytes) == PPF_MIN_NODES &&
		       ppf_model_nodes_for_bytes(&p, bytes - 1) == 0,
		       "%d: the least, and less than the least", k);
	}
}

static const struct ppf_test tests[] = {
	{ "pcm_paper_trie", test_pcm_paper_trie },
	{ "pcm_order_bounds_patterns", test_pcm_order_bounds_patterns },
	{ "pcm_partition_halves", test_pcm_partition_halves },
	{ "pcm_partition_drops", test_pcm_partition_drops },
	{ "epcm_grows_one_node_per_occurrence", test_epcm_grows_one_node_per_occurrence },
	{ "epcm_predicts_chain", test_epcm_predicts_chain },
	{ "epcm_chain_stops_below_threshold", test_epcm_chain_stops_below_threshold },
	{ "epcm_chain_with_file_id_zero", test_epcm_chain_with_file_id_zero },
	{ "epcm_surprise_follows_surprise", test_epcm_surprise_follows_surprise },
	{ "epcm_surprise_beyond_a_short_call", test_epcm_surprise_beyond_a_short_call },
	{ "epcm_surprise_unconfirmed_names_nothing", test_epcm_surprise_unconfirmed_names_nothing },
	{ "epcm_news_chain_afresh", test_epcm_news_chain_afresh },
	{ "learn_learns_as_event", test_learn_learns_as_event },
	{ "epcm_learn_then_news", test_epcm_learn_then_news },
	{ "last_successor_replaces", test_last_successor_replaces },
	{ "count_saturation_halves", test_count_saturation_halves },
	{ "params_validation", test_params_validation },
	{ "nodes_for_bytes", test_nodes_for_bytes },
	{ "contexts_keep_interleaved_streams_apart", test_contexts_keep_interleaved_streams_apart },
	{ "contexts_start_from_parent", test_contexts_start_from_parent },
	{ "contexts_children_in_turn", test_contexts_children_in_turn },
	{ "contexts_parent_continues_after_children", test_contexts_parent_continues_after_children },
	{ "contexts_fork_counts_once", test_contexts_fork_counts_once },
	{ "contexts_reclaim_least_recent", test_contexts_reclaim_least_recent },
};

int main(int argc, char **argv)
{
	return ppf_run_tests(tests, sizeof(tests) / sizeof(tests[0]),
			     argc > 1 ? argv[1] : NULL);
}
