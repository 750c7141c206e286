// SPDX-License-Identifier: GPL-2.0
/*
 * lookahead.c - how many files ahead to predict after each open
 *
 * DOC: Lookahead
 *
 * EPCM names files up to its chain's end, up to 64 events ahead.  How far
 * ahead is worth asking for depends on the device and the cache, not on the
 * model: once its data is cached, a file search on a one-arm disk opens
 * many files in the time of one seek, so a prediction 16 opens ahead comes
 * less than a seek before its open; predicting 64 ahead gives the elevator
 * four times as many requests to sort into sweeps.  But every prediction costs
 * the worker time, and where the cache already holds what the chain names
 * (a hot cache), the files past the first 16 only cost.
 *
 * So the depth follows what the deep predictions bring.  After each open
 * the worker asks for PPF_SHALLOW files, or for lookahead files (the
 * sysctl) while deep predictions lead to readahead; every
 * PPF_PROBE_EVERY-th open asks for the full lookahead all the same, to see.
 * Every PPF_WINDOW opens the window is judged: deep while at least
 * PPF_DEEP_MIN files predicted from past the shallow depth had their
 * readahead started in it (not found cached, not skipped) and a prefetched
 * file was opened before its readahead was done (late): where prefetches
 * arrive in time, as on flash, depth only costs.  The window is short so
 * that a hot cache after a cold one soon stops paying for depth, and
 * probes are rare because each costs about as much as three shallow opens.
 *
 * Below shallow there is hot: a window in which no readahead started,
 * nothing left any page cache (no restate), at whose end nothing is
 * planned or in flight, and at least half of whose opens the model did
 * not expect, makes the next opens ask for PPF_HOT_DEPTH files only.
 * Where every open is a surprise (a workload in an order never seen
 * twice), each one makes a chain afresh and has each of its files judged,
 * all found cached: at PPF_SHALLOW that was most of what the worker spent
 * in a hot cache.  The surprises are what make it safe: where the model
 * expects its opens, a chain stands and names one new file an open
 * whatever the depth, so depth costs nothing, and a chain made afresh at
 * a program's start is right, its cold files far down it.  Without that
 * condition a parallel build, mostly cached but for a source file at each
 * compiler's start, went hot for most of its opens, saved nothing and had
 * those files predicted 4 opens ahead instead of 16 (docs/results.md, "A
 * hot cache asks for 4 files").  Hot ends at once, not at the window's
 * end, when a readahead starts (a file predicted, swept or opened was not
 * all cached) or a restate is due; the next open asks for PPF_SHALLOW
 * again, and the model adds the files of the chain past PPF_HOT_DEPTH as
 * news.
 *
 * Measured by experiments (python3 -m eval.harness run EXPERIMENT
 * --report): ablation-glimpse-hdd2001 and ablation-pystart-hdd2001, each
 * against lookahead 16 (what depth gains on the paper's disk, and on flash
 * with the latter's "profile" set to nvme), and random-hdd2001's epcm-hot
 * (what it costs in a hot cache).
 *
 * Everything here runs in the worker under ppf_worker_mutex.
 */
#include "ppf.h"

#define PPF_PROBE_EVERY		64
#define PPF_WINDOW		32
#define PPF_DEEP_MIN		2	/* deep files read ahead per window to stay deep */
#define PPF_HOT_DEPTH		4	/* files asked for while the cache holds all */

static bool ppf_deep, ppf_hot;		/* under ppf_worker_mutex */
static unsigned int ppf_window_events, ppf_window_paid, ppf_window_late;
static unsigned int ppf_window_surprises;
static bool ppf_window_cold;	/* a readahead started or a restate came */

static void ppf_window_start(void)
{
	ppf_window_events = 0;
	ppf_window_paid = 0;
	ppf_window_late = 0;
	ppf_window_surprises = 0;
	ppf_window_cold = false;
}

/* Something was not cached: hot ends now, and the window is not hot. */
static void ppf_window_not_hot(void)
{
	ppf_hot = false;
	ppf_window_cold = true;
}

/**
 * ppf_lookahead() - how many predictions to ask for after this open
 * @seq: the open's event number
 *
 * The caller holds ppf_worker_mutex.
 *
 * Return: 1..lookahead.
 */
unsigned int ppf_lookahead(u64 seq)
{
	unsigned int max = READ_ONCE(ppf_config.lookahead);

	lockdep_assert_held(&ppf_worker_mutex);
	if (ppf_deep || !(seq % PPF_PROBE_EVERY)) {
		ppf_stat_inc(opens_deep);
		return max;
	}
	if (ppf_hot) {
		ppf_stat_inc(opens_hot);
		return min_t(unsigned int, max, PPF_HOT_DEPTH);
	}
	return min_t(unsigned int, max, PPF_SHALLOW);
}

/**
 * ppf_lookahead_started() - a planned file's first chunk was read ahead
 * @deep: the file was predicted past the shallow depth
 *
 * Called when its first chunk starts (pacing.c), so that files found
 * cached, skipped, or never reached do not count.  Ends hot.  The caller
 * holds ppf_worker_mutex.
 */
void ppf_lookahead_started(bool deep)
{
	lockdep_assert_held(&ppf_worker_mutex);
	ppf_window_not_hot();
	if (deep)
		ppf_window_paid++;
}

/**
 * ppf_lookahead_restated() - the models were told to name everything again
 *
 * Something left a page cache, or the plan dropped files: what was found
 * cached may not be, so hot ends.  The caller holds ppf_worker_mutex.
 */
void ppf_lookahead_restated(void)
{
	lockdep_assert_held(&ppf_worker_mutex);
	ppf_window_not_hot();
}

/**
 * ppf_lookahead_late() - a prefetched file was opened before its readahead
 * was done
 *
 * The caller holds ppf_worker_mutex.
 */
void ppf_lookahead_late(void)
{
	lockdep_assert_held(&ppf_worker_mutex);
	ppf_window_late++;
}

/**
 * ppf_lookahead_event() - an open's predictions were planned; judge the
 * window at its end
 * @idle: nothing is planned and no readahead is in flight now
 * @surprised: the model did not expect the open (ppf_model_surprises())
 *
 * The caller holds ppf_worker_mutex.
 */
void ppf_lookahead_event(bool idle, bool surprised)
{
	lockdep_assert_held(&ppf_worker_mutex);
	ppf_window_surprises += surprised;
	if (++ppf_window_events < PPF_WINDOW)
		return;
	ppf_deep = ppf_window_paid >= PPF_DEEP_MIN && ppf_window_late;
	ppf_hot = !ppf_window_cold && idle &&
		  ppf_window_surprises * 2 >= PPF_WINDOW;
	ppf_window_start();
}

/**
 * ppf_lookahead_reset() - start again (the model was reset or loaded)
 * @deep: start deep
 *
 * An empty model starts shallow: it predicts nothing deep yet.  A model
 * loaded from a saved state starts deep: a state is loaded at boot, into a
 * cold cache, where depth pays; the first window judges it as usual
 * (test_persist.sh compares the first cold run after a load with a trained
 * run: started shallow, it spent most of its opens shallow).
 *
 * The caller holds ppf_worker_mutex.
 */
void ppf_lookahead_reset(bool deep)
{
	lockdep_assert_held(&ppf_worker_mutex);
	ppf_deep = deep;
	ppf_hot = false;
	ppf_window_start();
}
