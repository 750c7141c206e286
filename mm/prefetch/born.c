// SPDX-License-Identifier: GPL-2.0
/*
 * born.c - files created a moment ago, whose opens teach the model nothing
 *
 * DOC: Files created a moment ago
 *
 * A model learns files by identity (file system and inode).  A file that a
 * workload creates each time it runs (a copy, an object file, a temporary)
 * is a new inode each time: no pattern it appears in can recur.  Worse, it
 * breaks the patterns of the files around it: the model's context after it
 * is new each time, so the files opened next are predicted only from
 * shorter contexts, and where those are ambiguous not at all.  A copy is
 * the plain case: every cp opens the same program and libraries, then its
 * source, then its new copy; what tells which source comes next is the
 * source before, two opens back behind a copy that is new every run.
 * andrew-reads-hdd2001 shows it with the ppf tracepoints of its blktrace
 * run: none of the 35 sources its copy phase reads was predicted before
 * its open.
 *
 * So the hooks tell ppf when a regular file is created (FS_CREATE on the
 * file system's fsnotify mark), and its opens within skip_new_files_ms of
 * that (a minute by default) are not events (dropped_created): not learnt,
 * nothing predicted from them, no entry in the file table; the model's
 * context goes on from the opens around them.  A file that outlives that,
 * data fetched once and used every day after, is learnt from its first
 * open after it.  What is lost: a file that a pattern reads within a
 * minute of creating it is not prefetched, and it is nearly always still
 * in the page cache then, just written.
 *
 * The table is direct-mapped and lossy: a creation takes the slot its hash
 * names, and a file whose slot was taken since is learnt like any other, as
 * before this rule.  Neither side locks: a slot read while it is written
 * misjudges one open, as a lost slot does.
 */
#include <linux/hash.h>
#include <linux/jiffies.h>
#include "ppf.h"

#define PPF_BORN_BITS	11

struct ppf_born {
	const struct ppf_sb *sb;
	unsigned long ino;
	unsigned long when;	/* jiffies at its creation */
};

static struct ppf_born ppf_born[1 << PPF_BORN_BITS];

static struct ppf_born *ppf_born_slot(const struct ppf_sb *s, unsigned long ino)
{
	return &ppf_born[hash_long(ino ^ (unsigned long)s, PPF_BORN_BITS)];
}

/**
 * ppf_born_note() - a regular file was created
 * @s: its file system
 * @ino: its inode number
 *
 * Called from the hooks in the creating task's context; never sleeps.
 */
void ppf_born_note(const struct ppf_sb *s, unsigned long ino)
{
	struct ppf_born *b = ppf_born_slot(s, ino);

	WRITE_ONCE(b->sb, s);
	WRITE_ONCE(b->ino, ino);
	WRITE_ONCE(b->when, jiffies);
}

/**
 * ppf_born_recently() - was a file created less than skip_new_files_ms ago?
 * @s: its file system
 * @ino: its inode number
 *
 * Return: true if its creation is in the table and recent.
 */
bool ppf_born_recently(const struct ppf_sb *s, unsigned long ino)
{
	unsigned int ms = READ_ONCE(ppf_config.skip_new_files_ms);
	const struct ppf_born *b = ppf_born_slot(s, ino);

	return ms && READ_ONCE(b->sb) == s && READ_ONCE(b->ino) == ino &&
	       time_before(jiffies, READ_ONCE(b->when) + msecs_to_jiffies(ms));
}
