/* SPDX-License-Identifier: GPL-2.0 */
/*
 * demand_hook.h - the tasks' latest read, for hooks.c
 */
#ifndef PPF_DEMAND_HOOK_H
#define PPF_DEMAND_HOOK_H

int ppf_demand_hook_init(void);
int ppf_demand_hook_start(void);
bool ppf_demand_hook_stop(void);

#endif /* PPF_DEMAND_HOOK_H */
