// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - ppfctl's status and watch output
 *
 * The words are for an operator deciding whether ppf helps: is it on, what
 * does it cost (memory against its budget, worker CPU), how busy is it
 * (events a second), and did its prefetches get used.  The JSON carries
 * every tunable and counter by the kernel's own names, so a script needs
 * nothing but the admin guide to read it.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "report.h"
#include "tunables.h"

static uint64_t ppf_delta(const struct ppf_sample *s, const char *name)
{
	uint64_t now = ppf_counter(s->now, name);
	uint64_t before = s->before ? ppf_counter(s->before, name) : 0;

	/* A reset between the readings: count from it. */
	return now >= before ? now - before : now;
}

double ppf_rate(const struct ppf_sample *s, const char *name)
{
	if (!s->before || s->seconds <= 0)
		return 0;
	return ppf_delta(s, name) / s->seconds;
}

double ppf_rate_prefix(const struct ppf_sample *s, const char *prefix)
{
	size_t len = strlen(prefix);
	double sum = 0;
	unsigned int i;

	for (i = 0; i < s->now->n; i++)
		if (s->now->c[i].numeric && !strncmp(s->now->c[i].name, prefix, len))
			sum += ppf_rate(s, s->now->c[i].name);
	return sum;
}

static uint64_t ppf_events(const struct ppf_counters *cs)
{
	return ppf_counter(cs, "events_open") + ppf_counter(cs, "events_exec") +
	       ppf_counter(cs, "events_read");
}

static double ppf_events_rate(const struct ppf_sample *s)
{
	return ppf_rate(s, "events_open") + ppf_rate(s, "events_exec") +
	       ppf_rate(s, "events_read");
}

/* KiB in a page: the statistics count pages. */
static uint64_t ppf_page_kb(void)
{
	long size = sysconf(_SC_PAGESIZE);

	return size > 0 ? (uint64_t)size / 1024 : 4;
}

/* The share of decided prefetches that were opened; -1 if none decided. */
static double ppf_hit_rate(const struct ppf_counters *cs)
{
	uint64_t used = ppf_counter(cs, "prefetch_useful");
	uint64_t wasted = ppf_counter(cs, "prefetch_wasted");

	return used + wasted ? 100.0 * used / (used + wasted) : -1;
}

static unsigned long long ppf_tunable_ull(const char *name)
{
	char buf[PPF_TUNABLE_MAX];

	return ppf_tunable_get(name, buf, sizeof(buf)) ? 0 : strtoull(buf, NULL, 10);
}

static void ppf_mib(FILE *out, double bytes)
{
	if (bytes >= 1024.0 * 1024)
		fprintf(out, "%.1f MiB", bytes / (1024.0 * 1024));
	else if (bytes >= 1024.0)
		fprintf(out, "%.1f KiB", bytes / 1024.0);
	else
		fprintf(out, "%.0f bytes", bytes);
}

/* Counters of one family (skipped_, dropped_) that are not zero, in words. */
static void ppf_nonzero(FILE *out, const struct ppf_counters *cs,
			const char *prefix, const char *label)
{
	size_t len = strlen(prefix);
	bool any = false;
	unsigned int i;

	for (i = 0; i < cs->n; i++) {
		const struct ppf_counter *c = &cs->c[i];

		if (!c->numeric || !c->value || strncmp(c->name, prefix, len))
			continue;
		/* Of skipped_cached, those decided without a look: with it. */
		if (!strcmp(c->name, "skipped_cached_known"))
			continue;
		if (!strcmp(c->name, "skipped_cached")) {
			fprintf(out, "%s cached %" PRIu64 " (%" PRIu64 " known without looking)",
				any ? "," : label, c->value,
				ppf_counter(cs, "skipped_cached_known"));
			any = true;
			continue;
		}
		fprintf(out, "%s %s %" PRIu64, any ? "," : label,
			c->name + len, c->value);
		any = true;
	}
	if (any)
		fputc('\n', out);
}

static void ppf_status_words(FILE *out, const struct ppf_sample *s)
{
	const struct ppf_counters *cs = s->now;
	char model[PPF_TUNABLE_MAX], contexts[PPF_TUNABLE_MAX];
	char io_class[PPF_TUNABLE_MAX], isolation[PPF_TUNABLE_MAX];
	unsigned long long budget = ppf_tunable_ull("memory_kb") * 1024;
	uint64_t in_use = ppf_counter(cs, "model_bytes_in_use");
	uint64_t used = ppf_counter(cs, "prefetch_useful");
	uint64_t wasted = ppf_counter(cs, "prefetch_wasted");
	double hit = ppf_hit_rate(cs);

	if (ppf_tunable_get("model", model, sizeof(model)))
		snprintf(model, sizeof(model), "%s", ppf_counter_text(cs, "model"));
	if (ppf_tunable_get("contexts", contexts, sizeof(contexts)))
		snprintf(contexts, sizeof(contexts), "?");
	if (ppf_tunable_get("io_class", io_class, sizeof(io_class)))
		snprintf(io_class, sizeof(io_class), "?");

	if (ppf_tunable_get("isolation", isolation, sizeof(isolation)))
		snprintf(isolation, sizeof(isolation), "none");
	fprintf(out, "ppf is %s: model %s, partition size %llu, order %llu, threshold %llu %%, contexts %s\n",
		ppf_counter(cs, "enabled") ? "on" : "off (vm.predictive_prefetch.enabled = 0)",
		model, ppf_tunable_ull("partition_size"),
		ppf_tunable_ull("model_order"), ppf_tunable_ull("threshold"),
		contexts);
	if (strcmp(isolation, "none"))
		fprintf(out, "isolation:  a model per %s: %" PRIu64 " of at most %" PRIu64 " live, %" PRIu64 " freed for new ones\n",
			isolation, ppf_counter(cs, "model_domains"),
			ppf_counter(cs, "model_max_domains"),
			ppf_counter(cs, "model_domains_reclaimed"));
	fprintf(out, "memory:     model ");
	ppf_mib(out, in_use);
	fprintf(out, " of patterns in ");
	ppf_mib(out, ppf_counter(cs, "model_bytes"));
	fprintf(out, " allocated (budget ");
	ppf_mib(out, budget);
	fprintf(out, ", %.1f %% of it used); %" PRIu64 " files known on %" PRIu64 " file systems\n",
		budget ? 100.0 * in_use / budget : 0.0,
		ppf_counter(cs, "files"), ppf_counter(cs, "filesystems"));
	fprintf(out, "events:     %" PRIu64 " (%" PRIu64 " opens, %" PRIu64 " execs, %" PRIu64 " reads)",
		ppf_events(cs), ppf_counter(cs, "events_open"),
		ppf_counter(cs, "events_exec"), ppf_counter(cs, "events_read"));
	if (s->before)
		fprintf(out, "; %.0f a second over the last %.1f s",
			ppf_events_rate(s), s->seconds);
	fputc('\n', out);
	fprintf(out, "predictions: %" PRIu64 " news (%" PRIu64 " of them for an event a standing one already expects); everything named again %" PRIu64 " times\n",
		ppf_counter(cs, "predictions"),
		ppf_counter(cs, "predictions_repeated"),
		ppf_counter(cs, "restates"));
	fprintf(out, "depth:      %" PRIu64 " opens asked for a few files, the cache holding all that was predicted lately; %" PRIu64 " for the full lookahead\n",
		ppf_counter(cs, "opens_hot"), ppf_counter(cs, "opens_deep"));
	if (ppf_counter(cs, "model_surprises"))
		fprintf(out, "surprises:  %" PRIu64 " events the model did not expect; %" PRIu64 " files named because they followed one before\n",
			ppf_counter(cs, "model_surprises"),
			ppf_counter(cs, "model_surprise_predictions"));
	fprintf(out, "prefetches: %" PRIu64 " issued at io_class %s, %" PRIu64 " pages read ahead (%" PRIu64 " pages of predicted files were cached already)\n",
		ppf_counter(cs, "prefetch_issued"), io_class,
		ppf_counter(cs, "pages_requested"), ppf_counter(cs, "pages_cached"));
	fprintf(out, "            %" PRIu64 " used, %" PRIu64 " wasted, %" PRIu64 " of the used ones late",
		used, wasted, ppf_counter(cs, "prefetch_late"));
	if (hit >= 0)
		fprintf(out, "; hit rate %.1f %% of prefetched files were opened\n", hit);
	else
		fprintf(out, "; no prefetched file has been judged used or wasted yet\n");
	fprintf(out, "            %" PRIu64 " KiB read ahead for files not opened yet, %" PRIu64 " KiB for the wasted ones; %" PRIu64 " judged early, not wasted, their pages still cached\n",
		ppf_counter(cs, "pages_pending") * ppf_page_kb(),
		ppf_counter(cs, "pages_wasted") * ppf_page_kb(),
		ppf_counter(cs, "prefetch_early"));
	fprintf(out, "worker:     %.3f s of CPU (model %.3f s)\n",
		ppf_counter(cs, "worker_cpu_ns") / 1e9,
		ppf_counter(cs, "worker_model_ns") / 1e9);
	if (ppf_counter(cs, "meta_learned") || ppf_counter(cs, "lookups"))
		fprintf(out, "metadata:   %" PRIu64 " blocks learnt from opens (%" PRIu64 " from the worker's lookups), %" PRIu64 " read ahead; %" PRIu64 " files looked up (the worker waited %.3f s), %" PRIu64 " spared\n",
			ppf_counter(cs, "meta_learned"),
			ppf_counter(cs, "meta_learned_lookup"),
			ppf_counter(cs, "meta_readahead"),
			ppf_counter(cs, "lookups"),
			ppf_counter(cs, "worker_lookup_ns") / 1e9,
			ppf_counter(cs, "lookups_spared"));
	if (ppf_counter(cs, "page_maps"))
		fprintf(out, "page maps:  %" PRIu64 " mapped files given one (%" PRIu64 " KiB now); %" PRIu64 " fault-around windows learnt whole; %" PRIu64 " runs read ahead from the maps; %" PRIu64 " opens planned their file's own pages\n",
			ppf_counter(cs, "page_maps"),
			ppf_counter(cs, "page_map_bytes") >> 10,
			ppf_counter(cs, "page_map_windows"),
			ppf_counter(cs, "page_map_runs"),
			ppf_counter(cs, "opened_planned"));
	if (ppf_counter(cs, "sweeps") || ppf_counter(cs, "sweeps_in_order"))
		fprintf(out, "sweeps:     %" PRIu64 " directories swept, %" PRIu64 " of their files read together in inode order; %" PRIu64 " visits not swept, read in inode order already\n",
			ppf_counter(cs, "sweeps"),
			ppf_counter(cs, "sweep_files"),
			ppf_counter(cs, "sweeps_in_order"));
	if (ppf_counter(cs, "run_sweeps"))
		fprintf(out, "task runs:  %" PRIu64 " batches of a run's files read at its start, %" PRIu64 " files, in inode order\n",
			ppf_counter(cs, "run_sweeps"),
			ppf_counter(cs, "run_sweep_files"));
	if (ppf_counter(cs, "payoff_cost_us") || ppf_counter(cs, "payoff_pauses"))
		fprintf(out, "backoff:    reads spared worth %.3f s against %.3f s of the worker acting on them; %" PRIu64 " windows paid, devices paused %" PRIu64 " times where prefetching cost more than it saved\n",
			ppf_counter(cs, "payoff_benefit_us") / 1e6,
			ppf_counter(cs, "payoff_cost_us") / 1e6,
			ppf_counter(cs, "payoff_pays"),
			ppf_counter(cs, "payoff_pauses"));
	ppf_nonzero(out, cs, "skipped_", "skipped:   ");
	ppf_nonzero(out, cs, "dropped_", "dropped:   ");
	if (ppf_counter(cs, "read_fallback"))
		fprintf(out, "note:       this kernel has no page-cache read tracepoints (before 6.10): read ranges are learnt from pages added to the page cache\n");
}

/* A JSON string of a value that is ours or the kernel's: escape the few. */
static void ppf_json_string(FILE *out, const char *v)
{
	fputc('"', out);
	for (; *v; v++) {
		if (*v == '"' || *v == '\\')
			fprintf(out, "\\%c", *v);
		else if ((unsigned char)*v < 0x20)
			fprintf(out, "\\u%04x", *v);
		else
			fputc(*v, out);
	}
	fputc('"', out);
}

void ppf_report_tunables(FILE *out, char (*names)[64], int n, bool json)
{
	char value[PPF_TUNABLE_MAX];
	const char *sep = "";
	int i;

	if (json)
		fputc('{', out);
	for (i = 0; i < n; i++) {
		if (ppf_tunable_get(names[i], value, sizeof(value)))
			continue;
		if (!json) {
			fprintf(out, "vm.predictive_prefetch.%s = %s\n", names[i], value);
			continue;
		}
		fprintf(out, "%s", sep);
		ppf_json_string(out, names[i]);
		fprintf(out, ": ");
		ppf_json_string(out, value);
		sep = ", ";
	}
	if (json)
		fputc('}', out);
}

static void ppf_status_json(FILE *out, const struct ppf_sample *s)
{
	char names[64][64];
	const struct ppf_counters *cs = s->now;
	int n = ppf_tunable_list(names, 64);
	unsigned int j;
	const char *sep = "";
	double hit = ppf_hit_rate(cs);

	fprintf(out, "{\"loaded\": true, \"enabled\": %s, \"tunables\": ",
		ppf_counter(cs, "enabled") ? "true" : "false");
	ppf_report_tunables(out, names, n, true);
	fprintf(out, ", \"counters\": {");
	sep = "";
	for (j = 0; j < cs->n; j++) {
		if (!cs->c[j].numeric)
			continue;
		fprintf(out, "%s\"%s\": %" PRIu64, sep, cs->c[j].name, cs->c[j].value);
		sep = ", ";
	}
	fprintf(out, "}, \"events\": %" PRIu64, ppf_events(cs));
	if (s->before)
		fprintf(out, ", \"events_per_second\": %.1f, \"interval_seconds\": %.3f",
			ppf_events_rate(s), s->seconds);
	if (hit >= 0)
		fprintf(out, ", \"hit_rate_pct\": %.1f", hit);
	fprintf(out, ", \"memory_budget_bytes\": %llu}\n",
		ppf_tunable_ull("memory_kb") * 1024);
}

void ppf_report_status(FILE *out, const struct ppf_sample *s, bool json)
{
	if (json)
		ppf_status_json(out, s);
	else
		ppf_status_words(out, s);
}

/* watch's columns: a title and the rate or level it shows. */
struct ppf_column {
	const char *title;	/* also the JSON key */
	const char *counter;	/* a counter's rate ... */
	const char *prefix;	/* ... or the summed rate of a family */
	bool level;		/* the counter's value, not its rate */
};

static const struct ppf_column ppf_columns[] = {
	{ "events/s", NULL, "events_", false },
	{ "predict/s", "predictions", NULL, false },
	{ "issued/s", "prefetch_issued", NULL, false },
	{ "pages/s", "pages_requested", NULL, false },
	{ "used/s", "prefetch_useful", NULL, false },
	{ "wasted/s", "prefetch_wasted", NULL, false },
	{ "skipped/s", NULL, "skipped_", false },
	{ "dropped/s", NULL, "dropped_", false },
	{ "queued", "events_queued", NULL, true },
	{ "files", "files", NULL, true },
};

#define PPF_NCOLUMNS (sizeof(ppf_columns) / sizeof(ppf_columns[0]))

static double ppf_column_value(const struct ppf_column *col,
			       const struct ppf_sample *s)
{
	if (col->level)
		return ppf_counter(s->now, col->counter);
	if (col->counter)
		return ppf_rate(s, col->counter);
	/* skipped_cached_known is a subset of skipped_cached: not twice. */
	if (!strcmp(col->prefix, "skipped_"))
		return ppf_rate_prefix(s, col->prefix) -
		       ppf_rate(s, "skipped_cached_known");
	return ppf_rate_prefix(s, col->prefix);
}

void ppf_report_watch_header(FILE *out, bool timestamps)
{
	size_t i;

	for (i = 0; i < PPF_NCOLUMNS; i++)
		fprintf(out, "%10s", ppf_columns[i].title);
	if (timestamps)
		fprintf(out, " %-19s", "time");
	fputc('\n', out);
}

void ppf_report_watch_line(FILE *out, const struct ppf_sample *s, bool json,
			   const char *stamp)
{
	size_t i;

	if (json) {
		fprintf(out, "{\"interval_seconds\": %.3f", s->seconds);
		for (i = 0; i < PPF_NCOLUMNS; i++)
			fprintf(out, ", \"%s\": %.1f", ppf_columns[i].title,
				ppf_column_value(&ppf_columns[i], s));
		if (stamp)
			fprintf(out, ", \"time\": \"%s\"", stamp);
		fprintf(out, "}\n");
	} else {
		for (i = 0; i < PPF_NCOLUMNS; i++)
			fprintf(out, "%10.0f", ppf_column_value(&ppf_columns[i], s));
		if (stamp)
			fprintf(out, " %s", stamp);
		fputc('\n', out);
	}
	fflush(out);
}
