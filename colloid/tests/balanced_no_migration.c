// SPDX-License-Identifier: MIT
/*
 * Balanced latencies (|L_D - L_A| <= delta*L_D) -> Colloid plans no
 * migration, for every policy, although the baseline alone would promote.
 */
#include "helpers.h"

#define NP 200
#define NHOT 40

static void feed(struct colloid_ctx *c, uint64_t now)
{
	for (int r = 0; r < 4; r++)
		for (uint64_t i = 0; i < NHOT; i++) {
			colloid_sample(c, i, r & 1, 1);
			colloid_hint_fault(c, i, 10 * T_MS, now);
		}
}

static int run(const char *pol, int colloid, double la, size_t *moves)
{
	struct colloid_ctx *c = NULL;
	struct colloid_move m[64];
	size_t n;
	uint64_t now = 0;

	*moves = 0;
	if (t_ctx(&c, pol, colloid, NP, NP, NP, 1, NULL))
		return -1;
	for (int q = 0; q < 50; q++) {
		now += 10 * T_MS;
		feed(c, now);
		if (t_lat(c, 100.0, la, 5e8, 5e8, 10 * T_MS))
			goto err;
		if (colloid_tick(c, now, 10 * T_MS, m, 64, &n))
			goto err;
		*moves += n;
	}
	colloid_destroy(c);
	return 0;
err:
	colloid_destroy(c);
	return -1;
}

int main(void)
{
	size_t moves;

	for (int k = 0; k < T_NPOLICIES; k++) {
		const char *pol = t_policies[k];

		CHECK(run(pol, 1, 100.0, &moves) == 0);
		CHECKF(moves == 0, "%s+colloid moved %zu pages at equal latency", pol, moves);
		CHECK(run(pol, 1, 104.9, &moves) == 0);	/* within delta = 5 % */
		CHECKF(moves == 0, "%s+colloid moved %zu pages within delta", pol, moves);
		CHECK(run(pol, 0, 100.0, &moves) == 0);
		CHECKF(moves > 0, "%s alone should promote hot pages", pol);
		CHECK(run(pol, 1, 200.0, &moves) == 0);	/* unbalanced: moves */
		CHECKF(moves > 0, "%s+colloid should promote when L_D < L_A", pol);
	}
	return T_PASS;
err:
	return T_FAIL;
}
