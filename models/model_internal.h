/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model_internal.h - what every model implementation provides
 *
 * ppf_model.h is the API; this is the seam behind it.  Each model embeds a
 * struct ppf_model and fills in its operations; model.c validates
 * parameters, dispatches and keeps the counters common to all models.
 */
#ifndef PPF_MODEL_INTERNAL_H
#define PPF_MODEL_INTERNAL_H

#include "ppf_model.h"
#include "context_table.h"

struct ppf_model;

/**
 * struct ppf_model_ops - one model's implementation
 * @context_start: set up context slot @slot for a new context, or for one
 *	that continues its descendants' stream: as a copy of slot @parent's
 *	(whose walks then only follow), or empty if @parent is PPF_CTX_NONE
 *	(never @slot itself)
 * @event: count one event of the context in slot @slot and write up to
 *	@max_out predictions, most likely and soonest first (only what is
 *	news if the model's @news is set, for a model that keeps what it
 *	named); never allocates
 * @stats: fill in the model-specific statistics
 * @destroy: free the model
 * @pattern_count: the count kept for a pattern (PPF_MODEL_CHECKS only)
 * @check: verify the model's invariants; NULL or what is broken
 *	(PPF_MODEL_CHECKS only)
 */
struct ppf_model_ops {
	void (*context_start)(struct ppf_model *model, u32 slot, u32 parent);
	unsigned int (*event)(struct ppf_model *model, u32 slot, u32 file,
			      struct ppf_prediction *out, unsigned int max_out);
	void (*stats)(const struct ppf_model *model,
		      struct ppf_model_stats *stats);
	void (*destroy)(struct ppf_model *model);
#ifdef PPF_MODEL_CHECKS
	u32 (*pattern_count)(const struct ppf_model *model, const u32 *files,
			     u32 len);
	const char *(*check)(struct ppf_model *model);
#endif
};

/**
 * enum ppf_model_say - what an event writes
 * @PPF_SAY_ALL: every prediction (ppf_model_event())
 * @PPF_SAY_NEWS: only what is news (ppf_model_event_new()); a model that
 *	names everything afresh at each event may ignore it
 * @PPF_SAY_NOTHING: nothing, the event is only learnt (ppf_model_learn());
 *	the implementation is asked for at most one prediction, the most
 *	likely, which it may use to learn surprises, and may ignore it
 */
enum ppf_model_say {
	PPF_SAY_ALL,
	PPF_SAY_NEWS,
	PPF_SAY_NOTHING,
};

/**
 * struct ppf_model - the part common to all models
 * @ops: the implementation
 * @params: the validated parameters it was made with
 * @events: events seen
 * @epoch: bumped by ppf_model_restate(): what was named before is news again
 * @say: what the event under way writes (enum ppf_model_say)
 * @contexts: which slot holds each live context (the slots' contents are
 *	the implementation's)
 * @surprises: events the most likely prediction before them did not name
 *	(EPCM counts them; the others leave it 0)
 */
struct ppf_model {
	const struct ppf_model_ops *ops;
	struct ppf_model_params params;
	u64 events;
	u32 epoch;
	u8 say;
	struct ppf_ctx_table contexts;
	u64 surprises;
};

struct ppf_model *ppf_context_model_create(const struct ppf_model_params *params,
					   int *err);
struct ppf_model *ppf_last_successor_create(const struct ppf_model_params *params,
					    int *err);
u64 ppf_context_model_bytes(const struct ppf_model_params *params);
u64 ppf_last_successor_bytes(const struct ppf_model_params *params);

#endif /* PPF_MODEL_INTERNAL_H */
