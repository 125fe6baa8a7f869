// SPDX-License-Identifier: MIT
/*
 * tpp.c - TPP / Linux NUMA balancing in tiering mode (ASPLOS'23; Linux
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

#include "internal.h"

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

static void ring_push(struct colloid_ctx *ctx, uint32_t i, uint8_t flag)
{
	uint32_t pos = ctx->ring_head + ctx->ring_len;

	if (pos >= ctx->npages)
		pos -= ctx->npages;
	ctx->ring[pos] = i;
	ctx->ring_len++;
	ctx->pages[i].flags |= flag;
}

static void tpp_fault(struct colloid_ctx *ctx, uint32_t i, uint64_t since, uint64_t now)
{
	struct cpage *pg = &ctx->pages[i];
	bool within = (double)since <= ctx->tpp_threshold_ms * 1e6;

	(void)now;
	tpp_ref(ctx, i, 0, 1);
	if (!within || (pg->flags & (PF_PROMO | PF_DEMO)))
		return;
	if (pg->tier != ctx->dflt) {
		ctx->tpp_cands++;
		ring_push(ctx, i, PF_PROMO);
	} else if (ctx->colloid && colloid_sign(ctx) < 0) {
		ring_push(ctx, i, PF_DEMO);
	}
}

static void tpp_adjust(struct colloid_ctx *ctx, uint64_t now)
{
	double period_ms = ctx->prm.tpp_threshold_adjust_ms, ref, unit, base;

	if (period_ms <= 0)
		return;
	if (!ctx->tpp_adjust_start) {
		ctx->tpp_adjust_start = now ? now : 1;
		return;
	}
	if ((double)(now - ctx->tpp_adjust_start) < period_ms * 1e6)
		return;
	base = ctx->prm.tpp_hot_threshold_ms;
	unit = base * 2 / 16;
	ref = ctx->prm.tpp_promote_rate_limit_MBps * 1e6 * (period_ms * 1e-3) /
	      (double)ctx->page_size;
	if ((double)ctx->tpp_cands > ref * 1.1)
		ctx->tpp_threshold_ms = ctx->tpp_threshold_ms - unit > unit ?
					ctx->tpp_threshold_ms - unit : unit;
	else if ((double)ctx->tpp_cands < ref * 0.9)
		ctx->tpp_threshold_ms = ctx->tpp_threshold_ms + unit < 2 * base ?
					ctx->tpp_threshold_ms + unit : 2 * base;
	ctx->tpp_cands = 0;
	ctx->tpp_adjust_start = now;
}

/* May one more page move under the rate limit?  Charges it if so. */
static bool tpp_rate_ok(struct colloid_ctx *ctx, uint64_t now)
{
	double limit = ctx->prm.tpp_promote_rate_limit_MBps * 1e6;

	if (now - ctx->tpp_window_start >= 1000000000ull || now < ctx->tpp_window_start) {
		ctx->tpp_window_start = now;
		ctx->tpp_window_bytes = 0;
	}
	if (ctx->tpp_window_bytes + (double)ctx->page_size > limit)
		return false;
	ctx->tpp_window_bytes += (double)ctx->page_size;
	return true;
}

static void tpp_kswapd(struct colloid_ctx *ctx, struct plan *pl)
{
	unsigned int d = ctx->dflt;
	double cap = (double)ctx->tiers[d].cap_pages;
	uint64_t low = (uint64_t)(ctx->prm.tpp_wmark_promo * cap + 0.999999);
	uint64_t high = (uint64_t)(ctx->prm.tpp_wmark_demote * cap + 0.999999);
	uint32_t i;

	if (tier_room(ctx, d) >= low && !ctx->tpp_blocked)
		return;
	ctx->tpp_blocked = false;
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
	uint64_t low = (uint64_t)(ctx->prm.tpp_wmark_promo * cap + 0.999999);
	int sign = ctx->colloid ? colloid_sign(ctx) : 1;

	(void)q;
	tpp_adjust(ctx, now);
	tpp_kswapd(ctx, pl);

	while (ctx->ring_len) {
		uint32_t i = ctx->ring[ctx->ring_head];
		struct cpage *pg = &ctx->pages[i];
		int ret = 0;

		if (pl->n >= pl->cap || pl->bytes_left < (double)ctx->page_size)
			break;	/* keep the rest for the next tick */
		if (++ctx->ring_head == ctx->npages)
			ctx->ring_head = 0;
		ctx->ring_len--;

		if (pg->flags & PF_PROMO) {
			pg->flags &= ~PF_PROMO;
			if (pg->tier == d || sign <= 0)
				continue;
			if (tier_room(ctx, d) < low + 1) {
				ctx->tpp_blocked = true;	/* wakes kswapd next tick */
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
	return ctx->tpp_threshold_ms;
}

/* TPP decides on hint faults; samples only order its LRU (colloid.h) */
static void tpp_info(const struct colloid_params *p, struct colloid_policy_info *info)
{
	info->quantum_ns = (uint64_t)llround(p->tpp_quantum_ms * 1e6);
	info->load_period = p->hemem_sample_period;
	info->store_period = p->hemem_sample_period;
	info->hint_faults = 1;
}

const struct colloid_policy colloid_policy_tpp = {
	.name = "tpp",
	.sign_only = true,
	.single_list = true,
	.sample = tpp_sample,
	.fault = tpp_fault,
	.tick = tpp_tick,
	.is_hot = tpp_is_hot,
	.hot_threshold = tpp_hot_threshold,
	.info = tpp_info,
};
