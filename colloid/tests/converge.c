// SPDX-License-Identifier: MIT
/*
 * Closed loop on a synthetic two-tier latency model: Colloid's p_lo/p_hi
 * search converges to the balance point p* (L_D(p*) = L_A(p*)), and after a
 * workload change (the default tier's load drops) the bound on the side
 * being moved toward re-opens and p converges to the new p*.  Once balanced
 * within delta the search stops, so the bounds bracket p* but need not be
 * narrow.
 *
 * Model: L_D = 70 + K*p, L_A = 140 + 30*(1-p) (ns), p = true access share of
 * the pages in the default tier; K = 200 (p* = 0.435), then K = 100 (p* = 0.769).
 */
#include "helpers.h"

#define NP 1000
#define DRAWS 20000

static double prob[NP], cdf[NP];
static unsigned char where[NP];

static uint64_t draw(uint64_t *seed)
{
	double u = t_unif(seed);
	uint64_t lo = 0, hi = NP - 1;

	while (lo < hi) {
		uint64_t mid = (lo + hi) / 2;

		if (cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static double true_p(void)
{
	double p = 0;

	for (int i = 0; i < NP; i++)
		if (where[i] == 0)
			p += prob[i];
	return p;
}

static int run(const char *pol, int mode)
{
	static struct colloid_move m[NP];
	struct colloid_ctx *c = NULL;
	struct colloid_params prm;
	struct colloid_state st;
	uint64_t seed = 1234, now = 0;
	double K = 200, pstar = 100.0 / 230.0, p = 1, ld = 0, la = 0;
	int reopened = 0;

	colloid_params_default(&prm, pol);
	prm.ewma_alpha = 1;	/* the model is noise-free: no smoothing needed */
	prm.dp_mode = mode;
	CHECK(t_ctx(&c, pol, 1, NP, NP, NP, 0, &prm) == 0);
	memset(where, 0, sizeof(where));
	/* start with the coldest pages in the alternate tier: p < 1 (the closed
	 * form gives dp = 0 at p = 1 exactly) */
	for (int i = 600; i < NP; i++) {
		CHECK(colloid_page_set_tier(c, (uint64_t)i, 1) == 0);
		where[i] = 1;
	}

	for (int q = 0; q < 160; q++) {
		size_t n;

		if (q == 80) {
			K = 100;
			pstar = 100.0 / 130.0;
		}
		now += 10 * T_MS;
		for (int s = 0; s < DRAWS; s++)
			colloid_sample(c, draw(&seed), 0, 1);
		p = true_p();
		ld = 70 + K * p;
		la = 140 + 30 * (1 - p);
		CHECK(t_lat(c, ld, la, p * 1e9, (1 - p) * 1e9, 10 * T_MS) == 0);
		CHECK(colloid_tick(c, now, 10 * T_MS, m, NP, &n) == 0);
		for (size_t k = 0; k < n; k++)
			where[m[k].page] = m[k].to;
		CHECK(colloid_get_state(c, &st) == 0);
		CHECK(st.p_lo >= 0 && st.p_hi <= 1 && st.p_lo <= st.p_hi);
		if (q > 80 && st.p_hi == 1.0)
			reopened = 1;
		if (q == 79 || q == 159) {
			printf("%s mode %d q %d: p %.3f p* %.3f L_D %.1f L_A %.1f [%.3f, %.3f]\n",
			       pol, mode, q, p, pstar, ld, la, st.p_lo, st.p_hi);
			CHECKF(fabs(ld - la) <= 2 * prm.delta * ld, "%s: not balanced at q %d", pol, q);
			CHECKF(fabs(p - pstar) < 0.06, "%s: p %.3f far from p* %.3f", pol, p, pstar);
			if (mode == COLLOID_DP_BINARY)
				CHECKF(st.p_lo - 0.03 <= pstar && pstar <= st.p_hi + 0.03,
				       "%s: [p_lo, p_hi] does not bracket p*", pol);
		}
	}
	printf("%s mode %d: bound re-opened after the change: %s\n", pol, mode,
	       reopened ? "yes" : "no (new p* was inside the old bounds)");
	colloid_destroy(c);
	return 0;
err:
	colloid_destroy(c);
	return -1;
}

/*
 * Open loop: p given by the observed rates.  Alternating sides narrow
 * [p_lo, p_hi] around 0.5 until it is narrower than epsilon; the next
 * decision re-opens the bound on the side being moved toward.
 */
static int reopen(void)
{
	static const struct {
		double p;
		int up;		/* L_D < L_A */
		double lo, hi;	/* expected bounds after the tick */
	} seq[] = {
		{ 0.30, 1, 0.30, 1.00 }, { 0.70, 0, 0.30, 0.70 }, { 0.45, 1, 0.45, 0.70 },
		{ 0.55, 0, 0.45, 0.55 }, { 0.49, 1, 0.49, 0.55 }, { 0.505, 0, 0.49, 0.505 },
		/* 0.505 - 0.5 < epsilon: moving up re-opens p_hi */
		{ 0.50, 1, 0.50, 1.00 },
		/* p above p_hi: p_hi = p, p_lo unchanged; then collapse downward */
		{ 0.52, 0, 0.50, 0.52 }, { 0.505, 0, 0.00, 0.505 },
		/* p_lo >= p_hi rule: moving down below p_lo resets p_lo = 0 */
		{ 0.20, 1, 0.20, 0.505 }, { 0.10, 0, 0.00, 0.10 },
		/* p_hi <= p_lo rule */
		{ 0.30, 1, 0.30, 1.00 },
	};
	struct colloid_ctx *c = NULL;
	struct colloid_params prm;
	struct colloid_state st;
	struct colloid_move m[8];
	size_t n;

	colloid_params_default(&prm, "memtis");
	prm.ewma_alpha = 1;
	CHECK(t_ctx(&c, "memtis", 1, 100, 100, 100, 0, &prm) == 0);
	for (size_t k = 0; k < sizeof(seq) / sizeof(seq[0]); k++) {
		double ld = seq[k].up ? 100 : 200, la = seq[k].up ? 200 : 100;

		CHECK(t_lat(c, ld, la, seq[k].p * 1e9, (1 - seq[k].p) * 1e9, 10 * T_MS) == 0);
		CHECK(colloid_tick(c, (k + 1) * 10 * T_MS, 10 * T_MS, m, 8, &n) == 0);
		CHECK(colloid_get_state(c, &st) == 0);
		CHECKF(fabs(st.p_lo - seq[k].lo) < 1e-9 && fabs(st.p_hi - seq[k].hi) < 1e-9,
		       "step %zu: [%g, %g] expected [%g, %g]", k, st.p_lo, st.p_hi, seq[k].lo,
		       seq[k].hi);
		CHECK(fabs(st.delta_p - fabs((st.p_lo + st.p_hi) / 2 - seq[k].p)) < 1e-9);
		CHECK(st.direction == (seq[k].up ? 1 : -1));
	}
	colloid_destroy(c);
	return 0;
err:
	colloid_destroy(c);
	return -1;
}

int main(void)
{
	double z = 0, acc = 0;

	for (int i = 0; i < NP; i++)
		z += prob[i] = 1.0 / pow(i + 1, 0.9);
	for (int i = 0; i < NP; i++) {
		prob[i] /= z;
		acc += prob[i];
		cdf[i] = acc;
	}
	cdf[NP - 1] = 1;
	CHECK(reopen() == 0);
	CHECK(run("memtis", COLLOID_DP_BINARY) == 0);
	CHECK(run("hemem", COLLOID_DP_BINARY) == 0);
	CHECK(run("memtis", COLLOID_DP_CLOSED) == 0);
	return T_PASS;
err:
	return T_FAIL;
}
