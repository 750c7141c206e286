// SPDX-License-Identifier: GPL-2.0
/*
 * node_pool.c - create and release the fixed node pool (see node_pool.h)
 */
#include "node_pool.h"

/**
 * ppf_pool_init() - allocate a pool of @capacity nodes
 * @pool: the pool to set up
 * @capacity: nodes that may be in use at once, 1..PPF_MAX_NODES
 *
 * Called only when a model is created, never on the event path.
 *
 * Return: 0, -EINVAL for a capacity the 24-bit links cannot address, or
 * -ENOMEM.
 */
int ppf_pool_init(struct ppf_node_pool *pool, u32 capacity)
{
	if (capacity == 0 || capacity > (1u << 24) - 1)
		return -EINVAL;
	memset(pool, 0, sizeof(*pool));
	pool->nodes = ppf_zalloc(((size_t)capacity + 1) * sizeof(struct ppf_node));
	if (!pool->nodes)
		return -ENOMEM;
	pool->capacity = capacity;
	pool->free_head = PPF_NIL;
	pool->next_unused = 1;
	return 0;
}

/**
 * ppf_pool_release() - free the pool's memory
 * @pool: the pool
 */
void ppf_pool_release(struct ppf_node_pool *pool)
{
	ppf_free(pool->nodes);
	pool->nodes = NULL;
	pool->capacity = 0;
	pool->in_use = 0;
}
