/* SPDX-License-Identifier: GPL-2.0 */
/*
 * range_list.h - the boot list's lines, "OFFSET LEN PATH" (LEN 0: the whole
 * file), as eval/guest/run-experiment.sh writes them (shared by bootlist.c
 * and oracle.c).
 */
#ifndef PPF_EVAL_RANGE_LIST_H
#define PPF_EVAL_RANGE_LIST_H

#include <stdio.h>
#include <string.h>

/*
 * The next range of @f: its path (inside @line, @size bytes), *@off and
 * *@len; NULL at the end.  Lines that are not ranges are passed over.
 */
static inline char *range_next(FILE *f, char *line, int size, long long *off,
			       long long *len)
{
	while (fgets(line, size, f)) {
		int n = 0;

		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%lld %lld %n", off, len, &n) >= 2 && n)
			return line + n;
	}
	return NULL;
}

#endif
