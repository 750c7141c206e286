// SPDX-License-Identifier: GPL-2.0
/*
 * event_stream.c - turn a trace into the events the kernel hooks would see
 *
 * The kernel module learns from successful opens and execs of regular
 * files, so that is what the simulator feeds the models: a failed open (a
 * compiler probing its include path, say) touches no file and can be
 * neither learned nor prefetched.
 */
#include <stdlib.h>
#include <string.h>
#include "event_stream.h"
#include "../trace-replay/trace.h"

static int ppf_is_model_event(const struct ppf_trace_event *e)
{
	if (e->op == PPF_OP_EXEC)
		return e->result >= 0;
	return e->op == PPF_OP_OPEN && e->result >= 0;
}

/* Fill s->parent (event_stream.h); 0, or -1 if out of memory. */
static int ppf_event_stream_parents(struct ppf_event_stream *s)
{
	size_t buckets = 16, mask, i;
	uint32_t *seen;		/* pid + 1, 0 where empty */

	while (buckets < 2 * s->n)
		buckets <<= 1;
	mask = buckets - 1;
	seen = calloc(buckets, sizeof(*seen));
	if (!seen)
		return -1;
	for (i = 0; i < s->n; i++) {
		uint32_t pid = s->pid[i];
		size_t pos = (pid * 0x9e3779b1u) & mask;

		while (seen[pos] && seen[pos] != pid + 1)
			pos = (pos + 1) & mask;
		s->parent[i] = pid;
		if (!seen[pos]) {
			seen[pos] = pid + 1;
			if (i)
				s->parent[i] = s->pid[i - 1];
		}
	}
	free(seen);
	return 0;
}

/**
 * ppf_event_stream_from_trace() - extract the open/exec sequence
 * @t: a parsed trace
 * @remap: the file id to give each of @t's files (path_ids.h), or NULL to
 *	use @t's own numbering
 * @s: filled in; free with ppf_event_stream_free()
 *
 * Return: 0, or -1 if out of memory.
 */
int ppf_event_stream_from_trace(const struct ppf_trace *t,
				const uint32_t *remap,
				struct ppf_event_stream *s)
{
	unsigned char *seen;
	size_t i;

	s->file = calloc(t->nevents ? t->nevents : 1, sizeof(*s->file));
	s->time_ns = calloc(t->nevents ? t->nevents : 1, sizeof(*s->time_ns));
	s->pid = calloc(t->nevents ? t->nevents : 1, sizeof(*s->pid));
	s->parent = calloc(t->nevents ? t->nevents : 1, sizeof(*s->parent));
	seen = calloc(t->nfiles ? t->nfiles : 1, 1);
	s->n = 0;
	s->distinct = 0;
	if (!s->file || !s->time_ns || !s->pid || !s->parent || !seen) {
		free(seen);
		ppf_event_stream_free(s);
		return -1;
	}
	for (i = 0; i < t->nevents; i++) {
		const struct ppf_trace_event *e = &t->events[i];

		if (!ppf_is_model_event(e))
			continue;
		s->file[s->n] = remap ? remap[e->file] : e->file;
		s->time_ns[s->n] = e->start_ns;
		s->pid[s->n] = e->pid;
		s->n++;
		if (!seen[e->file]) {
			seen[e->file] = 1;
			s->distinct++;
		}
	}
	free(seen);
	if (ppf_event_stream_parents(s)) {
		ppf_event_stream_free(s);
		return -1;
	}
	return 0;
}

/**
 * ppf_event_stream_interleave() - merge streams as if run at the same time
 * @in: the streams (their files numbered alike: path_ids.h)
 * @k: how many
 * @seed: which of the random interleavings (any value; the same seed gives
 *	the same one)
 * @out: filled in; free with ppf_event_stream_free()
 *
 * Each next event is taken from a stream chosen at random, weighted by the
 * events it has left, so every interleaving is as likely.  Each stream's
 * processes stay apart (stream index in the pid's top byte); times advance
 * by each stream's own gaps, so lead times are only indicative.
 *
 * Return: 0, or -1 if out of memory.
 */
int ppf_event_stream_interleave(const struct ppf_event_stream *in, size_t k,
				uint64_t seed, struct ppf_event_stream *out)
{
	size_t total = 0, i, j, *pos;
	uint32_t max_file = 0;
	unsigned char *seen;
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1, now = 0;

	for (j = 0; j < k; j++)
		total += in[j].n;
	memset(out, 0, sizeof(*out));
	pos = calloc(k ? k : 1, sizeof(*pos));
	out->file = calloc(total ? total : 1, sizeof(*out->file));
	out->time_ns = calloc(total ? total : 1, sizeof(*out->time_ns));
	out->pid = calloc(total ? total : 1, sizeof(*out->pid));
	out->parent = calloc(total ? total : 1, sizeof(*out->parent));
	if (!pos || !out->file || !out->time_ns || !out->pid || !out->parent)
		goto oom;
	for (i = 0; i < total; i++) {
		uint64_t r, left = total - i;
		size_t p;

		x ^= x << 13;	/* xorshift64 */
		x ^= x >> 7;
		x ^= x << 17;
		r = x % left;
		for (j = 0; j < k; j++) {
			if (r < in[j].n - pos[j])
				break;
			r -= in[j].n - pos[j];
		}
		p = pos[j]++;
		if (p)
			now += in[j].time_ns[p] - in[j].time_ns[p - 1];
		out->file[i] = in[j].file[p];
		out->time_ns[i] = now;
		out->pid[i] = ((uint32_t)j << 24) | (in[j].pid[p] & 0xffffff);
		if (out->file[i] > max_file)
			max_file = out->file[i];
	}
	out->n = total;
	seen = calloc((size_t)max_file + 1, 1);
	if (!seen)
		goto oom;
	for (i = 0; i < total; i++) {
		if (!seen[out->file[i]]) {
			seen[out->file[i]] = 1;
			out->distinct++;
		}
	}
	free(seen);
	free(pos);
	if (ppf_event_stream_parents(out))
		goto oom;
	return 0;
oom:
	free(pos);
	ppf_event_stream_free(out);
	return -1;
}

/**
 * ppf_event_stream_free() - free a stream's arrays
 * @s: the stream
 */
void ppf_event_stream_free(struct ppf_event_stream *s)
{
	free(s->file);
	free(s->time_ns);
	free(s->pid);
	free(s->parent);
	s->file = NULL;
	s->time_ns = NULL;
	s->pid = NULL;
	s->parent = NULL;
	s->n = 0;
}
