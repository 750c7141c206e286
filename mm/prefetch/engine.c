// SPDX-License-Identifier: GPL-2.0
/*
 * engine.c - the engine's lifecycle: start, stop, models swapped, reset, restore
 *
 * DOC: Engine
 *
 * The engine is the hooks' entry points (intake.c), which queue each event
 * (event_ring.c), and one worker (worker.c), which drains the queue under
 * ppf_worker_mutex.  Here it is started and stopped, and what the worker
 * uses is replaced while it runs: a rebuilt set of models, everything
 * learnt forgotten (a reset), or that replaced by a saved state.  A new
 * set of models is allocated before ppf_worker_mutex is taken, so the
 * worker waits only for the swap.
 */
#include <linux/ioprio.h>
#include <linux/sched.h>
#include <uapi/linux/sched/types.h>
#include "ppf.h"

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
	old = ppf_worker_set_models(d);
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
	ppf_worker_restart_count();
	ppf_lookahead_reset(deep);
	ppf_payoff_reset();
	ppf_runs_reset();
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
	if (d)
		old = ppf_worker_set_models(d);
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
	struct ppf_file *f;
	u32 i;
	int err;

	d = ppf_domains_configured(&err);
	if (!d)
		return err;
	mutex_lock(&ppf_worker_mutex);
	old = ppf_worker_set_models(d);
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
			if (files[i].pages)
				ppf_file_pages_load(f, files[i].pages,
						    files[i].pages_len,
						    files[i].pages_shift);
		}
	}
	for (i = 0; i < nevents; i++) {
		struct ppf_history_rec rec = events[i];

		if (!files[rec.file].found)
			continue;
		rec.file = files[rec.file].id;
		ppf_worker_learn(d, &rec);
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
	ppf_domains_stats(ppf_worker_models(), st, ds);
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
	struct task_struct *task = ppf_worker_task();

	return task ? READ_ONCE(task->se.sum_exec_runtime) : 0;
}

/**
 * ppf_engine_set_io_class() - the I/O priority class of the worker's reads
 * @class: IOPRIO_CLASS_IDLE, IOPRIO_CLASS_BE, or PPF_IO_CLASS_AUTO (idle
 *	until the worker reads for a device, DOC: I/O class)
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
	if (class == PPF_IO_CLASS_AUTO)
		class = IOPRIO_CLASS_IDLE;
	return set_task_ioprio(ppf_worker_task(), ppf_io_prio(class));
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

	return sched_setattr_nocheck(ppf_worker_task(), &attr);
}

int ppf_engine_init(void)
{
	struct ppf_domains *d;
	int err;

	d = ppf_domains_configured(&err);
	if (!d)
		return err;
	mutex_lock(&ppf_worker_mutex);
	ppf_worker_set_models(d);
	mutex_unlock(&ppf_worker_mutex);
	err = ppf_ring_init(PPF_RING_SIZE);
	if (err)
		goto out_model;
	ppf_intake_init();
	err = ppf_worker_start();
	if (err)
		goto out_ring;
	err = ppf_engine_set_cpu_policy();
	if (!err)
		err = ppf_engine_set_io_class(ppf_config.io_class);
	if (err)
		goto out_worker;
	return 0;

out_worker:
	ppf_worker_stop();
out_ring:
	ppf_ring_exit();
out_model:
	mutex_lock(&ppf_worker_mutex);
	ppf_worker_set_models(NULL);
	mutex_unlock(&ppf_worker_mutex);
	ppf_domains_destroy(d);
	return err;
}

/* Called once the hooks can deliver no more events. */
void ppf_engine_exit(void)
{
	struct ppf_domains *old;

	/* The worker arms the pacing timer, whose callback queues work. */
	ppf_pacing_stop();
	/* No hook queues it now; what it would have taken is released below. */
	ppf_intake_stop();
	ppf_worker_stop();
	ppf_ring_exit();
	mutex_lock(&ppf_worker_mutex);
	ppf_plan_forget_all();
	ppf_forget_over(0);
	ppf_prefetch_forget_all();
	ppf_runs_reset();
	old = ppf_worker_set_models(NULL);
	mutex_unlock(&ppf_worker_mutex);
	ppf_domains_destroy(old);
}

