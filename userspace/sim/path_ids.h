/* SPDX-License-Identifier: GPL-2.0 */
/*
 * path_ids.h - one file id per path, across several traces
 *
 * A trace numbers its files in its own file table, so the same file has a
 * different number in each recording.  To train a model on some runs and
 * measure it on another, the simulator gives every path one id for all the
 * traces it loads.
 */
#ifndef PPF_PATH_IDS_H
#define PPF_PATH_IDS_H

#include <stddef.h>
#include <stdint.h>

struct ppf_trace;

/**
 * struct ppf_path_ids - paths seen so far and their ids
 * @paths: the paths, by id (copies)
 * @n: ids given
 * @bucket: hash buckets, each an id + 1, or 0 where empty
 * @mask: number of buckets - 1
 */
struct ppf_path_ids {
	char **paths;
	size_t n;
	uint32_t *bucket;
	size_t mask;
};

void ppf_path_ids_init(struct ppf_path_ids *ids);
void ppf_path_ids_free(struct ppf_path_ids *ids);
int ppf_path_ids_map(struct ppf_path_ids *ids, const struct ppf_trace *t,
		     uint32_t **remap);

#endif /* PPF_PATH_IDS_H */
