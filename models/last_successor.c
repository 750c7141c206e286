// SPDX-License-Identifier: GPL-2.0
/*
 * last_successor.c - predict that a file is followed by what followed it
 *
 * DOC: Last successor
 *
 * One node per distinct file, found through the file index.  The node's
 * @child word holds the *file id* of the file that followed it last time
 * (not a node index: the successor may be reclaimed independently), and
 * bit PPF_LS_HAS_SUCCESSOR of its link word says whether there is one.
 * Every event replaces the previous file's successor and predicts the new
 * file's.  Last successor keeps no counts, so its predictions carry
 * PPF_LIKELIHOOD_UNKNOWN and no threshold applies.  Each context slot has
 * its own previous file.  Within the node budget,
 * cold files are reclaimed with the same clock as the context models'
 * partitions.
 */
#include "model_internal.h"
#include "node_pool.h"
#include "file_index.h"

#define PPF_LS_HAS_SUCCESSOR	0x200u

/**
 * struct ppf_last_successor - the model
 * @base: common part
 * @pool: one node per file
 * @index: file id to node
 * @prev: for each context slot, the file id of its previous event (an id,
 *	not a node: the node may be reclaimed while the context waits)
 * @has_prev: for each context slot, whether @prev is set
 * @nslots: number of context slots
 * @reclaimed: files forgotten to stay within the budget
 */
struct ppf_last_successor {
	struct ppf_model base;
	struct ppf_node_pool pool;
	struct ppf_file_index index;
	u32 *prev;
	u8 *has_prev;
	u32 nslots;
	u64 reclaimed;
};

static inline struct ppf_last_successor *to_ls(struct ppf_model *model)
{
	return ppf_container_of(model, struct ppf_last_successor, base);
}

static inline const struct ppf_last_successor *to_ls_const(const struct ppf_model *model)
{
	return ppf_container_of(model, struct ppf_last_successor, base);
}

/* Forget one file not seen since the clock last passed it (not @keep). */
static bool ppf_ls_reclaim(struct ppf_last_successor *ls, u32 keep)
{
	u32 idx = ppf_index_clock_victim(&ls->index, &ls->pool, keep);

	if (idx == PPF_NIL)
		return false;
	ppf_index_remove(&ls->index, &ls->pool, idx);
	ppf_pool_free(&ls->pool, idx);
	ls->reclaimed++;
	return true;
}

static u32 ppf_ls_touch(struct ppf_last_successor *ls, u32 file, u32 keep)
{
	u32 idx = ppf_index_find(&ls->index, &ls->pool, file);

	if (idx == PPF_NIL) {
		/* Pool and index hold one entry per file: both full at once. */
		if (ppf_index_full(&ls->index) && !ppf_ls_reclaim(ls, keep))
			return PPF_NIL;
		idx = ppf_pool_alloc(&ls->pool, file);
		if (idx == PPF_NIL)
			return PPF_NIL;
		ppf_index_insert(&ls->index, &ls->pool, idx);
	}
	ls->pool.nodes[idx].link |= PPF_ROOT_REF;
	return idx;
}

static void ppf_ls_context_start(struct ppf_model *model, u32 slot,
				 u32 parent)
{
	struct ppf_last_successor *ls = to_ls(model);

	if (parent == PPF_CTX_NONE) {
		ls->has_prev[slot] = 0;
		return;
	}
	ls->prev[slot] = ls->prev[parent];
	ls->has_prev[slot] = ls->has_prev[parent];
}

static unsigned int ppf_ls_event(struct ppf_model *model, u32 slot, u32 file,
				 struct ppf_prediction *out,
				 unsigned int max_out)
{
	struct ppf_last_successor *ls = to_ls(model);
	u32 prev = PPF_NIL, idx;
	struct ppf_node *n;

	if (ls->has_prev[slot])
		prev = ppf_index_find(&ls->index, &ls->pool, ls->prev[slot]);
	idx = ppf_ls_touch(ls, file, prev);
	if (prev != PPF_NIL) {
		n = ppf_node(&ls->pool, prev);
		n->child = file;
		n->link |= PPF_LS_HAS_SUCCESSOR;
	}
	ls->prev[slot] = file;
	ls->has_prev[slot] = idx != PPF_NIL;
	if (idx == PPF_NIL || max_out == 0)
		return 0;
	n = ppf_node(&ls->pool, idx);
	if (!(n->link & PPF_LS_HAS_SUCCESSOR))
		return 0;
	out[0].file = n->child;
	out[0].likelihood = PPF_LIKELIHOOD_UNKNOWN;
	out[0].lead = 1;
	return 1;
}

static void ppf_ls_stats(const struct ppf_model *model,
			 struct ppf_model_stats *stats)
{
	const struct ppf_last_successor *ls = to_ls_const(model);

	stats->nodes = ls->pool.in_use;
	stats->partitions = ls->index.used;
	stats->bytes = ppf_last_successor_bytes(&model->params);
	stats->partitions_reclaimed = ls->reclaimed;
}

static void ppf_ls_destroy(struct ppf_model *model)
{
	struct ppf_last_successor *ls = to_ls(model);

	ppf_index_release(&ls->index);
	ppf_pool_release(&ls->pool);
	ppf_free(ls->prev);
	ppf_free(ls->has_prev);
	ppf_free(ls);
}

#ifdef PPF_MODEL_CHECKS
static u32 ppf_ls_pattern_count(const struct ppf_model *model,
				const u32 *files, u32 len)
{
	const struct ppf_last_successor *ls = to_ls_const(model);
	u32 idx = ppf_index_find(&ls->index, &ls->pool, files[0]);
	const struct ppf_node *n;

	if (idx == PPF_NIL || len > 2)
		return 0;
	n = ppf_node(&ls->pool, idx);
	if (len == 1)
		return 1;
	return (n->link & PPF_LS_HAS_SUCCESSOR) && n->child == files[1];
}

static const char *ppf_ls_check(struct ppf_model *model)
{
	const struct ppf_last_successor *ls = to_ls_const(model);
	const char *why;
	u32 found;

	if (ls->pool.in_use > ls->pool.capacity)
		return "more nodes in use than the budget";
	why = ppf_index_check(&ls->index, &ls->pool, &found);
	if (why)
		return why;
	if (found != ls->pool.in_use)
		return "files in the index and nodes in use out of step";
	return NULL;
}
#endif /* PPF_MODEL_CHECKS */

static const struct ppf_model_ops ppf_last_successor_ops = {
	.context_start = ppf_ls_context_start,
	.event = ppf_ls_event,
	.stats = ppf_ls_stats,
	.destroy = ppf_ls_destroy,
#ifdef PPF_MODEL_CHECKS
	.pattern_count = ppf_ls_pattern_count,
	.check = ppf_ls_check,
#endif
};

/**
 * ppf_last_successor_bytes() - memory a last-successor model allocates
 * @params: validated parameters
 *
 * Return: bytes.
 */
u64 ppf_last_successor_bytes(const struct ppf_model_params *params)
{
	return sizeof(struct ppf_last_successor) +
	       ((u64)params->max_nodes + 1) * sizeof(struct ppf_node) +
	       ppf_index_bytes(params->max_nodes) +
	       (u64)params->max_contexts * (sizeof(u32) + sizeof(u8));
}

/**
 * ppf_last_successor_create() - make an empty last-successor model
 * @params: validated parameters
 * @err: set to a negative errno on failure
 *
 * Return: the model, or NULL.
 */
struct ppf_model *ppf_last_successor_create(const struct ppf_model_params *params,
					    int *err)
{
	struct ppf_last_successor *ls = ppf_zalloc(sizeof(*ls));

	if (!ls) {
		*err = -ENOMEM;
		return NULL;
	}
	ls->base.ops = &ppf_last_successor_ops;
	ls->nslots = params->max_contexts;
	ls->prev = ppf_zalloc((size_t)ls->nslots * sizeof(*ls->prev));
	ls->has_prev = ppf_zalloc(ls->nslots);
	if (!ls->prev || !ls->has_prev) {
		*err = -ENOMEM;
		goto out_free;
	}
	*err = ppf_pool_init(&ls->pool, params->max_nodes);
	if (*err)
		goto out_free;
	*err = ppf_index_init(&ls->index, params->max_nodes);
	if (*err)
		goto out_pool;
	return &ls->base;

out_pool:
	ppf_pool_release(&ls->pool);
out_free:
	ppf_free(ls->prev);
	ppf_free(ls->has_prev);
	ppf_free(ls);
	return NULL;
}
