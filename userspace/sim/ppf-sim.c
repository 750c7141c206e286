// SPDX-License-Identifier: GPL-2.0
/*
 * ppf-sim - score the predictive models on a recorded trace
 *
 * Feeds a trace's open/exec sequence through a model, --passes times to
 * train it (the paper trained with 3 runs) and once more to measure, and
 * reports for the measured pass: predictions, precision, coverage, lead in
 * events and in recorded time, wasted predictions, and the model's memory.
 * --sweep runs a grid of models and shapes, with an oracle row that knows
 * the future, prints one table and writes JSON.  --contexts pid gives each
 * recorded process its own context (as the kernel's per-task contexts do);
 * the sweep also scores its EPCM shapes in the other mode.  --train scores
 * a model trained on other runs of the workload (files matched by path),
 * so that a parallel build is measured on an interleaving it has not seen.
 * --interleave SEED runs all the traces given at once, their opens
 * interleaved at random, a different interleaving in each pass.
 * Deterministic: the same trace and options always print the same numbers.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../models/ppf_model.h"
#include "../include/ppf_cli.h"
#include "../trace-replay/trace.h"
#include "event_stream.h"
#include "path_ids.h"
#include "score.h"

#define PPF_SIM_ORACLE	(-1)

/* How events are given to the model: one stream, or a context per pid. */
enum sim_contexts { SIM_CTX_GLOBAL, SIM_CTX_PID };

struct sim_config {
	int oracle;
	enum sim_contexts contexts;
	struct ppf_model_params params;
	unsigned int passes;
	unsigned int window;
};

struct sim_row {
	const char *trace;
	struct sim_config cfg;
	struct ppf_score score;
	uint64_t median_lead_ns;
	uint64_t distinct;
};

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "ppf-sim: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(2);
}

static unsigned long parse_num(const char *opt, const char *s,
			       unsigned long lo, unsigned long hi)
{
	char *end;
	unsigned long v;

	errno = 0;
	if (!s || *s == '-' || *s == '\0')
		die("%s needs a non-negative number", opt);
	v = strtoul(s, &end, 10);
	if (errno || *end || v < lo || v > hi) {
		fprintf(stderr, "ppf-sim: %s %s: not a number in %lu..%lu\n",
			opt, s, lo, hi);
		exit(2);
	}
	return v;
}

static size_t parse_list(const char *opt, const char *s, unsigned int *out,
			 size_t max)
{
	char buf[256], *tok, *save = NULL;
	size_t n = 0;

	if (strlen(s) >= sizeof(buf))
		die("%s: list too long", opt);
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == max)
			die("%s: too many values", opt);
		out[n++] = parse_num(opt, tok, 1, PPF_MAX_PARTITION_SIZE);
	}
	if (!n)
		die("%s: empty list", opt);
	return n;
}

/* The oracle predicts the files of the next events, as far as it may. */
static unsigned int oracle_predict(const struct ppf_event_stream *s, size_t i,
				   unsigned int max_out, unsigned int window,
				   struct ppf_prediction *out)
{
	unsigned int n = 0, k;
	size_t j;

	for (j = i + 1; j < s->n && j <= i + window && n < max_out; j++) {
		for (k = 0; k < n && out[k].file != s->file[j]; k++)
			;
		if (k < n)
			continue;
		out[n].file = s->file[j];
		out[n].likelihood = PPF_LIKELIHOOD_ONE;
		out[n].lead = (uint16_t)(j - i);
		n++;
	}
	return n;
}

/*
 * Training runs (--train), each fed once per training pass, if any; or,
 * with @per_pass, one for each training pass (--interleave: a different
 * interleaving each pass).
 */
struct sim_training {
	struct ppf_event_stream *stream;
	size_t n;
	int per_pass;
};

/* The context and parent of event @i of @s under @cfg. */
static void event_context(const struct sim_config *cfg,
			  const struct ppf_event_stream *s, size_t i,
			  u32 *ctx, u32 *parent)
{
	*ctx = 0;
	*parent = 0;
	if (cfg->contexts == SIM_CTX_PID) {
		*ctx = s->pid[i];
		*parent = s->parent[i];
	}
}

/* Feed a whole stream to @m, to train it. */
static void train(struct ppf_model *m, const struct sim_config *cfg,
		  const struct ppf_event_stream *s)
{
	struct ppf_prediction out[PPF_MAX_PREDICTIONS];
	u32 ctx, parent;
	size_t i;

	for (i = 0; i < s->n; i++) {
		event_context(cfg, s, i, &ctx, &parent);
		ppf_model_event(m, ctx, parent, s->file[i], out,
				PPF_MAX_PREDICTIONS);
	}
}

static int simulate(const struct ppf_event_stream *s,
		    const struct sim_training *tr, struct sim_row *row)
{
	struct ppf_prediction out[PPF_MAX_PREDICTIONS];
	const struct sim_config *cfg = &row->cfg;
	struct ppf_model *m = NULL;
	struct ppf_pass_log log;
	struct ppf_model_stats st;
	unsigned int pass;
	size_t i;
	int err = 0;

	if (!cfg->oracle) {
		m = ppf_model_create(&cfg->params, &err);
		if (!m) {
			fprintf(stderr, "ppf-sim: cannot create model: %s\n",
				strerror(-err));
			return -1;
		}
	}
	if (ppf_pass_log_init(&log, s->n))
		goto oom;
	for (pass = 0; pass <= cfg->passes; pass++) {
		int measured = pass == cfg->passes;

		if (!measured && tr->per_pass) {
			if (m)
				train(m, cfg, &tr->stream[pass % tr->n]);
			continue;
		}
		if (!measured && tr->n) {
			for (i = 0; m && i < tr->n; i++)
				train(m, cfg, &tr->stream[i]);
			continue;
		}
		for (i = 0; i < s->n; i++) {
			u32 ctx, parent;
			unsigned int n;

			event_context(cfg, s, i, &ctx, &parent);
			if (m)
				n = ppf_model_event(m, ctx, parent, s->file[i],
						    out, PPF_MAX_PREDICTIONS);
			else
				n = measured ? oracle_predict(s, i,
						cfg->params.max_predictions,
						cfg->window, out) : 0;
			if (measured && ppf_pass_log_add(&log, i, out, n))
				goto oom_log;
		}
	}
	if (ppf_score_pass(s, &log, cfg->window, &row->score))
		goto oom_log;
	row->median_lead_ns = ppf_score_median_lead_ns(&row->score);
	row->distinct = s->distinct;
	if (m) {
		ppf_model_stats(m, &st);
		row->score.nodes = st.nodes;
		row->score.bytes = st.bytes_in_use;
	}
	ppf_pass_log_free(&log);
	ppf_model_destroy(m);
	return 0;

oom_log:
	ppf_pass_log_free(&log);
oom:
	ppf_model_destroy(m);
	fprintf(stderr, "ppf-sim: out of memory\n");
	return -1;
}

static const char *row_model(const struct sim_row *r)
{
	return r->cfg.oracle ? "oracle" : ppf_model_kind_name(r->cfg.params.kind);
}

static const char *row_contexts(const struct sim_row *r)
{
	return r->cfg.contexts == SIM_CTX_PID ? "pid" : "global";
}

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0.0;
}

static void print_header(void)
{
	printf("%-10s %-14s %-6s %5s %5s %4s %7s %6s %9s %7s %7s %6s %8s %8s %8s %8s\n",
	       "trace", "model", "ctx", "ps", "order", "thr", "events", "files",
	       "predict", "precis", "cover", "lead", "lead_ms", "lead_p50",
	       "wasted", "nodes");
}

static void print_row(const struct sim_row *r)
{
	const struct ppf_score *sc = &r->score;
	const struct ppf_model_params *p = &r->cfg.params;
	int shaped = !r->cfg.oracle && p->kind != PPF_MODEL_LAST_SUCCESSOR;
	char ps[16] = "-", order[16] = "-", thr[16] = "-";

	if (shaped) {
		snprintf(ps, sizeof(ps), "%u", p->partition_size);
		snprintf(order, sizeof(order), "%u", p->model_order);
		snprintf(thr, sizeof(thr), "%u", p->threshold_pct);
	}
	printf("%-10.10s %-14s %-6s %5s %5s %4s %7llu %6llu %9llu %6.1f%% %6.1f%% %6.2f %8.2f %8.2f %8llu %8llu\n",
	       r->trace, row_model(r), row_contexts(r), ps, order, thr,
	       (unsigned long long)sc->events, (unsigned long long)r->distinct,
	       (unsigned long long)sc->predictions,
	       100.0 * ratio(sc->correct, sc->predictions),
	       100.0 * ratio(sc->covered, sc->events),
	       ratio(sc->lead_events_sum, sc->covered),
	       ratio(sc->lead_ns_sum, sc->covered) / 1e6,
	       r->median_lead_ns / 1e6,
	       (unsigned long long)(sc->predictions - sc->correct),
	       (unsigned long long)sc->nodes);
}

static void json_row(FILE *f, const struct sim_row *r, int last)
{
	const struct ppf_score *sc = &r->score;
	const struct ppf_model_params *p = &r->cfg.params;

	fprintf(f, "    {\"trace\": \"%s\", \"model\": \"%s\", \"contexts\": \"%s\", ",
		r->trace, row_model(r), row_contexts(r));
	if (!r->cfg.oracle)
		fprintf(f, "\"partition_size\": %u, \"model_order\": %u, "
			"\"threshold_pct\": %u, \"max_nodes\": %u, ",
			p->partition_size, p->model_order, p->threshold_pct,
			p->max_nodes);
	fprintf(f, "\"max_predictions\": %u, \"passes\": %u, \"window\": %u, "
		"\"events\": %llu, \"distinct_files\": %llu, \"predictions\": %llu, "
		"\"correct\": %llu, \"wasted\": %llu, \"precision\": %.6f, "
		"\"covered\": %llu, \"coverage\": %.6f, \"lead_events_mean\": %.4f, "
		"\"lead_ms_mean\": %.4f, \"lead_ms_median\": %.4f, "
		"\"nodes\": %llu, \"bytes_in_use\": %llu}%s\n",
		p->max_predictions, r->cfg.passes, r->cfg.window,
		(unsigned long long)sc->events, (unsigned long long)r->distinct,
		(unsigned long long)sc->predictions,
		(unsigned long long)sc->correct,
		(unsigned long long)(sc->predictions - sc->correct),
		ratio(sc->correct, sc->predictions),
		(unsigned long long)sc->covered, ratio(sc->covered, sc->events),
		ratio(sc->lead_events_sum, sc->covered),
		ratio(sc->lead_ns_sum, sc->covered) / 1e6,
		r->median_lead_ns / 1e6,
		(unsigned long long)sc->nodes, (unsigned long long)sc->bytes,
		last ? "" : ",");
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ppf-sim [OPTIONS] TRACE...\n"
		"Score a model on the open/exec sequence of recorded traces.\n\n"
		"  -m, --model NAME          last_successor | pcm | epcm | oracle (epcm)\n"
		"  -p, --partition-size N    nodes per partition (pcm 32, epcm 64)\n"
		"  -o, --order N             model order (pcm 2, epcm 80%% of -p)\n"
		"  -t, --threshold PCT       least likelihood to predict, 1..100 (25)\n"
		"  -n, --max-nodes N         node budget (1048576)\n"
		"  -P, --max-predictions N   predictions per event, 1..%d (16)\n"
		"  -w, --window K            a prediction counts if the file comes\n"
		"                            within K events (16)\n"
		"  -r, --passes N            training passes before the measured one (3)\n"
		"  -c, --contexts MODE       global: one stream (the paper's); pid: a\n"
		"                            context per recorded process (global)\n"
		"  -T, --train TRACE         train on this run instead of the measured\n"
		"                            trace (repeatable; files matched by path)\n"
		"  -i, --interleave SEED     run all TRACEs at once, opens interleaved at\n"
		"                            random, another interleaving each pass\n"
		"  -s, --sweep               last successor, PCM and EPCM over a grid,\n"
		"                            and the oracle\n"
		"      --sizes LIST          sweep partition sizes (4,8,16,32,64)\n"
		"      --orders LIST         sweep PCM orders (1,2,3,4); EPCM uses\n"
		"                            80%% of each partition size\n"
		"  -j, --json FILE           also write the results as JSON (checked\n"
		"                            writable before the run; -: JSON on\n"
		"                            standard output, the table on standard error)\n"
		"  -V, --version             print the version and exit\n"
		"  -h, --help                print this help and exit\n\n"
		"Exit status: 0 done; 1 a trace could not be read or scored, or an\n"
		"output could not be written; 2 a bad command line.\n"
		"See ppf-sim(1).\n", PPF_MAX_PREDICTIONS);
}

/* The command line, as parsed: the base configuration, the sweep, the files. */
struct sim_args {
	struct sim_config base;
	int sweep;
	unsigned int sizes[16], orders[16];
	size_t nsizes, norders;
	const char *json;
	char **traces;
	size_t ntraces;
	const char *train[16];
	size_t ntrain;
	int interleave;
	unsigned long seed;
};

/* Options given as numbers; -1 where not given. */
struct sim_shape_opts {
	const char *model;
	long ps, order, threshold, max_nodes, max_pred;
};

/* The getopt loop; returns -1 to go on, or the exit code (help, bad option). */
static int parse_options(int argc, char **argv, struct sim_args *a,
			 struct sim_shape_opts *o)
{
	static const struct option opts[] = {
		{ "model", required_argument, NULL, 'm' },
		{ "partition-size", required_argument, NULL, 'p' },
		{ "order", required_argument, NULL, 'o' },
		{ "threshold", required_argument, NULL, 't' },
		{ "max-nodes", required_argument, NULL, 'n' },
		{ "max-predictions", required_argument, NULL, 'P' },
		{ "window", required_argument, NULL, 'w' },
		{ "passes", required_argument, NULL, 'r' },
		{ "contexts", required_argument, NULL, 'c' },
		{ "train", required_argument, NULL, 'T' },
		{ "interleave", required_argument, NULL, 'i' },
		{ "sweep", no_argument, NULL, 's' },
		{ "sizes", required_argument, NULL, 'S' },
		{ "orders", required_argument, NULL, 'O' },
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;	/* our own one-line message below */
	while ((c = getopt_long(argc, argv, ":m:p:o:t:n:P:w:r:c:T:i:sj:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'm': o->model = optarg; break;
		case 'p': o->ps = parse_num("--partition-size", optarg,
					    PPF_MIN_PARTITION_SIZE, PPF_MAX_PARTITION_SIZE); break;
		case 'o': o->order = parse_num("--order", optarg, 1, PPF_MAX_PARTITION_SIZE - 1); break;
		case 't': o->threshold = parse_num("--threshold", optarg, 1, 100); break;
		case 'n': o->max_nodes = parse_num("--max-nodes", optarg, PPF_MIN_NODES, PPF_MAX_NODES); break;
		case 'P': o->max_pred = parse_num("--max-predictions", optarg, 1, PPF_MAX_PREDICTIONS); break;
		case 'w': a->base.window = parse_num("--window", optarg, 1, 1u << 20); break;
		case 'r': a->base.passes = parse_num("--passes", optarg, 0, 1000); break;
		case 'c':
			if (strcmp(optarg, "global") == 0)
				a->base.contexts = SIM_CTX_GLOBAL;
			else if (strcmp(optarg, "pid") == 0)
				a->base.contexts = SIM_CTX_PID;
			else
				die("--contexts %s: not global or pid", optarg);
			break;
		case 'T':
			if (a->ntrain == ARRAY_SIZE(a->train))
				die("%s", "--train: at most 16 runs");
			a->train[a->ntrain++] = optarg;
			break;
		case 'i':
			a->interleave = 1;
			a->seed = parse_num("--interleave", optarg, 0, 1ul << 31);
			break;
		case 's': a->sweep = 1; break;
		case 'S': a->nsizes = parse_list("--sizes", optarg, a->sizes, 16); break;
		case 'O': a->norders = parse_list("--orders", optarg, a->orders, 16); break;
		case 'j': a->json = optarg; break;
		case 'h': usage(stdout); return 0;
		case 'V': ppf_cli_version("ppf-sim"); return 0;
		case ':':
			fprintf(stderr, "ppf-sim: %s needs a value (see ppf-sim --help)\n",
				argv[optind - 1]);
			return 2;
		default:
			if (optopt)
				fprintf(stderr, "ppf-sim: unknown option -%c (see ppf-sim --help)\n",
					optopt);
			else
				fprintf(stderr, "ppf-sim: unknown option %s (see ppf-sim --help)\n",
					argv[optind - 1]);
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "ppf-sim: no TRACE given (usage: ppf-sim [OPTIONS] TRACE...; "
			"see ppf-sim --help)\n");
		return 2;
	}
	a->traces = argv + optind;
	a->ntraces = (size_t)(argc - optind);
	return -1;
}

/* The base model parameters from the options; 0, or the exit code. */
static int base_params(const struct sim_shape_opts *o, struct sim_config *base)
{
	struct ppf_model_params *p = &base->params;

	if (strcmp(o->model, "oracle") == 0) {
		base->oracle = 1;
		ppf_model_params_init(p, PPF_MODEL_EPCM);
	} else {
		enum ppf_model_kind kind;

		if (ppf_model_kind_parse(o->model, &kind))
			die("--model %s: not last_successor, pcm, epcm or oracle", o->model);
		ppf_model_params_init(p, kind);
	}
	if (o->ps >= 0)
		ppf_model_params_init_shape(p, p->kind, o->ps);
	if (o->order >= 0)
		p->model_order = o->order;
	if (o->threshold >= 0)
		p->threshold_pct = o->threshold;
	if (o->max_nodes >= 0)
		p->max_nodes = o->max_nodes;
	if (o->max_pred >= 0)
		p->max_predictions = o->max_pred;
	if (ppf_model_params_validate(p)) {
		fprintf(stderr, "ppf-sim: invalid model shape: partition size %u, order %u "
			"(order must be below the partition size), max nodes %u\n",
			p->partition_size, p->model_order, p->max_nodes);
		return 2;
	}
	return 0;
}

/* Parse the command line into a; returns -1 to go on, or the exit code. */
static int parse_args(int argc, char **argv, struct sim_args *a)
{
	static const unsigned int sizes[] = { 4, 8, 16, 32, 64 }, orders[] = { 1, 2, 3, 4 };
	struct sim_shape_opts o = { "epcm", -1, -1, -1, -1, -1 };
	int ret;

	memset(a, 0, sizeof(*a));
	memcpy(a->sizes, sizes, sizeof(sizes));
	memcpy(a->orders, orders, sizeof(orders));
	a->nsizes = 5;
	a->norders = 4;
	a->base.passes = 3;
	a->base.window = 16;
	ret = parse_options(argc, argv, a, &o);
	if (ret >= 0)
		return ret;
	ret = base_params(&o, &a->base);
	return ret ? ret : -1;
}

/*
 * The configurations to run on each trace: the base one, or for --sweep last
 * successor, PCM for every size and order below it, EPCM for every size (at
 * its default order) and the oracle, with the base's budget and options.
 */
static struct sim_config *build_sweep(const struct sim_args *a, size_t *ncfgs)
{
	const struct sim_config *base = &a->base;
	size_t cap = a->sweep ? 2 + a->nsizes * (a->norders + 2) : 1, n = 0;
	struct sim_config *cfgs = calloc(cap, sizeof(*cfgs));

	if (!cfgs)
		die("%s", "out of memory");
	if (!a->sweep) {
		cfgs[0] = *base;
		*ncfgs = 1;
		return cfgs;
	}
	cfgs[n] = *base;
	cfgs[n].oracle = 0;
	ppf_model_params_init(&cfgs[n].params, PPF_MODEL_LAST_SUCCESSOR);
	cfgs[n].params.max_nodes = base->params.max_nodes;
	cfgs[n].params.max_predictions = base->params.max_predictions;
	n++;
	for (size_t i = 0; i < a->nsizes; i++) {
		for (size_t j = 0; j < a->norders; j++) {
			if (a->orders[j] >= a->sizes[i])
				continue;
			cfgs[n] = *base;
			cfgs[n].oracle = 0;
			cfgs[n].params.kind = PPF_MODEL_PCM;
			cfgs[n].params.partition_size = a->sizes[i];
			cfgs[n].params.model_order = a->orders[j];
			n++;
		}
	}
	for (size_t i = 0; i < a->nsizes; i++) {
		cfgs[n] = *base;
		cfgs[n].oracle = 0;
		cfgs[n].params.kind = PPF_MODEL_EPCM;
		cfgs[n].params.partition_size = a->sizes[i];
		cfgs[n].params.model_order = ppf_model_default_order(PPF_MODEL_EPCM,
								     a->sizes[i]);
		n++;
		/* The same shape with contexts the other way. */
		cfgs[n] = cfgs[n - 1];
		cfgs[n].contexts = base->contexts == SIM_CTX_PID ? SIM_CTX_GLOBAL
								 : SIM_CTX_PID;
		n++;
	}
	cfgs[n] = *base;
	cfgs[n].oracle = 1;
	n++;
	for (size_t i = 0; i < n; i++)
		if (!cfgs[i].oracle && ppf_model_params_validate(&cfgs[i].params))
			die("%s", "a sweep shape is invalid (check --max-nodes)");
	*ncfgs = n;
	return cfgs;
}

/*
 * Load one trace's model events, its files numbered by @ids if given.
 * Returns 0, or -1 after printing why.
 */
static int load_stream(const char *path, struct ppf_path_ids *ids,
		       struct ppf_event_stream *s, char **name)
{
	uint32_t *remap = NULL;
	struct ppf_trace *tr;
	char err[512];

	if (ppf_trace_load(path, &tr, err, sizeof(err))) {
		fprintf(stderr, "ppf-sim: %s\n", err);
		return -1;
	}
	if ((ids && ppf_path_ids_map(ids, tr, &remap)) ||
	    ppf_event_stream_from_trace(tr, remap, s))
		die("%s", "out of memory");
	if (name)
		*name = strdup(tr->name ? tr->name : path);
	free(remap);
	ppf_trace_free(tr);
	return 0;
}

/*
 * Every configuration on stream @s, named @name in the rows: print each
 * row, append it to rows; *failed if a row failed.
 */
static void run_configs(const char *name, const struct ppf_event_stream *s,
			const struct sim_training *training,
			const struct sim_config *cfgs, size_t ncfgs,
			struct sim_row *rows, size_t *nrows, int *failed)
{
	for (size_t i = 0; i < ncfgs; i++) {
		struct sim_row *r = &rows[*nrows];

		r->trace = strdup(name);
		r->cfg = cfgs[i];
		if (simulate(s, training, r)) {
			*failed = 1;
			continue;
		}
		print_row(r);
		fflush(stdout);
		(*nrows)++;
	}
}

/*
 * Every configuration on one trace (run_configs()).  Returns 0, or -1 if
 * the trace cannot be loaded.
 */
static int run_trace(const char *path, const struct sim_training *training,
		     struct ppf_path_ids *ids, const struct sim_config *cfgs,
		     size_t ncfgs, struct sim_row *rows, size_t *nrows,
		     int *failed)
{
	struct ppf_event_stream s;
	char *name;

	if (load_stream(path, training->n ? ids : NULL, &s, &name))
		return -1;
	run_configs(name, &s, training, cfgs, ncfgs, rows, nrows, failed);
	free(name);
	ppf_event_stream_free(&s);
	return 0;
}

/*
 * --interleave: every configuration on all the traces run at once, trained
 * on other interleavings.  0, or -1 if a trace cannot be loaded.
 */
static int run_interleaved(const struct sim_args *a, struct ppf_path_ids *ids,
			   const struct sim_config *cfgs, size_t ncfgs,
			   struct sim_row *rows, size_t *nrows, int *failed)
{
	struct ppf_event_stream *in = calloc(a->ntraces, sizeof(*in)), s;
	struct sim_training tr = { NULL, 0, 1 };
	unsigned int passes = 0;
	size_t i;

	if (!in)
		die("%s", "out of memory");
	for (i = 0; i < a->ntraces; i++)
		if (load_stream(a->traces[i], ids, &in[i], NULL))
			return -1;
	for (i = 0; i < ncfgs; i++)
		if (cfgs[i].passes > passes)
			passes = cfgs[i].passes;
	tr.n = passes ? passes : 1;
	tr.stream = calloc(tr.n, sizeof(*tr.stream));
	if (!tr.stream || ppf_event_stream_interleave(in, a->ntraces, a->seed, &s))
		die("%s", "out of memory");
	for (i = 0; i < tr.n; i++)
		if (ppf_event_stream_interleave(in, a->ntraces, a->seed + 1 + i,
						&tr.stream[i]))
			die("%s", "out of memory");
	run_configs("interleaved", &s, &tr, cfgs, ncfgs, rows, nrows, failed);
	for (i = 0; i < tr.n; i++)
		ppf_event_stream_free(&tr.stream[i]);
	for (i = 0; i < a->ntraces; i++)
		ppf_event_stream_free(&in[i]);
	ppf_event_stream_free(&s);
	free(tr.stream);
	free(in);
	return 0;
}

/* The rows as JSON; 0, or -1 after printing why. */
static int json_fd = -1;	/* -j -: the real standard output */

static int write_json(const char *path, const struct sim_row *rows, size_t nrows)
{
	FILE *jf = json_fd >= 0 ? fdopen(json_fd, "w") : fopen(path, "w");

	if (!jf) {
		fprintf(stderr, "ppf-sim: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(jf, "{\n  \"tool\": \"ppf-sim\",\n  \"results\": [\n");
	for (size_t i = 0; i < nrows; i++)
		json_row(jf, &rows[i], i + 1 == nrows);
	fprintf(jf, "  ]\n}\n");
	if (fclose(jf)) {
		fprintf(stderr, "ppf-sim: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Every input readable and the JSON writable before the run; 0, or the exit code. */
static int check_files(const struct sim_args *a)
{
	for (size_t i = 0; i < a->ntraces + a->ntrain; i++) {
		const char *p = i < a->ntraces ? a->traces[i] : a->train[i - a->ntraces];
		struct stat st;

		if (stat(p, &st) || access(p, R_OK)) {
			fprintf(stderr, "ppf-sim: %s:0: cannot open: %s\n", p, strerror(errno));
			return 1;
		}
		if (S_ISDIR(st.st_mode)) {
			fprintf(stderr, "ppf-sim: %s:0: cannot open: %s\n", p, strerror(EISDIR));
			return 1;
		}
	}
	if (!a->json)
		return 0;
	if (strcmp(a->json, "-") == 0) {
		/* JSON on standard output, the table on standard error */
		fflush(stdout);
		json_fd = dup(STDOUT_FILENO);
		if (json_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
			fprintf(stderr, "ppf-sim: --json -: %s\n", strerror(errno));
			return 1;
		}
		return 0;
	}
	if (ppf_cli_writable(a->json)) {
		fprintf(stderr, "ppf-sim: --json %s: cannot write: %s\n", a->json, strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sim_training training;
	struct ppf_path_ids ids;
	struct sim_config *cfgs;
	struct sim_row *rows;
	struct sim_args a;
	size_t ncfgs, nrows = 0;
	int ret, failed = 0;

	ppf_cli_quiet_pipe();
	ret = parse_args(argc, argv, &a);
	if (ret >= 0)
		return ret;
	ret = check_files(&a);
	if (ret)
		return ret;
	cfgs = build_sweep(&a, &ncfgs);
	rows = calloc(ncfgs * a.ntraces, sizeof(*rows));
	if (!rows)
		die("%s", "out of memory");

	ppf_path_ids_init(&ids);
	if (a.interleave) {
		if (a.ntrain)
			die("%s", "--interleave trains on other interleavings: no --train");
		print_header();
		ret = run_interleaved(&a, &ids, cfgs, ncfgs, rows, &nrows, &failed);
		ppf_path_ids_free(&ids);
		if (ret || (a.json && write_json(a.json, rows, nrows)))
			return 1;
		goto out;
	}
	training.n = a.ntrain;
	training.per_pass = 0;
	training.stream = calloc(a.ntrain ? a.ntrain : 1, sizeof(*training.stream));
	if (!training.stream)
		die("%s", "out of memory");
	for (size_t t = 0; t < a.ntrain; t++)
		if (load_stream(a.train[t], &ids, &training.stream[t], NULL))
			return 1;
	print_header();
	for (size_t t = 0; t < a.ntraces; t++)
		if (run_trace(a.traces[t], &training, &ids, cfgs, ncfgs, rows,
			      &nrows, &failed))
			return 1;
	for (size_t t = 0; t < a.ntrain; t++)
		ppf_event_stream_free(&training.stream[t]);
	free(training.stream);
	ppf_path_ids_free(&ids);
	if (a.json && write_json(a.json, rows, nrows))
		return 1;
out:
	for (size_t i = 0; i < nrows; i++) {
		ppf_score_free(&rows[i].score);
		free((char *)rows[i].trace);
	}
	free(rows);
	free(cfgs);
	return failed;
}
