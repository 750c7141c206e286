/* SPDX-License-Identifier: GPL-2.0 */
/*
 * context_table.h - which of a model's context slots holds a caller's context
 *
 * A caller names the stream an event belongs to with an opaque 32-bit
 * context id (the kernel uses a task's pid).  A model keeps its current
 * contexts (PCM's and EPCM's walks, last successor's previous file) in a
 * fixed number of slots, allocated when it is created; this table maps ids
 * to slots.  When every slot is live, the least recently used context is
 * forgotten to make room: the ids a caller passes need never be released,
 * and a context that comes back after being forgotten simply starts again.
 *
 * Each context also remembers the context of the most recent event whose
 * parent it is (its latest child), so that a new context can start where
 * its family's stream is now: a shell that runs cat a, then cat b, never
 * opens a file itself, and cat b must continue where cat a ended.
 *
 * Lookups are an open-addressing hash with linear probing and deletion by
 * backward shift, fronted by the last id seen (events come in runs from one
 * task).  Nothing here allocates after ppf_ctx_table_init().
 */
#ifndef PPF_CONTEXT_TABLE_H
#define PPF_CONTEXT_TABLE_H

#include "ppf_platform.h"

#define PPF_CTX_NONE	0xffffffffu	/* no slot */

/**
 * struct ppf_ctx_table - context ids to slots
 * @id: the id each slot holds
 * @used: when each slot was last used (the table's event clock), by its
 *	own event or a child's, 0 if free (the least recent is reclaimed)
 * @own: when each slot last had an event of its own, 0 if never (a parent
 *	known only from its children)
 * @born: when each slot's context was made live
 * @bucket: hash buckets, each a slot number or PPF_CTX_NONE
 * @mask: number of buckets - 1 (a power of two, at least twice the slots)
 * @slots: number of slots
 * @live: slots in use
 * @clock: events seen, the clock @used is read on
 * @last_id: id of the last lookup, valid while @last_slot is not
 *	PPF_CTX_NONE
 * @last_slot: its slot
 * @last_parent: the parent id the last event named
 * @last_pslot: that parent's slot, or PPF_CTX_NONE
 * @child: for each slot, the slot of its latest child, or PPF_CTX_NONE
 * @child_id: for each slot, that child's id (the slot may be reused since)
 * @made: contexts made live, ever
 * @reclaimed: contexts forgotten to make room
 */
struct ppf_ctx_table {
	u32 *id;
	u64 *used;
	u64 *own;
	u64 *born;
	u32 *bucket;
	u32 mask;
	u32 slots;
	u32 live;
	u64 clock;
	u32 last_id;
	u32 last_slot;
	u32 last_parent;
	u32 last_pslot;
	u32 *child;
	u32 *child_id;
	u64 made;
	u64 reclaimed;
};

int ppf_ctx_table_init(struct ppf_ctx_table *t, u32 slots);
void ppf_ctx_table_release(struct ppf_ctx_table *t);
u64 ppf_ctx_table_bytes(u32 slots);
u32 ppf_ctx_table_get(struct ppf_ctx_table *t, u32 id, bool *fresh);
u32 ppf_ctx_table_anchor(struct ppf_ctx_table *t, u32 id, bool *fresh);
void ppf_ctx_table_stamp(struct ppf_ctx_table *t, u32 slot, u32 parent,
			 u32 pslot);
void ppf_ctx_table_clear(struct ppf_ctx_table *t);
u32 ppf_ctx_table_latest(const struct ppf_ctx_table *t, u32 slot, u32 self);
#ifdef PPF_MODEL_CHECKS
const char *ppf_ctx_table_check(const struct ppf_ctx_table *t);
#endif

/* How many contexts may have had walks at once: at most the slots. */
static inline u32 ppf_ctx_table_streams(const struct ppf_ctx_table *t)
{
	return t->made < t->slots ? (t->made ? t->made : 1) : t->slots;
}

static inline bool ppf_ctx_table_live(const struct ppf_ctx_table *t, u32 slot)
{
	return t->used[slot] != 0;
}

/**
 * ppf_ctx_table_again() - the slot of a context whose last event was the last
 * @t: the table
 * @id: the context id
 * @parent: the parent id the event names
 *
 * Events come in runs from one task.  If the table's last event was @id's
 * own, with the same parent, nothing can have changed since: no context was
 * made or forgotten, no child ran, so the context continues from its own
 * place (ppf_ctx_table_latest() would return it).  Counts the event, as
 * ppf_ctx_table_get() and ppf_ctx_table_stamp() would, in a few loads:
 * inline, as every event of a run takes it.
 *
 * Return: the slot, or PPF_CTX_NONE if the event must take the long way.
 */
static inline u32 ppf_ctx_table_again(struct ppf_ctx_table *t, u32 id,
				      u32 parent)
{
	u32 slot = t->last_slot;

	if (slot == PPF_CTX_NONE || t->last_id != id ||
	    t->last_parent != parent || t->own[slot] != t->clock)
		return PPF_CTX_NONE;
	t->clock++;
	t->used[slot] = t->clock;
	t->own[slot] = t->clock;
	if (t->last_pslot != PPF_CTX_NONE)
		t->used[t->last_pslot] = t->clock;
	return slot;
}

#endif /* PPF_CONTEXT_TABLE_H */
