// SPDX-License-Identifier: MIT
/*
 * balance.c - Colloid: balance loaded latencies of the default tier and the
 * alternate tier(s) by moving hot pages (DESIGN.md, "The Colloid algorithm").
 *
 * Per tick: update the [p_lo, p_hi] search from the smoothed latencies, take
 * delta-p from the binary search or the closed form, then greedily pick pages
 * by access probability (largest first that still fits the remaining delta-p)
 * toward the lower-latency side, within the budget set by colloid_tick().
 */
#include <errno.h>
#include <math.h>

#include "internal.h"

/* Sign of the imbalance: +1 when the default tier is faster (move toward it),
 * -1 when it is slower, 0 when balanced within delta or without data. */
int colloid_sign(const struct colloid_ctx *ctx)
{
	double ld, la, rd, ra;

	if (!lat_ready(ctx))
		return 0;
	lat_pair(ctx, &ld, &la, &rd, &ra);
	if (fabs(ld - la) <= ctx->prm.delta * ld)
		return 0;
	return ld < la ? 1 : -1;
}

void colloid_search_update(struct colloid_ctx *ctx)
{
	double ld, la, rd, ra, p;

	if (!lat_ready(ctx)) {
		ctx->direction = 0;
		ctx->delta_p = 0;
		return;
	}
	lat_pair(ctx, &ld, &la, &rd, &ra);
	p = rd + ra > 0 ? rd / (rd + ra) : 0.5;
	ctx->p = p;
	if (fabs(ld - la) <= ctx->prm.delta * ld) {
		ctx->direction = 0;
		ctx->delta_p = 0;
		return;
	}
	if (ld < la) {
		ctx->direction = 1;
		ctx->p_lo = p;
		if (ctx->p_hi <= ctx->p_lo)
			ctx->p_hi = 1;
	} else {
		ctx->direction = -1;
		ctx->p_hi = p;
		if (ctx->p_lo >= ctx->p_hi)
			ctx->p_lo = 0;
	}
	/* a collapsed interval means the workload changed: re-open toward the move */
	if (ctx->p_hi - ctx->p_lo < ctx->prm.epsilon) {
		if (ctx->direction > 0)
			ctx->p_hi = 1;
		else
			ctx->p_lo = 0;
	}
	if ((int)ctx->prm.dp_mode == COLLOID_DP_CLOSED) {
		double den = p * la + (1 - p) * ld;

		ctx->delta_p = den > 0 ? p * (1 - p) * fabs(ld - la) / den : 0;
	} else {
		ctx->delta_p = fabs((ctx->p_lo + ctx->p_hi) / 2 - p);
	}
}

/*
 * Coldest page of tier @t whose access probability is below @limit and that
 * is not yet in the plan; NIL if none within @budget examinations.
 */
static bool bin_below(const struct colloid_ctx *ctx, unsigned int b, double limit)
{
	return bin_floor(b) / ctx->total_weight < limit;
}

static bool page_below(struct colloid_ctx *ctx, uint32_t i, double limit)
{
	page_refresh(ctx, i);
	return heat_of(ctx, &ctx->pages[i]) / ctx->total_weight < limit;
}

static uint32_t find_cold(struct colloid_ctx *ctx, unsigned int t, double limit, uint64_t *budget)
{
	return cold_walk(ctx, t, bin_below, page_below, limit, budget);
}

struct balance_walk {
	struct plan *pl;
	double remaining;	/* delta-p still to move */
	uint64_t *budget;
};

/* out: move a default-tier page of probability <= remaining to a lower tier */
static int balance_out_visit(struct colloid_ctx *ctx, uint32_t i, uint32_t heat, void *arg)
{
	struct balance_walk *w = arg;
	const double tw = ctx->total_weight;
	double prob = heat / tw;
	int to, ret;

	if (!(prob > 0 && prob <= w->remaining))
		return HW_SKIP;
	to = tier_pick_lower(ctx, ctx->dflt);
	if (to < 0)
		return HW_STOP;
	ret = plan_add(ctx, w->pl, i, (unsigned int)to);
	if (ret == -ENOSPC)
		return HW_STOP;
	if (ret)
		return HW_SKIP;
	w->remaining -= prob;
	return w->remaining * tw < 1 ? HW_STOP : HW_TOOK; /* no page can fit any more */
}

/* in: move a slower-tier page of probability <= remaining up, swapping with a colder page when full */
static int balance_in_visit(struct colloid_ctx *ctx, uint32_t i, uint32_t heat, void *arg)
{
	struct balance_walk *w = arg;
	const double tw = ctx->total_weight;
	unsigned int d = ctx->dflt;
	double prob = heat / tw, net;
	int r = HW_SKIP, to;
	uint32_t c;

	if (prob <= 0 || prob > w->remaining)
		return HW_SKIP;
	if (tier_room(ctx, d)) {
		int ret = plan_add(ctx, w->pl, i, d);

		if (ret == -ENOSPC)
			return HW_STOP;
		if (!ret) {
			w->remaining -= prob;
			r = HW_TOOK;
		}
	} else {
		if (!ctx->prm.swap_pairs)
			return HW_STOP;
		/* a swap needs two plan slots and two pages of budget */
		if (w->pl->cap - w->pl->n < 2 || w->pl->bytes_left < 2.0 * (double)ctx->page_size)
			return HW_STOP;
		c = find_cold(ctx, d, prob, w->budget);
		if (c == NIL)
			return HW_STOP;
		to = tier_pick_lower(ctx, d);
		if (to < 0)
			return HW_STOP;
		net = prob - heat_of(ctx, &ctx->pages[c]) / tw;
		if (plan_add(ctx, w->pl, c, (unsigned int)to))
			return HW_STOP;
		if (plan_add(ctx, w->pl, i, d))
			return HW_STOP;
		w->remaining -= net;
		r = HW_TOOK;
	}
	return w->remaining * tw < 1 ? HW_STOP : r;
}

/*
 * Move pages out of (direction < 0) or into the default tier, hottest bins
 * first, summing to ~delta-p; bins whose floor exceeds what is left are passed.
 */
static void balance_walk(struct colloid_ctx *ctx, struct plan *pl, bool out, uint64_t *budget)
{
	struct balance_walk w = { pl, ctx->delta_p, budget };

	for (int b = NB - 1; b >= 1; b--) {
		if (bin_floor((unsigned int)b) / ctx->total_weight > w.remaining)
			continue;
		if (out) {
			if (!hot_walk(ctx, ctx->dflt, (unsigned int)b, true, balance_out_visit, &w, budget))
				return;
			continue;
		}
		for (unsigned int k = 1; k < ctx->ntiers; k++)
			if (!hot_walk(ctx, ctx->order[k], (unsigned int)b, true, balance_in_visit, &w, budget))
				return;
	}
}

void colloid_balance(struct colloid_ctx *ctx, struct plan *pl)
{
	uint64_t budget;

	if (ctx->direction == 0 || ctx->delta_p <= 0 || ctx->total_weight <= 0)
		return;
	budget = (uint64_t)(ctx->prm.scan_limit * (double)(pl->cap ? pl->cap : 1)) + 64;
	balance_walk(ctx, pl, ctx->direction < 0, &budget);
}
