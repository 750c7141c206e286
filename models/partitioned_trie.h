/* SPDX-License-Identifier: GPL-2.0 */
/*
 * partitioned_trie.h - the counted, partitioned trie behind PCM and EPCM
 *
 * DOC: Partitioned trie
 *
 * A node stands for a pattern: the files on the path from its partition's
 * root to it, in order; its count is how often that pattern was seen.  A
 * partition is one first-order node (one file) and everything below it, and
 * holds at most partition_size nodes.  When a partition is full and needs a
 * node, all its counts are halved (integer division) and the nodes that
 * reach zero are freed; if none are freed, the new node is dropped.  This
 * is Kroeger & Long's rule: old counts decay exponentially, and memory is
 * O(files * partition_size) instead of O(files^order).
 *
 * On top of that, the whole trie lives within a node budget.  When the pool
 * is empty, or the file index is full, whole cold partitions are reclaimed:
 * a clock sweeps the file index, clearing each root's referenced bit (set
 * whenever its file is seen) and reclaiming the first root found clear.
 * Whole partitions go because a partition is the unit of prediction: half a
 * partition predicts worse than none, and it would be reclaimed piecemeal
 * again at once.
 *
 * Whenever nodes are freed, the owner's @shrink callback runs before any
 * node is handed out again, so the owner can forget the nodes it was
 * pointing at (a freed node has count 0).
 */
#ifndef PPF_PARTITIONED_TRIE_H
#define PPF_PARTITIONED_TRIE_H

#include "node_pool.h"
#include "file_index.h"

/**
 * typedef ppf_shrink_fn - told that nodes of a partition were freed
 * @ctx: the owner's context
 * @root: the partition's root
 * @evicted: true if the whole partition was freed (then @root is gone too);
 *	false if it was halved, freeing the nodes whose count is now 0
 */
typedef void (*ppf_shrink_fn)(void *ctx, u32 root, bool evicted);

/**
 * struct ppf_trie - a partitioned trie within a node budget
 * @pool: the nodes
 * @index: file id to partition root
 * @partition_size: most nodes per partition
 * @stack: scratch for walking one partition without recursion
 * @shrink: called when nodes are freed
 * @shrink_ctx: passed to @shrink
 * @halvings: partitions halved (full or saturated)
 * @halving_freed: nodes freed by halving
 * @nodes_dropped: new nodes not added
 * @partitions_reclaimed: partitions freed to stay within the budget
 * @count_saturations: halvings because a count reached PPF_COUNT_MAX
 */
struct ppf_trie {
	struct ppf_node_pool pool;
	struct ppf_file_index index;
	u32 partition_size;
	u32 *stack;
	ppf_shrink_fn shrink;
	void *shrink_ctx;
	u64 halvings;
	u64 halving_freed;
	u64 nodes_dropped;
	u64 partitions_reclaimed;
	u64 count_saturations;
};

int ppf_trie_init(struct ppf_trie *trie, u32 partition_size, u32 max_nodes,
		  ppf_shrink_fn shrink, void *shrink_ctx);
void ppf_trie_release(struct ppf_trie *trie);
u64 ppf_trie_bytes(u32 partition_size, u32 max_nodes);
u32 ppf_trie_touch_root_slow(struct ppf_trie *trie, u32 file, u32 root);
u32 ppf_trie_step(struct ppf_trie *trie, u32 root, u32 parent, u32 file,
		  bool create, bool *created);
u32 ppf_trie_child(const struct ppf_trie *trie, u32 parent, u32 file);
#ifdef PPF_MODEL_CHECKS
u32 ppf_trie_pattern_count(const struct ppf_trie *trie, const u32 *files,
			   u32 len);
const char *ppf_trie_check(struct ppf_trie *trie, u32 streams);
#endif

/**
 * ppf_trie_touch_root() - count an occurrence of @file as a first-order node
 * @trie: the trie
 * @file: the file
 *
 * Finds @file's partition, or creates it (reclaiming a cold partition if the
 * budget requires), counts the occurrence and marks the partition
 * referenced.
 *
 * Inline for the case of every event but a file's first: the partition is
 * there and its count below the maximum.  A root's count is the low byte of
 * its link word: adding 1 cannot carry into the referenced bit.
 *
 * Return: the root, or PPF_NIL if no partition could be made.
 */
static inline u32 ppf_trie_touch_root(struct ppf_trie *trie, u32 file)
{
	u32 root = ppf_index_find(&trie->index, &trie->pool, file);

	if (root != PPF_NIL) {
		struct ppf_node *r = ppf_node(&trie->pool, root);

		if (ppf_node_count(r) < PPF_COUNT_MAX) {
			r->link = (r->link + 1) | PPF_ROOT_REF;
			return root;
		}
	}
	return ppf_trie_touch_root_slow(trie, file, root);
}

/**
 * ppf_trie_add_leaf() - ppf_trie_step() on a node without children
 * @trie: the trie
 * @root: the partition of @parent
 * @parent: the pattern's node, which has no child
 * @file: the file that followed it
 *
 * Adds @parent's first child, for @file, with a count of 1, as
 * ppf_trie_step() would.  Inline for the case of every event of a learnt
 * EPCM stream, whose patterns grow by one node an event: the partition
 * has room and the pool a node, so nothing is halved or reclaimed and the
 * child is the whole list.  Anything else takes ppf_trie_step().
 */
static inline void ppf_trie_add_leaf(struct ppf_trie *trie, u32 root,
				     u32 parent, u32 file)
{
	struct ppf_node *r = ppf_node(&trie->pool, root);
	bool created;

	if ((r->link >> PPF_ROOT_NODES_SHIFT) < trie->partition_size &&
	    trie->pool.in_use < trie->pool.capacity) {
		ppf_node(&trie->pool, parent)->child =
			ppf_pool_alloc(&trie->pool, file);
		/* The partition's node count, bits 9-31: no carry out. */
		r->link += 1u << PPF_ROOT_NODES_SHIFT;
		return;
	}
	ppf_trie_step(trie, root, parent, file, true, &created);
}

#endif /* PPF_PARTITIONED_TRIE_H */
