// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - predictive_prefetch: module load and unload
 *
 * Load order: configuration, file table, engine (model, queue, worker),
 * hooks (set up, but not hooked in until enabled=1), sysctl, statistics,
 * the saved state's file and the history it saves.
 * Unload runs it backwards, and the hooks go before the engine so that no
 * event can reach a worker that is gone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include "ppf.h"

static bool measure_hooks;
module_param(measure_hooks, bool, 0444);
MODULE_PARM_DESC(measure_hooks,
		 "time the open and read hooks (hook_*_ns in /proc/predictive_prefetch)");

static int __init ppf_init(void)
{
	int err;

	err = ppf_config_init();
	if (err)
		return err;
	if (measure_hooks)
		static_branch_enable(&ppf_measure_hooks);
	err = ppf_files_init();
	if (err)
		return err;
	err = ppf_engine_init();
	if (err)
		goto out_files;
	err = ppf_hooks_init();
	if (err)
		goto out_engine;
	err = ppf_sysctl_init();
	if (err)
		goto out_hooks;
	err = ppf_stats_init();
	if (err)
		goto out_sysctl;
	err = ppf_state_init();
	if (err)
		goto out_stats;
	pr_info("loaded (%s, disabled until vm.predictive_prefetch.enabled=1)\n",
		ppf_model_kind_name(ppf_config.model.kind));
	return 0;

out_stats:
	ppf_stats_exit();
out_sysctl:
	ppf_sysctl_exit();
out_hooks:
	ppf_hooks_exit();
out_engine:
	ppf_engine_exit();
out_files:
	ppf_files_exit();
	return err;
}

static void __exit ppf_exit(void)
{
	ppf_state_exit();
	ppf_stats_exit();
	ppf_sysctl_exit();
	ppf_hooks_exit();
	ppf_engine_exit();
	ppf_files_exit();
}

module_init(ppf_init);
module_exit(ppf_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Predictive page-cache prefetching: learns file open order, reads ahead the next files");
MODULE_AUTHOR("ppf developers");
