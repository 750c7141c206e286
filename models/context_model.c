// SPDX-License-Identifier: GPL-2.0
/*
 * context_model.c - PCM and EPCM: learning and predicting on the trie
 *
 * DOC: Context models
 *
 * The model remembers where the recent past is in the trie as a list of
 * *walks*: a walk began at the root of the partition of a file seen k events
 * ago and has followed the k - 1 files since, so its node is the context of
 * order k (the last k files).  On each event every walk steps to the child
 * for the new file, counting it, or creating it if it is not there yet; then
 * a new walk starts at the new file's own root.
 *
 * PCM keeps walks up to depth model_order: the node a walk reaches at depth
 * model_order + 1 is counted, then the walk ends.  EPCM differs in two
 * ways.  A walk ends as soon as it has had to create a node, so a pattern
 * grows by one file each time it occurs (as Lempel-Ziv grows its
 * dictionary); and walks may reach the much longer maximum order.
 *
 * To predict, the deepest context that names a successor at or above the
 * threshold is used (PPM's rule: the longest context that has seen what
 * follows is the most specific).  Each child's likelihood is
 * count(child) / (count(context) - 1): the context has just been counted
 * for the current occurrence, whose successor is not known yet.  EPCM then
 * follows the most likely child's most likely child, and so on, while each
 * step's likelihood count(child) / (count(parent) - 1) stays at or above
 * the threshold, naming files two, three and more events ahead.  The -1
 * here has another reason: EPCM creates a child on its parent's second
 * occurrence at the earliest, so a child that always follows its parent is
 * counted once less than the parent.
 */
#include "model_internal.h"
#include "partitioned_trie.h"

/**
 * struct ppf_walk - one current context
 * @root: partition the walk is in
 * @node: its node, the context; PPF_NIL once the walk has ended
 * @depth: order of the context (1 at the root)
 */
struct ppf_walk {
	u32 root;
	u32 node;
	u32 depth;
};

/**
 * struct ppf_context_model - a PCM or EPCM model
 * @base: common part
 * @trie: the counted, partitioned trie
 * @walks: current contexts, oldest (deepest) first
 * @nwalks: entries in @walks
 * @max_order: deepest context kept
 * @extended: EPCM if true, PCM if false
 */
struct ppf_context_model {
	struct ppf_model base;
	struct ppf_trie trie;
	struct ppf_walk *walks;
	u32 nwalks;
	u32 max_order;
	bool extended;
};

static inline struct ppf_context_model *to_cm(struct ppf_model *model)
{
	return ppf_container_of(model, struct ppf_context_model, base);
}

static inline const struct ppf_context_model *to_cm_const(const struct ppf_model *model)
{
	return ppf_container_of(model, struct ppf_context_model, base);
}

/* The trie freed nodes: end the walks that stood on them. */
static void ppf_cm_shrink(void *ctx, u32 root, bool evicted)
{
	struct ppf_context_model *cm = ctx;
	u32 i;

	for (i = 0; i < cm->nwalks; i++) {
		struct ppf_walk *w = &cm->walks[i];

		if (w->node == PPF_NIL || w->root != root)
			continue;
		if (evicted || ppf_node_count(ppf_node(&cm->trie.pool, w->node)) == 0)
			w->node = PPF_NIL;
	}
}

/* Step one walk with @file; ends it where the model says it ends. */
static void ppf_cm_step(struct ppf_context_model *cm, struct ppf_walk *w,
			u32 file)
{
	bool created;
	u32 ch = ppf_trie_step(&cm->trie, w->root, w->node, file, true,
			       &created);

	/* EPCM: one new node per occurrence of a pattern. */
	if (ch == PPF_NIL || (created && cm->extended) || w->node == PPF_NIL) {
		w->node = PPF_NIL;
		return;
	}
	w->node = ch;
	w->depth++;
	if (w->depth > cm->max_order)
		w->node = PPF_NIL;
}

static void ppf_cm_compact(struct ppf_context_model *cm)
{
	u32 i, kept = 0;

	for (i = 0; i < cm->nwalks; i++) {
		if (cm->walks[i].node == PPF_NIL)
			continue;
		if (kept != i)
			cm->walks[kept] = cm->walks[i];
		kept++;
	}
	cm->nwalks = kept;
}

static void ppf_cm_learn(struct ppf_context_model *cm, u32 file)
{
	const struct ppf_node_pool *pool = &cm->trie.pool;
	u32 i, root;

	/*
	 * Each walk's next node is somewhere else in the pool: ask for all of
	 * them first, so the cache misses overlap instead of queueing.
	 */
	for (i = 0; i < cm->nwalks; i++)
		ppf_cache_prefetch(ppf_node(pool, ppf_node(pool, cm->walks[i].node)->child));
	for (i = 0; i < cm->nwalks; i++)
		if (cm->walks[i].node != PPF_NIL)
			ppf_cm_step(cm, &cm->walks[i], file);
	/* Touching the root may halve or reclaim and end walks too. */
	root = ppf_trie_touch_root(&cm->trie, file);
	ppf_cm_compact(cm);
	if (root != PPF_NIL) {
		cm->walks[cm->nwalks].root = root;
		cm->walks[cm->nwalks].node = root;
		cm->walks[cm->nwalks].depth = 1;
		cm->nwalks++;
	}
}

static u16 ppf_likelihood(u32 count, u32 total)
{
	u32 l = count * PPF_LIKELIHOOD_ONE / total;

	/* Halving rounds parent and child separately: keep within 1. */
	return l > PPF_LIKELIHOOD_ONE ? PPF_LIKELIHOOD_ONE : l;
}

static bool ppf_cm_meets_threshold(const struct ppf_context_model *cm,
				   u32 count, u32 total)
{
	return (u64)count * 100 >= (u64)cm->base.params.threshold_pct * total;
}

/*
 * Write the children of @ctx that meet the threshold into @out, most likely
 * first, and their nodes into @nodes.  Siblings are sorted by count, so the
 * scan stops at the first child below the threshold.  @total is the
 * denominator of their likelihood.
 */
static unsigned int ppf_cm_children(const struct ppf_context_model *cm,
				    u32 ctx, u32 total,
				    struct ppf_prediction *out, u32 *nodes,
				    unsigned int max_out)
{
	const struct ppf_node_pool *pool = &cm->trie.pool;
	unsigned int n = 0;
	u32 ch;

	for (ch = ppf_node(pool, ctx)->child; ch != PPF_NIL && n < max_out;
	     ch = ppf_node_sibling(ppf_node(pool, ch))) {
		u32 count = ppf_node_count(ppf_node(pool, ch));

		if (!ppf_cm_meets_threshold(cm, count, total))
			break;
		out[n].file = ppf_node(pool, ch)->file;
		out[n].likelihood = ppf_likelihood(count, total);
		out[n].lead = 1;
		nodes[n++] = ch;
	}
	return n;
}

static bool ppf_predicted(const struct ppf_prediction *out, unsigned int n,
			  u32 file)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (out[i].file == file)
			return true;
	return false;
}

/*
 * Where a chain that reached @leaf (file @file, after file @prev) goes on:
 * the context made of the last two files of the chain if the trie has it,
 * else the last file's own partition.  PPF_NIL if neither exists.
 */
static u32 ppf_cm_jump(const struct ppf_context_model *cm, u32 prev, u32 file)
{
	const struct ppf_trie *trie = &cm->trie;
	u32 root = ppf_index_find(&trie->index, &trie->pool, prev);
	u32 node = PPF_NIL;

	if (root != PPF_NIL)
		node = ppf_trie_child(trie, root, file);
	if (node == PPF_NIL)
		node = ppf_index_find(&trie->index, &trie->pool, file);
	return node;
}

/*
 * EPCM: follow the most likely successor of @node while it is likely.  A
 * chain that reaches a leaf jumps to another partition (see ppf_cm_jump())
 * and goes on there: the paper's proposed partition jumping, which lets a
 * deep context, whose patterns end soon after the present, still look far
 * ahead.  A threshold miss ends the chain: that uncertainty is real.
 */
static unsigned int ppf_cm_chain(const struct ppf_context_model *cm, u32 prev,
				 u32 node, u32 likelihood,
				 struct ppf_prediction *out, unsigned int n,
				 unsigned int max_out)
{
	const struct ppf_node_pool *pool = &cm->trie.pool;
	u32 lead = 1, steps = 2 * max_out;
	bool may_jump = true;	/* @prev is known: not just after a jump */

	while (n < max_out && steps--) {
		u32 total = ppf_node_count(ppf_node(pool, node)) - 1;
		u32 best, best_count;

		if (ppf_node(pool, node)->child == PPF_NIL && may_jump) {
			u32 file = ppf_node(pool, node)->file;

			node = ppf_cm_jump(cm, prev, file);
			if (node == PPF_NIL)
				break;
			may_jump = false;	/* one jump per leaf */
			total = ppf_node_count(ppf_node(pool, node)) - 1;
		}
		if (total == 0)
			break;
		/* Siblings are sorted: the first child is the most likely. */
		best = ppf_node(pool, node)->child;
		if (best == PPF_NIL)
			break;
		best_count = ppf_node_count(ppf_node(pool, best));
		if (!ppf_cm_meets_threshold(cm, best_count, total))
			break;
		/*
		 * A file predicted already: the chain has come round a cycle
		 * (A B C A B C ...), and what follows repeats what it said.
		 */
		if (ppf_predicted(out, n, ppf_node(pool, best)->file))
			break;
		lead++;
		likelihood = likelihood * ppf_likelihood(best_count, total) /
			     PPF_LIKELIHOOD_ONE;
		out[n].file = ppf_node(pool, best)->file;
		out[n].likelihood = likelihood;
		out[n].lead = lead;
		n++;
		prev = ppf_node(pool, node)->file;
		may_jump = true;
		node = best;
	}
	return n;
}

static unsigned int ppf_cm_predict(const struct ppf_context_model *cm,
				   struct ppf_prediction *out,
				   unsigned int max_out)
{
	const struct ppf_node_pool *pool = &cm->trie.pool;
	u32 nodes[PPF_MAX_PREDICTIONS];
	unsigned int n = 0;
	u32 i, ctx = PPF_NIL;

	for (i = 0; i < cm->nwalks && n == 0; i++) {
		u32 count;

		ctx = cm->walks[i].node;
		count = ppf_node_count(ppf_node(pool, ctx));
		if (count > 1)
			n = ppf_cm_children(cm, ctx, count - 1, out, nodes, max_out);
	}
	if (n && cm->extended)
		n = ppf_cm_chain(cm, ppf_node(pool, ctx)->file, nodes[0],
				 out[0].likelihood, out, n, max_out);
	return n;
}

static unsigned int ppf_cm_event(struct ppf_model *model, u32 file,
				 struct ppf_prediction *out,
				 unsigned int max_out)
{
	struct ppf_context_model *cm = to_cm(model);

	ppf_cm_learn(cm, file);
	return ppf_cm_predict(cm, out, max_out);
}

static void ppf_cm_stats(const struct ppf_model *model,
			 struct ppf_model_stats *stats)
{
	const struct ppf_context_model *cm = to_cm_const(model);
	const struct ppf_trie *t = &cm->trie;

	stats->nodes = t->pool.in_use;
	stats->partitions = t->index.used;
	stats->bytes = sizeof(*cm) + ppf_trie_bytes(t->partition_size,
						    t->pool.capacity) +
		       (u64)(cm->max_order + 1) * sizeof(struct ppf_walk);
	stats->halvings = t->halvings;
	stats->halving_freed = t->halving_freed;
	stats->nodes_dropped = t->nodes_dropped;
	stats->partitions_reclaimed = t->partitions_reclaimed;
	stats->count_saturations = t->count_saturations;
}

static void ppf_cm_destroy(struct ppf_model *model)
{
	struct ppf_context_model *cm = to_cm(model);

	ppf_trie_release(&cm->trie);
	ppf_free(cm->walks);
	ppf_free(cm);
}

static u32 ppf_cm_pattern_count(const struct ppf_model *model,
				const u32 *files, u32 len)
{
	return ppf_trie_pattern_count(&to_cm_const(model)->trie, files, len);
}

static const char *ppf_cm_check(struct ppf_model *model)
{
	struct ppf_context_model *cm = to_cm(model);
	u32 i;

	if (cm->nwalks > cm->max_order)
		return "more current contexts than the model order";
	for (i = 0; i < cm->nwalks; i++) {
		const struct ppf_walk *w = &cm->walks[i];

		if (w->node == PPF_NIL || w->depth > cm->max_order ||
		    ppf_node_count(ppf_node(&cm->trie.pool, w->node)) == 0)
			return "current context on a free node";
	}
	return ppf_trie_check(&cm->trie);
}

static const struct ppf_model_ops ppf_context_model_ops = {
	.event = ppf_cm_event,
	.stats = ppf_cm_stats,
	.destroy = ppf_cm_destroy,
	.pattern_count = ppf_cm_pattern_count,
	.check = ppf_cm_check,
};

/**
 * ppf_context_model_bytes() - memory a PCM or EPCM model allocates
 * @params: validated parameters
 *
 * Return: bytes.
 */
u64 ppf_context_model_bytes(const struct ppf_model_params *params)
{
	return sizeof(struct ppf_context_model) +
	       ppf_trie_bytes(params->partition_size, params->max_nodes) +
	       ((u64)params->model_order + 1) * sizeof(struct ppf_walk);
}

/**
 * ppf_context_model_create() - make an empty PCM or EPCM model
 * @params: validated parameters, kind PPF_MODEL_PCM or PPF_MODEL_EPCM
 * @err: set to a negative errno on failure
 *
 * Return: the model, or NULL.
 */
struct ppf_model *ppf_context_model_create(const struct ppf_model_params *params,
					   int *err)
{
	struct ppf_context_model *cm;

	cm = ppf_zalloc(sizeof(*cm));
	if (!cm) {
		*err = -ENOMEM;
		return NULL;
	}
	cm->base.ops = &ppf_context_model_ops;
	cm->extended = params->kind == PPF_MODEL_EPCM;
	cm->max_order = params->model_order;
	/* At most max_order walks survive an event, plus the new one. */
	cm->walks = ppf_zalloc(((size_t)cm->max_order + 1) * sizeof(*cm->walks));
	if (!cm->walks) {
		*err = -ENOMEM;
		goto out_free;
	}
	*err = ppf_trie_init(&cm->trie, params->partition_size,
			     params->max_nodes, ppf_cm_shrink, cm);
	if (*err)
		goto out_walks;
	return &cm->base;

out_walks:
	ppf_free(cm->walks);
out_free:
	ppf_free(cm);
	return NULL;
}
