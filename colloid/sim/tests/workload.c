// SPDX-License-Identifier: MIT
/*
 * workload.c - the model workloads' probability vectors.
 *
 * Zipf: shares sum to 1, rank k's share is k^-theta times rank 1's, the
 * hot flags mark exactly the top-ranked regions, the ranking is a seeded
 * permutation (same seed, same vector; another seed, another), theta 0 is
 * uniform, and hotset_move gives a new top set disjoint from the old one
 * while keeping the same multiset of shares.  Bad configurations are
 * refused.  GUPS: hot and cold shares as configured.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tiersim.h"

static int fails;

#define CHECK_ON_FAIL fails++
#include "check.h"

static int cmp_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

static double sum(const double *p, uint64_t n)
{
	double s = 0;

	for (uint64_t i = 0; i < n; i++)
		s += p[i];
	return s;
}

static struct workload *zipf(double theta, double hot, uint64_t seed)
{
	struct zipf_cfg c = { .working_set = 512.0 * 4096, .hot_set = hot, .theta = theta,
			      .object_bytes = 64, .rmw = 1, .region_size = 4096 };
	struct workload *w = NULL;
	struct rng r;

	rng_seed(&r, seed, 1);
	if (workload_zipf_new(&c, &r, &w))
		return NULL;
	return w;
}

static void test_zipf_shape(void)
{
	const uint64_t n = 512, nhot = 100;
	struct workload *w = zipf(0.99, nhot * 4096.0, 1);
	double *sorted, top_min = INFINITY, rest_max = 0;
	uint64_t i, flagged = 0, ascending = 0;

	CHECKF(w, "workload_zipf_new failed");
	if (!w)
		return;
	CHECKF(w->nregions == n, "nregions %llu", (unsigned long long)w->nregions);
	CHECKF(fabs(sum(w->prob, n) - 1) < 1e-12, "shares sum to %.15g", sum(w->prob, n));
	sorted = malloc(n * sizeof(*sorted));
	memcpy(sorted, w->prob, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_desc);
	for (i = 1; i < n; i++) {
		double want = pow((double)(i + 1), -0.99) * sorted[0];

		CHECKF(fabs(sorted[i] - want) < 1e-12 * sorted[0], "rank %llu share %g, want %g",
		      (unsigned long long)(i + 1), sorted[i], want);
	}
	for (i = 0; i < n; i++) {
		flagged += w->hot[i];
		if (w->hot[i] && w->prob[i] < top_min)
			top_min = w->prob[i];
		if (!w->hot[i] && w->prob[i] > rest_max)
			rest_max = w->prob[i];
		ascending += i && w->prob[i] > w->prob[i - 1];
	}
	CHECKF(flagged == nhot, "%llu regions flagged hot, want %llu", (unsigned long long)flagged,
	      (unsigned long long)nhot);
	CHECKF(top_min > rest_max, "a flagged region (%g) is colder than an unflagged one (%g)",
	      top_min, rest_max);
	/* ranked in a random order, not in address order */
	CHECKF(ascending > n / 4 && ascending < 3 * n / 4, "%llu ascending steps of %llu",
	      (unsigned long long)ascending, (unsigned long long)n);
	free(sorted);
	workload_destroy(w);
}

static void test_zipf_seed_and_uniform(void)
{
	struct workload *a = zipf(1.2, 0, 5), *b = zipf(1.2, 0, 5), *c = zipf(1.2, 0, 6);
	struct workload *u = zipf(0, 0, 5);
	uint64_t i, same = 1, other = 1, uniform = 1;

	CHECKF(a && b && c && u, "workload_zipf_new failed");
	if (a && b && c && u) {
		for (i = 0; i < a->nregions; i++) {
			same &= a->prob[i] == b->prob[i];
			other &= a->prob[i] == c->prob[i];
			uniform &= fabs(u->prob[i] - 1.0 / (double)u->nregions) < 1e-15;
		}
		CHECKF(same, "same seed, different ranking");
		CHECKF(!other, "another seed, same ranking");
		CHECKF(uniform, "theta 0 is not uniform");
	}
	workload_destroy(a);
	workload_destroy(b);
	workload_destroy(c);
	workload_destroy(u);
}

static void test_zipf_hotset_move(void)
{
	const uint64_t n = 512;
	struct workload *w = zipf(0.99, 200 * 4096.0, 3);
	double *before, *after;
	uint8_t *was_hot;
	uint64_t i, overlap = 0, flagged = 0, v;
	struct rng r;

	CHECKF(w, "workload_zipf_new failed");
	if (!w)
		return;
	before = malloc(n * sizeof(*before));
	after = malloc(n * sizeof(*after));
	was_hot = malloc(n);
	memcpy(before, w->prob, n * sizeof(*before));
	memcpy(was_hot, w->hot, n);
	v = w->version;
	rng_seed(&r, 3, 9);
	CHECKF(w->ops->event(w, "hotset_move", 0, &r) == 0, "hotset_move refused");
	CHECKF(w->version != v, "version not bumped");
	CHECKF(w->ops->event(w, "no_such_event", 0, &r) == -ENOENT, "unknown event accepted");
	for (i = 0; i < n; i++) {
		overlap += was_hot[i] && w->hot[i];
		flagged += w->hot[i];
	}
	CHECKF(flagged == 200, "%llu flagged after the move", (unsigned long long)flagged);
	CHECKF(overlap == 0, "%llu regions hot before and after the move", (unsigned long long)overlap);
	memcpy(after, w->prob, n * sizeof(*after));
	qsort(before, n, sizeof(*before), cmp_desc);
	qsort(after, n, sizeof(*after), cmp_desc);
	CHECKF(!memcmp(before, after, n * sizeof(*before)), "the move changed the shares themselves");
	workload_destroy(w);
	/* a hot set over half the working set cannot move to fresh regions */
	w = zipf(0.99, 300 * 4096.0, 3);
	CHECKF(w && w->ops->event(w, "hotset_move", 0, &r) == -EINVAL, "oversized move accepted");
	workload_destroy(w);
	free(before);
	free(after);
	free(was_hot);
}

static void test_bad_config(void)
{
	struct zipf_cfg z = { .working_set = 1 << 20, .hot_set = 0, .theta = 0.99,
			      .object_bytes = 64, .rmw = 0, .region_size = 4096 };
	struct gups_cfg g = { .working_set = 1 << 20, .hot_set = 1 << 18, .hot_share = 0.9,
			      .object_bytes = 64, .rmw = 0, .region_size = 4096 };
	struct workload *w = NULL;
	struct rng r;

	rng_seed(&r, 1, 1);
	z.theta = -0.1;
	CHECKF(workload_zipf_new(&z, &r, &w) == -EINVAL, "negative theta accepted");
	z.theta = NAN;
	CHECKF(workload_zipf_new(&z, &r, &w) == -EINVAL, "NaN theta accepted");
	z.theta = 0.99;
	z.hot_set = 2 << 20;
	CHECKF(workload_zipf_new(&z, &r, &w) == -EINVAL, "hot set above working set accepted");
	CHECKF(!w, "output set on failure");
	g.hot_share = 1.5;
	CHECKF(workload_gups_new(&g, &r, &w) == -EINVAL, "hot share 1.5 accepted");
}

static void test_gups_shares(void)
{
	struct gups_cfg g = { .working_set = 1 << 22, .hot_set = 1 << 20, .hot_share = 0.8,
			      .object_bytes = 64, .rmw = 1, .region_size = 4096 };
	struct workload *w = NULL;
	double hot = 0;
	uint64_t i, flagged = 0;
	struct rng r;

	rng_seed(&r, 1, 1);
	CHECKF(workload_gups_new(&g, &r, &w) == 0, "workload_gups_new failed");
	if (!w)
		return;
	for (i = 0; i < w->nregions; i++) {
		flagged += w->hot[i];
		hot += w->hot[i] ? w->prob[i] : 0;
	}
	CHECKF(flagged == 256, "%llu hot regions", (unsigned long long)flagged);
	CHECKF(fabs(hot - 0.8) < 1e-12, "hot share %.15g", hot);
	CHECKF(fabs(sum(w->prob, w->nregions) - 1) < 1e-12, "shares sum to %.15g",
	      sum(w->prob, w->nregions));
	CHECKF(w->write_frac == 1.0, "rmw write_frac %g", w->write_frac);
	workload_destroy(w);
}

int main(void)
{
	test_zipf_shape();
	test_zipf_seed_and_uniform();
	test_zipf_hotset_move();
	test_bad_config();
	test_gups_shares();
	if (fails)
		fprintf(stderr, "%d check(s) failed\n", fails);
	return fails ? 1 : 0;
}
