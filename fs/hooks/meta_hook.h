/* SPDX-License-Identifier: GPL-2.0 */
/*
 * meta_hook.h - the metadata blocks a task's open reads, for hooks.c
 */
#ifndef PPF_META_HOOK_H
#define PPF_META_HOOK_H

int ppf_meta_hook_init(void);
int ppf_meta_hook_start(void);
bool ppf_meta_hook_stop(void);

#endif /* PPF_META_HOOK_H */
