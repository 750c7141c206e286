/* SPDX-License-Identifier: GPL-2.0 */
/*
 * file_index.h - find a file's first-order node (partition root) by file id
 *
 * An open-addressing hash table of node indices, with linear probing and
 * deletion by backward shift (no tombstones, so lookups never slow down as
 * partitions come and go).  The key is read from the node itself, so a slot
 * is only four bytes.  The table is sized when the model is created and
 * holds at most @limit entries (three quarters of its slots); a full table
 * makes the caller reclaim a cold entry, found with a clock over the slots
 * (each entry's node carries a referenced bit, PPF_ROOT_REF).
 */
#ifndef PPF_FILE_INDEX_H
#define PPF_FILE_INDEX_H

#include "node_pool.h"

/**
 * struct ppf_file_index - hash table from file id to root node
 * @slots: node indices, PPF_NIL where empty
 * @mask: number of slots - 1 (a power of two)
 * @used: entries in the table
 * @limit: most entries allowed
 * @hand: the clock hand used to find cold entries
 */
struct ppf_file_index {
	u32 *slots;
	u32 mask;
	u32 used;
	u32 limit;
	u32 hand;
};

int ppf_index_init(struct ppf_file_index *index, u32 max_entries);
void ppf_index_release(struct ppf_file_index *index);
u64 ppf_index_bytes(u32 max_entries);
int ppf_index_insert(struct ppf_file_index *index,
		     const struct ppf_node_pool *pool, u32 root);
void ppf_index_remove(struct ppf_file_index *index,
		      const struct ppf_node_pool *pool, u32 root);
u32 ppf_index_clock_victim(struct ppf_file_index *index,
			   struct ppf_node_pool *pool, u32 keep);
#ifdef PPF_MODEL_CHECKS
const char *ppf_index_check(const struct ppf_file_index *index,
			    const struct ppf_node_pool *pool, u32 *entries);
#endif

static inline u32 ppf_index_home(const struct ppf_file_index *index, u32 file)
{
	return (file * 0x9e3779b1u) & index->mask;
}

/**
 * ppf_index_find() - look a file up
 * @index: the index
 * @pool: the pool holding the root nodes (their @file is the key)
 * @file: the file id
 *
 * Inline: every event looks its file up, and an EPCM chain once or twice
 * more at each leaf it jumps from.
 *
 * Return: the root node of @file's partition, or PPF_NIL.
 */
static inline u32 ppf_index_find(const struct ppf_file_index *index,
				 const struct ppf_node_pool *pool, u32 file)
{
	u32 pos = ppf_index_home(index, file);
	u32 root;

	while ((root = index->slots[pos]) != PPF_NIL) {
		if (pool->nodes[root].file == file)
			return root;
		pos = (pos + 1) & index->mask;
	}
	return PPF_NIL;
}

static inline bool ppf_index_full(const struct ppf_file_index *index)
{
	return index->used >= index->limit;
}

#endif /* PPF_FILE_INDEX_H */
