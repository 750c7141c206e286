/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ppf.h - what the parts of the prefetch engine share
 *
 * DOC: Predictive prefetching
 *
 * The hooks (fs/hooks/) see files being opened, executed and read on the
 * watched file systems, and count the folios that leave the page cache
 * (the removal hook).  In the task's context, without sleeping, they hand
 * each open and read to ppf_event_open() and ppf_event_read() (intake.c),
 * which update the file's page ranges in the file table when it is there
 * already (under RCU and the entry's spinlock, file_table.c) and put a
 * small record into a ring (event_ring.c).  One worker, a kernel thread of
 * its own (worker.c), drains the ring: it gives each file a model id
 * (file_table.c, forget.c), feeds the model (models/, through its API
 * only), puts each predicted file in the plan, ordered by when it is
 * expected (pacing.c), and starts the plan's head as asynchronous
 * readahead of the parts of the file that were read last time, a chunk at
 * a time, while the prefetches in flight leave room (readahead.c, whose
 * ledger is inflight.c), after looking it up in its directory if no cached
 * path leads to it (metadata.c), skipping files found all cached before
 * while the removal count has not moved.  The metadata blocks a file's
 * open read (the directory block, the inode's; the hooks' meta_hook.c
 * notes them) are read ahead as it enters the plan, and spare the lookup.
 * engine.c starts and stops it all, and swaps what the worker uses.
 * Everything is controlled with sysctl (sysctl.c, setting ppf_config of
 * config.c; the list of watched types is the hooks' own, set through
 * ppf_sb_set_types()), counted in /proc/predictive_prefetch (stats.c) and
 * visible through tracepoints (ppf_trace.h).
 *
 * The files call each other in one direction only, from the hooks down to
 * the models: no file calls a file that calls it back, however
 * indirectly (scripts/check-call-graph.py checks the module's objects).
 * So forgetting a file is done by forget.c, above the plan, readahead and
 * the file table it takes the file out of; the pacing timer is handed the
 * work it queues; and what every part uses (ppf_config, the counters,
 * ppf_worker_mutex, a file system's record) is defined in files that call
 * nothing of the engine.
 *
 * One line per file, in the order an event meets them:
 *
 *  - fs/hooks/hooks.c: the hooks' lifecycle: set up, hook in, unhook, free
 *  - fs/hooks/sb_watch.c: watched file systems, open/exec/create marks, types
 *  - fs/hooks/sb.c: a watched file system's record: references, pinning
 *  - fs/hooks/read_hook.c: read tracepoints: pages used, discovery
 *  - fs/hooks/meta_hook.c: the metadata blocks each open read
 *  - fs/hooks/removal_hook.c: folios leaving the page cache, counted
 *  - mm/prefetch/intake.c: the hooks' entry points, waking the worker
 *  - mm/prefetch/born.c: files created a moment ago, not learnt
 *  - mm/prefetch/event_ring.c: the ring of events from hooks to worker
 *  - mm/prefetch/context.c: the stream of opens (context) of an event
 *  - mm/prefetch/domain.c: isolation: a model per user or cgroup
 *  - mm/prefetch/worker.c: the worker: events to the model, to the plan
 *  - mm/prefetch/forget.c: a file remembered and forgotten, in order
 *  - mm/prefetch/file_table.c: the files remembered, by handle, and ids
 *  - mm/prefetch/use.c: what a file's uses read, what the next will
 *  - mm/prefetch/page_map.c: the pages a mapped file's uses touched
 *  - mm/prefetch/history.c: the recent opens, kept for saving
 *  - mm/prefetch/lookahead.c: how many files ahead to predict
 *  - mm/prefetch/pacing.c: the plan of predicted files, and its timer
 *  - mm/prefetch/readahead.c: a planned file's readahead, chunk by chunk
 *  - mm/prefetch/inflight.c: readahead in flight, prefetches pending
 *  - mm/prefetch/metadata.c: a predicted file looked up in its directory
 *  - mm/prefetch/io_class.c: the I/O class of the worker's reads, per device
 *  - mm/prefetch/device_latency.c: what a read costs on each device alone
 *  - mm/prefetch/payoff.c: the per-device back-off
 *  - mm/prefetch/engine.c: start, stop, models rebuilt, reset, restore
 *  - mm/prefetch/state.c: /proc/predictive_prefetch_state: save, load
 *  - mm/prefetch/config.c: ppf_config, the tunables' values, defaults
 *  - mm/prefetch/sysctl.c: vm.predictive_prefetch.*, every tunable
 *  - mm/prefetch/shared.c: ppf_worker_mutex and the per-CPU counters
 *  - mm/prefetch/stats.c: /proc/predictive_prefetch, the counters shown
 *  - mm/prefetch/trace.c: the tracepoints of ppf_trace.h, instantiated
 *  - mm/prefetch/main.c: module load and unload
 *  - models/: the models, portable C behind models/ppf_model.h
 *
 * The headers: this one (what the engine's files share), ppf_reasons.h
 * (the drop and skip reasons), page_map_learn.h (what a page map learns
 * of a fault), ppf_trace.h (the tracepoints), compat.h
 * (what changed between 6.1 and 6.12), fs/hooks/ppf_hooks.h (what the
 * hooks and the engine offer each other); fs/hooks/sb.h, read_hook.h,
 * meta_hook.h, removal_hook.h and sb_watch.h are the hooks' own.
 *
 * Locking, outermost first: ppf_config_mutex (sysctl writes, model
 * rebuilds, loading a saved state) > the hooks' ppf_sb_types_mutex
 * (setting the watched types), their ppf_sb_watch_mutex (starting to watch
 * a file system) and ppf_worker_mutex (the model, the file table, the
 * plan, readahead's records; held by the worker per batch) > the ring
 * lock, the file-table
 * entries' locks and the hooks' ppf_sbs_lock, spinlocks none of which
 * nests in another or is held across anything that can sleep.  The hooks
 * take the ring lock, the entries' locks, and ppf_sbs_lock when the read
 * hook discovers a file system.
 */
#ifndef PPF_PREFETCH_H
#define PPF_PREFETCH_H

#include <linux/bits.h>
#include <linux/minmax.h>
#include <linux/types.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/ioprio.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/jump_label.h>
#include "mm/prefetch/compat.h"
#include "models/ppf_model.h"
#include "fs/hooks/ppf_hooks.h"
#include "ppf_reasons.h"
#include "page_map_learn.h"

/* File handles up to this many 32-bit words are kept (ext4: 2-3, xfs: 3-4, btrfs: 5-8). */
#define PPF_FH_WORDS		8

/**
 * struct ppf_config - the tunables, as set through sysctl (config.c)
 * @enabled: act on events at all
 * @model: the model's parameters (kind, partition size, order, threshold);
 *	its max_nodes is not used: each domain's node budget comes from its
 *	share of @memory_kb (ppf_domains_create())
 * @max_prefetch_kb: most read ahead of one file per prediction
 * @default_prefetch_kb: read ahead of a file whose last use is unknown
 * @max_inflight_kb: most prefetched data not yet read from the device
 * @max_inflight_ms: on a device without an arm, most prefetched data in
 *	flight as the time the device takes to move it (0: no bound but
 *	@max_inflight_kb), see device_latency.c
 * @io_class: I/O priority class of the worker's reads (IOPRIO_CLASS_IDLE,
 *	IOPRIO_CLASS_BE, or PPF_IO_CLASS_AUTO: per device), see io_class.c
 * @meta_io_class: the same for its metadata reads (PPF_IO_CLASS_AUTO, the
 *	default: as @io_class), see io_class.c
 * @page_map_windows: whether a page map learns fault-around's windows
 *	whole, from its file's next open: a PPF_WINDOWS_* value (page_map.c)
 * @memory_kb: memory budget of the model
 * @max_files: files remembered in the file table
 * @filesystems: file system types watched, comma separated; empty = all
 *	block-device file systems that can encode file handles
 * @backoff: pause prefetching on a device where it does not pay (payoff.c)
 * @metadata: look a predicted file up in its directory before reading it
 *	(metadata.c)
 * @sweep: read the files a directory's last two visits shared together,
 *	in inode order, at the next visit's first open or prediction (sweep.c)
 * @task_runs: read the files a task's last two runs that began the same
 *	way shared together, in inode order, at the next one's first open
 *	(run_set.c)
 * @contexts: what a context (a stream of opens the model follows) is: a
 *	PPF_CONTEXTS_* value (context.c)
 * @isolation: whose patterns predict whose opens: a PPF_ISOLATION_* value
 *	(domain.c)
 * @max_domains: most domains with a model at once under isolation; each
 *	gets @memory_kb / @max_domains
 * @save_events: most recent opens kept for saving what was learnt
 * @skip_new_files_ms: opens of a file this soon after its creation are not
 *	learnt (born.c; 0: every open is)
 *	(history.c)
 * @lookahead: most files predicted after one event, 1..PPF_MAX_PREDICTIONS
 *	(@model's max_predictions is PPF_MAX_PREDICTIONS, so that this one can
 *	change without rebuilding the model)
 *
 * Readers on hot paths use READ_ONCE(); writers hold ppf_config_mutex.
 */
struct ppf_config {
	unsigned int enabled;
	struct ppf_model_params model;
	unsigned int max_prefetch_kb;
	unsigned int default_prefetch_kb;
	unsigned int max_inflight_kb;
	unsigned int max_inflight_ms;
	unsigned int io_class;
	unsigned int meta_io_class;
	unsigned int page_map_windows;
	unsigned int memory_kb;
	unsigned int max_files;
	char filesystems[PPF_SB_TYPES_MAX];
	unsigned int backoff;
	unsigned int metadata;
	unsigned int sweep;
	unsigned int task_runs;
	unsigned int lookahead;
	unsigned int contexts;
	unsigned int isolation;
	unsigned int max_domains;
	unsigned int save_events;
	unsigned int skip_new_files_ms;
};

/*
 * Which page maps learn fault-around's windows
 * (vm.predictive_prefetch.page_map_windows, DOC: Page maps).
 */
enum {
	PPF_WINDOWS_AUTO,	/* on a rotational device; elsewhere MISSES */
	PPF_WINDOWS_ALWAYS,
	PPF_WINDOWS_NEVER,
	PPF_WINDOWS_MISSES,	/* those around a page not cached, everywhere */
};

/* What a context is (vm.predictive_prefetch.contexts, context.c). */
enum {
	PPF_CONTEXTS_GLOBAL,
	PPF_CONTEXTS_TASK,
	PPF_CONTEXTS_PROCESS,
};

/* Whose patterns predict whose opens (isolation, domain.c). */
enum {
	PPF_ISOLATION_NONE,
	PPF_ISOLATION_USER,
	PPF_ISOLATION_CGROUP,
};

/* The most domains with a model at once (vm.predictive_prefetch.max_domains). */
#define PPF_MAX_DOMAINS		64

extern struct ppf_config ppf_config;
extern struct mutex ppf_config_mutex;

/**
 * struct ppf_stats - per-CPU counters, summed when read
 * @events_open: opens seen while enabled
 * @events_exec: execs seen while enabled
 * @events_read: reads seen while enabled
 * @predictions: files predicted
 * @prefetch_issued: predictions that started readahead
 * @pages_requested: pages read ahead
 * @pages_cached: pages of predicted files found cached already
 * @prefetch_useful: prefetched files opened afterwards
 * @prefetch_wasted: prefetched files not opened in time
 * @prefetch_early: prefetches not opened in time whose pages could not
 *	have left the cache, judged again later (inflight.c)
 * @pages_wasted: pages read ahead for those (@pages_requested's share of
 *	the prefetches that turned out wasted)
 * @prefetch_late: of @prefetch_useful, files opened before their readahead
 *	was done
 * @worker_ns: time the worker spent acting on events
 * @worker_model_ns: of @worker_ns, time inside the model (learning and
 *	predicting)
 * @worker_readahead_ns: of @worker_ns, time in the readahead calls and in
 *	submitting their I/O (the plug's flush)
 * @worker_decode_ns: of @worker_ns, time decoding file handles (reading
 *	a cold file's inode included)
 * @worker_lookup_ns: of @worker_ns, time looking predicted files up in
 *	their directories (metadata.c), reading directory blocks included
 * @pace_timer_runs: times the pacing timer woke the worker
 * @pace_timer_ns: of @worker_ns, time spent in those wake-ups
 * @lowmem_batches: batches of events the worker took late, memory being
 *	too low for any prefetch (intake.c)
 * @payoff_pays: windows in which a device's prefetching paid (payoff.c)
 * @payoff_pauses: windows after which a device was paused: its used
 *	prefetches saved less time than the worker spent
 * @payoff_unused: windows with no prefetch used: no verdict
 * @payoff_no_verdict: windows with too little evidence to judge
 * @payoff_untracked: devices beyond those payoff.c can judge
 * @payoff_benefit_us: the benefit payoff.c counted in every window of
 *	every device that had a latency to count it with (us)
 * @payoff_cost_us: the cost it counted in those windows (us)
 * @lookups: predicted files looked up in their directory ahead of their
 *	open (metadata.c)
 * @meta_learned: metadata blocks learnt from the opens (meta_hook.c)
 * @meta_learned_lookup: of @meta_learned, blocks learnt from the worker's
 *	own decode and lookup of a predicted file (readahead.c)
 * @meta_readahead: metadata blocks read ahead for predicted files
 * @lookups_spared: predicted files not looked up: their directory's
 *	blocks were asked for a few events before, or their last lookup read
 *	nothing of its own (metadata.c)
 * @predictions_repeated: of @predictions, files predicted again for the
 *	very event a standing prediction expects them at, while what was done
 *	for that one holds: nothing to do (pacing.c)
 * @decodes: file handles decoded to start readahead (readahead.c)
 * @decodes_spared: files found all cached from their inode, which the
 *	inode cache held, without decoding their handle (readahead.c)
 * @restates: times the worker had the models name everything again: a
 *	page left a page cache, or the plan dropped a predicted file for
 *	room (worker.c)
 * @opens_hot: opens whose predictions were asked for at the hot depth:
 *	the cache held all that was predicted lately (lookahead.c)
 * @opens_deep: opens whose predictions were asked for at the full
 *	lookahead: deep, or a probe (lookahead.c)
 * @page_maps: page maps made for mapped files (page_map.c)
 * @page_map_runs: runs of pages read ahead from a page map (readahead.c)
 * @page_map_windows: fault-around windows learnt whole by page maps that
 *	learn them (page_map.c)
 * @sweeps: directories swept: their files read together (sweep.c)
 * @sweep_files: files whose readahead a sweep started or found not needed
 * @sweeps_in_order: visits not swept: the directory's visit before
 *	opened its files in inode order (DOC: Sweeps)
 * @run_sweeps: times a task's run read ahead what its key's last two runs
 *	shared (run_set.c)
 * @run_sweep_files: files whose readahead those started or found not needed
 * @opened_planned: mapped files planned at their own open, their learned
 *	pages read as a batch (worker.c)
 * @hook_open_ns: time spent in ppf_event_open(), if measured
 * @hook_read_ns: time spent in ppf_event_read(), if measured
 * @dropped: events not used, by &enum ppf_drop_reason
 * @skipped: predictions not acted on, and swept files passed over, by
 *	&enum ppf_skip_reason
 * @cached_known: of @skipped[PPF_SKIP_CACHED], those decided from what was
 *	found before, without looking at the file
 *
 * See docs/admin-guide.md for what an operator reads in each.
 */
struct ppf_stats {
	u64 events_open;
	u64 events_exec;
	u64 events_read;
	u64 predictions;
	u64 prefetch_issued;
	u64 pages_requested;
	u64 pages_cached;
	u64 prefetch_useful;
	u64 prefetch_wasted;
	u64 prefetch_early;
	u64 pages_wasted;
	u64 prefetch_late;
	u64 worker_ns;
	u64 worker_model_ns;
	u64 worker_readahead_ns;
	u64 worker_decode_ns;
	u64 worker_lookup_ns;
	u64 pace_timer_runs;
	u64 pace_timer_ns;
	u64 lowmem_batches;
	u64 payoff_pays;
	u64 payoff_pauses;
	u64 payoff_unused;
	u64 payoff_no_verdict;
	u64 payoff_untracked;
	u64 payoff_benefit_us;
	u64 payoff_cost_us;
	u64 lookups;
	u64 meta_learned;
	u64 meta_learned_lookup;
	u64 meta_readahead;
	u64 lookups_spared;
	u64 predictions_repeated;
	u64 decodes;
	u64 decodes_spared;
	u64 restates;
	u64 opens_hot;
	u64 opens_deep;
	u64 page_maps;
	u64 page_map_runs;
	u64 page_map_windows;
	u64 opened_planned;
	u64 sweeps;
	u64 sweep_files;
	u64 sweeps_in_order;
	u64 run_sweeps;
	u64 run_sweep_files;
	u64 hook_open_ns;
	u64 hook_read_ns;
	u64 dropped[PPF_DROP_NR];
	u64 skipped[PPF_SKIP_NR];
	u64 cached_known;
};

/* shared.c */
DECLARE_PER_CPU(struct ppf_stats, ppf_stats);
DECLARE_STATIC_KEY_FALSE(ppf_measure_hooks);

#define ppf_stat_inc(field)		this_cpu_inc(ppf_stats.field)
#define ppf_stat_add(field, n)		this_cpu_add(ppf_stats.field, n)

/* Event records between the hooks and the worker. */
enum ppf_event_kind {
	PPF_EV_OPEN,
	PPF_EV_EXEC,
	PPF_EV_READ,
};

/**
 * struct ppf_event - one event on its way to the worker
 * @kind: open, exec or read
 * @fh_len: file handle length in 32-bit words (open, exec)
 * @fh_type: file handle type (open, exec)
 * @sb: the watched file system, with a reference
 * @ino: inode number
 * @gen: inode generation
 * @first: first page read (read)
 * @last: last page read (read)
 * @read_kind: how the task used them (read; &enum ppf_read_kind)
 * @pages: the file's size in pages when it was opened (open, exec)
 * @cred: credentials of the task that opened the file, with a reference
 *	(open, exec)
 * @ctx: the model context the event belongs to (open, exec; context.c)
 * @parent: the context that started @ctx (open, exec; context.c)
 * @domain: whose model learns from it: uid, cgroup id or 0 (open, exec;
 *	domain.c)
 * @fh: the file handle (open, exec), with its directory's if @name is set
 * @name: the name it was opened by, for a file not in the table yet (open,
 *	exec; see DOC: Metadata), or NULL
 * @nr_meta: how many of @meta are set (open, exec)
 * @meta: metadata blocks the task read since its previous open, in
 *	512-byte sectors of the file system's block device (meta_hook.c)
 * @dir_ino: inode number of the directory @name is in, if it is one block
 *	(with @name; 0 otherwise)
 * @parent_ino: inode number of the directory it was opened in (open,
 *	exec; 0: not known)
 * @learn_only: its device is paused (payoff.c): learn the open, act on
 *	nothing
 */
struct ppf_event {
	u8 kind;
	bool learn_only;
	u8 fh_len;
	u8 fh_type;
	struct ppf_sb *sb;
	u64 ino;
	u32 gen;
	pgoff_t first;
	pgoff_t last;
	u8 read_kind;
	pgoff_t pages;
	const struct cred *cred;
	u32 ctx;
	u32 parent;
	u64 domain;
	u32 fh[PPF_FH_WORDS];
	struct ppf_name *name;
	unsigned int nr_meta;
	sector_t meta[PPF_META_BLOCKS];
	u64 dir_ino;
	u64 parent_ino;
};

/**
 * struct ppf_name - a file's name in its directory, as it was opened
 * @len: length, without the NUL
 * @name: the name, NUL-terminated
 */
struct ppf_name {
	u32 len;
	char name[];
};

/* context.c */
const char *ppf_contexts_name(unsigned int mode);
int ppf_contexts_parse(const char *name, unsigned int *mode);
void ppf_event_context(struct ppf_event *ev);

/* domain.c: isolation, a model per domain (uid, cgroup) */
struct ppf_domains;

/**
 * struct ppf_domain_stats - the domains of the current model set
 * @live: domains with a model
 * @max: most domains with a model at once
 * @reclaimed: domains whose model was freed for a new domain's
 */
struct ppf_domain_stats {
	unsigned int live;
	unsigned int max;
	u64 reclaimed;
};

const char *ppf_isolation_name(unsigned int mode);
int ppf_isolation_parse(const char *name, unsigned int *mode);
void ppf_event_domain(struct ppf_event *ev);
struct ppf_domains *ppf_domains_create(const struct ppf_model_params *params,
				       unsigned int memory_kb,
				       unsigned int isolation,
				       unsigned int max_domains, int *err);
void ppf_domains_destroy(struct ppf_domains *d);
struct ppf_model *ppf_domain_model(struct ppf_domains *d, u64 key);
void ppf_domains_restate(struct ppf_domains *d);
void ppf_domains_stats(const struct ppf_domains *d, struct ppf_model_stats *st,
		       struct ppf_domain_stats *ds);

/* event_ring.c */
#define PPF_RING_SIZE	1024	/* events; half full wakes the worker at once */
int ppf_ring_init(unsigned int size);
void ppf_ring_exit(void);
bool ppf_ring_push(const struct ppf_event *ev);
bool ppf_ring_full(void);
unsigned int ppf_ring_pop(struct ppf_event *out, unsigned int max);
unsigned int ppf_ring_unfinished(void);
void ppf_ring_done(unsigned int n);
void ppf_event_release(struct ppf_event *ev);

/**
 * struct ppf_prefetch_state - what readahead knows of one file
 * @predicted_due: event number at which the latest prediction still
 *	standing expects the file (0: none since its last open)
 * @pending_seq: event number of a prefetch not yet followed by an open
 * @pending_chunks: chunks read ahead for that prefetch so far
 * @pending_pages: pages read ahead for it so far (not cached before)
 * @pending_removals: its bucket's page-cache removal count then
 * @pending_rearms: times it was judged again, its pages still cached
 * @cached_first: first page of the range last found all in the page cache
 * @cached_span: pages of that range, before the end of file (0: none found)
 * @cached_pages: of which within the file then
 * @cached_removals: page-cache removal count when it was found cached
 * @cached_quiet: ppf_page_cache_quiet() then (0: something had been
 *	removed since the last mark)
 * @cached_use_gen: the file's use_gen when the range wanted was last
 *	worked out and was the one found cached: while it has not moved, nor
 *	the sysctls below, the range wanted is the same
 * @cached_max_kb: max_prefetch_kb then
 * @cached_default_kb: default_prefetch_kb then
 * @planned: in the plan (pacing.c)
 * @plan_due: while @planned, the due of its entry in the plan, by which
 *	the plan finds it
 *
 * Owned by readahead.c, inflight.c (@pending_seq, @pending_chunks,
 * @pending_pages, @pending_removals, @pending_rearms) and
 * pacing.c (@planned, @plan_due, @predicted_due), under ppf_worker_mutex; zero in a
 * new entry.
 */
struct ppf_prefetch_state {
	bool planned;
	u64 plan_due;
	u64 predicted_due;
	u64 pending_seq;
	u32 pending_chunks;
	u32 pending_pages;
	unsigned long pending_removals;
	u32 pending_rearms;
	pgoff_t cached_first;
	u32 cached_span;
	u32 cached_pages;
	unsigned long cached_removals;
	unsigned long cached_quiet;
	u32 cached_use_gen;
	u32 cached_max_kb;
	u32 cached_default_kb;
};

/*
 * Which parts of a file a use touched, beside its first and last page: one
 * bit per segment of PPF_SEG_PAGES pages (256 KiB), the last bit for
 * everything from segment 63 on (past 15.75 MiB).  A program that maps a
 * 30 MB library and faults in a few parts of it gets those parts
 * prefetched, not the whole span between its first and last page.
 */
#define PPF_SEG_SHIFT	(18 - PAGE_SHIFT)
#define PPF_SEG_PAGES	BIT(PPF_SEG_SHIFT)
#define PPF_SEG_LAST	63
/*
 * The segments whose pages asked for are counted one by one: those of
 * max_prefetch_kb's default, 2 MiB.  Past them a use's pages asked for
 * are taken as spread evenly (DOC: Sparse files).
 */
#define PPF_SPARSE_SEGS	8

static inline u64 ppf_seg_mask(pgoff_t first, pgoff_t last)
{
	return GENMASK_ULL(min_t(pgoff_t, last >> PPF_SEG_SHIFT, PPF_SEG_LAST),
			   min_t(pgoff_t, first >> PPF_SEG_SHIFT, PPF_SEG_LAST));
}

static inline bool ppf_seg_used(u64 map, pgoff_t index)
{
	return map & BIT_ULL(min_t(pgoff_t, index >> PPF_SEG_SHIFT, PPF_SEG_LAST));
}

/**
 * struct ppf_use - the pages of a file a use read
 * @first: first page (> @last: none)
 * @last: last page
 * @map: the segments between them it touched (ppf_seg_mask())
 */
struct ppf_use {
	pgoff_t first;
	pgoff_t last;
	u64 map;
};

/**
 * struct ppf_sparse - how a file read sparsely is expected to be read
 * @ratio: the pages its latest use asked for per 65536 of those it spanned
 * @seg_asked: the pages it asked for in each of its first PPF_SPARSE_SEGS
 *	segments
 *
 * DOC: Sparse files (readahead.c).
 */
struct ppf_sparse {
	u16 ratio;
	u8 seg_asked[PPF_SPARSE_SEGS];
};

/**
 * struct ppf_uses - what a file's uses read (DOC: Uses of a file)
 * @cur: the use going on: what was read since the latest open
 * @core: what the finished uses agree on
 * @full: what they read together
 * @asked: pages the task asked for in the use going on (read, or faulted:
 *	not those mapped around a fault), each time it asked
 * @seg_asked: of those, the pages in each of its first PPF_SPARSE_SEGS
 *	segments (at most 255)
 * @sparse: the latest finished use that asked for fewer pages than it
 *	spanned (ppf_use_pages()); its ratio 0 when it asked for them all,
 *	or no use has finished
 * @past: how often a use reads outside @core, out of 256 (moving average)
 */
struct ppf_uses {
	struct ppf_use cur;
	struct ppf_use core;
	struct ppf_use full;
	u32 asked;
	u8 seg_asked[PPF_SPARSE_SEGS];
	struct ppf_sparse sparse;
	u8 past;
};

/* page_map.c: the bits under the file's lock (DOC: Page maps) */
/* Pages not used between two used runs that are read with them. */
#define PPF_PAGE_MAP_GAP	8
/* Pages a file's use may ask for before it has a map, and seed it whole. */
#define PPF_EARLY_PAGES		8
struct ppf_page_map;
struct ppf_page_map *ppf_page_map_alloc(pgoff_t pages,
					enum ppf_map_learn learn);
void ppf_page_map_free(struct ppf_page_map *m);
unsigned long ppf_page_maps_bytes_used(void);
void ppf_page_map_read(struct ppf_page_map *m, pgoff_t first, pgoff_t last,
		       enum ppf_read_kind kind);
void ppf_page_map_seed(struct ppf_page_map *m, const u32 *pages,
		       unsigned int nr, bool whole);
void ppf_page_map_open(struct ppf_page_map *m);
bool ppf_page_map_set_learn(struct ppf_page_map *m, enum ppf_map_learn learn);
bool ppf_page_map_span(const struct ppf_page_map *m, pgoff_t *first,
		       pgoff_t *last);
unsigned long ppf_page_map_run(const struct ppf_page_map *m, pgoff_t from,
			       unsigned long max, pgoff_t *first);
unsigned int ppf_page_map_save_bytes(const struct ppf_page_map *m);
unsigned int ppf_page_map_save(const struct ppf_page_map *m, u8 *out);
struct ppf_page_map *ppf_page_map_load(const u8 *bits, unsigned int len,
				       unsigned int shift,
				       enum ppf_map_learn learn);

/* use.c: under the file's lock */
void ppf_uses_init(struct ppf_uses *u);
void ppf_uses_count(struct ppf_uses *u, pgoff_t first, pgoff_t last);

static inline bool ppf_use_known(const struct ppf_use *u)
{
	return u->first <= u->last;
}

/* @u widened to cover @v too. */
static inline void ppf_use_join(struct ppf_use *u, const struct ppf_use *v)
{
	if (!ppf_use_known(u)) {
		*u = *v;
		return;
	}
	u->first = min(u->first, v->first);
	u->last = max(u->last, v->last);
	u->map |= v->map;
}

/**
 * ppf_uses_read() - pages of the file were read, in the use going on
 * @u: a file's uses
 * @first: first page
 * @last: last page
 * @asked: the task asked for them (not mapped around a fault)
 *
 * Inline: the read hook calls it at every page-cache access of a file in
 * the table.
 */
static inline void ppf_uses_read(struct ppf_uses *u, pgoff_t first,
				 pgoff_t last, bool asked)
{
	struct ppf_use r = { first, last, ppf_seg_mask(first, last) };

	ppf_use_join(&u->cur, &r);
	if (asked)
		ppf_uses_count(u, first, last);
}

void ppf_uses_open(struct ppf_uses *u);
bool ppf_uses_expected(const struct ppf_uses *u, struct ppf_use *out);
bool ppf_uses_sparse(const struct ppf_uses *u, struct ppf_sparse *out);
void ppf_uses_restore(struct ppf_uses *u, const struct ppf_use *use);

struct ppf_dir;

/**
 * struct ppf_dir_visits - a file's place in its directory's visits (sweep.c)
 * @dir: the directory it was first opened in, NULL if not known
 * @node: in @dir's list of files
 * @last: the latest visit of @dir it was opened in (0: none)
 * @prev: the visit before that it was opened in
 * @swept: the latest visit a sweep read it for
 * @last_run: the latest run of @dir it was opened in (0: none)
 * @prev_run: the run before that it was opened in
 *
 * Under ppf_worker_mutex.
 */
struct ppf_dir_visits {
	struct ppf_dir *dir;
	struct list_head node;
	u32 last;
	u32 prev;
	u32 swept;
	u32 last_run;
	u32 prev_run;
};

/**
 * struct ppf_file - what ppf remembers of one file
 * @key_node: in the (sb, ino) hash, RCU-protected for the read hook
 * @id_node: in the id hash (worker only)
 * @lru: in the table's LRU list (worker only)
 * @rcu: for freeing after readers are done
 * @lock: protects the page ranges and @dead against the read hook
 * @dead: removed from the table; the read hook must not update it
 * @sb: its file system, with a reference
 * @ino: inode number
 * @gen: inode generation
 * @id: the model's id for it
 * @fh_len: file handle length in words
 * @fh_type: file handle type
 * @fh: file handle, with its directory's if @name is set
 * @name: its name in that directory (NULL: not known), see DOC: Metadata
 * @uses: what its uses read (use.c)
 * @mapped: a use of it went through a mapping (a fault was seen)
 * @page_map: the pages its uses asked for, if it was mapped (page_map.c;
 *	set and freed by the worker under @lock)
 * @use_gen: moved by each change to @uses or @page_map, under @lock: a
 *	file found cached is judged so again while it has not moved
 *	(readahead.c)
 * @nr_early_pages: how many of @early_pages are set, PPF_EARLY_PAGES + 1
 *	once more were asked for (under @lock)
 * @early_pages: the first pages the uses since its latest open asked for
 *	or faulted, while it has no page map: they seed the map, so that a
 *	small library that prefetching will keep cached is not left with a
 *	map that no fault teaches (DOC: Page maps)
 * @prefetch: what readahead.c knows of it
 * @save_index: its index in a state being saved (state.c; worker mutex)
 * @nr_meta: how many of @meta are set
 * @meta: metadata blocks its opens read, in 512-byte sectors of its file
 *	system's block device (DOC: Metadata hook; worker mutex)
 * @dir_ino: inode number of the directory @name is in, if that is one
 *	block (0: not known, or larger)
 * @lookup_idle: its last lookup read no block of its own and waited for
 *	another reader's (worker mutex): it is not looked up again (DOC:
 *	Metadata)
 * @visits: its directory, and the visits of that directory it was opened in
 * @run_stamp: the latest task run that noted its open (run_set.c)
 * @run_mark: run_set.c's mark while it finds what two runs shared
 */
struct ppf_file {
	struct hlist_node key_node;
	struct hlist_node id_node;
	struct list_head lru;
	struct rcu_head rcu;
	spinlock_t lock;	/* page ranges and @dead, vs the read hook */
	bool dead;
	struct ppf_sb *sb;
	u64 ino;
	u32 gen;
	u32 id;
	u8 fh_len;
	u8 fh_type;
	u32 fh[PPF_FH_WORDS];
	struct ppf_name *name;
	struct ppf_uses uses;
	bool mapped;
	struct ppf_page_map *page_map;
	u32 use_gen;
	u8 nr_early_pages;
	u32 early_pages[PPF_EARLY_PAGES];
	struct ppf_prefetch_state prefetch;
	u32 save_index;
	unsigned int nr_meta;
	sector_t meta[PPF_META_BLOCKS];
	u64 dir_ino;
	bool lookup_idle;
	struct ppf_dir_visits visits;
	u32 run_stamp;
	u32 run_mark;
};

/*
 * The removal count of @f's bucket of the page caches (DOC: Removal hook):
 * unmoved since a value was read, nothing has left @f's page cache.
 */
static inline unsigned long ppf_file_removals(const struct ppf_file *f)
{
	return ppf_page_cache_removals(ppf_sb_dev(f->sb), f->ino);
}

/* file_table.c */
int ppf_files_init(void);
void ppf_files_exit(void);
struct dentry *ppf_fh_decode(struct super_block *sb, u32 *fh, u8 fh_len,
			     u8 fh_type);
struct ppf_file *ppf_files_add(struct ppf_event *ev);
void ppf_files_touch(struct ppf_file *f);
struct ppf_file *ppf_files_find_id(u32 id);
struct ppf_file *ppf_files_lookup(const struct ppf_sb *s, u64 ino);
struct ppf_file *ppf_files_oldest(void);
void ppf_files_forget(struct ppf_file *f);
unsigned int ppf_files_count(void);
bool ppf_files_note_read(struct ppf_sb *sb, struct inode *inode,
			 pgoff_t first, pgoff_t last, enum ppf_read_kind kind);
void ppf_file_apply_read(struct ppf_file *f, pgoff_t first, pgoff_t last,
			 enum ppf_read_kind kind);
void ppf_file_map_pages(struct ppf_file *f, pgoff_t pages);
bool ppf_file_page_span(struct ppf_file *f, pgoff_t *first, pgoff_t *last);
unsigned long ppf_file_page_run(struct ppf_file *f, pgoff_t from,
				unsigned long max, pgoff_t *first);
unsigned int ppf_file_pages_saved_len(struct ppf_file *f);
unsigned int ppf_file_pages_save(struct ppf_file *f, u8 *out);
void ppf_file_pages_load(struct ppf_file *f, const u8 *bits, unsigned int len,
			 unsigned int shift);
void ppf_file_opened(struct ppf_file *f);
bool ppf_files_note_open(struct ppf_sb *s, struct inode *inode);
bool ppf_file_expected_use(struct ppf_file *f, pgoff_t *first,
			   pgoff_t *last, u64 *map);
bool ppf_file_sparse(struct ppf_file *f, struct ppf_sparse *out);
void ppf_file_set_last_use(struct ppf_file *f, pgoff_t first, pgoff_t last,
			   u64 map);
void ppf_files_set_save_index(u32 index);

/**
 * struct ppf_history_rec - an open a model learnt from (history.c)
 * @file: the file's model id (or, while restoring, its index in the file)
 * @ctx: its context
 * @parent: the context that started @ctx
 * @domain: whose model learnt from it
 */
struct ppf_history_rec {
	u32 file;
	u32 ctx;
	u32 parent;
	u64 domain;
};

/* history.c */
void ppf_history_add(const struct ppf_history_rec *rec);
u32 ppf_history_count(void);
u32 ppf_history_size(void);
const struct ppf_history_rec *ppf_history_get(u32 i);
void ppf_history_clear(void);
int ppf_history_resize(u32 size);
void ppf_history_exit(void);

/**
 * struct ppf_restore_file - a saved file found again, for ppf_engine_restore()
 * @ev: its identity as an open event would give it (file system, inode,
 *	generation, handle, name), so that the file table takes it the same way
 * @first: first page of its last use (> @last: not known)
 * @last: last page of it
 * @map: the segments it read (ppf_seg_mask())
 * @pages: its saved page bitmap, pointing into the state (NULL: none)
 * @pages_len: bytes of @pages
 * @pages_shift: each bit of @pages stands for 2^@pages_shift pages
 * @id: set by ppf_engine_restore(): its model id
 * @found: the file exists; set to false if it could not be added
 */
struct ppf_restore_file {
	struct ppf_event ev;
	pgoff_t first;
	pgoff_t last;
	u64 map;
	const u8 *pages;
	u32 pages_len;
	u8 pages_shift;
	u32 id;
	bool found;
};

/* state.c: /proc/predictive_prefetch_state, save and load */
int ppf_state_init(void);
void ppf_state_exit(void);
void ppf_state_show(struct seq_file *m);

/* metadata.c */
struct ppf_name *ppf_name_copy(const char *name, u32 len, gfp_t gfp);
struct ppf_name *ppf_name_of(struct dentry *dentry);
void ppf_file_learn_meta(struct ppf_file *f, const struct ppf_event *ev);
void ppf_file_learn_blocks(struct ppf_file *f, const sector_t *sector,
			   unsigned int nr);
void ppf_prefetch_meta(struct ppf_file *f, u64 seq);
bool ppf_dir_covered(const struct ppf_file *f, u64 seq);
bool ppf_prefetch_dentry(struct super_block *sb, struct ppf_file *f,
			 const struct cred *cred, u64 seq);

/* shared.c */
extern struct mutex ppf_worker_mutex;

/* born.c */
void ppf_born_note(const struct ppf_sb *s, unsigned long ino);
bool ppf_born_recently(const struct ppf_sb *s, unsigned long ino);

/* intake.c: the hooks' entry points are in fs/hooks/ppf_hooks.h */
void ppf_intake_init(void);
void ppf_intake_stop(void);

/* worker.c */
struct task_struct;
void ppf_worker_wake(void);
void ppf_worker_wake_late(unsigned long delay);
bool ppf_worker_memory_low(void);
void ppf_worker_learn(struct ppf_domains *d, const struct ppf_history_rec *rec);
struct ppf_domains *ppf_worker_set_models(struct ppf_domains *d);
struct ppf_domains *ppf_worker_models(void);
void ppf_worker_restart_count(void);
struct task_struct *ppf_worker_task(void);
int ppf_worker_start(void);
void ppf_worker_stop(void);

/* engine.c */
int ppf_engine_init(void);
void ppf_engine_exit(void);
int ppf_engine_rebuild(const struct ppf_model_params *params,
		       unsigned int memory_kb, unsigned int isolation,
		       unsigned int max_domains);
int ppf_engine_set_io_class(unsigned int class);
void ppf_engine_reset(void);
void ppf_engine_model_stats(struct ppf_model_stats *st,
			    struct ppf_domain_stats *ds);
u64 ppf_engine_worker_cpu_ns(void);
int ppf_engine_restore(struct ppf_restore_file *files, u32 nfiles,
		       const struct ppf_history_rec *events, u32 nevents);

/* io_class.c: the worker's I/O class per device; auto is stored as NONE */
#define PPF_IO_CLASS_AUTO	IOPRIO_CLASS_NONE
int ppf_io_prio(unsigned int class);
void ppf_io_class_for(struct super_block *sb);
void ppf_io_class_meta(struct super_block *sb);

/* inflight.c: the ledger of readahead in flight and prefetches pending */
bool ppf_inflight_room(unsigned long nr, unsigned long limit);
unsigned long ppf_inflight_now(void);
void ppf_inflight_add(u32 id, pgoff_t first, unsigned long span,
		      unsigned long nr, u64 seq, struct address_space *mapping);
void ppf_pending_add(struct ppf_file *f, u64 seq);
void ppf_pending_read(struct ppf_file *f, unsigned long pages);
unsigned long ppf_prefetch_pending_pages(void);
bool ppf_prefetch_busy(void);
bool ppf_prefetch_in_flight(void);
unsigned long ppf_prefetch_retired(void);
unsigned long ppf_prefetch_inflight_kb(void);
void ppf_prefetch_reap(u64 seq);
bool ppf_prefetch_opened(struct ppf_file *f);
void ppf_prefetch_forget_file(struct ppf_file *f);
void ppf_prefetch_forget_all(void);

/* readahead.c */
bool ppf_prefetch_wanted(struct ppf_file *f, u64 seq, enum ppf_skip_reason *why);
/*
 * Files one pacing pass keeps decoded: a large file's chunks alternate
 * with the files expected between them (pacing.c), so a pass comes back
 * to a file after a few others.
 */
#define PPF_SESSION_FILES	4

/**
 * struct ppf_held_file - a file a pacing pass has decoded (readahead.c)
 * @sb: its file system, pinned; NULL for a free slot
 * @dentry: the file, with a reference
 * @id: its id
 * @cred: the credentials it was checked against
 */
struct ppf_held_file {
	struct super_block *sb;
	struct dentry *dentry;
	u32 id;
	const struct cred *cred;
};

/**
 * struct ppf_session - one pacing pass's state (readahead.c)
 * @held: the files it decoded last
 * @next: the slot of @held to reuse next
 * @avail: pages the pass may still start before memory is too low
 * @avail_read: @avail was read (at the pass's first prefetch)
 */
struct ppf_session {
	struct ppf_held_file held[PPF_SESSION_FILES];
	unsigned int next;
	long avail;
	bool avail_read;
};

void ppf_prefetch_begin(struct ppf_session *ps);
void ppf_prefetch_end(struct ppf_session *ps);
bool ppf_prefetch(struct ppf_session *ps, struct ppf_file *f,
		  const struct cred *cred, u64 seq, bool own,
		  pgoff_t *next, enum ppf_skip_reason *why);
bool ppf_prefetch_still_cached(struct ppf_file *f);
bool ppf_prefetch_memory_low(void);

/* payoff.c */
extern unsigned long ppf_payoff_pauses_end;
bool ppf_payoff_paused_slow(struct super_block *sb);

/**
 * ppf_payoff_paused() - is prefetching paused on this file system's device?
 * @sb: the file system of the file opened
 *
 * Called by the open hook in the task's context, without locks, at every
 * open (a paused device's reads are learnt as any other): while no device
 * is paused it is one load and a compare (ppf_payoff_pauses_end).
 *
 * Return: true while the device is paused and pausing is on.
 */
static inline bool ppf_payoff_paused(struct super_block *sb)
{
	if (time_after_eq(jiffies, READ_ONCE(ppf_payoff_pauses_end)))
		return false;
	return ppf_payoff_paused_slow(sb);
}

void ppf_payoff_charge(struct ppf_sb *s, u64 ns, unsigned int predictions);
void ppf_payoff_useful(dev_t dev, u32 reads);
void ppf_payoff_readahead(dev_t dev, u64 ns);
void ppf_payoff_prefetch(dev_t dev, u64 ns);
u64 ppf_payoff_prefetched(void);
void ppf_payoff_learnt(struct ppf_sb *s, u64 ns);
void ppf_payoff_worker_clock(u64 ns);
void ppf_payoff_submitted(u64 ns);

/* device_latency.c */
bool ppf_device_reads(struct ppf_sb *s, u64 *ios, u64 *ns);
bool ppf_device_rotational(struct ppf_sb *s);
void ppf_device_own_read(void);
void ppf_device_sample(struct ppf_sb *s, bool busy);
u64 ppf_device_quiet_latency(dev_t dev);
u64 ppf_device_transfer_ns(dev_t dev, unsigned long pages);
unsigned long ppf_device_queue_pages(struct ppf_sb *s, unsigned long limit);
void ppf_payoff_reset(void);

/* pacing.c */
struct kthread_worker;
struct kthread_work;
struct ppf_file *ppf_plan(u32 id, const struct cred *cred, u64 seq, u16 lead,
			  bool deep);
void ppf_plan_opened(struct ppf_file *f);
void ppf_plan_own(struct ppf_file *f, const struct cred *cred, u64 seq);
unsigned int ppf_plan_sweep(struct ppf_file **files, unsigned int n,
			    const struct cred *cred, u64 seq);
struct ppf_file *ppf_plan_take_gone(void);
bool ppf_plan_take_dropped(void);
bool ppf_plan_pending(void);
void ppf_plan_forget_file(struct ppf_file *f);
void ppf_plan_forget_all(void);
u64 ppf_pace(u64 seq);
void ppf_pace_later(u64 delay_ns);
void ppf_pacing_init(struct kthread_worker *worker, struct kthread_work *work);
void ppf_pacing_stop(void);

/* sweep.c */
void ppf_dir_join(struct ppf_file *f, u64 dir_ino);
void ppf_dir_leave(struct ppf_file *f);
void ppf_sweep_opened(struct ppf_file *f, const struct cred *cred, u64 seq);
void ppf_sweep_predicted(struct ppf_file *f, const struct cred *cred,
			 u64 seq);

/* run_set.c */
void ppf_run_opened(struct ppf_file *f, u32 ctx, const struct cred *cred,
		    u64 seq, bool act, bool late);
void ppf_runs_reset(void);

/* forget.c: a file forgotten by the plan, readahead and the table, in turn */
void ppf_forget_file(struct ppf_file *f);
void ppf_forget_over(unsigned int max_files);
void ppf_forget_gone(void);
struct ppf_file *ppf_file_remember(struct ppf_event *ev);

/* lookahead.c */
#define PPF_SHALLOW		16
unsigned int ppf_lookahead(u64 seq);
void ppf_lookahead_started(bool deep);
void ppf_lookahead_restated(void);
void ppf_lookahead_late(void);
void ppf_lookahead_event(bool idle, bool surprised);
void ppf_lookahead_reset(bool deep);

/* config.c */
int ppf_config_init(void);

/* sysctl.c */
int ppf_sysctl_init(void);
void ppf_sysctl_exit(void);

/* stats.c */
int ppf_stats_init(void);
void ppf_stats_exit(void);
void ppf_stats_reset(void);

#endif /* PPF_PREFETCH_H */
