/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ppf_trace.h - tracepoints of the predictive prefetcher
 *
 * For perf, trace-cmd and bpftrace: every event the model learns from,
 * every prediction, every prefetch started and every prediction not acted
 * on, with the reason.  They cost nothing while disabled.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM predictive_prefetch

#if !defined(_PPF_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _PPF_TRACE_H

#include <linux/ioprio.h>
#include <linux/tracepoint.h>
#include "compat.h"
#include "page_map_learn.h"
#include "ppf_reasons.h"

/* The skip reasons' values, for user space to decode the raw field. */
#undef EM
#undef EME
#define EM(a, ...)	PPF_LIST(TRACE_DEFINE_ENUM(a);)
#define EME(a, ...)	PPF_LIST(TRACE_DEFINE_ENUM(a);)

PPF_SKIP_REASONS

/* And their names, for the text output. */
#undef EM
#undef EME
#define EM(a, b)	{ a, b },
#define EME(a, b)	{ a, b }

#define ppf_show_skip(r)	__print_symbolic(r, PPF_SKIP_REASONS)

TRACE_EVENT(ppf_event,
	    TP_PROTO(dev_t dev, u64 ino, u32 id, bool exec),
	    TP_ARGS(dev, ino, id, exec),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(u64, ino)
			     __field(u32, id)
			     __field(bool, exec)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->ino = ino;
			   __entry->id = id;
			   __entry->exec = exec;),
	    TP_printk("dev=%d:%d ino=%llu id=%u %s", MAJOR(__entry->dev),
		      MINOR(__entry->dev), __entry->ino, __entry->id,
		      __entry->exec ? "exec" : "open")
);

TRACE_EVENT(ppf_prediction,
	    TP_PROTO(u32 from, u32 id, u16 likelihood, u16 lead),
	    TP_ARGS(from, id, likelihood, lead),
	    TP_STRUCT__entry(__field(u32, from)
			     __field(u32, id)
			     __field(u16, likelihood)
			     __field(u16, lead)),
	    TP_fast_assign(__entry->from = from;
			   __entry->id = id;
			   __entry->likelihood = likelihood;
			   __entry->lead = lead;),
	    TP_printk("after=%u id=%u likelihood=%u/1000 lead=%u",
		      __entry->from, __entry->id, __entry->likelihood,
		      __entry->lead)
);

/*
 * The class is the worker's I/O priority when the chunk was started: the
 * event fires in the worker, right after the readahead call, and only an
 * enabled event reads it.
 */
TRACE_EVENT(ppf_prefetch,
	    TP_PROTO(dev_t dev, u64 ino, u32 id, pgoff_t first,
		     unsigned long nr, unsigned long cached),
	    TP_ARGS(dev, ino, id, first, nr, cached),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(u64, ino)
			     __field(u32, id)
			     __field(pgoff_t, first)
			     __field(unsigned long, nr)
			     __field(unsigned long, cached)
			     __field(bool, idle)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->ino = ino;
			   __entry->id = id;
			   __entry->first = first;
			   __entry->nr = nr;
			   __entry->cached = cached;
			   __entry->idle = IOPRIO_PRIO_CLASS(get_current_ioprio()) ==
					   IOPRIO_CLASS_IDLE;),
	    TP_printk("dev=%d:%d ino=%llu id=%u pages=%lu+%lu cached=%lu class=%s",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		      __entry->id, __entry->first, __entry->nr,
		      __entry->cached, __entry->idle ? "idle" : "be")
);

TRACE_DEFINE_ENUM(PPF_MAP_FAULTS);
TRACE_DEFINE_ENUM(PPF_MAP_MISSES);
TRACE_DEFINE_ENUM(PPF_MAP_WINDOWS);

TRACE_EVENT(ppf_page_map,
	    TP_PROTO(dev_t dev, u64 ino, u32 id, pgoff_t pages,
		     enum ppf_map_learn learn),
	    TP_ARGS(dev, ino, id, pages, learn),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(u64, ino)
			     __field(u32, id)
			     __field(pgoff_t, pages)
			     __field(u8, learn)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->ino = ino;
			   __entry->id = id;
			   __entry->pages = pages;
			   __entry->learn = learn;),
	    TP_printk("dev=%d:%d ino=%llu id=%u file_pages=%lu learn=%s",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		      __entry->id, __entry->pages,
		      __print_symbolic(__entry->learn,
				       { PPF_MAP_FAULTS, "faults" },
				       { PPF_MAP_MISSES, "misses" },
				       { PPF_MAP_WINDOWS, "windows" }))
);

TRACE_EVENT(ppf_own_pages,
	    TP_PROTO(u32 id, pgoff_t first, pgoff_t last),
	    TP_ARGS(id, first, last),
	    TP_STRUCT__entry(__field(u32, id)
			     __field(pgoff_t, first)
			     __field(pgoff_t, last)),
	    TP_fast_assign(__entry->id = id;
			   __entry->first = first;
			   __entry->last = last;),
	    TP_printk("id=%u pages=%lu-%lu", __entry->id, __entry->first,
		      __entry->last)
);

TRACE_EVENT(ppf_sweep,
	    TP_PROTO(dev_t dev, u64 dir_ino, u32 visit, unsigned int files,
		     unsigned int done),
	    TP_ARGS(dev, dir_ino, visit, files, done),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(u64, dir_ino)
			     __field(u32, visit)
			     __field(unsigned int, files)
			     __field(unsigned int, done)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->dir_ino = dir_ino;
			   __entry->visit = visit;
			   __entry->files = files;
			   __entry->done = done;),
	    TP_printk("dev=%d:%d dir=%llu visit=%u files=%u done=%u",
		      MAJOR(__entry->dev), MINOR(__entry->dev),
		      __entry->dir_ino, __entry->visit, __entry->files,
		      __entry->done)
);

TRACE_EVENT(ppf_run_sweep,
	    TP_PROTO(u32 ctx, u32 first, unsigned int files, unsigned int done),
	    TP_ARGS(ctx, first, files, done),
	    TP_STRUCT__entry(__field(u32, ctx)
			     __field(u32, first)
			     __field(unsigned int, files)
			     __field(unsigned int, done)),
	    TP_fast_assign(__entry->ctx = ctx;
			   __entry->first = first;
			   __entry->files = files;
			   __entry->done = done;),
	    TP_printk("ctx=%u first=%u files=%u done=%u",
		      __entry->ctx, __entry->first, __entry->files,
		      __entry->done)
);

TRACE_EVENT(ppf_lookup,
	    TP_PROTO(dev_t dev, u64 ino, const char *name, bool found,
		     u64 wait_ns),
	    TP_ARGS(dev, ino, name, found, wait_ns),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(u64, ino)
			     __string(name, name)
			     __field(bool, found)
			     __field(u64, wait_ns)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->ino = ino;
			   ppf_assign_str(name, name);
			   __entry->found = found;
			   __entry->wait_ns = wait_ns;),
	    TP_printk("dev=%d:%d ino=%llu name=%s found=%d wait_us=%llu",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		      __get_str(name), __entry->found,
		      __entry->wait_ns / NSEC_PER_USEC)
);

TRACE_EVENT(ppf_device_rate,
	    TP_PROTO(dev_t dev, u64 rate_kbps, unsigned long queue_kb),
	    TP_ARGS(dev, rate_kbps, queue_kb),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(u64, rate_kbps)
			     __field(unsigned long, queue_kb)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->rate_kbps = rate_kbps;
			   __entry->queue_kb = queue_kb;),
	    TP_printk("dev=%d:%d rate=%llukB/s queue=%lukB",
		      MAJOR(__entry->dev), MINOR(__entry->dev),
		      __entry->rate_kbps, __entry->queue_kb)
);

TRACE_EVENT(ppf_sparse,
	    TP_PROTO(dev_t dev, u32 id, unsigned long most, u32 ratio,
		     u64 latency_ns, u64 segment_ns, bool read),
	    TP_ARGS(dev, id, most, ratio, latency_ns, segment_ns, read),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(u32, id)
			     __field(unsigned long, most)
			     __field(u32, per_mille)
			     __field(u64, latency_ns)
			     __field(u64, segment_ns)
			     __field(bool, read)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->id = id;
			   __entry->most = most;
			   __entry->per_mille = ((u64)ratio * 1000) >> 16;
			   __entry->latency_ns = latency_ns;
			   __entry->segment_ns = segment_ns;
			   __entry->read = read;),
	    TP_printk("dev=%d:%d id=%u most=%lu asked=%u/1000 latency=%lluns segment=%lluns verdict=%s",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->id,
		      __entry->most, __entry->per_mille, __entry->latency_ns,
		      __entry->segment_ns, __entry->read ? "read" : "skip")
);

TRACE_EVENT(ppf_payoff,
	    TP_PROTO(dev_t dev, u64 cost_ns, u64 benefit_ns, u32 predictions,
		     u32 useful, u64 latency_ns, u64 mean_ns, s64 balance_ns,
		     unsigned int pause_ms, u64 readahead_ns),
	    TP_ARGS(dev, cost_ns, benefit_ns, predictions, useful, latency_ns,
		    mean_ns, balance_ns, pause_ms, readahead_ns),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(u64, cost_ns)
			     __field(u64, benefit_ns)
			     __field(u32, predictions)
			     __field(u32, useful)
			     __field(u64, latency_ns)
			     __field(u64, mean_ns)
			     __field(s64, balance_ns)
			     __field(unsigned int, pause_ms)
			     __field(u64, readahead_ns)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->cost_ns = cost_ns;
			   __entry->benefit_ns = benefit_ns;
			   __entry->predictions = predictions;
			   __entry->useful = useful;
			   __entry->latency_ns = latency_ns;
			   __entry->mean_ns = mean_ns;
			   __entry->balance_ns = balance_ns;
			   __entry->pause_ms = pause_ms;
			   __entry->readahead_ns = readahead_ns;),
	    TP_printk("dev=%d:%d cost=%lluns benefit=%lluns predictions=%u useful=%u read_latency=%lluns window_mean=%lluns balance=%lldns pause=%ums readahead=%lluns",
		      MAJOR(__entry->dev), MINOR(__entry->dev),
		      __entry->cost_ns, __entry->benefit_ns,
		      __entry->predictions, __entry->useful,
		      __entry->latency_ns, __entry->mean_ns,
		      __entry->balance_ns,
		      __entry->pause_ms, __entry->readahead_ns)
);

TRACE_EVENT(ppf_prefetch_skip,
	    TP_PROTO(u32 id, int reason),
	    TP_ARGS(id, reason),
	    TP_STRUCT__entry(__field(u32, id)
			     __field(int, reason)),
	    TP_fast_assign(__entry->id = id;
			   __entry->reason = reason;),
	    TP_printk("id=%u reason=%s", __entry->id,
		      ppf_show_skip(__entry->reason))
);

#endif /* _PPF_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE ppf_trace
#include <trace/define_trace.h>
