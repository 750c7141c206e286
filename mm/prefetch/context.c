// SPDX-License-Identifier: GPL-2.0
/*
 * context.c - which stream of opens an event belongs to
 *
 * DOC: Contexts
 *
 * The model learns the order of opens per *context* (models/ppf_model.h):
 * the trie of patterns is shared, but each context keeps its own place in
 * it, so that tasks running at once (the compilers of make -j) do not
 * break each other's patterns.  vm.predictive_prefetch.contexts chooses
 * what a context is:
 *
 *  - task: each task (thread) is its own stream.  A new process starts
 *    from the place of the task that forked it, a new thread from its
 *    process's main thread: make's place leads into gcc's, gcc's into
 *    cc1's.  The default: a task is what runs its opens in order.
 *  - process: the threads of a process share one stream.
 *  - global: one stream for the whole system, as in Kroeger & Long.
 *
 * Ids are global pids (unique across pid namespaces).  A pid reused by a
 * new task after the old one's context was forgotten starts afresh; one
 * reused while the old context is still live continues it, a small loss
 * that the model's least-recently-used reclaim bounds.
 */
#include "ppf.h"
#include <linux/sched.h>
#include <linux/sched/signal.h>

static const char * const ppf_contexts_names[] = {
	[PPF_CONTEXTS_GLOBAL] = "global",
	[PPF_CONTEXTS_TASK] = "task",
	[PPF_CONTEXTS_PROCESS] = "process",
};

/**
 * ppf_contexts_name() - the sysctl name of a context mode
 * @mode: a PPF_CONTEXTS_* value
 *
 * Return: its name.
 */
const char *ppf_contexts_name(unsigned int mode)
{
	return ppf_contexts_names[mode];
}

/**
 * ppf_contexts_parse() - the context mode with a given name
 * @name: "global", "task" or "process"
 * @mode: set to the mode
 *
 * Return: 0, or -EINVAL for an unknown name (@mode untouched).
 */
int ppf_contexts_parse(const char *name, unsigned int *mode)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ppf_contexts_names); i++) {
		if (!strcmp(name, ppf_contexts_names[i])) {
			*mode = i;
			return 0;
		}
	}
	return -EINVAL;
}

/**
 * ppf_event_context() - set an event's context and its parent
 * @ev: the event, of the current task
 *
 * Called by the open hook in the opening task; never sleeps.
 */
void ppf_event_context(struct ppf_event *ev)
{
	struct task_struct *parent;

	switch (READ_ONCE(ppf_config.contexts)) {
	case PPF_CONTEXTS_TASK:
		ev->ctx = task_pid_nr(current);
		if (!thread_group_leader(current)) {
			ev->parent = task_tgid_nr(current);
			return;
		}
		rcu_read_lock();
		parent = rcu_dereference(current->real_parent);
		ev->parent = task_pid_nr(parent);
		rcu_read_unlock();
		return;
	case PPF_CONTEXTS_PROCESS:
		ev->ctx = task_tgid_nr(current);
		rcu_read_lock();
		parent = rcu_dereference(current->real_parent);
		ev->parent = task_tgid_nr(parent);
		rcu_read_unlock();
		return;
	default:
		ev->ctx = 0;
		ev->parent = 0;
	}
}
