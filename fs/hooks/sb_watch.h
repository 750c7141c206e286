/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sb_watch.h - watched file systems, for the other hooks
 */
#ifndef PPF_SB_WATCH_H
#define PPF_SB_WATCH_H

#include <linux/fs.h>

struct ppf_sb;

int ppf_sb_watch_init(void);
void ppf_sb_watch_exit(void);
void ppf_sb_watch_resume(void);
void ppf_sb_unwatch_all(void);
bool ppf_sb_qualifies(struct super_block *sb);
void ppf_sb_discover(struct super_block *sb);

#endif /* PPF_SB_WATCH_H */
