// SPDX-License-Identifier: MIT
/*
 * rng.c - seeded, portable random numbers (xoshiro256**, splitmix64
 * seeding): tiersim's streams and memchar's chains.  A change to any
 * function here changes their outputs.
 */
#include <math.h>

#include "tbutil.h"

void rng_seed(struct rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1342543de82ef95ULL);
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
	r->have_spare = 0;
	r->spare = 0.0;
}

/* rng_next() is inline in tbutil.h */

double rng_uniform(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

double rng_uniform_pos(struct rng *r)
{
	return ((double)(rng_next(r) >> 11) + 0.5) * 0x1.0p-53;
}

uint64_t rng_below(struct rng *r, uint64_t n)
{
	/* Lemire's multiply-shift; the tiny bias is irrelevant here and the
	 * result is deterministic, which is what matters. */
	return (uint64_t)(((unsigned __int128)rng_next(r) * n) >> 64);
}

uint64_t rng_below_exact(struct rng *r, uint64_t n)
{
	uint64_t limit, x;

	if (n <= 1)
		return 0;
	limit = UINT64_MAX - UINT64_MAX % n;
	do {
		x = rng_next(r);
	} while (x >= limit);
	return x % n;
}

double rng_normal(struct rng *r)
{
	double u, v, s;

	if (r->have_spare) {
		r->have_spare = 0;
		return r->spare;
	}
	do {
		u = 2.0 * rng_uniform(r) - 1.0;
		v = 2.0 * rng_uniform(r) - 1.0;
		s = u * u + v * v;
	} while (s >= 1.0 || s == 0.0);
	s = sqrt(-2.0 * log(s) / s);
	r->spare = v * s;
	r->have_spare = 1;
	return u * s;
}

double rng_exp(struct rng *r, double rate)
{
	return -log(rng_uniform_pos(r)) / rate;
}

uint64_t rng_poisson(struct rng *r, double mean)
{
	if (!(mean > 0.0))
		return 0;
	if (mean < 30.0) {
		/* Knuth: multiply uniforms until below e^-mean */
		double lim = exp(-mean), prod = rng_uniform_pos(r);
		uint64_t k = 0;

		while (prod > lim) {
			k++;
			prod *= rng_uniform_pos(r);
		}
		return k;
	} else {
		/* normal approximation with continuity correction */
		double x = mean + sqrt(mean) * rng_normal(r) + 0.5;

		return x <= 0.0 ? 0 : (uint64_t)x;
	}
}
