// SPDX-License-Identifier: GPL-2.0
/*
 * path_ids.c - one file id per path, across several traces (path_ids.h)
 */
#include <stdlib.h>
#include <string.h>
#include "path_ids.h"
#include "../trace-replay/trace.h"

static uint64_t ppf_path_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/**
 * ppf_path_ids_init() - an empty set of paths
 * @ids: the set
 */
void ppf_path_ids_init(struct ppf_path_ids *ids)
{
	memset(ids, 0, sizeof(*ids));
}

/**
 * ppf_path_ids_free() - free the set's memory
 * @ids: the set
 */
void ppf_path_ids_free(struct ppf_path_ids *ids)
{
	size_t i;

	for (i = 0; i < ids->n; i++)
		free(ids->paths[i]);
	free(ids->paths);
	free(ids->bucket);
	ppf_path_ids_init(ids);
}

/* Room for @more ids, the table kept at most half full. */
static int ppf_path_ids_grow(struct ppf_path_ids *ids, size_t more)
{
	size_t want = ids->n + more, buckets = 16, i;
	char **paths;

	while (buckets < 2 * want)
		buckets <<= 1;
	paths = realloc(ids->paths, (want ? want : 1) * sizeof(*paths));
	if (!paths)
		return -1;
	ids->paths = paths;
	if (ids->bucket && buckets <= ids->mask + 1)
		return 0;
	free(ids->bucket);
	ids->bucket = calloc(buckets, sizeof(*ids->bucket));
	if (!ids->bucket)
		return -1;
	ids->mask = buckets - 1;
	for (i = 0; i < ids->n; i++) {
		size_t pos = ppf_path_hash(ids->paths[i]) & ids->mask;

		while (ids->bucket[pos])
			pos = (pos + 1) & ids->mask;
		ids->bucket[pos] = (uint32_t)i + 1;
	}
	return 0;
}

/**
 * ppf_path_ids_map() - the ids of a trace's files
 * @ids: the set; paths not in it yet are added
 * @t: a parsed trace
 * @remap: set to an array (free() it) giving, for each of @t's file table
 *	entries, its id in @ids
 *
 * Return: 0, or -1 if out of memory.
 */
int ppf_path_ids_map(struct ppf_path_ids *ids, const struct ppf_trace *t,
		     uint32_t **remap)
{
	uint32_t *map = calloc(t->nfiles ? t->nfiles : 1, sizeof(*map));
	size_t f;

	if (!map || ppf_path_ids_grow(ids, t->nfiles)) {
		free(map);
		return -1;
	}
	for (f = 0; f < t->nfiles; f++) {
		const char *path = t->files[f].path;
		size_t pos = ppf_path_hash(path) & ids->mask;

		while (ids->bucket[pos] &&
		       strcmp(ids->paths[ids->bucket[pos] - 1], path) != 0)
			pos = (pos + 1) & ids->mask;
		if (!ids->bucket[pos]) {
			ids->paths[ids->n] = strdup(path);
			if (!ids->paths[ids->n]) {
				free(map);
				return -1;
			}
			ids->bucket[pos] = (uint32_t)++ids->n;
		}
		map[f] = ids->bucket[pos] - 1;
	}
	*remap = map;
	return 0;
}
