/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ppf-replay run: the state one run shares between its modules (run.c
 * orchestrates; calibrate.c, plan.c, slots.c, classify.c, ops.c, threads.c,
 * report.c), the per-event plan and per-thread state, and their functions.
 */
#ifndef PPF_REPLAY_RUN_H
#define PPF_REPLAY_RUN_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "replay.h"

/* --think, --exec, --mmap, --probes (names: replay_*_names in run.c, in this order) */
enum replay_think { THINK_SPIN, THINK_SLEEP };
enum replay_probes { PROBES_TIMED, PROBES_THINK };
enum replay_exec { EXEC_MAP, EXEC_HEAD, EXEC_NONE };
enum replay_mmap { MMAP_MAP, MMAP_READ, MMAP_NONE };
extern const char *const replay_think_names[];
extern const char *const replay_exec_names[];
extern const char *const replay_mmap_names[];
extern const char *const replay_probes_names[];

/*
 * How a read or mapped range stood in the page cache just before the call
 * (classify.c): one list for the enum and the names in the report.
 */
#define REPLAY_CLASSES(X)						\
	X(CLS_NONE, "-")	/* not classified */			\
	X(CLS_HIT, "hit")	/* every page present and uptodate */	\
	X(CLS_PARTIAL, "partial") /* some present, or being read */	\
	X(CLS_MISS, "miss")	/* no page present */

/* How the replayed call compares with the recorded one (judge(), ops.c). */
#define REPLAY_OUTCOMES(X)						\
	X(OUT_OK, "ok")		/* same success / failure as recorded */ \
	X(OUT_EXPECTED, "expected") /* ENOENT on a new entry the start state does not have */ \
	X(OUT_UNEXPECTED, "unexpected") /* failed, recorded success */	\
	X(OUT_UNEXP_OK, "unexpected_ok") /* succeeded, recorded failure */ \
	X(OUT_SKIPPED, "skipped") /* read/write that failed in the recording: not issued */ \
	X(OUT_NOFD, "no_fd")	/* no fd: its open failed in the replay */

#define REPLAY_ENUM(name, str) name,
enum replay_class { REPLAY_CLASSES(REPLAY_ENUM) CLS_COUNT };
enum replay_outcome { REPLAY_OUTCOMES(REPLAY_ENUM) OUT_COUNT };
#undef REPLAY_ENUM

/* Why an event's call was not issued (do_op() -> judge(), ops.c). */
enum replay_skip {
	SKIP_NONE,		/* issued */
	SKIP_FAILED_IN_TRACE,	/* read/write that failed in the recording: moved no data */
	SKIP_NO_FD,		/* its fd's open failed in the replay */
};

#define RT_VEC 4096	/* pages per mincore window */
#define REPLAY_NO_DEP UINT64_MAX

/* one event: as recorded, as planned (plan.c, slots.c), as replayed */
struct replay_event {
	/* from the trace */
	uint64_t start, end;
	int64_t off, len, res;
	uint32_t pid, file, file2, flags;
	int32_t fd;
	uint8_t op;
	/* plan */
	uint8_t implicit_open, close_real;
	int32_t slot;		/* the fd's slot (dup: the slot duplicated) */
	int32_t slot2;		/* dup: the new fd's slot; else -1 */
	int32_t drop_slot;	/* dup onto an open fd: the slot it closes if last; else -1 */
	uint32_t thread;
	uint64_t need;		/* wait until events [0, need) completed */
	uint64_t dep;		/* and until this event of another thread completed;
				   REPLAY_NO_DEP when none (plan.c) */
	uint64_t dep_next;	/* next event with the same dep (wake-up chain) */
	uint64_t think;		/* recorded think time before the call, ns */
	uint64_t think_iters;	/* the same in spin iterations */
	/* results */
	uint64_t lat, t_ready, t_end;
	int32_t err;
	uint8_t outcome, cls;	/* enum replay_outcome, enum replay_class */
};

/* one thread per recorded pid (threads.c), its events and its totals */
struct replay_thread {
	struct replay_state *r;
	pthread_t tid;
	pthread_cond_t cv;
	uint32_t pid;
	uint32_t *evs;
	size_t nev;
	uint32_t waiting_on;
	uint64_t think_ns, probe_ns;
	/* --probes=think: probe CPU time spent in place of think, and the
	 * thread's estimate of a probe's CPU time per 1024 pages */
	uint64_t probe_hidden_ns, probe_est_kpage_ns;
	uint64_t bytes_read, bytes_written, bytes_mapped, bytes_exec;
	unsigned char vec[RT_VEC];
};

/* one run: the plan, the options, calibration, buffers, ordering, results */
struct replay_state {
	struct ppf_trace *trace;
	const char *trace_path, *dir;
	struct replay_event *ev;
	size_t nev;
	struct replay_thread *th;
	size_t nthreads;
	char **paths;
	size_t nfiles;
	uint8_t *file_created, *file_new;
	/* fd slots: one per open file description */
	size_t nslots;
	int *slot_fd;
	uint8_t *slot_closed;
	uint32_t *slot_file;
	int64_t *slot_opener;
	uint64_t inherited, implicit_opens, dups, overlapping, overlap_kept, deps;
	uint64_t *dep_head;	/* per event: first event whose dep it is (chain: dep_next) */
	uint64_t think_recorded;
	/* options: enum replay_think, replay_exec, replay_mmap and flags */
	int think_mode, exec_mode, mmap_mode, probes_mode, classify, cold, no_sync, mlocked, have_cachestat;
	/* spin calibration */
	uint64_t cal_iters, cal_ns, cal_min_ns, cal_max_ns;
	double iters_per_ns;
	double fixed_rate;	/* --spin-rate: iterations per us, 0 = calibrated */
	/* buffers */
	unsigned char *rbuf, *wbuf;
	size_t buflen;
	/* ordering */
	pthread_mutex_t mu;
	pthread_cond_t go_cv;
	int go;
	uint64_t done_prefix;
	uint8_t *done;
	uint64_t t_start, t_end;
	/*
	 * --faults FILE (plan.c, replay_load_faults): the pages the program
	 * faulted, per file of the table: fault_page[fault_first[f] ..
	 * + fault_count[f]) in first-fault order; fault_first[f] ==
	 * REPLAY_NO_FAULTS: FILE does not name f (its ranges touched whole).
	 */
	const char *faults_path;
	uint64_t *fault_page, *fault_first;
	uint32_t *fault_count;
	size_t faults_files, faults_pages;
};

#define REPLAY_NO_FAULTS UINT64_MAX

/* calibrate.c: the think-time spin loop and its rate */
void replay_spin(uint64_t n);
/* The spin iterations that take @ns at the run's rate (inline: the timed
 * part's instruction stream is the bench's). */
static inline uint64_t replay_spin_iters(const struct replay_state *r, uint64_t ns)
{
	return (uint64_t)((double)ns * r->iters_per_ns + 0.5);
}
void replay_calibrate(struct replay_state *r);

/* plan.c: the trace turned into events, threads, ordering, think time, buffers */
int replay_build_plan(struct replay_state *r, struct ppf_trace *t, const char *dir);
/* plan.c: --faults FILE loaded and indexed by file; 0, or -1 after printing FILE:LINE: why */
int replay_load_faults(struct replay_state *r, const struct ppf_trace *t, const char *path);

/* slots.c: which open file description (slot) each fd-using event uses */
int replay_resolve_slots(struct replay_state *r);

/* classify.c: page-cache state of a range before the call */
int replay_have_cachestat(void);
enum replay_class replay_classify(struct replay_state *r, struct replay_thread *th, int fd,
				  int64_t off, int64_t len, int presence);

/* ops.c: issue one event's call and judge its outcome */
int replay_slot_fd(struct replay_state *r, struct replay_event *e);
int replay_do_op(struct replay_thread *th, struct replay_event *e, enum replay_skip *skipped);
void replay_judge(struct replay_state *r, struct replay_event *e, int ret,
		  enum replay_skip skipped);

/* threads.c: one thread per recorded pid, run in the planned order */
int replay_start_threads(struct replay_state *r);
void replay_go_and_join(struct replay_state *r);

/* report.c: after the timed part */
extern const char *const replay_class_names[];
extern const char *const replay_outcome_names[];
void replay_report(struct replay_state *r, FILE *out);
int replay_report_json(struct replay_state *r, const char *path);
int replay_report_events(struct replay_state *r, const char *path);

#endif
