// SPDX-License-Identifier: GPL-2.0
/*
 * ppf-replay run: the ops. Issue one event's call against the replay tree
 * (in the timed part: no allocation) and judge how it compares with the
 * recorded call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "run.h"

#define OPEN_MASK (O_ACCMODE | O_CREAT | O_EXCL | O_TRUNC | O_APPEND | O_NONBLOCK | \
		   O_DIRECT | O_NOFOLLOW | O_SYNC | O_DSYNC | O_NOATIME | O_NOCTTY)

static volatile uint64_t touch_sink;

/*
 * Map [off, off + len) of fd's file (clamped to its size) and read one byte
 * of each page: every page, or, when --faults names the file, only its
 * listed pages inside the range, in the listed order. *touched: pages read.
 */
static int touch_map(struct replay_state *r, int fd, uint32_t file, uint64_t off,
		     uint64_t len, uint64_t *touched)
{
	struct stat st;
	uint64_t end, sum = 0, n = 0;
	unsigned char *m;

	if (fstat(fd, &st))
		return -errno;
	end = off + len;
	if (end > (uint64_t)st.st_size || end < off)
		end = (uint64_t)st.st_size;
	if (off >= end)
		return 0;
	m = mmap(NULL, end - off, PROT_READ, MAP_PRIVATE, fd, (off_t)off);
	if (m == MAP_FAILED)
		return -errno;
	if (r->fault_first && file < r->nfiles && r->fault_first[file] != REPLAY_NO_FAULTS) {
		const uint64_t *pg = r->fault_page + r->fault_first[file];

		for (uint32_t i = 0; i < r->fault_count[file]; i++) {
			uint64_t at = pg[i] * REPLAY_PAGE;

			if (at >= off && at < end) {
				sum += ((volatile unsigned char *)m)[at - off];
				n++;
			}
		}
	} else {
		for (uint64_t p = 0; p < end - off; p += REPLAY_PAGE, n++)
			sum += ((volatile unsigned char *)m)[p];
	}
	touch_sink += sum;
	munmap(m, end - off);
	if (touched)
		*touched = n;
	return 0;
}

static int read_range(struct replay_state *r, int fd, uint64_t off, uint64_t len,
		      uint64_t *bytes)
{
	uint64_t done = 0;

	while (done < len) {
		size_t n = len - done > r->buflen ? r->buflen : (size_t)(len - done);
		ssize_t got = pread(fd, r->rbuf, n, (off_t)(off + done));

		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		done += (uint64_t)got;
		if ((size_t)got < n)
			break;	/* EOF */
	}
	*bytes += done;
	return 0;
}

static int write_range(struct replay_state *r, int fd, uint64_t off, uint64_t len,
		       uint64_t *bytes)
{
	uint64_t done = 0;

	do {
		size_t n = len - done > r->buflen ? r->buflen : (size_t)(len - done);
		ssize_t w = pwrite(fd, r->wbuf, n, (off_t)(off + done));

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		done += (uint64_t)w;
		if (w == 0)
			break;
	} while (done < len);
	*bytes += done;
	return 0;
}

/* The fd of e's slot; opened here if the trace never showed it opening. */
int replay_slot_fd(struct replay_state *r, struct replay_event *e)
{
	int fd;

	if (e->slot < 0)
		return -1;
	fd = r->slot_fd[e->slot];
	if (fd < 0 && r->slot_opener[e->slot] < 0 && !r->slot_closed[e->slot]) {
		/* an fd the trace never showed opening (dup2 onto 0-2, inherited) */
		fd = open(r->paths[r->slot_file[e->slot]], O_RDWR | O_CLOEXEC);
		if (fd < 0)
			fd = open(r->paths[r->slot_file[e->slot]], O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			r->slot_fd[e->slot] = fd;
	}
	return fd;
}

/* read, write, mmap, close: the calls on an fd slot. */
static int do_fd_op(struct replay_thread *th, struct replay_event *e, enum replay_skip *skipped)
{
	struct replay_state *r = th->r;
	uint64_t touched = 0;
	uint32_t file;
	int fd, ret;

	if (e->op != PPF_OP_CLOSE && e->op != PPF_OP_MMAP && e->res < 0) {
		*skipped = SKIP_FAILED_IN_TRACE;	/* moved no data */
		return 0;
	}
	fd = replay_slot_fd(r, e);
	if (fd < 0) {
		*skipped = SKIP_NO_FD;
		return -EBADF;
	}
	if (e->op == PPF_OP_CLOSE) {
		if (e->close_real) {
			r->slot_fd[e->slot] = -1;
			r->slot_closed[e->slot] = 1;
			return close(fd) ? -errno : 0;
		}
		return 0;
	}
	if (e->op == PPF_OP_READ)
		return read_range(r, fd, (uint64_t)e->off, (uint64_t)e->len, &th->bytes_read);
	if (e->op == PPF_OP_WRITE)
		return write_range(r, fd, (uint64_t)e->off, (uint64_t)e->res, &th->bytes_written);
	if (r->mmap_mode == MMAP_NONE)
		return 0;
	if (r->mmap_mode == MMAP_READ)
		return read_range(r, fd, (uint64_t)e->off, (uint64_t)e->len, &th->bytes_mapped);
	file = r->slot_file[e->slot];
	if (!r->fault_first || file >= r->nfiles || r->fault_first[file] == REPLAY_NO_FAULTS) {
		th->bytes_mapped += (uint64_t)e->len;	/* the range, as without --faults */
		return touch_map(r, fd, file, (uint64_t)e->off, (uint64_t)e->len, NULL);
	}
	ret = touch_map(r, fd, file, (uint64_t)e->off, (uint64_t)e->len, &touched);
	th->bytes_mapped += touched * REPLAY_PAGE;	/* --faults: the pages touched */
	return ret;
}

/*
 * dup (version 3): a real dup of the source slot's fd, so the new fd shares
 * its description as in the recording and nothing is opened again. A dup
 * onto a number whose last holder this was closes that slot, as dup2 does.
 */
static int do_dup(struct replay_state *r, struct replay_event *e, enum replay_skip *skipped)
{
	int fd = replay_slot_fd(r, e), nfd;

	if (fd < 0) {
		*skipped = SKIP_NO_FD;
		return -EBADF;
	}
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (nfd < 0)
		return -errno;
	r->slot_fd[e->slot2] = nfd;
	if (e->drop_slot >= 0) {
		if (r->slot_fd[e->drop_slot] >= 0)
			close(r->slot_fd[e->drop_slot]);
		r->slot_fd[e->drop_slot] = -1;
		r->slot_closed[e->drop_slot] = 1;
	}
	return 0;
}

/* Run one event's call; returns 0 or -errno; *skipped when not issued. */
int replay_do_op(struct replay_thread *th, struct replay_event *e, enum replay_skip *skipped)
{
	struct replay_state *r = th->r;
	int fd, ret;

	switch (e->op) {
	case PPF_OP_OPEN:
		fd = open(r->paths[e->file], (int)(e->flags & OPEN_MASK) | O_CLOEXEC, 0644);
		if (fd < 0)
			return -errno;
		if (e->slot >= 0)
			r->slot_fd[e->slot] = fd;
		else
			close(fd);	/* the recording failed here: do not keep it */
		if (e->flags & O_CREAT)
			r->file_created[e->file] = 1;
		return 0;
	case PPF_OP_EXEC:
		if (r->exec_mode == EXEC_NONE)
			return access(r->paths[e->file], R_OK) ? -errno : 0;
		fd = open(r->paths[e->file], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (r->exec_mode == EXEC_HEAD)
			ret = read_range(r, fd, 0, REPLAY_PAGE, &th->bytes_exec);
		else
			ret = touch_map(r, fd, e->file, 0, UINT64_MAX / 2, NULL);
		close(fd);
		return ret;
	case PPF_OP_READ:
	case PPF_OP_WRITE:
	case PPF_OP_MMAP:
	case PPF_OP_CLOSE:
		return do_fd_op(th, e, skipped);
	case PPF_OP_DUP:
		return do_dup(r, e, skipped);
	case PPF_OP_STAT: {
		struct stat st;

		return stat(r->paths[e->file], &st) ? -errno : 0;
	}
	case PPF_OP_UNLINK:
		if (unlink(r->paths[e->file]))
			return -errno;
		r->file_created[e->file] = 0;
		return 0;
	case PPF_OP_RENAME:
		if (e->flags ? renameat2(AT_FDCWD, r->paths[e->file], AT_FDCWD,
					 r->paths[e->file2], e->flags)
			     : rename(r->paths[e->file], r->paths[e->file2]))
			return -errno;
		r->file_created[e->file2] = 1;
		r->file_created[e->file] = 0;
		return 0;
	case PPF_OP_MKDIR:
		if (mkdir(r->paths[e->file], 0755))
			return -errno;
		r->file_created[e->file] = 1;
		return 0;
	case PPF_OP_RMDIR:
		if (rmdir(r->paths[e->file]))
			return -errno;
		r->file_created[e->file] = 0;
		return 0;
	}
	return -ENOSYS;
}

/* Set e's outcome and errno from the call's return value. */
void replay_judge(struct replay_state *r, struct replay_event *e, int ret, enum replay_skip skipped)
{
	int rec_ok = e->op == PPF_OP_MMAP || e->res >= 0;

	e->err = ret < 0 ? -ret : 0;
	if (skipped == SKIP_FAILED_IN_TRACE) {
		e->outcome = OUT_SKIPPED;
	} else if (skipped == SKIP_NO_FD) {
		e->outcome = OUT_NOFD;
	} else if (ret == 0) {
		e->outcome = rec_ok ? OUT_OK : OUT_UNEXP_OK;
	} else if (!rec_ok) {
		e->outcome = OUT_OK;	/* failed then, fails now */
	} else if (ret == -ENOENT && r->file_new[e->file] && !r->file_created[e->file] &&
		   e->op != PPF_OP_MKDIR && !(e->op == PPF_OP_OPEN && (e->flags & O_CREAT))) {
		/* cleanup of an output that the start state does not have */
		e->outcome = OUT_EXPECTED;
	} else {
		e->outcome = OUT_UNEXPECTED;
	}
}
