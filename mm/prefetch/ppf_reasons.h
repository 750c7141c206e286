/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ppf_reasons.h - why an event was not used, why a prediction was not acted on
 *
 * Each list is written once, in the EM()/EMe() idiom of the kernel's trace
 * headers (include/trace/events/writeback.h): an entry names the enum value
 * and the name that /proc/predictive_prefetch and the tracepoints print,
 * and each user defines EM() and EME() (EMe() there; the last entry, for
 * lists that must not end in a comma) to take what it needs.  The enums
 * below, the names in stats.c and the tracepoints' TRACE_DEFINE_ENUM() and
 * __print_symbolic() in ppf_trace.h all expand the same list.  The order is
 * the order of /proc/predictive_prefetch: add at the end.
 *
 * PPF_LIST() only hands its argument on: written around a list, it keeps
 * checkpatch from reading the list as a complex macro.
 */
#ifndef PPF_REASONS_H
#define PPF_REASONS_H

#define PPF_LIST(...)	__VA_ARGS__

/* Why a predicted file was not read ahead. */
#define PPF_SKIP_REASONS PPF_LIST(					\
	EM(PPF_SKIP_UNKNOWN, "unknown")	/* id no longer in the file table */ \
	EM(PPF_SKIP_RECENT, "recent")	/* prefetched a few events ago, not opened since */ \
	EM(PPF_SKIP_LOWMEM, "lowmem")	/* the system is short of free memory */ \
	EM(PPF_SKIP_INFLIGHT, "inflight") /* too much prefetched data still being read */ \
	EM(PPF_SKIP_UNMOUNTED, "unmounted") /* its file system is going or gone */ \
	EM(PPF_SKIP_STALE, "stale")	/* the file no longer exists */	\
	EM(PPF_SKIP_PERM, "perm")	/* the task that caused it may not read it */ \
	EM(PPF_SKIP_CACHED, "cached")	/* everything to read is already cached */ \
	EM(PPF_SKIP_LATE, "late")	/* planned, not opened long after it was expected */ \
	EM(PPF_SKIP_PLAN_FULL, "plan_full") /* the plan was full of more urgent files */ \
	EM(PPF_SKIP_OPENING, "opening")	/* the file the event opened: its task reads it */ \
	EME(PPF_SKIP_SPARSE, "sparse")) /* its use reads too few of its pages for a chunk to pay */

/* Why an event was not used. */
#define PPF_DROP_REASONS PPF_LIST(					\
	EM(PPF_DROP_DISABLED, "disabled")	/* enabled = 0 */		\
	EM(PPF_DROP_RING_FULL, "ring_full")	/* the worker is behind */	\
	EM(PPF_DROP_NO_HANDLE, "no_handle")	/* the file system could not encode a handle */ \
	EM(PPF_DROP_NO_MEMORY, "no_memory")	/* a file-table entry could not be allocated */ \
	EM(PPF_DROP_PAUSED, "paused")	/* its device is paused: prefetching did not pay there */ \
	EME(PPF_DROP_CREATED, "created")) /* the file was created a moment ago (born.c) */

#undef EM
#undef EME
#define EM(a, ...)	a,
#define EME(a, ...)	a,

enum ppf_skip_reason {
	PPF_SKIP_REASONS
	PPF_SKIP_NR
};

enum ppf_drop_reason {
	PPF_DROP_REASONS
	PPF_DROP_NR
};

#undef EM
#undef EME

#endif /* PPF_REASONS_H */
