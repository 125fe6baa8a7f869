// SPDX-License-Identifier: MIT
/*
 * policy_memtis.c - MEMTIS's placement policy (SOSP'23), as DESIGN.md "Baselines"
 * describes it: per-page sample counts kept in an exponential histogram
 * (bin b holds counts in [2^(b-1), 2^b)); the hot threshold is the lowest
 * bin whose pages, with all hotter ones, still fit the default tier; every
 * memtis_cooling_samples samples all counts halve (lazily); each quantum the
 * migration daemon promotes pages at or above the threshold and demotes
 * pages below it to make room (and to keep memtis_free_target free).
 * Not modelled: MEMTIS's warm set and huge-page splitting.
 */
#include <errno.h>
#include <math.h>

#include "internal.h"

/* MEMTIS's constants (colloid/README.md gives each default's source) */
enum { COOLING_SAMPLES, ADAPT_SAMPLES, LOAD_PERIOD, STORE_PERIOD, QUANTUM_MS, FREE_TARGET, NPARAMS };

static const struct colloid_param_desc memtis_params[NPARAMS] = {
	[COOLING_SAMPLES] = { "memtis_cooling_samples", 2000000, 1, 1e15,
			      "MEMTIS: halve all counts every this many samples (samples)" },
	[ADAPT_SAMPLES] = { "memtis_adapt_samples", 100000, 1, 1e15,
			    "MEMTIS: recompute hot threshold every this many samples (samples)" },
	[LOAD_PERIOD] = { "memtis_load_period", 199, 1, 1e12,
			  "MEMTIS: PEBS load period, for the mechanism (events)" },
	[STORE_PERIOD] = { "memtis_store_period", 100007, 1, 1e12,
			   "MEMTIS: PEBS store period, for the mechanism (events)" },
	[QUANTUM_MS] = { "memtis_quantum_ms", 500, 1e-3, 1e7,
			 "MEMTIS: migration daemon period, for the mechanism (ms)" },
	[FREE_TARGET] = { "memtis_free_target", 0.0, 0, 0.5,
			  "MEMTIS: fast-tier free fraction kept by demoting cold pages (fraction)" },
};

/* MEMTIS's private state */
struct memtis {
	unsigned int thr;	/* hot threshold: power-of-two bin */
	double since_cool, since_adapt;	/* samples since the last cooling / adaptation */
};

static inline struct memtis *M(const struct colloid_ctx *ctx)
{
	return ctx->priv;
}

static int memtis_init(struct colloid_ctx *ctx)
{
	M(ctx)->thr = 1;
	return 0;
}

static bool memtis_is_hot(const struct colloid_ctx *ctx, const struct cpage *pg)
{
	return bin_pow2(bin_of(heat_of(ctx, pg))) >= M(ctx)->thr;
}

/* Lowest power-of-two bin (>= 1) whose pages and all hotter ones fit the default tier. */
static void memtis_adapt(struct colloid_ctx *ctx)
{
	uint64_t cap = ctx->tiers[ctx->dflt].cap_pages, cum = 0;
	unsigned int thr = COLLOID_NBINS - 1;

	for (int b = NB - 1; b >= 1; b--) {
		for (unsigned int t = 0; t < ctx->ntiers; t++)
			cum += ctx->lists[t][b].n;
		if (cum > cap)
			break;
		/* the whole power-of-two group down to here fits */
		if ((b - 1) % NB_SUB == 0)
			thr = bin_pow2((unsigned int)b);
	}
	M(ctx)->thr = thr;
}

static void memtis_sample(struct colloid_ctx *ctx, uint32_t i, int is_write, uint32_t w)
{
	unsigned int b = counts_add(ctx, i, is_write, w, false);

	/* memtis_is_hot() with counts just cooled to the clock */
	page_set_flag_hot(ctx, i, bin_pow2(b) >= M(ctx)->thr);
	M(ctx)->since_cool += w;
	M(ctx)->since_adapt += w;
	if (M(ctx)->since_cool >= ctx->own[COOLING_SAMPLES]) {
		M(ctx)->since_cool = 0;
		cool_global(ctx);
		page_refresh(ctx, i);
	}
	if (M(ctx)->since_adapt >= ctx->own[ADAPT_SAMPLES]) {
		M(ctx)->since_adapt = 0;
		memtis_adapt(ctx);
	}
}

/* memtis_sample() for each of @n samples, in order, in a sample_run */
COLLOID_HOT void memtis_run(struct colloid_ctx *ctx, const uint32_t *pages, size_t n, int is_write,
			    uint32_t w)
{
	struct memtis *m = M(ctx);
	const double cool = ctx->own[COOLING_SAMPLES], adapt = ctx->own[ADAPT_SAMPLES];
	double since_cool = m->since_cool, since_adapt = m->since_adapt;
	unsigned int thr = m->thr;
	struct sample_run sr;

	run_begin(ctx, &sr);
	RUN_FOR_EACH(&sr, pages, n, k, {
		uint32_t i = pages[k];
		unsigned int b;

		b = run_counts_add(&sr, i, is_write, w, false);
		run_set_hot(&sr, &sr.pages[i], bin_pow2(b) >= thr);
		since_cool += w;
		since_adapt += w;
		if (since_cool >= cool) {
			since_cool = 0;
			run_end(ctx, &sr);
			cool_global(ctx);
			page_refresh(ctx, i);
			run_begin(ctx, &sr);
		}
		if (since_adapt >= adapt) {
			since_adapt = 0;
			run_end(ctx, &sr);
			memtis_adapt(ctx);
			thr = m->thr;
			run_begin(ctx, &sr);
		}
	});
	run_end(ctx, &sr);
	m->since_cool = since_cool;
	m->since_adapt = since_adapt;
}

static void memtis_sample_many(struct colloid_ctx *ctx, const uint32_t *pages, size_t n, int is_write,
			       uint32_t w)
{
	/* the common kinds with constant arguments: the compiler drops their branches */
	if (w == 1 && !is_write)
		memtis_run(ctx, pages, n, 0, 1);
	else if (w == 1)
		memtis_run(ctx, pages, n, 1, 1);
	else
		memtis_run(ctx, pages, n, is_write, w);
}

static void memtis_fault(struct colloid_ctx *ctx, uint32_t i, uint64_t since, uint64_t now)
{
	(void)since;
	(void)now;
	memtis_sample(ctx, i, 0, 1);
}

static bool memtis_bin_cold(const struct colloid_ctx *ctx, unsigned int b, double arg)
{
	(void)arg;
	return bin_pow2(b) < M(ctx)->thr;
}

static bool memtis_cold(struct colloid_ctx *ctx, uint32_t i, double arg)
{
	page_refresh(ctx, i);
	return memtis_bin_cold(ctx, ctx->pages[i].bin, arg);
}

/* Coldest default-tier page below the threshold, not yet in the plan, or NIL. */
static uint32_t memtis_find_cold(struct colloid_ctx *ctx, uint64_t *budget)
{
	return cold_walk(ctx, ctx->dflt, memtis_bin_cold, memtis_cold, 0, budget);
}

struct memtis_walk {
	struct plan *pl;
	uint64_t keep;
	uint64_t *budget;
};

/* promote a page at or above the threshold; make room below the free target first */
static int memtis_promote(struct colloid_ctx *ctx, uint32_t i, uint32_t heat, void *arg)
{
	struct memtis_walk *w = arg;
	unsigned int d = ctx->dflt;

	(void)heat;
	return plan_promote(ctx, w->pl, i, d, tier_room(ctx, d) <= w->keep, memtis_find_cold, w->budget)
		       ? HW_STOP
		       : HW_TOOK;
}

static void memtis_tick(struct colloid_ctx *ctx, struct plan *pl, uint64_t now, uint64_t q)
{
	unsigned int d = ctx->dflt;
	uint64_t budget = (uint64_t)(ctx->prm.scan_limit * (double)(pl->cap ? pl->cap : 1)) + 64;
	uint64_t keep = (uint64_t)(ctx->own[FREE_TARGET] * (double)ctx->tiers[d].cap_pages);
	struct memtis_walk w = { pl, keep, &budget };
	uint32_t c;
	int to;

	(void)now;
	(void)q;
	memtis_adapt(ctx);

	/* demotion daemon: keep the free target */
	while (tier_room(ctx, d) < keep) {
		c = memtis_find_cold(ctx, &budget);
		to = tier_pick_lower(ctx, d);
		if (c == NIL || to < 0 || plan_add(ctx, pl, c, (unsigned int)to))
			break;
	}

	/* promotion daemon: hot pages, hottest bins first */
	for (int b = NB - 1; b >= 1 && bin_pow2((unsigned int)b) >= M(ctx)->thr; b--)
		for (unsigned int k = 1; k < ctx->ntiers; k++)
			if (!hot_walk(ctx, ctx->order[k], (unsigned int)b, true, memtis_promote, &w, &budget))
				return;
}

static double memtis_hot_threshold(const struct colloid_ctx *ctx)
{
	return M(ctx)->thr;
}

static void memtis_info(const double *own, struct colloid_policy_info *info)
{
	info->quantum_ns = (uint64_t)llround(own[QUANTUM_MS] * 1e6);
	info->load_period = own[LOAD_PERIOD];
	info->store_period = own[STORE_PERIOD];
	info->samples = 1;
	/* MEMTIS's sampler raises its period to bound its CPU use */
	info->sample_rate_bounded = 1;
	/* MEMTIS's Colloid integration is not released: colloid-mon's loop
	 * (200 us, EWMA 1/32, every CHA box), on no core of its own */
	info->cha_poll_ns = 200e3;
	info->cha_ewma_alpha = 1.0 / 32.0;
	info->cha_share = 1.0;
}

const struct colloid_policy colloid_policy_memtis = {
	.name = "memtis",
	.params = memtis_params,
	.nparams = NPARAMS,
	.priv_size = sizeof(struct memtis),
	.init = memtis_init,
	.sign_only = false,
	.single_list = false,
	.sample = memtis_sample,
	.sample_many = memtis_sample_many,
	.fault = memtis_fault,
	.tick = memtis_tick,
	.is_hot = memtis_is_hot,
	.hot_threshold = memtis_hot_threshold,
	.info = memtis_info,
};
