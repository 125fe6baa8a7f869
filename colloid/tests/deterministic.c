// SPDX-License-Identifier: MIT
/* Identical inputs give identical plans and state (every policy, Colloid on/off). */
#include "helpers.h"

#define NP 3000
#define CAP 128

/* Feed one quantum of pseudo-random inputs derived from @seed into @c. */
static int quantum(struct colloid_ctx *c, uint64_t seed, uint64_t now, struct colloid_move *m,
		   size_t *n, int phase)
{
	for (int s = 0; s < 2000; s++) {
		uint64_t i = t_rand(&seed) % (NP / 3);

		colloid_sample(c, i, (int)(t_rand(&seed) & 1), 1 + (uint32_t)(t_rand(&seed) & 3));
		colloid_hint_fault(c, i, t_rand(&seed) % (2000 * T_MS), now);
	}
	/* the default tier alternates between unloaded and overloaded */
	if (t_lat(c, (phase ? 300 : 80) + 40 * t_unif(&seed), 130 + 60 * t_unif(&seed),
		  1e9 * t_unif(&seed),
		  5e8 * t_unif(&seed), 10 * T_MS))
		return -1;
	return colloid_tick(c, now, 10 * T_MS, m, CAP, n);
}

int main(void)
{
	static struct colloid_move m1[CAP], m2[CAP];
	struct colloid_ctx *a = NULL, *b = NULL;
	struct colloid_state sa;

	for (int k = 0; k < T_NPOLICIES; k++) {
		for (int col = 0; col <= 1; col++) {
			uint64_t seed = 2024, total = 0;

			CHECK(t_ctx(&a, t_policies[k], col, NP, NP / 4, NP, 1, NULL) == 0);
			CHECK(t_ctx(&b, t_policies[k], col, NP, NP / 4, NP, 1, NULL) == 0);
			for (int q = 0; q < 100; q++) {
				uint64_t s = t_rand(&seed), now = (uint64_t)(q + 1) * 10 * T_MS;
				size_t n1, n2;

				CHECK(quantum(a, s, now, m1, &n1, (q / 10) & 1) == 0);
				CHECK(quantum(b, s, now, m2, &n2, (q / 10) & 1) == 0);
				CHECKF(t_same_plan(m1, n1, m2, n2), "%s colloid=%d q %d: plans differ (%zu, %zu moves)",
				       t_policies[k], col, q, n1, n2);
				total += n1;
			}
			CHECKF(t_same_state(a, b, &sa), "%s colloid=%d: state differs", t_policies[k], col);
			CHECKF(total > 0, "%s colloid=%d: no moves at all", t_policies[k], col);
			colloid_destroy(a);
			colloid_destroy(b);
			a = b = NULL;
		}
	}
	return T_PASS;
err:
	colloid_destroy(a);
	colloid_destroy(b);
	return T_FAIL;
}
