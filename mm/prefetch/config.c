// SPDX-License-Identifier: GPL-2.0
/*
 * config.c - ppf_config: the tunables' values and their defaults
 *
 * The rest of the engine reads ppf_config (READ_ONCE() on hot paths); only
 * sysctl.c's handlers and loading a saved state change anything, under
 * ppf_config_mutex.  The values live here, apart from the sysctl table,
 * so that reading a tunable does not tie a file to the handlers, which
 * call back into the engine to apply what is written.
 */
#include <linux/ioprio.h>
#include "ppf.h"

/* Serialises writers of ppf_config (sysctl.c's handlers). */
DEFINE_MUTEX(ppf_config_mutex);

struct ppf_config ppf_config = {
	.enabled = 0,
	.max_prefetch_kb = 2048,
	.default_prefetch_kb = 128,
	.max_inflight_kb = 16384,
	.max_inflight_ms = 20,
	.io_class = IOPRIO_CLASS_BE,
	.meta_io_class = PPF_IO_CLASS_AUTO,
	.page_map_windows = PPF_WINDOWS_AUTO,
	.memory_kb = 16384,
	.max_files = 65536,
	.filesystems = "",
	.backoff = 1,
	.metadata = 1,
	.sweep = 1,
	.task_runs = 1,
	.lookahead = PPF_MAX_PREDICTIONS,
	.contexts = PPF_CONTEXTS_TASK,
	.isolation = PPF_ISOLATION_NONE,
	.max_domains = 8,
	.save_events = 65536,
	.skip_new_files_ms = 60 * MSEC_PER_SEC,
};

/**
 * ppf_config_init() - the defaults: EPCM of the model's default shape
 *
 * The node budget is not set here: each domain's comes from its share of
 * memory_kb when its models are made (ppf_domains_create()), which fails
 * if the share cannot hold a model.
 *
 * Return: 0, or -EINVAL if the default shape is not valid.
 */
int ppf_config_init(void)
{
	ppf_model_params_init(&ppf_config.model, PPF_MODEL_EPCM);
	ppf_config.model.max_predictions = PPF_MAX_PREDICTIONS;	/* lookahead caps */
	return ppf_model_params_validate(&ppf_config.model);
}
