// SPDX-License-Identifier: GPL-2.0
/*
 * history.c - the recent opens, kept so that what was learnt can be saved
 *
 * DOC: History
 *
 * The worker appends every open and exec it feeds a model to a ring of the
 * last save_events opens (file id, context, parent context, domain).  A
 * saved state is this ring and the files it names (state.c); loading it
 * replays the opens into empty models.  Keeping the opens rather than
 * serialising a model's trie makes the saved format independent of the
 * model's kind, shape and inside, which stay the models' own business, and
 * leaves a loader nothing to trust but indices.  The price is memory
 * (PPF_HISTORY_REC_BYTES an open: 1.5 MiB at the default 65,536) and that
 * a model rebuilt from the last save_events opens has forgotten what came
 * before them, as a model of a bounded node budget does anyway.
 *
 * The ring changes only under ppf_worker_mutex; its memory is replaced
 * under that lock too, allocated before taking it.
 */
#include <linux/vmalloc.h>
#include "ppf.h"

static struct ppf_history_rec *ppf_hist;
static u32 ppf_hist_size;
static u32 ppf_hist_head;	/* the next slot written */
static u32 ppf_hist_count;

/**
 * ppf_history_add() - note an open the model learnt from
 * @rec: the open
 *
 * The caller holds ppf_worker_mutex.
 */
void ppf_history_add(const struct ppf_history_rec *rec)
{
	lockdep_assert_held(&ppf_worker_mutex);
	if (!ppf_hist_size)
		return;
	ppf_hist[ppf_hist_head] = *rec;
	ppf_hist_head = ppf_hist_head + 1 == ppf_hist_size ? 0 : ppf_hist_head + 1;
	if (ppf_hist_count < ppf_hist_size)
		ppf_hist_count++;
}

/**
 * ppf_history_count() - opens held
 *
 * Return: the count, at most the ring's size.
 */
u32 ppf_history_count(void)
{
	return READ_ONCE(ppf_hist_count);
}

/**
 * ppf_history_size() - the most opens held (save_events)
 *
 * Return: the ring's size.
 */
u32 ppf_history_size(void)
{
	return READ_ONCE(ppf_hist_size);
}

/**
 * ppf_history_get() - one held open, oldest first
 * @i: which, below ppf_history_count()
 *
 * The caller holds ppf_worker_mutex.
 *
 * Return: the open.
 */
const struct ppf_history_rec *ppf_history_get(u32 i)
{
	u32 slot;

	lockdep_assert_held(&ppf_worker_mutex);
	slot = ppf_hist_head + ppf_hist_size - ppf_hist_count + i;
	if (slot >= ppf_hist_size)
		slot -= ppf_hist_size;
	return &ppf_hist[slot];
}

/**
 * ppf_history_clear() - forget every open held
 *
 * The caller holds ppf_worker_mutex.
 */
void ppf_history_clear(void)
{
	lockdep_assert_held(&ppf_worker_mutex);
	ppf_hist_head = 0;
	WRITE_ONCE(ppf_hist_count, 0);
}

/**
 * ppf_history_resize() - hold at most @size opens from now on
 * @size: the ring's new size; 0 keeps none (nothing can be saved)
 *
 * The newest opens held stay, as many as fit.  May sleep.
 *
 * Return: 0, or -ENOMEM (the old ring stays).
 */
int ppf_history_resize(u32 size)
{
	struct ppf_history_rec *new = NULL, *old;
	u32 i, keep;

	if (size) {
		new = vmalloc(array_size(size, sizeof(*new)));
		if (!new)
			return -ENOMEM;
	}
	mutex_lock(&ppf_worker_mutex);
	keep = min(ppf_hist_count, size);
	for (i = 0; i < keep; i++)
		new[i] = *ppf_history_get(ppf_hist_count - keep + i);
	old = ppf_hist;
	ppf_hist = new;
	WRITE_ONCE(ppf_hist_size, size);
	ppf_hist_head = keep == size ? 0 : keep;
	WRITE_ONCE(ppf_hist_count, keep);
	mutex_unlock(&ppf_worker_mutex);
	vfree(old);
	return 0;
}

/**
 * ppf_history_exit() - free the ring (module unload)
 */
void ppf_history_exit(void)
{
	mutex_lock(&ppf_worker_mutex);
	vfree(ppf_hist);
	ppf_hist = NULL;
	ppf_hist_size = 0;
	ppf_history_clear();
	mutex_unlock(&ppf_worker_mutex);
}
