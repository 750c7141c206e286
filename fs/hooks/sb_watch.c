// SPDX-License-Identifier: GPL-2.0
/*
 * sb_watch.c - which file systems are watched, and their open/exec events
 *
 * DOC: Watched file systems
 *
 * ppf watches whole file systems with one fsnotify superblock mark each,
 * the mechanism behind fanotify's FAN_MARK_FILESYSTEM: every open and exec
 * of a file on a marked file system calls ppf_sb_handle_event() in the
 * opening task's context, and unmarked file systems cost nothing.
 *
 * A file system qualifies if it sits on a block device and can encode and
 * decode file handles (ppf remembers files by handle, never by reference),
 * and, if a list of types was set with ppf_sb_set_types() (sysctl's
 * vm.predictive_prefetch.filesystems), if its type is listed: the list is
 * the hooks' own, read under RCU from the read hook and freed when the
 * hooks are.
 * File systems are found as they are used: the read hook (read_hook.c)
 * hands each qualifying super block it has not seen to ppf_sb_discover(),
 * which pins it with an active reference just long enough for a worker to
 * attach the mark.  So file systems mounted after the module loads are
 * covered from their first read on, with no mount notification needed.
 *
 * ppf never keeps a file system busy.  The mark holds no reference on the
 * super block; fsnotify removes it when the file system shuts down, and
 * ppf_sb_freeing_mark() then marks the ppf_sb dead under ppf_sbs_lock.  To
 * use a super block, ppf_sb_pin() (sb.c) takes an active reference only if
 * the ppf_sb is not dead, under the same lock: an unmount that began earlier
 * has already dropped the last active reference, so the pin fails, and one
 * that begins later waits only until ppf_sb_unpin().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/error-injection.h>
#include <linux/fsnotify_backend.h>
#include <linux/exportfs.h>
#include <linux/kref.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include "mm/prefetch/compat.h"
#include "ppf_hooks.h"
#include "sb.h"
#include "sb_watch.h"

/* The watched types: replaced whole under RCU. */
struct ppf_sb_types {
	struct rcu_head rcu;
	char names[PPF_SB_TYPES_MAX];
};

#define PPF_DISCOVER_MAX	16

static struct fsnotify_group *ppf_group;
LIST_HEAD(ppf_sbs);
static unsigned int ppf_nsbs;
static struct super_block *ppf_discover_queue[PPF_DISCOVER_MAX];
static unsigned int ppf_ndiscover;
static bool ppf_discover_stopped;
static void ppf_discover_fn(struct work_struct *work);
static DECLARE_WORK(ppf_discover_work, ppf_discover_fn);
static struct ppf_sb_types __rcu *ppf_sb_types;
/* Serialises ppf_sb_set_types(). */
static DEFINE_MUTEX(ppf_sb_types_mutex);
/* Serialises ppf_sb_watch(): the discovery worker and ppf_sb_find(). */
static DEFINE_MUTEX(ppf_sb_watch_mutex);

/* Is this file system type to be watched?  Callable from any context. */
static bool ppf_sb_type_allowed(const char *name)
{
	const struct ppf_sb_types *types;
	size_t len = strlen(name);
	const char *p;
	bool ok;

	rcu_read_lock();
	types = rcu_dereference(ppf_sb_types);
	ok = !types || !types->names[0];
	for (p = types ? types->names : ""; !ok && *p; ) {
		const char *end = strchrnul(p, ',');

		ok = end - p == len && !strncmp(p, name, len);
		p = *end ? end + 1 : end;
	}
	rcu_read_unlock();
	return ok;
}

/**
 * ppf_sb_watched() - how many file systems are watched
 *
 * Return: the count.
 */
unsigned int ppf_sb_watched(void)
{
	return READ_ONCE(ppf_nsbs);
}

/**
 * ppf_sb_qualifies() - may ppf watch this file system?
 * @sb: the super block of a file being read, so alive
 *
 * Cheap enough for every read of an unwatched file system.
 *
 * Return: true if it is block-backed, can decode file handles and its type
 * is allowed by vm.predictive_prefetch.filesystems.
 */
bool ppf_sb_qualifies(struct super_block *sb)
{
	const struct export_operations *nop = sb->s_export_op;

	if (!sb->s_bdev || !nop || !nop->fh_to_dentry)
		return false;
	if (!(sb->s_flags & SB_BORN) || (sb->s_flags & SB_NOUSER))
		return false;
	return ppf_sb_type_allowed(sb->s_type->name);
}

/**
 * ppf_sb_discover() - start watching a file system
 * @sb: a qualifying super block, alive (a file on it is being read)
 *
 * Callable in any task context without sleeping: pins @sb and leaves the
 * work of marking it to a worker.
 */
void ppf_sb_discover(struct super_block *sb)
{
	unsigned int i;
	bool queue = false;

	spin_lock(&ppf_sbs_lock);
	if (ppf_discover_stopped || ppf_ndiscover == PPF_DISCOVER_MAX)
		goto out;
	for (i = 0; i < ppf_ndiscover; i++)
		if (ppf_discover_queue[i] == sb)
			goto out;
	if (!atomic_inc_not_zero(&sb->s_active))
		goto out;
	ppf_discover_queue[ppf_ndiscover++] = sb;
	queue = true;
out:
	spin_unlock(&ppf_sbs_lock);
	if (queue)
		schedule_work(&ppf_discover_work);
}

/* A watch's allocation, on its own for fail_function (test_faults.sh). */
static noinline struct ppf_sb *ppf_sb_alloc(void)
{
	return kzalloc(sizeof(struct ppf_sb), GFP_KERNEL);
}
ALLOW_ERROR_INJECTION(ppf_sb_alloc, NULL);

static void ppf_sb_watch(struct super_block *sb)
{
	struct ppf_sb *s;
	int err;

	lockdep_assert_held(&ppf_sb_watch_mutex);
	rcu_read_lock();
	s = ppf_sb_lookup_rcu(sb);
	rcu_read_unlock();
	if (s)
		return;
	s = ppf_sb_alloc();
	if (!s)
		return;
	s->sb = sb;
	s->dev = sb->s_dev;
	strscpy(s->type, sb->s_type->name, sizeof(s->type));
	BUILD_BUG_ON(sizeof(s->uuid) != sizeof(sb->s_uuid));
	memcpy(s->uuid, &sb->s_uuid, sizeof(s->uuid));
	kref_init(&s->kref);		/* the mark's */
	INIT_LIST_HEAD(&s->node);
	fsnotify_init_mark(&s->mark, ppf_group);
	s->mark.mask = FS_OPEN | FS_OPEN_EXEC | FS_CREATE;
	/* Visible before the first event can reach the handler. */
	spin_lock(&ppf_sbs_lock);
	list_add_tail_rcu(&s->node, &ppf_sbs);
	ppf_nsbs++;
	spin_unlock(&ppf_sbs_lock);
	err = ppf_add_sb_mark(&s->mark, sb);
	if (err) {
		spin_lock(&ppf_sbs_lock);
		s->dead = true;
		list_del_rcu(&s->node);
		ppf_nsbs--;
		spin_unlock(&ppf_sbs_lock);
		pr_warn("cannot watch %s (%pg): %d\n", sb->s_type->name,
			sb->s_bdev, err);
		/* Our reference: fsnotify calls ->free_mark. */
		fsnotify_put_mark(&s->mark);
		return;
	}
	pr_info("watching %s on %pg\n", sb->s_type->name, sb->s_bdev);
}

static void ppf_discover_fn(struct work_struct *work)
{
	struct super_block *queue[PPF_DISCOVER_MAX];
	unsigned int i, n;

	spin_lock(&ppf_sbs_lock);
	n = ppf_ndiscover;
	memcpy(queue, ppf_discover_queue, n * sizeof(queue[0]));
	ppf_ndiscover = 0;
	spin_unlock(&ppf_sbs_lock);
	for (i = 0; i < n; i++) {
		mutex_lock(&ppf_sb_watch_mutex);
		ppf_sb_watch(queue[i]);
		mutex_unlock(&ppf_sb_watch_mutex);
		deactivate_super(queue[i]);
	}
}

struct ppf_sb_match {
	const u8 *uuid;
	dev_t dev;
	struct super_block *sb;
};

static void ppf_sb_match(struct super_block *sb, void *arg)
{
	struct ppf_sb_match *m = arg;

	if (m->sb || !ppf_sb_qualifies(sb))
		return;
	if (m->uuid ? memcmp(&sb->s_uuid, m->uuid, 16) : sb->s_dev != m->dev)
		return;
	if (atomic_inc_not_zero(&sb->s_active))
		m->sb = sb;
}

/**
 * ppf_sb_find() - a mounted file system by type and UUID (or device), watched
 * @type: its type's name
 * @uuid: its UUID, or NULL to match @dev instead
 * @dev: its device number, if @uuid is NULL
 *
 * For loading a saved state: starts watching the file system if it
 * qualifies and is not watched yet.  May sleep (and may load the type's
 * module, as mount does).
 *
 * Return: its record with a reference (ppf_sb_put()), or NULL if no such
 * file system is mounted, it does not qualify, or the hooks are stopped.
 */
struct ppf_sb *ppf_sb_find(const char *type, const u8 *uuid, dev_t dev)
{
	struct ppf_sb_match m = { .uuid = uuid, .dev = dev };
	struct file_system_type *fst = get_fs_type(type);
	struct ppf_sb *s = NULL;
	bool stopped;

	if (!fst)
		return NULL;
	iterate_supers_type(fst, ppf_sb_match, &m);
	module_put(fst->owner);
	if (!m.sb)
		return NULL;
	spin_lock(&ppf_sbs_lock);
	stopped = ppf_discover_stopped;
	spin_unlock(&ppf_sbs_lock);
	if (!stopped) {
		mutex_lock(&ppf_sb_watch_mutex);
		ppf_sb_watch(m.sb);
		mutex_unlock(&ppf_sb_watch_mutex);
		rcu_read_lock();
		s = ppf_sb_lookup_rcu(m.sb);
		if (s && !kref_get_unless_zero(&s->kref))
			s = NULL;
		rcu_read_unlock();
	}
	deactivate_super(m.sb);
	return s;
}

/*
 * The one place a watched file system's open, exec and create events
 * arrive.  A create names the new file by its inode (data), an open by its
 * path.
 */
static int ppf_sb_handle_event(struct fsnotify_group *group, u32 mask,
			       const void *data, int data_type,
			       struct inode *dir, const struct qstr *name,
			       u32 cookie, struct fsnotify_iter_info *iter_info)
{
	struct fsnotify_mark *mark = fsnotify_iter_sb_mark(iter_info);
	const struct path *path = fsnotify_data_path(data, data_type);
	struct inode *inode = path ? d_inode(path->dentry) : NULL;

	if (mark && (mask & FS_CREATE)) {
		inode = fsnotify_data_inode(data, data_type);
		if (inode && S_ISREG(inode->i_mode))
			ppf_event_create(container_of(mark, struct ppf_sb, mark),
					 inode);
		return 0;
	}
	if (!mark || !inode || !S_ISREG(inode->i_mode))
		return 0;
	ppf_event_open(container_of(mark, struct ppf_sb, mark), path->dentry,
		       mask & FS_OPEN_EXEC);
	return 0;
}

/* The mark is going: its file system is shutting down, or ppf unloads. */
static void ppf_sb_freeing_mark(struct fsnotify_mark *mark,
				struct fsnotify_group *group)
{
	struct ppf_sb *s = container_of(mark, struct ppf_sb, mark);

	spin_lock(&ppf_sbs_lock);
	if (!s->dead) {
		s->dead = true;
		list_del_rcu(&s->node);
		ppf_nsbs--;
	}
	spin_unlock(&ppf_sbs_lock);
	/* The reference ppf_sb_watch() kept; fsnotify holds its own here. */
	fsnotify_put_mark(mark);
}

static void ppf_sb_free_mark(struct fsnotify_mark *mark)
{
	ppf_sb_put(container_of(mark, struct ppf_sb, mark));
}

static const struct fsnotify_ops ppf_fsnotify_ops = {
	.handle_event = ppf_sb_handle_event,
	.freeing_mark = ppf_sb_freeing_mark,
	.free_mark = ppf_sb_free_mark,
};

/*
 * Stop watching file systems no longer allowed, after the types changed.
 * Files already in the file table on them are forgotten as they come up.
 */
static void ppf_sb_recheck(void)
{
	struct ppf_sb *s, *found;

	do {
		found = NULL;
		rcu_read_lock();
		list_for_each_entry_rcu(s, &ppf_sbs, node) {
			if (!READ_ONCE(s->dead) &&
			    !ppf_sb_type_allowed(s->sb->s_type->name) &&
			    kref_get_unless_zero(&s->kref)) {
				found = s;
				break;
			}
		}
		rcu_read_unlock();
		if (found) {
			fsnotify_destroy_mark(&found->mark, ppf_group);
			ppf_sb_put(found);
		}
	} while (found);
}

/* Empty, or type names of [a-z0-9_] separated by single commas. */
static bool ppf_sb_types_valid(const char *s)
{
	bool name = false;

	if (!*s)
		return true;
	for (; *s; s++) {
		if (islower(*s) || isdigit(*s) || *s == '_')
			name = true;
		else if (*s == ',' && name)
			name = false;
		else
			return false;
	}
	return name;
}

/**
 * ppf_sb_set_types() - which file system types to watch
 * @types: empty for every qualifying type, or type names of [a-z0-9_]
 *	separated by single commas, shorter than PPF_SB_TYPES_MAX
 *
 * Stops watching the file systems no longer allowed; those newly allowed
 * are discovered at their next read.  May sleep.
 *
 * Return: 0; -EINVAL if @types is malformed or too long, or -ENOMEM: the
 * types in force then stay.
 */
int ppf_sb_set_types(const char *types)
{
	struct ppf_sb_types *new, *old;

	if (strlen(types) >= PPF_SB_TYPES_MAX || !ppf_sb_types_valid(types))
		return -EINVAL;
	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	strscpy(new->names, types, sizeof(new->names));
	mutex_lock(&ppf_sb_types_mutex);
	old = rcu_replace_pointer(ppf_sb_types, new,
				  lockdep_is_held(&ppf_sb_types_mutex));
	kfree_rcu(old, rcu);
	ppf_sb_recheck();
	mutex_unlock(&ppf_sb_types_mutex);
	return 0;
}

int ppf_sb_watch_init(void)
{
	ppf_discover_stopped = true;	/* until the hooks start */
	ppf_group = fsnotify_alloc_group(&ppf_fsnotify_ops, 0);
	if (IS_ERR(ppf_group))
		return PTR_ERR(ppf_group);
	return 0;
}

/**
 * ppf_sb_watch_resume() - let the read hook discover file systems again
 */
void ppf_sb_watch_resume(void)
{
	spin_lock(&ppf_sbs_lock);
	ppf_discover_stopped = false;
	spin_unlock(&ppf_sbs_lock);
}

/**
 * ppf_sb_unwatch_all() - stop watching every file system
 *
 * Called after the read hook is unregistered, so nothing discovers new
 * file systems meanwhile; may sleep.  With no mark left, fsnotify costs
 * opens nothing at all.
 */
void ppf_sb_unwatch_all(void)
{
	struct ppf_sb *s;

	spin_lock(&ppf_sbs_lock);
	ppf_discover_stopped = true;
	spin_unlock(&ppf_sbs_lock);
	cancel_work_sync(&ppf_discover_work);
	/* Pins left by a cancelled discovery; nothing adds any now. */
	while (ppf_ndiscover)
		deactivate_super(ppf_discover_queue[--ppf_ndiscover]);

	for (;;) {
		spin_lock(&ppf_sbs_lock);
		s = list_first_entry_or_null(&ppf_sbs, struct ppf_sb, node);
		if (s)
			ppf_sb_get(s);
		spin_unlock(&ppf_sbs_lock);
		if (!s)
			break;
		/* Idempotent if an unmount is destroying it right now. */
		fsnotify_destroy_mark(&s->mark, ppf_group);
		ppf_sb_put(s);
		cond_resched();
	}
}

void ppf_sb_watch_exit(void)
{
	ppf_sb_unwatch_all();
	fsnotify_put_group(ppf_group);
	/* ->free_mark of every mark has run once this returns. */
	fsnotify_wait_marks_destroyed();
	/* No hook is left to read it, and sysctl is gone. */
	kfree(rcu_replace_pointer(ppf_sb_types, NULL, true));
}
