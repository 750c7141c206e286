// SPDX-License-Identifier: GPL-2.0
/*
 * output.c - ppf-sim's results: a table row per configuration, and JSON
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "sim.h"

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

void sim_print_header(void)
{
	printf("%-10s %-14s %-6s %5s %5s %4s %7s %6s %9s %7s %7s %6s %8s %8s %8s %8s\n",
	       "trace", "model", "ctx", "ps", "order", "thr", "events", "files",
	       "predict", "precis", "cover", "lead", "lead_ms", "lead_p50",
	       "wasted", "nodes");
}

void sim_print_row(const struct sim_row *r)
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

static int json_fd = -1;	/* -j -: the real standard output */

/* The rows as JSON; 0, or -1 after printing why. */
int sim_write_json(const char *path, const struct sim_row *rows, size_t nrows)
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


/*
 * -j -: the JSON on standard output, the table (printed to stdout) on
 * standard error from now on.  0, or 1 after printing why.
 */
int sim_json_to_stdout(void)
{
	fflush(stdout);
	json_fd = dup(STDOUT_FILENO);
	if (json_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		fprintf(stderr, "ppf-sim: --json -: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
