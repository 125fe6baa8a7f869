// SPDX-License-Identifier: MIT
/*
 * L_D > L_A -> hot pages leave the default tier and their summed access
 * probability matches delta-p within one page (both delta-p forms; HeMem
 * and MEMTIS).  Also checks delta-p itself against the published formulas.
 */
#include "helpers.h"

#define NP 500

static int run(const char *pol, int mode)
{
	struct colloid_ctx *c = NULL;
	struct colloid_params prm;
	struct colloid_state st;
	static struct colloid_move m[NP];
	static double prob[NP];
	static unsigned char moved[NP];
	double sum = 0, maxrem = 0, minrem = 1, expect, p;
	double ld = 200, la = 100, rd = 8e8, ra = 2e8;
	uint64_t seed = 42;
	size_t n;

	colloid_params_default(&prm, pol);
	prm.dp_mode = mode;
	CHECK(t_ctx(&c, pol, 1, NP, NP, NP, 0, &prm) == 0);
	if (!strcmp(pol, "hemem")) {
		/* HeMem cools at 18 samples: feed single samples in random order */
		for (int k = 0; k < 20000; k++) {
			uint64_t i = t_rand(&seed) % NP;

			if (t_unif(&seed) < (double)(i % 50) / 50.0)
				colloid_sample(c, i, 0, 1);
		}
	} else {
		for (uint64_t i = 0; i < NP; i++)
			colloid_sample(c, i, (int)(i & 1), 1 + (uint32_t)((i * 7919) % 997));
	}
	for (uint64_t i = 0; i < NP; i++)
		prob[i] = colloid_page_prob(c, i);

	CHECK(t_lat(c, ld, la, rd, ra, 10 * T_MS) == 0);
	CHECK(colloid_tick(c, 10 * T_MS, 10 * T_MS, m, NP, &n) == 0);
	CHECK(colloid_get_state(c, &st) == 0);
	CHECK(st.direction == -1);
	p = rd / (rd + ra);
	CHECK(fabs(st.p - p) < 1e-12);
	if (mode == COLLOID_DP_BINARY)
		expect = fabs((0 + p) / 2 - p);	/* p_lo = 0, p_hi = p */
	else
		expect = p * (1 - p) * fabs(ld - la) / (p * la + (1 - p) * ld);
	CHECKF(fabs(st.delta_p - expect) < 1e-12, "dp %g expected %g", st.delta_p, expect);
	CHECK(n > 0);
	CHECK(st.last_plan_bytes <= st.last_budget_bytes);

	for (size_t k = 0; k < n; k++) {
		CHECK(m[k].from == 0 && m[k].to == 1);
		CHECK(!moved[m[k].page]);
		moved[m[k].page] = 1;
		sum += prob[m[k].page];
	}
	for (uint64_t i = 0; i < NP; i++) {
		if (moved[i] || prob[i] <= 0)
			continue;
		if (prob[i] > maxrem)
			maxrem = prob[i];
		if (prob[i] < minrem)
			minrem = prob[i];
	}
	CHECKF(sum <= st.delta_p + 1e-9, "%s: moved %g > dp %g", pol, sum, st.delta_p);
	CHECKF(st.delta_p - sum <= maxrem + 1e-9, "%s: moved %g, dp %g, page max %g", pol, sum,
	       st.delta_p, maxrem);
	if (!strcmp(pol, "memtis"))	/* exact greedy: nothing left would still fit */
		CHECKF(st.delta_p - sum < minrem + 1e-12, "%s: moved %g, dp %g, min left %g",
		       pol, sum, st.delta_p, minrem);
	/* the pages that left are the hot ones: hotter on average than those kept */
	{
		double sm = 0, sk = 0;
		size_t nk = 0;

		for (uint64_t i = 0; i < NP; i++)
			if (moved[i])
				sm += prob[i];
			else
				sk += prob[i], nk++;
		CHECKF(sm / (double)n > 1.5 * sk / (double)nk, "moved mean %g kept mean %g",
		       sm / (double)n, sk / (double)nk);
	}
	printf("%s mode %d: dp %.4f moved %.4f in %zu pages\n", pol, mode, st.delta_p, sum, n);
	memset(moved, 0, sizeof(moved));
	colloid_destroy(c);
	return 0;
err:
	memset(moved, 0, sizeof(moved));
	colloid_destroy(c);
	return -1;
}

int main(void)
{
	CHECK(run("memtis", COLLOID_DP_BINARY) == 0);
	CHECK(run("memtis", COLLOID_DP_CLOSED) == 0);
	CHECK(run("hemem", COLLOID_DP_BINARY) == 0);
	CHECK(run("hemem", COLLOID_DP_CLOSED) == 0);
	return T_PASS;
err:
	return T_FAIL;
}
