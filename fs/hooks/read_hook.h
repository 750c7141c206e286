/* SPDX-License-Identifier: GPL-2.0 */
/*
 * read_hook.h - the page-cache read probes, for hooks.c
 */
#ifndef PPF_READ_HOOK_H
#define PPF_READ_HOOK_H

int ppf_read_hook_init(void);
int ppf_read_hook_start(void);
bool ppf_read_hook_stop(void);

#endif /* PPF_READ_HOOK_H */
