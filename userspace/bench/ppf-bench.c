// SPDX-License-Identifier: GPL-2.0
/*
 * ppf-bench - speed and memory of the models
 *
 * For each model and each number of distinct files (1,000 to 1,000,000),
 * on a random stream (every event a uniformly chosen file: nothing to
 * learn, the most nodes created) and a repetitive one (a fixed random
 * permutation of the files, repeated: everything to learn, the longest
 * EPCM walks), reports nanoseconds per event of the last of three passes
 * over the stream and bytes per node in use.  A benchmark, not a test: it
 * reports figures and asserts nothing.
 *
 * "ppf-bench one MODEL random|repetitive FILES EVENTS" runs one
 * configuration once, for valgrind: instruction and cache-miss counts are
 * the same on any machine however busy (make bench-instructions).  Both
 * call the model as the kernel's worker does, ppf_model_event_new(): only
 * what is news is written.
 *
 * Exit status: 0 done, 1 out of memory or a model not created, 2 a bad
 * command line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../../models/ppf_model.h"
#include "../include/ppf_cli.h"

#define BENCH_MAX_FILES		10000000ul
#define BENCH_MAX_EVENTS	100000000ul

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ppf-bench [MAX_FILES]\n"
		"       ppf-bench one MODEL random|repetitive FILES EVENTS\n"
		"       ppf-bench --help | --version\n\n"
		"The models' speed and memory: for each model (last_successor, pcm, epcm)\n"
		"and 1,000 to MAX_FILES distinct files (1000..1000000, default 1000000), on\n"
		"a random and a repetitive stream, ns an event over the third pass and bytes\n"
		"a node.  A benchmark: it reports figures and asserts nothing.\n\n"
		"  one   one configuration once (for valgrind: make bench-instructions);\n"
		"        MODEL last_successor | pcm | epcm, FILES 1..%lu, EVENTS 1..%lu\n\n"
		"Exit status: 0 done; 1 out of memory or a model not created; 2 a bad\n"
		"command line.\n", BENCH_MAX_FILES, BENCH_MAX_EVENTS);
}

/* A number in lo..hi named what; exits 2 with one line if it is not. */
static unsigned long bench_num(const char *what, const char *s, unsigned long lo,
			       unsigned long hi)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (s[0] == '-' || s[0] == '+' || end == s || *end || errno || v < lo || v > hi) {
		fprintf(stderr, "ppf-bench: %s %s: not a number in %lu..%lu\n", what, s, lo, hi);
		exit(PPF_EXIT_USAGE);
	}
	return v;
}

static void *bench_alloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "ppf-bench: out of memory (%zu bytes)\n", n);
		exit(PPF_EXIT_FAIL);
	}
	return p;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

static void make_stream(uint32_t *ev, size_t n, uint32_t files, int repetitive)
{
	size_t i;

	if (!repetitive) {
		for (i = 0; i < n; i++)
			ev[i] = rng() % files;
		return;
	}
	uint32_t *perm = bench_alloc(files * sizeof(*perm));

	for (i = 0; i < files; i++)
		perm[i] = i;
	for (i = files - 1; i > 0; i--) {
		uint32_t j = rng() % (i + 1), t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	for (i = 0; i < n; i++)
		ev[i] = perm[i % files];
	free(perm);
}

static int run_one(int argc, char **argv)
{
	struct ppf_prediction out[PPF_MAX_PREDICTIONS];
	struct ppf_model_params p;
	enum ppf_model_kind kind;
	struct ppf_model *m;
	uint64_t sink = 0;
	uint32_t files, *ev;
	size_t n, i;
	int err;

	if (argc != 6) {
		fprintf(stderr, "ppf-bench: one needs MODEL random|repetitive FILES EVENTS "
			"(%d argument%s given; see ppf-bench --help)\n", argc - 2, argc == 3 ? "" : "s");
		return PPF_EXIT_USAGE;
	}
	if (ppf_model_kind_parse(argv[2], &kind)) {
		fprintf(stderr, "ppf-bench: MODEL %s: not last_successor, pcm or epcm\n", argv[2]);
		return PPF_EXIT_USAGE;
	}
	if (strcmp(argv[3], "random") && strcmp(argv[3], "repetitive")) {
		fprintf(stderr, "ppf-bench: stream %s: not random or repetitive\n", argv[3]);
		return PPF_EXIT_USAGE;
	}
	files = (uint32_t)bench_num("FILES", argv[4], 1, BENCH_MAX_FILES);
	n = (size_t)bench_num("EVENTS", argv[5], 1, BENCH_MAX_EVENTS);
	ev = bench_alloc(n * sizeof(*ev));
	make_stream(ev, n, files, strcmp(argv[3], "repetitive") == 0);
	ppf_model_params_init(&p, kind);
	p.max_nodes = (uint64_t)files * 64 > PPF_MAX_NODES ? PPF_MAX_NODES : files * 64;
	m = ppf_model_create(&p, &err);
	if (!m) {
		fprintf(stderr, "ppf-bench: cannot create the model: %s\n", strerror(-err));
		return PPF_EXIT_FAIL;
	}
	for (i = 0; i < n; i++)
		sink += ppf_model_event_new(m, 0, 0, ev[i], out, PPF_MAX_PREDICTIONS);
	printf("%s %s %u files, %zu events, %llu predictions\n", argv[2], argv[3],
	       files, n, (unsigned long long)sink);
	ppf_model_destroy(m);
	free(ev);
	return 0;
}

int main(int argc, char **argv)
{
	static const uint32_t sizes[] = { 1000, 10000, 100000, 1000000 };
	static const enum ppf_model_kind kinds[] = {
		PPF_MODEL_LAST_SUCCESSOR, PPF_MODEL_PCM, PPF_MODEL_EPCM,
	};
	struct ppf_prediction out[PPF_MAX_PREDICTIONS];
	uint32_t max_files;
	size_t s, k, pass, i;
	int rep;

	ppf_cli_quiet_pipe();
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return PPF_EXIT_OK;
	}
	if (argc > 1 && (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))) {
		ppf_cli_version("ppf-bench");
		return PPF_EXIT_OK;
	}
	if (argc > 1 && strcmp(argv[1], "one") == 0)
		return run_one(argc, argv);
	if (argc > 1 && argv[1][0] == '-') {
		fprintf(stderr, "ppf-bench: unknown option %s (see ppf-bench --help)\n", argv[1]);
		return PPF_EXIT_USAGE;
	}
	if (argc > 2) {
		fprintf(stderr, "ppf-bench: too many arguments (see ppf-bench --help)\n");
		return PPF_EXIT_USAGE;
	}
	max_files = argc > 1 ? (uint32_t)bench_num("MAX_FILES", argv[1], 1000, 1000000) : 1000000;

	printf("# ppf-bench: ns/event over the 3rd pass of a stream of max(1M, 3 x files) events\n");
	printf("%-15s %-10s %8s %10s %10s %8s %12s %10s\n", "model", "stream",
	       "files", "events", "ns/event", "nodes", "B/node used",
	       "B/node max");
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		uint32_t files = sizes[s];
		size_t n = files * 3 > 1000000 ? files * 3 : 1000000;
		uint32_t *ev;

		if (files > max_files)
			break;
		ev = bench_alloc(n * sizeof(*ev));
		for (rep = 0; rep < 2; rep++) {
			make_stream(ev, n, files, rep);
			for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
				struct ppf_model_params p;
				struct ppf_model_stats st;
				struct ppf_model *m;
				uint64_t t0 = 0, t1 = 0, sink = 0;
				int err;

				ppf_model_params_init(&p, kinds[k]);
				/* Room for 64 nodes per file: a full default EPCM partition. */
				p.max_nodes = (uint64_t)files * 64 > PPF_MAX_NODES ?
					      PPF_MAX_NODES : files * 64;
				m = ppf_model_create(&p, &err);
				if (!m) {
					fprintf(stderr, "ppf-bench: cannot create the model: %s\n",
						strerror(-err));
					return 1;
				}
				for (pass = 0; pass < 3; pass++) {
					if (pass == 2)
						t0 = now_ns();
					for (i = 0; i < n; i++)
						sink += ppf_model_event_new(m, 0, 0, ev[i], out,
									PPF_MAX_PREDICTIONS);
					if (pass == 2)
						t1 = now_ns();
				}
				ppf_model_stats(m, &st);
				printf("%-15s %-10s %8u %10zu %10.1f %8u %12.2f %10.2f\n",
				       ppf_model_kind_name(kinds[k]),
				       rep ? "repetitive" : "random", files, n,
				       (double)(t1 - t0) / n, st.nodes,
				       st.nodes ? (double)st.bytes_in_use / st.nodes : 0,
				       (double)st.bytes / p.max_nodes);
				ppf_model_destroy(m);
				if (ppf_cli_stdout_gone()) {
					free(ev);
					return PPF_EXIT_OK;	/* | head: no reader left */
				}
				if (sink == 42)
					putchar(' ');
			}
		}
		free(ev);
	}
	return 0;
}
