// SPDX-License-Identifier: GPL-2.0
/*
 * context_model.c - PCM and EPCM: learning and predicting on the trie
 *
 * DOC: Context models
 *
 * The model remembers where the recent past is in the trie as a list of
 * *walks*: a walk began at the root of the partition of a file seen k events
 * ago and has followed the k - 1 files since, so its node is the context of
 * order k (the last k files).  On each event every walk steps to the child
 * for the new file, counting it, or creating it if it is not there yet; then
 * a new walk starts at the new file's own root.
 *
 * PCM keeps walks up to depth model_order: the node a walk reaches at depth
 * model_order + 1 is counted, then the walk ends.  EPCM differs in two
 * ways.  A walk ends as soon as it has had to create a node, so a pattern
 * grows by one file each time it occurs (as Lempel-Ziv grows its
 * dictionary); and walks may reach the much longer maximum order.
 *
 * Each context slot (context_table.h) has its own list of walks: the trie
 * is shared, the place in it is per stream.  A new context starts with a
 * copy of its parent's walks, so that a program started by another
 * continues the patterns that led to it.  Each node is counted once per
 * occurrence of its pattern, so that no child is counted more often than
 * its parent: after the copy only the child's walks count, and the
 * parent's *follow* (they step along existing nodes, to predict, without
 * counting or growing) until they end.  The parent counts again with the
 * walks its next events start.
 *
 * To predict, the deepest context that names a successor at or above the
 * threshold is used (PPM's rule: the longest context that has seen what
 * follows is the most specific).  Each child's likelihood is
 * count(child) / (count(context) - 1): the context has just been counted
 * for the current occurrence, whose successor is not known yet.  EPCM then
 * follows the most likely child's most likely child, and so on, while each
 * step's likelihood count(child) / (count(parent) - 1) stays at or above
 * the threshold, naming files two, three and more events ahead.  The -1
 * here has another reason: EPCM creates a child on its parent's second
 * occurrence at the earliest, so a child that always follows its parent is
 * counted once less than the parent.
 */
#include "model_internal.h"
#include "partitioned_trie.h"
#include "surprise_table.h"

/**
 * struct ppf_walks - one context slot's current contexts, the *walks*
 * @node: each walk's node, its context (PPF_NIL once a shrink ended it),
 *	oldest (deepest) walk first: a window into the slot's memory
 * @root: each walk's partition
 * @start: @clock when each walk began, so that a walk's depth (the order
 *	of its context, 1 at the root) is @clock - start + 1
 * @n: walks in use
 * @follows: the first @follows walks step without counting (their
 *	occurrence is counted by a child context's copy of them)
 * @clock: the slot's events
 * @mem: the slot's memory: PPF_WALK_ROOM(max_order) entries of each array
 *
 * A walk is three arrays rather than a struct so that stepping along a
 * learnt stream, the common case, reads and writes @node alone: the depth
 * is not stored but follows from @start, and the walks are in the order
 * they began, so those that reach the model order are the first ones, and
 * those that follow are the first @follows (only a context's start makes
 * walks follow, and it makes all of them follow).
 *
 * The walks that end are mostly the oldest, and a new one is added at the
 * end: the window moves up @mem instead of every walk moving down one at
 * each event, and slides back to the start of @mem when it reaches the
 * end (once every max_order + 1 events at most).  The order is kept
 * because it matters: two walks in one partition (a file seen twice within
 * the model order) step in the order they began.
 */
struct ppf_walks {
	u32 *node;
	u32 *root;
	u32 *start;
	u32 n;
	u32 follows;
	u32 clock;
	u32 *mem;
};

/* Room for a slot's walks: at most max_order + 1 at once, twice over. */
#define PPF_WALK_ROOM(max_order)	(2 * ((size_t)(max_order) + 1))
/* The arrays of a walk: node, root, start. */
#define PPF_WALK_WORDS		3

/* Point @ws's arrays at the start of its memory, @room entries each. */
static void ppf_walks_rewind(struct ppf_walks *ws, size_t room)
{
	ws->node = ws->mem;
	ws->root = ws->mem + room;
	ws->start = ws->mem + 2 * room;
}

/**
 * struct ppf_context_model - a PCM or EPCM model
 * @base: common part
 * @trie: the counted, partitioned trie
 * @slots: the walks of each context slot
 * @walk_store: the memory of every slot's walks
 * @chains: each slot's chain (EPCM only, else NULL)
 * @chain_store: the memory of every slot's chain
 * @surprises: which surprise followed which (EPCM only)
 * @nr_surprise_predictions: files named from @surprises
 * @nslots: number of context slots
 * @walk_room: PPF_WALK_ROOM(max_order), entries of each of a slot's arrays
 * @shrinks: times the trie freed nodes (a walk may have ended)
 * @max_order: deepest context kept
 * @extended: EPCM if true, PCM if false
 */
struct ppf_context_model {
	struct ppf_model base;
	struct ppf_trie trie;
	struct ppf_walks *slots;
	u32 *walk_store;
	struct ppf_chain *chains;
	struct ppf_prediction *chain_store;
	struct ppf_surprise_table surprises;
	u64 nr_surprise_predictions;
	u32 nslots;
	u32 walk_room;
	u64 shrinks;
	u32 max_order;
	bool extended;
};

static inline struct ppf_context_model *to_cm(struct ppf_model *model)
{
	return ppf_container_of(model, struct ppf_context_model, base);
}

static inline const struct ppf_context_model *to_cm_const(const struct ppf_model *model)
{
	return ppf_container_of(model, struct ppf_context_model, base);
}

/*
 * The trie freed nodes: end the walks that stood on them, in every context
 * (they are compacted away at each context's next event; the check allows
 * ended walks in contexts not stepped since).
 */
static void ppf_cm_shrink(void *ctx, u32 root, bool evicted)
{
	struct ppf_context_model *cm = ctx;
	u32 s, i;

	cm->shrinks++;
	for (s = 0; s < cm->nslots; s++) {
		/*
		 * Local copies: the stores to node[] could alias the slot's
		 * fields, and reloading them cost every walk of every slot
		 * twice the instructions of the compare (a halving looks at
		 * hundreds of walks, one every 14 events of a configure run).
		 */
		const u32 *roots = cm->slots[s].root;
		u32 *nodes = cm->slots[s].node;
		u32 n = cm->slots[s].n;

		for (i = 0; i < n; i++) {
			if (roots[i] != root || nodes[i] == PPF_NIL)
				continue;
			if (evicted ||
			    ppf_node_count(ppf_node(&cm->trie.pool, nodes[i])) == 0)
				nodes[i] = PPF_NIL;
		}
	}
}

/*
 * Move the window of walks (@n of them, the first @follows following) up
 * past its first @first walks.
 */
static inline void ppf_walks_advance(struct ppf_walks *ws, u32 n, u32 follows,
				     u32 first)
{
	ws->node += first;
	ws->root += first;
	ws->start += first;
	ws->n = n - first;
	/* Mostly none follow, and @follows is 0 already. */
	if (follows)
		ws->follows = follows > first ? follows - first : 0;
}

/* Drop the ended walks (node PPF_NIL), keeping the others in order. */
static void ppf_cm_compact(struct ppf_walks *ws)
{
	u32 i, kept = 0, follows = 0;

	for (i = 0; i < ws->n; i++) {
		if (ws->node[i] == PPF_NIL)
			continue;
		if (i < ws->follows)
			follows++;
		ws->node[kept] = ws->node[i];
		ws->root[kept] = ws->root[i];
		ws->start[kept] = ws->start[i];
		kept++;
	}
	ws->n = kept;
	ws->follows = follows;
}

/*
 * Walk @i steps to the child for @file the long way: a walk that follows
 * looks the child up without counting it; one that counts may have to
 * move it up its siblings or create it (EPCM ends the walk then: one new
 * node per occurrence of a pattern).  Returns the walk's new node, PPF_NIL
 * if it ended (a shrink during the step may have ended it too).
 */
static u32 ppf_cm_step_slow(struct ppf_context_model *cm, struct ppf_walks *ws,
			    u32 i, u32 file)
{
	u32 node = ws->node[i], ch;
	bool created = false;

	if (node == PPF_NIL)
		return PPF_NIL;
	if (i < ws->follows)
		return ppf_trie_child(&cm->trie, node, file);
	/*
	 * EPCM's pattern grows at its end: a leaf gets its first child and
	 * the walk ends, whatever the step did.
	 */
	if (cm->extended &&
	    ppf_node(&cm->trie.pool, node)->child == PPF_NIL) {
		ppf_trie_add_leaf(&cm->trie, ws->root[i], node, file);
		return PPF_NIL;
	}
	ch = ppf_trie_step(&cm->trie, ws->root[i], node, file, true, &created);
	if (ch == PPF_NIL || (created && cm->extended) || ws->node[i] == PPF_NIL)
		return PPF_NIL;
	return ch;
}

static __always_inline void ppf_cm_learn(struct ppf_context_model *cm,
					 struct ppf_walks *ws, u32 file,
					 bool extended)
{
	struct ppf_node *nodes = cm->trie.pool.nodes;
	u32 *node = ws->node, *p, *end;
	u64 shrinks = cm->shrinks;
	u32 n = ws->n, follows = ws->follows, clock = ws->clock;
	u32 i, root, ended = 0, first;

	/* Locals: the stores to the walks could alias the slot's fields. */
	ws->clock = ++clock;
	/*
	 * Step every walk, including those a shrink ended since this
	 * context's last event (the slow way ends them again).  A shrink ends
	 * walks but never changes their number or place: @n and @node hold
	 * through the loops.  Those that follow first, the slow way.
	 */
	for (i = 0; i < follows; i++) {
		node[i] = ppf_cm_step_slow(cm, ws, i, file);
		ended += node[i] == PPF_NIL;
	}
	/*
	 * EPCM's pattern grows at its end: a leaf gets its first child and
	 * the walk ends.  On a learnt stream that is the oldest walk's step
	 * (the longest pattern ends first), done here, outside the loop,
	 * when there are other walks (on a random stream, where patterns do
	 * not grow, there is mostly one).
	 */
	if (extended && n > i + 1 && node[i] != PPF_NIL &&
	    nodes[node[i]].child == PPF_NIL) {
		ppf_trie_add_leaf(&cm->trie, ws->root[i], node[i], file);
		node[i++] = PPF_NIL;
		ended++;
	}
	for (p = node + i, end = node + n; p < end; p++) {
		u32 ch = nodes[*p].child;
		struct ppf_node *c = &nodes[ch];

		/*
		 * The short way of ppf_trie_step(), which dominates a learnt
		 * stream: @file is the first child and counting it moves
		 * nothing.  The count is the low byte of the link word and
		 * below its maximum, so adding 1 to the word cannot carry
		 * into the sibling.  No child, or an ended walk, leads to the
		 * pool's unused node 0, whose count is the maximum
		 * (ppf_context_model_create()): the slow way, without a test
		 * of its own on every walk.  The slow way reads the walk
		 * again, so that this loop keeps nothing for it.
		 */
		if (c->file == file && (u8)c->link != PPF_COUNT_MAX) {
			c->link++;
			*p = ch;
			continue;
		}
		ch = ppf_cm_step_slow(cm, ws, p - node, file);
		*p = ch;
		ended += ch == PPF_NIL;
	}
	/*
	 * A walk at the model order (its depth was clock - start before this
	 * step) has counted this step and ends.  Depths fall strictly from
	 * the oldest walk on, none above the model order: only the oldest can
	 * be there.
	 */
	if (n && node[0] != PPF_NIL && clock - ws->start[0] >= cm->max_order) {
		node[0] = PPF_NIL;
		ended++;
	}
	/* The oldest that ended just leave the window. */
	for (first = 0; first < n && node[first] == PPF_NIL; first++)
		;
	ppf_walks_advance(ws, n, follows, first);
	/* Touching the root may halve or reclaim and end walks too. */
	root = ppf_trie_touch_root(&cm->trie, file);
	/* Ended walks left inside, or a step or the touch freed nodes. */
	if (ended > first || cm->shrinks != shrinks)
		ppf_cm_compact(ws);
	if (root == PPF_NIL)
		return;
	n = ws->n;
	if (ws->node + n == ws->mem + cm->walk_room) {
		size_t room = cm->walk_room;

		memmove(ws->mem, ws->node, n * sizeof(u32));
		memmove(ws->mem + room, ws->root, n * sizeof(u32));
		memmove(ws->mem + 2 * room, ws->start, n * sizeof(u32));
		ppf_walks_rewind(ws, room);
	}
	ws->node[n] = root;
	ws->root[n] = root;
	ws->start[n] = clock;
	ws->n = n + 1;
}

static u16 ppf_likelihood(u32 count, u32 total)
{
	u32 l = count * PPF_LIKELIHOOD_ONE / total;

	/* Halving rounds parent and child separately: keep within 1. */
	return l > PPF_LIKELIHOOD_ONE ? PPF_LIKELIHOOD_ONE : l;
}

static bool ppf_cm_meets_threshold(const struct ppf_context_model *cm,
				   u32 count, u32 total)
{
	return (u64)count * 100 >= (u64)cm->base.params.threshold_pct * total;
}

/*
 * Write the children of @ctx that meet the threshold into @out, most likely
 * first, and their nodes into @nodes.  Siblings are sorted by count, so the
 * scan stops at the first child below the threshold.  @total is the
 * denominator of their likelihood.
 */
static __always_inline unsigned int
ppf_cm_children(const struct ppf_context_model *cm, u32 ctx, u32 total,
		struct ppf_prediction *out, u32 *nodes, unsigned int max_out)
{
	const struct ppf_node_pool *pool = &cm->trie.pool;
	unsigned int n = 0;
	u32 ch;

	for (ch = ppf_node(pool, ctx)->child; ch != PPF_NIL && n < max_out;
	     ch = ppf_node_sibling(ppf_node(pool, ch))) {
		u32 count = ppf_node_count(ppf_node(pool, ch));

		if (!ppf_cm_meets_threshold(cm, count, total))
			break;
		out[n].file = ppf_node(pool, ch)->file;
		out[n].likelihood = ppf_likelihood(count, total);
		out[n].lead = 1;
		nodes[n++] = ch;
	}
	return n;
}

static bool ppf_predicted(const struct ppf_prediction *out, unsigned int n,
			  u32 file)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (out[i].file == file)
			return true;
	return false;
}

/*
 * A 256-bit filter of the files a chain has named: a clear bit proves a
 * file new without scanning the predictions (ids are dense, so the low
 * bits spread them); a set bit is confirmed by ppf_predicted().  Four
 * words rather than one: a chain of 16 files hit a bit of one word about
 * once a chain, and each hit scanned half the chain.
 */
#define PPF_FILTER_WORDS	4

static inline bool ppf_filter_test(const u64 *filter, u32 file)
{
	return filter[(file >> 6) % PPF_FILTER_WORDS] & (1ull << (file & 63));
}

static inline void ppf_filter_set(u64 *filter, u32 file)
{
	filter[(file >> 6) % PPF_FILTER_WORDS] |= 1ull << (file & 63);
}

/*
 * Events a chain may stand before it is made afresh.  Kept for ever, kept
 * chains moved the simulator's precision by up to -0.6 points and its
 * coverage by up to -0.3 against chains made afresh at every event; kept
 * 16 events, -0.3 and -0.3 (coverage -0.2 at the default shape) for a
 * sixteenth of the fresh chains' cost (ppf-sim --sweep over the recorded
 * traces, docs/models.md).
 */
#define PPF_CHAIN_KEEP		16
/* Room for a slot's chain: a whole chain, twice over (its window moves). */
#define PPF_CHAIN_ROOM(max_predictions)	(2 * (size_t)(max_predictions))

/**
 * struct ppf_chain - the files EPCM's chain named at a context's last event
 * @pred: the chain, the file expected next first: a window into @mem; a
 *	file's lead is its place in it + 1 (@pred's own @lead is not kept)
 * @len: files in the chain
 * @tail: the node where it goes on (its last file's, or the one a jump
 *	from it reached); PPF_NIL if nothing can follow
 * @tail_prev: the file before that node's, for a jump
 * @tail_total: the denominator of the likelihood of the tail's children
 * @tail_may_jump: the tail was not reached by a jump
 * @kept: events the chain has stood since it was made
 * @epoch: the model's epoch when the chain began (ppf_model_restate())
 * @named: a filter of the files named since the window last slid back
 *	(and of the other files predicted with them): a clear bit proves a
 *	file not in the chain
 * @mem: the context's room: twice max_predictions files
 * @expect: the file found most likely next at the context's last event
 * @surprise: the context's last surprise (surprise_table.h)
 * @since: events of the context since that surprise
 * @has_expect: @expect is set (the last event predicted something)
 * @has_surprise: @surprise is set
 *
 * Each event that follows the chain (its file is the chain's first, and
 * the file then most likely next its second) drops the first file and goes
 * on from the tail: a learnt stream walks one step an event instead of
 * the whole chain again, and a caller told what is new learns only the
 * files the step added.  Counts change meanwhile, so a standing chain's
 * likelihoods are those it had when each file was named, and it goes on
 * where a chain made afresh from the deepest context might have turned:
 * it is made afresh at least every PPF_CHAIN_KEEP events.
 */
struct ppf_chain {
	struct ppf_prediction *pred;
	u32 len;
	u32 tail;
	u32 tail_prev;
	u32 tail_total;
	bool tail_may_jump;
	u32 kept;
	u32 epoch;
	u64 named[PPF_FILTER_WORDS];
	struct ppf_prediction *mem;
	u32 expect;
	u32 surprise;
	u32 since;
	bool has_expect;
	bool has_surprise;
};

/*
 * Where a chain that reached @leaf (file @file, after file @prev) goes on:
 * the context made of the last two files of the chain if the trie has it,
 * else the last file's own partition.  PPF_NIL if neither exists.
 */
static u32 ppf_cm_jump(const struct ppf_context_model *cm, u32 prev, u32 file)
{
	const struct ppf_trie *trie = &cm->trie;
	const struct ppf_node *nodes = trie->pool.nodes;
	u32 root = ppf_index_find(&trie->index, &trie->pool, prev);
	u32 node = PPF_NIL;

	/* ppf_trie_child(), without the call: a chain jumps once an event. */
	if (root != PPF_NIL) {
		node = nodes[root].child;
		while (node != PPF_NIL && nodes[node].file != file)
			node = ppf_node_sibling(&nodes[node]);
	}
	if (node == PPF_NIL)
		node = ppf_index_find(&trie->index, &trie->pool, file);
	return node;
}

/*
 * Make room after @c's window for a whole chain (max_predictions files):
 * slide it back to the start of its memory when it is past the first
 * half, and rebuild its filter of the files named from those still in it.
 */
static void ppf_chain_room(struct ppf_chain *c, u32 max_predictions)
{
	u32 i;

	if (c->pred - c->mem <= max_predictions)
		return;
	memmove(c->mem, c->pred, c->len * sizeof(*c->pred));
	c->pred = c->mem;
	memset(c->named, 0, sizeof(c->named));
	for (i = 0; i < c->len; i++)
		ppf_filter_set(c->named, c->pred[i].file);
}

/*
 * EPCM: follow the most likely successor of @c's tail while it is likely,
 * up to @max_len files in the chain.  A chain that reaches a leaf jumps to
 * another partition (see ppf_cm_jump()) and goes on there: the paper's
 * proposed partition jumping, which lets a deep context, whose patterns
 * end soon after the present, still look far ahead.  A threshold miss ends
 * the chain: that uncertainty is real.  @alt, @nalt: the other files
 * predicted for the next event, which the chain does not name again.
 *
 * Where the chain stops is kept as its tail, so that the next event goes
 * on from there rather than walking the chain again.  Each pass of the loop
 * names a file or ends the walk, so @max_len bounds it.  The parameters
 * used at every step are read once into locals: the stores to the chain
 * could alias them, and the compiler would read them again at every step.
 */
static void ppf_chain_extend(const struct ppf_context_model *cm,
			     struct ppf_chain *c,
			     const struct ppf_prediction *alt,
			     unsigned int nalt, u32 max_len)
{
	const struct ppf_node *nodes = cm->trie.pool.nodes;
	u32 node = c->tail, prev = c->tail_prev, total = c->tail_total;
	bool may_jump = c->tail_may_jump; /* not just after a jump */
	struct ppf_prediction *pred = c->pred;
	u32 len = c->len, likelihood;
	u64 *named = c->named;
	unsigned int i;

	if (node == PPF_NIL || len >= max_len)
		return;
	likelihood = pred[len - 1].likelihood;
	/*
	 * The other files join the chain's filter: they are not to be named
	 * again either, and a set bit is only a reason to look (a clear one
	 * proves a file new), so a bit left set for them when they are gone
	 * costs a look, never a prediction.  ppf_chain_room() rebuilds the
	 * filter from the chain alone.
	 */
	for (i = 0; i < nalt; i++)
		ppf_filter_set(named, alt[i].file);
	while (len < max_len) {
		const struct ppf_node *nd = &nodes[node];
		u32 best = nd->child, best_count, file, l;

		/*
		 * The step of a learnt stream, most of a chain made afresh: a
		 * first child counted as often as its parent (likelihood 1),
		 * not named yet.  It takes only this loop, which keeps few
		 * values live: the file before a node is the chain's one
		 * before its last (the chain's last file is its tail's), so it
		 * is read back once the loop ends.
		 */
		if (best != PPF_NIL && total != 0) {
			u32 from = len;

			do {
				best_count = ppf_node_count(&nodes[best]);
				file = nodes[best].file;
				if (best_count < total ||
				    ppf_filter_test(named, file))
					break;
				ppf_filter_set(named, file);
				pred[len].file = file;
				pred[len].likelihood = likelihood;
				len++;
				node = best;
				total = best_count - 1;
				best = nodes[node].child;
			} while (len < max_len && best != PPF_NIL && total != 0);
			if (len != from) {
				prev = pred[len - 2].file;
				may_jump = true;
				if (len == max_len)
					break;
				nd = &nodes[node];
			}
		}
		if (best == PPF_NIL && may_jump) {
			u32 to = ppf_cm_jump(cm, prev, nd->file);

			if (to == PPF_NIL)
				break;
			node = to;
			may_jump = false;	/* one jump per leaf */
			nd = &nodes[node];
			best = nd->child;
			total = ppf_node_count(nd) - 1;
		}
		if (total == 0)
			break;
		/* Siblings are sorted: the first child is the most likely. */
		if (best == PPF_NIL)
			break;
		best_count = ppf_node_count(&nodes[best]);
		/*
		 * A child counted as often as its parent (a learnt stream's
		 * usual step) has likelihood 1: it meets any threshold (at
		 * most 100%), and multiplying by 1 changes nothing.
		 */
		if (best_count < total) {
			if (!ppf_cm_meets_threshold(cm, best_count, total))
				break;
			l = ppf_likelihood(best_count, total);
			likelihood = likelihood * l / PPF_LIKELIHOOD_ONE;
		}
		/*
		 * A file predicted already: the chain has come round a cycle
		 * (A B C A B C ...), and what follows repeats what it said.
		 */
		file = nodes[best].file;
		if (ppf_filter_test(named, file) &&
		    (ppf_predicted(pred, len, file) ||
		     ppf_predicted(alt, nalt, file)))
			break;
		ppf_filter_set(named, file);
		pred[len].file = file;
		pred[len].likelihood = likelihood;
		len++;
		prev = nd->file;
		may_jump = true;
		node = best;
		total = best_count - 1;
	}
	c->len = len;
	c->tail = node;
	c->tail_prev = prev;
	c->tail_total = total;
	c->tail_may_jump = may_jump;
}

/*
 * The short way of ppf_chain_extend(), which dominates a learnt stream: a
 * chain that stood, one file short of @max_len, with no other files to
 * keep out, whose tail's first child is counted as often as the tail
 * (likelihood 1).  Adds that file, or leaves the chain as it is if the
 * file is in it already (ppf_chain_extend() ends it there too), and
 * returns true; returns false, having changed nothing, if any of that
 * fails.  The filter's false alarms (about one step in ten) are checked
 * here, not by ppf_chain_extend().
 */
static inline bool ppf_chain_extend_short(const struct ppf_context_model *cm,
					  struct ppf_chain *c,
					  unsigned int nalt, u32 max_len)
{
	const struct ppf_node *nodes = cm->trie.pool.nodes;
	u32 node = c->tail, total = c->tail_total, len = c->len, best, count;

	if (nalt || len + 1 != max_len || node == PPF_NIL || total == 0)
		return false;
	best = nodes[node].child;
	count = ppf_node_count(&nodes[best]);
	if (best == PPF_NIL || count < total)
		return false;
	if (ppf_filter_test(c->named, nodes[best].file) &&
	    ppf_predicted(c->pred, len, nodes[best].file))
		return true;
	c->pred[len].file = nodes[best].file;
	c->pred[len].likelihood = c->pred[len - 1].likelihood;
	c->len = len + 1;
	ppf_filter_set(c->named, nodes[best].file);
	c->tail = best;
	c->tail_prev = nodes[node].file;
	c->tail_total = count - 1;
	c->tail_may_jump = true;
	return true;
}

/*
 * A chain that stood, at an event whose only likely next file is its
 * first, told what is news: the short way of the rest of ppf_cm_predict(),
 * which dominates a learnt stream.  If the chain's window has room and
 * ppf_chain_extend_short() applies, writes the file it added, if any, at
 * @out[0] and returns how many it wrote; else returns -1, having changed
 * nothing.
 */
static inline int ppf_chain_grow_news(const struct ppf_context_model *cm,
				      struct ppf_chain *c,
				      struct ppf_prediction *out,
				      unsigned int max_out)
{
	u32 len = c->len;

	if (c->pred - c->mem > cm->base.params.max_predictions ||
	    !ppf_chain_extend_short(cm, c, 0, max_out))
		return -1;
	if (c->len == len)
		return 0;
	out[0] = c->pred[len];
	out[0].lead = len + 1;
	return 1;
}

/*
 * Does @c, the chain named at the context's last event, still stand one
 * event on?  The file just opened, @file, was its first, the file found
 * most likely next (@best) is its second, and its tail is still in the
 * trie (a node a shrink freed has count 0).
 */
static bool ppf_chain_stands(const struct ppf_context_model *cm,
			     const struct ppf_chain *c, u32 file, u32 best)
{
	const struct ppf_node *tail;

	if (c->len < 2 || c->kept >= PPF_CHAIN_KEEP ||
	    c->epoch != cm->base.epoch ||
	    c->pred[0].file != file || c->pred[1].file != best)
		return false;
	if (c->tail == PPF_NIL)
		return true;
	tail = &cm->trie.pool.nodes[c->tail];
	return ppf_node_count(tail) && tail->file == c->pred[c->len - 1].file;
}

/* Begin @c afresh at @first (node @node, after file @prev). */
static void ppf_chain_start(const struct ppf_context_model *cm,
			    struct ppf_chain *c,
			    const struct ppf_prediction *first, u32 node,
			    u32 prev)
{
	c->pred = c->mem;
	c->pred[0] = *first;
	c->len = 1;
	c->tail = node;
	c->tail_prev = prev;
	c->tail_total = ppf_node_count(ppf_node(&cm->trie.pool, node)) - 1;
	c->tail_may_jump = true;
	c->kept = 0;
	c->epoch = cm->base.epoch;
	memset(c->named, 0, sizeof(c->named));
	ppf_filter_set(c->named, first->file);
}

/*
 * Was @file, the event of @c's context, a surprise: not the file found
 * most likely next at the context's last event?  A surprise is learnt as
 * the successor of the context's last one.
 */
static bool ppf_cm_surprised(struct ppf_context_model *cm,
			     struct ppf_chain *c, u32 file)
{
	if (c->since != 0xffffffffu)
		c->since++;
	if (c->has_expect && c->expect == file)
		return false;
	if (c->has_surprise)
		ppf_surprise_learn(&cm->surprises, c->surprise, file, c->since);
	c->surprise = file;
	c->has_surprise = true;
	c->since = 0;
	cm->base.surprises++;
	return true;
}

/*
 * After a surprise at @file: the surprises that followed it last time,
 * one after another while each is confirmed, written at @out[@k] on.
 * @used of the @max_out places are the children's and the chain's as
 * ppf_model_event() writes them, whatever @out holds, so that both calls
 * name the same files.  A file the chain or the children name, or named
 * already here, ends the walk, as does one due further ahead than the
 * model's longest chain could reach (max_predictions events): a caller
 * that asks for fewer predictions bounds how many, not how far ahead.
 * They are few, and only at surprises, and a caller that looks ahead
 * less than they do learns from them whether looking further pays.
 */
static __always_inline unsigned int
ppf_cm_surprises(struct ppf_context_model *cm, const struct ppf_chain *c,
		 u32 file, struct ppf_prediction *out, unsigned int k,
		 unsigned int used, unsigned int max_out)
{
	u32 horizon = cm->base.params.max_predictions;
	u32 from = file, next, gap, lead = 0;

	while (used < max_out &&
	       ppf_surprise_next(&cm->surprises, from, &next, &gap)) {
		lead += gap;
		if (lead > horizon || next == file ||
		    ppf_predicted(out, k, next) ||
		    ppf_predicted(c->pred, c->len, next))
			break;
		out[k].file = next;
		out[k].likelihood = PPF_LIKELIHOOD_UNKNOWN;
		out[k++].lead = lead;
		used++;
		cm->nr_surprise_predictions++;
		from = next;
	}
	return k;
}

/*
 * Does @c hold files told at the events that named them, for events after
 * the next one?  Every file of a chain is written when it joins it (with
 * news, only then), so all of a chain's files were told, unless it is
 * from before a restate, which made everything news.
 */
static bool ppf_chain_told(const struct ppf_context_model *cm,
			   const struct ppf_chain *c)
{
	return c->len >= 2 && c->epoch == cm->base.epoch;
}

/*
 * With news: make @c afresh at @out[0] (node @node, after file @prev)
 * after an event of @file, writing at @out[@n] on only the files it names
 * for other events than the chain it replaces did.  That chain, told
 * (ppf_chain_told()), expected its file i + 1 at the event the new one
 * expects its file i: a chain made afresh because it was kept long enough,
 * or left for a while, mostly names the same files for the same events,
 * and those are not news.  @file was opened since, so it is.  Out of line:
 * it runs once a chain at most, and its copy of the old chain would cost
 * every event's call the room on the stack.  Returns the predictions
 * written in all.
 */
static noinline unsigned int
ppf_chain_afresh_news(const struct ppf_context_model *cm, struct ppf_chain *c,
		      u32 file, u32 node, u32 prev, struct ppf_prediction *out,
		      unsigned int n, unsigned int max_out)
{
	u32 told[PPF_MAX_PREDICTIONS];
	const struct ppf_prediction *pred = c->pred;
	unsigned int i, k = n, ntold = c->len - 1, len;

	/* The old chain's file i + 1 was due when the new one's i is. */
	for (i = 1; i < ntold; i++)
		told[i] = pred[i + 1].file;
	ppf_chain_start(cm, c, &out[0], node, prev);
	ppf_chain_extend(cm, c, out + 1, n - 1, max_out - (n - 1));
	/* Locals: the stores to @out could alias the chain's fields. */
	pred = c->pred;
	len = c->len;
	for (i = 1; i < len && k < max_out; i++) {
		if (i < ntold && told[i] == pred[i].file && told[i] != file)
			continue;
		out[k] = pred[i];
		out[k++].lead = i + 1;
	}
	return k;
}

/*
 * Predict after an event of @file: the children of the deepest context
 * that has any likely enough, and for EPCM the chain from the most likely
 * one.  The chain named at the last event is taken up again when it still
 * stands (ppf_chain_stands()): its first file dropped, it goes on from its
 * tail.  With @say PPF_SAY_NEWS, only what was not named at the last
 * event is written: the other children, and the chain's files from where
 * it stood before; a chain made afresh writes what it names for other
 * events than the chain it replaces (ppf_chain_afresh_news()).  With
 * PPF_SAY_NOTHING nothing is (below).
 */
static __always_inline unsigned int
ppf_cm_predict(struct ppf_context_model *cm, const struct ppf_walks *ws,
	       struct ppf_chain *c, u32 file, struct ppf_prediction *out,
	       unsigned int max_out, enum ppf_model_say say, bool extended)
{
	const struct ppf_node_pool *pool = &cm->trie.pool;
	u32 nodes[PPF_MAX_PREDICTIONS];
	unsigned int n = 0, k, i, from = 1;
	struct ppf_prediction *alt;
	u32 ctx = PPF_NIL;
	bool surprised;
	int grown;

	/*
	 * The deepest context first: the walks are oldest first.  A leaf
	 * names nothing, and on a learnt EPCM stream the deepest walk mostly
	 * stands on one (its pattern ends there, and grows at the next
	 * event): skipped at once.
	 */
	i = ws->n && ppf_node(pool, ws->node[0])->child == PPF_NIL;
	for (; i < ws->n && n == 0; i++) {
		u32 count;

		ctx = ws->node[i];
		count = ppf_node_count(ppf_node(pool, ctx));
		if (count > 1)
			n = ppf_cm_children(cm, ctx, count - 1, out, nodes, max_out);
	}
	if (!extended)
		return n;
	surprised = ppf_cm_surprised(cm, c, file);
	c->has_expect = n != 0;
	if (n)
		c->expect = out[0].file;
	/*
	 * An event only learnt (ppf_model_learn()) keeps the expectation, so
	 * that surprises are counted and learnt as ppf_model_event() would,
	 * writes nothing, and lets the chain go: the context's next event
	 * makes it afresh and, told nothing, names all of it.
	 */
	if (!n || say == PPF_SAY_NOTHING) {
		c->len = 0;
		return surprised && say != PPF_SAY_NOTHING ?
		       ppf_cm_surprises(cm, c, file, out, 0, 0, max_out) : 0;
	}
	k = n;
	alt = out + 1;
	if (ppf_chain_stands(cm, c, file, out[0].file)) {
		c->pred++;
		c->len--;
		c->kept++;
		if (say == PPF_SAY_NEWS) {
			/* The first child is the chain's, named already. */
			from = c->len;
			k = n - 1;
			if (k) {
				memmove(out, out + 1, k * sizeof(*out));
			} else if (!surprised) {
				grown = ppf_chain_grow_news(cm, c, out, max_out);
				if (grown >= 0)
					return grown;
			}
			alt = out;
		}
	} else if (say == PPF_SAY_NEWS && ppf_chain_told(cm, c)) {
		k = ppf_chain_afresh_news(cm, c, file, nodes[0],
					  ppf_node(pool, ctx)->file, out, n,
					  max_out);
		goto written;
	} else {
		ppf_chain_start(cm, c, &out[0], nodes[0],
				ppf_node(pool, ctx)->file);
	}
	ppf_chain_room(c, cm->base.params.max_predictions);
	/* The other children take their places: n - 1 of @max_out. */
	if (!ppf_chain_extend_short(cm, c, n - 1, max_out - (n - 1)))
		ppf_chain_extend(cm, c, alt, n - 1, max_out - (n - 1));
	for (i = from; i < c->len && k < max_out; i++) {
		out[k] = c->pred[i];
		out[k++].lead = i + 1;
	}
written:
	if (surprised) {
		/* As many as ppf_model_event() writes before them. */
		unsigned int used = n + c->len - 1;

		k = ppf_cm_surprises(cm, c, file, out, k,
				     used < max_out ? used : max_out, max_out);
	}
	return k;
}

/*
 * A context starts from @from's place (NULL: from nothing): its chain is
 * @from's, as its walks are, so that a program that goes on with its
 * parent's pattern (the next file of a build or a script) finds the files
 * it expects standing, not news.
 */
static void ppf_chain_copy(struct ppf_chain *c, const struct ppf_chain *from)
{
	struct ppf_prediction *mem = c->mem;

	if (!from) {
		c->len = 0;
		c->has_expect = false;
		c->has_surprise = false;
		return;
	}
	*c = *from;
	c->mem = mem;
	c->pred = mem;
	memcpy(mem, from->pred, from->len * sizeof(*mem));
}

static void ppf_cm_context_start(struct ppf_model *model, u32 slot,
				 u32 parent)
{
	struct ppf_context_model *cm = to_cm(model);
	struct ppf_walks *ws = &cm->slots[slot], *from;
	size_t room = PPF_WALK_ROOM(cm->max_order);
	u32 i;

	if (cm->chains)
		ppf_chain_copy(&cm->chains[slot], parent == PPF_CTX_NONE ?
			       NULL : &cm->chains[parent]);
	ws->n = 0;
	ws->follows = 0;
	ppf_walks_rewind(ws, room);
	if (parent == PPF_CTX_NONE)
		return;
	from = &cm->slots[parent];
	ws->n = from->n;
	memcpy(ws->node, from->node, ws->n * sizeof(u32));
	memcpy(ws->root, from->root, ws->n * sizeof(u32));
	/* The same depths on this slot's clock. */
	for (i = 0; i < from->n; i++)
		ws->start[i] = ws->clock - (from->clock - from->start[i]);
	/* Those that followed in @from follow here too. */
	ws->follows = from->follows;
	from->follows = from->n;
}

/*
 * An event, for PCM (@extended false) or EPCM: inline in one function for
 * each, which the model's ops choose (ppf_pcm_ops, ppf_epcm_ops), so that
 * neither model's event tests which it is.
 */
static __always_inline unsigned int
ppf_cm_event(struct ppf_model *model, u32 slot, u32 file,
	     struct ppf_prediction *out, unsigned int max_out, bool extended)
{
	struct ppf_context_model *cm = to_cm(model);
	struct ppf_walks *ws = &cm->slots[slot];

	ppf_cm_learn(cm, ws, file, extended);
	return ppf_cm_predict(cm, ws, extended ? &cm->chains[slot] : NULL,
			      file, out, max_out, model->say, extended);
}

static unsigned int ppf_pcm_event(struct ppf_model *model, u32 slot, u32 file,
				  struct ppf_prediction *out,
				  unsigned int max_out)
{
	return ppf_cm_event(model, slot, file, out, max_out, false);
}

static unsigned int ppf_epcm_event(struct ppf_model *model, u32 slot, u32 file,
				   struct ppf_prediction *out,
				   unsigned int max_out)
{
	return ppf_cm_event(model, slot, file, out, max_out, true);
}

/* Memory of the walks of every context slot. */
static u64 ppf_cm_walk_bytes(u32 max_order, u32 nslots)
{
	return (u64)nslots * (sizeof(struct ppf_walks) +
			      PPF_WALK_ROOM(max_order) * PPF_WALK_WORDS *
			      sizeof(u32));
}

/* Memory of the chains of every context slot (EPCM). */
static u64 ppf_cm_chain_bytes(const struct ppf_model_params *params)
{
	if (params->kind != PPF_MODEL_EPCM)
		return 0;
	return (u64)params->max_contexts *
	       (sizeof(struct ppf_chain) +
		PPF_CHAIN_ROOM(params->max_predictions) *
		sizeof(struct ppf_prediction)) +
	       ppf_surprise_table_bytes(params->max_nodes);
}

static void ppf_cm_stats(const struct ppf_model *model,
			 struct ppf_model_stats *stats)
{
	const struct ppf_context_model *cm = to_cm_const(model);
	const struct ppf_trie *t = &cm->trie;

	stats->nodes = t->pool.in_use;
	stats->partitions = t->index.used;
	stats->bytes = sizeof(*cm) + ppf_trie_bytes(t->partition_size,
						    t->pool.capacity) +
		       ppf_cm_walk_bytes(cm->max_order, cm->nslots) +
		       ppf_cm_chain_bytes(&cm->base.params);
	stats->halvings = t->halvings;
	stats->halving_freed = t->halving_freed;
	stats->nodes_dropped = t->nodes_dropped;
	stats->partitions_reclaimed = t->partitions_reclaimed;
	stats->count_saturations = t->count_saturations;
	stats->surprises = cm->base.surprises;
	stats->surprise_predictions = cm->nr_surprise_predictions;
}

static void ppf_cm_destroy(struct ppf_model *model)
{
	struct ppf_context_model *cm = to_cm(model);

	ppf_trie_release(&cm->trie);
	ppf_surprise_table_release(&cm->surprises);
	ppf_free(cm->chain_store);
	ppf_free(cm->chains);
	ppf_free(cm->walk_store);
	ppf_free(cm->slots);
	ppf_free(cm);
}

#ifdef PPF_MODEL_CHECKS
static u32 ppf_cm_pattern_count(const struct ppf_model *model,
				const u32 *files, u32 len)
{
	return ppf_trie_pattern_count(&to_cm_const(model)->trie, files, len);
}

static const char *ppf_cm_check(struct ppf_model *model)
{
	struct ppf_context_model *cm = to_cm(model);
	u32 s, i;

	if (ppf_node(&cm->trie.pool, PPF_NIL)->child != PPF_NIL ||
	    ppf_node_count(ppf_node(&cm->trie.pool, PPF_NIL)) != PPF_COUNT_MAX)
		return "node 0 written";
	for (s = 0; s < cm->nslots; s++) {
		const struct ppf_walks *ws = &cm->slots[s];

		if (ws->n > cm->max_order)
			return "more current contexts than the model order";
		if (ws->node < ws->mem ||
		    ws->node + ws->n > ws->mem + PPF_WALK_ROOM(cm->max_order) ||
		    ws->root != ws->node + PPF_WALK_ROOM(cm->max_order) ||
		    ws->start != ws->root + PPF_WALK_ROOM(cm->max_order))
			return "current contexts outside their slot's memory";
		if (ws->follows > ws->n)
			return "more following contexts than contexts";
		for (i = 0; i < ws->n; i++) {
			u32 depth = ws->clock - ws->start[i] + 1;

			/* Oldest first: each walk shallower than the one before. */
			if (i && depth >= ws->clock - ws->start[i - 1] + 1)
				return "current contexts out of order";
			/* Ended by a shrink, compacted at the next event. */
			if (ws->node[i] == PPF_NIL)
				continue;
			if (depth > cm->max_order ||
			    ppf_node_count(ppf_node(&cm->trie.pool, ws->node[i])) == 0)
				return "current context on a free node";
		}
	}
	return ppf_trie_check(&cm->trie, ppf_ctx_table_streams(&model->contexts));
}
#endif /* PPF_MODEL_CHECKS */

static const struct ppf_model_ops ppf_pcm_ops = {
	.context_start = ppf_cm_context_start,
	.event = ppf_pcm_event,
	.stats = ppf_cm_stats,
	.destroy = ppf_cm_destroy,
#ifdef PPF_MODEL_CHECKS
	.pattern_count = ppf_cm_pattern_count,
	.check = ppf_cm_check,
#endif
};

static const struct ppf_model_ops ppf_epcm_ops = {
	.context_start = ppf_cm_context_start,
	.event = ppf_epcm_event,
	.stats = ppf_cm_stats,
	.destroy = ppf_cm_destroy,
#ifdef PPF_MODEL_CHECKS
	.pattern_count = ppf_cm_pattern_count,
	.check = ppf_cm_check,
#endif
};

/**
 * ppf_context_model_bytes() - memory a PCM or EPCM model allocates
 * @params: validated parameters
 *
 * Return: bytes.
 */
u64 ppf_context_model_bytes(const struct ppf_model_params *params)
{
	return sizeof(struct ppf_context_model) +
	       ppf_trie_bytes(params->partition_size, params->max_nodes) +
	       ppf_cm_walk_bytes(params->model_order, params->max_contexts) +
	       ppf_cm_chain_bytes(params);
}

/**
 * ppf_context_model_create() - make an empty PCM or EPCM model
 * @params: validated parameters, kind PPF_MODEL_PCM or PPF_MODEL_EPCM
 * @err: set to a negative errno on failure
 *
 * Return: the model, or NULL.
 */
struct ppf_model *ppf_context_model_create(const struct ppf_model_params *params,
					   int *err)
{
	size_t per_slot = PPF_WALK_ROOM(params->model_order);
	struct ppf_context_model *cm;
	u32 s;

	cm = ppf_zalloc(sizeof(*cm));
	if (!cm) {
		*err = -ENOMEM;
		return NULL;
	}
	cm->extended = params->kind == PPF_MODEL_EPCM;
	cm->base.ops = cm->extended ? &ppf_epcm_ops : &ppf_pcm_ops;
	cm->max_order = params->model_order;
	cm->walk_room = per_slot;
	cm->nslots = params->max_contexts;
	cm->slots = ppf_zalloc((size_t)cm->nslots * sizeof(*cm->slots));
	cm->walk_store = ppf_zalloc((size_t)cm->nslots * per_slot *
				    PPF_WALK_WORDS * sizeof(*cm->walk_store));
	if (!cm->slots || !cm->walk_store) {
		*err = -ENOMEM;
		goto out_free;
	}
	for (s = 0; s < cm->nslots; s++) {
		struct ppf_walks *ws = &cm->slots[s];

		ws->mem = cm->walk_store + (size_t)s * per_slot * PPF_WALK_WORDS;
		ppf_walks_rewind(ws, per_slot);
	}
	if (cm->extended) {
		size_t room = PPF_CHAIN_ROOM(params->max_predictions);

		cm->chains = ppf_zalloc((size_t)cm->nslots * sizeof(*cm->chains));
		cm->chain_store = ppf_zalloc((size_t)cm->nslots * room *
					     sizeof(*cm->chain_store));
		if (!cm->chains || !cm->chain_store) {
			*err = -ENOMEM;
			goto out_free;
		}
		for (s = 0; s < cm->nslots; s++) {
			cm->chains[s].mem = cm->chain_store + (size_t)s * room;
			cm->chains[s].pred = cm->chains[s].mem;
		}
		*err = ppf_surprise_table_init(&cm->surprises,
					       params->max_nodes);
		if (*err)
			goto out_free;
	}
	*err = ppf_trie_init(&cm->trie, params->partition_size,
			     params->max_nodes, ppf_cm_shrink, cm);
	if (*err)
		goto out_free;
	/* Never handed out: a full count sends ppf_cm_learn() the slow way. */
	ppf_node(&cm->trie.pool, PPF_NIL)->link = PPF_COUNT_MAX;
	return &cm->base;

out_free:
	ppf_surprise_table_release(&cm->surprises);
	ppf_free(cm->chain_store);
	ppf_free(cm->chains);
	ppf_free(cm->walk_store);
	ppf_free(cm->slots);
	ppf_free(cm);
	return NULL;
}
