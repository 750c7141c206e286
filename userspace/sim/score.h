/* SPDX-License-Identifier: GPL-2.0 */
/*
 * score.h - how good a model's predictions were on one pass of a trace
 */
#ifndef PPF_SCORE_H
#define PPF_SCORE_H

#include <stddef.h>
#include <stdint.h>
#include "../../models/ppf_model.h"
#include "event_stream.h"

/**
 * struct ppf_score - what the simulator reports for the measured pass
 * @events: events in the pass
 * @predictions: predictions made, over all events
 * @correct: predictions whose file was opened within the window after
 * @covered: events whose file had been predicted within the window before
 * @lead_events_sum: sum over covered events of how many events ahead the
 *	earliest prediction of them in the window came
 * @lead_ns_sum: the same in recorded time
 * @lead_ns: lead time of each covered event (for the median)
 * @nodes: nodes in use after the pass
 * @bytes: bytes the model allocated
 */
struct ppf_score {
	uint64_t events;
	uint64_t predictions;
	uint64_t correct;
	uint64_t covered;
	uint64_t lead_events_sum;
	uint64_t lead_ns_sum;
	uint64_t *lead_ns;
	uint64_t nodes;
	uint64_t bytes;
};

/**
 * struct ppf_pass_log - predictions made at each event of a pass
 * @first: index into @pred of event i's first prediction; n + 1 entries
 * @pred: all predictions, event by event
 * @len: entries used in @pred
 * @cap: entries allocated in @pred
 */
struct ppf_pass_log {
	size_t *first;
	struct ppf_prediction *pred;
	size_t len;
	size_t cap;
};

int ppf_pass_log_init(struct ppf_pass_log *log, size_t events);
int ppf_pass_log_add(struct ppf_pass_log *log, size_t event,
		     const struct ppf_prediction *pred, unsigned int n);
void ppf_pass_log_free(struct ppf_pass_log *log);
int ppf_score_pass(const struct ppf_event_stream *s,
		   const struct ppf_pass_log *log, unsigned int window,
		   struct ppf_score *score);
uint64_t ppf_score_median_lead_ns(const struct ppf_score *score);
void ppf_score_free(struct ppf_score *score);

#endif /* PPF_SCORE_H */
