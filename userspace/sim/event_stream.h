/* SPDX-License-Identifier: GPL-2.0 */
/*
 * event_stream.h - the open/exec sequence a model sees, taken from a trace
 */
#ifndef PPF_EVENT_STREAM_H
#define PPF_EVENT_STREAM_H

#include <stddef.h>
#include <stdint.h>

struct ppf_trace;

/**
 * struct ppf_event_stream - model events of one trace
 * @file: trace file index of each event (the model's file id)
 * @time_ns: recorded start time of each event
 * @pid: recorded process (or thread) of each event
 * @parent: the context each event names as its context's parent: traces do
 *	not record who started whom, so a process's first event names the
 *	process of the event before it (the likeliest parent), and every
 *	other event its own process
 * @n: number of events
 * @distinct: number of distinct files among them
 */
struct ppf_event_stream {
	uint32_t *file;
	uint64_t *time_ns;
	uint32_t *pid;
	uint32_t *parent;
	size_t n;
	size_t distinct;
};

int ppf_event_stream_from_trace(const struct ppf_trace *t,
				const uint32_t *remap,
				struct ppf_event_stream *s);
int ppf_event_stream_interleave(const struct ppf_event_stream *in, size_t k,
				uint64_t seed, struct ppf_event_stream *out);
void ppf_event_stream_free(struct ppf_event_stream *s);

#endif /* PPF_EVENT_STREAM_H */
