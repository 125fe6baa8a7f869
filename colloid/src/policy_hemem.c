// SPDX-License-Identifier: MIT
/*
 * policy_hemem.c - HeMem's placement policy (SOSP'21), as DESIGN.md "Baselines"
 * describes it: sampled per-page read/write counts; a page is hot when
 * reads >= hemem_read_hot or writes >= hemem_write_hot; when a count reaches
 * hemem_cool_threshold every count halves (lazily, through the cooling
 * clock); as in HeMem, a page is classed hot or cold when it is sampled
 * (its hot/cold list), not when the policy loop looks at it; each quantum
 * hot slow-tier pages are promoted, hottest bins first, and when the
 * default tier is full a cold default-tier page is demoted to make room;
 * migration is capped by migrate_limit_Bps.
 */
#include <errno.h>
#include <math.h>

#include "internal.h"

/* HeMem's constants (colloid/README.md gives each default's source) */
enum { READ_HOT, WRITE_HOT, COOL_THRESHOLD, SAMPLE_PERIOD, QUANTUM_MS, NPARAMS };

static const struct colloid_param_desc hemem_params[NPARAMS] = {
	[READ_HOT] = { "hemem_read_hot", 8, 1, 65535, "HeMem: hot when sampled reads >= this (samples)" },
	[WRITE_HOT] = { "hemem_write_hot", 4, 1, 65535, "HeMem: hot when sampled writes >= this (samples)" },
	[COOL_THRESHOLD] = { "hemem_cool_threshold", 18, 2, 65535,
			     "HeMem: halve all counts when a count reaches this (samples)" },
	[SAMPLE_PERIOD] = { "hemem_sample_period", 5003, 1, 1e12,
			    "HeMem: PEBS sampling period, for the mechanism (events)" },
	[QUANTUM_MS] = { "hemem_quantum_ms", 10, 1e-3, 1e7,
			 "HeMem: policy loop period, for the mechanism (ms)" },
};

static bool hemem_is_hot(const struct colloid_ctx *ctx, const struct cpage *pg)
{
	uint32_t d = ctx->cool_clock - pg->clock;
	uint32_t r = d >= 32 ? 0 : pg->reads >> d, w = d >= 32 ? 0 : pg->writes >> d;

	return r >= (uint32_t)ctx->own[READ_HOT] || w >= (uint32_t)ctx->own[WRITE_HOT];
}

static void hemem_sample(struct colloid_ctx *ctx, uint32_t i, int is_write, uint32_t w)
{
	struct cpage *pg = &ctx->pages[i];
	uint32_t thr = (uint32_t)ctx->own[COOL_THRESHOLD];

	counts_add(ctx, i, is_write, w, false);
	/* hemem_is_hot() with counts just cooled to the clock */
	page_set_flag_hot(ctx, i, pg->reads >= (uint32_t)ctx->own[READ_HOT] ||
			  pg->writes >= (uint32_t)ctx->own[WRITE_HOT]);
	if (pg->reads >= thr || pg->writes >= thr) {
		cool_global(ctx);
		page_refresh(ctx, i);
	}
}

/* hemem_sample() for each of @n samples, in order, in a sample_run */
COLLOID_HOT void hemem_run(struct colloid_ctx *ctx, const uint32_t *pages, size_t n, int is_write,
			   uint32_t w)
{
	const uint32_t rh = (uint32_t)ctx->own[READ_HOT], wh = (uint32_t)ctx->own[WRITE_HOT];
	const uint32_t thr = (uint32_t)ctx->own[COOL_THRESHOLD];
	struct sample_run sr;

	run_begin(ctx, &sr);
	RUN_FOR_EACH(&sr, pages, n, k, {
		uint32_t i = pages[k];
		struct cpage *pg = &sr.pages[i];

		run_counts_add(&sr, i, is_write, w, false);
		run_set_hot(&sr, pg, pg->reads >= rh || pg->writes >= wh);
		if (pg->reads >= thr || pg->writes >= thr) {
			run_end(ctx, &sr);
			cool_global(ctx);
			page_refresh(ctx, i);
			run_begin(ctx, &sr);
		}
	});
	run_end(ctx, &sr);
}

static void hemem_sample_many(struct colloid_ctx *ctx, const uint32_t *pages, size_t n, int is_write,
			      uint32_t w)
{
	/* the common kinds with constant arguments: the compiler drops their branches */
	if (w == 1 && !is_write)
		hemem_run(ctx, pages, n, 0, 1);
	else if (w == 1)
		hemem_run(ctx, pages, n, 1, 1);
	else
		hemem_run(ctx, pages, n, is_write, w);
}

static void hemem_fault(struct colloid_ctx *ctx, uint32_t i, uint64_t since, uint64_t now)
{
	(void)since;
	(void)now;
	hemem_sample(ctx, i, 0, 1);
}

static bool hemem_not_hot(struct colloid_ctx *ctx, uint32_t i, double arg)
{
	(void)arg;
	return !(ctx->pages[i].flags & PF_HOT);
}

/* Coldest non-hot default-tier page not yet in the plan, or NIL. */
static uint32_t hemem_find_cold(struct colloid_ctx *ctx, uint64_t *budget)
{
	return cold_walk(ctx, ctx->dflt, NULL, hemem_not_hot, 0, budget);
}

struct hemem_walk {
	struct plan *pl;
	uint64_t *budget;
};

/* promote a hot slower-tier page; when the default tier is full, demote a cold one first */
static int hemem_promote(struct colloid_ctx *ctx, uint32_t i, uint32_t heat, void *arg)
{
	struct hemem_walk *w = arg;
	unsigned int d = ctx->dflt;

	(void)heat;
	if (!(ctx->pages[i].flags & PF_HOT))
		return HW_SKIP;
	return plan_promote(ctx, w->pl, i, d, !tier_room(ctx, d), hemem_find_cold, w->budget) ? HW_STOP
												: HW_TOOK;
}

static void hemem_tick(struct colloid_ctx *ctx, struct plan *pl, uint64_t now, uint64_t q)
{
	uint32_t min_hot = (uint32_t)ctx->own[WRITE_HOT];
	uint64_t budget = (uint64_t)(ctx->prm.scan_limit * (double)(pl->cap ? pl->cap : 1)) + 64;
	struct hemem_walk w = { pl, &budget };
	int min_bin;

	(void)now;
	(void)q;
	if ((uint32_t)ctx->own[READ_HOT] < min_hot)
		min_hot = (uint32_t)ctx->own[READ_HOT];
	min_bin = (int)bin_of(min_hot);

	/* hottest first: bins from the top, every slower tier */
	for (int b = NB - 1; b >= min_bin; b--) {
		for (unsigned int k = 1; k < ctx->ntiers; k++)
			if (!hot_walk(ctx, ctx->order[k], (unsigned int)b, false, hemem_promote, &w, &budget))
				return;
	}
}

static double hemem_hot_threshold(const struct colloid_ctx *ctx)
{
	return ctx->own[READ_HOT];
}

static void hemem_info(const double *own, struct colloid_policy_info *info)
{
	info->quantum_ns = (uint64_t)llround(own[QUANTUM_MS] * 1e6);
	info->load_period = own[SAMPLE_PERIOD];
	info->store_period = own[SAMPLE_PERIOD];
	info->samples = 1;
	/*
	 * HeMem's own monitor (released hemem pebs.c): colloid_update_stats()
	 * reads the CHA counters once per 10-ms policy iteration and smooths
	 * with COLLOID_EWMA = 1/16.  It reads TOR inserts on one CHA box per
	 * tier and multiplies by NUM_CHA_BOXES = 18 while Ice Lake has 32
	 * ("There are 32 CHA boxes in icelake server"): its arrival rate, and
	 * so Colloid's migration budget (not p or the latencies, which are
	 * ratios), is 18/32 of the truth.  No monitor core of its own.
	 */
	info->cha_poll_ns = 0;
	info->cha_ewma_alpha = 1.0 / 16.0;
	info->cha_share = 18.0 / 32.0;
}

const struct colloid_policy colloid_policy_hemem = {
	.name = "hemem",
	.params = hemem_params,
	.nparams = NPARAMS,
	.sign_only = false,
	.single_list = false,
	.hot_at_sample = true,
	.sample = hemem_sample,
	.sample_many = hemem_sample_many,
	.fault = hemem_fault,
	.tick = hemem_tick,
	.is_hot = hemem_is_hot,
	.hot_threshold = hemem_hot_threshold,
	.info = hemem_info,
};
