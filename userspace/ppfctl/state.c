// SPDX-License-Identifier: GPL-2.0
/*
 * state.c - ppfctl save | load, and the state file read, checked, written
 *
 * save and load move the kernel's state file (/proc/predictive_prefetch_state,
 * models/state_file.h) to and from a file as it is: files by handle and file
 * system UUID, good on this machine across reboots.  export and import
 * (portable.c) translate between that and a portable file naming each file
 * by its path, with the reading, checking and writing here.  Every file
 * read is checked with the kernel's own parser first, so a bad file gets
 * the kernel's reason, here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "state.h"
#include "tunables.h"

#define PPF_MAX_STATE_BYTES	(1ULL << 30)

/* Read all of @path; 0 or -errno. */
static int ppf_slurp(const char *path, struct ppf_buf *b)
{
	size_t cap = 1 << 16;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	b->len = 0;
	b->data = malloc(cap);
	while (b->data) {
		if (b->len == cap) {
			unsigned char *more;

			if (cap >= PPF_MAX_STATE_BYTES) {
				close(fd);
				return -EFBIG;
			}
			cap *= 2;
			more = realloc(b->data, cap);
			if (!more)
				break;
			b->data = more;
		}
		n = read(fd, b->data + b->len, cap - b->len);
		if (n < 0) {
			n = -errno;
			close(fd);
			return (int)n;
		}
		if (n == 0) {
			close(fd);
			return 0;
		}
		b->len += n;
	}
	close(fd);
	return -ENOMEM;
}

/* Write @b to @path through a temporary file, synced, then renamed. */
int ppf_store(const char *path, const struct ppf_buf *b)
{
	char tmp[PATH_MAX];
	size_t off = 0;
	int fd, err = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	while (off < b->len && !err) {
		ssize_t n = write(fd, b->data + off, b->len - off);

		if (n < 0)
			err = -errno;
		else
			off += n;
	}
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

static int ppf_proc_error(const char *what, int err)
{
	if (err == -ENOENT)
		return ppf_not_loaded(PPF_PROC_STATE);
	if (err == -EPERM || err == -EACCES) {
		fprintf(stderr, "ppfctl: %s: %s: needs root (CAP_SYS_ADMIN): the state tells which files every user opened\n",
			what, strerror(-err));
		return 1;
	}
	fprintf(stderr, "ppfctl: %s: %s\n", what, strerror(-err));
	return 1;
}

/* The limits the kernel applies now: max_files and save_events. */
void ppf_kernel_limits(struct ppf_state_limits *lim)
{
	char v[PPF_TUNABLE_MAX];

	lim->max_files = UINT32_MAX;
	lim->max_events = UINT32_MAX;
	if (!ppf_tunable_get("max_files", v, sizeof(v)))
		lim->max_files = strtoul(v, NULL, 10);
	if (!ppf_tunable_get("save_events", v, sizeof(v)))
		lim->max_events = strtoul(v, NULL, 10);
}

/* Read and check a state file; 0, or 1 with the reason printed. */
int ppf_read_state(const char *path, struct ppf_buf *b, struct ppf_state *st,
		   const struct ppf_state_limits *lim)
{
	const char *why;
	int err = ppf_slurp(path, b);

	if (err) {
		if (!strcmp(path, PPF_PROC_STATE))
			return ppf_proc_error("read " PPF_PROC_STATE, err);
		fprintf(stderr, "ppfctl: %s: %s\n", path, strerror(-err));
		return 1;
	}
	why = ppf_state_parse(st, b->data, b->len, lim, &err);
	if (why) {
		fprintf(stderr, "ppfctl: %s: not a usable state: %s\n", path, why);
		return 1;
	}
	return 0;
}

static void ppf_print_loaded(void)
{
	struct ppf_counters cs;

	if (ppf_counters_read(&cs))
		return;
	printf("loaded %llu files (%llu not found, dropped), %llu opens replayed\n",
	       (unsigned long long)ppf_counter(&cs, "state_loaded_files"),
	       (unsigned long long)ppf_counter(&cs, "state_dropped_files"),
	       (unsigned long long)ppf_counter(&cs, "state_loaded_events"));
}

/* Hand a checked handle state to the kernel in one write. */
int ppf_write_kernel(const struct ppf_buf *b)
{
	char enabled[PPF_TUNABLE_MAX];
	ssize_t n;
	int fd, err;

	err = ppf_tunable_get("enabled", enabled, sizeof(enabled));
	if (!err && strcmp(enabled, "1")) {
		fprintf(stderr, "ppfctl: prefetching is disabled: enable it first ('ppfctl enable'); the state is loaded onto the watched file systems\n");
		return 1;
	}
	fd = open(PPF_PROC_STATE, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return ppf_proc_error("open " PPF_PROC_STATE, -errno);
	n = write(fd, b->data, b->len);
	err = n < 0 ? -errno : 0;
	close(fd);
	if (err) {
		fprintf(stderr, "ppfctl: the kernel refused the state: %s (its log says why); the state it had stays\n",
			strerror(-err));
		return 1;
	}
	if ((size_t)n != b->len) {
		fprintf(stderr, "ppfctl: short write of the state\n");
		return 1;
	}
	ppf_print_loaded();
	return 0;
}

int ppf_cmd_save(const char *path)
{
	struct ppf_state_limits lim = { UINT32_MAX, UINT32_MAX, false };
	struct ppf_buf b = { 0 };
	struct ppf_state st;
	int err;

	err = ppf_read_state(PPF_PROC_STATE, &b, &st, &lim);
	if (!err) {
		err = ppf_store(path, &b);
		if (err)
			fprintf(stderr, "ppfctl: %s: %s\n", path, strerror(-err));
		else
			printf("saved %u files, %u opens to %s\n", st.nfiles,
			       st.nevents, path);
		err = !!err;
	}
	free(b.data);
	return err;
}

int ppf_cmd_load(const char *path)
{
	struct ppf_state_limits lim = { .paths = false };
	struct ppf_buf b = { 0 };
	struct ppf_state st;
	int err;

	ppf_kernel_limits(&lim);
	err = ppf_read_state(path, &b, &st, &lim);
	if (!err)
		err = ppf_write_kernel(&b);
	free(b.data);
	return err;
}
