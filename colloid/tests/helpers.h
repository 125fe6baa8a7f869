/* SPDX-License-Identifier: MIT */
/*
 * helpers.h - shared by the libcolloid tests: a two-tier context factory, a
 * latency feed, plan checkers, a state comparison and a deterministic random generator (the
 * golden hashes depend on it).  Assertions and exit codes: lib/include/check.h.
 */
#ifndef COLLOID_TEST_HELPERS_H
#define COLLOID_TEST_HELPERS_H

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "colloid.h"

static const char *const t_policies[] = { "hemem", "tpp", "memtis" };
#define T_NPOLICIES 3

#define T_LAT_FAST 80.0
#define T_LAT_SLOW 150.0
#define T_PAGE 4096ull
#define T_MS 1000000ull

/* xorshift64*: deterministic, no libc state */
static inline uint64_t t_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1Dull;
}

static inline double t_unif(uint64_t *s)
{
	return (double)(t_rand(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* Two tiers: tier 0 fast (cap_fast pages), tier 1 slow (cap_slow pages). */
static inline int t_ctx(struct colloid_ctx **c, const char *policy, int colloid, uint64_t npages,
			uint64_t cap_fast, uint64_t cap_slow, unsigned int init_tier,
			const struct colloid_params *prm)
{
	struct colloid_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.policy = policy;
	cfg.colloid = colloid;
	cfg.ntiers = 2;
	cfg.tiers[0].capacity_bytes = cap_fast * T_PAGE;
	cfg.tiers[0].unloaded_latency_ns = T_LAT_FAST;
	cfg.tiers[1].capacity_bytes = cap_slow * T_PAGE;
	cfg.tiers[1].unloaded_latency_ns = T_LAT_SLOW;
	cfg.npages = npages;
	cfg.page_size = T_PAGE;
	cfg.init_tier = init_tier;
	cfg.params = prm;
	return colloid_new(&cfg, c);
}

/* Feed both tiers one latency observation (ns), with access rates r0, r1 per second. */
static inline int t_lat(struct colloid_ctx *c, double l0, double l1, double r0, double r1,
			uint64_t q_ns)
{
	double s = (double)q_ns * 1e-9;
	int ret = colloid_observe_ns(c, 0, l0, r0 * s, q_ns);

	return ret ? ret : colloid_observe_ns(c, 1, l1, r1 * s, q_ns);
}

/* Apply a plan to a page->tier shadow map and per-tier counts; check capacity
 * after every move.  Returns 0, or -1 on a bad move or capacity overflow. */
static inline int t_apply(const struct colloid_move *m, size_t n, unsigned char *where,
			  uint64_t *used, const uint64_t *cap, unsigned int ntiers)
{
	for (size_t k = 0; k < n; k++) {
		if (m[k].from >= ntiers || m[k].to >= ntiers || m[k].from == m[k].to)
			return -1;
		if (where[m[k].page] != m[k].from)
			return -1;
		where[m[k].page] = m[k].to;
		used[m[k].from]--;
		used[m[k].to]++;
		if (used[m[k].to] > cap[m[k].to])
			return -1;
	}
	return 0;
}

/* two plans are the same moves in the same order */
static inline int t_same_plan(const struct colloid_move *m1, size_t n1,
			      const struct colloid_move *m2, size_t n2)
{
	if (n1 != n2)
		return 0;
	for (size_t i = 0; i < n1; i++)
		if (m1[i].page != m2[i].page || m1[i].from != m2[i].from || m1[i].to != m2[i].to)
			return 0;
	return 1;
}

/* two contexts report the same state, bit for bit; @a's goes to @sa */
static inline int t_same_state(struct colloid_ctx *a, struct colloid_ctx *b, struct colloid_state *sa)
{
	struct colloid_state sb;

	return colloid_get_state(a, sa) == 0 && colloid_get_state(b, &sb) == 0 &&
	       memcmp(sa, &sb, sizeof(sb)) == 0;
}

#endif
