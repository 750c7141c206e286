/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ppf_model.h - predictive models of file access order: the public API
 *
 * DOC: Models
 *
 * A model watches streams of events, one event per file opened or
 * executed, and after each event names the files it expects to be opened
 * next.  Each event names its stream, a *context* (the kernel uses the
 * opening task): what is learnt is shared by all contexts, but each keeps
 * its own place in it, so that streams running at the same time (the
 * compilers of a parallel build) do not break each other's patterns.  A
 * context seen for the first time starts from its parent's place (a new
 * process continues its parent's stream); at most max_contexts are kept,
 * the least recently used forgotten first.  Files
 * are opaque 32-bit symbols chosen by the caller; a model never sees paths,
 * inodes or pages.  Three models are provided (Kroeger & Long, USENIX 2001):
 *
 *  - last successor: for each file, the file that followed it last time;
 *  - PCM: a partitioned context model, a trie of counted access patterns of
 *    up to model_order + 1 files, split into partitions of at most
 *    partition_size nodes, each rooted at one file;
 *  - EPCM: PCM with a much longer maximum order, growth of one node per
 *    occurrence of a pattern, and predictions that follow the most likely
 *    chain of successors, so that files several events ahead are named.
 *
 * All memory is allocated by ppf_model_create() and bounded by a global node
 * budget (max_nodes); ppf_model_event() never allocates, never sleeps and
 * never recurses, so it may be called with a spinlock held.  A model is not
 * internally locked: callers serialise calls on one model.  The same events
 * always give the same predictions.
 *
 * docs/models.md explains every decision the paper leaves open.
 */
#ifndef PPF_MODEL_H
#define PPF_MODEL_H

#include "ppf_platform.h"

enum ppf_model_kind {
	PPF_MODEL_LAST_SUCCESSOR = 0,
	PPF_MODEL_PCM = 1,
	PPF_MODEL_EPCM = 2,
};

#define PPF_MIN_PARTITION_SIZE	2
#define PPF_MAX_PARTITION_SIZE	4096
#define PPF_MAX_THRESHOLD_PCT	100
#define PPF_MIN_NODES		64
#define PPF_MAX_NODES		((1u << 24) - 1)	/* 24-bit node links */
#define PPF_MAX_PREDICTIONS	64
#define PPF_MAX_CONTEXTS	4096

/* Likelihoods are reported in parts per thousand. */
#define PPF_LIKELIHOOD_ONE	1000
/* Last successor keeps no counts: its predictions carry this value. */
#define PPF_LIKELIHOOD_UNKNOWN	0

/**
 * struct ppf_model_params - the shape of a model
 * @kind: which model
 * @partition_size: most nodes in one partition (PCM, EPCM), including its
 *	first-order node; PPF_MIN_PARTITION_SIZE..PPF_MAX_PARTITION_SIZE
 * @model_order: longest context used to predict (PCM, EPCM), in events;
 *	1..partition_size - 1.  Patterns of up to model_order + 1 files are
 *	counted.
 * @threshold_pct: least likelihood, in percent (1..100), for a file to be
 *	predicted or for an EPCM chain to continue
 * @max_nodes: the node budget for the whole model,
 *	PPF_MIN_NODES..PPF_MAX_NODES, and at least partition_size
 * @max_predictions: most predictions returned per event,
 *	1..PPF_MAX_PREDICTIONS
 * @max_contexts: most contexts (streams) followed at once,
 *	1..PPF_MAX_CONTEXTS
 *
 * Last successor ignores @partition_size, @model_order and @threshold_pct,
 * but they are validated all the same so that a setting is either valid for
 * every model or refused.
 */
struct ppf_model_params {
	enum ppf_model_kind kind;
	u32 partition_size;
	u32 model_order;
	u32 threshold_pct;
	u32 max_nodes;
	u32 max_predictions;
	u32 max_contexts;
};

/**
 * struct ppf_prediction - one predicted file
 * @file: the caller's id of the file
 * @likelihood: estimated probability, in parts per thousand, that the file
 *	is opened @lead events from now (PPF_LIKELIHOOD_UNKNOWN for last
 *	successor, which keeps no counts)
 * @lead: how many events ahead the file is expected (1 = next)
 */
struct ppf_prediction {
	u32 file;
	u16 likelihood;
	u16 lead;
};

/**
 * struct ppf_model_stats - what a model holds and what it did
 * @events: events seen
 * @nodes: nodes in use
 * @partitions: partitions (distinct files with a first-order node)
 * @max_nodes: the node budget
 * @bytes: bytes allocated for the model, all included (fixed at creation)
 * @bytes_in_use: bytes of nodes in use and of their file index entries
 * @halvings: partitions halved because they were full
 * @halving_freed: nodes freed by halving
 * @nodes_dropped: new nodes not added because a halving freed nothing
 * @partitions_reclaimed: cold partitions freed to stay within max_nodes
 * @count_saturations: halvings caused by a count reaching its maximum
 * @contexts: contexts live now
 * @contexts_reclaimed: contexts forgotten to make room for new ones
 * @surprises: events the most likely prediction before them did not name
 *	(EPCM; surprise_table.h)
 * @surprise_predictions: files named because they followed a surprise's
 *	file's surprise before
 */
struct ppf_model_stats {
	u64 events;
	u32 nodes;
	u32 partitions;
	u32 max_nodes;
	u64 bytes;
	u64 bytes_in_use;
	u64 halvings;
	u64 halving_freed;
	u64 nodes_dropped;
	u64 partitions_reclaimed;
	u64 count_saturations;
	u32 contexts;
	u64 contexts_reclaimed;
	u64 surprises;
	u64 surprise_predictions;
};

struct ppf_model;

int ppf_model_params_init(struct ppf_model_params *params,
			  enum ppf_model_kind kind);
int ppf_model_params_init_shape(struct ppf_model_params *params,
				enum ppf_model_kind kind, u32 partition_size);
u32 ppf_model_default_order(enum ppf_model_kind kind, u32 partition_size);
int ppf_model_params_validate(const struct ppf_model_params *params);
u64 ppf_model_bytes_needed(const struct ppf_model_params *params);
u32 ppf_model_nodes_for_bytes(const struct ppf_model_params *params,
			      u64 bytes);
struct ppf_model *ppf_model_create(const struct ppf_model_params *params,
				   int *err);
void ppf_model_destroy(struct ppf_model *model);
unsigned int ppf_model_event(struct ppf_model *model, u32 ctx, u32 parent,
			     u32 file, struct ppf_prediction *out,
			     unsigned int max_out);
unsigned int ppf_model_event_new(struct ppf_model *model, u32 ctx, u32 parent,
				 u32 file, struct ppf_prediction *out,
				 unsigned int max_out);
void ppf_model_learn(struct ppf_model *model, u32 ctx, u32 parent, u32 file);
void ppf_model_restate(struct ppf_model *model);
u64 ppf_model_surprises(const struct ppf_model *model);
void ppf_model_stats(const struct ppf_model *model,
		     struct ppf_model_stats *stats);
void ppf_model_stats_add(struct ppf_model_stats *sum,
			 const struct ppf_model_stats *one);
#ifdef PPF_MODEL_CHECKS
u32 ppf_model_pattern_count(const struct ppf_model *model, const u32 *files,
			    u32 len);
const char *ppf_model_check(struct ppf_model *model);
#endif
const char *ppf_model_kind_name(enum ppf_model_kind kind);
int ppf_model_kind_parse(const char *name, enum ppf_model_kind *kind);

#endif /* PPF_MODEL_H */
