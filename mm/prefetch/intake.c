// SPDX-License-Identifier: GPL-2.0
/*
 * intake.c - the hooks' entry points: an event recorded, queued, the worker woken
 *
 * DOC: Intake
 *
 * ppf_event_open() and ppf_event_read() run in the task that opened or read
 * a file.  They do the least that must be done there: encode the file
 * handle while the inode is at hand, take a reference on the task's
 * credentials (predictions are acted on for that task only), and queue a
 * record.  A read whose file is already in the file table only widens the
 * file's page range.
 *
 * Waking the worker: an open wakes it at once if it was last woken
 * PPF_WAKE_BATCH_NS ago or more, so the first open of a burst (a program
 * starting) is acted on without delay.  Within that interval, an open
 * waits for its end, and the worker takes every event that came meanwhile
 * in one batch, sparing the switches to and from it that a wake-up at
 * every open costs (under memory pressure, where it was measured, they
 * took several times the CPU of the work itself).  What the bound costs: an
 * open in a burst is seen by the model at most PPF_WAKE_BATCH_NS later, so
 * its predictions lose at most that much of their lead; an EPCM chain
 * names files 16 opens ahead, and the first open of a burst loses nothing.
 * A ring half full wakes the worker at once.  Every experiment's report
 * gives the worker's CPU and instructions per open over its measured runs
 * (python3 -m eval.harness report EXPERIMENT).
 *
 * While memory is too low for any prefetch to start (readahead.c), the
 * worker's only use is to learn, which can wait: the hooks queue events
 * without waking it, and it takes them PPF_LOWMEM_DELAY_MS after the first
 * or when the ring is half full (ppf_queue()).  Woken at every open, it
 * used several times the CPU its work needed, in switches to and from it.
 * What ppf costs a task's reads under that pressure, and the worker's CPU
 * against its work, are measured by test_mempressure.sh (run_tests.py
 * --only mempressure-long, and --only mempressure-reclaim where every read
 * reclaims).
 */
#include <linux/exportfs.h>
#include <linux/hrtimer.h>
#include <linux/jump_label.h>
#include <linux/ktime.h>
#include <linux/sched/clock.h>
#include "ppf.h"

#define PPF_LOWMEM_DELAY_MS	50
/*
 * The worker is woken at most once in this long: an event that comes
 * sooner after the last wake-up waits for the end of the interval, with
 * those that follow it.  See "Waking the worker" above.
 */
#define PPF_WAKE_BATCH_NS	(500 * NSEC_PER_USEC)

/* local_clock() at the last wake-up; the timer that wakes it after that. */
static u64 ppf_woken_ns;
static struct hrtimer ppf_wake_timer;
static bool ppf_wake_stopped;

static void ppf_wake(u64 now)
{
	WRITE_ONCE(ppf_woken_ns, now);
	ppf_worker_wake();
}

static enum hrtimer_restart ppf_wake_timer_fn(struct hrtimer *timer)
{
	ppf_wake(local_clock());
	return HRTIMER_NORESTART;
}

static void ppf_queue(struct ppf_event *ev)
{
	u64 now, since;

	if (!ppf_ring_push(ev)) {
		ppf_event_release(ev);
		ppf_stat_inc(dropped[PPF_DROP_RING_FULL]);
		return;
	}
	/* A ring half full is taken at once, whatever else holds. */
	if (ppf_ring_unfinished() >= PPF_RING_SIZE / 2) {
		ppf_wake(local_clock());
		return;
	}
	/* Does nothing while it is pending: one timer for the whole batch. */
	if (ppf_worker_memory_low()) {
		ppf_worker_wake_late(msecs_to_jiffies(PPF_LOWMEM_DELAY_MS));
		return;
	}
	now = local_clock();
	since = now - READ_ONCE(ppf_woken_ns);
	if (since >= PPF_WAKE_BATCH_NS) {
		ppf_wake(now);
		return;
	}
	/* Racy but harmless: two starts only set the same expiry twice. */
	if (!READ_ONCE(ppf_wake_stopped) && !hrtimer_active(&ppf_wake_timer))
		hrtimer_start(&ppf_wake_timer,
			      ns_to_ktime(PPF_WAKE_BATCH_NS - since),
			      HRTIMER_MODE_REL);
}

/*
 * Encode @inode's handle, with @dir's if set (connectable), into @ev;
 * false if the file system cannot or it does not fit.
 */
static bool ppf_encode_fh(struct ppf_event *ev, struct inode *inode,
			  struct inode *dir)
{
	int len = PPF_FH_WORDS;
	int type = ppf_encode_inode_fh(inode, (struct fid *)ev->fh, &len, dir);

	if (type <= 0 || type == FILEID_INVALID || len > PPF_FH_WORDS)
		return false;
	ev->fh_len = len;
	ev->fh_type = type;
	return true;
}

/*
 * Encode the file's handle into @ev; with its directory's (a connectable
 * handle) and its name when @dentry is set and the handle fits.  Returns
 * false if the file system could not encode even the file's own.
 */
static bool ppf_encode(struct ppf_event *ev, struct inode *inode,
		       struct dentry *dentry)
{
	struct inode *dir;
	bool connectable = false;

	ev->dir_ino = 0;
	if (dentry) {
		rcu_read_lock();	/* d_parent may change; inodes are RCU-freed */
		dir = d_inode_rcu(READ_ONCE(dentry->d_parent));
		connectable = dir && ppf_encode_fh(ev, inode, dir);
		/* One block holds every sibling's entry (ppf_dir_covered()). */
		if (connectable && i_size_read(dir) <= dir->i_sb->s_blocksize)
			ev->dir_ino = dir->i_ino;
		rcu_read_unlock();
	}
	if (!connectable && !ppf_encode_fh(ev, inode, NULL))
		return false;
	ev->name = connectable ? ppf_name_of(dentry) : NULL;
	return true;
}

static void __ppf_event_open(struct ppf_sb *s, struct dentry *dentry,
			     bool exec)
{
	struct inode *inode = d_inode(dentry);
	struct inode *dir;
	struct ppf_event ev;
	bool known;

	if (!READ_ONCE(ppf_config.enabled)) {
		ppf_stat_inc(dropped[PPF_DROP_DISABLED]);
		return;
	}
	/* A paused device's opens are learnt, not acted on (payoff.c). */
	ev.learn_only = ppf_payoff_paused(inode->i_sb);
	if (ev.learn_only)
		ppf_stat_inc(dropped[PPF_DROP_PAUSED]);
	if (exec)
		ppf_stat_inc(events_exec);
	else
		ppf_stat_inc(events_open);
	if (ppf_born_recently(s, inode->i_ino)) {
		/* The metadata this open read is its own: not the next one's. */
		ppf_meta_take(inode->i_sb->s_bdev, ev.meta);
		ppf_stat_inc(dropped[PPF_DROP_CREATED]);
		return;
	}
	rcu_read_lock();
	known = ppf_files_note_open(s, inode);
	/* The directory its entry is in (sweep.c); d_parent may change. */
	dir = d_inode_rcu(READ_ONCE(dentry->d_parent));
	ev.parent_ino = dir ? dir->i_ino : 0;
	rcu_read_unlock();
	/* The name is taken at the open that makes the file's entry (metadata.c). */
	if (known || !READ_ONCE(ppf_config.metadata))
		dentry = NULL;
	/* In a flood, drop before the work of encoding what would be dropped. */
	if (ppf_ring_full()) {
		ppf_stat_inc(dropped[PPF_DROP_RING_FULL]);
		return;
	}
	if (!ppf_encode(&ev, inode, dentry)) {
		ppf_stat_inc(dropped[PPF_DROP_NO_HANDLE]);
		return;
	}
	ev.nr_meta = ppf_meta_take(inode->i_sb->s_bdev, ev.meta);
	ev.kind = exec ? PPF_EV_EXEC : PPF_EV_OPEN;
	ev.ino = inode->i_ino;
	ev.gen = inode->i_generation;
	ev.first = 0;
	ev.last = 0;
	ev.pages = DIV_ROUND_UP(i_size_read(inode), PAGE_SIZE);
	ppf_sb_get(s);
	ev.sb = s;
	ev.cred = get_current_cred();
	ppf_event_context(&ev);
	ppf_event_domain(&ev);
	ppf_queue(&ev);
}

/*
 * A read of a file not in the table yet, queued behind its open, which may
 * still be in the ring, unless the file was created a moment ago.  Apart
 * so that the event is on no other path's stack: a kernel built with
 * CONFIG_INIT_STACK_ALL_ZERO (Debian's) clears every local at function
 * entry, and the event's 184 bytes were 23 stores on each of the tasks'
 * page-cache accesses (docs/results.md, "configure on ssd").
 */
static noinline void ppf_event_read_unknown(struct ppf_sb *s,
					    struct inode *inode,
					    pgoff_t first, pgoff_t last,
					    enum ppf_read_kind kind)
{
	struct ppf_event ev;

	if (ppf_born_recently(s, inode->i_ino))
		return;
	memset(&ev, 0, sizeof(ev));
	ev.kind = PPF_EV_READ;
	ev.ino = inode->i_ino;
	ev.gen = inode->i_generation;
	ev.first = first;
	ev.last = last;
	ev.read_kind = kind;
	ppf_sb_get(s);
	ev.sb = s;
	ppf_queue(&ev);
}

/* Inline in both forms of ppf_event_read(): it runs at every access. */
static __always_inline void __ppf_event_read(struct ppf_sb *s,
					     struct inode *inode,
					     pgoff_t first, pgoff_t last,
					     enum ppf_read_kind kind)
{
	/* A paused device's reads too: its files' uses stay current. */
	if (!READ_ONCE(ppf_config.enabled))
		return;
	ppf_stat_inc(events_read);
	if (unlikely(!ppf_files_note_read(s, inode, first, last, kind)))
		ppf_event_read_unknown(s, inode, first, last, kind);
}

/*
 * With the measure_hooks module parameter the hooks time themselves (a
 * static key: no cost at all otherwise), so their cost can be read from
 * /proc/predictive_prefetch apart from the worker's.
 */
DEFINE_STATIC_KEY_FALSE(ppf_measure_hooks);

/**
 * ppf_event_open() - a file on a watched file system was opened or executed
 * @s: the file system
 * @dentry: the file, a regular file, as it was opened (with a reference)
 * @exec: opened for execution
 *
 * Called by the hooks in the opening task's context; never sleeps.
 */
void ppf_event_open(struct ppf_sb *s, struct dentry *dentry, bool exec)
{
	u64 start;

	if (!static_branch_unlikely(&ppf_measure_hooks)) {
		__ppf_event_open(s, dentry, exec);
		return;
	}
	start = local_clock();
	__ppf_event_open(s, dentry, exec);
	ppf_stat_add(hook_open_ns, local_clock() - start);
}

/* ppf_event_read() timing itself, out of the untimed form's way. */
static noinline void ppf_event_read_timed(struct ppf_sb *s,
					  struct inode *inode, pgoff_t first,
					  pgoff_t last, enum ppf_read_kind kind)
{
	u64 start = local_clock();

	__ppf_event_read(s, inode, first, last, kind);
	ppf_stat_add(hook_read_ns, local_clock() - start);
}

/**
 * ppf_event_read() - pages of a file on a watched file system were read
 * @s: the file system
 * @inode: the file
 * @first: first page
 * @last: last page
 * @kind: how the task used them
 *
 * Called by the read hook under rcu_read_lock() in the reading task's
 * context; never sleeps.
 */
void ppf_event_read(struct ppf_sb *s, struct inode *inode, pgoff_t first,
		    pgoff_t last, enum ppf_read_kind kind)
{
	if (static_branch_unlikely(&ppf_measure_hooks))
		ppf_event_read_timed(s, inode, first, last, kind);
	else
		__ppf_event_read(s, inode, first, last, kind);
}

/**
 * ppf_event_create() - a regular file was created on a watched file system
 * @s: the file system
 * @inode: the new file
 *
 * Called by the hooks in the creating task's context; never sleeps.  Its
 * opens in the next moments are not learnt (DOC: Files created a moment
 * ago).
 */
void ppf_event_create(struct ppf_sb *s, struct inode *inode)
{
	if (READ_ONCE(ppf_config.enabled))
		ppf_born_note(s, inode->i_ino);
}

/**
 * ppf_intake_init() - set up the timer that wakes the worker for a batch
 *
 * Before the hooks can deliver an event.
 */
void ppf_intake_init(void)
{
	hrtimer_init(&ppf_wake_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	ppf_wake_timer.function = ppf_wake_timer_fn;
	WRITE_ONCE(ppf_wake_stopped, false);
}

/**
 * ppf_intake_stop() - wake the worker no more
 *
 * Once the hooks can deliver no more events: no timer runs once this
 * returns, and none is started.
 */
void ppf_intake_stop(void)
{
	WRITE_ONCE(ppf_wake_stopped, true);
	hrtimer_cancel(&ppf_wake_timer);
}
