/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ppf_platform.h - the few things the models need from their host
 *
 * The models in this directory are built unchanged into the kernel module
 * and into userspace programs (the simulator, tests, fuzzers, benchmark).
 * This header is the only place that knows which of the two it is: it maps
 * fixed-width types, errno values and the create-time allocator.  Nothing
 * here is used on the event path except plain integer types: the models
 * allocate everything they will ever need when they are created.
 */
#ifndef PPF_PLATFORM_H
#define PPF_PLATFORM_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/prefetch.h>

/* Create-time only: may sleep, may use vmalloc for large pools. */
#define ppf_zalloc(size)	kvzalloc((size), GFP_KERNEL)
#define ppf_free(ptr)		kvfree(ptr)
#define ppf_container_of(ptr, type, member)	container_of(ptr, type, member)
#define ppf_cache_prefetch(addr)	prefetch(addr)

#else /* userspace */
/*
 * The invariant checks and pattern counts (ppf_model_check(),
 * ppf_model_pattern_count() and the functions behind them) walk a whole
 * model: the tests, fuzzers and simulator use them, the module is built
 * without them.
 */
#define PPF_MODEL_CHECKS 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <linux/types.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif

#define ppf_zalloc(size)	calloc(1, (size))
#define ppf_free(ptr)		free(ptr)
#define ppf_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define ppf_cache_prefetch(addr)	__builtin_prefetch(addr)
/*
 * The kernel's noinline, for the functions kept out of line on purpose
 * (GCC's noipa: not inlined, nor cloned); a compiler without it (the
 * fuzzers' clang) may inline it, which changes only the cost.
 */
#if defined(__has_attribute)
#if __has_attribute(__noipa__)
#define noinline		__attribute__((__noipa__))
#endif
#endif
#ifndef noinline
#define noinline
#endif
/*
 * __always_inline, for the few functions inlined on purpose, is the C
 * library's here (glibc's <sys/cdefs.h>, as the kernel's is its own).
 */

#endif /* __KERNEL__ */

#endif /* PPF_PLATFORM_H */
