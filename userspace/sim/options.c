// SPDX-License-Identifier: GPL-2.0
/*
 * options.c - ppf-sim's command line: the base configuration and the sweep
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../include/ppf_cli.h"
#include "sim.h"

void sim_die(const char *fmt, const char *arg)
{
	fprintf(stderr, "ppf-sim: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(2);
}

static unsigned long parse_num(const char *opt, const char *s,
			       unsigned long lo, unsigned long hi)
{
	char *end;
	unsigned long v;

	errno = 0;
	if (!s || *s == '-' || *s == '\0')
		sim_die("%s needs a non-negative number", opt);
	v = strtoul(s, &end, 10);
	if (errno || *end || v < lo || v > hi) {
		fprintf(stderr, "ppf-sim: %s %s: not a number in %lu..%lu\n",
			opt, s, lo, hi);
		exit(2);
	}
	return v;
}

static size_t parse_list(const char *opt, const char *s, unsigned int *out,
			 size_t max)
{
	char buf[256], *tok, *save = NULL;
	size_t n = 0;

	if (strlen(s) >= sizeof(buf))
		sim_die("%s: list too long", opt);
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == max)
			sim_die("%s: too many values", opt);
		out[n++] = parse_num(opt, tok, 1, PPF_MAX_PARTITION_SIZE);
	}
	if (!n)
		sim_die("%s: empty list", opt);
	return n;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ppf-sim [OPTIONS] TRACE...\n"
		"Score a model on the open/exec sequence of recorded traces.\n\n"
		"  -m, --model NAME          last_successor | pcm | epcm | oracle (epcm)\n"
		"  -p, --partition-size N    nodes per partition (pcm 32, epcm 64)\n"
		"  -o, --order N             model order (pcm 2, epcm 80%% of -p)\n"
		"  -t, --threshold PCT       least likelihood to predict, 1..100 (25)\n"
		"  -n, --max-nodes N         node budget (1048576)\n"
		"  -P, --max-predictions N   predictions per event, 1..%d (16)\n"
		"  -w, --window K            a prediction counts if the file comes\n"
		"                            within K events (16)\n"
		"  -r, --passes N            training passes before the measured one (3)\n"
		"  -c, --contexts MODE       global: one stream (the paper's); pid: a\n"
		"                            context per recorded process (global)\n"
		"  -T, --train TRACE         train on this run instead of the measured\n"
		"                            trace (repeatable; files matched by path)\n"
		"  -i, --interleave SEED     run all TRACEs at once, opens interleaved at\n"
		"                            random, another interleaving each pass\n"
		"  -s, --sweep               last successor, PCM and EPCM over a grid,\n"
		"                            and the oracle\n"
		"      --sizes LIST          sweep partition sizes (4,8,16,32,64)\n"
		"      --orders LIST         sweep PCM orders (1,2,3,4); EPCM uses\n"
		"                            80%% of each partition size\n"
		"  -j, --json FILE           also write the results as JSON (checked\n"
		"                            writable before the run; -: JSON on\n"
		"                            standard output, the table on standard error)\n"
		"  -V, --version             print the version and exit\n"
		"  -h, --help                print this help and exit\n\n"
		"Exit status: 0 done; 1 a trace could not be read or scored, or an\n"
		"output could not be written; 2 a bad command line.\n"
		"See ppf-sim(1).\n", PPF_MAX_PREDICTIONS);
}

/* Options given as numbers; -1 where not given. */
struct sim_shape_opts {
	const char *model;
	long ps, order, threshold, max_nodes, max_pred;
};

/* The getopt loop; returns -1 to go on, or the exit code (help, bad option). */
static int parse_options(int argc, char **argv, struct sim_args *a,
			 struct sim_shape_opts *o)
{
	static const struct option opts[] = {
		{ "model", required_argument, NULL, 'm' },
		{ "partition-size", required_argument, NULL, 'p' },
		{ "order", required_argument, NULL, 'o' },
		{ "threshold", required_argument, NULL, 't' },
		{ "max-nodes", required_argument, NULL, 'n' },
		{ "max-predictions", required_argument, NULL, 'P' },
		{ "window", required_argument, NULL, 'w' },
		{ "passes", required_argument, NULL, 'r' },
		{ "contexts", required_argument, NULL, 'c' },
		{ "train", required_argument, NULL, 'T' },
		{ "interleave", required_argument, NULL, 'i' },
		{ "sweep", no_argument, NULL, 's' },
		{ "sizes", required_argument, NULL, 'S' },
		{ "orders", required_argument, NULL, 'O' },
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;	/* our own one-line message below */
	while ((c = getopt_long(argc, argv, ":m:p:o:t:n:P:w:r:c:T:i:sj:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'm': o->model = optarg; break;
		case 'p': o->ps = parse_num("--partition-size", optarg,
					    PPF_MIN_PARTITION_SIZE, PPF_MAX_PARTITION_SIZE); break;
		case 'o': o->order = parse_num("--order", optarg, 1, PPF_MAX_PARTITION_SIZE - 1); break;
		case 't': o->threshold = parse_num("--threshold", optarg, 1, 100); break;
		case 'n': o->max_nodes = parse_num("--max-nodes", optarg, PPF_MIN_NODES, PPF_MAX_NODES); break;
		case 'P': o->max_pred = parse_num("--max-predictions", optarg, 1, PPF_MAX_PREDICTIONS); break;
		case 'w': a->base.window = parse_num("--window", optarg, 1, 1u << 20); break;
		case 'r': a->base.passes = parse_num("--passes", optarg, 0, 1000); break;
		case 'c':
			if (strcmp(optarg, "global") == 0)
				a->base.contexts = SIM_CTX_GLOBAL;
			else if (strcmp(optarg, "pid") == 0)
				a->base.contexts = SIM_CTX_PID;
			else
				sim_die("--contexts %s: not global or pid", optarg);
			break;
		case 'T':
			if (a->ntrain == ARRAY_SIZE(a->train))
				sim_die("%s", "--train: at most 16 runs");
			a->train[a->ntrain++] = optarg;
			break;
		case 'i':
			a->interleave = 1;
			a->seed = parse_num("--interleave", optarg, 0, 1ul << 31);
			break;
		case 's': a->sweep = 1; break;
		case 'S': a->nsizes = parse_list("--sizes", optarg, a->sizes, 16); break;
		case 'O': a->norders = parse_list("--orders", optarg, a->orders, 16); break;
		case 'j': a->json = optarg; break;
		case 'h': usage(stdout); return 0;
		case 'V': ppf_cli_version("ppf-sim"); return 0;
		case ':':
			fprintf(stderr, "ppf-sim: %s needs a value (see ppf-sim --help)\n",
				argv[optind - 1]);
			return 2;
		default:
			if (optopt)
				fprintf(stderr, "ppf-sim: unknown option -%c (see ppf-sim --help)\n",
					optopt);
			else
				fprintf(stderr, "ppf-sim: unknown option %s (see ppf-sim --help)\n",
					argv[optind - 1]);
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "ppf-sim: no TRACE given (usage: ppf-sim [OPTIONS] TRACE...; "
			"see ppf-sim --help)\n");
		return 2;
	}
	a->traces = argv + optind;
	a->ntraces = (size_t)(argc - optind);
	return -1;
}

/* The base model parameters from the options; 0, or the exit code. */
static int base_params(const struct sim_shape_opts *o, struct sim_config *base)
{
	struct ppf_model_params *p = &base->params;

	if (strcmp(o->model, "oracle") == 0) {
		base->oracle = 1;
		ppf_model_params_init(p, PPF_MODEL_EPCM);
	} else {
		enum ppf_model_kind kind;

		if (ppf_model_kind_parse(o->model, &kind))
			sim_die("--model %s: not last_successor, pcm, epcm or oracle", o->model);
		ppf_model_params_init(p, kind);
	}
	if (o->ps >= 0)
		ppf_model_params_init_shape(p, p->kind, o->ps);
	if (o->order >= 0)
		p->model_order = o->order;
	if (o->threshold >= 0)
		p->threshold_pct = o->threshold;
	if (o->max_nodes >= 0)
		p->max_nodes = o->max_nodes;
	if (o->max_pred >= 0)
		p->max_predictions = o->max_pred;
	if (ppf_model_params_validate(p)) {
		fprintf(stderr, "ppf-sim: invalid model shape: partition size %u, order %u "
			"(order must be below the partition size), max nodes %u\n",
			p->partition_size, p->model_order, p->max_nodes);
		return 2;
	}
	return 0;
}

/* Parse the command line into a; returns -1 to go on, or the exit code. */
int sim_parse_args(int argc, char **argv, struct sim_args *a)
{
	static const unsigned int sizes[] = { 4, 8, 16, 32, 64 }, orders[] = { 1, 2, 3, 4 };
	struct sim_shape_opts o = { "epcm", -1, -1, -1, -1, -1 };
	int ret;

	memset(a, 0, sizeof(*a));
	memcpy(a->sizes, sizes, sizeof(sizes));
	memcpy(a->orders, orders, sizeof(orders));
	a->nsizes = 5;
	a->norders = 4;
	a->base.passes = 3;
	a->base.window = 16;
	ret = parse_options(argc, argv, a, &o);
	if (ret >= 0)
		return ret;
	ret = base_params(&o, &a->base);
	return ret ? ret : -1;
}

/*
 * The configurations to run on each trace: the base one, or for --sweep last
 * successor, PCM for every size and order below it, EPCM for every size (at
 * its default order) and the oracle, with the base's budget and options.
 */
struct sim_config *sim_build_sweep(const struct sim_args *a, size_t *ncfgs)
{
	const struct sim_config *base = &a->base;
	size_t cap = a->sweep ? 2 + a->nsizes * (a->norders + 2) : 1, n = 0;
	struct sim_config *cfgs = calloc(cap, sizeof(*cfgs));

	if (!cfgs)
		sim_die("%s", "out of memory");
	if (!a->sweep) {
		cfgs[0] = *base;
		*ncfgs = 1;
		return cfgs;
	}
	cfgs[n] = *base;
	cfgs[n].oracle = 0;
	ppf_model_params_init(&cfgs[n].params, PPF_MODEL_LAST_SUCCESSOR);
	cfgs[n].params.max_nodes = base->params.max_nodes;
	cfgs[n].params.max_predictions = base->params.max_predictions;
	n++;
	for (size_t i = 0; i < a->nsizes; i++) {
		for (size_t j = 0; j < a->norders; j++) {
			if (a->orders[j] >= a->sizes[i])
				continue;
			cfgs[n] = *base;
			cfgs[n].oracle = 0;
			cfgs[n].params.kind = PPF_MODEL_PCM;
			cfgs[n].params.partition_size = a->sizes[i];
			cfgs[n].params.model_order = a->orders[j];
			n++;
		}
	}
	for (size_t i = 0; i < a->nsizes; i++) {
		cfgs[n] = *base;
		cfgs[n].oracle = 0;
		cfgs[n].params.kind = PPF_MODEL_EPCM;
		cfgs[n].params.partition_size = a->sizes[i];
		cfgs[n].params.model_order = ppf_model_default_order(PPF_MODEL_EPCM,
								     a->sizes[i]);
		n++;
		/* The same shape with contexts the other way. */
		cfgs[n] = cfgs[n - 1];
		cfgs[n].contexts = base->contexts == SIM_CTX_PID ? SIM_CTX_GLOBAL
								 : SIM_CTX_PID;
		n++;
	}
	cfgs[n] = *base;
	cfgs[n].oracle = 1;
	n++;
	for (size_t i = 0; i < n; i++)
		if (!cfgs[i].oracle && ppf_model_params_validate(&cfgs[i].params))
			sim_die("%s", "a sweep shape is invalid (check --max-nodes)");
	*ncfgs = n;
	return cfgs;
}
