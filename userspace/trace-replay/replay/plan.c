// SPDX-License-Identifier: GPL-2.0
/*
 * ppf-replay run: the plan, made before the timed part. One entry per event
 * (mapped path, fd slot, the prefix of events it must wait for, its recorded
 * think time), one thread per recorded pid, and the shared I/O buffers.
 * Definitions: docs/replay.md.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "run.h"

#define PLAN_NONE UINT32_MAX

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The replay-tree path of every file in the table. */
static int plan_paths(struct replay_state *r, struct ppf_trace *t, const char *dir)
{
	for (size_t i = 0; i < t->nfiles; i++) {
		r->paths[i] = replay_map_path(dir, t->files[i].path);
		if (!r->paths[i]) {
			fprintf(stderr, "ppf-replay: file %zu: unusable path '%s'\n", i,
				t->files[i].path);
			return -1;
		}
		r->file_new[i] = (uint8_t)t->files[i].created;
	}
	return 0;
}

/* Copy the events; pids[i] is event i's pid; returns the longest read/write. */
static uint64_t plan_events(struct replay_state *r, struct ppf_trace *t, uint32_t *pids)
{
	uint64_t maxlen = 0;

	for (size_t i = 0; i < r->nev; i++) {
		const struct ppf_trace_event *s = &t->events[i];
		struct replay_event *e = &r->ev[i];

		e->start = s->start_ns;
		e->end = s->start_ns + s->dur_ns;
		e->pid = s->pid;
		e->op = (uint8_t)s->op;
		e->file = s->file;
		e->file2 = s->file2;
		e->fd = s->fd;
		e->off = s->offset;
		e->len = s->len;
		e->res = s->result;
		e->flags = s->flags;
		pids[i] = s->pid;
		if ((e->op == PPF_OP_READ || e->op == PPF_OP_WRITE) && e->res >= 0) {
			uint64_t l = (uint64_t)(e->op == PPF_OP_READ ? e->len : e->res);

			if (l > maxlen)
				maxlen = l;
		}
	}
	return maxlen;
}

/* Threads: one per recorded pid, each with its events in trace order. */
static int plan_threads(struct replay_state *r, uint32_t *pids)
{
	size_t n = r->nev, npids = 0;

	qsort(pids, n, sizeof(*pids), cmp_u32);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || pids[i] != pids[i - 1])
			pids[npids++] = pids[i];
	r->nthreads = npids;
	r->th = calloc(npids ? npids : 1, sizeof(*r->th));
	if (!r->th)
		return -1;
	for (size_t i = 0; i < npids; i++) {
		r->th[i].r = r;
		r->th[i].pid = pids[i];
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t *p = bsearch(&r->ev[i].pid, pids, npids, sizeof(*pids), cmp_u32);

		r->ev[i].thread = (uint32_t)(p - pids);
		r->th[r->ev[i].thread].nev++;
	}
	for (size_t i = 0; i < npids; i++) {
		r->th[i].evs = malloc((r->th[i].nev ? r->th[i].nev : 1) * sizeof(uint32_t));
		if (!r->th[i].evs)
			return -1;
		r->th[i].nev = 0;
		if (pthread_cond_init(&r->th[i].cv, NULL))
			return -1;
	}
	for (size_t i = 0; i < n; i++) {
		struct replay_thread *th = &r->th[r->ev[i].thread];

		th->evs[th->nev++] = (uint32_t)i;
	}
	return 0;
}

/* a directory of the file table, sorted by path for plan_parents()'s bsearch */
struct plan_dir {
	const char *path;
	uint32_t id;
};

static int plan_dir_cmp(const void *a, const void *b)
{
	return strcmp(((const struct plan_dir *)a)->path, ((const struct plan_dir *)b)->path);
}

/* The file-table id of each file's parent directory, PLAN_NONE when not in the table. */
static int plan_parents(const struct ppf_trace *t, uint32_t *parent)
{
	struct plan_dir *dirs = malloc((t->nfiles + 1) * sizeof(*dirs));
	size_t nd = 0;

	if (!dirs)
		return -1;
	for (size_t i = 0; i < t->nfiles; i++)
		if (t->files[i].is_dir)
			dirs[nd++] = (struct plan_dir){ t->files[i].path, (uint32_t)i };
	qsort(dirs, nd, sizeof(*dirs), plan_dir_cmp);
	for (size_t i = 0; i < t->nfiles; i++) {
		const char *p = t->files[i].path, *slash = strrchr(p, '/');
		char buf[4096];
		struct plan_dir key = { buf, 0 }, *hit;

		parent[i] = PLAN_NONE;
		if (!strcmp(p, ".") || !strcmp(p, "/"))
			continue;
		if (!slash)
			snprintf(buf, sizeof(buf), ".");
		else if (slash == p)
			snprintf(buf, sizeof(buf), "/");
		else
			snprintf(buf, sizeof(buf), "%.*s", (int)(slash - p), p);
		hit = nd ? bsearch(&key, dirs, nd, sizeof(*dirs), plan_dir_cmp) : NULL;
		if (hit)
			parent[i] = hit->id;
	}
	free(dirs);
	return 0;
}

/* Did event i change what a later lookup of file f finds (created, removed, renamed, wrote)? */
static int plan_changes(const struct replay_event *e)
{
	switch (e->op) {
	case PPF_OP_OPEN:
		return e->res >= 0 && (e->flags & (O_CREAT | O_TRUNC));
	case PPF_OP_WRITE:
		return e->res > 0;
	case PPF_OP_UNLINK:
	case PPF_OP_RENAME:
	case PPF_OP_MKDIR:
	case PPF_OP_RMDIR:
		return e->res == 0;
	default:
		return 0;
	}
}

/* Consider candidate c as event i's dep: another thread's, not already in i's prefix. */
static void plan_dep_candidate(struct replay_state *r, size_t i, uint64_t c)
{
	struct replay_event *e = &r->ev[i];

	if (c == REPLAY_NO_DEP || c >= i || c < e->need || r->ev[c].thread == e->thread)
		return;
	if (e->dep == REPLAY_NO_DEP || c > e->dep)
		e->dep = c;
}

/* Does event i take a path away from later lookups (unlink, rename, rmdir)? */
static int plan_removes(const struct replay_event *e)
{
	return (e->op == PPF_OP_UNLINK || e->op == PPF_OP_RENAME || e->op == PPF_OP_RMDIR) &&
	       e->res == 0;
}

/* Did event i look its path up (open, exec, stat)? */
static int plan_looks_up(const struct replay_event *e)
{
	return e->op == PPF_OP_OPEN || e->op == PPF_OP_EXEC || e->op == PPF_OP_STAT;
}

/*
 * Event i's dep: for an fd op, what made its slot or last used it (a slot
 * shared by inheritance is used in the recorded order, so its real close
 * comes after every other holder's calls); for a path op, what last changed
 * its path or that path's directory, and for a removal also the latest
 * lookup of the path (a removal recorded while another process's open of
 * the same path was still running, as strace's timestamps can show under
 * load, must not make that open fail in the replay).
 */
static void plan_dep(struct replay_state *r, size_t i, const uint64_t *last,
		     const uint32_t *parent, uint64_t *slot_use, const uint64_t *looked)
{
	struct replay_event *e = &r->ev[i];
	uint32_t files[2] = { e->file, e->file2 };

	e->dep = REPLAY_NO_DEP;
	switch (e->op) {
	case PPF_OP_READ:
	case PPF_OP_WRITE:
	case PPF_OP_MMAP:
	case PPF_OP_CLOSE:
	case PPF_OP_DUP:
		if (e->slot < 0)
			return;
		if (r->slot_opener[e->slot] >= 0)
			plan_dep_candidate(r, i, (uint64_t)r->slot_opener[e->slot]);
		plan_dep_candidate(r, i, slot_use[e->slot]);
		slot_use[e->slot] = i;
		if (e->slot2 >= 0)
			slot_use[e->slot2] = i;
		return;
	default:
		break;
	}
	for (int k = 0; k < 2; k++) {
		if (files[k] == PPF_TRACE_NO_FILE)
			continue;
		plan_dep_candidate(r, i, last[files[k]]);
		if (parent[files[k]] != PLAN_NONE)
			plan_dep_candidate(r, i, last[parent[files[k]]]);
		if (plan_removes(e))
			plan_dep_candidate(r, i, looked[files[k]]);
	}
}

/* Could event i, which overlapped an earlier call in the recording, overlap one in the replay? */
static int plan_can_overlap(const struct replay_state *r, size_t i)
{
	const struct replay_event *e = &r->ev[i];

	for (uint64_t j = e->need; j < i; j++)
		if (r->ev[j].thread != e->thread && j != e->dep)
			return 1;
	return 0;
}

/*
 * Ordering: event i waits until every event before need_i has completed,
 * need_i = the first earlier event still running when i started in the
 * recording (all before it had ended; non-decreasing by construction; for
 * a serial trace need_i = i), and until its dep has completed: the latest
 * event of another thread among those that made or last used its fd slot
 * (open, dup, an inherited fd's other holders) or last changed its path or
 * that path's directory (create, write, rename, unlink, mkdir, rmdir) or,
 * for a removal, last looked the path up (open, exec, stat), when that
 * event is not already in the prefix. An open no longer waits for
 * every earlier event: only for these.
 */
static int plan_order(struct replay_state *r, const struct ppf_trace *t)
{
	uint64_t *last = malloc((r->nfiles + 1) * sizeof(*last));
	uint64_t *looked = malloc((r->nfiles + 1) * sizeof(*looked));
	uint32_t *parent = malloc((r->nfiles + 1) * sizeof(*parent));
	uint64_t *slot_use = malloc((r->nslots + 1) * sizeof(*slot_use));
	size_t p = 0;

	r->dep_head = malloc((r->nev + 1) * sizeof(*r->dep_head));
	if (!last || !looked || !parent || !slot_use || !r->dep_head || plan_parents(t, parent))
		return -1;
	for (size_t f = 0; f < r->nfiles; f++)
		last[f] = looked[f] = REPLAY_NO_DEP;
	for (size_t s = 0; s < r->nslots; s++)
		slot_use[s] = REPLAY_NO_DEP;
	for (size_t i = 0; i < r->nev; i++) {
		struct replay_event *e = &r->ev[i];

		r->dep_head[i] = REPLAY_NO_DEP;
		while (p < i && r->ev[p].end <= e->start)
			p++;
		e->need = p;
		plan_dep(r, i, last, parent, slot_use, looked);
		if (e->dep != REPLAY_NO_DEP) {
			e->dep_next = r->dep_head[e->dep];
			r->dep_head[e->dep] = i;
			r->deps++;
		}
		if (p < i) {
			r->overlapping++;
			r->overlap_kept += (uint64_t)plan_can_overlap(r, i);
		}
		if (plan_changes(e)) {
			last[e->file] = i;
			if (e->file2 != PPF_TRACE_NO_FILE)
				last[e->file2] = i;
		}
		if (plan_looks_up(e) && e->file != PPF_TRACE_NO_FILE)
			looked[e->file] = i;
	}
	free(last);
	free(looked);
	free(parent);
	free(slot_use);
	return 0;
}

/*
 * Recorded think time: from the end of what the event waited for (pm[need],
 * the latest end among events [0, need)) or of the thread's previous event.
 */
static void plan_think(struct replay_state *r, uint64_t *pm)
{
	pm[0] = 0;
	for (size_t i = 0; i < r->nev; i++)
		pm[i + 1] = pm[i] > r->ev[i].end ? pm[i] : r->ev[i].end;
	for (size_t ti = 0; ti < r->nthreads; ti++) {
		struct replay_thread *th = &r->th[ti];
		uint64_t own_end = 0;

		for (size_t k = 0; k < th->nev; k++) {
			struct replay_event *e = &r->ev[th->evs[k]];
			uint64_t ready = pm[e->need];

			if (k > 0 && own_end > ready)
				ready = own_end;
			e->think = e->start > ready ? e->start - ready : 0;
			r->think_recorded += e->think;
			own_end = e->end;
		}
	}
}

/* Buffers: one shared read buffer, one shared pattern for writes. */
static int plan_buffers(struct replay_state *r, uint64_t maxlen)
{
	maxlen = (maxlen + REPLAY_PAGE - 1) / REPLAY_PAGE * REPLAY_PAGE;
	if (maxlen < 64 * 1024)
		maxlen = 64 * 1024;
	if (maxlen > 4u << 20)
		maxlen = 4u << 20;
	r->buflen = (size_t)maxlen;
	r->rbuf = aligned_alloc(REPLAY_PAGE, r->buflen);
	r->wbuf = aligned_alloc(REPLAY_PAGE, r->buflen);
	if (!r->rbuf || !r->wbuf)
		return -1;
	memset(r->rbuf, 0, r->buflen);
	replay_fill_pattern(r->wbuf, r->buflen);
	return 0;
}

/* Build the whole plan; 0, or -1 with errno (a bad path is reported here). */
int replay_build_plan(struct replay_state *r, struct ppf_trace *t, const char *dir)
{
	size_t n = t->nevents;
	uint64_t *pm, maxlen;
	uint32_t *pids;

	r->nev = n;
	r->ev = calloc(n ? n : 1, sizeof(*r->ev));
	r->done = calloc(n + 1, 1);
	r->nfiles = t->nfiles;
	r->paths = calloc(t->nfiles + 1, sizeof(char *));
	r->file_created = calloc(t->nfiles + 1, 1);
	r->file_new = calloc(t->nfiles + 1, 1);
	pm = calloc(n + 1, sizeof(*pm));
	pids = malloc((n + 1) * sizeof(*pids));
	if (!r->ev || !r->done || !r->paths || !r->file_created || !r->file_new || !pm || !pids)
		return -1;
	if (plan_paths(r, t, dir))
		return -1;
	maxlen = plan_events(r, t, pids);
	if (plan_threads(r, pids))
		return -1;
	if (replay_resolve_slots(r))
		return -1;
	if (plan_order(r, t))
		return -1;
	plan_think(r, pm);
	if (plan_buffers(r, maxlen))
		return -1;
	free(pm);
	free(pids);
	return 0;
}

/*
 * --faults FILE: which pages of each mapped file the program faulted
 * (docs/replay.md, "Mapped files as the program faulted them"). Plain or
 * gzip'd text: the line "ppf-faults 1"; then "# ..." comments and blank
 * lines anywhere; "file PATH" (PATH: the rest of the line, a path of the
 * trace's file table, named once) followed by that file's page indexes,
 * decimal, whitespace-separated, on any number of lines, each page once.
 * Loaded and indexed here, before the timed part; ops.c only reads it.
 */
#define FAULTS_MAGIC "ppf-faults 1"
#define FAULTS_LINE 8192
#define FAULTS_MAX_PAGE (UINT64_C(1) << 40)	/* 4 PiB: far beyond any file, no overflow */

static const struct ppf_trace *faults_trace;	/* for faults_cmp (qsort has no context) */

static int faults_cmp(const void *a, const void *b)
{
	return strcmp(faults_trace->files[*(const uint32_t *)a].path,
		      faults_trace->files[*(const uint32_t *)b].path);
}

static int faults_key_cmp(const void *key, const void *b)
{
	return strcmp((const char *)key, faults_trace->files[*(const uint32_t *)b].path);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct faults_reader {
	const char *path;
	gzFile gz;
	unsigned long line;
	char buf[FAULTS_LINE];
	uint32_t *byname;	/* the trace's files sorted by path */
	uint64_t cap;		/* of r->fault_page */
	int64_t cur;		/* the file whose pages follow, -1 before the first */
	unsigned long *named_on; /* per file: the line naming it, 0 if none */
};

/* "ppf-replay: FILE:LINE: what (--faults; ...)" on stderr; returns -1. */
static int __attribute__((format(printf, 3, 4)))
faults_error_at(struct faults_reader *fr, unsigned long line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ppf-replay: %s:%lu: ", fr->path, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (--faults; format: ppf-replay(1), docs/replay.md)\n");
	return -1;
}

#define faults_error(fr, ...) faults_error_at(fr, (fr)->line, __VA_ARGS__)

/* Close the current file's list: each page once. */
static int faults_end_file(struct replay_state *r, struct faults_reader *fr)
{
	uint64_t first, n, *copy;

	if (fr->cur < 0)
		return 0;
	first = r->fault_first[fr->cur];
	n = r->fault_count[fr->cur];
	copy = malloc((n ? n : 1) * sizeof(*copy));
	if (!copy)
		return faults_error(fr, "%s", strerror(errno));
	memcpy(copy, r->fault_page + first, n * sizeof(*copy));
	qsort(copy, n, sizeof(*copy), cmp_u64);
	for (uint64_t i = 1; i < n; i++)
		if (copy[i] == copy[i - 1]) {
			unsigned long long page = copy[i];

			free(copy);
			return faults_error_at(fr, fr->named_on[fr->cur],
					       "page %llu listed twice for %s", page,
					       faults_trace->files[fr->cur].path);
		}
	free(copy);
	return 0;
}

/* "file PATH" */
static int faults_file_line(struct replay_state *r, struct faults_reader *fr, const char *path)
{
	uint32_t *hit;

	if (faults_end_file(r, fr))
		return -1;
	if (!*path)
		return faults_error(fr, "'file' without a PATH");
	hit = r->nfiles ? bsearch(path, fr->byname, r->nfiles, sizeof(uint32_t), faults_key_cmp)
			: NULL;
	if (!hit)
		return faults_error(fr, "%s: not a file of the trace's file table", path);
	if (fr->named_on[*hit])
		return faults_error(fr, "%s named again (first on line %lu)", path,
				    fr->named_on[*hit]);
	fr->named_on[*hit] = fr->line;
	fr->cur = *hit;
	r->fault_first[*hit] = r->faults_pages;
	r->fault_count[*hit] = 0;
	r->faults_files++;
	return 0;
}

/* A line of page indexes for the current file. */
static int faults_pages_line(struct replay_state *r, struct faults_reader *fr, char *s)
{
	if (fr->cur < 0)
		return faults_error(fr, "page indexes before any 'file PATH' line");
	for (char *tok = strtok(s, " \t"); tok; tok = strtok(NULL, " \t")) {
		uint64_t v = 0;

		for (const char *c = tok; *c; c++) {
			if (*c < '0' || *c > '9' || v >= FAULTS_MAX_PAGE)
				return faults_error(fr, "'%s': not a page index (decimal, below 2^40)",
						    tok);
			v = v * 10 + (uint64_t)(*c - '0');
		}
		if (v >= FAULTS_MAX_PAGE)
			return faults_error(fr, "'%s': not a page index (decimal, below 2^40)", tok);
		if (r->faults_pages == fr->cap) {
			uint64_t *p;

			fr->cap = fr->cap ? fr->cap * 2 : 4096;
			p = realloc(r->fault_page, fr->cap * sizeof(*p));
			if (!p)
				return faults_error(fr, "%s", strerror(errno));
			r->fault_page = p;
		}
		if (r->fault_count[fr->cur] == UINT32_MAX)
			return faults_error(fr, "more than 2^32-1 pages for one file");
		r->fault_page[r->faults_pages++] = v;
		r->fault_count[fr->cur]++;
	}
	return 0;
}

static int faults_read(struct replay_state *r, struct faults_reader *fr)
{
	int have_magic = 0;

	while (gzgets(fr->gz, fr->buf, sizeof(fr->buf))) {
		size_t n = strlen(fr->buf);

		fr->line++;
		if (n == sizeof(fr->buf) - 1 && fr->buf[n - 1] != '\n')
			return faults_error(fr, "line longer than %d bytes", FAULTS_LINE - 1);
		if (n && fr->buf[n - 1] == '\n')
			fr->buf[--n] = 0;
		if (n && fr->buf[n - 1] == '\r')
			fr->buf[--n] = 0;
		if (memchr(fr->buf, 0, n))
			return faults_error(fr, "a NUL byte: not a text file");
		if (!have_magic) {
			if (strcmp(fr->buf, FAULTS_MAGIC))
				return faults_error(fr, "not a faults file (its first line must be "
						    "'%s')", FAULTS_MAGIC);
			have_magic = 1;
			continue;
		}
		if (fr->buf[0] == '#' || fr->buf[strspn(fr->buf, " \t")] == 0)
			continue;
		if (!strncmp(fr->buf, "file ", 5) || !strcmp(fr->buf, "file")) {
			if (faults_file_line(r, fr, fr->buf + (n > 4 ? 5 : 4)))
				return -1;
		} else if (faults_pages_line(r, fr, fr->buf)) {
			return -1;
		}
	}
	if (!gzeof(fr->gz)) {
		int zerr;
		const char *m = gzerror(fr->gz, &zerr);

		return faults_error(fr, "cannot read: %s", zerr == Z_ERRNO ? strerror(errno) : m);
	}
	if (!have_magic) {
		fr->line = 1;
		return faults_error(fr, "empty: not a faults file (its first line must be '%s')",
				    FAULTS_MAGIC);
	}
	return faults_end_file(r, fr);
}

int replay_load_faults(struct replay_state *r, const struct ppf_trace *t, const char *path)
{
	static struct faults_reader fr;	/* static: its line buffer */
	int ret;

	fr.path = path;
	fr.line = 0;
	fr.cur = -1;
	fr.cap = 0;
	r->faults_path = path;
	r->fault_first = malloc((r->nfiles + 1) * sizeof(*r->fault_first));
	r->fault_count = calloc(r->nfiles + 1, sizeof(*r->fault_count));
	fr.named_on = calloc(r->nfiles + 1, sizeof(*fr.named_on));
	fr.byname = malloc((r->nfiles + 1) * sizeof(*fr.byname));
	if (!r->fault_first || !r->fault_count || !fr.named_on || !fr.byname) {
		fprintf(stderr, "ppf-replay: --faults %s: %s\n", path, strerror(ENOMEM));
		return -1;
	}
	for (size_t i = 0; i < r->nfiles; i++) {
		r->fault_first[i] = REPLAY_NO_FAULTS;
		fr.byname[i] = (uint32_t)i;
	}
	faults_trace = t;
	qsort(fr.byname, r->nfiles, sizeof(*fr.byname), faults_cmp);
	errno = 0;
	fr.gz = gzopen(path, "rb");
	if (!fr.gz) {
		fprintf(stderr, "ppf-replay: %s:0: cannot open: %s (--faults)\n", path,
			strerror(errno ? errno : ENOMEM));
		return -1;
	}
	ret = faults_read(r, &fr);
	gzclose(fr.gz);
	free(fr.named_on);
	free(fr.byname);
	return ret;
}
