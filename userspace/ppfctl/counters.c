// SPDX-License-Identifier: GPL-2.0
/*
 * counters.c - parse /proc/predictive_prefetch
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counters.h"

int ppf_counters_read(struct ppf_counters *cs)
{
	char line[256];
	FILE *f;

	cs->n = 0;
	f = fopen(PPF_PROC_STATS, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f) && cs->n < PPF_COUNTERS_MAX) {
		struct ppf_counter *c = &cs->c[cs->n];
		char name[PPF_NAME_MAX], val[PPF_NAME_MAX], *end;

		if (sscanf(line, "%47s %47s", name, val) != 2)
			continue;
		snprintf(c->name, sizeof(c->name), "%s", name);
		snprintf(c->text, sizeof(c->text), "%s", val);
		errno = 0;
		c->value = strtoull(val, &end, 10);
		c->numeric = !errno && *end == '\0' && end != val;
		if (!c->numeric)
			c->value = 0;
		cs->n++;
	}
	fclose(f);
	return 0;
}

int ppf_not_loaded(const char *missing)
{
	fprintf(stderr, "ppfctl: ppf is not loaded (no %s): load it with 'modprobe predictive_prefetch'\n",
		missing);
	return 1;
}

static const struct ppf_counter *ppf_counter_find(const struct ppf_counters *cs,
						  const char *name)
{
	unsigned int i;

	for (i = 0; i < cs->n; i++)
		if (!strcmp(cs->c[i].name, name))
			return &cs->c[i];
	return NULL;
}

uint64_t ppf_counter(const struct ppf_counters *cs, const char *name)
{
	const struct ppf_counter *c = ppf_counter_find(cs, name);

	return c ? c->value : 0;
}

bool ppf_counter_has(const struct ppf_counters *cs, const char *name)
{
	return ppf_counter_find(cs, name) != NULL;
}

const char *ppf_counter_text(const struct ppf_counters *cs, const char *name)
{
	const struct ppf_counter *c = ppf_counter_find(cs, name);

	return c ? c->text : "";
}
