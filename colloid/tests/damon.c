// SPDX-License-Identifier: MIT
/*
 * The damon policy (policy_damon.c): DAMON's regions stay between
 * min_nr_regions and max_nr_regions and adapt to the accesses; a hot set in
 * the alternate tier is promoted within the size quota per reset interval;
 * cold default-tier memory is demoted; with Colloid the promotion quota
 * grows while the fed latency ratio L_D/L_A is below one and falls to the
 * minimum above one, when hot default-tier regions are demoted instead;
 * invalid constants are rejected.
 */
static int fails;
#define CHECK_ON_FAIL fails++
#include "helpers.h"

#define TICK (5 * T_MS)	/* the default sampling interval, the policy's quantum */

static uint64_t checks[4096];

/* one sampling interval: answer the checks (@hot pages accessed, or at random
 * with probability @p_other for the others), tick, and count moves */
static int step(struct colloid_ctx *c, uint64_t *now, uint64_t hot_lo, uint64_t hot_hi,
		double p_other, uint64_t *rng, size_t *up, size_t *down, int *bad)
{
	struct colloid_move m[512];
	size_t n, k;

	if (colloid_access_checks(c, checks, 4096, &n))
		return -1;
	for (k = 0; k < n; k++) {
		int acc = (checks[k] >= hot_lo && checks[k] < hot_hi) || t_unif(rng) < p_other;

		if (colloid_access_result(c, checks[k], acc))
			return -1;
	}
	*now += TICK;
	if (colloid_tick(c, *now, TICK, m, 512, &n))
		return -1;
	for (k = 0; k < n; k++) {
		if (m[k].from == m[k].to)
			(*bad)++;
		if (m[k].to == 0)
			(*up)++;
		else
			(*down)++;
	}
	return (int)n;
}

static uint64_t in_tier(struct colloid_ctx *c, uint64_t lo, uint64_t hi, int tier)
{
	uint64_t k = 0;

	for (uint64_t i = lo; i < hi; i++)
		k += colloid_page_tier(c, i) == tier;
	return k;
}

/* regions within [min, max] per node, and adapting: both tiers full, so
 * every region's sampled frame holds a page and checks = regions */
static void regions(void)
{
	struct colloid_ctx *c = NULL;
	struct colloid_params prm;
	uint64_t now = 0, rng = 7;
	size_t up = 0, down = 0, n, lo = SIZE_MAX, hi = 0;
	int bad = 0;

	colloid_params_default(&prm, "damon");
	CHECK(colloid_param_set(&prm, "damon_min_nr_regions", 10) == 0);
	CHECK(colloid_param_set(&prm, "damon_max_nr_regions", 60) == 0);
	CHECK(t_ctx(&c, "damon", 0, 2000, 1000, 1000, 1, &prm) == 0);
	for (uint64_t i = 0; i < 1000; i++)
		CHECK(colloid_page_set_tier(c, i, 0) == 0);
	CHECK(colloid_access_checks(c, checks, 4096, &n) == 0 && n == 0);	/* before the first tick */
	for (int t = 0; t < 20 * 100; t++) {	/* 100 aggregation intervals */
		/* pages 300..399 and 1500..1599 hot, the rest accessed now and then */
		CHECK(step(c, &now, 300, 400, 0.02, &rng, &up, &down, &bad) >= 0);
		CHECK(colloid_access_checks(c, checks, 4096, &n) == 0);
		if (t % 20 == 19) {
			CHECKF(n >= 2 * 10 && n <= 2 * 60, "%zu regions over both nodes", n);
			lo = n < lo ? n : lo;
			hi = n > hi ? n : hi;
		}
	}
	CHECKF(hi > lo, "the regions never adapted (%zu)", lo);
	CHECK(bad == 0);
	colloid_destroy(c);
}

/* a hot set in the alternate tier is promoted, at most a quota per reset
 * interval; cold default-tier pages are demoted, also within the quota */
static void quota(void)
{
	struct colloid_ctx *c = NULL;
	struct colloid_params prm;
	struct colloid_state st;
	uint64_t now = 0, rng = 11, prev_hot = 0, prev_cold;
	size_t up = 0, down = 0, seconds = 0;
	int bad = 0;

	colloid_params_default(&prm, "damon");
	CHECK(colloid_param_set(&prm, "damon_node_goals", 0) == 0);	/* fixed quotas */
	CHECK(colloid_param_set(&prm, "damon_quota_bytes", 40 * T_PAGE) == 0);
	/* 1000 pages: 0..399 cold in the default tier (room for 200 more),
	 * 400..999 in the alternate tier, of which 800..899 hot */
	CHECK(t_ctx(&c, "damon", 0, 1000, 600, 1000, 1, &prm) == 0);
	for (uint64_t i = 0; i < 400; i++)
		CHECK(colloid_page_set_tier(c, i, 0) == 0);
	prev_cold = in_tier(c, 0, 400, 0);
	for (int t = 1; t <= 200 * 6; t++) {
		size_t u0 = up, d0 = down;

		CHECK(step(c, &now, 800, 900, 0, &rng, &up, &down, &bad) >= 0);
		/* everything a scheme picks in one apply interval is planned
		 * within its quota: 40 pages per second each */
		if (t % 200 == 0) {
			uint64_t hot = in_tier(c, 800, 900, 0), cold = in_tier(c, 0, 400, 0);

			seconds++;
			CHECKF(hot - prev_hot <= 40, "%" PRIu64 " hot pages promoted in one second", hot - prev_hot);
			CHECKF(prev_cold - cold <= 40, "%" PRIu64 " cold pages demoted in one second", prev_cold - cold);
			prev_hot = hot;
			prev_cold = cold;
		}
		(void)u0;
		(void)d0;
	}
	CHECK(bad == 0);
	CHECKF(in_tier(c, 800, 900, 0) >= 90, "%" PRIu64 " of 100 hot pages promoted in 6 s",
	       in_tier(c, 800, 900, 0));
	CHECKF(up <= 6 * 40, "%zu promotions in 6 s", up);
	/* the cold default-tier pages leave it */
	CHECKF(in_tier(c, 0, 400, 0) <= 400 - 40, "%" PRIu64 " of 400 cold pages still in the default tier",
	       in_tier(c, 0, 400, 0));
	/* promoted pages are the hot ones (regions are ranges of frames) */
	CHECKF(in_tier(c, 400, 800, 0) + in_tier(c, 900, 1000, 0) <= 20, "%" PRIu64 " cold pages promoted",
	       in_tier(c, 400, 800, 0) + in_tier(c, 900, 1000, 0));
	/* without Colloid, the quota is the fixed size quota */
	CHECK(colloid_get_state(c, &st) == 0 && st.hot_threshold == 40.0 * T_PAGE);
	colloid_destroy(c);
	(void)seconds;
}

/* Colloid: the promotion quota follows the fed ratio L_D / L_A */
static void colloid_goal(void)
{
	struct colloid_ctx *c = NULL;
	struct colloid_params prm;
	struct colloid_state st;
	uint64_t now = 0, rng = 13;
	size_t up = 0, down = 0;
	double last = 0;
	int bad = 0, grew = 0;

	colloid_params_default(&prm, "damon");
	prm.ewma_alpha = 1;
	CHECK(colloid_param_set(&prm, "damon_quota_bytes", 1e12) == 0);	/* no cap in the way */
	/* 0..199 in the default tier, 100..199 of them hot; 200..999 alternate, 800..899 hot */
	CHECK(t_ctx(&c, "damon", 1, 1000, 600, 1000, 1, &prm) == 0);
	for (uint64_t i = 0; i < 200; i++)
		CHECK(colloid_page_set_tier(c, i, 0) == 0);

	/* L_D / L_A = 0.5: the score 5000 is below the goal, the quota grows
	 * by half each reset interval (damon_feed_loop_next_input()) */
	for (int t = 1; t <= 200 * 10; t++) {
		CHECK(t_lat(c, 80, 160, 1e9, 1e9, TICK) == 0);
		CHECK(step(c, &now, 800, 900, 0, &rng, &up, &down, &bad) >= 0);
		if (t % 200 == 10) {	/* after each second's apply */
			CHECK(colloid_get_state(c, &st) == 0);
			CHECKF(st.hot_threshold >= last, "quota %g after %g", st.hot_threshold, last);
			grew += st.hot_threshold > last;
			last = st.hot_threshold;
		}
	}
	CHECKF(grew >= 8, "the promotion quota grew in %d of 10 s", grew);
	CHECKF(last >= 1.5 * 1.5 * 1.5 * 10, "quota %g", last);
	/* L_D / L_A = 2: the score passes twice the goal, the quota falls to the minimum */
	for (int t = 1; t <= 200 * 2; t++) {
		CHECK(t_lat(c, 300, 150, 1e9, 1e9, TICK) == 0);
		CHECK(step(c, &now, 100, 200, 0, &rng, &up, &down, &bad) >= 0);
	}
	CHECK(colloid_get_state(c, &st) == 0);
	CHECKF(st.hot_threshold < last && st.hot_threshold <= 1, "quota %g after %g", st.hot_threshold, last);
	/* and the relief scheme's quota grows instead: the default tier's hot
	 * pages (100..199, accessed) leave it once it reaches a page (4 KiB from
	 * 1 byte at x1.5 per second: about 21 s) */
	up = down = 0;
	for (int t = 1; t <= 200 * 30; t++) {
		CHECK(t_lat(c, 300, 150, 1e9, 1e9, TICK) == 0);
		CHECK(step(c, &now, 100, 200, 0, &rng, &up, &down, &bad) >= 0);
	}
	CHECKF(in_tier(c, 100, 200, 0) < 100, "%" PRIu64 " hot pages still in the slower default tier",
	       in_tier(c, 100, 200, 0));
	CHECKF(up == 0, "%zu promotions while the default tier is the slower one", up);
	CHECK(bad == 0);
	colloid_destroy(c);
}

static void invalid(void)
{
	struct colloid_params prm;
	struct colloid_ctx *c = NULL;
	struct colloid_policy_info info;
	size_t n;

	colloid_params_default(&prm, "damon");
	CHECK(colloid_param_set(&prm, "damon_node_goals", 2) == -EINVAL);
	CHECK(colloid_param_set(&prm, "damon_max_nr_regions", 2) == -EINVAL);
	CHECK(colloid_param_set(&prm, "damon_sample_us", 0) == -EINVAL);
	CHECK(colloid_param_set(&prm, "damon_promote_used_bp", 10001) == -EINVAL);
	CHECK(colloid_param_set(&prm, "damon_nosuch", 1) == -ENOENT);
	/* constants that contradict each other */
	CHECK(colloid_param_set(&prm, "damon_min_nr_regions", 100) == 0);
	CHECK(colloid_param_set(&prm, "damon_max_nr_regions", 50) == 0);
	CHECK(t_ctx(&c, "damon", 0, 100, 50, 100, 1, &prm) == -EINVAL && c == NULL);
	CHECK(colloid_policy_info("damon", &prm, &info) == -EINVAL);
	colloid_params_default(&prm, "damon");
	CHECK(colloid_param_set(&prm, "damon_aggr_us", 1000) == 0);	/* below the sampling interval */
	CHECK(t_ctx(&c, "damon", 0, 100, 50, 100, 1, &prm) == -EINVAL && c == NULL);

	/* the monitor's inputs */
	CHECK(colloid_policy_info("damon", NULL, &info) == 0);
	CHECK(info.access_checks == 1 && info.access_check_bytes == 4096 && info.quantum_ns == TICK);
	CHECK(info.samples == 0 && info.hint_faults == 0);
	CHECK(colloid_policy_info("tpp", NULL, &info) == 0 && info.access_checks == 0);
	CHECK(t_ctx(&c, "damon", 0, 100, 50, 100, 1, NULL) == 0);
	CHECK(colloid_access_checks(NULL, checks, 4, &n) == -EINVAL);
	CHECK(colloid_access_checks(c, NULL, 4, &n) == -EINVAL);
	CHECK(colloid_access_checks(c, checks, 4, NULL) == -EINVAL);
	CHECK(colloid_access_result(c, 100, 1) == -EINVAL);
	CHECK(colloid_access_result(c, 0, 2) == -EINVAL);
	CHECK(colloid_access_result(NULL, 0, 1) == -EINVAL);
	colloid_destroy(c);
	/* a policy without the monitor names no page */
	CHECK(t_ctx(&c, "hemem", 0, 100, 50, 100, 1, NULL) == 0);
	CHECK(colloid_access_checks(c, checks, 4, &n) == 0 && n == 0);
	CHECK(colloid_access_result(c, 0, 1) == 0);
	colloid_destroy(c);
}

int main(void)
{
	regions();
	quota();
	colloid_goal();
	invalid();
	return fails ? T_FAIL : T_PASS;
}
