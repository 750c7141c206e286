// SPDX-License-Identifier: GPL-2.0
/*
 * ppf-replay build-tree: create the file tree a trace touched, as it was when
 * the recording started (the file table: docs/trace-format.md).
 *
 *   pre     regular file, SIZE bytes of a never-zero pattern, fully written
 *           (no holes: a hole reads without I/O, and mkfs.ext4 -d skips
 *           all-zero blocks, so zero bytes would become holes too)
 *   dir     directory
 *   new     absent: removed if a previous replay left it; its parent
 *           directory is created (it existed), unless it lies in a newdir
 *   newdir  absent: removed (recursively) if a previous replay left it
 *
 * Parents of every listed path are created. Files outside the root go to
 * DIR/_abs/<absolute path>. Idempotent: a regular file of the right size with
 * all its blocks allocated is kept (--force rewrites it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "replay.h"

#define CHUNK (1u << 20)

static unsigned char *pattern;

static int write_file(const char *path, uint64_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	uint64_t done = 0;

	if (fd < 0)
		return -1;
	while (done < size) {
		size_t n = size - done > CHUNK ? CHUNK : (size_t)(size - done);
		ssize_t w = write(fd, pattern, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		done += (uint64_t)w;
	}
	if (close(fd))
		return -1;
	return 0;
fail:
	{
		int e = errno;

		close(fd);
		errno = e;
	}
	return -1;
}

static int rm_one(const char *p, const struct stat *st, int type, struct FTW *f)
{
	(void)st;
	(void)f;
	return (type == FTW_DP ? rmdir(p) : unlink(p)) ? -1 : 0;
}

/* Is some pre/dir entry at or below rel (relative or absolute trace path)? */
static int holds_existing(const struct ppf_trace *t, const char *rel)
{
	size_t n = strlen(rel);

	for (size_t i = 0; i < t->nfiles; i++) {
		const char *p = t->files[i].path;

		if (t->files[i].created)
			continue;
		if (!strncmp(p, rel, n) && (p[n] == 0 || p[n] == '/'))
			return 1;
	}
	return 0;
}

/* Is the parent of path a newdir entry or below one? */
static int under_newdir(const struct ppf_trace *t, const char *path)
{
	for (size_t i = 0; i < t->nfiles; i++) {
		const char *p = t->files[i].path;
		size_t n = strlen(p);

		if (!t->files[i].is_dir || !t->files[i].created || !strcmp(p, "."))
			continue;
		if (!strncmp(path, p, n) && path[n] == '/')
			return 1;
	}
	return 0;
}

/* what build-tree did, for its summary line */
struct tree_counts {
	uint64_t nfiles, ndirs, bytes, written, kept, removed;
	int errors;
};

/* A new or newdir entry: make its parent, remove what a replay left. */
static void build_absent(const struct ppf_trace *t, const struct ppf_trace_file *f, char *p,
			 int list, struct tree_counts *c)
{
	struct stat st;

	/* its parent existed (unless it is under a newdir): the run creates it there */
	if (!list && !under_newdir(t, f->path) && replay_mkdir_parents(p)) {
		fprintf(stderr, "ppf-replay: cannot create the parent of %s: %s\n", p,
			strerror(errno));
		c->errors++;
	}
	/* absent at the start of the run: remove what a replay left */
	if (list || lstat(p, &st))
		return;
	if (!strcmp(f->path, ".") || holds_existing(t, f->path))
		return;
	if (S_ISDIR(st.st_mode) ? nftw(p, rm_one, 16, FTW_DEPTH | FTW_PHYS) : unlink(p)) {
		fprintf(stderr, "ppf-replay: cannot remove %s: %s\n", p, strerror(errno));
		c->errors++;
	} else {
		c->removed++;
	}
}

/* A pre entry: a file of its size, kept if already there (unless force). */
static void build_file(const struct ppf_trace_file *f, const char *p, int list, int force,
		       struct tree_counts *c)
{
	struct stat st;

	c->nfiles++;
	c->bytes += f->size;
	if (list) {
		printf("file %12llu %s\n", (unsigned long long)f->size, p);
		return;
	}
	if (!force && lstat(p, &st) == 0 && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size == f->size &&
	    (uint64_t)st.st_blocks * 512 >= f->size) {
		c->kept++;
		return;
	}
	if (replay_mkdir_parents(p) || write_file(p, f->size)) {
		fprintf(stderr, "ppf-replay: cannot create %s: %s\n", p, strerror(errno));
		c->errors++;
	} else {
		c->written++;
	}
}

/* One entry of the file table. */
static void build_one(const struct ppf_trace *t, size_t i, const char *dir, int list,
		      int force, struct tree_counts *c)
{
	const struct ppf_trace_file *f = &t->files[i];
	char *p = replay_map_path(dir, f->path);

	if (!p) {
		fprintf(stderr, "ppf-replay: file %zu: unusable path '%s'\n", i, f->path);
		c->errors++;
		return;
	}
	if (f->created) {
		build_absent(t, f, p, list, c);
	} else if (f->is_dir) {
		c->ndirs++;
		if (list)
			printf("dir  %12s %s\n", "-", p);
		else if (replay_mkdir_p(p)) {
			fprintf(stderr, "ppf-replay: cannot create directory %s: %s\n", p,
				strerror(errno));
			c->errors++;
		}
	} else {
		build_file(f, p, list, force, c);
	}
	free(p);
}

int replay_build_tree(int argc, char **argv)
{
	int list = 0, force = 0;
	const char *trace_path = NULL, *dir = NULL;
	struct tree_counts c = { 0 };
	struct ppf_trace *t;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--list"))
			list = 1;
		else if (!strcmp(argv[i], "--force"))
			force = 1;
		else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "ppf-replay build-tree: unknown option %s (see "
					"ppf-replay --help)\n", argv[i]);
			return 2;
		} else if (!trace_path)
			trace_path = argv[i];
		else if (!dir)
			dir = argv[i];
		else {
			fprintf(stderr, "ppf-replay build-tree: too many arguments\n");
			return 2;
		}
	}
	if (!trace_path || !dir) {
		fprintf(stderr, "ppf-replay build-tree: needs TRACE and DIR (usage: ppf-replay "
				"build-tree [--list] [--force] TRACE DIR)\n");
		return 2;
	}
	t = replay_load_trace(trace_path);
	pattern = malloc(CHUNK);
	if (!pattern) {
		fprintf(stderr, "ppf-replay: out of memory\n");
		return 1;
	}
	replay_fill_pattern(pattern, CHUNK);
	if (!list && replay_mkdir_p(dir)) {
		fprintf(stderr, "ppf-replay: cannot create %s: %s\n", dir, strerror(errno));
		return 1;
	}

	for (size_t i = 0; i < t->nfiles; i++)
		build_one(t, i, dir, list, force, &c);
	if (list)
		printf("total: %llu files, %llu dirs, %llu bytes\n", (unsigned long long)c.nfiles,
		       (unsigned long long)c.ndirs, (unsigned long long)c.bytes);
	else
		printf("build-tree %s: %llu files (%llu written, %llu kept), %llu dirs, "
		       "%llu bytes, %llu leftovers removed, %d errors\n",
		       dir, (unsigned long long)c.nfiles, (unsigned long long)c.written,
		       (unsigned long long)c.kept, (unsigned long long)c.ndirs,
		       (unsigned long long)c.bytes, (unsigned long long)c.removed, c.errors);
	free(pattern);
	ppf_trace_free(t);
	return c.errors ? 1 : 0;
}
