// SPDX-License-Identifier: MIT
/*
 * policy_tpp.c - TPP / Linux NUMA balancing in tiering mode (ASPLOS'23; Linux
 * NUMA_BALANCING_MEMORY_TIERING), as DESIGN.md "Baselines" describes it.
 *
 * The mechanism runs the scanner (tpp_scan_size_bytes per tpp_scan_period_ms)
 * and reports hint faults with the time since the page was unmapped.  A
 * fault on a slower-tier page within the hot threshold makes it a promotion
 * candidate; candidates are promoted at the next tick, in fault order,
 * subject to the promotion rate limit (1 s windows) and to the default tier
 * keeping tpp_wmark_promo free.  A blocked promotion, or free space below
 * tpp_wmark_promo, wakes "kswapd", which demotes least-recently-referenced
 * default-tier pages until tpp_wmark_demote is free.  Every
 * tpp_threshold_adjust_ms the hot threshold moves by 1/8 of its configured
 * value toward the rate limit (as Linux does).  Samples (e.g. accessed bits)
 * and faults both count as references for the LRU order.
 *
 * With Colloid (sign only): while L_D > L_A promotions stop and a
 * default-tier page that takes a hint fault within the hot threshold is
 * demoted; while balanced within delta, nothing moves.
 */
#include <errno.h>
#include <math.h>

#include <stdlib.h>

#include "internal.h"

/* TPP's constants (colloid/README.md gives each default's source) */
enum {
	SCAN_SIZE_BYTES, SCAN_PERIOD_MS, HOT_THRESHOLD_MS, PROMOTE_RATE_LIMIT_MBPS,
	THRESHOLD_ADJUST_MS, WMARK_PROMO, WMARK_DEMOTE, QUANTUM_MS, SAMPLE_PERIOD, NPARAMS
};

static const struct colloid_param_desc tpp_params[NPARAMS] = {
	[SCAN_SIZE_BYTES] = { "tpp_scan_size_bytes", 256.0 * 1024 * 1024, 4096, 1e18,
			      "TPP: bytes unmapped per scan window, for the mechanism (bytes)" },
	[SCAN_PERIOD_MS] = { "tpp_scan_period_ms", 1000, 1e-3, 1e9,
			     "TPP: time to scan the whole task (scan_period_min), for the mechanism (ms)" },
	[HOT_THRESHOLD_MS] = { "tpp_hot_threshold_ms", 1000, 0, 1e9,
			       "TPP: promote if hint fault within this of the scan (ms)" },
	[PROMOTE_RATE_LIMIT_MBPS] = { "tpp_promote_rate_limit_MBps", 65536, 0, 1e12,
				      "TPP: promotion rate limit (MB/s)" },
	[THRESHOLD_ADJUST_MS] = { "tpp_threshold_adjust_ms", 60000, 0, 1e12,
				  "TPP: hot-threshold adjustment period, 0 = off (ms)" },
	[WMARK_PROMO] = { "tpp_wmark_promo", 0.01, 0, 0.5,
			  "TPP: free fraction that must remain after a promotion (fraction)" },
	[WMARK_DEMOTE] = { "tpp_wmark_demote", 0.02, 0, 0.5,
			   "TPP: kswapd demotes until this free fraction (fraction)" },
	[QUANTUM_MS] = { "tpp_quantum_ms", 10, 1e-3, 1e7, "TPP: tick period, for the mechanism (ms)" },
	/* chosen: HeMem's period, for a mechanism that samples accesses (colloid.h) */
	[SAMPLE_PERIOD] = { "tpp_sample_period", 5003, 1, 1e12,
			    "TPP: access sampling period of a sampling mechanism (events)" },
};

/* TPP's private state */
struct tpp {
	uint32_t *ring;		/* candidate FIFO, npages entries */
	uint32_t ring_head, ring_len;
	double threshold_ms;
	uint64_t window_start, adjust_start;
	double window_bytes;
	uint64_t cands;
	bool blocked;
};

static inline struct tpp *T(const struct colloid_ctx *ctx)
{
	return ctx->priv;
}

static int tpp_init(struct colloid_ctx *ctx)
{
	T(ctx)->ring = malloc((size_t)ctx->npages * sizeof(*T(ctx)->ring));
	if (!T(ctx)->ring)
		return -ENOMEM;
	T(ctx)->threshold_ms = ctx->own[HOT_THRESHOLD_MS];
	return 0;
}

static void tpp_fini(struct colloid_ctx *ctx)
{
	free(T(ctx)->ring);
}

static void tpp_param_changed(struct colloid_ctx *ctx, unsigned int i, double v)
{
	if (i == HOT_THRESHOLD_MS)
		T(ctx)->threshold_ms = v;
}

static int tpp_params_check(const double *own)
{
	return own[WMARK_DEMOTE] < own[WMARK_PROMO] ? -EINVAL : 0;
}

static bool tpp_is_hot(const struct colloid_ctx *ctx, const struct cpage *pg)
{
	(void)ctx;
	return pg->reads || pg->writes;	/* referenced since it was placed */
}

/* A reference: counts (for the LRU's "referenced" state) and the LRU head. */
static void tpp_ref(struct colloid_ctx *ctx, uint32_t i, int is_write, uint32_t w)
{
	counts_add(ctx, i, is_write, w, true);
	page_set_flag_hot(ctx, i, tpp_is_hot(ctx, &ctx->pages[i]));
}

static void tpp_sample(struct colloid_ctx *ctx, uint32_t i, int is_write, uint32_t w)
{
	tpp_ref(ctx, i, is_write, w);
}

/* tpp_sample() for each of @n samples, in order, in a sample_run */
COLLOID_HOT void tpp_run(struct colloid_ctx *ctx, const uint32_t *pages, size_t n, int is_write,
			 uint32_t w)
{
	struct sample_run sr;

	run_begin(ctx, &sr);
	RUN_FOR_EACH(&sr, pages, n, k, {
		uint32_t i = pages[k];
		struct cpage *pg = &sr.pages[i];

		run_counts_add(&sr, i, is_write, w, true);
		run_set_hot(&sr, pg, pg->reads || pg->writes);	/* tpp_is_hot() */
	});
	run_end(ctx, &sr);
}

static void tpp_sample_many(struct colloid_ctx *ctx, const uint32_t *pages, size_t n, int is_write,
			    uint32_t w)
{
	/* the common kinds with constant arguments: the compiler drops their branches */
	if (w == 1 && !is_write)
		tpp_run(ctx, pages, n, 0, 1);
	else
		tpp_run(ctx, pages, n, is_write, w);
}

static void ring_push(struct colloid_ctx *ctx, uint32_t i, uint8_t flag)
{
	uint32_t pos = T(ctx)->ring_head + T(ctx)->ring_len;

	if (pos >= ctx->npages)
		pos -= ctx->npages;
	T(ctx)->ring[pos] = i;
	T(ctx)->ring_len++;
	ctx->pages[i].flags |= flag;
}

static void tpp_fault(struct colloid_ctx *ctx, uint32_t i, uint64_t since, uint64_t now)
{
	struct cpage *pg = &ctx->pages[i];
	bool within = (double)since <= T(ctx)->threshold_ms * 1e6;

	(void)now;
	tpp_ref(ctx, i, 0, 1);
	if (!within || (pg->flags & (PF_PROMO | PF_DEMO)))
		return;
	if (pg->tier != ctx->dflt) {
		T(ctx)->cands++;
		ring_push(ctx, i, PF_PROMO);
	} else if (ctx->colloid && colloid_sign(ctx) < 0) {
		ring_push(ctx, i, PF_DEMO);
	}
}

static void tpp_adjust(struct colloid_ctx *ctx, uint64_t now)
{
	double period_ms = ctx->own[THRESHOLD_ADJUST_MS], ref, unit, base;

	if (period_ms <= 0)
		return;
	if (!T(ctx)->adjust_start) {
		T(ctx)->adjust_start = now ? now : 1;
		return;
	}
	if ((double)(now - T(ctx)->adjust_start) < period_ms * 1e6)
		return;
	base = ctx->own[HOT_THRESHOLD_MS];
	unit = base * 2 / 16;
	ref = ctx->own[PROMOTE_RATE_LIMIT_MBPS] * 1e6 * (period_ms * 1e-3) /
	      (double)ctx->page_size;
	if ((double)T(ctx)->cands > ref * 1.1)
		T(ctx)->threshold_ms = T(ctx)->threshold_ms - unit > unit ?
					T(ctx)->threshold_ms - unit : unit;
	else if ((double)T(ctx)->cands < ref * 0.9)
		T(ctx)->threshold_ms = T(ctx)->threshold_ms + unit < 2 * base ?
					T(ctx)->threshold_ms + unit : 2 * base;
	T(ctx)->cands = 0;
	T(ctx)->adjust_start = now;
}

/* May one more page move under the rate limit?  Charges it if so. */
static bool tpp_rate_ok(struct colloid_ctx *ctx, uint64_t now)
{
	double limit = ctx->own[PROMOTE_RATE_LIMIT_MBPS] * 1e6;

	if (now - T(ctx)->window_start >= 1000000000ull || now < T(ctx)->window_start) {
		T(ctx)->window_start = now;
		T(ctx)->window_bytes = 0;
	}
	if (T(ctx)->window_bytes + (double)ctx->page_size > limit)
		return false;
	T(ctx)->window_bytes += (double)ctx->page_size;
	return true;
}

static void tpp_kswapd(struct colloid_ctx *ctx, struct plan *pl)
{
	unsigned int d = ctx->dflt;
	double cap = (double)ctx->tiers[d].cap_pages;
	uint64_t low = (uint64_t)(ctx->own[WMARK_PROMO] * cap + 0.999999);
	uint64_t high = (uint64_t)(ctx->own[WMARK_DEMOTE] * cap + 0.999999);
	uint32_t i;

	if (tier_room(ctx, d) >= low && !T(ctx)->blocked)
		return;
	T(ctx)->blocked = false;
	i = ctx->lists[d][0].tail;
	while (i != NIL && tier_room(ctx, d) < high) {
		uint32_t prev = ctx->pages[i].prev;
		int to = tier_pick_lower(ctx, d);

		if (to < 0)
			return;
		if (!(ctx->pages[i].flags & (PF_MOVED | PF_DEMO)) &&
		    plan_add(ctx, pl, i, (unsigned int)to) == -ENOSPC)
			return;
		i = prev;
	}
}

static void tpp_tick(struct colloid_ctx *ctx, struct plan *pl, uint64_t now, uint64_t q)
{
	unsigned int d = ctx->dflt;
	double cap = (double)ctx->tiers[d].cap_pages;
	uint64_t low = (uint64_t)(ctx->own[WMARK_PROMO] * cap + 0.999999);
	int sign = ctx->colloid ? colloid_sign(ctx) : 1;

	(void)q;
	tpp_adjust(ctx, now);
	tpp_kswapd(ctx, pl);

	while (T(ctx)->ring_len) {
		uint32_t i = T(ctx)->ring[T(ctx)->ring_head];
		struct cpage *pg = &ctx->pages[i];
		int ret = 0;

		if (pl->n >= pl->cap || pl->bytes_left < (double)ctx->page_size)
			break;	/* keep the rest for the next tick */
		if (++T(ctx)->ring_head == ctx->npages)
			T(ctx)->ring_head = 0;
		T(ctx)->ring_len--;

		if (pg->flags & PF_PROMO) {
			pg->flags &= ~PF_PROMO;
			if (pg->tier == d || sign <= 0)
				continue;
			if (tier_room(ctx, d) < low + 1) {
				T(ctx)->blocked = true;	/* wakes kswapd next tick */
				continue;
			}
			if (!tpp_rate_ok(ctx, now))
				continue;
			ret = plan_add(ctx, pl, i, d);
		} else if (pg->flags & PF_DEMO) {
			int to;

			pg->flags &= ~PF_DEMO;
			if (pg->tier != d || sign >= 0)
				continue;
			to = tier_pick_lower(ctx, d);
			if (to < 0 || !tpp_rate_ok(ctx, now))
				continue;
			ret = plan_add(ctx, pl, i, (unsigned int)to);
		}
		if (ret == -ENOSPC)
			break;
	}
}

static double tpp_hot_threshold(const struct colloid_ctx *ctx)
{
	return T(ctx)->threshold_ms;
}

/* TPP decides on hint faults; samples only order its LRU (colloid.h) */
static void tpp_info(const double *own, struct colloid_policy_info *info)
{
	info->quantum_ns = (uint64_t)llround(own[QUANTUM_MS] * 1e6);
	info->load_period = own[SAMPLE_PERIOD];
	info->store_period = own[SAMPLE_PERIOD];
	info->hint_faults = 1;
	info->scan_size_bytes = own[SCAN_SIZE_BYTES];
	info->scan_period_ms = own[SCAN_PERIOD_MS];
	/* released TPP+Colloid runs colloid-mon, which spin-polls the CHA
	 * counters (200 us loop, EWMA 1/32, every CHA box) on a core of its
	 * own (SPINPOLL on CORE_MON) */
	info->cha_poll_ns = 200e3;
	info->cha_ewma_alpha = 1.0 / 32.0;
	info->cha_share = 1.0;
	info->colloid_monitor_cores = 1.0;
}

const struct colloid_policy colloid_policy_tpp = {
	.name = "tpp",
	.params = tpp_params,
	.nparams = NPARAMS,
	.params_check = tpp_params_check,
	.priv_size = sizeof(struct tpp),
	.init = tpp_init,
	.fini = tpp_fini,
	.param_changed = tpp_param_changed,
	.sign_only = true,
	.single_list = true,
	.sample = tpp_sample,
	.sample_many = tpp_sample_many,
	.fault = tpp_fault,
	.tick = tpp_tick,
	.is_hot = tpp_is_hot,
	.hot_threshold = tpp_hot_threshold,
	.info = tpp_info,
};
