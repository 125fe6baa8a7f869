// SPDX-License-Identifier: MIT
/*
 * alias.c - the alias sampler draws every page at its probability.
 *
 * The GUPS shape of the paper testbed: 36 864 regions, 10 240 of them share
 * 92.8 % of the draws, the other 26 624 share the rest (expected 0.067 % of
 * the draws each, prob * n = 0.1 in the table).  Every page must be drawn,
 * and the cold pages' counts must look Poisson: few far from the mean.  A
 * coin that shares bits with the column choice fails this: some cold
 * columns then never yield their own page (a bug tiersim once had).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tiersim.h"

int main(void)
{
	const uint64_t n = 36864, nhot = 10240, draws = 200000000ULL / 8;
	double *p = malloc(n * sizeof(*p));
	uint64_t *cnt = calloc(n, sizeof(*cnt)), i, never = 0, far = 0, hot_draws = 0;
	struct alias a = { 0 };
	struct rng r;
	double pc, mean, sd;
	int ret = 1;

	if (!p || !cnt)
		goto out;
	for (i = 0; i < n; i++)
		p[i] = i % 36 < 10 ? 0.928 / nhot : 0.072 / (n - nhot); /* 10 240 hot, spread out */
	if (alias_build(&a, p, n)) {
		fprintf(stderr, "FAIL alias_build\n");
		goto out;
	}
	rng_seed(&r, 7, 0);
	for (i = 0; i < draws; i++)
		cnt[alias_draw(&a, &r)]++;
	pc = 0.072 / (double)(n - nhot);
	mean = pc * (double)draws;
	sd = sqrt(mean);
	for (i = 0; i < n; i++) {
		if (p[i] > pc * 1.5) {
			hot_draws += cnt[i];
			continue;
		}
		never += cnt[i] == 0;
		far += fabs((double)cnt[i] - mean) > 5 * sd;
	}
	printf("cold pages: mean %.1f draws expected, %llu never drawn, %llu beyond 5 sd; hot share %.4f\n",
	       mean, (unsigned long long)never, (unsigned long long)far, (double)hot_draws / (double)draws);
	if (never || far > 2 || fabs((double)hot_draws / (double)draws - 0.928) > 0.001) {
		fprintf(stderr, "FAIL alias draws are not distributed as the probabilities\n");
		goto out;
	}
	ret = 0;
out:
	alias_free(&a);
	free(p);
	free(cnt);
	return ret;
}
