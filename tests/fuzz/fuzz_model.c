// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_model.c - libFuzzer target for the model API
 *
 * The first bytes choose the parameters (any values: invalid ones must be
 * refused cleanly, never crash); the rest is an event stream of 1- or
 * 2-byte file ids, so that small alphabets with many repeats are reached
 * quickly; when the parameters ask for several streams, each event is
 * preceded by a byte naming its context and the context's parent (a few
 * values, so that contexts are new, reused and reclaimed often).  A twin
 * fed the same events must predict the same files after every event.  The
 * model's invariants (a walk of the whole model) are checked after each of
 * the first 256 events, then after every 64th and after the last: checking
 * all of a 4 KiB input's events made it O(events x nodes), 145 executions
 * a second, too slow for a long run (make fuzz-long).
 */
#include "../../models/ppf_model.h"
#include <stdio.h>

static u32 take(const u8 **data, size_t *size, unsigned int bytes)
{
	u32 v = 0;

	while (bytes-- && *size) {
		v = (v << 8) | **data;
		(*data)++;
		(*size)--;
	}
	return v;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct ppf_prediction out[PPF_MAX_PREDICTIONS], out2[PPF_MAX_PREDICTIONS];
	struct ppf_model_params p;
	struct ppf_model *m, *twin;
	struct ppf_model_stats st;
	u32 wide, streams, events = 0;
	const char *why;
	int err;

	p.kind = take(&data, &size, 1) % 4;
	p.partition_size = take(&data, &size, 1);
	p.model_order = take(&data, &size, 1);
	p.threshold_pct = take(&data, &size, 1);
	/*
	 * Budgets up to 4095 nodes: every path (reclaim, halving, a full pool)
	 * is reached as well with small ones, and creating two models of 65535
	 * nodes per input took most of the fuzzer's time.
	 */
	p.max_nodes = take(&data, &size, 2);
	if (p.max_nodes >= 1024)
		p.max_nodes = 1024 + p.max_nodes % 3072;
	p.max_predictions = take(&data, &size, 1) % (PPF_MAX_PREDICTIONS + 2);
	p.max_contexts = take(&data, &size, 1) % 8;
	wide = take(&data, &size, 1);
	streams = wide & 2;
	wide &= 1;
	m = ppf_model_create(&p, &err);
	if (!m) {
		if (err != -EINVAL || ppf_model_params_validate(&p) != -EINVAL)
			__builtin_trap();
		return 0;
	}
	twin = ppf_model_create(&p, &err);
	if (!twin)
		__builtin_trap();
	while (size) {
		u32 c = streams ? take(&data, &size, 1) : 0;
		u32 ctx = c & 15, parent = c >> 4;
		u32 f = take(&data, &size, wide ? 2 : 1);
		unsigned int n = ppf_model_event(m, ctx, parent, f, out,
						 PPF_MAX_PREDICTIONS);
		unsigned int n2 = ppf_model_event(twin, ctx, parent, f, out2,
						  PPF_MAX_PREDICTIONS);

		events++;
		why = events <= 256 || events % 64 == 0 || !size ?
		      ppf_model_check(m) : NULL;
		if (why) {
			fprintf(stderr, "invariant broken: %s\n", why);
			__builtin_trap();
		}
		if (n > p.max_predictions || n != n2 ||
		    memcmp(out, out2, n * sizeof(out[0])))
			__builtin_trap();
		ppf_model_stats(m, &st);
		if (st.nodes > p.max_nodes || st.contexts > p.max_contexts)
			__builtin_trap();
	}
	ppf_model_destroy(m);
	ppf_model_destroy(twin);
	return 0;
}
