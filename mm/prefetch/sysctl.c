// SPDX-License-Identifier: GPL-2.0
/*
 * sysctl.c - vm.predictive_prefetch.*: every tunable, validated
 *
 * The table and its handlers; the values and their defaults are
 * ppf_config's (config.c), which the rest of the engine reads.
 *
 * Every write is parsed into a temporary, checked, and only then applied,
 * under ppf_config_mutex: a value out of range, a negative or non-numeric
 * value, an unknown model name or a model shape the model refuses (such as
 * a model order not below the partition size) fails with EINVAL and the old
 * value stays.  Nothing is clamped.  A change of model or shape builds the
 * new model first and swaps it in, so a failure leaves the old one running.
 */
#include <linux/ioprio.h>
#include <linux/string.h>
#include <linux/sysctl.h>
#include "ppf.h"

/* Longer than any model or I/O class name, with room for a newline. */
#define PPF_NAME_MAX	16

static char ppf_model_name[PPF_NAME_MAX];
static char ppf_io_class_name[PPF_NAME_MAX];
static char ppf_meta_io_class_name[PPF_NAME_MAX];
static char ppf_page_map_windows_name[PPF_NAME_MAX];
static char ppf_contexts_buf[PPF_NAME_MAX];
static char ppf_isolation_buf[PPF_NAME_MAX];
static unsigned int ppf_reset_value;
static struct ctl_table_header *ppf_sysctl_header;

/*
 * Build and swap in the models of @p, @memory_kb in all, split between the
 * domains of @isolation (at most @max_domains); on success they become the
 * configuration.  0, or -errno with nothing changed.
 */
static int ppf_apply_models(struct ppf_model_params p, unsigned int memory_kb,
			    unsigned int isolation, unsigned int max_domains)
{
	int err;

	lockdep_assert_held(&ppf_config_mutex);
	err = ppf_engine_rebuild(&p, memory_kb, isolation, max_domains);
	if (err)
		return err;
	ppf_config.model = p;
	ppf_config.memory_kb = memory_kb;
	WRITE_ONCE(ppf_config.isolation, isolation);
	ppf_config.max_domains = max_domains;
	return 0;
}

/* The same, with the isolation as it is. */
static int ppf_apply_model(struct ppf_model_params p, unsigned int memory_kb)
{
	return ppf_apply_models(p, memory_kb, ppf_config.isolation,
				ppf_config.max_domains);
}

/**
 * struct ppf_tunable - how one numeric sysctl is checked and applied
 * @min: least value
 * @max: greatest value
 * @apply: called with a value in range, under ppf_config_mutex; may refuse
 *	it with -EINVAL; NULL to just store it
 */
struct ppf_tunable {
	unsigned int min;
	unsigned int max;
	int (*apply)(const struct ctl_table *table, unsigned int val);
};

static int ppf_apply_shape(const struct ctl_table *table, unsigned int val)
{
	struct ppf_model_params p = ppf_config.model;

	if (table->data == &ppf_config.model.partition_size)
		p.partition_size = val;
	else if (table->data == &ppf_config.model.model_order)
		p.model_order = val;
	else if (table->data == &ppf_config.model.max_contexts)
		p.max_contexts = val;
	else
		p.threshold_pct = val;
	return ppf_apply_model(p, ppf_config.memory_kb);
}

static int ppf_apply_memory(const struct ctl_table *table, unsigned int val)
{
	return ppf_apply_model(ppf_config.model, val);
}

static int ppf_apply_max_domains(const struct ctl_table *table,
				 unsigned int val)
{
	return ppf_apply_models(ppf_config.model, ppf_config.memory_kb,
				ppf_config.isolation, val);
}

/* The hooks exist only while enabled: disabled costs the system nothing. */
static int ppf_apply_enabled(const struct ctl_table *table, unsigned int val)
{
	int err;

	if (val == ppf_config.enabled)
		return 0;
	if (val) {
		err = ppf_hooks_start();
		if (err)
			return err;
		WRITE_ONCE(ppf_config.enabled, 1);
	} else {
		WRITE_ONCE(ppf_config.enabled, 0);
		ppf_hooks_stop();
	}
	return 0;
}

static int ppf_apply_max_prefetch(const struct ctl_table *table, unsigned int val)
{
	if (val < ppf_config.default_prefetch_kb)
		return -EINVAL;
	ppf_config.max_prefetch_kb = val;
	return 0;
}

static int ppf_apply_default_prefetch(const struct ctl_table *table,
				      unsigned int val)
{
	if (val > ppf_config.max_prefetch_kb)
		return -EINVAL;
	ppf_config.default_prefetch_kb = val;
	return 0;
}

static int ppf_apply_max_files(const struct ctl_table *table, unsigned int val)
{
	WRITE_ONCE(ppf_config.max_files, val);
	mutex_lock(&ppf_worker_mutex);
	ppf_forget_over(val);
	mutex_unlock(&ppf_worker_mutex);
	return 0;
}

static int ppf_apply_save_events(const struct ctl_table *table,
				 unsigned int val)
{
	int err = ppf_history_resize(val);

	if (!err)
		WRITE_ONCE(ppf_config.save_events, val);
	return err;
}

static int ppf_apply_reset(const struct ctl_table *table, unsigned int val)
{
	ppf_engine_reset();
	ppf_stats_reset();
	return 0;
}

static int ppf_sysctl_uint(PPF_CTL_TABLE_CONST struct ctl_table *table,
			   int write, void *buffer, size_t *lenp, loff_t *ppos)
{
	const struct ppf_tunable *t = table->extra1;
	struct ctl_table tmp = *table;
	unsigned int val;
	int err;

	tmp.data = &val;
	mutex_lock(&ppf_config_mutex);
	val = *(unsigned int *)table->data;
	err = proc_douintvec(&tmp, write, buffer, lenp, ppos);
	if (!err && write) {
		if (val < t->min || val > t->max)
			err = -EINVAL;
		else if (t->apply)
			err = t->apply(table, val);
		else
			WRITE_ONCE(*(unsigned int *)table->data, val);
	}
	mutex_unlock(&ppf_config_mutex);
	return err;
}

/*
 * A sysctl that holds one name of a list (model, io_class): shows @shown;
 * a write is handed, trimmed, to @apply, which parses and applies it or
 * refuses it, under ppf_config_mutex.  A name longer than the buffer is
 * refused rather than truncated into another valid name.
 */
static int ppf_sysctl_name(PPF_CTL_TABLE_CONST struct ctl_table *table,
			   int write, void *buffer, size_t *lenp, loff_t *ppos,
			   const char *(*shown)(void),
			   int (*apply)(const char *name))
{
	char name[PPF_NAME_MAX];
	struct ctl_table tmp = *table;
	int err;

	if (write && *lenp >= sizeof(name))
		return -EINVAL;
	tmp.data = name;
	tmp.maxlen = sizeof(name);
	mutex_lock(&ppf_config_mutex);
	strscpy(name, shown(), sizeof(name));
	err = proc_dostring(&tmp, write, buffer, lenp, ppos);
	if (!err && write)
		err = apply(strim(name));
	mutex_unlock(&ppf_config_mutex);
	return err;
}

static const char *ppf_model_shown(void)
{
	return ppf_model_kind_name(ppf_config.model.kind);
}

static int ppf_model_apply(const char *name)
{
	struct ppf_model_params p = ppf_config.model;
	int err = ppf_model_kind_parse(name, &p.kind);

	return err ? err : ppf_apply_model(p, ppf_config.memory_kb);
}

static int ppf_sysctl_model(PPF_CTL_TABLE_CONST struct ctl_table *table,
			    int write, void *buffer, size_t *lenp, loff_t *ppos)
{
	return ppf_sysctl_name(table, write, buffer, lenp, ppos,
			       ppf_model_shown, ppf_model_apply);
}

/*
 * The index of @name among @n @names (a NULL entry names nothing) into
 * *@index; -EINVAL for no entry's name.
 */
static int ppf_name_index(const char * const *names, unsigned int n,
			  const char *name, unsigned int *index)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (names[i] && !strcmp(name, names[i])) {
			*index = i;
			return 0;
		}
	}
	return -EINVAL;
}

/* The io_class names, as ionice(1) calls the classes. */
static const char * const ppf_io_class_names[] = {
	[PPF_IO_CLASS_AUTO] = "auto",
	[IOPRIO_CLASS_BE] = "best-effort",
	[IOPRIO_CLASS_IDLE] = "idle",
};

static const char *ppf_io_class_shown(void)
{
	return ppf_io_class_names[ppf_config.io_class];
}

/* The class named @name into *@class; -EINVAL for no class's name. */
static int ppf_io_class_parse(const char *name, unsigned int *class)
{
	return ppf_name_index(ppf_io_class_names, ARRAY_SIZE(ppf_io_class_names),
			      name, class);
}

static int ppf_io_class_apply(const char *name)
{
	unsigned int class;
	int err = ppf_io_class_parse(name, &class);

	if (err)
		return err;
	err = ppf_engine_set_io_class(class);
	if (!err)
		ppf_config.io_class = class;
	return err;
}

static int ppf_sysctl_io_class(PPF_CTL_TABLE_CONST struct ctl_table *table,
			       int write, void *buffer, size_t *lenp, loff_t *ppos)
{
	return ppf_sysctl_name(table, write, buffer, lenp, ppos,
			       ppf_io_class_shown, ppf_io_class_apply);
}

static const char *ppf_meta_io_class_shown(void)
{
	return ppf_io_class_names[ppf_config.meta_io_class];
}

/* Taken at the worker's next metadata read: nothing to apply now. */
static int ppf_meta_io_class_apply(const char *name)
{
	unsigned int class;
	int err = ppf_io_class_parse(name, &class);

	if (!err)
		WRITE_ONCE(ppf_config.meta_io_class, class);
	return err;
}

static int ppf_sysctl_meta_io_class(PPF_CTL_TABLE_CONST struct ctl_table *table,
				    int write, void *buffer, size_t *lenp,
				    loff_t *ppos)
{
	return ppf_sysctl_name(table, write, buffer, lenp, ppos,
			       ppf_meta_io_class_shown, ppf_meta_io_class_apply);
}

static const char * const ppf_page_map_windows_names[] = {
	[PPF_WINDOWS_AUTO] = "auto",
	[PPF_WINDOWS_ALWAYS] = "always",
	[PPF_WINDOWS_NEVER] = "never",
	[PPF_WINDOWS_MISSES] = "misses",
};

static const char *ppf_page_map_windows_shown(void)
{
	return ppf_page_map_windows_names[ppf_config.page_map_windows];
}

/* Taken by each map at its file's next open: nothing to apply now. */
static int ppf_page_map_windows_apply(const char *name)
{
	unsigned int w;
	int err = ppf_name_index(ppf_page_map_windows_names,
				 ARRAY_SIZE(ppf_page_map_windows_names), name, &w);

	if (!err)
		WRITE_ONCE(ppf_config.page_map_windows, w);
	return err;
}

static int ppf_sysctl_page_map_windows(PPF_CTL_TABLE_CONST struct ctl_table *table,
				       int write, void *buffer, size_t *lenp,
				       loff_t *ppos)
{
	return ppf_sysctl_name(table, write, buffer, lenp, ppos,
			       ppf_page_map_windows_shown,
			       ppf_page_map_windows_apply);
}

static const char *ppf_contexts_shown(void)
{
	return ppf_contexts_name(ppf_config.contexts);
}

/*
 * The model keeps each context's place until it is reclaimed: a new mode
 * takes effect as tasks' events come, no rebuild needed.
 */
static int ppf_contexts_apply(const char *name)
{
	unsigned int mode;
	int err = ppf_contexts_parse(name, &mode);

	if (!err)
		WRITE_ONCE(ppf_config.contexts, mode);
	return err;
}

static int ppf_sysctl_contexts(PPF_CTL_TABLE_CONST struct ctl_table *table,
			       int write, void *buffer, size_t *lenp, loff_t *ppos)
{
	return ppf_sysctl_name(table, write, buffer, lenp, ppos,
			       ppf_contexts_shown, ppf_contexts_apply);
}

static const char *ppf_isolation_shown(void)
{
	return ppf_isolation_name(ppf_config.isolation);
}

/*
 * Patterns learnt under one isolation say nothing about the domains of
 * another (and must not leak into them): a new one starts empty models.
 */
static int ppf_isolation_apply(const char *name)
{
	unsigned int mode;
	int err = ppf_isolation_parse(name, &mode);

	if (err)
		return err;
	return ppf_apply_models(ppf_config.model, ppf_config.memory_kb, mode,
				ppf_config.max_domains);
}

static int ppf_sysctl_isolation(PPF_CTL_TABLE_CONST struct ctl_table *table,
				int write, void *buffer, size_t *lenp, loff_t *ppos)
{
	return ppf_sysctl_name(table, write, buffer, lenp, ppos,
			       ppf_isolation_shown, ppf_isolation_apply);
}

static int ppf_sysctl_filesystems(PPF_CTL_TABLE_CONST struct ctl_table *table,
				  int write, void *buffer, size_t *lenp, loff_t *ppos)
{
	char names[sizeof(ppf_config.filesystems)];
	struct ctl_table tmp = *table;
	char *types;
	int err;

	if (write && *lenp >= sizeof(names))
		return -EINVAL;
	tmp.data = names;
	tmp.maxlen = sizeof(names);
	mutex_lock(&ppf_config_mutex);
	strscpy(names, ppf_config.filesystems, sizeof(names));
	err = proc_dostring(&tmp, write, buffer, lenp, ppos);
	if (!err && write) {
		types = strim(names);
		/* The hooks check and own the list; this is what was set. */
		err = ppf_sb_set_types(types);
		if (!err)
			strscpy(ppf_config.filesystems, types,
				sizeof(ppf_config.filesystems));
	}
	mutex_unlock(&ppf_config_mutex);
	return err;
}

/*
 * One numeric sysctl: its name, the field it sets, its least and greatest
 * values and how it is applied (see struct ppf_tunable).
 */
#define PPF_UINT(_name, _field, _min, _max, _apply) {			\
	.procname = _name, .data = _field, .maxlen = sizeof(unsigned int), \
	.mode = 0644, .proc_handler = ppf_sysctl_uint,			\
	.extra1 = (void *)&(const struct ppf_tunable){ _min, _max, _apply } }

static struct ctl_table ppf_sysctl_table[] = {
	PPF_UINT("enabled", &ppf_config.enabled, 0, 1, ppf_apply_enabled),
	{
		.procname = "model",
		.data = ppf_model_name,
		.maxlen = sizeof(ppf_model_name),
		.mode = 0644,
		.proc_handler = ppf_sysctl_model,
	},
	PPF_UINT("partition_size", &ppf_config.model.partition_size,
		 PPF_MIN_PARTITION_SIZE, PPF_MAX_PARTITION_SIZE, ppf_apply_shape),
	PPF_UINT("model_order", &ppf_config.model.model_order,
		 1, PPF_MAX_PARTITION_SIZE - 1, ppf_apply_shape),
	PPF_UINT("threshold", &ppf_config.model.threshold_pct,
		 1, PPF_MAX_THRESHOLD_PCT, ppf_apply_shape),
	{
		.procname = "contexts",
		.data = ppf_contexts_buf,
		.maxlen = sizeof(ppf_contexts_buf),
		.mode = 0644,
		.proc_handler = ppf_sysctl_contexts,
	},
	PPF_UINT("max_contexts", &ppf_config.model.max_contexts,
		 1, PPF_MAX_CONTEXTS, ppf_apply_shape),
	{
		.procname = "isolation",
		.data = ppf_isolation_buf,
		.maxlen = sizeof(ppf_isolation_buf),
		.mode = 0644,
		.proc_handler = ppf_sysctl_isolation,
	},
	PPF_UINT("max_domains", &ppf_config.max_domains, 1, PPF_MAX_DOMAINS,
		 ppf_apply_max_domains),
	/* At most 1 GiB per file. */
	PPF_UINT("max_prefetch_kb", &ppf_config.max_prefetch_kb,
		 4, 1024 * 1024, ppf_apply_max_prefetch),
	PPF_UINT("default_prefetch_kb", &ppf_config.default_prefetch_kb,
		 4, 1024 * 1024, ppf_apply_default_prefetch),
	/* At most 4 GiB. */
	PPF_UINT("max_inflight_kb", &ppf_config.max_inflight_kb,
		 4, 4 * 1024 * 1024, NULL),
	/* At most 10 s; 0: bytes alone. */
	PPF_UINT("max_inflight_ms", &ppf_config.max_inflight_ms,
		 0, 10 * MSEC_PER_SEC, NULL),
	{
		.procname = "io_class",
		.data = ppf_io_class_name,
		.maxlen = sizeof(ppf_io_class_name),
		.mode = 0644,
		.proc_handler = ppf_sysctl_io_class,
	},
	{
		.procname = "meta_io_class",
		.data = ppf_meta_io_class_name,
		.maxlen = sizeof(ppf_meta_io_class_name),
		.mode = 0644,
		.proc_handler = ppf_sysctl_meta_io_class,
	},
	{
		.procname = "page_map_windows",
		.data = ppf_page_map_windows_name,
		.maxlen = sizeof(ppf_page_map_windows_name),
		.mode = 0644,
		.proc_handler = ppf_sysctl_page_map_windows,
	},
	/* At most 1 GiB. */
	PPF_UINT("memory_kb", &ppf_config.memory_kb,
		 1, 1024 * 1024, ppf_apply_memory),
	PPF_UINT("max_files", &ppf_config.max_files,
		 64, 16 * 1024 * 1024, ppf_apply_max_files),
	{
		.procname = "filesystems",
		.data = ppf_config.filesystems,
		.maxlen = sizeof(ppf_config.filesystems),
		.mode = 0644,
		.proc_handler = ppf_sysctl_filesystems,
	},
	PPF_UINT("backoff", &ppf_config.backoff, 0, 1, NULL),
	PPF_UINT("metadata", &ppf_config.metadata, 0, 1, NULL),
	PPF_UINT("sweep", &ppf_config.sweep, 0, 1, NULL),
	PPF_UINT("task_runs", &ppf_config.task_runs, 0, 1, NULL),
	PPF_UINT("lookahead", &ppf_config.lookahead, 1, PPF_MAX_PREDICTIONS,
		 NULL),
	/* 24 bytes an open: at most 24 MiB. */
	PPF_UINT("save_events", &ppf_config.save_events, 0, 1024 * 1024,
		 ppf_apply_save_events),
	/* At most an hour. */
	PPF_UINT("skip_new_files_ms", &ppf_config.skip_new_files_ms, 0,
		 3600 * MSEC_PER_SEC, NULL),
	PPF_UINT("reset", &ppf_reset_value, 1, 1, ppf_apply_reset),
	PPF_CTL_TABLE_END
};

int ppf_sysctl_init(void)
{
	ppf_sysctl_header = register_sysctl("vm/predictive_prefetch",
					    ppf_sysctl_table);
	return ppf_sysctl_header ? 0 : -ENOMEM;
}

void ppf_sysctl_exit(void)
{
	unregister_sysctl_table(ppf_sysctl_header);
}
