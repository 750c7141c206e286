/* SPDX-License-Identifier: GPL-2.0 */
/* ppf-replay run: the plan, per-thread state and the report. */
#ifndef PPF_REPLAY_RUN_H
#define PPF_REPLAY_RUN_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "replay.h"

enum { THINK_SPIN, THINK_SLEEP };
enum { EXEC_MAP, EXEC_HEAD, EXEC_NONE };
enum { MMAP_MAP, MMAP_READ, MMAP_NONE };
enum { CLS_NONE, CLS_HIT, CLS_PARTIAL, CLS_MISS };
/* how the replayed call compares with the recorded one */
enum {
	OUT_OK,		/* same success / failure as recorded */
	OUT_EXPECTED,	/* ENOENT on a new entry the start state does not have */
	OUT_UNEXPECTED,	/* failed, recorded success */
	OUT_UNEXP_OK,	/* succeeded, recorded failure */
	OUT_SKIPPED,	/* read/write that failed in the recording: not issued */
	OUT_NOFD,	/* no fd: its open failed in the replay */
};

#define RT_VEC 4096	/* pages per mincore window */

struct rev {
	/* from the trace */
	uint64_t start, end;
	int64_t off, len, res;
	uint32_t pid, file, file2, flags;
	int32_t fd;
	uint8_t op;
	/* plan */
	uint8_t implicit_open, close_real;
	int32_t slot;
	uint32_t thread;
	uint64_t need;		/* wait until events [0, need) completed */
	uint64_t think;		/* recorded think time before the call, ns */
	uint64_t think_iters;	/* the same in spin iterations */
	/* results */
	uint64_t lat, t_ready, t_end;
	int32_t err;
	uint8_t outcome, cls;
};

struct rthread {
	pthread_t tid;
	pthread_cond_t cv;
	uint32_t pid;
	uint32_t *evs;
	size_t nev;
	uint32_t waiting_on;
	uint64_t think_ns, probe_ns;
	uint64_t bytes_read, bytes_written, bytes_mapped, bytes_exec;
	unsigned char vec[RT_VEC];
};

struct replay_state {
	struct ppf_trace *trace;
	const char *trace_path, *dir;
	struct rev *ev;
	size_t nev;
	struct rthread *th;
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
	uint64_t inherited, implicit_opens, overlapping;
	uint64_t think_recorded;
	/* options */
	int think_mode, exec_mode, mmap_mode, classify, cold, mlocked, have_cachestat;
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
};

void replay_report(struct replay_state *r, FILE *out);
int replay_report_json(struct replay_state *r, const char *path);
int replay_report_events(struct replay_state *r, const char *path);

#endif
