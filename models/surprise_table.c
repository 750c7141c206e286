// SPDX-License-Identifier: GPL-2.0
/*
 * surprise_table.c - which surprise followed a surprise (see surprise_table.h)
 */
#include "surprise_table.h"

/*
 * Entries for a node budget: one for every 16 nodes, a power of two, at
 * least 64.  A file needs a partition of at least one node and most hold
 * several, so this is room for a large share of the files the trie knows
 * at once; only those that were surprises take an entry.
 */
static u32 ppf_surprise_entries(u32 max_nodes)
{
	u32 want = max_nodes / 16, n = 64;

	while (n < want)
		n <<= 1;
	return n;
}

/**
 * ppf_surprise_table_bytes() - memory of the table for a node budget
 * @max_nodes: the model's node budget
 *
 * Return: bytes; grows with @max_nodes, as a memory budget's search needs.
 */
u64 ppf_surprise_table_bytes(u32 max_nodes)
{
	return (u64)ppf_surprise_entries(max_nodes) * sizeof(struct ppf_surprise);
}

/**
 * ppf_surprise_table_init() - allocate an empty table
 * @t: the table
 * @max_nodes: the model's node budget, which sizes it
 *
 * Create-time only: may sleep.
 *
 * Return: 0 or -ENOMEM.
 */
int ppf_surprise_table_init(struct ppf_surprise_table *t, u32 max_nodes)
{
	u32 n = ppf_surprise_entries(max_nodes);

	t->slot = ppf_zalloc((size_t)n * sizeof(*t->slot));
	if (!t->slot)
		return -ENOMEM;
	t->mask = n - 1;
	return 0;
}

/**
 * ppf_surprise_table_release() - free the table's memory
 * @t: the table (may never have been initialised, if zeroed)
 */
void ppf_surprise_table_release(struct ppf_surprise_table *t)
{
	ppf_free(t->slot);
	t->slot = NULL;
}
