// SPDX-License-Identifier: GPL-2.0
/*
 * pacing.c - the plan: predicted files waiting to be read, most urgent first
 *
 * DOC: Pacing
 *
 * A prediction does not start readahead at once.  It puts the file in the
 * plan, a short list ordered by when the file is expected: the event number
 * of the open that predicted it plus the prediction's lead (EPCM names
 * files several opens ahead; the next one is needed first).  A file planned
 * again keeps the earlier of its two times.
 *
 * After each batch of events, and while anything is planned or being read
 * on a timer (below), the worker starts the readahead of the plan's head
 * one chunk (256 KiB) at a time (readahead.c), while less prefetched data is
 * in flight than max_inflight_kb, and on a device without an arm than it
 * moves in max_inflight_ms (DOC: Device rate).  A large file goes one
 * event later after each chunk, so that the files expected right after it
 * are read between its chunks.  What is in flight waits in the elevator
 * at the worker's I/O class, where the tasks' own reads pass it
 * (ppf_engine_set_io_class());
 * a chunk already being served delays a task's read by at most one chunk's
 * transfer.  A shallow queue (two chunks) was no better for Andrew and
 * worse for a start-up that reads for most of its time: the elevator sorts
 * a deep queue of idle requests into sweeps (andrew-reads-hdd2001 and
 * pystart-hdd2001, the paper's disk).
 *
 * EPCM names the same files event after event: when the open it expected
 * comes, the chain after it is the chain before it less its first file,
 * plus one more, each file expected at the same event as before.  The
 * model tells the worker only what is news (ppf_model_event_new()); a
 * prediction it names again (a chain made afresh, the other files likely
 * next) that expects a file at the very event the standing one
 * expects it (not reached yet, the file not opened since) adds nothing
 * while what was done for the standing one holds: the file is planned,
 * its readahead started, or it was found cached and no page has left the
 * page cache of its bucket since.  ppf_plan() then returns at once
 * (predictions_repeated): no plan lookup, no readahead decision, no
 * decode.  A prediction for another event (sooner: it moves the file up
 * the plan; later: the pattern began again, as a file opened twice in a
 * row) is judged afresh, and so is every one after the file's open.
 *
 * A planned file that is opened before its readahead started is dropped
 * from the plan: the task reads it itself.  One still planned long after it
 * was expected (PPF_PLAN_LATE events) was a wrong prediction and is dropped
 * too; so is the least urgent one when the plan is full.  A file dropped
 * for want of room (the plan full, memory short) was predicted rightly for
 * all we know: the worker then has the models name everything again
 * (ppf_plan_take_dropped()), since a standing prediction is not news.
 *
 * The timer is how the worker sees readahead end: nothing tells it when a
 * read completes, so it looks (a flag test per chunk in flight, inflight.c).
 * It looks PPF_PACE_NS after a pass that started or retired readahead, and
 * twice as long after each pass that did neither (with nothing planned,
 * after each that started nothing): a chunk in flight takes 26 ms at
 * 10 MB/s, and looking every 0.5 ms all that time was most of the worker's
 * CPU on a disk (pystart-hdd2001: 8,489 passes in a 7.6 s run and 50 ms of
 * CPU; 280 passes and 20 ms since).  While the plan waits for room the gap
 * grows to PPF_PACE_ROOM_MAX_NS at most: the default max_inflight_kb in
 * flight keeps even a 8 GB/s device busy longer than that, so the device
 * does not run dry before the worker refills it.  With nothing planned,
 * looking only retires finished chunks (their folio references and their
 * count) and the gap grows to PPF_PACE_REAP_MAX_NS; an open that finds its
 * prefetch looks at the chunk itself (ppf_prefetch_opened()).
 *
 * Everything here runs in the worker under ppf_worker_mutex, but the timer.
 */
#include <linux/cred.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/string.h>
#include "ppf.h"
#include "ppf_trace.h"

#define PPF_PLAN_SLOTS		128
/* Planned this many events after it was expected, and not opened: wrong. */
#define PPF_PLAN_LATE		64
/* How soon the worker looks at the readahead in flight after a change. */
#define PPF_PACE_NS		(500 * NSEC_PER_USEC)
/* The longest it waits to look while the plan waits for room... */
#define PPF_PACE_ROOM_MAX_NS	(2 * NSEC_PER_MSEC)
/* ... and while nothing is planned, only read. */
#define PPF_PACE_REAP_MAX_NS	(64 * NSEC_PER_MSEC)

/**
 * struct ppf_plan - a file planned for readahead
 * @id: its id in the file table
 * @due: the event number at which it is expected
 * @deep: planned from past the shallow lookahead (lookahead.c)
 * @own: planned at its own open (ppf_plan_own()): its readahead is for that
 *	open, not a prediction of the next one
 * @next: where its next chunk starts; 0 before the first one
 * @cred: credentials of the task whose open predicted it, with a reference
 */
struct ppf_plan {
	u32 id;
	bool deep;
	bool own;
	u64 due;
	pgoff_t next;
	const struct cred *cred;
};

/*
 * Ordered by @due, the most urgent first, as a ring: entry i of the plan is
 * ppf_plan_at(i), ppf_plan_head the ring's place of entry 0.  The head is
 * what leaves the plan most (each file whose readahead starts), and a new
 * file is mostly due after those planned: a ring takes both without moving
 * the others, where an array moved the whole plan down at each start (the
 * kernel's memmove() was 3 % of the worker's instructions on Glimpse).  An
 * entry that leaves from inside moves the shorter side.  Under
 * ppf_worker_mutex.
 */
static struct ppf_plan ppf_plans[PPF_PLAN_SLOTS];
static unsigned int ppf_plan_head;
static unsigned int ppf_nr_plans;
static struct hrtimer ppf_pace_timer;
/* The gap before the next look while nothing changes; under ppf_worker_mutex. */
static u64 ppf_pace_gap = PPF_PACE_NS;
static bool ppf_pacing_stopped;
/* What the timer queues, and where: the worker's pacing pass (worker.c). */
static struct kthread_worker *ppf_pace_worker;
static struct kthread_work *ppf_pace_work;
/*
 * Files found gone (stale or unmounted) by the latest ppf_plan() or
 * ppf_pace(), for the caller to forget (ppf_plan_take_gone()): forgetting
 * a file takes it out of the plan, so the plan cannot do it itself.  A
 * pass drops each planned file once, so the plan's size bounds them.
 */
static struct ppf_file *ppf_gone[PPF_PLAN_SLOTS];
static unsigned int ppf_nr_gone;
/* A file predicted was dropped for want of room (ppf_plan_take_dropped()). */
static bool ppf_plan_dropped;

/* The ring wraps with a mask. */
static_assert((PPF_PLAN_SLOTS & (PPF_PLAN_SLOTS - 1)) == 0);

/* Entry @i of the plan, 0 the most urgent. */
static inline struct ppf_plan *ppf_plan_at(unsigned int i)
{
	return &ppf_plans[(ppf_plan_head + i) % PPF_PLAN_SLOTS];
}

/* Take entry @i out of the ring, moving the shorter side up to it. */
static void ppf_plan_unlink(unsigned int i)
{
	lockdep_assert_held(&ppf_worker_mutex);
	if (i < ppf_nr_plans / 2) {
		for (; i > 0; i--)
			*ppf_plan_at(i) = *ppf_plan_at(i - 1);
		ppf_plan_head = (ppf_plan_head + 1) % PPF_PLAN_SLOTS;
	} else {
		for (; i + 1 < ppf_nr_plans; i++)
			*ppf_plan_at(i) = *ppf_plan_at(i + 1);
	}
	ppf_nr_plans--;
}

static void ppf_plan_remove(unsigned int i)
{
	struct ppf_plan *p = ppf_plan_at(i);
	struct ppf_file *f = ppf_files_find_id(p->id);

	if (f)
		f->prefetch.planned = false;
	put_cred(p->cred);
	ppf_plan_unlink(i);
}

/*
 * Where @f is in the plan: found by its due (the plan is sorted by it)
 * among the few entries due then, or, should the due it was planned at
 * not be where it is, by a look at every entry.
 */
static int ppf_plan_find(const struct ppf_file *f)
{
	u64 due = f->prefetch.plan_due;
	unsigned int lo = 0, hi = ppf_nr_plans, i;

	while (lo < hi) {	/* the first entry due at @due or later */
		unsigned int mid = lo + (hi - lo) / 2;

		if (ppf_plan_at(mid)->due < due)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < ppf_nr_plans && ppf_plan_at(i)->due == due; i++)
		if (ppf_plan_at(i)->id == f->id)
			return i;
	for (i = 0; i < ppf_nr_plans; i++)
		if (ppf_plan_at(i)->id == f->id) {
			WARN_ON_ONCE(1);	/* its due was not kept */
			return i;
		}
	return -1;
}

/* Put @p at its place by @due, moving the later entries down one. */
static void ppf_plan_insert(const struct ppf_plan *p)
{
	unsigned int i = ppf_nr_plans;

	while (i && ppf_plan_at(i - 1)->due > p->due) {
		*ppf_plan_at(i) = *ppf_plan_at(i - 1);
		i--;
	}
	*ppf_plan_at(i) = *p;
	ppf_nr_plans++;
}

/*
 * A large file started: its next chunk is due one event later, so that the
 * files expected right after it are read between its chunks instead of
 * after all of them.
 */
static void ppf_plan_later(struct ppf_file *f, unsigned int i)
{
	struct ppf_plan p = *ppf_plan_at(i);

	p.due++;
	f->prefetch.plan_due = p.due;
	while (i + 1 < ppf_nr_plans && ppf_plan_at(i + 1)->due <= p.due) {
		*ppf_plan_at(i) = *ppf_plan_at(i + 1);
		i++;
	}
	*ppf_plan_at(i) = p;
}

/*
 * Is @f planned with its readahead under way (a large file's first chunks
 * started)?  Then the plan goes on with it.
 */
static bool ppf_plan_under_way(struct ppf_file *f)
{
	int i;

	if (!f->prefetch.planned)
		return false;
	i = ppf_plan_find(f);
	return i >= 0 && ppf_plan_at(i)->next;
}

/*
 * Take @f out of the plan if it is planned and its readahead has not
 * started.  Returns true if its readahead is under way (it stays).
 */
static bool ppf_plan_drop_unstarted(struct ppf_file *f)
{
	int i;

	if (!f->prefetch.planned)
		return false;
	i = ppf_plan_find(f);
	if (i < 0)
		return false;
	if (ppf_plan_at(i)->next)
		return true;
	ppf_plan_remove(i);
	return false;
}

/*
 * Count and trace a prediction not acted on; hand a file that is gone to
 * the caller to forget; note one dropped for want of room.
 */
static void ppf_plan_skipped(struct ppf_file *f, u32 id, enum ppf_skip_reason why)
{
	ppf_stat_inc(skipped[why]);
	trace_ppf_prefetch_skip(id, why);
	if (why == PPF_SKIP_PLAN_FULL || why == PPF_SKIP_LOWMEM)
		ppf_plan_dropped = true;
	if (f && (why == PPF_SKIP_STALE || why == PPF_SKIP_UNMOUNTED) &&
	    !WARN_ON_ONCE(ppf_nr_gone == ARRAY_SIZE(ppf_gone)))
		ppf_gone[ppf_nr_gone++] = f;
}

/**
 * ppf_plan_take_dropped() - was a predicted file dropped for want of room?
 *
 * The plan was full, or memory too short to read it, since the last call:
 * the models told of it will not name it again while their prediction
 * stands, so the caller has them name everything again
 * (ppf_domains_restate()).  The caller holds ppf_worker_mutex.
 *
 * Return: true once for each time there was such a drop.
 */
bool ppf_plan_take_dropped(void)
{
	bool dropped = ppf_plan_dropped;

	lockdep_assert_held(&ppf_worker_mutex);
	ppf_plan_dropped = false;
	return dropped;
}

/**
 * ppf_plan_pending() - is any file planned and not yet read ahead in full?
 *
 * The caller holds ppf_worker_mutex.
 *
 * Return: true if the plan holds a file.
 */
bool ppf_plan_pending(void)
{
	lockdep_assert_held(&ppf_worker_mutex);
	return ppf_nr_plans;
}

/**
 * ppf_plan_take_gone() - a file ppf_plan() or ppf_pace() found gone
 *
 * After each call of either, the caller forgets every file this returns
 * (ppf_forget_gone()).  The caller holds ppf_worker_mutex.
 *
 * Return: the file, or NULL when there is none left.
 */
struct ppf_file *ppf_plan_take_gone(void)
{
	lockdep_assert_held(&ppf_worker_mutex);
	return ppf_nr_gone ? ppf_gone[--ppf_nr_gone] : NULL;
}

/*
 * Does a prediction of @f, expecting it at event @due, repeat the one
 * standing (the same event, not reached yet: @due is after the current
 * one), and does what was done for that one still hold (the file is in
 * the plan, its readahead started, or it was found cached and still is)?
 * If not, it becomes the one standing.
 */
static bool ppf_plan_repeated(struct ppf_file *f, u64 due)
{
	struct ppf_prefetch_state *st = &f->prefetch;

	if (st->predicted_due == due &&
	    (st->planned || st->pending_seq || ppf_prefetch_still_cached(f)))
		return true;
	st->predicted_due = due;
	return false;
}

/*
 * Put @f, not planned, in the plan as @p, making room by dropping the least
 * urgent file if the plan is full and @p is more urgent.  False if it did
 * not go in.
 */
static bool ppf_plan_new(struct ppf_file *f, struct ppf_plan *p,
			 const struct cred *cred)
{
	if (ppf_nr_plans == PPF_PLAN_SLOTS) {
		if (ppf_plan_at(ppf_nr_plans - 1)->due <= p->due) {
			ppf_plan_skipped(f, f->id, PPF_SKIP_PLAN_FULL);
			return false;
		}
		ppf_stat_inc(skipped[PPF_SKIP_PLAN_FULL]);
		ppf_plan_dropped = true;
		ppf_plan_remove(ppf_nr_plans - 1);
	}
	p->cred = get_cred(cred);
	f->prefetch.planned = true;
	f->prefetch.plan_due = p->due;
	ppf_plan_insert(p);
	return true;
}

/**
 * ppf_plan() - plan the readahead of a predicted file
 * @id: the predicted file's id
 * @cred: credentials of the task whose open predicted it
 * @seq: the event number of that open
 * @lead: how many opens ahead the model expects it
 * @deep: predicted past the shallow lookahead (lookahead.c)
 *
 * The caller holds ppf_worker_mutex.
 *
 * Return: the file, if this prediction was news and planned it (its
 * directory may then be swept, ppf_sweep_predicted()); NULL otherwise.
 */
struct ppf_file *ppf_plan(u32 id, const struct cred *cred, u64 seq, u16 lead,
			  bool deep)
{
	struct ppf_file *f = ppf_files_find_id(id);
	enum ppf_skip_reason why = PPF_SKIP_UNKNOWN;
	struct ppf_plan p = { .id = id, .deep = deep, .due = seq + lead };
	int i;

	lockdep_assert_held(&ppf_worker_mutex);
	if (f && ppf_plan_repeated(f, p.due)) {
		ppf_stat_inc(predictions_repeated);
		return NULL;
	}
	if (!f || !ppf_prefetch_wanted(f, seq, &why)) {
		ppf_plan_skipped(f, id, why);
		return NULL;
	}
	if (f->prefetch.planned) {
		i = ppf_plan_find(f);
		if (i < 0 || ppf_plan_at(i)->due <= p.due)
			return NULL;
		p = *ppf_plan_at(i);
		p.due = seq + lead;
		f->prefetch.plan_due = p.due;
		ppf_plan_unlink(i);
		ppf_plan_insert(&p);
		return NULL;
	}
	if (!ppf_plan_new(f, &p, cred))
		return NULL;
	if (READ_ONCE(ppf_config.metadata))
		ppf_prefetch_meta(f, seq);
	return f;
}

/**
 * ppf_plan_own() - plan a mapped file's own pages at its open
 * @f: the file, just opened, with a page map that knows a use (DOC: Page maps)
 * @cred: credentials of the task that opened it
 * @seq: the event number of that open
 *
 * Due at once, ahead of every prediction.  Its readahead is not recorded
 * as pending an open (inflight.c): the open it is for has come.  A file
 * whose readahead a prediction started is left to it.  The caller holds
 * ppf_worker_mutex.
 */
void ppf_plan_own(struct ppf_file *f, const struct cred *cred, u64 seq)
{
	enum ppf_skip_reason why = PPF_SKIP_UNKNOWN;
	struct ppf_plan p = { .id = f->id, .own = true, .due = seq };

	lockdep_assert_held(&ppf_worker_mutex);
	if (f->prefetch.planned)
		return;
	if (!ppf_prefetch_wanted(f, seq, &why)) {
		ppf_plan_skipped(f, f->id, why);
		return;
	}
	if (ppf_plan_new(f, &p, cred))
		ppf_stat_inc(opened_planned);
}

/**
 * ppf_plan_sweep() - start the readahead of files together, in the order given
 * @files: the files (DOC: Sweeps)
 * @n: how many
 * @cred: credentials of the task whose open or prediction led to them
 * @seq: the current event number
 *
 * Each file's first chunk is started now, ahead of the plan, in the order
 * of @files; a file planned and not started yet leaves the plan once its
 * first chunk starts here (one there is no room for stays planned, for the
 * pacer to start when there is), and what a large file has left after its
 * first chunk goes into the plan, due now.  A file whose readahead is
 * under way, or that was prefetched a few events ago or is known to be
 * cached (ppf_prefetch_wanted()), is passed over.  Stops at the first
 * file there is no room for in flight or in memory, or when as many files
 * were found gone as the caller can be handed.  The caller holds
 * ppf_worker_mutex and forgets the files found gone (ppf_plan_take_gone())
 * once it is done with @files.
 *
 * Return: how many of @files, from the first, were dealt with.
 */
unsigned int ppf_plan_sweep(struct ppf_file **files, unsigned int n,
			    const struct cred *cred, u64 seq)
{
	enum ppf_skip_reason why = PPF_SKIP_UNKNOWN;
	struct ppf_session ps;
	struct ppf_file *f;
	unsigned int i;
	pgoff_t next;

	lockdep_assert_held(&ppf_worker_mutex);
	ppf_prefetch_begin(&ps);
	for (i = 0; i < n && ppf_nr_gone < ARRAY_SIZE(ppf_gone); i++) {
		f = files[i];
		if (ppf_plan_under_way(f))
			continue;
		/*
		 * A file passed over is counted as a prediction skipped for
		 * the same reason is, untraced (the sweep's own event says
		 * how many of its files it dealt with): skipped_cached_known,
		 * counted by ppf_prefetch_wanted(), is a part of
		 * skipped_cached, and must not count swept files it does not.
		 */
		if (!ppf_prefetch_wanted(f, seq, &why)) {
			ppf_stat_inc(skipped[why]);
			continue;
		}
		if (READ_ONCE(ppf_config.metadata))
			ppf_prefetch_meta(f, seq);
		next = 0;
		if (ppf_prefetch(&ps, f, cred, seq, false, &next, &why)) {
			struct ppf_plan p = { .id = f->id, .due = seq,
					      .next = next };

			ppf_plan_drop_unstarted(f);	/* started here */
			if (next)
				ppf_plan_new(f, &p, cred);
			continue;
		}
		if (why == PPF_SKIP_INFLIGHT || why == PPF_SKIP_LOWMEM)
			break;
		if (why == PPF_SKIP_STALE || why == PPF_SKIP_UNMOUNTED)
			ppf_plan_skipped(f, f->id, why);
		else
			ppf_stat_inc(skipped[why]);
	}
	ppf_prefetch_end(&ps);
	return i;
}

/**
 * ppf_plan_opened() - a file was opened: it needs no readahead not started
 * @f: the file
 *
 * The caller holds ppf_worker_mutex.
 */
void ppf_plan_opened(struct ppf_file *f)
{
	lockdep_assert_held(&ppf_worker_mutex);
	f->prefetch.predicted_due = 0;	/* the next prediction is news */
	ppf_plan_drop_unstarted(f);
}

/*
 * When to look again: soon after a pass that changed anything (@moved),
 * twice as late as last time after one that did not, at most @max.
 */
static u64 ppf_pace_backoff(bool moved, u64 max)
{
	ppf_pace_gap = moved ? PPF_PACE_NS : min(ppf_pace_gap * 2, max);
	return ppf_pace_gap;
}

/**
 * ppf_pace() - start what the plan and the device's room allow
 * @seq: the current event number
 *
 * The caller holds ppf_worker_mutex.
 *
 * Return: in how many nanoseconds the worker should look again (0: never,
 * nothing is planned or being read).
 */
u64 ppf_pace(u64 seq)
{
	unsigned long retired = ppf_prefetch_retired();
	bool started = false, waiting = false;
	enum ppf_skip_reason why;
	struct ppf_session ps;
	struct ppf_plan *p;
	struct ppf_file *f;
	u64 again = 0;

	lockdep_assert_held(&ppf_worker_mutex);
	ppf_prefetch_begin(&ps);
	while (ppf_nr_plans) {
		p = ppf_plan_at(0);
		f = ppf_files_find_id(p->id);
		if (!f) {
			ppf_plan_remove(0);
			continue;
		}
		if (!p->next && p->due + PPF_PLAN_LATE < seq) {
			ppf_plan_skipped(f, p->id, PPF_SKIP_LATE);
			ppf_plan_remove(0);
			continue;
		}
		if (ppf_prefetch(&ps, f, p->cred, seq, p->own, &p->next, &why)) {
			ppf_lookahead_started(p->deep);
			started = true;
			p->deep = false;	/* counted once, at its first chunk */
			if (!p->next)
				ppf_plan_remove(0);
			else
				ppf_plan_later(f, 0);
			continue;
		}
		if (why == PPF_SKIP_INFLIGHT) {
			ppf_stat_inc(skipped[why]);
			waiting = true;	/* no room now: the head goes first later */
			break;
		}
		ppf_plan_remove(0);
		ppf_plan_skipped(f, f->id, why);
	}
	if (waiting)	/* room comes as chunks in flight are retired */
		again = ppf_pace_backoff(started ||
					 ppf_prefetch_retired() != retired,
					 PPF_PACE_ROOM_MAX_NS);
	else if (ppf_prefetch_busy())	/* only retiring is left to do */
		again = ppf_pace_backoff(started, PPF_PACE_REAP_MAX_NS);
	else
		ppf_pace_gap = PPF_PACE_NS;
	ppf_prefetch_end(&ps);
	return again;
}

/**
 * ppf_pace_later() - have the worker call ppf_pace() again
 * @delay_ns: in how long at the latest
 *
 * A timer already set to fire sooner is left alone; one set later is
 * brought forward.  A timer whose callback is still running counts as not
 * set: the callback has queued the pass that is calling this, and no
 * other, so skipping here (as hrtimer_active() would) could stop the
 * pacing until the next event.  Called by the worker.
 */
void ppf_pace_later(u64 delay_ns)
{
	ktime_t delay = ns_to_ktime(delay_ns);

	if (READ_ONCE(ppf_pacing_stopped))
		return;
	if (hrtimer_is_queued(&ppf_pace_timer) &&
	    hrtimer_get_remaining(&ppf_pace_timer) <= delay)
		return;
	hrtimer_start(&ppf_pace_timer, delay, HRTIMER_MODE_REL);
}

static enum hrtimer_restart ppf_pace_timer_fn(struct hrtimer *timer)
{
	kthread_queue_work(ppf_pace_worker, ppf_pace_work);
	return HRTIMER_NORESTART;
}

/**
 * ppf_plan_forget_file() - a file leaves the file table: out of the plan
 * @f: the file
 *
 * The caller holds ppf_worker_mutex.
 */
void ppf_plan_forget_file(struct ppf_file *f)
{
	int i;

	lockdep_assert_held(&ppf_worker_mutex);
	if (!f->prefetch.planned)
		return;
	i = ppf_plan_find(f);
	if (i >= 0)
		ppf_plan_remove(i);
}

/**
 * ppf_plan_forget_all() - empty the plan
 *
 * On reset and unload.  The caller holds ppf_worker_mutex.
 */
void ppf_plan_forget_all(void)
{
	lockdep_assert_held(&ppf_worker_mutex);
	while (ppf_nr_plans)
		ppf_plan_remove(ppf_nr_plans - 1);
}

/**
 * ppf_pacing_init() - set up the timer that has the worker pace again
 * @worker: the worker
 * @work: its pacing pass, which calls ppf_pace(); the timer queues it
 */
void ppf_pacing_init(struct kthread_worker *worker, struct kthread_work *work)
{
	ppf_pace_worker = worker;
	ppf_pace_work = work;
	hrtimer_init(&ppf_pace_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	ppf_pace_timer.function = ppf_pace_timer_fn;
	WRITE_ONCE(ppf_pacing_stopped, false);
}

/*
 * No timer runs once this returns, and the worker arms none from now on.
 * The worker may have armed one just before: the engine flushes the worker
 * and calls this again (ppf_engine_exit()).
 */
void ppf_pacing_stop(void)
{
	WRITE_ONCE(ppf_pacing_stopped, true);
	hrtimer_cancel(&ppf_pace_timer);
}
