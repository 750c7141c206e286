// SPDX-License-Identifier: GPL-2.0
/*
 * domain.c - whose patterns predict whose opens: isolation
 *
 * DOC: Isolation
 *
 * What ppf prefetches can be seen by any task: whether a file's pages are
 * in the page cache shows in mincore(), in a read with RWF_NOWAIT, or in
 * how long a read takes.  With one model for the whole system, a task that
 * opens a file and then probes which files were brought in learns which
 * files other users' tasks opened after that one, and in what order.  ppf
 * only ever prefetches a file for a task that may read it (readahead.c),
 * so what leaks is the order of other users' opens among files the prober
 * may read: which document was opened after which, which program a user
 * runs after logging in.
 *
 * vm.predictive_prefetch.isolation splits the model into domains:
 *
 *  - none: one model for every task (the default, as in Kroeger & Long).
 *  - user: one model per real uid of the opening task.  A task's opens
 *    train, and are predicted from, only the patterns of its own user's
 *    tasks.  The real uid, not the effective one: a set-uid program run by
 *    a user learns into that user's model (its prefetches are still checked
 *    against the opener's own credentials).
 *  - cgroup: one model per cgroup (v2) of the opening task: containers or
 *    services kept apart even when they share a uid.
 *
 * The file table (which files exist, the range of each that was read) is
 * shared: it holds no order.  So are the counters and the per-device
 * back-off.
 *
 * Memory: memory_kb stays the total.  With isolation, each domain's model
 * gets memory_kb / max_domains; a model is allocated at its domain's first
 * event, in the worker, and when max_domains are live, the least recently
 * used one is freed for the new domain (model_domains_reclaimed).  The
 * domain of an event is taken by the hook, in the opening task, with the
 * rest of the event (ppf_event_domain()).
 */
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/error-injection.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uidgid.h>
#include "ppf.h"

static const char * const ppf_isolation_names[] = {
	[PPF_ISOLATION_NONE] = "none",
	[PPF_ISOLATION_USER] = "user",
	[PPF_ISOLATION_CGROUP] = "cgroup",
};

/* The current task's cgroup (v2): a kernel without cgroups has only one. */
#ifdef CONFIG_CGROUPS
static u64 ppf_current_cgroup_id(void)
{
	u64 id;

	rcu_read_lock();
	id = cgroup_id(task_dfl_cgroup(current));
	rcu_read_unlock();
	return id;
}
#else
static u64 ppf_current_cgroup_id(void)
{
	return 0;
}
#endif

/**
 * ppf_isolation_name() - the sysctl name of an isolation mode
 * @mode: a PPF_ISOLATION_* value
 *
 * Return: its name.
 */
const char *ppf_isolation_name(unsigned int mode)
{
	return ppf_isolation_names[mode];
}

/**
 * ppf_isolation_parse() - the isolation mode with a given name
 * @name: "none", "user" or "cgroup"
 * @mode: set to the mode
 *
 * Return: 0, or -EINVAL for an unknown name, or cgroup in a kernel without
 * cgroups (@mode untouched).
 */
int ppf_isolation_parse(const char *name, unsigned int *mode)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ppf_isolation_names); i++) {
		if (i == PPF_ISOLATION_CGROUP && !IS_ENABLED(CONFIG_CGROUPS))
			continue;
		if (!strcmp(name, ppf_isolation_names[i])) {
			*mode = i;
			return 0;
		}
	}
	return -EINVAL;
}

/**
 * ppf_event_domain() - set the domain of an event of the current task
 * @ev: the event
 *
 * Called by the open hook in the opening task; never sleeps.
 */
void ppf_event_domain(struct ppf_event *ev)
{
	switch (READ_ONCE(ppf_config.isolation)) {
	case PPF_ISOLATION_USER:
		ev->domain = from_kuid(&init_user_ns, current_uid());
		return;
	case PPF_ISOLATION_CGROUP:
		ev->domain = ppf_current_cgroup_id();
		return;
	default:
		ev->domain = 0;
	}
}

/**
 * struct ppf_domain - one domain's model
 * @key: the domain (uid or cgroup id; 0 without isolation)
 * @last_used: the set's clock at its last event, for reclaim
 * @model: its model; NULL for a free slot
 */
struct ppf_domain {
	u64 key;
	u64 last_used;
	struct ppf_model *model;
};

/**
 * struct ppf_domains - every domain's model, under ppf_worker_mutex
 * @isolation: the PPF_ISOLATION_* mode the set was made for
 * @params: each domain model's parameters (its share of the budget)
 * @clock: events seen, for least-recently-used reclaim
 * @reclaimed: domains whose model was freed for a new one
 * @last: the slot of the last event's domain (tried first)
 * @n: slots
 * @slot: the domains
 */
struct ppf_domains {
	unsigned int isolation;
	struct ppf_model_params params;
	u64 clock;
	u64 reclaimed;
	unsigned int last;
	unsigned int n;
	struct ppf_domain slot[] __counted_by(n);
};

/**
 * ppf_domains_create() - an empty set of domains
 * @params: the model's parameters; max_nodes is not read: each domain's
 *	node budget is what its share of @memory_kb holds
 * @memory_kb: the memory budget of all the domains' models together
 * @isolation: a PPF_ISOLATION_* mode
 * @max_domains: most domains with a model at once, if @isolation is not none
 * @err: set to the reason when NULL is returned
 *
 * Without isolation the one model is allocated here, so that a failure is
 * the caller's; with it, each model at its domain's first event.
 *
 * Return: the set, or NULL (@err: -EINVAL if a domain's share of
 * @memory_kb cannot hold a model of @params, -ENOMEM).
 */
struct ppf_domains *ppf_domains_create(const struct ppf_model_params *params,
				       unsigned int memory_kb,
				       unsigned int isolation,
				       unsigned int max_domains, int *err)
{
	unsigned int n = isolation == PPF_ISOLATION_NONE ? 1 : max_domains;
	struct ppf_model_params p = *params;
	struct ppf_domains *d;

	p.max_nodes = ppf_model_nodes_for_bytes(params,
						(u64)(memory_kb / n) * 1024);
	if (ppf_model_params_validate(&p)) {
		*err = -EINVAL;
		return NULL;
	}
	d = kzalloc(struct_size(d, slot, n), GFP_KERNEL);
	if (!d) {
		*err = -ENOMEM;
		return NULL;
	}
	d->n = n;
	d->isolation = isolation;
	d->params = p;
	if (isolation == PPF_ISOLATION_NONE) {
		d->slot[0].model = ppf_model_create(&d->params, err);
		if (!d->slot[0].model) {
			kfree(d);
			return NULL;
		}
	}
	return d;
}

/**
 * ppf_domains_destroy() - free a set and every model in it
 * @d: the set, or NULL
 */
void ppf_domains_destroy(struct ppf_domains *d)
{
	unsigned int i;

	if (!d)
		return;
	for (i = 0; i < d->n; i++)
		ppf_model_destroy(d->slot[i].model);
	kfree(d);
}

/* The slot to give a new domain: a free one, or the least recently used. */
static struct ppf_domain *ppf_domain_victim(struct ppf_domains *d)
{
	struct ppf_domain *victim = &d->slot[0];
	unsigned int i;

	for (i = 0; i < d->n; i++) {
		if (!d->slot[i].model)
			return &d->slot[i];
		if (d->slot[i].last_used < victim->last_used)
			victim = &d->slot[i];
	}
	return victim;
}

/* A new domain's model, on its own for fail_function (test_faults.sh). */
static noinline struct ppf_model *
ppf_domain_model_alloc(const struct ppf_model_params *params)
{
	int err;

	return ppf_model_create(params, &err);
}
ALLOW_ERROR_INJECTION(ppf_domain_model_alloc, NULL);

/**
 * ppf_domain_model() - the model of an event's domain
 * @d: the set
 * @key: the event's domain (ppf_event_domain())
 *
 * A domain seen for the first time gets a model, allocated here, in the
 * worker; if every slot is taken, the least recently used domain's model
 * is freed first, so the set never holds more than its budget.
 *
 * Return: the model, or NULL if none could be allocated (the event is then
 * not learnt from).
 */
struct ppf_model *ppf_domain_model(struct ppf_domains *d, u64 key)
{
	struct ppf_domain *dom = &d->slot[d->last];
	unsigned int i;

	lockdep_assert_held(&ppf_worker_mutex);
	d->clock++;
	if (dom->model && dom->key == key)
		goto found;
	for (i = 0; i < d->n; i++) {
		dom = &d->slot[i];
		if (dom->model && dom->key == key) {
			d->last = i;
			goto found;
		}
	}
	dom = ppf_domain_victim(d);
	if (dom->model) {
		ppf_model_destroy(dom->model);
		dom->model = NULL;
		d->reclaimed++;
	}
	dom->model = ppf_domain_model_alloc(&d->params);
	if (!dom->model)
		return NULL;
	dom->key = key;
	d->last = dom - d->slot;
found:
	dom->last_used = d->clock;
	return dom->model;
}

/**
 * ppf_domains_restate() - have every model of the set name everything again
 * @d: the set
 *
 * Each context's next event tells the worker its whole prediction again,
 * not only what is news (ppf_model_restate()).  The caller holds
 * ppf_worker_mutex.
 */
void ppf_domains_restate(struct ppf_domains *d)
{
	unsigned int i;

	lockdep_assert_held(&ppf_worker_mutex);
	for (i = 0; i < d->n; i++)
		if (d->slot[i].model)
			ppf_model_restate(d->slot[i].model);
}

/**
 * ppf_domains_stats() - what the set's models hold, summed
 * @d: the set
 * @st: the sum of the live models' statistics; max_nodes is the budget of
 *	all the domains together
 * @ds: the domains
 */
void ppf_domains_stats(const struct ppf_domains *d, struct ppf_model_stats *st,
		       struct ppf_domain_stats *ds)
{
	struct ppf_model_stats one;
	unsigned int i;

	lockdep_assert_held(&ppf_worker_mutex);
	memset(st, 0, sizeof(*st));
	memset(ds, 0, sizeof(*ds));
	for (i = 0; i < d->n; i++) {
		if (!d->slot[i].model)
			continue;
		ppf_model_stats(d->slot[i].model, &one);
		ppf_model_stats_add(st, &one);
		ds->live++;
	}
	st->max_nodes = d->params.max_nodes * d->n;
	ds->reclaimed = d->reclaimed;
	ds->max = d->n;
}
