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

/* Move pages out of the default tier: hot first, summing to ~delta-p. */
static void balance_out(struct colloid_ctx *ctx, struct plan *pl, double remaining,
			uint64_t *budget)
{
	const double tw = ctx->total_weight;
	unsigned int d = ctx->dflt;

	for (int b = NB - 1; b >= 1; b--) {
		if (bin_floor(b) / tw > remaining)
			continue;
		uint32_t i = ctx->lists[d][b].head;
		unsigned int miss = 0;

		while (i != NIL && miss++ < BIN_MISS_LIMIT) {
			struct cpage *pg = &ctx->pages[i];
			uint32_t next = pg->next;
			double prob;
			uint32_t h;
			int to, ret;

			if (!*budget)
				return;
			(*budget)--;
			page_prefetch(ctx->pages, next);
			page_prefetch(ctx->pages, pg->prev);
			if (pg->flags & PF_MOVED) {
				i = next;
				continue;
			}
			if (!page_in_bin(ctx, i, (unsigned int)b, &h)) {
				i = next;
				continue;
			}
			prob = h / tw;
			if (prob > 0 && prob <= remaining) {
				to = tier_pick_lower(ctx, d);
				if (to < 0)
					return;
				ret = plan_add(ctx, pl, i, (unsigned int)to);
				if (ret == -ENOSPC)
					return;
				if (!ret) {
					miss = 0;
					remaining -= prob;
					if (remaining * tw < 1)	/* no page can fit any more */
						return;
				}
			}
			i = next;
		}
	}
}

/* Move pages into the default tier: hot first, swapping with cold pages when full. */
static void balance_in(struct colloid_ctx *ctx, struct plan *pl, double remaining,
		       uint64_t *budget)
{
	const double tw = ctx->total_weight;
	unsigned int d = ctx->dflt;

	for (int b = NB - 1; b >= 1; b--) {
		if (bin_floor(b) / tw > remaining)
			continue;
		for (unsigned int k = 1; k < ctx->ntiers; k++) {
			unsigned int t = ctx->order[k];
			uint32_t i = ctx->lists[t][b].head;
			unsigned int miss = 0;

			while (i != NIL && miss++ < BIN_MISS_LIMIT) {
				struct cpage *pg = &ctx->pages[i];
				uint32_t next = pg->next;
				double prob, net;
				uint32_t c, h;
				int to;

				if (!*budget)
					return;
				(*budget)--;
				page_prefetch(ctx->pages, next);
				page_prefetch(ctx->pages, pg->prev);
				if (pg->flags & PF_MOVED) {
					i = next;
					continue;
				}
				if (!page_in_bin(ctx, i, (unsigned int)b, &h)) {
					i = next;
					continue;
				}
				prob = h / tw;
				if (prob <= 0 || prob > remaining) {
					i = next;
					continue;
				}
				if (tier_room(ctx, d)) {
					int ret = plan_add(ctx, pl, i, d);

					if (ret == -ENOSPC)
						return;
					if (!ret) {
						remaining -= prob;
						miss = 0;
					}
				} else {
					if (!ctx->prm.swap_pairs)
						return;
					/* a swap needs two plan slots and two pages of budget */
					if (pl->cap - pl->n < 2 ||
					    pl->bytes_left < 2.0 * (double)ctx->page_size)
						return;
					c = find_cold(ctx, d, prob, budget);
					if (c == NIL)
						return;
					to = tier_pick_lower(ctx, d);
					if (to < 0)
						return;
					net = prob - heat_of(ctx, &ctx->pages[c]) / tw;
					if (plan_add(ctx, pl, c, (unsigned int)to))
						return;
					if (plan_add(ctx, pl, i, d))
						return;
					remaining -= net;
					miss = 0;
				}
				if (remaining * tw < 1)
					return;
				i = next;
			}
		}
	}
}

void colloid_balance(struct colloid_ctx *ctx, struct plan *pl)
{
	uint64_t budget;

	if (ctx->direction == 0 || ctx->delta_p <= 0 || ctx->total_weight <= 0)
		return;
	budget = (uint64_t)(ctx->prm.scan_limit * (double)(pl->cap ? pl->cap : 1)) + 64;
	if (ctx->direction < 0)
		balance_out(ctx, pl, ctx->delta_p, &budget);
	else
		balance_in(ctx, pl, ctx->delta_p, &budget);
}
