// SPDX-License-Identifier: GPL-2.0
/*
 * simulate.c - one configuration of a model fed a trace, and scored
 *
 * --passes training passes (over the trace itself, or over --train runs,
 * or other interleavings), then the measured pass, whose predictions are
 * scored (score.c).  The oracle knows the future: it predicts the files of
 * the next events, as far as the window goes.
 */
#include <stdio.h>
#include <string.h>
#include "sim.h"

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

/*
 * Score one configuration (@row->cfg) on @s, trained as @tr says; fills
 * in @row.  0, or -1 after printing why.
 */
int sim_simulate(const struct ppf_event_stream *s,
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
