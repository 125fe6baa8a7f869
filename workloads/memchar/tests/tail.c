// SPDX-License-Identifier: MIT
/*
 * The latency-distribution arithmetic on synthetic timings: histogram bins
 * (every value inside its bin, bins at most 1/32 wide, monotone), quantiles
 * (exact below 64, within half a bin above, max exact), the mean, the
 * outlier cap, the filtering of interrupted groups and preempted chunks,
 * the timer cost's trimmed mean.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../src/memchar.h"

static int fails;

#define CHECK(cond, ...)                                                 \
	do {                                                             \
		if (!(cond)) {                                           \
			fails++;                                         \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);                    \
			fputc('\n', stderr);                             \
		}                                                        \
	} while (0)

static struct mc_hist h;
static struct mc_tail t;

static void bins(void)
{
	size_t prev = 0;
	double lo, hi;

	for (uint64_t v = 0; v < 3000000; v += v < 5000 ? 1 : 997) {
		size_t i = mc_hist_index(v);

		mc_hist_bounds(i, &lo, &hi);
		CHECK(i < MC_HIST_BINS, "index %zu of %llu out of range", i,
		      (unsigned long long)v);
		CHECK(lo <= (double)v && (double)v < hi,
		      "%llu outside its bin [%g, %g)", (unsigned long long)v,
		      lo, hi);
		CHECK(v < 64 ? hi - lo == 1 : (hi - lo) / lo <= 1.0 / 32 + 1e-12,
		      "bin of %llu too wide: [%g, %g)", (unsigned long long)v,
		      lo, hi);
		CHECK(i >= prev, "index not monotone at %llu",
		      (unsigned long long)v);
		prev = i;
	}
	/* consecutive bins tile the line */
	for (size_t i = 0; i + 1 < MC_HIST_BINS; i++) {
		double lo2, hi2;

		mc_hist_bounds(i, &lo, &hi);
		mc_hist_bounds(i + 1, &lo2, &hi2);
		CHECK(hi == lo2, "bins %zu and %zu do not touch", i, i + 1);
	}
	CHECK(mc_hist_index(UINT64_MAX) == MC_HIST_BINS - 1,
	      "the largest value is not in the last bin");
}

static void quantiles(void)
{
	mc_hist_reset(&h);
	CHECK(mc_hist_quantile(&h, 0.5) < 0, "empty histogram has a median");
	CHECK(mc_hist_mean(&h) < 0, "empty histogram has a mean");
	for (int i = 0; i < 10; i++)
		mc_hist_add(&h, 7);
	mc_hist_add(&h, 50);
	CHECK(mc_hist_quantile(&h, 0.5) == 7, "small values must be exact: %g",
	      mc_hist_quantile(&h, 0.5));
	CHECK(mc_hist_quantile(&h, 10.0 / 11) == 7, "rank 10 of 11 is 7: %g",
	      mc_hist_quantile(&h, 10.0 / 11));
	CHECK(mc_hist_quantile(&h, 0.95) == 50, "rank 11 of 11 is 50: %g",
	      mc_hist_quantile(&h, 0.95));

	/* 1..100000 once each: quantile q is q * 100000 within half a bin */
	mc_hist_reset(&h);
	for (uint64_t v = 1; v <= 100000; v++)
		mc_hist_add(&h, v);
	CHECK(h.n == 100000 && h.min == 1 && h.max == 100000, "counts");
	CHECK(fabs(mc_hist_mean(&h) - 50000.5) < 1e-9, "mean %g",
	      mc_hist_mean(&h));
	for (int i = 0; i < MC_NQUANTILES; i++) {
		double q = mc_quantiles[i], want = ceil(q * 100000);
		double got = mc_hist_quantile(&h, q);

		CHECK(fabs(got - want) <= want / 64 + 1e-9,
		      "q=%g: %g, want %g within 1/64", q, got, want);
	}
	CHECK(mc_hist_quantile(&h, 1) == 100000, "max must be exact");
	CHECK(mc_hist_quantile(&h, 0) < 0 && mc_hist_quantile(&h, 1.5) < 0,
	      "q outside (0, 1] must be refused");

	/* a tail: 999 x 1000 and 1 x 50000 -> p99.9 = 1000, max 50000 */
	mc_hist_reset(&h);
	for (int i = 0; i < 999; i++)
		mc_hist_add(&h, 1000);
	mc_hist_add(&h, 50000);
	CHECK(fabs(mc_hist_quantile(&h, 0.999) - 1000) <= 1000.0 / 64,
	      "p99.9 %g", mc_hist_quantile(&h, 0.999));
	CHECK(mc_hist_quantile(&h, 0.9999) == 50000 ||
	      fabs(mc_hist_quantile(&h, 0.9999) - 50000) <= 50000.0 / 64,
	      "p99.99 %g", mc_hist_quantile(&h, 0.9999));
}

static void filtering(void)
{
	uint32_t d[100];

	/* groups of 120 ns with a 20 ns clock read, one interrupted */
	for (int i = 0; i < 100; i++)
		d[i] = 120;
	d[42] = 100020;
	mc_tail_init(&t, 16, 20, 1000);
	mc_tail_add_chunk(&t, d, 100, false);
	CHECK(t.h.n == 99, "99 clean groups, got %llu",
	      (unsigned long long)t.h.n);
	CHECK(t.interrupted == 1 && t.interrupted_max == 100000,
	      "one interrupted group of 100000 ns: %llu, %llu",
	      (unsigned long long)t.interrupted,
	      (unsigned long long)t.interrupted_max);
	CHECK(mc_hist_quantile(&t.h, 1) == 100, "the timer is subtracted: %g",
	      mc_hist_quantile(&t.h, 1));
	/* a preempted chunk is left out whole */
	mc_tail_add_chunk(&t, d, 100, true);
	CHECK(t.h.n == 99 && t.preempted_groups == 100 && t.interrupted == 1,
	      "preempted chunk counted apart");
	/* no cap: every group is kept, the long one in the tail */
	mc_tail_init(&t, 16, 20.4, 0);
	mc_tail_add_chunk(&t, d, 100, false);
	CHECK(t.h.n == 100 && t.interrupted == 0 && t.h.max == 100000,
	      "cap 0 keeps all (rounded subtraction): n %llu max %llu",
	      (unsigned long long)t.h.n, (unsigned long long)t.h.max);
	/* a group shorter than the clock's cost counts as 0 */
	d[0] = 5;
	mc_tail_init(&t, 1, 20, 0);
	mc_tail_add_chunk(&t, d, 1, false);
	CHECK(t.h.n == 1 && t.h.max == 0, "negative group clamped to 0");

	/* cap: 8 x median, at least the floor */
	mc_hist_reset(&h);
	for (int i = 0; i < 100; i++)
		mc_hist_add(&h, 1600);
	CHECK(labs((long)mc_tail_cap(&h, 8, 4000) - 12800) <= 12800 / 64,
	      "cap %llu", (unsigned long long)mc_tail_cap(&h, 8, 4000));
	CHECK(mc_tail_cap(&h, 2, 4000) == 4000, "floor");
	mc_hist_reset(&h);
	CHECK(mc_tail_cap(&h, 8, 4000) == 4000, "empty warm-up: the floor");
}

static void timer(void)
{
	uint64_t d[] = { 20, 20, 30, 30, 5000 };

	CHECK(mc_trimmed_mean(d, 5) == 25, "trimmed mean %g",
	      mc_trimmed_mean(d, 5));
	CHECK(mc_timer_cost_ns() >= 0, "timer cost");
}

int main(void)
{
	bins();
	quantiles();
	filtering();
	timer();
	printf("tail: %s\n", fails ? "FAIL" : "ok");
	return fails ? 1 : 0;
}
