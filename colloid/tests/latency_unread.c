// SPDX-License-Identifier: MIT
/*
 * colloid_uses_latency(): without Colloid no policy's decisions read the
 * latency observations, so a context fed them and one fed none plan the
 * same moves, quantum by quantum (every policy); with Colloid they do read
 * them (the same contexts, one fed, one not, plan differently for some
 * policy: the feeding here is not a no-op), and the call says so.
 */
#include "helpers.h"

#define NP 3000
#define CAP 128

static const char *const policies[] = { "hemem", "tpp", "memtis", "damon" };

/* one quantum of pseudo-random inputs from @seed (@ns samples and hint faults, DAMON's access
 * checks), latency observations only where @feed, then the tick */
static int quantum(struct colloid_ctx *c, uint64_t seed, uint64_t now, uint64_t q_ns, int ns, int feed,
		   struct colloid_move *m, size_t *n)
{
	static uint64_t checks[4096];
	size_t nc;

	for (int s = 0; s < ns; s++) {
		uint64_t i = t_rand(&seed) % (NP / 3);

		colloid_sample(c, i, (int)(t_rand(&seed) & 1), 1 + (uint32_t)(t_rand(&seed) & 3));
		colloid_hint_fault(c, i, t_rand(&seed) % (2000 * T_MS), now);
	}
	if (colloid_access_checks(c, checks, 4096, &nc))
		return -1;
	for (size_t k = 0; k < nc; k++)
		if (colloid_access_result(c, checks[k], checks[k] < NP / 3 || (t_rand(&seed) & 7) == 0))
			return -1;
	/* the default tier alternates between unloaded and overloaded */
	if (feed && t_lat(c, ((now / (100 * T_MS)) & 1 ? 300 : 80) + 40 * t_unif(&seed),
			  130 + 60 * t_unif(&seed), 1e9 * t_unif(&seed), 5e8 * t_unif(&seed), q_ns))
		return -1;
	return colloid_tick(c, now, q_ns, m, CAP, n);
}

int main(void)
{
	static struct colloid_move m1[CAP], m2[CAP];
	struct colloid_ctx *a = NULL, *b = NULL;
	int differ_on = 0;

	CHECK(colloid_uses_latency(NULL) == 0);
	for (size_t k = 0; k < sizeof(policies) / sizeof(policies[0]); k++) {
		for (int col = 0; col <= 1; col++) {
			/* DAMON decides on access checks alone, per sampling interval (its quantum, 5 ms),
			 * here with fixed quotas (damon.c's quota test): 5 s of them */
			int damon = !strcmp(policies[k], "damon"), quanta = damon ? 1000 : 100, ns = damon ? 0 : 2000;
			uint64_t seed = 77, total = 0, q_ns = damon ? 5 * T_MS : 10 * T_MS;
			struct colloid_params prm;
			int same = 1;

			CHECK(colloid_params_default(&prm, policies[k]) == 0);
			if (damon) {
				CHECK(colloid_param_set(&prm, "damon_node_goals", 0) == 0);
				CHECK(colloid_param_set(&prm, "damon_quota_bytes", 40 * T_PAGE) == 0);
			}
			CHECK(t_ctx(&a, policies[k], col, NP, NP / 4, NP, 1, &prm) == 0);
			CHECK(t_ctx(&b, policies[k], col, NP, NP / 4, NP, 1, &prm) == 0);
			CHECKF(colloid_uses_latency(a) == col, "%s colloid=%d: uses_latency %d", policies[k], col,
			       colloid_uses_latency(a));
			for (int q = 0; q < quanta; q++) {
				uint64_t s = t_rand(&seed), now = (uint64_t)(q + 1) * q_ns;
				size_t n1, n2;

				CHECK(quantum(a, s, now, q_ns, ns, 1, m1, &n1) == 0);
				CHECK(quantum(b, s, now, q_ns, ns, 0, m2, &n2) == 0);
				same &= t_same_plan(m1, n1, m2, n2);
				CHECKF(col || same, "%s without Colloid: quantum %d plans differ (%zu, %zu moves) with "
				       "latency fed and not", policies[k], q, n1, n2);
				total += n1;
			}
			/* the equality without Colloid is about real plans, not empty ones */
			CHECKF(col || total > 0, "%s without Colloid: no moves at all", policies[k]);
			differ_on |= col && !same;
			colloid_destroy(a);
			colloid_destroy(b);
			a = b = NULL;
		}
	}
	CHECKF(differ_on, "%s", "with Colloid, feeding the latency changed no policy's plans");
	return T_PASS;
err:
	colloid_destroy(a);
	colloid_destroy(b);
	return T_FAIL;
}
