// SPDX-License-Identifier: GPL-2.0
/*
 * ppf-replay run: the think-time spin loop and its rate. Think time is
 * replayed by spinning (--think=spin) a number of iterations computed before
 * the timed part, from a measured rate or the one given by --spin-rate.
 */
#include <stdint.h>

#include "run.h"

void __attribute__((noinline)) replay_spin(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		__asm__ __volatile__("" ::: "memory");
}

static void measure(struct replay_state *r)
{
	uint64_t n = 1000000, dts[5];

	/*
	 * grow n until one round takes >= 20 ms, then take the median of 5
	 * rounds (not the fastest: on a shared host the fastest is an outlier)
	 */
	for (;;) {
		uint64_t t0 = replay_now(), dt;

		replay_spin(n);
		dt = replay_now() - t0;
		if (dt >= 20000000 || n > (1ull << 40))
			break;
		n *= 2;
	}
	for (int k = 0; k < 5; k++) {
		uint64_t t0 = replay_now();

		replay_spin(n);
		dts[k] = replay_now() - t0;
	}
	for (int a = 0; a < 5; a++)
		for (int b = a + 1; b < 5; b++)
			if (dts[b] < dts[a]) {
				uint64_t x = dts[a];

				dts[a] = dts[b];
				dts[b] = x;
			}
	r->cal_iters = n;
	r->cal_ns = dts[2] ? dts[2] : 1;
	r->cal_min_ns = dts[0];
	r->cal_max_ns = dts[4];
	r->iters_per_ns = (double)n / (double)r->cal_ns;
}

/* Measure the spin rate and turn every event's think time into iterations. */
void replay_calibrate(struct replay_state *r)
{
	measure(r);
	if (r->fixed_rate > 0)	/* same work in every compared run, whatever the calibration says */
		r->iters_per_ns = r->fixed_rate / 1000.0;
	for (size_t i = 0; i < r->nev; i++)
		r->ev[i].think_iters = replay_spin_iters(r, r->ev[i].think);
}
