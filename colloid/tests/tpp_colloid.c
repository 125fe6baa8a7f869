// SPDX-License-Identifier: MIT
/*
 * TPP+Colloid uses only the sign of L_D - L_A: while L_D > L_A promotions
 * stop and a default-tier page that takes a hint fault within the hot
 * threshold is demoted; while L_D < L_A TPP promotes as usual.  Also checks
 * TPP's promotion rate limit and its watermark demotion (kswapd).
 */
#include "helpers.h"

#define NP 400

int main(void)
{
	struct colloid_ctx *c = NULL;
	struct colloid_params prm;
	struct colloid_state st;
	struct colloid_move m[NP];
	uint64_t now = 0;
	size_t n;

	/* pages 0..99 in the fast tier, 100..399 in the slow tier; no smoothing */
	colloid_params_default(&prm, "tpp");
	prm.ewma_alpha = 1;
	CHECK(t_ctx(&c, "tpp", 1, NP, 300, NP, 1, &prm) == 0);
	for (uint64_t i = 0; i < 100; i++)
		CHECK(colloid_page_set_tier(c, i, 0) == 0);

	/* L_D > L_A: faults on both tiers; only demotions, of faulting fast pages */
	now += 10 * T_MS;
	CHECK(t_lat(c, 300, 150, 1e9, 1e8, 10 * T_MS) == 0);
	for (uint64_t i = 0; i < 50; i++)
		CHECK(colloid_hint_fault(c, i, 10 * T_MS, now) == 0);
	for (uint64_t i = 100; i < 150; i++)
		CHECK(colloid_hint_fault(c, i, 10 * T_MS, now) == 0);
	CHECK(colloid_hint_fault(c, 60, 5000 * T_MS, now) == 0);	/* not within threshold */
	CHECK(colloid_tick(c, now, 10 * T_MS, m, NP, &n) == 0);
	CHECKF(n == 50, "%zu moves", n);
	for (size_t k = 0; k < n; k++)
		CHECK(m[k].from == 0 && m[k].to == 1 && m[k].page < 50);

	/* L_D < L_A: the slow pages that fault are promoted */
	now += 10 * T_MS;
	CHECK(t_lat(c, 100, 200, 1e8, 1e9, 10 * T_MS) == 0);
	for (uint64_t i = 100; i < 150; i++)
		CHECK(colloid_hint_fault(c, i, 10 * T_MS, now) == 0);
	CHECK(colloid_tick(c, now, 10 * T_MS, m, NP, &n) == 0);
	CHECKF(n == 50, "%zu moves", n);
	for (size_t k = 0; k < n; k++)
		CHECK(m[k].from == 1 && m[k].to == 0 && m[k].page >= 100 && m[k].page < 150);

	/* balanced: nothing moves */
	now += 10 * T_MS;
	CHECK(t_lat(c, 150, 152, 5e8, 5e8, 10 * T_MS) == 0);
	for (uint64_t i = 150; i < 200; i++)
		CHECK(colloid_hint_fault(c, i, 10 * T_MS, now) == 0);
	for (uint64_t i = 0; i < 10; i++)
		CHECK(colloid_hint_fault(c, 100 + i, 10 * T_MS, now) == 0);
	CHECK(colloid_tick(c, now, 10 * T_MS, m, NP, &n) == 0);
	CHECK(n == 0);
	colloid_destroy(c);
	c = NULL;

	/* baseline: rate limit of 4 pages per second window */
	colloid_params_default(&prm, "tpp");
	CHECK(colloid_param_set(&prm, "tpp_promote_rate_limit_MBps", 4.0 * T_PAGE / 1e6) == 0);
	CHECK(t_ctx(&c, "tpp", 0, NP, 300, NP, 1, &prm) == 0);
	now = 10 * T_MS;
	for (uint64_t i = 0; i < 20; i++)
		CHECK(colloid_hint_fault(c, i, 10 * T_MS, now) == 0);
	CHECK(colloid_tick(c, now, 10 * T_MS, m, NP, &n) == 0);
	CHECKF(n == 4, "rate limit: %zu moves", n);
	now += 2000 * T_MS;	/* new window */
	for (uint64_t i = 0; i < 20; i++)
		CHECK(colloid_hint_fault(c, i, 10 * T_MS, now) == 0);
	CHECK(colloid_tick(c, now, 10 * T_MS, m, NP, &n) == 0);
	CHECKF(n == 4, "rate limit, next window: %zu moves", n);
	colloid_destroy(c);
	c = NULL;

	/* baseline: fast tier of 100 pages full -> kswapd demotes the LRU tail to 2 % free */
	CHECK(t_ctx(&c, "tpp", 0, NP, 100, NP, 1, NULL) == 0);
	for (uint64_t i = 0; i < 100; i++)
		CHECK(colloid_page_set_tier(c, i, 0) == 0);
	for (uint64_t i = 0; i < 100; i++)	/* reference order: page 0 is LRU */
		CHECK(colloid_sample(c, i, 0, 1) == 0);
	CHECK(colloid_tick(c, 10 * T_MS, 10 * T_MS, m, NP, &n) == 0);
	CHECKF(n == 2, "kswapd: %zu moves", n);
	CHECK(m[0].page == 0 && m[1].page == 1 && m[0].to == 1);
	CHECK(colloid_get_state(c, &st) == 0);
	CHECK(st.pages[0] == 98);
	colloid_destroy(c);
	return T_PASS;
err:
	colloid_destroy(c);
	return T_FAIL;
}
