// SPDX-License-Identifier: GPL-2.0
/*
 * file_index.c - open-addressing hash table of partition roots
 *
 * See file_index.h.  The hash is a multiplicative (Fibonacci) hash of the
 * file id: file ids chosen by a caller are often dense small integers, and
 * the multiplication spreads them over the table while staying
 * deterministic, which the models promise.
 */
#include "file_index.h"

static u32 ppf_index_slots_for(u32 max_entries)
{
	u32 slots = 16;

	/* Keep the load at or below 3/4 so that probe runs stay short. */
	while ((u64)slots * 3 / 4 < max_entries)
		slots <<= 1;
	return slots;
}

/**
 * ppf_index_bytes() - memory an index for @max_entries entries takes
 * @max_entries: most entries
 *
 * Return: bytes.
 */
u64 ppf_index_bytes(u32 max_entries)
{
	return (u64)ppf_index_slots_for(max_entries) * sizeof(u32);
}

/**
 * ppf_index_init() - allocate an empty index
 * @index: the index to set up
 * @max_entries: most entries it will hold (at least 1)
 *
 * Return: 0 or -ENOMEM.
 */
int ppf_index_init(struct ppf_file_index *index, u32 max_entries)
{
	u32 slots = ppf_index_slots_for(max_entries);

	memset(index, 0, sizeof(*index));
	index->slots = ppf_zalloc((size_t)slots * sizeof(u32));
	if (!index->slots)
		return -ENOMEM;
	index->mask = slots - 1;
	index->limit = max_entries;
	return 0;
}

/**
 * ppf_index_release() - free the index's memory
 * @index: the index
 */
void ppf_index_release(struct ppf_file_index *index)
{
	ppf_free(index->slots);
	index->slots = NULL;
}

/**
 * ppf_index_insert() - add a root node whose file is not in the index yet
 * @index: the index
 * @pool: the pool holding the root node
 * @root: the root node
 *
 * Return: 0, or -ENOSPC when the index holds @limit entries already.
 */
int ppf_index_insert(struct ppf_file_index *index,
		     const struct ppf_node_pool *pool, u32 root)
{
	u32 pos = ppf_index_home(index, pool->nodes[root].file);

	if (ppf_index_full(index))
		return -ENOSPC;
	while (index->slots[pos] != PPF_NIL)
		pos = (pos + 1) & index->mask;
	index->slots[pos] = root;
	index->used++;
	return 0;
}

/**
 * ppf_index_remove() - remove a root node
 * @index: the index
 * @pool: the pool holding the root node, still carrying its file id
 * @root: the root node, which must be in the index
 *
 * Later entries of the probe run are shifted back into the hole, so that
 * every remaining entry stays reachable from its home slot.
 */
void ppf_index_remove(struct ppf_file_index *index,
		      const struct ppf_node_pool *pool, u32 root)
{
	u32 hole = ppf_index_home(index, pool->nodes[root].file);
	u32 pos, home, cur;

	while (index->slots[hole] != root)
		hole = (hole + 1) & index->mask;
	pos = hole;
	for (;;) {
		pos = (pos + 1) & index->mask;
		cur = index->slots[pos];
		if (cur == PPF_NIL)
			break;
		home = ppf_index_home(index, pool->nodes[cur].file);
		/* Move @cur back unless its home lies in (hole, pos]. */
		if (((pos - home) & index->mask) >= ((pos - hole) & index->mask)) {
			index->slots[hole] = cur;
			hole = pos;
		}
	}
	index->slots[hole] = PPF_NIL;
	index->used--;
}

/**
 * ppf_index_clock_victim() - find a cold entry with the clock
 * @index: the index
 * @pool: the pool holding the entries' nodes
 * @keep: an entry not to choose (or PPF_NIL)
 *
 * Sweeps from the clock hand: an entry whose node has PPF_ROOT_REF set (its
 * file was seen since the hand last passed) loses the bit and is passed
 * over; the first entry found without it is the victim.  Two sweeps always
 * find one if any entry other than @keep exists, and the cost is amortised:
 * every bit cleared was set by an event.
 *
 * Return: the victim, still in the index, or PPF_NIL.
 */
u32 ppf_index_clock_victim(struct ppf_file_index *index,
			   struct ppf_node_pool *pool, u32 keep)
{
	u32 steps = 2 * (index->mask + 1);

	while (steps--) {
		u32 idx = index->slots[index->hand];
		struct ppf_node *n;

		index->hand = (index->hand + 1) & index->mask;
		if (idx == PPF_NIL || idx == keep)
			continue;
		n = ppf_node(pool, idx);
		if (n->link & PPF_ROOT_REF) {
			n->link &= ~PPF_ROOT_REF;
			continue;
		}
		return idx;
	}
	return PPF_NIL;
}

#ifdef PPF_MODEL_CHECKS
/**
 * ppf_index_check() - verify the index against its nodes
 * @index: the index
 * @pool: the pool holding the entries' nodes
 * @entries: set to the number of entries found
 *
 * For tests and fuzzing only: walks every slot.
 *
 * Return: NULL if every entry is reachable from its home slot and the
 * count of entries is right, else what is wrong.
 */
const char *ppf_index_check(const struct ppf_file_index *index,
			    const struct ppf_node_pool *pool, u32 *entries)
{
	u32 slot;

	*entries = 0;
	for (slot = 0; slot <= index->mask; slot++) {
		u32 idx = index->slots[slot];

		if (idx == PPF_NIL)
			continue;
		if (idx > pool->capacity ||
		    ppf_index_find(index, pool, pool->nodes[idx].file) != idx)
			return "index entry unreachable from its home slot";
		(*entries)++;
	}
	return *entries == index->used ? NULL : "index entry count out of step";
}
#endif /* PPF_MODEL_CHECKS */
