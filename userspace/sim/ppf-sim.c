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
 *
 * This file runs the configurations on the traces; the command line is
 * options.c's, the model fed and scored simulate.c's, the table and the
 * JSON output.c's (sim.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../include/ppf_cli.h"
#include "../trace-replay/trace.h"
#include "path_ids.h"
#include "sim.h"

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
		sim_die("%s", "out of memory");
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
		if (sim_simulate(s, training, r)) {
			*failed = 1;
			continue;
		}
		sim_print_row(r);
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
		sim_die("%s", "out of memory");
	for (i = 0; i < a->ntraces; i++)
		if (load_stream(a->traces[i], ids, &in[i], NULL))
			return -1;
	for (i = 0; i < ncfgs; i++)
		if (cfgs[i].passes > passes)
			passes = cfgs[i].passes;
	tr.n = passes ? passes : 1;
	tr.stream = calloc(tr.n, sizeof(*tr.stream));
	if (!tr.stream || ppf_event_stream_interleave(in, a->ntraces, a->seed, &s))
		sim_die("%s", "out of memory");
	for (i = 0; i < tr.n; i++)
		if (ppf_event_stream_interleave(in, a->ntraces, a->seed + 1 + i,
						&tr.stream[i]))
			sim_die("%s", "out of memory");
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
	if (strcmp(a->json, "-") == 0)
		return sim_json_to_stdout();
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
	ret = sim_parse_args(argc, argv, &a);
	if (ret >= 0)
		return ret;
	ret = check_files(&a);
	if (ret)
		return ret;
	cfgs = sim_build_sweep(&a, &ncfgs);
	rows = calloc(ncfgs * a.ntraces, sizeof(*rows));
	if (!rows)
		sim_die("%s", "out of memory");

	ppf_path_ids_init(&ids);
	if (a.interleave) {
		if (a.ntrain)
			sim_die("%s", "--interleave trains on other interleavings: no --train");
		sim_print_header();
		ret = run_interleaved(&a, &ids, cfgs, ncfgs, rows, &nrows, &failed);
		ppf_path_ids_free(&ids);
		if (ret || (a.json && sim_write_json(a.json, rows, nrows)))
			return 1;
		goto out;
	}
	training.n = a.ntrain;
	training.per_pass = 0;
	training.stream = calloc(a.ntrain ? a.ntrain : 1, sizeof(*training.stream));
	if (!training.stream)
		sim_die("%s", "out of memory");
	for (size_t t = 0; t < a.ntrain; t++)
		if (load_stream(a.train[t], &ids, &training.stream[t], NULL))
			return 1;
	sim_print_header();
	for (size_t t = 0; t < a.ntraces; t++)
		if (run_trace(a.traces[t], &training, &ids, cfgs, ncfgs, rows,
			      &nrows, &failed))
			return 1;
	for (size_t t = 0; t < a.ntrain; t++)
		ppf_event_stream_free(&training.stream[t]);
	free(training.stream);
	ppf_path_ids_free(&ids);
	if (a.json && sim_write_json(a.json, rows, nrows))
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
