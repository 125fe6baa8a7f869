// SPDX-License-Identifier: MIT
/*
 * colloid_sample_many() leaves the same state and gives the same plans as
 * colloid_sample() called for each of its samples (every policy, Colloid
 * on/off, loads and stores, weights 1 and above, with hint faults and
 * single samples logged in between, cooling and MEMTIS's adaptation
 * inside the batches); bad arguments apply nothing.
 */
#include "helpers.h"

#define NP 3000
#define CAP 128
#define BATCH 700

/* skewed: a tenth of the pages take most samples, so counts reach the cooling threshold */
static uint32_t pick(uint64_t *seed)
{
	uint64_t x = t_rand(seed);

	return (uint32_t)((x & 7) ? (x >> 8) % (NP / 10) : (x >> 8) % NP);
}

/* One quantum into @a sample by sample and into @b by batches of one kind. */
static int quantum(struct colloid_ctx *a, struct colloid_ctx *b, uint64_t seed, uint64_t now,
		   struct colloid_move *ma, struct colloid_move *mb, size_t *na, size_t *nb, int phase)
{
	static uint32_t pages[BATCH];

	for (int run = 0; run < 6; run++) {
		size_t n = t_rand(&seed) % BATCH;
		int w = (int)(t_rand(&seed) & 1);
		uint32_t wt = (t_rand(&seed) & 3) ? 1 : 1 + (uint32_t)(t_rand(&seed) % 5);
		uint64_t f = pick(&seed), since = t_rand(&seed) % (2000 * T_MS);

		for (size_t k = 0; k < n; k++) {
			pages[k] = pick(&seed);
			if (colloid_sample(a, pages[k], w, wt))
				return -1;
		}
		if (colloid_sample_many(b, pages, n, w, wt))
			return -1;
		/* logged inputs between the batches */
		if (colloid_hint_fault(a, f, since, now) || colloid_hint_fault(b, f, since, now) ||
		    colloid_sample(a, f, 1, 1) || colloid_sample(b, f, 1, 1))
			return -1;
	}
	if (t_lat(a, phase ? 300 : 80, 150, 1e9, 4e8, 10 * T_MS) ||
	    t_lat(b, phase ? 300 : 80, 150, 1e9, 4e8, 10 * T_MS))
		return -1;
	if (colloid_tick(a, now, 10 * T_MS, ma, CAP, na))
		return -1;
	return colloid_tick(b, now, 10 * T_MS, mb, CAP, nb);
}

static int same_pages(struct colloid_ctx *a, struct colloid_ctx *b)
{
	for (uint64_t i = 0; i < NP; i++) {
		double pa = colloid_page_prob(a, i), pb = colloid_page_prob(b, i);

		if (memcmp(&pa, &pb, sizeof(pa)) || colloid_page_tier(a, i) != colloid_page_tier(b, i))
			return 0;
	}
	return 1;
}

int main(void)
{
	static struct colloid_move m1[CAP], m2[CAP];
	struct colloid_ctx *a = NULL, *b = NULL;
	struct colloid_state sa, sb;
	uint32_t bad[3] = { 1, NP, 2 };

	for (int k = 0; k < T_NPOLICIES; k++) {
		for (int col = 0; col <= 1; col++) {
			uint64_t seed = 77, total = 0;

			CHECK(t_ctx(&a, t_policies[k], col, NP, NP / 4, NP, 1, NULL) == 0);
			CHECK(t_ctx(&b, t_policies[k], col, NP, NP / 4, NP, 1, NULL) == 0);
			if (!strcmp(t_policies[k], "memtis")) {
				/* cooling and adaptation inside the batches */
				CHECK(colloid_ctx_param_set(a, "memtis_cooling_samples", 3000) == 0);
				CHECK(colloid_ctx_param_set(b, "memtis_cooling_samples", 3000) == 0);
				CHECK(colloid_ctx_param_set(a, "memtis_adapt_samples", 400) == 0);
				CHECK(colloid_ctx_param_set(b, "memtis_adapt_samples", 400) == 0);
			}
			for (int q = 0; q < 60; q++) {
				uint64_t s = t_rand(&seed), now = (uint64_t)(q + 1) * 10 * T_MS;
				size_t n1, n2;

				CHECK(quantum(a, b, s, now, m1, m2, &n1, &n2, (q / 10) & 1) == 0);
				CHECKF(t_same_plan(m1, n1, m2, n2), "%s colloid=%d q %d: plans differ (%zu, %zu moves)",
				       t_policies[k], col, q, n1, n2);
				total += n1;
				if (q % 20 == 19)
					CHECKF(same_pages(a, b), "%s colloid=%d q %d: page state differs",
					       t_policies[k], col, q);
			}
			CHECKF(t_same_state(a, b, &sa), "%s colloid=%d: state differs", t_policies[k], col);
			CHECKF(sa.quanta == 60 && sa.samples_total > 0, "%s: no samples", t_policies[k]);
			CHECKF(total > 0, "%s colloid=%d: no moves at all", t_policies[k], col);

			/* bad arguments: -EINVAL and nothing applied */
			CHECK(colloid_sample_many(b, bad, 3, 0, 1) == -EINVAL);
			CHECK(colloid_sample_many(b, bad, 1, 2, 1) == -EINVAL);
			CHECK(colloid_sample_many(b, bad, 1, 0, 0) == -EINVAL);
			CHECK(colloid_sample_many(b, NULL, 1, 0, 1) == -EINVAL);
			CHECK(colloid_sample_many(NULL, bad, 1, 0, 1) == -EINVAL);
			CHECK(colloid_sample_many(b, NULL, 0, 0, 1) == 0);
			CHECK(colloid_get_state(b, &sb) == 0);
			CHECK(memcmp(&sa, &sb, sizeof(sa)) == 0);
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
