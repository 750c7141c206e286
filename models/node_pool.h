/* SPDX-License-Identifier: GPL-2.0 */
/*
 * node_pool.h - fixed pool of 12-byte trie nodes
 *
 * DOC: Node pool
 *
 * Every node of every model comes from one array allocated when the model
 * is created, so the event path never allocates and the model can never
 * grow past its budget.  Nodes are named by 24-bit indices rather than
 * pointers: index 0 is never handed out and means "none" (PPF_NIL), and a
 * node is three 32-bit words:
 *
 *  - @file:  the file this node stands for;
 *  - @child: index of the first child (or, for models that keep no trie,
 *            whatever the model documents);
 *  - @link:  bits 0-7 the count; bits 8-31 the index of the next sibling.
 *            A partition's first-order node has no siblings (partitions are
 *            found through the file index), so there bit 8 is the
 *            partition's "referenced" bit and bits 9-31 its node count.
 *            Last successor's nodes are such roots too (bit 8 is their
 *            clock's referenced bit), but of one node each: it keeps no
 *            node count and reuses bit 9 as PPF_LS_HAS_SUCCESSOR
 *            (last_successor.c).
 *
 * An 8-bit count is enough because counts are only ever compared as ratios:
 * when a first-order node's count would pass 255, its partition is halved,
 * exactly as when the partition is full (see partitioned_trie.c).
 *
 * Free nodes form a list through @child; nodes never used yet are taken from
 * a high-water mark, so creating a large pool costs no initialisation pass.
 * A freed node has count 0, which no live node has: callers use that to
 * notice that a node they remembered was freed.
 */
#ifndef PPF_NODE_POOL_H
#define PPF_NODE_POOL_H

#include "ppf_platform.h"

#define PPF_NIL			0u
#define PPF_COUNT_MAX		0xffu
#define PPF_LINK_SHIFT		8
#define PPF_ROOT_REF		0x100u
#define PPF_ROOT_NODES_SHIFT	9

struct ppf_node {
	u32 file;
	u32 child;
	u32 link;
};

/**
 * struct ppf_node_pool - a fixed array of nodes with a free list
 * @nodes: the array; element 0 is unused so that 0 can mean "none"
 * @capacity: nodes that may be in use at once
 * @in_use: nodes in use
 * @free_head: first node of the free list
 * @next_unused: lowest index never handed out yet
 */
struct ppf_node_pool {
	struct ppf_node *nodes;
	u32 capacity;
	u32 in_use;
	u32 free_head;
	u32 next_unused;
};

int ppf_pool_init(struct ppf_node_pool *pool, u32 capacity);
void ppf_pool_release(struct ppf_node_pool *pool);

static inline struct ppf_node *ppf_node(const struct ppf_node_pool *pool,
					u32 idx)
{
	return &pool->nodes[idx];
}

static inline u32 ppf_node_count(const struct ppf_node *n)
{
	return n->link & PPF_COUNT_MAX;
}

static inline void ppf_node_set_count(struct ppf_node *n, u32 count)
{
	n->link = (n->link & ~PPF_COUNT_MAX) | count;
}

static inline u32 ppf_node_sibling(const struct ppf_node *n)
{
	return n->link >> PPF_LINK_SHIFT;
}

static inline void ppf_node_set_sibling(struct ppf_node *n, u32 sibling)
{
	n->link = (sibling << PPF_LINK_SHIFT) | (n->link & PPF_COUNT_MAX);
}

/**
 * ppf_pool_alloc() - take a node from the pool
 * @pool: the pool
 * @file: the file the node stands for
 *
 * Return: the index of a node with @file set, no child, no sibling and a
 * count of 1; PPF_NIL when the pool is exhausted.
 */
static inline u32 ppf_pool_alloc(struct ppf_node_pool *pool, u32 file)
{
	u32 idx;

	if (pool->in_use >= pool->capacity)
		return PPF_NIL;
	if (pool->free_head != PPF_NIL) {
		idx = pool->free_head;
		pool->free_head = pool->nodes[idx].child;
	} else {
		idx = pool->next_unused++;
	}
	pool->in_use++;
	pool->nodes[idx].file = file;
	pool->nodes[idx].child = PPF_NIL;
	pool->nodes[idx].link = 1;
	return idx;
}

/**
 * ppf_pool_free() - return a node to the pool
 * @pool: the pool
 * @idx: the node, which must no longer be linked from anywhere
 *
 * The node's count becomes 0 so that stale references can be recognised.
 */
static inline void ppf_pool_free(struct ppf_node_pool *pool, u32 idx)
{
	pool->nodes[idx].link = 0;
	pool->nodes[idx].child = pool->free_head;
	pool->free_head = idx;
	pool->in_use--;
}

#endif /* PPF_NODE_POOL_H */
