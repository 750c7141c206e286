// SPDX-License-Identifier: GPL-2.0
/*
 * score.c - score one pass of predictions against what really happened
 *
 * A prediction made at event i is *correct* if its file is opened at one of
 * the events i+1 .. i+window: a file prefetched then is still in the page
 * cache when it is used, on any machine with memory for window files.  An
 * event is *covered* if its file was predicted at one of the window events
 * before it; its *lead* is measured from the earliest such prediction,
 * because the first prediction is when a prefetcher starts the I/O.
 */
#include <stdlib.h>
#include <string.h>
#include "score.h"

/**
 * ppf_pass_log_init() - an empty log for a pass of @events events
 * @log: the log
 * @events: events in the pass
 *
 * Return: 0, or -1 if out of memory.
 */
int ppf_pass_log_init(struct ppf_pass_log *log, size_t events)
{
	log->first = calloc(events + 1, sizeof(*log->first));
	log->cap = 1024;
	log->pred = malloc(log->cap * sizeof(*log->pred));
	log->len = 0;
	if (!log->first || !log->pred) {
		ppf_pass_log_free(log);
		return -1;
	}
	return 0;
}

/**
 * ppf_pass_log_add() - record the predictions made at @event
 * @log: the log
 * @event: the event, one more than the last one added
 * @pred: its predictions
 * @n: how many
 *
 * Return: 0, or -1 if out of memory.
 */
int ppf_pass_log_add(struct ppf_pass_log *log, size_t event,
		     const struct ppf_prediction *pred, unsigned int n)
{
	if (log->len + n > log->cap) {
		size_t cap = (log->len + n) * 2;
		struct ppf_prediction *p = realloc(log->pred, cap * sizeof(*p));

		if (!p)
			return -1;
		log->pred = p;
		log->cap = cap;
	}
	log->first[event] = log->len;
	memcpy(log->pred + log->len, pred, n * sizeof(*pred));
	log->len += n;
	log->first[event + 1] = log->len;
	return 0;
}

/**
 * ppf_pass_log_free() - free a log
 * @log: the log
 */
void ppf_pass_log_free(struct ppf_pass_log *log)
{
	free(log->first);
	free(log->pred);
	log->first = NULL;
	log->pred = NULL;
}

static int ppf_predicted_at(const struct ppf_pass_log *log, size_t i,
			    uint32_t file)
{
	size_t k;

	for (k = log->first[i]; k < log->first[i + 1]; k++)
		if (log->pred[k].file == file)
			return 1;
	return 0;
}

/**
 * ppf_score_pass() - score a pass
 * @s: the events of the pass
 * @log: the predictions made at each of them
 * @window: how many events a prediction stays good for (at least 1)
 * @score: filled in (its model fields are left to the caller)
 *
 * Return: 0, or -1 if out of memory.
 */
int ppf_score_pass(const struct ppf_event_stream *s,
		   const struct ppf_pass_log *log, unsigned int window,
		   struct ppf_score *score)
{
	size_t i, j, k;

	memset(score, 0, sizeof(*score));
	score->events = s->n;
	score->lead_ns = calloc(s->n ? s->n : 1, sizeof(*score->lead_ns));
	if (!score->lead_ns)
		return -1;
	for (i = 0; i < s->n; i++) {
		for (k = log->first[i]; k < log->first[i + 1]; k++) {
			score->predictions++;
			for (j = i + 1; j < s->n && j <= i + window; j++) {
				if (s->file[j] == log->pred[k].file) {
					score->correct++;
					break;
				}
			}
		}
		/* Earliest prediction of this event's file in the window. */
		for (j = i > window ? i - window : 0; j < i; j++) {
			if (ppf_predicted_at(log, j, s->file[i])) {
				score->lead_ns[score->covered++] =
					s->time_ns[i] - s->time_ns[j];
				score->lead_events_sum += i - j;
				score->lead_ns_sum += s->time_ns[i] - s->time_ns[j];
				break;
			}
		}
	}
	return 0;
}

static int ppf_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/**
 * ppf_score_median_lead_ns() - median lead time of the covered events
 * @score: a score (its lead times get sorted)
 *
 * Return: nanoseconds, 0 if nothing was covered.
 */
uint64_t ppf_score_median_lead_ns(const struct ppf_score *score)
{
	if (!score->covered)
		return 0;
	qsort(score->lead_ns, score->covered, sizeof(uint64_t), ppf_cmp_u64);
	return score->lead_ns[score->covered / 2];
}

/**
 * ppf_score_free() - free a score's arrays
 * @score: the score
 */
void ppf_score_free(struct ppf_score *score)
{
	free(score->lead_ns);
	score->lead_ns = NULL;
}
