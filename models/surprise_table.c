// SPDX-License-Identifier: GPL-2.0
/*
 * surprise_table.c - which surprise followed a surprise (see surprise_table.h)
 */
#include "surprise_table.h"

#define PPF_SURPRISE_EMPTY	0
#define PPF_SURPRISE_ONCE	1
#define PPF_SURPRISE_CONFIRMED	2
#define PPF_SURPRISE_GAP_MAX	0xffffu

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

static struct ppf_surprise *ppf_surprise_slot(const struct ppf_surprise_table *t,
					      u32 file)
{
	/* Fibonacci hashing: file ids are dense, neighbours spread. */
	return &t->slot[(file * 0x9e3779b1u >> 8) & t->mask];
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

/**
 * ppf_surprise_learn() - @to was the surprise after @from's, @gap events on
 * @t: the table
 * @from: the earlier surprise's file
 * @to: the later's
 * @gap: events between them
 *
 * The same successor twice in a row confirms the entry; another one
 * replaces it, unconfirmed, as does another file's entry in the slot.
 */
void ppf_surprise_learn(struct ppf_surprise_table *t, u32 from, u32 to,
			u32 gap)
{
	struct ppf_surprise *e = ppf_surprise_slot(t, from);

	if (gap > PPF_SURPRISE_GAP_MAX)
		gap = PPF_SURPRISE_GAP_MAX;
	if (e->state != PPF_SURPRISE_EMPTY && e->file == from && e->next == to) {
		e->state = PPF_SURPRISE_CONFIRMED;
		e->gap = gap;
		return;
	}
	e->file = from;
	e->next = to;
	e->gap = gap;
	e->state = PPF_SURPRISE_ONCE;
}

/**
 * ppf_surprise_next() - the confirmed surprise that follows @from's
 * @t: the table
 * @from: a file
 * @next: set to the file that followed @from's surprise twice in a row
 * @gap: set to the events between them last time (at least 1)
 *
 * Return: true if @from has a confirmed successor.
 */
bool ppf_surprise_next(const struct ppf_surprise_table *t, u32 from,
		       u32 *next, u32 *gap)
{
	const struct ppf_surprise *e = ppf_surprise_slot(t, from);

	if (e->state != PPF_SURPRISE_CONFIRMED || e->file != from)
		return false;
	*next = e->next;
	*gap = e->gap ? e->gap : 1;
	return true;
}
