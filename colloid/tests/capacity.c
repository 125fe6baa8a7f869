// SPDX-License-Identifier: MIT
/*
 * Applying any plan move by move never exceeds a tier's capacity (nor the
 * free space the mechanism reported), every move starts from the tier the
 * page is in, and the library's page map matches the applied plans; for
 * every policy, Colloid on and off, two and three tiers, random inputs.
 */
#include "helpers.h"

#define NP 1500
#define CAP 256

static int run(const char *pol, int col, unsigned int ntiers, uint64_t *seed)
{
	static struct colloid_move m[CAP];
	static unsigned char where[NP];
	struct colloid_ctx *c = NULL;
	struct colloid_config cfg;
	struct colloid_params prm;
	struct colloid_state st;
	uint64_t cap[COLLOID_MAX_TIERS] = { 0 }, used[COLLOID_MAX_TIERS] = { 0 }, now = 0;

	colloid_params_default(&prm, pol);
	prm.ewma_alpha = 0.5;
	memset(&cfg, 0, sizeof(cfg));
	cfg.policy = pol;
	cfg.colloid = col;
	cfg.ntiers = ntiers;
	cap[0] = 400;
	cap[1] = ntiers == 2 ? NP : 500;
	cap[2] = NP;
	for (unsigned int t = 0; t < ntiers; t++) {
		cfg.tiers[t].capacity_bytes = cap[t] * T_PAGE;
		cfg.tiers[t].unloaded_latency_ns = 80.0 + 60.0 * t;
	}
	cfg.npages = NP;
	cfg.page_size = T_PAGE;
	cfg.init_tier = ntiers - 1;
	cfg.params = &prm;
	CHECK(colloid_new(&cfg, &c) == 0);
	memset(where, (int)(ntiers - 1), sizeof(where));
	used[ntiers - 1] = NP;

	for (int q = 0; q < 150; q++) {
		size_t n;
		unsigned int hot0 = (unsigned int)(q / 50) * 300;	/* hot set moves */

		now += 10 * T_MS;
		for (int s = 0; s < 4000; s++) {
			uint64_t i = (hot0 + t_rand(seed) % 600) % NP;

			colloid_sample(c, i, (int)(t_rand(seed) & 1), 1 + (uint32_t)(t_rand(seed) % 3));
			colloid_hint_fault(c, i, t_rand(seed) % (1500 * T_MS), now);
		}
		for (unsigned int t = 0; t < ntiers; t++)
			CHECK(colloid_observe_ns(c, t, 80 + 400 * t_unif(seed), 1e6 * t_unif(seed),
						 10 * T_MS) == 0);
		/* sometimes the node has less free than our share (other users) */
		if (q % 7 == 3) {
			uint64_t fr = used[0] < cap[0] ? (cap[0] - used[0]) / 2 : 0;

			CHECK(colloid_tier_set_free(c, 0, fr * T_PAGE) == 0);
			CHECK(colloid_tick(c, now, 10 * T_MS, m, CAP, &n) == 0);
			for (size_t k = 0; k < n; k++) {
				if (m[k].from == 0)
					fr++;
				if (m[k].to == 0)
					CHECKF(fr-- > 0, "%s: move into tier 0 beyond reported free", pol);
			}
		} else {
			CHECK(colloid_tick(c, now, 10 * T_MS, m, CAP, &n) == 0);
		}
		CHECKF(t_apply(m, n, where, used, cap, ntiers) == 0,
		       "%s colloid=%d ntiers=%u: bad move or capacity exceeded at quantum %d",
		       pol, col, ntiers, q);
		CHECK(colloid_get_state(c, &st) == 0);
		for (unsigned int t = 0; t < ntiers; t++) {
			CHECK(st.pages[t] == used[t]);
			CHECK(st.pages[t] <= cap[t]);
		}
	}
	for (uint64_t i = 0; i < NP; i++)
		CHECK(colloid_page_tier(c, i) == where[i]);
	CHECKF(st.moves_total > 0, "%s colloid=%d: nothing moved", pol, col);
	colloid_destroy(c);
	return 0;
err:
	colloid_destroy(c);
	return -1;
}

int main(void)
{
	uint64_t seed = 99;

	for (int k = 0; k < T_NPOLICIES; k++)
		for (int col = 0; col <= 1; col++)
			for (unsigned int nt = 2; nt <= 3; nt++)
				CHECK(run(t_policies[k], col, nt, &seed) == 0);
	return T_PASS;
err:
	return T_FAIL;
}
