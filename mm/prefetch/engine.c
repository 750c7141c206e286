// SPDX-License-Identifier: GPL-2.0
/*
 * engine.c - from events to predictions: the hooks' entry points and the worker
 *
 * DOC: Engine
 *
 * ppf_event_open() and ppf_event_read() run in the task that opened or read
 * a file.  They do the least that must be done there: encode the file
 * handle while the inode is at hand, take a reference on the task's
 * credentials (predictions are acted on for that task only), and queue a
 * record.  A read whose file is already in the file table only widens the
 * file's page range.
 *
 * One worker, a kernel thread of its own (a kthread_worker), drains the
 * queue in order.  For each open or exec it finds the file's entry, feeds
 * the model, and acts on each prediction (readahead.c).  The model and the
 * file table are changed only under ppf_worker_mutex, which the worker holds
 * per batch of events and sysctl holds to swap in a rebuilt model, so a model
 * can be replaced while events keep arriving: they wait in the queue.
 *
 * The thread is ppf's own, not a shared kworker, because readahead's I/O
 * takes the I/O priority of the thread that submits it (bio_set_ioprio()
 * -> get_current_ioprio()): the worker runs in the I/O class set with the
 * io_class sysctl, by default idle, so that the elevator (mq-deadline, BFQ)
 * serves every task's own reads before a prefetch (ppf_engine_set_io_class()).
 * Each batch of events is one plug: the readahead of the files predicted
 * together reaches the elevator together, where it is sorted and merged by
 * position instead of going to the disk one file at a time.
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
#include <linux/blkdev.h>
#include <linux/exportfs.h>
#include <linux/hrtimer.h>
#include <linux/ioprio.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <uapi/linux/sched/types.h>
#include <linux/slab.h>
#include "ppf.h"
#include "ppf_trace.h"

#define PPF_RING_SIZE	1024
#define PPF_BATCH	32
#define PPF_LOWMEM_DELAY_MS	50
/*
 * The worker is woken at most once in this long: an event that comes
 * sooner after the last wake-up waits for the end of the interval, with
 * those that follow it.  See "Waking the worker" above.
 */
#define PPF_WAKE_BATCH_NS	(500 * NSEC_PER_USEC)

static struct ppf_domains *ppf_domains;	/* the models; under ppf_worker_mutex */
static u64 ppf_seq;	/* opens and execs fed to the model; same lock */
static struct kthread_worker *ppf_worker;
static struct ppf_event ppf_batch[PPF_BATCH];	/* the worker's only */
static struct ppf_prediction ppf_predictions[PPF_MAX_PREDICTIONS];
static void ppf_work_fn(struct kthread_work *work);
static DEFINE_KTHREAD_WORK(ppf_work, ppf_work_fn);
static DEFINE_KTHREAD_DELAYED_WORK(ppf_lowmem_work, ppf_work_fn);
static void ppf_pace_fn(struct kthread_work *work);
static DEFINE_KTHREAD_WORK(ppf_pace_work, ppf_pace_fn);
/* Set by the worker after each batch: memory was too low to prefetch. */
static bool ppf_memory_low;
/* local_clock() at the last wake-up; the timer that wakes it after that. */
static u64 ppf_woken_ns;
static struct hrtimer ppf_wake_timer;
static bool ppf_wake_stopped;

static void ppf_wake(u64 now)
{
	WRITE_ONCE(ppf_woken_ns, now);
	kthread_queue_work(ppf_worker, &ppf_work);
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
	if (READ_ONCE(ppf_memory_low)) {
		kthread_queue_delayed_work(ppf_worker, &ppf_lowmem_work,
					   msecs_to_jiffies(PPF_LOWMEM_DELAY_MS));
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

	if (dentry) {
		rcu_read_lock();	/* d_parent may change; inodes are RCU-freed */
		dir = d_inode_rcu(READ_ONCE(dentry->d_parent));
		connectable = dir && ppf_encode_fh(ev, inode, dir);
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
	struct ppf_event ev;
	bool known;

	if (!READ_ONCE(ppf_config.enabled)) {
		ppf_stat_inc(dropped[PPF_DROP_DISABLED]);
		return;
	}
	if (ppf_payoff_paused(inode->i_sb)) {
		ppf_stat_inc(dropped[PPF_DROP_PAUSED]);
		return;
	}
	if (exec)
		ppf_stat_inc(events_exec);
	else
		ppf_stat_inc(events_open);
	rcu_read_lock();
	known = ppf_files_note_open(s, inode);
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
	ev.kind = exec ? PPF_EV_EXEC : PPF_EV_OPEN;
	ev.ino = inode->i_ino;
	ev.gen = inode->i_generation;
	ev.first = 0;
	ev.last = 0;
	ppf_sb_get(s);
	ev.sb = s;
	ev.cred = get_current_cred();
	ppf_event_context(&ev);
	ppf_event_domain(&ev);
	ppf_queue(&ev);
}

static void __ppf_event_read(struct ppf_sb *s, struct inode *inode,
			     pgoff_t first, pgoff_t last)
{
	struct ppf_event ev;

	if (!READ_ONCE(ppf_config.enabled) || ppf_payoff_paused(inode->i_sb))
		return;
	ppf_stat_inc(events_read);
	if (ppf_files_note_read(s, inode, first, last))
		return;
	/* Not in the table yet: its open may still be queued. */
	memset(&ev, 0, sizeof(ev));
	ev.kind = PPF_EV_READ;
	ev.ino = inode->i_ino;
	ev.gen = inode->i_generation;
	ev.first = first;
	ev.last = last;
	ppf_sb_get(s);
	ev.sb = s;
	ppf_queue(&ev);
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

/**
 * ppf_event_read() - pages of a file on a watched file system were read
 * @s: the file system
 * @inode: the file
 * @first: first page
 * @last: last page
 *
 * Called by the read hook under rcu_read_lock() in the reading task's
 * context; never sleeps.
 */
void ppf_event_read(struct ppf_sb *s, struct inode *inode, pgoff_t first,
		    pgoff_t last)
{
	u64 start;

	if (!static_branch_unlikely(&ppf_measure_hooks)) {
		__ppf_event_read(s, inode, first, last);
		return;
	}
	start = local_clock();
	__ppf_event_read(s, inode, first, last);
	ppf_stat_add(hook_read_ns, local_clock() - start);
}

static void ppf_engine_open(struct ppf_event *ev)
{
	u64 start = ktime_get_ns();
	struct ppf_file *f = ppf_file_remember(ev);
	struct ppf_model *model;
	unsigned int i, n;
	u64 model_start;
	u32 id;

	if (!f) {
		ppf_stat_inc(dropped[PPF_DROP_NO_MEMORY]);
		return;
	}
	ppf_prefetch_opened(f);
	ppf_plan_opened(f);
	id = f->id;
	trace_ppf_event(ppf_sb_dev(f->sb), f->ino, id, ev->kind == PPF_EV_EXEC);
	ppf_seq++;
	model_start = ktime_get_ns();
	model = ppf_domain_model(ppf_domains, ev->domain);
	if (!model) {
		ppf_stat_inc(dropped[PPF_DROP_NO_MEMORY]);
		return;
	}
	n = ppf_model_event(model, ev->ctx, ev->parent, id,
			    ppf_predictions, ppf_lookahead(ppf_seq));
	ppf_history_add(&(struct ppf_history_rec){
		.file = id, .ctx = ev->ctx, .parent = ev->parent,
		.domain = ev->domain });
	ppf_stat_add(worker_model_ns, ktime_get_ns() - model_start);
	ppf_stat_add(predictions, n);
	for (i = 0; i < n; i++) {
		const struct ppf_prediction *p = &ppf_predictions[i];

		trace_ppf_prediction(id, p->file, p->likelihood, p->lead);
		ppf_plan(p->file, ev->cred, ppf_seq, p->lead, i >= PPF_SHALLOW);
		ppf_forget_gone();
	}
	ppf_lookahead_event();
	ppf_prefetch_reap(ppf_seq);
	ppf_payoff_charge(ev->sb, ktime_get_ns() - start, n);
}

static void ppf_engine_read(const struct ppf_event *ev)
{
	struct ppf_file *f = ppf_files_lookup(ev->sb, ev->ino);

	if (f && f->gen == ev->gen)
		ppf_file_apply_read(f, ev->first, ev->last);
}

/*
 * Submit what the plug holds: the I/O of the readahead started since it
 * began, counted with the readahead calls (worker_readahead_ns).
 */
static void ppf_finish_plug(struct blk_plug *plug)
{
	u64 start = local_clock();

	blk_finish_plug(plug);
	ppf_stat_add(worker_readahead_ns, local_clock() - start);
}

static void ppf_work_fn(struct kthread_work *work)
{
	struct blk_plug plug;
	bool late = work == &ppf_lowmem_work.work;
	unsigned int i, n;
	u64 delay;

	while ((n = ppf_ring_pop(ppf_batch, PPF_BATCH))) {
		u64 start = ktime_get_ns();

		if (late) {	/* counted if it found events */
			ppf_stat_inc(lowmem_batches);
			late = false;
		}

		mutex_lock(&ppf_worker_mutex);
		blk_start_plug(&plug);
		for (i = 0; i < n; i++) {
			if (ppf_batch[i].kind == PPF_EV_READ)
				ppf_engine_read(&ppf_batch[i]);
			else
				ppf_engine_open(&ppf_batch[i]);
		}
		delay = ppf_pace(ppf_seq);
		ppf_forget_gone();
		if (delay)
			ppf_pace_later(delay);
		ppf_finish_plug(&plug);
		mutex_unlock(&ppf_worker_mutex);
		WRITE_ONCE(ppf_memory_low, ppf_prefetch_memory_low());
		for (i = 0; i < n; i++)
			ppf_event_release(&ppf_batch[i]);
		ppf_ring_done(n);
		ppf_stat_add(worker_ns, ktime_get_ns() - start);
		cond_resched();
	}
}

/* The pacing timer's work: start what there is room for now (pacing.c). */
static void ppf_pace_fn(struct kthread_work *work)
{
	struct blk_plug plug;
	u64 start = ktime_get_ns();
	u64 delay, spent;

	mutex_lock(&ppf_worker_mutex);
	blk_start_plug(&plug);
	delay = ppf_pace(ppf_seq);
	ppf_forget_gone();
	if (delay)
		ppf_pace_later(delay);
	ppf_finish_plug(&plug);
	mutex_unlock(&ppf_worker_mutex);
	spent = ktime_get_ns() - start;
	ppf_stat_add(worker_ns, spent);
	ppf_stat_add(pace_timer_ns, spent);
	ppf_stat_inc(pace_timer_runs);
}

/**
 * ppf_engine_rebuild() - replace the models with empty ones of a new shape
 * @params: valid parameters
 * @memory_kb: the memory budget of all the models together
 * @isolation: a PPF_ISOLATION_* mode (domain.c)
 * @max_domains: most domains with a model at once under isolation
 *
 * Allocates the new set before taking ppf_worker_mutex, so the worker
 * waits only for the swap.  The file table is kept.
 *
 * Return: 0, or a negative errno (the old models stay).
 */
int ppf_engine_rebuild(const struct ppf_model_params *params,
		       unsigned int memory_kb, unsigned int isolation,
		       unsigned int max_domains)
{
	struct ppf_domains *d, *old;
	int err;

	d = ppf_domains_create(params, memory_kb, isolation, max_domains, &err);
	if (!d)
		return err;
	mutex_lock(&ppf_worker_mutex);
	old = ppf_domains;
	ppf_domains = d;
	mutex_unlock(&ppf_worker_mutex);
	ppf_domains_destroy(old);
	return 0;
}

/* A set of empty models as configured now. */
static struct ppf_domains *ppf_domains_configured(int *err)
{
	return ppf_domains_create(&ppf_config.model, ppf_config.memory_kb,
				  ppf_config.isolation, ppf_config.max_domains,
				  err);
}

/*
 * Forget the files, the plan, the prefetches and the opens held; @deep:
 * what the lookahead starts with (ppf_lookahead_reset()).
 */
static void ppf_forget_all(bool deep)
{
	lockdep_assert_held(&ppf_worker_mutex);
	ppf_plan_forget_all();
	ppf_forget_over(0);
	ppf_prefetch_forget_all();
	ppf_history_clear();
	ppf_seq = 0;
	ppf_lookahead_reset(deep);
	ppf_payoff_reset();
}

/**
 * ppf_engine_reset() - forget everything learnt: model and file table
 */
void ppf_engine_reset(void)
{
	struct ppf_domains *d, *old = NULL;
	int err;

	d = ppf_domains_configured(&err);
	mutex_lock(&ppf_worker_mutex);
	if (d) {
		old = ppf_domains;
		ppf_domains = d;
	}
	ppf_forget_all(false);
	mutex_unlock(&ppf_worker_mutex);
	ppf_domains_destroy(old);
}

/**
 * ppf_engine_restore() - replace what was learnt with a saved state
 * @files: the saved files, those not found again with @found false; each
 *	@ev.sb is the caller's, and @ev.name becomes the file table's
 * @nfiles: how many
 * @events: the saved opens, oldest first, @file an index into @files
 * @nevents: how many
 *
 * Forgets everything learnt, as a reset does, adds the files found to the
 * file table and replays the opens of those files into empty models: the
 * models learn what they learnt from those opens, whatever their kind and
 * shape.  The worker waits meanwhile (it holds ppf_worker_mutex), a few
 * milliseconds for every ten thousand opens.
 *
 * Return: 0, or -ENOMEM if the empty models cannot be had (nothing changed).
 */
int ppf_engine_restore(struct ppf_restore_file *files, u32 nfiles,
		       const struct ppf_history_rec *events, u32 nevents)
{
	struct ppf_domains *d, *old;
	struct ppf_model *model;
	struct ppf_file *f;
	u32 i;
	int err;

	d = ppf_domains_configured(&err);
	if (!d)
		return err;
	mutex_lock(&ppf_worker_mutex);
	old = ppf_domains;
	ppf_domains = d;
	ppf_forget_all(true);
	for (i = 0; i < nfiles; i++) {
		if (!files[i].found)
			continue;
		f = ppf_file_remember(&files[i].ev);
		files[i].found = !!f;
		if (f) {
			files[i].id = f->id;
			ppf_file_set_last_use(f, files[i].first, files[i].last,
					      files[i].map);
		}
	}
	for (i = 0; i < nevents; i++) {
		struct ppf_history_rec rec = events[i];

		if (!files[rec.file].found)
			continue;
		rec.file = files[rec.file].id;
		model = ppf_domain_model(d, rec.domain);
		if (model)
			ppf_model_event(model, rec.ctx, rec.parent, rec.file,
					ppf_predictions, 0);
		ppf_history_add(&rec);
		if (!(i & 1023))
			cond_resched();
	}
	mutex_unlock(&ppf_worker_mutex);
	ppf_domains_destroy(old);
	return 0;
}

/**
 * ppf_engine_model_stats() - what the models hold now
 * @st: filled in: the sum over the domains' models
 * @ds: filled in: the domains
 */
void ppf_engine_model_stats(struct ppf_model_stats *st,
			    struct ppf_domain_stats *ds)
{
	mutex_lock(&ppf_worker_mutex);
	ppf_domains_stats(ppf_domains, st, ds);
	mutex_unlock(&ppf_worker_mutex);
}

/**
 * ppf_engine_worker_cpu_ns() - CPU time the worker thread has used
 *
 * From the scheduler's accounting of the thread (up to date within a tick):
 * what prefetching took from the tasks, unlike worker_ns, which also counts
 * the worker's sleeps.
 *
 * Return: nanoseconds since the module was loaded.
 */
u64 ppf_engine_worker_cpu_ns(void)
{
	return ppf_worker ? READ_ONCE(ppf_worker->task->se.sum_exec_runtime) : 0;
}

/**
 * ppf_engine_set_io_class() - the I/O priority class of the worker's reads
 * @class: IOPRIO_CLASS_IDLE or IOPRIO_CLASS_BE
 *
 * Idle is served only when no other class waits in the elevator; best
 * effort at its lowest level (7) is served with the tasks' own reads
 * (mq-deadline has one queue per class) or after them (BFQ weighs levels).
 * Applies to the readahead started from now on, and to the inode and
 * extent reads of decoding a handle, which are the worker's too.
 *
 * Return: 0, or the negative errno of set_task_ioprio().
 */
int ppf_engine_set_io_class(unsigned int class)
{
	int level = class == IOPRIO_CLASS_IDLE ? 0 : IOPRIO_BE_NR - 1;

	return set_task_ioprio(ppf_worker->task,
			       IOPRIO_PRIO_VALUE(class, level));
}

/*
 * SCHED_BATCH at nice 0: the worker keeps an ordinary share of the CPU (at
 * nice 19 it fell far behind under CPU load: the reload test's queue took
 * minutes to drain), but never preempts the task whose open woke it
 * (check_preempt_wakeup_fair() lets only SCHED_NORMAL tasks preempt on
 * wakeup), which at nice 0 and SCHED_NORMAL put the model's work inside
 * that open on a single CPU (the opens' latency in the report of
 * andrew-reads-hdd2001, python3 -m eval.harness run andrew-reads-hdd2001).
 */
static int ppf_engine_set_cpu_policy(void)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_BATCH,
		.sched_nice = 0,
	};

	return sched_setattr_nocheck(ppf_worker->task, &attr);
}

int ppf_engine_init(void)
{
	int err;

	ppf_domains = ppf_domains_configured(&err);
	if (!ppf_domains)
		return err;
	err = ppf_ring_init(PPF_RING_SIZE);
	if (err)
		goto out_model;
	hrtimer_init(&ppf_wake_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	ppf_wake_timer.function = ppf_wake_timer_fn;
	WRITE_ONCE(ppf_wake_stopped, false);
	ppf_worker = kthread_create_worker(0, "ppf_prefetch");
	if (IS_ERR(ppf_worker)) {
		err = PTR_ERR(ppf_worker);
		goto out_ring;
	}
	ppf_pacing_init(ppf_worker, &ppf_pace_work);
	err = ppf_engine_set_cpu_policy();
	if (!err)
		err = ppf_engine_set_io_class(ppf_config.io_class);
	if (err)
		goto out_worker;
	return 0;

out_worker:
	kthread_destroy_worker(ppf_worker);
out_ring:
	ppf_ring_exit();
out_model:
	ppf_domains_destroy(ppf_domains);
	return err;
}

/* Called once the hooks can deliver no more events. */
void ppf_engine_exit(void)
{
	/* The worker arms the pacing timer, whose callback queues work. */
	ppf_pacing_stop();
	/* No hook queues it now; what it would have taken is released below. */
	WRITE_ONCE(ppf_wake_stopped, true);
	hrtimer_cancel(&ppf_wake_timer);
	kthread_cancel_delayed_work_sync(&ppf_lowmem_work);
	kthread_flush_worker(ppf_worker);
	ppf_pacing_stop();
	kthread_destroy_worker(ppf_worker);	/* runs queued work to completion */
	ppf_ring_exit();
	mutex_lock(&ppf_worker_mutex);
	ppf_plan_forget_all();
	ppf_forget_over(0);
	ppf_prefetch_forget_all();
	mutex_unlock(&ppf_worker_mutex);
	ppf_domains_destroy(ppf_domains);
	ppf_domains = NULL;
}
