// SPDX-License-Identifier: GPL-2.0
/*
 * event_ring.c - events on their way from the hooks to the worker
 *
 * A fixed ring of event records under one spinlock, held only to copy a
 * record in or a batch out.  One lock rather than per-CPU rings because the
 * model needs the events in the order they happened across all CPUs, and a
 * copy of under a hundred bytes is short enough not to contend.  When the
 * worker falls behind the ring fills and new events are dropped (and
 * counted): the hooks never wait.
 */
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
#include "ppf.h"

static struct ppf_event *ppf_ring;
static unsigned int ppf_ring_size;	/* a power of two */
static unsigned int ppf_ring_head;	/* next to pop */
static unsigned int ppf_ring_tail;	/* next to push */
static DEFINE_SPINLOCK(ppf_ring_lock);
/* Pushed and not yet acted on: in the ring or in the worker's hands. */
static atomic_t ppf_ring_pending = ATOMIC_INIT(0);

/**
 * ppf_ring_init() - allocate the ring
 * @size: records it holds, a power of two
 *
 * Return: 0 or -ENOMEM.
 */
int ppf_ring_init(unsigned int size)
{
	ppf_ring = vcalloc(size, sizeof(*ppf_ring));
	if (!ppf_ring)
		return -ENOMEM;
	ppf_ring_size = size;
	return 0;
}

/**
 * ppf_event_release() - drop the references an event record holds
 * @ev: the record
 */
void ppf_event_release(struct ppf_event *ev)
{
	if (ev->cred)
		put_cred(ev->cred);
	kfree(ev->name);
	ppf_sb_put(ev->sb);
}

/**
 * ppf_ring_exit() - release what is left in the ring and free it
 *
 * Called when no hook can push and the worker has stopped.
 */
void ppf_ring_exit(void)
{
	struct ppf_event ev;

	while (ppf_ring_pop(&ev, 1)) {
		ppf_event_release(&ev);
		ppf_ring_done(1);
	}
	vfree(ppf_ring);
	ppf_ring = NULL;
}

/**
 * ppf_ring_push() - queue an event for the worker
 * @ev: the record; on success the ring owns its references
 *
 * Never sleeps.
 *
 * Return: false if the ring is full (the caller keeps the references).
 */
bool ppf_ring_push(const struct ppf_event *ev)
{
	bool ok = false;

	spin_lock(&ppf_ring_lock);
	if (ppf_ring_tail - ppf_ring_head < ppf_ring_size) {
		ppf_ring[ppf_ring_tail & (ppf_ring_size - 1)] = *ev;
		WRITE_ONCE(ppf_ring_tail, ppf_ring_tail + 1);
		atomic_inc(&ppf_ring_pending);
		ok = true;
	}
	spin_unlock(&ppf_ring_lock);
	return ok;
}

/**
 * ppf_ring_full() - does the ring look full, without taking its lock?
 *
 * The hooks' early way out in a flood: an event that would be dropped is
 * not encoded first (its handle, name and credentials).  ppf_ring_push()
 * still decides under the lock.
 *
 * Return: true if the ring looked full.
 */
bool ppf_ring_full(void)
{
	return READ_ONCE(ppf_ring_tail) - READ_ONCE(ppf_ring_head) >=
	       ppf_ring_size;
}

/**
 * ppf_ring_unfinished() - events queued or being acted on
 *
 * Lets an operator (and the tests) see that the worker has caught up.
 *
 * Return: the count, a snapshot.
 */
unsigned int ppf_ring_unfinished(void)
{
	return atomic_read(&ppf_ring_pending);
}

/**
 * ppf_ring_done() - the worker has finished with popped events
 * @n: how many
 */
void ppf_ring_done(unsigned int n)
{
	atomic_sub(n, &ppf_ring_pending);
}

/**
 * ppf_ring_pop() - take the oldest events
 * @out: where to copy them; the caller owns their references
 * @max: room in @out
 *
 * Return: how many were taken.
 */
unsigned int ppf_ring_pop(struct ppf_event *out, unsigned int max)
{
	unsigned int n = 0;

	spin_lock(&ppf_ring_lock);
	while (n < max && ppf_ring_head != ppf_ring_tail) {
		out[n++] = ppf_ring[ppf_ring_head & (ppf_ring_size - 1)];
		WRITE_ONCE(ppf_ring_head, ppf_ring_head + 1);
	}
	spin_unlock(&ppf_ring_lock);
	return n;
}
