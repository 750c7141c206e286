// SPDX-License-Identifier: GPL-2.0
/*
 * ppf-sim - score the predictive models on a recorded trace
 *
 * Feeds a trace's open/exec sequence through a model, --passes times to
 * train it (the paper trained with 3 runs) and once more to measure, and
 * reports for the measured pass: predictions, precision, coverage, lead in
 * events and in recorded time, wasted predictions, and the model's memory.
 * --sweep runs a grid of models and shapes, with an oracle row that knows
 * the future, prints one table and writes JSON.  Deterministic: the same
 * trace and options always print the same numbers.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../models/ppf_model.h"
#include "../trace-replay/trace.h"
#include "event_stream.h"
#include "score.h"

#define PPF_SIM_ORACLE	(-1)

struct sim_config {
	int oracle;
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

static int simulate(const struct ppf_event_stream *s, struct sim_row *row)
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

		for (i = 0; i < s->n; i++) {
			unsigned int n;

			if (m)
				n = ppf_model_event(m, s->file[i], out,
						    PPF_MAX_PREDICTIONS);
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

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0.0;
}

static void print_header(void)
{
	printf("%-10s %-14s %5s %5s %4s %7s %6s %9s %7s %7s %6s %8s %8s %8s %8s\n",
	       "trace", "model", "ps", "order", "thr", "events", "files",
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
	printf("%-10.10s %-14s %5s %5s %4s %7llu %6llu %9llu %6.1f%% %6.1f%% %6.2f %8.2f %8.2f %8llu %8llu\n",
	       r->trace, row_model(r), ps, order, thr,
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

	fprintf(f, "    {\"trace\": \"%s\", \"model\": \"%s\", ", r->trace, row_model(r));
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
		"  -s, --sweep               last successor, PCM and EPCM over a grid,\n"
		"                            and the oracle\n"
		"      --sizes LIST          sweep partition sizes (4,8,16,32,64)\n"
		"      --orders LIST         sweep PCM orders (1,2,3,4); EPCM uses\n"
		"                            80%% of each partition size\n"
		"  -j, --json FILE           also write the results as JSON\n"
		"  -h, --help\n", PPF_MAX_PREDICTIONS);
}

int main(int argc, char **argv)
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
		{ "sweep", no_argument, NULL, 's' },
		{ "sizes", required_argument, NULL, 'S' },
		{ "orders", required_argument, NULL, 'O' },
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int sizes[16] = { 4, 8, 16, 32, 64 }, orders[16] = { 1, 2, 3, 4 };
	size_t nsizes = 5, norders = 4, nrows = 0, cap, t, a, b;
	long ps = -1, order = -1, threshold = -1, max_nodes = -1, max_pred = -1;
	const char *model = "epcm", *json = NULL;
	unsigned int passes = 3, window = 16;
	struct sim_config base, *cfgs;
	struct sim_row *rows;
	int sweep = 0, c, failed = 0;
	FILE *jf = NULL;

	while ((c = getopt_long(argc, argv, "m:p:o:t:n:P:w:r:sj:h", opts, NULL)) != -1) {
		switch (c) {
		case 'm': model = optarg; break;
		case 'p': ps = parse_num("--partition-size", optarg,
					 PPF_MIN_PARTITION_SIZE, PPF_MAX_PARTITION_SIZE); break;
		case 'o': order = parse_num("--order", optarg, 1, PPF_MAX_PARTITION_SIZE - 1); break;
		case 't': threshold = parse_num("--threshold", optarg, 1, 100); break;
		case 'n': max_nodes = parse_num("--max-nodes", optarg, PPF_MIN_NODES, PPF_MAX_NODES); break;
		case 'P': max_pred = parse_num("--max-predictions", optarg, 1, PPF_MAX_PREDICTIONS); break;
		case 'w': window = parse_num("--window", optarg, 1, 1u << 20); break;
		case 'r': passes = parse_num("--passes", optarg, 0, 1000); break;
		case 's': sweep = 1; break;
		case 'S': nsizes = parse_list("--sizes", optarg, sizes, 16); break;
		case 'O': norders = parse_list("--orders", optarg, orders, 16); break;
		case 'j': json = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}

	memset(&base, 0, sizeof(base));
	base.passes = passes;
	base.window = window;
	if (strcmp(model, "oracle") == 0) {
		base.oracle = 1;
		ppf_model_params_init(&base.params, PPF_MODEL_EPCM);
	} else {
		enum ppf_model_kind kind;

		if (ppf_model_kind_parse(model, &kind))
			die("--model %s: not last_successor, pcm, epcm or oracle", model);
		ppf_model_params_init(&base.params, kind);
	}
	if (ps >= 0) {
		base.params.partition_size = ps;
		if (base.params.kind == PPF_MODEL_EPCM && order < 0)
			base.params.model_order = ps * 4 / 5 ? ps * 4 / 5 : 1;
	}
	if (order >= 0)
		base.params.model_order = order;
	if (threshold >= 0)
		base.params.threshold_pct = threshold;
	if (max_nodes >= 0)
		base.params.max_nodes = max_nodes;
	if (max_pred >= 0)
		base.params.max_predictions = max_pred;
	if (ppf_model_params_validate(&base.params)) {
		fprintf(stderr, "ppf-sim: invalid model shape: partition size %u, order %u "
			"(order must be below the partition size), max nodes %u\n",
			base.params.partition_size, base.params.model_order,
			base.params.max_nodes);
		return 2;
	}

	/* The list of configurations to run on each trace. */
	cap = sweep ? 2 + nsizes * (norders + 1) : 1;
	cfgs = calloc(cap, sizeof(*cfgs));
	rows = calloc(cap * (argc - optind), sizeof(*rows));
	if (!cfgs || !rows)
		die("%s", "out of memory");
	if (!sweep) {
		cfgs[0] = base;
		cap = 1;
	} else {
		size_t n = 0;

		cfgs[n] = base;
		cfgs[n].oracle = 0;
		ppf_model_params_init(&cfgs[n].params, PPF_MODEL_LAST_SUCCESSOR);
		cfgs[n].params.max_nodes = base.params.max_nodes;
		cfgs[n].params.max_predictions = base.params.max_predictions;
		n++;
		for (a = 0; a < nsizes; a++) {
			for (b = 0; b < norders; b++) {
				if (orders[b] >= sizes[a])
					continue;
				cfgs[n] = base;
				cfgs[n].oracle = 0;
				cfgs[n].params.kind = PPF_MODEL_PCM;
				cfgs[n].params.partition_size = sizes[a];
				cfgs[n].params.model_order = orders[b];
				n++;
			}
		}
		for (a = 0; a < nsizes; a++) {
			cfgs[n] = base;
			cfgs[n].oracle = 0;
			cfgs[n].params.kind = PPF_MODEL_EPCM;
			cfgs[n].params.partition_size = sizes[a];
			cfgs[n].params.model_order = sizes[a] * 4 / 5 ? sizes[a] * 4 / 5 : 1;
			n++;
		}
		cfgs[n] = base;
		cfgs[n].oracle = 1;
		n++;
		cap = n;
		for (a = 0; a < n; a++)
			if (!cfgs[a].oracle && ppf_model_params_validate(&cfgs[a].params))
				die("%s", "a sweep shape is invalid (check --max-nodes)");
	}

	print_header();
	for (t = optind; t < (size_t)argc; t++) {
		struct ppf_event_stream s;
		struct ppf_trace *tr;
		char err[512];
		const char *name;

		if (ppf_trace_load(argv[t], &tr, err, sizeof(err))) {
			fprintf(stderr, "ppf-sim: %s\n", err);
			return 1;
		}
		if (ppf_event_stream_from_trace(tr, &s))
			die("%s", "out of memory");
		name = tr->name ? tr->name : argv[t];
		for (a = 0; a < cap; a++) {
			struct sim_row *r = &rows[nrows];

			r->trace = strdup(name);
			r->cfg = cfgs[a];
			if (simulate(&s, r)) {
				failed = 1;
				continue;
			}
			print_row(r);
			fflush(stdout);
			nrows++;
		}
		ppf_event_stream_free(&s);
		ppf_trace_free(tr);
	}

	if (json) {
		jf = fopen(json, "w");
		if (!jf) {
			fprintf(stderr, "ppf-sim: %s: %s\n", json, strerror(errno));
			return 1;
		}
		fprintf(jf, "{\n  \"tool\": \"ppf-sim\",\n  \"results\": [\n");
		for (a = 0; a < nrows; a++)
			json_row(jf, &rows[a], a + 1 == nrows);
		fprintf(jf, "  ]\n}\n");
		if (fclose(jf)) {
			fprintf(stderr, "ppf-sim: %s: %s\n", json, strerror(errno));
			return 1;
		}
	}
	for (a = 0; a < nrows; a++) {
		ppf_score_free(&rows[a].score);
		free((char *)rows[a].trace);
	}
	free(rows);
	free(cfgs);
	return failed;
}
