// SPDX-License-Identifier: GPL-2.0
/*
 * ppf-replay run: the report (table and JSON; schema in docs/replay.md).
 * Runs after the timed part, so it may allocate.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

struct lstats {
	uint64_t n, sum, p50, p90, p99, max;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t rank(const uint64_t *v, uint64_t n, unsigned pct)
{
	uint64_t k = (n * pct + 99) / 100;	/* nearest rank */

	return n ? v[k ? k - 1 : 0] : 0;
}

/* latency stats of the issued events matching op (or all ops if op < 0) and class */
static struct lstats lat_stats(struct replay_state *r, int op, int cls)
{
	struct lstats s = { 0 };
	uint64_t *v = malloc((r->nev + 1) * sizeof(*v));

	if (!v)
		return s;
	for (size_t i = 0; i < r->nev; i++) {
		struct replay_event *e = &r->ev[i];

		if ((op >= 0 && e->op != op) || e->outcome == OUT_SKIPPED || e->outcome == OUT_NOFD)
			continue;
		if (cls >= 0 && e->cls != cls)
			continue;
		v[s.n++] = e->lat;
		s.sum += e->lat;
	}
	qsort(v, s.n, sizeof(*v), cmp_u64);
	s.p50 = rank(v, s.n, 50);
	s.p90 = rank(v, s.n, 90);
	s.p99 = rank(v, s.n, 99);
	s.max = s.n ? v[s.n - 1] : 0;
	free(v);
	return s;
}

struct totals {
	uint64_t elapsed, think, probe, probe_hidden, calls, io, overhead, handoff;
	uint64_t bytes_read, bytes_written, bytes_mapped;
	uint64_t out[PPF_OP_COUNT][OUT_COUNT], count[PPF_OP_COUNT];
	uint64_t cls[2][CLS_COUNT];	/* reads, mmaps */
	uint64_t unexpected, expected, unexp_ok, skipped, nofd;
};

static void totals(struct replay_state *r, struct totals *t)
{
	memset(t, 0, sizeof(*t));
	t->elapsed = r->t_end - r->t_start;
	for (size_t i = 0; i < r->nthreads; i++) {
		t->think += r->th[i].think_ns;
		t->probe += r->th[i].probe_ns;
		t->probe_hidden += r->th[i].probe_hidden_ns;
		t->bytes_read += r->th[i].bytes_read;
		t->bytes_written += r->th[i].bytes_written;
		t->bytes_mapped += r->th[i].bytes_mapped;
	}
	for (size_t i = 0; i < r->nev; i++) {
		struct replay_event *e = &r->ev[i];

		t->count[e->op]++;
		t->out[e->op][e->outcome]++;
		if (e->outcome != OUT_SKIPPED && e->outcome != OUT_NOFD)
			t->calls += e->lat;
		if (e->op == PPF_OP_READ && e->outcome != OUT_SKIPPED)
			t->cls[0][e->cls]++;
		if (e->op == PPF_OP_MMAP && e->outcome != OUT_SKIPPED)
			t->cls[1][e->cls]++;
		switch (e->outcome) {
		case OUT_UNEXPECTED: t->unexpected++; break;
		case OUT_EXPECTED: t->expected++; break;
		case OUT_UNEXP_OK: t->unexp_ok++; break;
		case OUT_SKIPPED: t->skipped++; break;
		case OUT_NOFD: t->nofd++; break;
		}
	}
	/* hand-off: from the end of what an event waited for to its start */
	{
		uint64_t *own = calloc(r->nthreads + 1, sizeof(*own)), pm = r->t_start;
		uint64_t *pmv = malloc((r->nev + 1) * sizeof(*pmv));

		if (own && pmv) {
			pmv[0] = r->t_start;
			for (size_t i = 0; i < r->nev; i++) {
				pm = pm > r->ev[i].t_end ? pm : r->ev[i].t_end;
				pmv[i + 1] = pm;
			}
			for (size_t i = 0; i < r->nev; i++) {
				struct replay_event *e = &r->ev[i];
				uint64_t ready = pmv[e->need];

				if (own[e->thread] > ready)
					ready = own[e->thread];
				if (e->t_ready > ready)
					t->handoff += e->t_ready - ready;
				own[e->thread] = e->t_end;
			}
		}
		free(own);
		free(pmv);
	}
	t->io = t->elapsed > t->think + t->probe ? t->elapsed - t->think - t->probe : 0;
	t->overhead = t->io > t->calls ? t->io - t->calls : 0;
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static double us(uint64_t ns)
{
	return (double)ns / 1e3;
}

/* per op: count, latency and outcomes */
static void report_ops(struct replay_state *r, const struct totals *t, FILE *o)
{
	fprintf(o, "\n  %-8s %8s %10s %10s %10s %10s %10s %7s %7s %7s %7s\n", "op", "count",
		"mean us", "p50 us", "p90 us", "p99 us", "max us", "unexp", "expect",
		"unexpok", "skip");
	for (int k = 0; k < PPF_OP_COUNT; k++) {
		struct lstats s;

		if (!t->count[k])
			continue;
		s = lat_stats(r, k, -1);
		fprintf(o, "  %-8s %8llu %10.1f %10.1f %10.1f %10.1f %10.1f %7llu %7llu %7llu %7llu\n",
			ppf_trace_op_name((enum ppf_trace_op)k), (unsigned long long)t->count[k],
			s.n ? us(s.sum) / (double)s.n : 0.0, us(s.p50), us(s.p90), us(s.p99),
			us(s.max), (unsigned long long)t->out[k][OUT_UNEXPECTED] +
			t->out[k][OUT_NOFD], (unsigned long long)t->out[k][OUT_EXPECTED],
			(unsigned long long)t->out[k][OUT_UNEXP_OK],
			(unsigned long long)t->out[k][OUT_SKIPPED]);
	}
}

/* reads and mmaps by page-cache class */
static void report_classes(struct replay_state *r, const struct totals *t, FILE *o)
{
	for (int w = 0; w < 2; w++) {
		const char *nm = w ? "mmaps" : "reads";

		fprintf(o, "  %s: %llu hit, %llu partial, %llu miss, %llu unclassified", nm,
			(unsigned long long)t->cls[w][CLS_HIT],
			(unsigned long long)t->cls[w][CLS_PARTIAL],
			(unsigned long long)t->cls[w][CLS_MISS],
			(unsigned long long)t->cls[w][CLS_NONE]);
		if (!w) {
			for (int c = CLS_HIT; c <= CLS_MISS; c++) {
				struct lstats s = lat_stats(r, PPF_OP_READ, c);

				fprintf(o, "%s%.1f", c == CLS_HIT ? " (mean us " : "/",
					s.n ? us(s.sum) / (double)s.n : 0.0);
			}
			fprintf(o, ")");
		}
		fprintf(o, "\n");
	}
}

/* the first ten events that went otherwise than recorded */
static void report_unexpected(struct replay_state *r, FILE *o)
{
	int shown = 0;

	for (size_t i = 0; i < r->nev && shown < 10; i++) {
		struct replay_event *e = &r->ev[i];

		if (e->outcome != OUT_UNEXPECTED && e->outcome != OUT_UNEXP_OK &&
		    e->outcome != OUT_NOFD)
			continue;
		fprintf(o, "    event %zu pid %u %s %s: %s (recorded %lld)\n", i, e->pid,
			ppf_trace_op_name((enum ppf_trace_op)e->op), r->paths[e->file],
			e->err ? strerror(e->err) : "succeeded", (long long)e->res);
		shown++;
	}
}

void replay_report(struct replay_state *r, FILE *o)
{
	struct totals t;
	struct lstats rd, op;

	if (!o)
		return;
	totals(r, &t);
	rd = lat_stats(r, PPF_OP_READ, -1);
	op = lat_stats(r, PPF_OP_OPEN, -1);
	fprintf(o, "ppf-replay %s (%s) on %s\n", r->trace_path,
		r->trace->name ? r->trace->name : "?", r->dir);
	fprintf(o, "  events %zu, pids/threads %zu, overlapping calls in trace %llu "
		   "(%llu can overlap in the replay), think=%s exec=%s mmap=%s%s\n",
		r->nev, r->nthreads, (unsigned long long)r->overlapping,
		(unsigned long long)r->overlap_kept,
		replay_think_names[r->think_mode], replay_exec_names[r->exec_mode],
		replay_mmap_names[r->mmap_mode], r->cold ? " cold" : "");
	if (r->faults_path)
		fprintf(o, "  faults: %s: %zu files, %zu pages (their mapped ranges: those pages "
			   "only)\n", r->faults_path, r->faults_files, r->faults_pages);
	fprintf(o, "  spin calibration: %llu iterations in %.3f ms (median of 5, %.3f-%.3f) "
		   "= %.1f iterations/us%s\n",
		(unsigned long long)r->cal_iters, ms(r->cal_ns), ms(r->cal_min_ns),
		ms(r->cal_max_ns), (double)r->cal_iters / (double)r->cal_ns * 1000.0,
		r->mlocked ? "" : "  (mlockall FAILED)");
	if (r->fixed_rate > 0)
		fprintf(o, "  spin rate fixed by --spin-rate: %.1f iterations/us\n", r->fixed_rate);
	fprintf(o, "\n  %-34s %14s\n", "time", "ms");
	fprintf(o, "  %-34s %14.3f\n", "elapsed", ms(t.elapsed));
	fprintf(o, "  %-34s %14.3f\n", "think (replayed)", ms(t.think));
	fprintf(o, "  %-34s %14.3f\n", "think (recorded)", ms(r->think_recorded));
	fprintf(o, "  %-34s %14.3f\n", "classification probes", ms(t.probe));
	if (r->probes_mode == PROBES_THINK)
		fprintf(o, "  %-34s %14.3f\n", "  more in place of think", ms(t.probe_hidden));
	fprintf(o, "  %-34s %14.3f\n", "total I/O latency", ms(t.io));
	fprintf(o, "  %-34s %14.3f\n", "  of which in calls", ms(t.calls));
	fprintf(o, "  %-34s %14.3f\n", "  of which replay overhead", ms(t.overhead));
	fprintf(o, "  %-34s %14.3f\n", "    of which hand-off between calls", ms(t.handoff));
	if (r->trace->corrected_elapsed_ns != PPF_TRACE_UNKNOWN)
		fprintf(o, "  %-34s %14.3f\n", "recorded elapsed (corrected)",
			ms(r->trace->corrected_elapsed_ns));

	report_ops(r, &t, o);
	fprintf(o, "\n  read latency: %llu reads, %.1f MB, mean %.1f us, p50 %.1f, p90 %.1f, "
		   "p99 %.1f, max %.1f us\n",
		(unsigned long long)rd.n, (double)t.bytes_read / 1e6,
		rd.n ? us(rd.sum) / (double)rd.n : 0.0, us(rd.p50), us(rd.p90), us(rd.p99),
		us(rd.max));
	fprintf(o, "  open latency: mean %.1f us, p99 %.1f us\n",
		op.n ? us(op.sum) / (double)op.n : 0.0, us(op.p99));
	report_classes(r, &t, o);
	fprintf(o, "  errors: %llu unexpected, %llu expected (ENOENT on outputs absent at start), "
		   "%llu unexpected successes, %llu without fd; %llu recorded-failed reads/writes "
		   "not issued\n",
		(unsigned long long)t.unexpected, (unsigned long long)t.expected,
		(unsigned long long)t.unexp_ok, (unsigned long long)t.nofd,
		(unsigned long long)t.skipped);
	fprintf(o, "  fds: %zu open file descriptions, %llu dups, %llu inherited uses, "
		   "%llu opened on demand; classification: %s\n",
		r->nslots - (size_t)r->dups, (unsigned long long)r->dups,
		(unsigned long long)r->inherited, (unsigned long long)r->implicit_opens,
		!r->classify ? "off" : r->have_cachestat ? "cachestat+mincore" : "mincore");
	report_unexpected(r, o);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_lat(FILE *f, struct lstats s)
{
	fprintf(f, "{\"count\": %llu, \"sum_ns\": %llu, \"mean_ns\": %llu, \"p50_ns\": %llu, "
		   "\"p90_ns\": %llu, \"p99_ns\": %llu, \"max_ns\": %llu}",
		(unsigned long long)s.n, (unsigned long long)s.sum,
		(unsigned long long)(s.n ? s.sum / s.n : 0), (unsigned long long)s.p50,
		(unsigned long long)s.p90, (unsigned long long)s.p99, (unsigned long long)s.max);
}

static void json_u64(FILE *f, const char *k, uint64_t v, int comma)
{
	if (v == PPF_TRACE_UNKNOWN)
		fprintf(f, "\"%s\": null%s", k, comma ? ", " : "");
	else
		fprintf(f, "\"%s\": %llu%s", k, (unsigned long long)v, comma ? ", " : "");
}

int replay_report_json(struct replay_state *r, const char *path)
{
	FILE *f = fopen(path, "w");
	struct totals t;

	if (!f)
		return -1;
	totals(r, &t);
	fprintf(f, "{\n  \"schema\": \"ppf-replay-1\",\n  \"trace\": {\"path\": ");
	json_str(f, r->trace_path);
	fprintf(f, ", \"name\": ");
	json_str(f, r->trace->name);
	fprintf(f, ", \"events\": %zu, \"pids\": %zu, \"files\": %zu, \"overlapping_calls\": %llu, "
		"\"overlapping_calls_kept\": %llu, \"dependencies\": %llu, ",
		r->nev, r->nthreads, r->nfiles, (unsigned long long)r->overlapping,
		(unsigned long long)r->overlap_kept, (unsigned long long)r->deps);
	json_u64(f, "corrected_elapsed_ns", r->trace->corrected_elapsed_ns, 1);
	json_u64(f, "untraced_elapsed_ns", r->trace->untraced_elapsed_ns, 1);
	json_u64(f, "compute_ns", r->trace->compute_ns, 1);
	json_u64(f, "think_recorded_ns", r->think_recorded, 0);
	fprintf(f, "},\n  \"dir\": ");
	json_str(f, r->dir);
	fprintf(f, ",\n  \"options\": {\"think\": \"%s\", \"exec\": \"%s\", \"mmap\": \"%s\", "
		   "\"cold\": %s, \"synced\": %s, \"classify\": \"%s\", \"mlocked\": %s},\n",
		replay_think_names[r->think_mode], replay_exec_names[r->exec_mode],
		replay_mmap_names[r->mmap_mode], r->cold ? "true" : "false",
		r->no_sync ? "false" : "true",
		!r->classify ? "off" : r->have_cachestat ? "cachestat+mincore" : "mincore",
		r->mlocked ? "true" : "false");
	if (r->faults_path) {
		fprintf(f, "  \"faults\": {\"file\": ");
		json_str(f, r->faults_path);
		fprintf(f, ", \"files\": %zu, \"pages\": %zu},\n", r->faults_files,
			r->faults_pages);
	}
	fprintf(f, "  \"calibration\": {\"iterations\": %llu, \"median_ns\": %llu, "
		   "\"min_ns\": %llu, \"max_ns\": %llu, \"iterations_per_us\": %.3f, "
		   "\"used_iterations_per_us\": %.3f},\n",
		(unsigned long long)r->cal_iters, (unsigned long long)r->cal_ns,
		(unsigned long long)r->cal_min_ns, (unsigned long long)r->cal_max_ns,
		(double)r->cal_iters / (double)r->cal_ns * 1000.0, r->iters_per_ns * 1000.0);
	fprintf(f, "  \"probes\": \"%s\",\n  \"probe_hidden_ns\": %llu,\n",
		replay_probes_names[r->probes_mode], (unsigned long long)t.probe_hidden);
	fprintf(f, "  \"elapsed_ns\": %llu,\n  \"think_ns\": %llu,\n  \"probe_ns\": %llu,\n"
		   "  \"io_latency_ns\": %llu,\n  \"call_latency_ns\": %llu,\n"
		   "  \"overhead_ns\": %llu,\n  \"handoff_ns\": %llu,\n",
		(unsigned long long)t.elapsed, (unsigned long long)t.think,
		(unsigned long long)t.probe, (unsigned long long)t.io,
		(unsigned long long)t.calls, (unsigned long long)t.overhead,
		(unsigned long long)t.handoff);
	fprintf(f, "  \"bytes\": {\"read\": %llu, \"written\": %llu, \"mapped\": %llu},\n",
		(unsigned long long)t.bytes_read, (unsigned long long)t.bytes_written,
		(unsigned long long)t.bytes_mapped);
	fprintf(f, "  \"read\": {\"latency\": ");
	json_lat(f, lat_stats(r, PPF_OP_READ, -1));
	fprintf(f, ",\n    \"hits\": %llu, \"partial\": %llu, \"misses\": %llu, "
		   "\"unclassified\": %llu,\n    \"hit_latency\": ",
		(unsigned long long)t.cls[0][CLS_HIT], (unsigned long long)t.cls[0][CLS_PARTIAL],
		(unsigned long long)t.cls[0][CLS_MISS], (unsigned long long)t.cls[0][CLS_NONE]);
	json_lat(f, lat_stats(r, PPF_OP_READ, CLS_HIT));
	fprintf(f, ",\n    \"partial_latency\": ");
	json_lat(f, lat_stats(r, PPF_OP_READ, CLS_PARTIAL));
	fprintf(f, ",\n    \"miss_latency\": ");
	json_lat(f, lat_stats(r, PPF_OP_READ, CLS_MISS));
	fprintf(f, "},\n  \"mmap\": {\"hits\": %llu, \"partial\": %llu, \"misses\": %llu, "
		   "\"unclassified\": %llu},\n",
		(unsigned long long)t.cls[1][CLS_HIT], (unsigned long long)t.cls[1][CLS_PARTIAL],
		(unsigned long long)t.cls[1][CLS_MISS], (unsigned long long)t.cls[1][CLS_NONE]);
	fprintf(f, "  \"ops\": {");
	for (int k = 0, first = 1; k < PPF_OP_COUNT; k++) {
		if (!t.count[k])
			continue;
		fprintf(f, "%s\n    \"%s\": {\"count\": %llu, \"ok\": %llu, \"unexpected_errors\": %llu, "
			   "\"expected_errors\": %llu, \"unexpected_successes\": %llu, "
			   "\"no_fd\": %llu, \"skipped\": %llu, \"latency\": ",
			first ? "" : ",", ppf_trace_op_name((enum ppf_trace_op)k),
			(unsigned long long)t.count[k], (unsigned long long)t.out[k][OUT_OK],
			(unsigned long long)t.out[k][OUT_UNEXPECTED],
			(unsigned long long)t.out[k][OUT_EXPECTED],
			(unsigned long long)t.out[k][OUT_UNEXP_OK],
			(unsigned long long)t.out[k][OUT_NOFD],
			(unsigned long long)t.out[k][OUT_SKIPPED]);
		json_lat(f, lat_stats(r, k, -1));
		fprintf(f, "}");
		first = 0;
	}
	fprintf(f, "\n  },\n  \"errors\": {\"unexpected\": %llu, \"expected\": %llu, "
		   "\"unexpected_successes\": %llu, \"no_fd\": %llu, \"skipped\": %llu, "
		   "\"first\": [",
		(unsigned long long)t.unexpected, (unsigned long long)t.expected,
		(unsigned long long)t.unexp_ok, (unsigned long long)t.nofd,
		(unsigned long long)t.skipped);
	for (size_t i = 0, shown = 0; i < r->nev && shown < 20; i++) {
		struct replay_event *e = &r->ev[i];

		if (e->outcome != OUT_UNEXPECTED && e->outcome != OUT_UNEXP_OK &&
		    e->outcome != OUT_NOFD)
			continue;
		fprintf(f, "%s\n    {\"event\": %zu, \"pid\": %u, \"op\": \"%s\", \"path\": ",
			shown ? "," : "", i, e->pid, ppf_trace_op_name((enum ppf_trace_op)e->op));
		json_str(f, r->paths[e->file]);
		fprintf(f, ", \"errno\": %d, \"recorded_result\": %lld}", e->err, (long long)e->res);
		shown++;
	}
	fprintf(f, "]},\n  \"fds\": {\"descriptions\": %zu, \"dups\": %llu, "
		   "\"inherited_uses\": %llu, \"opened_on_demand\": %llu}\n}\n",
		r->nslots - (size_t)r->dups, (unsigned long long)r->dups,
		(unsigned long long)r->inherited, (unsigned long long)r->implicit_opens);
	return fclose(f) ? -1 : 0;
}

#define REPLAY_NAME(name, str) [name] = str,
const char *const replay_class_names[] = { REPLAY_CLASSES(REPLAY_NAME) };
const char *const replay_outcome_names[] = { REPLAY_OUTCOMES(REPLAY_NAME) };
#undef REPLAY_NAME

/* one line per event: what was replayed and how it went (tab separated) */
int replay_report_events(struct replay_state *r, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fprintf(f, "index\tpid\top\tstart_ns\tthink_ns\tready_ns\tend_ns\tlatency_ns\tclass\t"
		   "outcome\terrno\toffset\tlen\tpath\n");
	for (size_t i = 0; i < r->nev; i++) {
		struct replay_event *e = &r->ev[i];

		fprintf(f, "%zu\t%u\t%s\t%llu\t%llu\t%llu\t%llu\t%llu\t%s\t%s\t%d\t%lld\t%lld\t%s\n",
			i, e->pid, ppf_trace_op_name((enum ppf_trace_op)e->op),
			(unsigned long long)e->start, (unsigned long long)e->think,
			(unsigned long long)(e->t_ready - r->t_start),
			(unsigned long long)(e->t_end - r->t_start), (unsigned long long)e->lat,
			replay_class_names[e->cls], replay_outcome_names[e->outcome], e->err,
			(long long)e->off, (long long)e->len, r->paths[e->file]);
	}
	return fclose(f) ? -1 : 0;
}
