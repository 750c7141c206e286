// SPDX-License-Identifier: GPL-2.0
/*
 * model.c - the model API: parameters, creation, dispatch
 *
 * Everything a caller can get wrong is checked here, once, so that the
 * models themselves can trust their parameters.  Nothing is clamped: a value
 * out of range is refused with -EINVAL and the caller keeps what it had.
 */
#include "model_internal.h"
#include "node_pool.h"

#define PPF_DEFAULT_THRESHOLD_PCT	25
#define PPF_DEFAULT_MAX_NODES		(1024 * 1024)
#define PPF_DEFAULT_MAX_PREDICTIONS	16
#define PPF_DEFAULT_MAX_CONTEXTS	64
#define PPF_NODE_BYTES			sizeof(struct ppf_node)
#define PPF_INDEX_ENTRY_BYTES		sizeof(u32)

static const char * const ppf_kind_names[] = {
	[PPF_MODEL_LAST_SUCCESSOR] = "last_successor",
	[PPF_MODEL_PCM] = "pcm",
	[PPF_MODEL_EPCM] = "epcm",
};

/**
 * ppf_model_kind_name() - the name of a model kind
 * @kind: the kind
 *
 * Return: "last_successor", "pcm", "epcm", or NULL for no such kind.
 */
const char *ppf_model_kind_name(enum ppf_model_kind kind)
{
	if ((unsigned int)kind >= ARRAY_SIZE(ppf_kind_names))
		return NULL;
	return ppf_kind_names[kind];
}

/**
 * ppf_model_kind_parse() - the model kind with a given name
 * @name: "last_successor", "pcm" or "epcm"
 * @kind: set to the kind
 *
 * Return: 0, or -EINVAL for an unknown name (@kind untouched).
 */
int ppf_model_kind_parse(const char *name, enum ppf_model_kind *kind)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ppf_kind_names); i++) {
		if (strcmp(name, ppf_kind_names[i]) == 0) {
			*kind = i;
			return 0;
		}
	}
	return -EINVAL;
}

/**
 * ppf_model_default_order() - the default model order for a partition size
 * @kind: the kind
 * @partition_size: nodes per partition
 *
 * EPCM: 80% of the partition size, the middle of the paper's 75-85% (at
 * least 1).  PCM and last successor: 2 (the 1996 simulations found that
 * second order gives most of the gain; last successor ignores it).
 *
 * Return: the order.
 */
u32 ppf_model_default_order(enum ppf_model_kind kind, u32 partition_size)
{
	u32 order = partition_size * 4 / 5;

	if (kind != PPF_MODEL_EPCM)
		return 2;
	return order ? order : 1;
}

/**
 * ppf_model_params_init_shape() - default parameters for a partition size
 * @params: filled in
 * @kind: the kind
 * @partition_size: nodes per partition
 *
 * As ppf_model_params_init(), with @partition_size and the order
 * ppf_model_default_order() gives for it.  Nothing is validated but @kind.
 *
 * Return: 0, or -EINVAL for an unknown kind.
 */
int ppf_model_params_init_shape(struct ppf_model_params *params,
				enum ppf_model_kind kind, u32 partition_size)
{
	if (!ppf_model_kind_name(kind))
		return -EINVAL;
	params->kind = kind;
	params->partition_size = partition_size;
	params->model_order = ppf_model_default_order(kind, partition_size);
	params->threshold_pct = PPF_DEFAULT_THRESHOLD_PCT;
	params->max_nodes = PPF_DEFAULT_MAX_NODES;
	params->max_predictions = PPF_DEFAULT_MAX_PREDICTIONS;
	params->max_contexts = PPF_DEFAULT_MAX_CONTEXTS;
	return 0;
}

/**
 * ppf_model_params_init() - the default parameters of a model kind
 * @params: filled in
 * @kind: the kind
 *
 * PCM: partitions of 32 nodes, order 2.  EPCM: partitions of 64 nodes and a
 * maximum order of 51 (ppf_model_default_order()).  Threshold 25%: on the
 * recorded traces it keeps nearly all the coverage of 10% with fewer wasted
 * predictions (docs/models.md has the numbers).  64 contexts: more tasks
 * than a parallel build of -j32 has opening files at once.
 *
 * Return: 0, or -EINVAL for an unknown kind.
 */
int ppf_model_params_init(struct ppf_model_params *params,
			  enum ppf_model_kind kind)
{
	return ppf_model_params_init_shape(params, kind,
					   kind == PPF_MODEL_EPCM ? 64 : 32);
}

/**
 * ppf_model_params_validate() - check every parameter
 * @params: the parameters
 *
 * Return: 0 if the model can be made, -EINVAL if any value is out of range
 * (see struct ppf_model_params for the ranges).
 */
int ppf_model_params_validate(const struct ppf_model_params *params)
{
	if (!ppf_model_kind_name(params->kind))
		return -EINVAL;
	if (params->partition_size < PPF_MIN_PARTITION_SIZE ||
	    params->partition_size > PPF_MAX_PARTITION_SIZE)
		return -EINVAL;
	if (params->model_order < 1 ||
	    params->model_order >= params->partition_size)
		return -EINVAL;
	if (params->threshold_pct < 1 ||
	    params->threshold_pct > PPF_MAX_THRESHOLD_PCT)
		return -EINVAL;
	if (params->max_nodes < PPF_MIN_NODES ||
	    params->max_nodes > PPF_MAX_NODES ||
	    params->max_nodes < params->partition_size)
		return -EINVAL;
	if (params->max_predictions < 1 ||
	    params->max_predictions > PPF_MAX_PREDICTIONS)
		return -EINVAL;
	if (params->max_contexts < 1 || params->max_contexts > PPF_MAX_CONTEXTS)
		return -EINVAL;
	return 0;
}

/**
 * ppf_model_bytes_needed() - memory ppf_model_create() will allocate
 * @params: valid parameters
 *
 * Lets a caller turn a memory budget into a node budget before creating.
 *
 * Return: bytes, or 0 if @params are not valid.
 */
u64 ppf_model_bytes_needed(const struct ppf_model_params *params)
{
	u64 table;

	if (ppf_model_params_validate(params))
		return 0;
	table = ppf_ctx_table_bytes(params->max_contexts);
	if (params->kind == PPF_MODEL_LAST_SUCCESSOR)
		return table + ppf_last_successor_bytes(params);
	return table + ppf_context_model_bytes(params);
}

/**
 * ppf_model_nodes_for_bytes() - the node budget a memory budget allows
 * @params: the model's other parameters (@params->max_nodes is ignored)
 * @bytes: the memory budget
 *
 * A host gives a model memory, not nodes: this is the one rule that turns
 * the one into the other, so that every host sizes a model alike.
 *
 * Return: the most nodes whose model fits in @bytes, at most PPF_MAX_NODES;
 * 0 if not even PPF_MIN_NODES fit.
 */
u32 ppf_model_nodes_for_bytes(const struct ppf_model_params *params, u64 bytes)
{
	struct ppf_model_params p = *params;
	u32 lo = PPF_MIN_NODES, hi = PPF_MAX_NODES;

	p.max_nodes = lo;
	if (ppf_model_bytes_needed(&p) > bytes)
		return 0;
	/* Bytes grow with nodes: the largest count that fits. */
	while (lo < hi) {
		u32 mid = lo + (hi - lo + 1) / 2;

		p.max_nodes = mid;
		if (ppf_model_bytes_needed(&p) <= bytes)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/**
 * ppf_model_create() - make an empty model
 * @params: its parameters, validated here
 * @err: set to 0, -EINVAL for bad parameters or -ENOMEM
 *
 * Allocates everything the model will ever use.  May sleep (in the kernel:
 * GFP_KERNEL); call it from process context, never from the event path.
 *
 * Return: the model, or NULL with *@err set.
 */
struct ppf_model *ppf_model_create(const struct ppf_model_params *params,
				   int *err)
{
	struct ppf_model *model;

	*err = ppf_model_params_validate(params);
	if (*err)
		return NULL;
	if (params->kind == PPF_MODEL_LAST_SUCCESSOR)
		model = ppf_last_successor_create(params, err);
	else
		model = ppf_context_model_create(params, err);
	if (!model)
		return NULL;
	model->params = *params;
	model->events = 0;
	*err = ppf_ctx_table_init(&model->contexts, params->max_contexts);
	if (*err) {
		model->ops->destroy(model);
		return NULL;
	}
	return model;
}

/**
 * ppf_model_destroy() - free a model and everything it holds
 * @model: the model, or NULL
 */
void ppf_model_destroy(struct ppf_model *model)
{
	if (!model)
		return;
	ppf_ctx_table_release(&model->contexts);
	model->ops->destroy(model);
}

/*
 * The slot of an event of @ctx (started by @parent) that is not the
 * context table's last one's: found or made, and started from its family's
 * latest place.  Out of line, so that the common case, a run of events of
 * one context, pays nothing for it.
 */
static noinline u32 ppf_model_slot(struct ppf_model *model, u32 ctx,
				   u32 parent)
{
	struct ppf_ctx_table *t = &model->contexts;
	u32 pslot = PPF_CTX_NONE, slot;
	bool fresh;

	if (parent != ctx) {
		pslot = ppf_ctx_table_anchor(t, parent, &fresh);
		if (fresh)
			model->ops->context_start(model, pslot, PPF_CTX_NONE);
	}
	slot = ppf_ctx_table_get(t, ctx, &fresh);
	/* Making room for @ctx may have forgotten the parent. */
	if (pslot != PPF_CTX_NONE &&
	    (!ppf_ctx_table_live(t, pslot) || t->id[pslot] != parent))
		pslot = PPF_CTX_NONE;
	if (fresh) {
		model->ops->context_start(model, slot, pslot == PPF_CTX_NONE ?
					  PPF_CTX_NONE :
					  ppf_ctx_table_latest(t, pslot, slot));
	} else {
		/* Back after its children ran: continue where they are. */
		u32 from = ppf_ctx_table_latest(t, slot, slot);

		if (from != slot)
			model->ops->context_start(model, slot, from);
	}
	ppf_ctx_table_stamp(t, slot, parent, pslot);
	return slot;
}

/*
 * An event, for the three entry points below: inline in each, so that an
 * event costs its caller one call before the model's own (6 instructions
 * an event, every model).
 */
static inline unsigned int ppf_model_step(struct ppf_model *model, u32 ctx,
					  u32 parent, u32 file,
					  struct ppf_prediction *out,
					  unsigned int max_out,
					  enum ppf_model_say say)
{
	u32 slot;

	if (max_out > model->params.max_predictions)
		max_out = model->params.max_predictions;
	model->events++;
	model->say = say;
	slot = ppf_ctx_table_again(&model->contexts, ctx, parent);
	if (slot == PPF_CTX_NONE)
		slot = ppf_model_slot(model, ctx, parent);
	return model->ops->event(model, slot, file, out, max_out);
}

/**
 * ppf_model_event() - count one open or exec and predict what comes next
 * @model: the model
 * @ctx: the caller's id of the stream the event belongs to (any value; one
 *	fixed value makes the model see one global stream)
 * @parent: the context @ctx was started by (@ctx itself if none): a
 *	context seen for the first time starts from the place of its
 *	parent's family's most recent stream (the parent, or the child it ran
 *	last); a parent not seen yet is made live, empty, to tie its children
 *	together.  A context whose children have had events since its own last
 *	one continues from where they are (a shell after its commands).
 * @file: the caller's id of the file opened
 * @out: where predictions are written
 * @max_out: room in @out; at most the model's max_predictions are written
 *
 * Never allocates, sleeps or recurses; runs in time bounded by the model's
 * shape (order times partition size), amortised over events when the node
 * budget makes it reclaim.  A new context may make the model forget the
 * least recently used one (max_contexts).
 *
 * Return: the number of predictions written, most likely and soonest first.
 */
unsigned int ppf_model_event(struct ppf_model *model, u32 ctx, u32 parent,
			     u32 file, struct ppf_prediction *out,
			     unsigned int max_out)
{
	return ppf_model_step(model, ctx, parent, file, out, max_out,
			      PPF_SAY_ALL);
}

/**
 * ppf_model_event_new() - ppf_model_event(), writing only what is news
 * @model: the model
 * @ctx: as for ppf_model_event()
 * @parent: as for ppf_model_event()
 * @file: the caller's id of the file opened
 * @out: where the new predictions are written
 * @max_out: as for ppf_model_event()
 *
 * The same event, learnt the same way, but of the predictions
 * ppf_model_event() would write only those @ctx's last event did not
 * already name for the same event: when @file is the one EPCM's chain
 * expected, the chain stands, one event shorter, and only the files it
 * adds at its end are news (with the next event's other likely files,
 * which are named afresh each time).  A prediction stands until the file
 * is opened or the chain is left; ppf_model_restate() makes every
 * prediction news again.  Last successor and PCM name everything afresh
 * at each event: for them this is ppf_model_event().
 *
 * Return: the number of predictions written, soonest first.
 */
unsigned int ppf_model_event_new(struct ppf_model *model, u32 ctx, u32 parent,
				 u32 file, struct ppf_prediction *out,
				 unsigned int max_out)
{
	return ppf_model_step(model, ctx, parent, file, out, max_out,
			      PPF_SAY_NEWS);
}

/**
 * ppf_model_learn() - count one open or exec, predict nothing
 * @model: the model
 * @ctx: as for ppf_model_event()
 * @parent: as for ppf_model_event()
 * @file: the caller's id of the file opened
 *
 * For a caller that will not act on this event's predictions (the device
 * it would read from is paused): the event is learnt as ppf_model_event()
 * learns it, surprises included, and nothing is predicted.  Nothing named
 * at it was told, so for ppf_model_event_new() it ends what stood: EPCM's
 * chain is let go, and the context's next event names its whole chain as
 * news.  Cheaper than ppf_model_event(): no chain is extended or written.
 */
void ppf_model_learn(struct ppf_model *model, u32 ctx, u32 parent, u32 file)
{
	struct ppf_prediction expect;

	ppf_model_step(model, ctx, parent, file, &expect, 1, PPF_SAY_NOTHING);
}

/**
 * ppf_model_surprises() - events so far that the model did not expect
 * @model: the model
 *
 * A caller compares it before and after an event to learn whether that
 * event was a surprise: for EPCM, a file that the most likely prediction
 * at the context's last event did not name.  Last successor and PCM count
 * none.
 *
 * Return: the count.
 */
u64 ppf_model_surprises(const struct ppf_model *model)
{
	return model->surprises;
}

/**
 * ppf_model_restate() - make everything predicted news again
 * @model: the model
 *
 * For a caller of ppf_model_event_new() that dropped predictions it was
 * told of (its plan full, memory short): each context's next event names
 * its whole chain again, as ppf_model_event() does.
 */
void ppf_model_restate(struct ppf_model *model)
{
	model->epoch++;
}

/**
 * ppf_model_stats() - what a model holds and what it did
 * @model: the model
 * @stats: filled in
 */
void ppf_model_stats(const struct ppf_model *model,
		     struct ppf_model_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	stats->events = model->events;
	stats->max_nodes = model->params.max_nodes;
	stats->contexts = model->contexts.live;
	stats->contexts_reclaimed = model->contexts.reclaimed;
	model->ops->stats(model, stats);
	stats->bytes += ppf_ctx_table_bytes(model->params.max_contexts);
	stats->bytes_in_use = (u64)stats->nodes * PPF_NODE_BYTES +
			      (u64)stats->partitions * PPF_INDEX_ENTRY_BYTES;
}

/**
 * ppf_model_stats_add() - add one model's statistics to a sum
 * @sum: the sum so far
 * @one: a model's statistics
 *
 * For the caller that keeps several models (one per domain): every count
 * is added; @sum's max_nodes, a budget rather than a count, is left to
 * the caller.
 */
void ppf_model_stats_add(struct ppf_model_stats *sum,
			 const struct ppf_model_stats *one)
{
	sum->events += one->events;
	sum->nodes += one->nodes;
	sum->partitions += one->partitions;
	sum->bytes += one->bytes;
	sum->bytes_in_use += one->bytes_in_use;
	sum->halvings += one->halvings;
	sum->halving_freed += one->halving_freed;
	sum->nodes_dropped += one->nodes_dropped;
	sum->partitions_reclaimed += one->partitions_reclaimed;
	sum->count_saturations += one->count_saturations;
	sum->contexts += one->contexts;
	sum->contexts_reclaimed += one->contexts_reclaimed;
	sum->surprises += one->surprises;
	sum->surprise_predictions += one->surprise_predictions;
}

#ifdef PPF_MODEL_CHECKS
/**
 * ppf_model_pattern_count() - how often the model counted a pattern
 * @model: the model
 * @files: the pattern, oldest file first
 * @len: its length (1 or more)
 *
 * For tests and the simulator.  Last successor keeps no counts: it reports
 * 1 for a file it knows and for a file followed by its last successor.
 *
 * Return: the count, 0 if the pattern is not in the model.
 */
u32 ppf_model_pattern_count(const struct ppf_model *model, const u32 *files,
			    u32 len)
{
	if (len == 0)
		return 0;
	return model->ops->pattern_count(model, files, len);
}

/**
 * ppf_model_check() - verify a model's internal invariants
 * @model: the model
 *
 * Walks the whole model: for tests and fuzzing, not for the event path.
 * Not const: a context model's walk uses the trie's scratch stack, so the
 * check must be serialised with ppf_model_event() like any other writer.
 *
 * Return: NULL if they hold, else what is broken.
 */
const char *ppf_model_check(struct ppf_model *model)
{
	const char *why = ppf_ctx_table_check(&model->contexts);

	return why ? why : model->ops->check(model);
}
#endif /* PPF_MODEL_CHECKS */
