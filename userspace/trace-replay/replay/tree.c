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

int replay_build_tree(int argc, char **argv)
{
	int list = 0, force = 0, errors = 0;
	const char *trace_path = NULL, *dir = NULL;
	uint64_t nfiles = 0, ndirs = 0, bytes = 0, written = 0, kept = 0, removed = 0;
	struct ppf_trace *t;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--list"))
			list = 1;
		else if (!strcmp(argv[i], "--force"))
			force = 1;
		else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "ppf-replay build-tree: unknown option %s\n", argv[i]);
			return 1;
		} else if (!trace_path)
			trace_path = argv[i];
		else if (!dir)
			dir = argv[i];
		else {
			fprintf(stderr, "ppf-replay build-tree: too many arguments\n");
			return 1;
		}
	}
	if (!trace_path || !dir) {
		fprintf(stderr, "usage: ppf-replay build-tree [--list] [--force] TRACE DIR\n");
		return 1;
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

	for (size_t i = 0; i < t->nfiles; i++) {
		const struct ppf_trace_file *f = &t->files[i];
		char *p = replay_map_path(dir, f->path);
		struct stat st;

		if (!p) {
			fprintf(stderr, "ppf-replay: file %zu: unusable path '%s'\n", i, f->path);
			errors++;
			continue;
		}
		if (f->created) {
			/* its parent existed (unless it is under a newdir): the run creates it there */
			if (!list && !under_newdir(t, f->path) && replay_mkdir_parents(p)) {
				fprintf(stderr, "ppf-replay: cannot create the parent of %s: %s\n", p,
					strerror(errno));
				errors++;
			}
			/* absent at the start of the run: remove what a replay left */
			if (list || lstat(p, &st)) {
				free(p);
				continue;
			}
			if (!strcmp(f->path, ".") || holds_existing(t, f->path)) {
				free(p);
				continue;
			}
			if (S_ISDIR(st.st_mode) ? nftw(p, rm_one, 16, FTW_DEPTH | FTW_PHYS) : unlink(p)) {
				fprintf(stderr, "ppf-replay: cannot remove %s: %s\n", p, strerror(errno));
				errors++;
			} else {
				removed++;
			}
			free(p);
			continue;
		}
		if (f->is_dir) {
			ndirs++;
			if (list)
				printf("dir  %12s %s\n", "-", p);
			else if (replay_mkdir_p(p)) {
				fprintf(stderr, "ppf-replay: cannot create directory %s: %s\n", p,
					strerror(errno));
				errors++;
			}
			free(p);
			continue;
		}
		nfiles++;
		bytes += f->size;
		if (list) {
			printf("file %12llu %s\n", (unsigned long long)f->size, p);
			free(p);
			continue;
		}
		if (!force && lstat(p, &st) == 0 && S_ISREG(st.st_mode) &&
		    (uint64_t)st.st_size == f->size &&
		    (uint64_t)st.st_blocks * 512 >= f->size) {
			kept++;
			free(p);
			continue;
		}
		if (replay_mkdir_parents(p) || write_file(p, f->size)) {
			fprintf(stderr, "ppf-replay: cannot create %s: %s\n", p, strerror(errno));
			errors++;
		} else {
			written++;
		}
		free(p);
	}
	if (list)
		printf("total: %llu files, %llu dirs, %llu bytes\n", (unsigned long long)nfiles,
		       (unsigned long long)ndirs, (unsigned long long)bytes);
	else
		printf("build-tree %s: %llu files (%llu written, %llu kept), %llu dirs, "
		       "%llu bytes, %llu leftovers removed, %d errors\n",
		       dir, (unsigned long long)nfiles, (unsigned long long)written,
		       (unsigned long long)kept, (unsigned long long)ndirs,
		       (unsigned long long)bytes, (unsigned long long)removed, errors);
	free(pattern);
	ppf_trace_free(t);
	return errors ? 1 : 0;
}
