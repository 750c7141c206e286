// SPDX-License-Identifier: GPL-2.0
/*
 * worker.c - the worker: events to the model, predictions to the plan
 *
 * DOC: Worker
 *
 * One worker, a kernel thread of its own (a kthread_worker), drains the
 * queue in order.  For each open or exec it finds the file's entry, feeds
 * the model, and acts on each prediction that is news
 * (ppf_model_event_new(): EPCM's chain after an open it expected is the
 * chain before, less the file opened, plus what it adds; only that is
 * news, the rest stands in the plan already).  What the worker decided for
 * a standing prediction holds while the file's pages stay cached and the
 * plan keeps it: when anything has left the page cache since the last
 * batch (ppf_page_cache_mark()), or the plan drops files for want
 * of room or memory, the models are told to name everything again
 * (ppf_domains_restate()), and each file is judged afresh.  The model and the
 * file table are changed only under ppf_worker_mutex, which the worker holds
 * per batch of events and sysctl holds to swap in a rebuilt model, so a model
 * can be replaced while events keep arriving: they wait in the queue.
 *
 * The thread is ppf's own, not a shared kworker, because readahead's I/O
 * takes the I/O priority of the thread that submits it (bio_set_ioprio()
 * -> get_current_ioprio()): the worker runs in the I/O class set with the
 * io_class sysctl, by default chosen per device (DOC: I/O class): idle on
 * a rotational one, so that the elevator (mq-deadline, BFQ) serves every
 * task's own reads before a prefetch.
 * Each batch of events is one plug: the readahead of the files predicted
 * together reaches the elevator together, where it is sorted and merged by
 * position instead of going to the disk one file at a time.
 */
#include <linux/blkdev.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/sched/clock.h>
#include "ppf.h"
#include "ppf_trace.h"

#define PPF_BATCH	32

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

/*
 * A mapped file is not read when it is opened: its task faults its pages in
 * as it runs, each fault a read of its own.  Once its page map knows a
 * whole use, its open plans those pages as one batch, due now (DOC: Page
 * maps).  A file read by read(2) is left to its task and the kernel's
 * readahead.
 */
static void ppf_plan_own_pages(struct ppf_file *f, const struct cred *cred)
{
	pgoff_t first, last;

	if (!ppf_file_page_span(f, &first, &last))
		return;
	trace_ppf_own_pages(f->id, first, last);
	ppf_plan_own(f, cred, ppf_seq);
	ppf_forget_gone();
}

static void ppf_worker_open(struct ppf_event *ev)
{
	u64 start = ktime_get_ns(), prefetched = ppf_payoff_prefetched();
	struct ppf_file *f = ppf_file_remember(ev), *planned;
	struct ppf_model *model;
	unsigned int i, n;
	u64 model_start, surprises, spent;
	bool late;
	u32 id;

	if (!f) {
		ppf_stat_inc(dropped[PPF_DROP_NO_MEMORY]);
		return;
	}
	if (!f->visits.dir && ev->parent_ino)
		ppf_dir_join(f, ev->parent_ino);
	ppf_file_learn_meta(f, ev);
	late = ppf_prefetch_opened(f);
	ppf_plan_opened(f);
	ppf_file_map_pages(f, ev->pages);
	id = f->id;
	trace_ppf_event(ppf_sb_dev(f->sb), f->ino, id, ev->kind == PPF_EV_EXEC);
	ppf_seq++;
	if (!ev->learn_only) {
		ppf_plan_own_pages(f, ev->cred);
		ppf_sweep_opened(f, ev->cred, ppf_seq);
		ppf_run_opened(f, ev->ctx, ev->cred, ppf_seq, true, late);
		ppf_forget_gone();
	} else {
		ppf_run_opened(f, ev->ctx, ev->cred, ppf_seq, false, late);
	}
	model_start = ktime_get_ns();
	model = ppf_domain_model(ppf_domains, ev->domain);
	if (!model) {
		ppf_stat_inc(dropped[PPF_DROP_NO_MEMORY]);
		return;
	}
	ppf_history_add(&(struct ppf_history_rec){
		.file = id, .ctx = ev->ctx, .parent = ev->parent,
		.domain = ev->domain });
	/*
	 * A paused device's open is learnt (the model; the file's metadata
	 * and uses, above) and nothing is acted on: nothing predicted, so
	 * that what the model names after the pause is news (the chain it
	 * had, never planned, is named again whole), no sweep, no
	 * readahead, no window charged (payoff.c).
	 */
	if (ev->learn_only) {
		ppf_model_learn(model, ev->ctx, ev->parent, id);
		ppf_stat_add(worker_model_ns, ktime_get_ns() - model_start);
		ppf_device_sample(ev->sb, ppf_prefetch_in_flight());
		ppf_payoff_learnt(ev->sb, ktime_get_ns() - start);
		return;
	}
	surprises = ppf_model_surprises(model);
	n = ppf_model_event_new(model, ev->ctx, ev->parent, id,
				ppf_predictions, ppf_lookahead(ppf_seq));
	ppf_stat_add(worker_model_ns, ktime_get_ns() - model_start);
	ppf_stat_add(predictions, n);
	for (i = 0; i < n; i++) {
		const struct ppf_prediction *p = &ppf_predictions[i];

		trace_ppf_prediction(id, p->file, p->likelihood, p->lead);
		/*
		 * The file just opened is being read by its task: a
		 * prefetch now would race that read, and would count as
		 * recent against the file's next prediction.
		 */
		if (p->file == id) {
			ppf_stat_inc(skipped[PPF_SKIP_OPENING]);
			trace_ppf_prefetch_skip(id, PPF_SKIP_OPENING);
			continue;
		}
		planned = ppf_plan(p->file, ev->cred, ppf_seq, p->lead,
				   p->lead > PPF_SHALLOW);
		if (planned)
			ppf_sweep_predicted(planned, ev->cred, ppf_seq);
		ppf_forget_gone();
	}
	ppf_lookahead_event(!ppf_plan_pending() && !ppf_prefetch_busy(),
			    ppf_model_surprises(model) != surprises);
	ppf_prefetch_reap(ppf_seq);
	ppf_device_sample(ev->sb, ppf_prefetch_in_flight());
	/* Its sweeps' prefetch calls are charged as such. */
	spent = ktime_get_ns() - start;
	prefetched = ppf_payoff_prefetched() - prefetched;
	ppf_payoff_charge(ev->sb, spent > prefetched ? spent - prefetched : 0, n);
}

static void ppf_worker_read(const struct ppf_event *ev)
{
	struct ppf_file *f = ppf_files_lookup(ev->sb, ev->ino);

	if (f && f->gen == ev->gen)
		ppf_file_apply_read(f, ev->first, ev->last, ev->read_kind);
}

/*
 * Submit what the plug holds: the I/O of the readahead started since it
 * began, counted with the readahead calls (worker_readahead_ns).
 */
static void ppf_finish_plug(struct blk_plug *plug)
{
	u64 start = local_clock(), ns;

	blk_finish_plug(plug);
	ns = local_clock() - start;
	ppf_stat_add(worker_readahead_ns, ns);
	ppf_payoff_submitted(ns);
}

/* Have the models name everything again at each context's next event. */
static void ppf_restate(void)
{
	lockdep_assert_held(&ppf_worker_mutex);
	if (!ppf_domains)
		return;
	ppf_domains_restate(ppf_domains);
	ppf_lookahead_restated();
	ppf_stat_inc(restates);
}

/*
 * A file found cached, its prediction standing, may have lost pages since:
 * if anything left the page cache, have the models name everything again.
 */
static void ppf_restate_if_removed(void)
{
	lockdep_assert_held(&ppf_worker_mutex);
	if (ppf_page_cache_mark())
		ppf_restate();
}

/*
 * A pacing pass, then the files it found gone forgotten (forget.c), the
 * timer armed for the next pass, and the plug's I/O submitted.
 */
static void ppf_pace_pass(struct blk_plug *plug)
{
	u64 delay;

	lockdep_assert_held(&ppf_worker_mutex);
	delay = ppf_pace(ppf_seq);
	ppf_forget_gone();
	if (ppf_plan_take_dropped())
		ppf_restate();
	if (delay)
		ppf_pace_later(delay);
	ppf_finish_plug(plug);
}

static void ppf_work_fn(struct kthread_work *work)
{
	struct blk_plug plug;
	bool late = work == &ppf_lowmem_work.work;
	unsigned int i, n;

	while ((n = ppf_ring_pop(ppf_batch, PPF_BATCH))) {
		u64 start = ktime_get_ns();

		if (late) {	/* counted if it found events */
			ppf_stat_inc(lowmem_batches);
			late = false;
		}

		mutex_lock(&ppf_worker_mutex);
		ppf_restate_if_removed();
		blk_start_plug(&plug);
		for (i = 0; i < n; i++) {
			if (ppf_batch[i].kind == PPF_EV_READ)
				ppf_worker_read(&ppf_batch[i]);
			else
				ppf_worker_open(&ppf_batch[i]);
		}
		ppf_pace_pass(&plug);
		ppf_payoff_worker_clock(ktime_get_ns() - start);
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
	u64 spent;

	mutex_lock(&ppf_worker_mutex);
	blk_start_plug(&plug);
	ppf_pace_pass(&plug);
	ppf_payoff_worker_clock(ktime_get_ns() - start);
	mutex_unlock(&ppf_worker_mutex);
	spent = ktime_get_ns() - start;
	ppf_stat_add(worker_ns, spent);
	ppf_stat_add(pace_timer_ns, spent);
	ppf_stat_inc(pace_timer_runs);
}

/**
 * ppf_worker_wake() - have the worker take the events queued
 */
void ppf_worker_wake(void)
{
	kthread_queue_work(ppf_worker, &ppf_work);
}

/**
 * ppf_worker_wake_late() - the same, later, unless a late wake-up is pending
 * @delay: in jiffies
 *
 * While memory is too low to prefetch (ppf_worker_memory_low()): one
 * timer for the whole batch.
 */
void ppf_worker_wake_late(unsigned long delay)
{
	kthread_queue_delayed_work(ppf_worker, &ppf_lowmem_work, delay);
}

/**
 * ppf_worker_memory_low() - was memory too low to prefetch after a batch?
 *
 * Return: what the worker found after its last batch
 * (ppf_prefetch_memory_low()).
 */
bool ppf_worker_memory_low(void)
{
	return READ_ONCE(ppf_memory_low);
}

/**
 * ppf_worker_learn() - feed a saved open to a set of models, acting on nothing
 * @d: the models
 * @rec: the open, its @file a model id
 *
 * For restoring a saved state: the open joins the history of opens, as
 * those the worker learns from do.  The caller holds ppf_worker_mutex.
 */
void ppf_worker_learn(struct ppf_domains *d, const struct ppf_history_rec *rec)
{
	struct ppf_model *model;

	lockdep_assert_held(&ppf_worker_mutex);
	model = ppf_domain_model(d, rec->domain);
	if (model)
		ppf_model_learn(model, rec->ctx, rec->parent, rec->file);
	ppf_history_add(rec);
}

/**
 * ppf_worker_set_models() - swap in the models the worker feeds
 * @d: the new set, or NULL (unloading)
 *
 * The caller holds ppf_worker_mutex, and frees the old set once it has
 * dropped the mutex (ppf_domains_destroy()).
 *
 * Return: the old set.
 */
struct ppf_domains *ppf_worker_set_models(struct ppf_domains *d)
{
	struct ppf_domains *old = ppf_domains;

	lockdep_assert_held(&ppf_worker_mutex);
	ppf_domains = d;
	return old;
}

/**
 * ppf_worker_models() - the models the worker feeds
 *
 * The caller holds ppf_worker_mutex.
 *
 * Return: the set.
 */
struct ppf_domains *ppf_worker_models(void)
{
	lockdep_assert_held(&ppf_worker_mutex);
	return ppf_domains;
}

/**
 * ppf_worker_restart_count() - count the opens fed to the models from zero
 *
 * With everything learnt forgotten.  The caller holds ppf_worker_mutex.
 */
void ppf_worker_restart_count(void)
{
	lockdep_assert_held(&ppf_worker_mutex);
	ppf_seq = 0;
}

/**
 * ppf_worker_task() - the worker's thread
 *
 * Return: the task, or NULL while the worker is not started.
 */
struct task_struct *ppf_worker_task(void)
{
	return ppf_worker ? ppf_worker->task : NULL;
}

/**
 * ppf_worker_start() - start the worker's thread
 *
 * Return: 0, or a negative errno.
 */
int ppf_worker_start(void)
{
	struct kthread_worker *w = kthread_create_worker(0, "ppf_prefetch");

	if (IS_ERR(w))
		return PTR_ERR(w);
	ppf_worker = w;
	ppf_pacing_init(ppf_worker, &ppf_pace_work);
	return 0;
}

/**
 * ppf_worker_stop() - stop the worker's thread, after its queued work
 *
 * Once nothing else wakes it: the hooks deliver no event, the intake's
 * timer and the pacing timer are stopped (ppf_intake_stop(),
 * ppf_pacing_stop()).
 */
void ppf_worker_stop(void)
{
	kthread_cancel_delayed_work_sync(&ppf_lowmem_work);
	kthread_flush_worker(ppf_worker);
	/* The flushed work may have armed the pacing timer again. */
	ppf_pacing_stop();
	kthread_destroy_worker(ppf_worker);	/* runs queued work to completion */
	ppf_worker = NULL;
}
