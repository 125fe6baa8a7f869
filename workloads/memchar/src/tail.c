// SPDX-License-Identifier: MIT
/*
 * Latency distributions: a log-spaced histogram of fixed size, quantiles
 * read from it, the cost of the clock, and the sorting of timed groups of
 * dependent loads into "clean" (histogram), "interrupted" (longer than the
 * outlier cap) and "preempted" (in a chunk with a context switch).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "memchar.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

/* ---- histogram --------------------------------------------------------- */

size_t mc_hist_index(uint64_t v)
{
	unsigned int o, shift;

	if (v < 2 * MC_HIST_SUB)
		return (size_t)v;
	o = 63u - (unsigned int)__builtin_clzll(v);	/* >= SUB_BITS + 1 */
	shift = o - MC_HIST_SUB_BITS;
	return 2 * MC_HIST_SUB +
	       (size_t)(o - MC_HIST_SUB_BITS - 1) * MC_HIST_SUB +
	       (size_t)((v >> shift) - MC_HIST_SUB);
}

void mc_hist_bounds(size_t i, double *lo, double *hi)
{
	size_t k, m;
	unsigned int o;

	if (i < 2 * MC_HIST_SUB) {
		*lo = (double)i;
		*hi = (double)i + 1;
		return;
	}
	k = i - 2 * MC_HIST_SUB;
	o = (unsigned int)(k / MC_HIST_SUB) + MC_HIST_SUB_BITS + 1;
	m = k % MC_HIST_SUB;
	*lo = (double)(MC_HIST_SUB + m) * (double)(1ULL << (o - MC_HIST_SUB_BITS));
	*hi = (double)(MC_HIST_SUB + m + 1) * (double)(1ULL << (o - MC_HIST_SUB_BITS));
}

void mc_hist_reset(struct mc_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void mc_hist_add(struct mc_hist *h, uint64_t v)
{
	h->bin[mc_hist_index(v)]++;
	h->n++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

/*
 * The q-quantile (0 < q <= 1): the value of rank ceil(q n) in sorted
 * order, as the middle of its bin (so within half a bin, <= 1.6 %, of the
 * true value; exact below 64), clamped to [min, max]; q = 1 is the max.
 * -1 when empty.
 */
double mc_hist_quantile(const struct mc_hist *h, double q)
{
	uint64_t rank, seen = 0;
	double lo, hi, v;

	if (!h->n || !(q > 0) || q > 1)
		return -1;
	if (q == 1)
		return (double)h->max;
	rank = (uint64_t)((double)h->n * q);
	if ((double)rank < (double)h->n * q)
		rank++;
	if (rank < 1)
		rank = 1;
	for (size_t i = 0; i < MC_HIST_BINS; i++) {
		seen += h->bin[i];
		if (seen < rank)
			continue;
		mc_hist_bounds(i, &lo, &hi);
		v = i < 2 * MC_HIST_SUB ? lo : (lo + hi) / 2;
		if (v < (double)h->min)
			v = (double)h->min;
		if (v > (double)h->max)
			v = (double)h->max;
		return v;
	}
	return (double)h->max;
}

double mc_hist_mean(const struct mc_hist *h)
{
	return h->n ? (double)h->sum / (double)h->n : -1;
}

/* ---- timed groups -------------------------------------------------------- */

void mc_tail_init(struct mc_tail *t, unsigned int group, double timer_ns,
		  uint64_t cap_ns)
{
	memset(t, 0, sizeof(*t));
	mc_hist_reset(&t->h);
	t->group = group;
	t->timer_ns = timer_ns;
	t->cap_ns = cap_ns;
}

void mc_tail_add_chunk(struct mc_tail *t, const uint32_t *d, size_t n,
		       bool preempted)
{
	if (preempted) {
		t->preempted_groups += n;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		double x = (double)d[i] - t->timer_ns;
		uint64_t v = x > 0 ? (uint64_t)(x + 0.5) : 0;

		if (t->cap_ns && v > t->cap_ns) {
			t->interrupted++;
			if (v > t->interrupted_max)
				t->interrupted_max = v;
			continue;
		}
		mc_hist_add(&t->h, v);
	}
}

uint64_t mc_tail_cap(const struct mc_hist *warm, double factor,
		     uint64_t floor_ns)
{
	double m = mc_hist_quantile(warm, 0.5);
	uint64_t cap = m > 0 ? (uint64_t)(factor * m) : 0;

	return cap > floor_ns ? cap : floor_ns;
}

/* ---- the clock's own cost ------------------------------------------------ */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

#define TIMER_SAMPLES 4095

/*
 * Mean of the n sorted deltas d up to 4 x their median (longer ones were
 * interrupted). The mean, not the median: the clock may advance in steps
 * (10 ns on the AMD EPYC development VM), and averaging many unsynchronised
 * reads resolves below the step.
 */
double mc_trimmed_mean(const uint64_t *d, size_t n)
{
	uint64_t cap = 4 * d[n / 2], sum = 0;
	size_t k = 0;

	for (; k < n && d[k] <= cap; k++)
		sum += d[k];
	return k ? (double)sum / (double)k : 0;
}

/*
 * What one clock read adds to a timed group (each group's duration holds
 * exactly one): TIMER_SAMPLES back-to-back now_ns() deltas, trimmed mean.
 */
double mc_timer_cost_ns(void)
{
	static uint64_t d[TIMER_SAMPLES];
	uint64_t prev = now_ns(), now;

	for (int i = 0; i < TIMER_SAMPLES; i++) {
		now = now_ns();
		d[i] = now - prev;
		prev = now;
	}
	qsort(d, TIMER_SAMPLES, sizeof(d[0]), cmp_u64);
	return mc_trimmed_mean(d, TIMER_SAMPLES);
}

/*
 * rdtscp (+ lfence, so later loads wait): trimmed mean of TIMER_SAMPLES
 * back-to-back deltas in TSC ticks (as mc_timer_cost_ns), converted to ns with the TSC rate
 * measured against the monotonic clock over about 2 ms. Only to state the
 * alternative's cost (memchar times with clock_gettime); -1 where there
 * is no rdtscp (not x86-64).
 */
double mc_rdtscp_cost_ns(void)
{
#if defined(__x86_64__)
	static uint64_t d[TIMER_SAMPLES];
	unsigned int aux;
	uint64_t t0, c0, t1, c1, prev, now;

	t0 = now_ns();
	c0 = __rdtscp(&aux);
	do
		t1 = now_ns();
	while (t1 - t0 < 2000000);
	c1 = __rdtscp(&aux);
	prev = __rdtscp(&aux);
	_mm_lfence();
	for (int i = 0; i < TIMER_SAMPLES; i++) {
		now = __rdtscp(&aux);
		_mm_lfence();
		d[i] = now - prev;
		prev = now;
	}
	mc_tsc_sink = prev;
	qsort(d, TIMER_SAMPLES, sizeof(d[0]), cmp_u64);
	if (c1 <= c0)
		return -1;
	return mc_trimmed_mean(d, TIMER_SAMPLES) * (double)(t1 - t0) /
	       (double)(c1 - c0);
#else
	return -1;
#endif
}

volatile uint64_t mc_tsc_sink;

const double mc_quantiles[MC_NQUANTILES] = {
	0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 0.9999, 1,
};
