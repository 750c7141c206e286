// SPDX-License-Identifier: GPL-2.0
/*
 * ppf-replay run: the threads, one per recorded pid. Each waits until the
 * prefix of events its next event needs has completed (the plan's need),
 * replays the think time, probes the page cache, issues the call and marks
 * it complete, waking the threads whose next event became runnable.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "run.h"

/* --think=sleep: gaps shorter than this are waited by polling the clock */
#define SLEEP_POLL_NS 20000

/* Wait until the events before e's need, and e's dep, have completed. */
static void wait_gate(struct replay_thread *th, const struct replay_event *e, uint32_t idx)
{
	struct replay_state *r = th->r;

	pthread_mutex_lock(&r->mu);
	while (r->done_prefix < e->need || (e->dep != REPLAY_NO_DEP && !r->done[e->dep])) {
		th->waiting_on = idx;
		pthread_cond_wait(&th->cv, &r->mu);
	}
	th->waiting_on = UINT32_MAX;
	pthread_mutex_unlock(&r->mu);
}

static void complete(struct replay_state *r, uint32_t idx)
{
	pthread_mutex_lock(&r->mu);
	r->done[idx] = 1;
	if (r->done_prefix == idx) {
		uint64_t p = idx;

		while (p < r->nev && r->done[p])
			p++;
		r->done_prefix = p;
		/* wake the threads whose next event became runnable */
		for (uint64_t j = p; j < r->nev && r->ev[j].need <= p; j++) {
			struct replay_thread *o = &r->th[r->ev[j].thread];

			if (o->waiting_on == j)
				pthread_cond_signal(&o->cv);
		}
	}
	/* and those whose next event waited for this one in particular */
	for (uint64_t j = r->dep_head[idx]; j != REPLAY_NO_DEP; j = r->ev[j].dep_next) {
		struct replay_thread *o = &r->th[r->ev[j].thread];

		if (o->waiting_on == j)
			pthread_cond_signal(&o->cv);
	}
	pthread_mutex_unlock(&r->mu);
}

static uint64_t thread_cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int needs_probe(const struct replay_state *r, const struct replay_event *e)
{
	return r->classify && ((e->op == PPF_OP_READ && e->res >= 0) ||
			       (e->op == PPF_OP_MMAP && r->mmap_mode != MMAP_NONE));
}

/*
 * With --probes=think a mapping is classed by the presence of its pages
 * alone: probing a whole mapping with mincore costs in proportion to the
 * pages cached (a library a prefetcher read is dearer to probe), more than
 * most think times hold, and its class is only a count in the report.
 */
static void probe(struct replay_thread *th, struct replay_event *e)
{
	int fd = replay_slot_fd(th->r, e);
	int presence = e->op == PPF_OP_MMAP && th->r->probes_mode == PROBES_THINK;

	e->cls = fd >= 0 ? (uint8_t)replay_classify(th->r, th, fd, e->off, e->len, presence)
			 : CLS_NONE;
}

/*
 * --probes=think: probe in place of the end of e's think time.  Spin the
 * think less a budget (twice the thread's estimate for a range this size,
 * at most the think), probe, and spin what the probe's CPU time left of
 * the budget: the call starts when it would have without the probe unless
 * the probe took more CPU than the budget, and that excess is the probe's
 * share of the timed part (returned, in CPU ns).  Thread CPU time, not the
 * clock: time another task took meanwhile (ppf's worker) stays in the run,
 * as it does in a spin.
 */
static uint64_t think_and_probe(struct replay_thread *th, struct replay_event *e)
{
	const struct replay_state *r = th->r;
	uint64_t pages = e->len > 0 ? ((uint64_t)e->len + REPLAY_PAGE - 1) / REPLAY_PAGE : 1;
	uint64_t budget = 2 * ((th->probe_est_kpage_ns * pages) >> 10);
	uint64_t c0, spent;

	if (budget > e->think)
		budget = e->think;
	replay_spin(replay_spin_iters(r, e->think - budget));
	c0 = thread_cpu_now();
	probe(th, e);
	spent = thread_cpu_now() - c0;
	/* the next estimate: a quarter of this probe's cost per page */
	th->probe_est_kpage_ns = (3 * th->probe_est_kpage_ns + (spent << 10) / pages) / 4;
	if (spent < budget) {
		replay_spin(replay_spin_iters(r, budget - spent));
		th->probe_hidden_ns += spent;
		return 0;
	}
	th->probe_hidden_ns += budget;
	return spent - budget;
}

/* Replay e's think time, counted from t_ready. */
static void think(struct replay_state *r, struct replay_event *e, uint64_t t_ready)
{
	if (!e->think)
		return;
	if (r->think_mode == THINK_SPIN) {
		replay_spin(e->think_iters);
	} else if (e->think < SLEEP_POLL_NS) {
		while (replay_now() < t_ready + e->think)
			;
	} else {
		uint64_t dl = t_ready + e->think;
		struct timespec ts = { (time_t)(dl / 1000000000ull), (long)(dl % 1000000000ull) };

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
}

static void *thread_main(void *arg)
{
	struct replay_thread *th = arg;
	struct replay_state *r = th->r;

	pthread_mutex_lock(&r->mu);
	while (!r->go)
		pthread_cond_wait(&r->go_cv, &r->mu);
	pthread_mutex_unlock(&r->mu);

	for (size_t k = 0; k < th->nev; k++) {
		uint32_t idx = th->evs[k];
		struct replay_event *e = &r->ev[idx];
		uint64_t t_ready, t_think, t0, t1;
		enum replay_skip skipped = SKIP_NONE;
		int ret;

		wait_gate(th, e, idx);
		t_ready = replay_now();
		e->t_ready = t_ready;
		if (needs_probe(r, e) && r->probes_mode == PROBES_THINK) {
			uint64_t over = think_and_probe(th, e);

			t0 = replay_now();
			over = over < t0 - t_ready ? over : t0 - t_ready;
			th->think_ns += t0 - t_ready - over;
			th->probe_ns += over;
		} else {
			think(r, e, t_ready);
			t_think = replay_now();
			th->think_ns += t_think - t_ready;
			if (needs_probe(r, e)) {
				probe(th, e);
				t0 = replay_now();
				th->probe_ns += t0 - t_think;
			} else {
				t0 = t_think;
			}
		}
		ret = replay_do_op(th, e, &skipped);
		t1 = replay_now();
		e->lat = t1 - t0;
		e->t_end = t1;
		replay_judge(r, e, ret, skipped);
		complete(r, idx);
	}
	return NULL;
}

/* Create the threads, parked until replay_go_and_join(); 0 or -1 (reported). */
int replay_start_threads(struct replay_state *r)
{
	pthread_attr_t attr;

	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->go_cv, NULL);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 128 * 1024);
	for (size_t i = 0; i < r->nthreads; i++) {
		r->th[i].waiting_on = UINT32_MAX;
		if (pthread_create(&r->th[i].tid, &attr, thread_main, &r->th[i])) {
			fprintf(stderr, "ppf-replay: cannot create thread %zu of %zu\n", i,
				r->nthreads);
			return -1;
		}
	}
	return 0;
}

/* Start the timed part, wait for every thread, note when the last call ended. */
void replay_go_and_join(struct replay_state *r)
{
	pthread_mutex_lock(&r->mu);
	r->t_start = replay_now();
	r->go = 1;
	pthread_cond_broadcast(&r->go_cv);
	pthread_mutex_unlock(&r->mu);
	for (size_t i = 0; i < r->nthreads; i++)
		pthread_join(r->th[i].tid, NULL);
	r->t_end = r->t_start;
	for (size_t i = 0; i < r->nev; i++)
		if (r->ev[i].t_end > r->t_end)
			r->t_end = r->ev[i].t_end;
}
