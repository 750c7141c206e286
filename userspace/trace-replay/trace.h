/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ppf trace parser: reads the line-oriented ppf trace format described in
 * docs/trace-format.md. Plain C (built as C11) + zlib so the same code
 * builds for the simulator on the host and for the replay tool inside a
 * minimal VM.
 *
 * The parser never trusts its input: every number is range checked, every
 * file id is checked against the file table, and any violation makes the
 * whole parse fail with "NAME:LINE: reason" instead of yielding a partial
 * trace that a consumer might silently misuse.
 */
#ifndef PPF_TRACE_H
#define PPF_TRACE_H

#include <stddef.h>
#include <stdint.h>

/* Version written by ppf-trace record; the parser reads MIN..VERSION. */
#define PPF_TRACE_VERSION 3
#define PPF_TRACE_MIN_VERSION 1
/* Value of a numeric meta field that the trace does not carry. */
#define PPF_TRACE_UNKNOWN UINT64_MAX
/* ppf_trace_event.file2 of every op but rename. */
#define PPF_TRACE_NO_FILE UINT32_MAX

enum ppf_trace_op {
	PPF_OP_OPEN,
	PPF_OP_EXEC,
	PPF_OP_READ,
	PPF_OP_WRITE,
	PPF_OP_MMAP,
	PPF_OP_CLOSE,
	PPF_OP_STAT,
	/* version 2 */
	PPF_OP_UNLINK,		/* unlink, unlinkat */
	PPF_OP_RENAME,		/* rename, renameat, renameat2: file -> file2 */
	PPF_OP_MKDIR,		/* mkdir, mkdirat */
	PPF_OP_RMDIR,		/* rmdir, unlinkat(AT_REMOVEDIR) */
	/* version 3 */
	PPF_OP_DUP,		/* dup, dup2, dup3, fcntl F_DUPFD[_CLOEXEC]: fd -> result */
	PPF_OP_COUNT
};

struct ppf_trace_file {
	char *path;		/* relative to the root, or absolute if outside_root */
	uint64_t size;		/* size at the start of the run (0 if created) */
	int created;		/* 1: ORIGIN "new" or "newdir", the workload created it */
	int outside_root;	/* 1: path is absolute, file lies outside the root */
	int is_dir;		/* 1: ORIGIN "dir" or "newdir" (version 2): a directory */
};

struct ppf_trace_event {
	uint64_t start_ns, dur_ns;	/* since trace start, strace-corrected */
	uint32_t pid;
	enum ppf_trace_op op;
	uint32_t file;			/* index into ppf_trace.files */
	int32_t fd;			/* -1 when the op has none (exec, stat, failed open);
					   dup: the fd duplicated (result: the new fd) */
	int64_t offset, len, result;	/* -1 when the op has none */
	uint32_t flags;			/* open: Linux O_* bits; mmap: PROT_* bits;
					   rename: RENAME_* bits; dup: O_CLOEXEC or 0; else 0 */
	uint32_t file2;			/* rename: index of the target; else PPF_TRACE_NO_FILE */
};

struct ppf_trace {
	struct ppf_trace_file *files;
	size_t nfiles;
	struct ppf_trace_event *events;
	size_t nevents;

	int version;
	/* Meta strings, NULL when absent. */
	char *name, *command, *root, *tracer;
	/* Meta numbers, PPF_TRACE_UNKNOWN when absent. */
	uint64_t elapsed_ns;		/* traced wall time as recorded */
	uint64_t corrected_elapsed_ns;	/* same after strace overhead correction */
	uint64_t untraced_elapsed_ns;	/* wall time of an untraced run */
	uint64_t compute_ns;		/* user+sys CPU time of an untraced run */
	uint64_t traced_syscalls;	/* syscalls strace stopped on */
	uint64_t overhead_ns;		/* strace cost per traced call (dur + gap) */
	uint64_t overhead_dur_ns;	/* part of it subtracted from durations */
	uint64_t overhead_gap_ns;	/* part of it subtracted from gaps */
	uint64_t inherited_fd_calls;	/* calls on fds inherited from outside, not events */
	uint64_t dropped_events;	/* events the recorder could not keep */
	char *dropped_events_reason;	/* why, NULL when absent */
};

/* Counts shared by ppf-trace-check and "ppf-trace info" (must stay equal). */
struct ppf_trace_stats {
	uint64_t opens, failed_opens, execs, reads, bytes_read;
	uint64_t writes, bytes_written, mmaps, mapped_bytes, closes, stats;
	uint64_t files, files_new, files_outside;
	/* version 2 */
	uint64_t unlinks, renames, mkdirs, rmdirs;
	uint64_t dirs;			/* file table entries that are directories */
	/* version 3 */
	uint64_t dups;
};

/* 0 on success; on error -1 and a message "FILE:LINE: what is wrong" in err */
int ppf_trace_load(const char *path, struct ppf_trace **out, char *err, size_t errlen);
int ppf_trace_parse(const char *buf, size_t len, const char *name,
		    struct ppf_trace **out, char *err, size_t errlen);
void ppf_trace_free(struct ppf_trace *t);

void ppf_trace_get_stats(const struct ppf_trace *t, struct ppf_trace_stats *s);
const char *ppf_trace_op_name(enum ppf_trace_op op);

/*
 * Undo the C escapes of a PATH or meta VALUE field. Writes a NUL-terminated
 * string of at most len bytes to out (which must hold len + 1 bytes).
 * Returns the decoded length, or -1 with a reason in *why.
 */
long ppf_trace_unescape(const char *in, size_t len, char *out, const char **why);

#endif /* PPF_TRACE_H */
