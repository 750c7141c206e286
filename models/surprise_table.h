/* SPDX-License-Identifier: GPL-2.0 */
/*
 * surprise_table.h - which surprise followed a surprise (EPCM)
 *
 * DOC: Surprises
 *
 * A *surprise* is an event the model's most likely prediction at the
 * event before did not name.  In a stream made of the same prologue
 * repeated before a different file each time (a copy: every cp execs the
 * same program and opens the same libraries, then its source), everything
 * but that file is expected, and the chain from one source stops where it
 * matters: before the next source, which no context short enough for a few
 * occurrences to have grown tells.  The surprises alone are the stream of
 * sources, and there the next one follows the last.
 *
 * The table keeps, for a file that was a surprise, the surprise that
 * followed it in the same context and how many events later.  It is a
 * direct-mapped cache indexed by a hash of the file id: constant time, no
 * allocation, bounded memory; a collision forgets the older entry, which
 * only loses a prediction.  An entry is *confirmed* when the same
 * successor follows twice in a row; only confirmed entries predict, so a
 * stream whose surprises do not repeat adds nothing.
 */
#ifndef PPF_SURPRISE_TABLE_H
#define PPF_SURPRISE_TABLE_H

#include "ppf_platform.h"

/**
 * struct ppf_surprise - what followed one file's surprise
 * @file: the file
 * @next: the surprise that followed it last time
 * @gap: events from @file to @next, at most 65535
 * @state: 0 empty, 1 seen once, 2 confirmed (the same @next twice in a row)
 */
struct ppf_surprise {
	u32 file;
	u32 next;
	u16 gap;
	u8 state;
};

/**
 * struct ppf_surprise_table - the table
 * @slot: its entries, a power of two of them
 * @mask: their number minus one
 */
struct ppf_surprise_table {
	struct ppf_surprise *slot;
	u32 mask;
};

#define PPF_SURPRISE_EMPTY	0
#define PPF_SURPRISE_ONCE	1
#define PPF_SURPRISE_CONFIRMED	2
#define PPF_SURPRISE_GAP_MAX	0xffffu

u64 ppf_surprise_table_bytes(u32 max_nodes);
int ppf_surprise_table_init(struct ppf_surprise_table *t, u32 max_nodes);
void ppf_surprise_table_release(struct ppf_surprise_table *t);

/* The event path's two calls are inline: one of them runs at every event. */
static inline struct ppf_surprise *
ppf_surprise_slot(const struct ppf_surprise_table *t, u32 file)
{
	/* Fibonacci hashing: file ids are dense, neighbours spread. */
	return &t->slot[(file * 0x9e3779b1u >> 8) & t->mask];
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
static inline void ppf_surprise_learn(struct ppf_surprise_table *t, u32 from,
				      u32 to, u32 gap)
{
	struct ppf_surprise *e = ppf_surprise_slot(t, from);
	bool again = e->state != PPF_SURPRISE_EMPTY && e->file == from &&
		     e->next == to;

	e->file = from;
	e->next = to;
	e->gap = gap > PPF_SURPRISE_GAP_MAX ? PPF_SURPRISE_GAP_MAX : gap;
	e->state = again ? PPF_SURPRISE_CONFIRMED : PPF_SURPRISE_ONCE;
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
static inline bool ppf_surprise_next(const struct ppf_surprise_table *t,
				     u32 from, u32 *next, u32 *gap)
{
	const struct ppf_surprise *e = ppf_surprise_slot(t, from);

	if (e->state != PPF_SURPRISE_CONFIRMED || e->file != from)
		return false;
	*next = e->next;
	*gap = e->gap ? e->gap : 1;
	return true;
}

#endif /* PPF_SURPRISE_TABLE_H */
