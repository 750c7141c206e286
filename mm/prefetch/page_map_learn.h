/* SPDX-License-Identifier: GPL-2.0 */
/*
 * page_map_learn.h - what a page map learns of a fault (DOC: Page maps)
 *
 * Apart from ppf.h so that the tracepoints (ppf_trace.h, instantiated
 * without ppf.h) can name the values.
 */
#ifndef PPF_PAGE_MAP_LEARN_H
#define PPF_PAGE_MAP_LEARN_H

enum ppf_map_learn {
	PPF_MAP_FAULTS,		/* the faulted page */
	PPF_MAP_MISSES,		/* and fault-around's window, if it missed */
	PPF_MAP_WINDOWS,	/* and every fault-around window */
};

#endif /* PPF_PAGE_MAP_LEARN_H */
