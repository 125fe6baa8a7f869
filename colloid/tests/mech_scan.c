// SPDX-License-Identifier: MIT
/*
 * The shared TPP scanner (colloid/mech): Linux's window period, the
 * unmap ("pages") and address-space ("virtpages") budgets, the carry of at
 * most one window, which tiers it unmaps, and the plan buffer size.
 */
#include "helpers.h"
#include "mech.h"

#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * MIB)

struct walk {
	unsigned char tier[1024];
	uint64_t visited, last_n, stop_after;
	uint64_t order[1024];
};

static int tier_of(void *priv, uint64_t page)
{
	return ((struct walk *)priv)->tier[page];
}

static int visit(void *priv, uint64_t page, uint64_t i, uint64_t n)
{
	struct walk *w = priv;

	if (w->stop_after && w->visited == w->stop_after)
		return -ECANCELED;
	if (i >= n)
		return -EINVAL;
	w->order[w->visited % 1024] = page;
	w->visited++;
	w->last_n = n;
	return 0;
}

int main(void)
{
	static struct walk w;
	struct colloid_params p;
	struct colloid_policy_info in;
	struct mech_scan sc;
	uint64_t i;

	/* task_scan_min(): 256 MB windows, floor 100 ms, 1 s over all windows */
	CHECK(fabs(mech_scan_window_ms(72 * GIB, 256 * MIB, 1000) - 100) < 1e-9);
	CHECK(fabs(mech_scan_window_ms(128 * MIB, 256 * MIB, 1000) - 1000) < 1e-9);
	CHECK(fabs(mech_scan_window_ms(1 * GIB, 256 * MIB, 1000) - 250) < 1e-9);
	CHECK(fabs(mech_scan_window_ms(0, 256 * MIB, 1000) - 1000) < 1e-9);
	/* 1 GB windows: floor 1000/2 = 500 ms */
	CHECK(fabs(mech_scan_window_ms(72 * GIB, 1024 * MIB, 1000) - 500) < 1e-9);

	/* 1024 pages of 1 MiB (1 GiB task): 256 pages per 250-ms window */
	CHECK(colloid_params_default(&p, "tpp") == 0);
	CHECK(colloid_policy_info("tpp", &p, &in) == 0);
	CHECK(mech_scan_init(&sc, &in, 1024, 1 << 20, 1 * GIB, 0) == 0);
	CHECK(fabs(sc.window_ms - 250) < 1e-9);
	memset(w.tier, 1, sizeof(w.tier));		/* all in the alternate tier */
	for (i = 0; i < 25; i++)			/* 25 quanta of 10 ms = one window */
		CHECK(mech_scan_quantum(&sc, 10 * 1e6, tier_of, visit, &w) == 0);
	CHECKF(w.visited == 256, "unmapped %" PRIu64 " pages in one window", w.visited);
	for (i = 0; i < 256; i++)
		CHECK(w.order[i] == i);			/* address order */
	CHECK(sc.cursor == 256);

	/* baseline TPP leaves default-tier pages mapped: they cost address space only */
	memset(&w, 0, sizeof(w));			/* all in the default tier */
	CHECK(mech_scan_init(&sc, &in, 1024, 1 << 20, 1 * GIB, 0) == 0);
	for (i = 0; i < 5; i++)				/* 5 x 81.92 pages of address space */
		CHECK(mech_scan_quantum(&sc, 10 * 1e6, tier_of, visit, &w) == 0);
	CHECK(w.visited == 0);
	CHECKF(sc.cursor == 409, "walked to page %" PRIu64 ", want 409", sc.cursor);

	/* TPP+Colloid unmaps the default tier too */
	memset(&w, 0, sizeof(w));
	CHECK(mech_scan_init(&sc, &in, 1024, 1 << 20, 1 * GIB, 1) == 0);
	for (i = 0; i < 25; i++)
		CHECK(mech_scan_quantum(&sc, 10 * 1e6, tier_of, visit, &w) == 0);
	CHECK(w.visited == 256);

	/* an idle stretch carries at most one window's budget */
	memset(&w, 0, sizeof(w));
	memset(w.tier, 1, sizeof(w.tier));
	CHECK(mech_scan_init(&sc, &in, 1024, 1 << 20, 1 * GIB, 0) == 0);
	CHECK(mech_scan_quantum(&sc, 10 * 250 * 1e6, tier_of, visit, &w) == 0);
	CHECKF(w.visited == 256, "a 10-window quantum unmapped %" PRIu64, w.visited);

	/* a pass per quantum at most, and a visitor's error stops the walk */
	memset(&w, 0, sizeof(w));
	memset(w.tier, 1, sizeof(w.tier));
	CHECK(colloid_param_set(&p, "tpp_scan_size_bytes", 4 * GIB) == 0);
	CHECK(colloid_policy_info("tpp", &p, &in) == 0);
	CHECK(mech_scan_init(&sc, &in, 1024, 1 << 20, 1 * GIB, 0) == 0);
	CHECK(mech_scan_quantum(&sc, 1e9, tier_of, visit, &w) == 0);
	CHECK(w.visited == 1024 && w.last_n == 1024);
	memset(&w, 0, sizeof(w));
	memset(w.tier, 1, sizeof(w.tier));
	w.stop_after = 3;
	CHECK(mech_scan_quantum(&sc, 1e9, tier_of, visit, &w) == -ECANCELED);
	CHECK(w.visited == 3);

	CHECK(mech_scan_init(&sc, &in, 0, 4096, 1, 0) == -EINVAL);
	CHECK(mech_scan_quantum(&sc, 1e6, NULL, visit, &w) == -EINVAL);

	/* plan buffer: twice the static limit of a quantum plus 64 */
	CHECK(colloid_params_default(&p, "hemem") == 0);
	CHECK(mech_plan_cap(&p, 10 * T_MS, 2 << 20) == 2 * 48 + 64);
	CHECK(mech_plan_cap(&p, 500 * T_MS, 4096) == 2 * 1220704 + 64);
	return T_PASS;
err:
	return T_FAIL;
}
