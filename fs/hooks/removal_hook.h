/* SPDX-License-Identifier: GPL-2.0 */
/*
 * removal_hook.h - the page-cache removal count, for hooks.c
 */
#ifndef PPF_REMOVAL_HOOK_H
#define PPF_REMOVAL_HOOK_H

int ppf_removal_hook_init(void);
int ppf_removal_hook_start(void);
bool ppf_removal_hook_stop(void);

#endif /* PPF_REMOVAL_HOOK_H */
