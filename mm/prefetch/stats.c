// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - /proc/predictive_prefetch: what ppf saw and did
 *
 * One "name value" pair per line, like /proc/vmstat: readable by people and
 * by scripts, and one read gives a consistent-enough snapshot of
 * everything.  procfs rather than sysfs (one value per file would scatter
 * thirty counters over thirty files) or debugfs (not mounted everywhere,
 * and these are counters an operator needs in production).
 *
 * The counters are per CPU (shared.c), summed here when read.
 */
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include "ppf.h"

/* A reason and its name, in list order. */
struct ppf_reason_name {
	unsigned int reason;
	const char *name;
};

#define EM(a, b)	{ a, b },
#define EME(a, b)	{ a, b },

static const struct ppf_reason_name ppf_skip_names[] = { PPF_SKIP_REASONS };
static const struct ppf_reason_name ppf_drop_names[] = { PPF_DROP_REASONS };

#undef EM
#undef EME

static void ppf_stats_sum(struct ppf_stats *sum)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const u64 *src = (const u64 *)per_cpu_ptr(&ppf_stats, cpu);
		u64 *dst = (u64 *)sum;
		size_t i;

		for (i = 0; i < sizeof(*sum) / sizeof(u64); i++)
			dst[i] += READ_ONCE(src[i]);
	}
}

/* The worker's CPU time at the last reset (worker_cpu_ns counts from it). */
static u64 ppf_worker_cpu_base;

/**
 * ppf_stats_reset() - zero every counter
 */
void ppf_stats_reset(void)
{
	int cpu;

	ppf_worker_cpu_base = ppf_engine_worker_cpu_ns();
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&ppf_stats, cpu), 0, sizeof(struct ppf_stats));
}

static int ppf_stats_show(struct seq_file *m, void *v)
{
	struct ppf_domain_stats ds;
	struct ppf_model_stats ms;
	struct ppf_stats s;
	size_t i;

	ppf_stats_sum(&s);
	ppf_engine_model_stats(&ms, &ds);
	seq_printf(m, "enabled %u\n", READ_ONCE(ppf_config.enabled));
	seq_printf(m, "model %s\n", ppf_model_kind_name(ppf_config.model.kind));
	seq_printf(m, "events_open %llu\n", s.events_open);
	seq_printf(m, "events_exec %llu\n", s.events_exec);
	seq_printf(m, "events_read %llu\n", s.events_read);
	seq_printf(m, "predictions %llu\n", s.predictions);
	seq_printf(m, "prefetch_issued %llu\n", s.prefetch_issued);
	seq_printf(m, "pages_requested %llu\n", s.pages_requested);
	seq_printf(m, "pages_cached %llu\n", s.pages_cached);
	seq_printf(m, "prefetch_useful %llu\n", s.prefetch_useful);
	seq_printf(m, "prefetch_wasted %llu\n", s.prefetch_wasted);
	seq_printf(m, "prefetch_early %llu\n", s.prefetch_early);
	seq_printf(m, "pages_wasted %llu\n", s.pages_wasted);
	seq_printf(m, "pages_pending %lu\n", ppf_prefetch_pending_pages());
	seq_printf(m, "prefetch_late %llu\n", s.prefetch_late);
	seq_printf(m, "worker_ns %llu\n", s.worker_ns);
	seq_printf(m, "worker_model_ns %llu\n", s.worker_model_ns);
	seq_printf(m, "worker_readahead_ns %llu\n", s.worker_readahead_ns);
	seq_printf(m, "worker_decode_ns %llu\n", s.worker_decode_ns);
	seq_printf(m, "worker_lookup_ns %llu\n", s.worker_lookup_ns);
	seq_printf(m, "worker_cpu_ns %llu\n",
		   ppf_engine_worker_cpu_ns() - ppf_worker_cpu_base);
	seq_printf(m, "pace_timer_runs %llu\n", s.pace_timer_runs);
	seq_printf(m, "pace_timer_ns %llu\n", s.pace_timer_ns);
	seq_printf(m, "lowmem_batches %llu\n", s.lowmem_batches);
	seq_printf(m, "payoff_pays %llu\n", s.payoff_pays);
	seq_printf(m, "payoff_pauses %llu\n", s.payoff_pauses);
	seq_printf(m, "payoff_unused %llu\n", s.payoff_unused);
	seq_printf(m, "payoff_no_verdict %llu\n", s.payoff_no_verdict);
	seq_printf(m, "payoff_untracked %llu\n", s.payoff_untracked);
	seq_printf(m, "payoff_benefit_us %llu\n", s.payoff_benefit_us);
	seq_printf(m, "payoff_cost_us %llu\n", s.payoff_cost_us);
	seq_printf(m, "lookups %llu\n", s.lookups);
	seq_printf(m, "meta_learned %llu\n", s.meta_learned);
	seq_printf(m, "meta_learned_lookup %llu\n", s.meta_learned_lookup);
	seq_printf(m, "meta_readahead %llu\n", s.meta_readahead);
	seq_printf(m, "lookups_spared %llu\n", s.lookups_spared);
	seq_printf(m, "predictions_repeated %llu\n", s.predictions_repeated);
	seq_printf(m, "decodes %llu\n", s.decodes);
	seq_printf(m, "decodes_spared %llu\n", s.decodes_spared);
	seq_printf(m, "restates %llu\n", s.restates);
	seq_printf(m, "opens_hot %llu\n", s.opens_hot);
	seq_printf(m, "opens_deep %llu\n", s.opens_deep);
	seq_printf(m, "page_maps %llu\n", s.page_maps);
	seq_printf(m, "page_map_runs %llu\n", s.page_map_runs);
	seq_printf(m, "page_map_windows %llu\n", s.page_map_windows);
	seq_printf(m, "page_map_bytes %lu\n", ppf_page_maps_bytes_used());
	seq_printf(m, "opened_planned %llu\n", s.opened_planned);
	seq_printf(m, "sweeps %llu\n", s.sweeps);
	seq_printf(m, "sweep_files %llu\n", s.sweep_files);
	seq_printf(m, "sweeps_in_order %llu\n", s.sweeps_in_order);
	seq_printf(m, "run_sweeps %llu\n", s.run_sweeps);
	seq_printf(m, "run_sweep_files %llu\n", s.run_sweep_files);
	if (static_branch_unlikely(&ppf_measure_hooks)) {
		seq_printf(m, "hook_open_ns %llu\n", s.hook_open_ns);
		seq_printf(m, "hook_read_ns %llu\n", s.hook_read_ns);
	}
	for (i = 0; i < ARRAY_SIZE(ppf_drop_names); i++)
		seq_printf(m, "dropped_%s %llu\n", ppf_drop_names[i].name,
			   s.dropped[ppf_drop_names[i].reason]);
	for (i = 0; i < ARRAY_SIZE(ppf_skip_names); i++)
		seq_printf(m, "skipped_%s %llu\n", ppf_skip_names[i].name,
			   s.skipped[ppf_skip_names[i].reason]);
	seq_printf(m, "skipped_cached_known %llu\n", s.cached_known);
	seq_printf(m, "events_queued %u\n", ppf_ring_unfinished());
	seq_printf(m, "prefetch_inflight_kb %lu\n", ppf_prefetch_inflight_kb());
	seq_printf(m, "files %u\n", ppf_files_count());
	seq_printf(m, "filesystems %u\n", ppf_sb_watched());
	seq_printf(m, "read_fallback %u\n", ppf_hooks_read_fallback());
	seq_printf(m, "model_events %llu\n", ms.events);
	seq_printf(m, "model_nodes %u\n", ms.nodes);
	seq_printf(m, "model_max_nodes %u\n", ms.max_nodes);
	seq_printf(m, "model_partitions %u\n", ms.partitions);
	seq_printf(m, "model_bytes %llu\n", ms.bytes);
	seq_printf(m, "model_bytes_in_use %llu\n", ms.bytes_in_use);
	seq_printf(m, "model_halvings %llu\n", ms.halvings);
	seq_printf(m, "model_nodes_dropped %llu\n", ms.nodes_dropped);
	seq_printf(m, "model_partitions_reclaimed %llu\n", ms.partitions_reclaimed);
	seq_printf(m, "model_contexts %u\n", ms.contexts);
	seq_printf(m, "model_contexts_reclaimed %llu\n", ms.contexts_reclaimed);
	seq_printf(m, "model_surprises %llu\n", ms.surprises);
	seq_printf(m, "model_surprise_predictions %llu\n",
		   ms.surprise_predictions);
	seq_printf(m, "model_domains %u\n", ds.live);
	seq_printf(m, "model_max_domains %u\n", ds.max);
	seq_printf(m, "model_domains_reclaimed %llu\n", ds.reclaimed);
	ppf_state_show(m);
	return 0;
}

int ppf_stats_init(void)
{
	if (!proc_create_single("predictive_prefetch", 0444, NULL, ppf_stats_show))
		return -ENOMEM;
	return 0;
}

void ppf_stats_exit(void)
{
	remove_proc_entry("predictive_prefetch", NULL);
}
