// SPDX-License-Identifier: MIT
/*
 * The migration budget min(dp*(R_D+R_A)*bytes_per_access, M)*quantum, the
 * static limit M*quantum and the plan array size are never exceeded, for
 * every policy with Colloid on and off, under random inputs.
 */
#include "helpers.h"

#define NP 2000
#define CAP 300

int main(void)
{
	static struct colloid_move m[CAP];
	struct colloid_ctx *c = NULL;
	struct colloid_params prm;
	struct colloid_state st;
	uint64_t seed = 7;

	for (int k = 0; k < T_NPOLICIES; k++) {
		for (int col = 0; col <= 1; col++) {
			uint64_t now = 0;

			colloid_params_default(&prm, t_policies[k]);
			prm.migrate_limit_Bps = 200e6;	/* 2 MB / 10 ms = 488 pages */
			prm.ewma_alpha = 1;
			CHECK(t_ctx(&c, t_policies[k], col, NP, NP / 3, NP, 1, &prm) == 0);
			for (int q = 0; q < 200; q++) {
				uint64_t qns = (1 + t_rand(&seed) % 20) * T_MS;
				double ld = 80 + 300 * t_unif(&seed), la = 120 + 100 * t_unif(&seed);
				double rd = 1e9 * t_unif(&seed), ra = 1e9 * t_unif(&seed);
				size_t cap = t_rand(&seed) % CAP, n;
				double limit, budget;

				now += qns;
				for (int s = 0; s < 3000; s++) {
					uint64_t i = t_rand(&seed) % (NP / 4);

					colloid_sample(c, i, (int)(t_rand(&seed) & 1), 1);
					colloid_hint_fault(c, i, t_rand(&seed) % (2000 * T_MS), now);
				}
				CHECK(t_lat(c, ld, la, rd, ra, qns) == 0);
				CHECK(colloid_tick(c, now, qns, m, cap, &n) == 0);
				CHECK(colloid_get_state(c, &st) == 0);
				limit = prm.migrate_limit_Bps * (double)qns * 1e-9;
				CHECKF(n <= cap, "n %zu cap %zu", n, cap);
				CHECK(st.last_plan_moves == n);
				CHECK(st.last_plan_bytes == n * T_PAGE);
				CHECKF((double)st.last_plan_bytes <= limit + 1e-6,
				       "%s colloid=%d: %" PRIu64 " bytes > static limit %g",
				       t_policies[k], col, st.last_plan_bytes, limit);
				if (col && strcmp(t_policies[k], "tpp")) {
					budget = st.delta_p * (rd + ra) * prm.bytes_per_access *
						 (double)qns * 1e-9;
					if (budget > limit)
						budget = limit;
					CHECKF(fabs(st.last_budget_bytes - budget) <= 1e-6 * budget + 1e-6,
					       "budget %g expected %g", st.last_budget_bytes, budget);
					CHECKF((double)st.last_plan_bytes <= budget + 1e-6,
					       "%s: %" PRIu64 " bytes > budget %g", t_policies[k],
					       st.last_plan_bytes, budget);
				}
			}
			colloid_destroy(c);
			c = NULL;
		}
	}
	return T_PASS;
err:
	colloid_destroy(c);
	return T_FAIL;
}
