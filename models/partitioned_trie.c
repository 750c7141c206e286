// SPDX-License-Identifier: GPL-2.0
/*
 * partitioned_trie.c - counted trie split into bounded partitions
 *
 * See partitioned_trie.h for the overview.  A pattern is seen at most as
 * often as its prefix, so a child's count is at most its parent's, give or
 * take the rounding of a halving that falls between a walk counting the
 * parent and, one event later, the child (see ppf_trie_check()).  Halving
 * therefore frees whole subtrees: a node that reaches zero is freed with
 * everything below it.
 */
#include "partitioned_trie.h"

/*
 * A root's link word holds its count (bits 0-7), referenced bit (bit 8) and
 * the partition's node count (bits 9-31).
 */
static inline void ppf_root_set_nodes(struct ppf_node *root, u32 nodes)
{
	root->link = (nodes << PPF_ROOT_NODES_SHIFT) |
		     (root->link & (PPF_ROOT_REF | PPF_COUNT_MAX));
}

static inline u32 ppf_root_nodes(const struct ppf_node *root)
{
	return root->link >> PPF_ROOT_NODES_SHIFT;
}

/*
 * Partitions are at most PPF_MAX_PARTITION_SIZE nodes and the index needs a
 * root per partition; with the budget's nodes spread two or more per
 * partition on any stream with repeats, half the budget is room enough for
 * roots, and a full index reclaims like a full pool does.
 */
static u32 ppf_trie_max_partitions(u32 max_nodes)
{
	return max_nodes / 2 ? max_nodes / 2 : 1;
}

/**
 * ppf_trie_bytes() - memory a trie of this shape allocates
 * @partition_size: most nodes per partition
 * @max_nodes: the node budget
 *
 * Return: bytes.
 */
u64 ppf_trie_bytes(u32 partition_size, u32 max_nodes)
{
	return ((u64)max_nodes + 1) * sizeof(struct ppf_node) +
	       ppf_index_bytes(ppf_trie_max_partitions(max_nodes)) +
	       (u64)partition_size * sizeof(u32);
}

/**
 * ppf_trie_init() - allocate an empty trie
 * @trie: the trie to set up
 * @partition_size: most nodes per partition
 * @max_nodes: the node budget
 * @shrink: called whenever nodes are freed (see ppf_shrink_fn)
 * @shrink_ctx: passed to @shrink
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int ppf_trie_init(struct ppf_trie *trie, u32 partition_size, u32 max_nodes,
		  ppf_shrink_fn shrink, void *shrink_ctx)
{
	int err;

	memset(trie, 0, sizeof(*trie));
	trie->partition_size = partition_size;
	trie->shrink = shrink;
	trie->shrink_ctx = shrink_ctx;
	err = ppf_pool_init(&trie->pool, max_nodes);
	if (err)
		return err;
	err = ppf_index_init(&trie->index, ppf_trie_max_partitions(max_nodes));
	if (err)
		goto out_pool;
	trie->stack = ppf_zalloc((size_t)partition_size * sizeof(u32));
	if (!trie->stack) {
		err = -ENOMEM;
		goto out_index;
	}
	return 0;

out_index:
	ppf_index_release(&trie->index);
out_pool:
	ppf_pool_release(&trie->pool);
	return err;
}

/**
 * ppf_trie_release() - free all of a trie's memory
 * @trie: the trie
 */
void ppf_trie_release(struct ppf_trie *trie)
{
	ppf_free(trie->stack);
	trie->stack = NULL;
	ppf_index_release(&trie->index);
	ppf_pool_release(&trie->pool);
}

/*
 * Free the nodes of the sibling list that starts at @list and everything
 * below them, without recursion and without extra memory: the children of
 * each node taken off the list are spliced onto the front of the list
 * through their sibling links.  Returns the number of nodes freed.
 */
static u32 ppf_trie_free_list(struct ppf_trie *trie, u32 list)
{
	struct ppf_node_pool *pool = &trie->pool;
	u32 freed = 0;

	while (list != PPF_NIL) {
		struct ppf_node *n = ppf_node(pool, list);
		u32 idx = list, last;

		list = ppf_node_sibling(n);
		if (n->child != PPF_NIL) {
			last = n->child;
			while (ppf_node_sibling(ppf_node(pool, last)) != PPF_NIL)
				last = ppf_node_sibling(ppf_node(pool, last));
			ppf_node_set_sibling(ppf_node(pool, last), list);
			list = n->child;
		}
		ppf_pool_free(pool, idx);
		freed++;
	}
	return freed;
}

/* As ppf_trie_free_list(), for @top alone and everything below it. */
static u32 ppf_trie_free_subtree(struct ppf_trie *trie, u32 top)
{
	ppf_node_set_sibling(ppf_node(&trie->pool, top), PPF_NIL);
	return ppf_trie_free_list(trie, top);
}

/*
 * Halve every count in @root's partition and free the nodes that reach
 * zero.  The root itself stays, with a count of at least 1: it is the
 * partition, and the caller is about to use it.  Returns the nodes freed.
 */
static u32 ppf_trie_halve(struct ppf_trie *trie, u32 root)
{
	struct ppf_node_pool *pool = &trie->pool;
	struct ppf_node *r = ppf_node(pool, root);
	u32 depth = 0, freed = 0, count;

	count = ppf_node_count(r) / 2;
	ppf_node_set_count(r, count ? count : 1);
	trie->stack[depth++] = root;
	while (depth) {
		struct ppf_node *parent = ppf_node(pool, trie->stack[--depth]);
		u32 prev = PPF_NIL, ch = parent->child;

		while (ch != PPF_NIL) {
			struct ppf_node *c = ppf_node(pool, ch);
			u32 next = ppf_node_sibling(c);

			count = ppf_node_count(c) / 2;
			if (count == 0) {
				/*
				 * Siblings are sorted by count: this one and
				 * all after it reach zero.  Free them as one
				 * list.
				 */
				if (prev == PPF_NIL)
					parent->child = PPF_NIL;
				else
					ppf_node_set_sibling(ppf_node(pool, prev),
							     PPF_NIL);
				freed += ppf_trie_free_list(trie, ch);
				break;
			}
			ppf_node_set_count(c, count);
			/* Live nodes of a partition never exceed its size. */
			trie->stack[depth++] = ch;
			prev = ch;
			ch = next;
		}
	}
	ppf_root_set_nodes(r, ppf_root_nodes(r) - freed);
	trie->halvings++;
	trie->halving_freed += freed;
	if (freed)
		trie->shrink(trie->shrink_ctx, root, false);
	return freed;
}

static void ppf_trie_evict(struct ppf_trie *trie, u32 root)
{
	ppf_index_remove(&trie->index, &trie->pool, root);
	ppf_trie_free_subtree(trie, root);
	trie->partitions_reclaimed++;
	trie->shrink(trie->shrink_ctx, root, true);
}

/* Reclaim one cold partition other than @keep. */
static bool ppf_trie_reclaim(struct ppf_trie *trie, u32 keep)
{
	u32 root = ppf_index_clock_victim(&trie->index, &trie->pool, keep);

	if (root == PPF_NIL)
		return false;
	ppf_trie_evict(trie, root);
	return true;
}

/* Take a node from the pool, reclaiming a cold partition if it is empty. */
static inline u32 ppf_trie_alloc(struct ppf_trie *trie, u32 keep, u32 file)
{
	u32 idx = ppf_pool_alloc(&trie->pool, file);

	if (idx == PPF_NIL && ppf_trie_reclaim(trie, keep))
		idx = ppf_pool_alloc(&trie->pool, file);
	return idx;
}

/**
 * ppf_trie_count() - count one more occurrence of a node's pattern
 * @trie: the trie
 * @root: the node's partition
 * @node: the node
 *
 * A count at its maximum halves the partition first (ratios are all that
 * matter), which may free nodes of the partition other than @node's
 * ancestors; @node itself keeps a count of at least 1 since it is at the
 * maximum.
 */
static void ppf_trie_count(struct ppf_trie *trie, u32 root, u32 node)
{
	struct ppf_node *n = ppf_node(&trie->pool, node);

	if (ppf_node_count(n) == PPF_COUNT_MAX) {
		trie->count_saturations++;
		ppf_trie_halve(trie, root);
	}
	ppf_node_set_count(n, ppf_node_count(n) + 1);
}

/**
 * ppf_trie_touch_root_slow() - ppf_trie_touch_root() when its short way
 *	does not apply
 * @trie: the trie
 * @file: the file
 * @root: @file's root as the index gave it, or PPF_NIL
 *
 * Return: as ppf_trie_touch_root().
 */
u32 ppf_trie_touch_root_slow(struct ppf_trie *trie, u32 file, u32 root)
{
	if (root != PPF_NIL) {
		ppf_trie_count(trie, root, root);
	} else {
		if (ppf_index_full(&trie->index) &&
		    !ppf_trie_reclaim(trie, PPF_NIL))
			return PPF_NIL;
		root = ppf_trie_alloc(trie, PPF_NIL, file);
		if (root == PPF_NIL)
			return PPF_NIL;
		ppf_root_set_nodes(ppf_node(&trie->pool, root), 1);
		/* Cannot fail: the index had room or was made room in. */
		ppf_index_insert(&trie->index, &trie->pool, root);
	}
	trie->pool.nodes[root].link |= PPF_ROOT_REF;
	return root;
}

/*
 * Siblings are kept sorted by count, highest first (ties: oldest first), so
 * that predicting needs only the children at the head of the list that meet
 * the threshold, and the most likely child is always the first.  After
 * @child's count went up by one, move it in front of the siblings it now
 * outnumbers; they all stand before it, in the part of the list the caller
 * has just walked, so this costs no new cache misses.
 */
static void ppf_trie_promote(struct ppf_trie *trie, u32 parent, u32 child)
{
	struct ppf_node_pool *pool = &trie->pool;
	struct ppf_node *p = ppf_node(pool, parent);
	u32 count = ppf_node_count(ppf_node(pool, child));
	u32 prev = PPF_NIL, cur = p->child, ins_prev = PPF_NIL;
	bool found = false;

	while (cur != child) {
		if (!found && ppf_node_count(ppf_node(pool, cur)) < count) {
			found = true;
			ins_prev = prev;
		}
		prev = cur;
		cur = ppf_node_sibling(ppf_node(pool, cur));
	}
	if (!found)
		return;
	ppf_node_set_sibling(ppf_node(pool, prev),
			     ppf_node_sibling(ppf_node(pool, child)));
	if (ins_prev == PPF_NIL) {
		ppf_node_set_sibling(ppf_node(pool, child), p->child);
		p->child = child;
	} else {
		ppf_node_set_sibling(ppf_node(pool, child),
				     ppf_node_sibling(ppf_node(pool, ins_prev)));
		ppf_node_set_sibling(ppf_node(pool, ins_prev), child);
	}
}

static u32 ppf_trie_last_child(const struct ppf_trie *trie, u32 parent)
{
	const struct ppf_node_pool *pool = &trie->pool;
	u32 ch = ppf_node(pool, parent)->child, last = PPF_NIL;

	while (ch != PPF_NIL) {
		last = ch;
		ch = ppf_node_sibling(ppf_node(pool, ch));
	}
	return last;
}

/*
 * Append a child for @file, count 1, after @last (the current last child,
 * or PPF_NIL).  A full partition is halved first; if that frees nothing, or
 * frees @parent itself, the node is dropped.  An empty pool reclaims a cold
 * partition other than @root.
 */
static u32 ppf_trie_add_child(struct ppf_trie *trie, u32 root, u32 parent,
			      u32 last, u32 file)
{
	struct ppf_node_pool *pool = &trie->pool;
	struct ppf_node *r = ppf_node(pool, root);
	u32 ch;

	if (ppf_root_nodes(r) >= trie->partition_size) {
		if (ppf_trie_halve(trie, root) == 0 ||
		    ppf_node_count(ppf_node(pool, parent)) == 0) {
			trie->nodes_dropped++;
			return PPF_NIL;
		}
		last = ppf_trie_last_child(trie, parent);
	}
	ch = ppf_trie_alloc(trie, root, file);
	if (ch == PPF_NIL) {
		trie->nodes_dropped++;
		return PPF_NIL;
	}
	if (last == PPF_NIL)
		ppf_node(pool, parent)->child = ch;
	else
		ppf_node_set_sibling(ppf_node(pool, last), ch);
	r = ppf_node(pool, root);
	ppf_root_set_nodes(r, ppf_root_nodes(r) + 1);
	return ch;
}

/**
 * ppf_trie_step() - count @file as the successor of the pattern at @parent
 * @trie: the trie
 * @root: the partition of @parent
 * @parent: the pattern's node
 * @file: the file that followed it
 * @create: whether to add the child if it is not there yet
 * @created: set to whether the child was added
 *
 * Finds the child of @parent for @file and counts it (keeping siblings
 * sorted), or, with @create, appends it with a count of 1.  A count at its
 * maximum, or a full partition, halves the partition first; the owner's
 * shrink callback hears of any node freed.
 *
 * The case that dominates a learnt stream (@file is the first child, below
 * the maximum count) is done by the caller's own loop, ppf_cm_learn(),
 * without a call.
 *
 * Return: the child, or PPF_NIL if it is not there and was not added.
 */
u32 ppf_trie_step(struct ppf_trie *trie, u32 root, u32 parent, u32 file,
		  bool create, bool *created)
{
	struct ppf_node_pool *pool = &trie->pool;
	u32 last = PPF_NIL, ch = ppf_node(pool, parent)->child;

	*created = false;
	while (ch != PPF_NIL && ppf_node(pool, ch)->file != file) {
		last = ch;
		ch = ppf_node_sibling(ppf_node(pool, ch));
	}
	if (ch != PPF_NIL) {
		/* @ch keeps a count of at least 127 through the halving. */
		ppf_trie_count(trie, root, ch);
		ppf_trie_promote(trie, parent, ch);
		return ch;
	}
	if (!create)
		return PPF_NIL;
	ch = ppf_trie_add_child(trie, root, parent, last, file);
	*created = ch != PPF_NIL;
	return ch;
}

/**
 * ppf_trie_child() - the child of @parent that stands for @file
 * @trie: the trie
 * @parent: the parent node
 * @file: the file
 *
 * Return: the child, or PPF_NIL.
 */
u32 ppf_trie_child(const struct ppf_trie *trie, u32 parent, u32 file)
{
	const struct ppf_node_pool *pool = &trie->pool;
	u32 ch = ppf_node(pool, parent)->child;

	while (ch != PPF_NIL && ppf_node(pool, ch)->file != file)
		ch = ppf_node_sibling(ppf_node(pool, ch));
	return ch;
}

#ifdef PPF_MODEL_CHECKS
/**
 * ppf_trie_pattern_count() - how often a pattern was counted
 * @trie: the trie
 * @files: the pattern, first file first
 * @len: its length, at least 1
 *
 * For tests and the simulator: not used on the event path.
 *
 * Return: the count of the pattern's node, 0 if there is none.
 */
u32 ppf_trie_pattern_count(const struct ppf_trie *trie, const u32 *files,
			   u32 len)
{
	const struct ppf_node_pool *pool = &trie->pool;
	u32 node = ppf_index_find(&trie->index, pool, files[0]);
	u32 i;

	for (i = 1; i < len && node != PPF_NIL; i++)
		node = ppf_trie_child(trie, node, files[i]);
	return node == PPF_NIL ? 0 : ppf_node_count(ppf_node(pool, node));
}

/* Check one partition; returns its node count or 0 after setting @why. */
static u32 ppf_trie_check_partition(struct ppf_trie *trie, u32 root,
				    u32 lead,
				    const char **why)
{
	const struct ppf_node_pool *pool = &trie->pool;
	u32 depth = 0, seen = 1;

	if (ppf_node_count(ppf_node(pool, root)) == 0) {
		*why = "root with count 0";
		return 0;
	}
	trie->stack[depth++] = root;
	while (depth) {
		const struct ppf_node *p = ppf_node(pool, trie->stack[--depth]);
		u32 ch, prev_count = PPF_COUNT_MAX;

		for (ch = p->child; ch != PPF_NIL;
		     ch = ppf_node_sibling(ppf_node(pool, ch))) {
			const struct ppf_node *c = ppf_node(pool, ch);

			if (ppf_node_count(c) > prev_count) {
				*why = "siblings not sorted by count";
				return 0;
			}
			prev_count = ppf_node_count(c);

			if (ch > pool->capacity || ppf_node_count(c) == 0) {
				*why = "link to a free or invalid node";
				return 0;
			}
			if (ppf_node_count(c) > ppf_node_count(p) + lead) {
				*why = "child counted more often than its parent";
				return 0;
			}
			if (++seen > trie->partition_size) {
				*why = "partition larger than partition_size";
				return 0;
			}
			trie->stack[depth++] = ch;
		}
	}
	if (seen != ppf_root_nodes(ppf_node(pool, root))) {
		*why = "partition node count out of step";
		return 0;
	}
	return seen;
}

/**
 * ppf_trie_check() - verify the trie's invariants
 * @trie: the trie
 * @streams: how many streams may have walks in it at once (1 or more)
 *
 * Walks everything: for tests and fuzzing only.  Every partition within
 * partition_size and its recorded node count, every count at least 1 and
 * at most its parent's, every node in use reachable from exactly one
 * partition, the pool within its budget.  Walks each partition on
 * @trie->stack, hence not const.
 *
 * Return: NULL if all hold, else a description of the first broken one.
 */
const char *ppf_trie_check(struct ppf_trie *trie, u32 streams)
{
	/*
	 * A walk counts a parent one event and its child at the stream's next
	 * event.  A halving in between rounds the two apart: with one stream
	 * a child may lead its parent by one.  With S streams, up to S walks
	 * (one per stream) may wait at a node while halvings pass, and each
	 * halving also halves the lead: L' <= L / 2 + 1 + S, at most 2S + 2.
	 */
	u32 lead = streams == 1 ? 1 : 2 * streams + 2;
	const char *why;
	u64 nodes = 0;
	u32 slot, roots;

	if (trie->pool.in_use > trie->pool.capacity)
		return "more nodes in use than the budget";
	why = ppf_index_check(&trie->index, &trie->pool, &roots);
	if (why)
		return why;
	for (slot = 0; slot <= trie->index.mask; slot++) {
		u32 root = trie->index.slots[slot], n;

		if (root == PPF_NIL)
			continue;
		n = ppf_trie_check_partition(trie, root, lead, &why);
		if (!n)
			return why;
		nodes += n;
	}
	if (nodes != trie->pool.in_use)
		return "nodes in use not all reachable from a partition";
	return NULL;
}
#endif /* PPF_MODEL_CHECKS */
