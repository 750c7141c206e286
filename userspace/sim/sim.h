/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sim.h - what the parts of ppf-sim share: a configuration, a result row
 */
#ifndef PPF_SIM_H
#define PPF_SIM_H

#include <stddef.h>
#include <stdint.h>
#include "../../models/ppf_model.h"
#include "event_stream.h"
#include "score.h"

#define PPF_SIM_ORACLE	(-1)

/* How events are given to the model: one stream, or a context per pid. */
enum sim_contexts { SIM_CTX_GLOBAL, SIM_CTX_PID };

/* One configuration to score: a model (or the oracle) and how it is run. */
struct sim_config {
	int oracle;
	enum sim_contexts contexts;
	struct ppf_model_params params;
	unsigned int passes;
	unsigned int window;
};

/* What one configuration scored on one trace: a row of the table. */
struct sim_row {
	const char *trace;
	struct sim_config cfg;
	struct ppf_score score;
	uint64_t median_lead_ns;
	uint64_t distinct;
};

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

/* options.c: the command line */
void sim_die(const char *fmt, const char *arg);
int sim_parse_args(int argc, char **argv, struct sim_args *a);
struct sim_config *sim_build_sweep(const struct sim_args *a, size_t *ncfgs);

/* simulate.c: a model fed a trace, and scored */
int sim_simulate(const struct ppf_event_stream *s,
		 const struct sim_training *tr, struct sim_row *row);

/* output.c: the table and the JSON */
void sim_print_header(void);
void sim_print_row(const struct sim_row *r);
int sim_json_to_stdout(void);
int sim_write_json(const char *path, const struct sim_row *rows, size_t nrows);

#endif
