// SPDX-License-Identifier: MIT
/*
 * core.c - context lifecycle, page lists, inputs, tick and step.
 *
 * Pages live in one intrusive list per (tier, hotness bin).  Bin b > 0 holds
 * pages whose decayed sample count ("heat") is in [2^(b-1), 2^b); bin 0 holds
 * pages never sampled (or cooled to zero).  Cooling is lazy, as in HeMem: a
 * global clock counts halvings and a page is halved by the difference when it
 * is next touched, so no input or tick ever walks all pages.
 *
 * Inputs are cheap because two logs defer work without changing any result:
 * colloid_sample() and colloid_hint_fault() only append to the input log,
 * which is applied in order (with prefetching) before anything reads or
 * changes policy state: any other entry point, or a full log.  Applying a
 * sample or fault updates the page's counts, bin,
 * hot flag and the per-list counts at once, but moves the page to its list
 * head through the touch log, which a tick or a placement change replays
 * (see "lists" below).  Identical inputs still give identical plans.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* entries of the input log (chosen: 64 KiB, enough to hide the page misses) */
#ifndef SLOG_CAP
#define SLOG_CAP 4096u
#endif
_Static_assert(SLOG_CAP >= 2, "a hint fault takes two input-log entries");
/* samples ahead whose page a sample-log flush prefetches */
#ifndef SLOG_PREFETCH
#define SLOG_PREFETCH 16u
#endif

/* entries ahead whose page, and whose page's neighbours, a flush prefetches */
#ifndef TLOG_PREFETCH_PAGE
#define TLOG_PREFETCH_PAGE 16u
#endif
#ifndef TLOG_PREFETCH_NB
#define TLOG_PREFETCH_NB 8u
#endif

/* bounds on the touch log's entries (chosen: 4 KiB .. 4 MiB of log) */
#ifndef TLOG_MIN
#define TLOG_MIN 1024u
#endif
#ifndef TLOG_MAX
#define TLOG_MAX (1u << 20)
#endif

int colloid_policy_info(const char *policy, const struct colloid_params *p,
			struct colloid_policy_info *info)
{
	const struct colloid_policy *pol = colloid_policy_find(policy);
	struct colloid_params def;

	if (!pol)
		return -ENOENT;
	if (!info)
		return -EINVAL;
	if (!p) {
		colloid_params_default(&def, pol->name);
		p = &def;
	} else if (colloid_params_check(p)) {
		return -EINVAL;
	}
	memset(info, 0, sizeof(*info));
	pol->info(p->policy + colloid_policy_base(pol), info);
	return 0;
}

/* ---- lists ---- */

/*
 * Every list is ordered by the time each page was last put at its head
 * (list_add_head is the only insertion).  So the lists are fully determined
 * by the sequence of "move page i to the head of its list" events, and only
 * the last such event of each page matters.  Inputs (samples, faults) do not
 * relink pages at once: they update the counts, the page's (tier, bin) and
 * the per-list counts, and append the page to the touch log.  pages_flush()
 * replays the log, last touch of each page only, oldest first, and leaves
 * the lists exactly as relinking at every input would have.  Ticks and
 * placement changes flush first and then relink at once (ctx->eager), so
 * every policy walks the same lists, in the same order, as before.
 */

/* link_del() and link_add_head() are in internal.h (a batch of samples relinks inline) */

/* Move page @i to the head of its (tier, bin) list now. */
void page_relink(struct colloid_ctx *ctx, uint32_t i)
{
	link_del(ctx, i);
	link_add_head(ctx, i);
}

/* Replay the touch log: link each logged page at the head of its list. */
void pages_flush(struct colloid_ctx *ctx)
{
	struct cpage *pages = ctx->pages;
	uint32_t *log = ctx->tlog, n = ctx->tlog_len, w = n, k;

	if (!n)
		return;
	/* newest first: keep each page's last touch, packed at the end, oldest first */
	for (k = n; k-- > 0;) {
		uint32_t i = log[k];

		if (pages[i].flags & PF_LOGGED) {
			pages[i].flags &= ~PF_LOGGED;
			log[--w] = i;
		}
	}
	for (k = w; k < n; k++) {
		uint32_t i = log[k];

		/* two stages: the page, then (once it is in) its list neighbours */
		if (k + TLOG_PREFETCH_PAGE < n)
			__builtin_prefetch(&pages[log[k + TLOG_PREFETCH_PAGE]], 1);
		if (k + TLOG_PREFETCH_NB < n) {
			const struct cpage *ahead = &pages[log[k + TLOG_PREFETCH_NB]];

			page_prefetch(pages, ahead->prev);
			page_prefetch(pages, ahead->next);
		}
		link_del(ctx, i);
		link_add_head(ctx, i);
	}
	ctx->tlog_len = 0;
}

/*
 * Apply the logged inputs, in order, with the pages of later ones
 * prefetched: the same policy calls colloid_sample() and
 * colloid_hint_fault() made before they logged them, on the same state,
 * since every entry point that reads or changes policy state flushes first.
 */
void samples_flush(struct colloid_ctx *ctx)
{
	const struct colloid_policy *pol = ctx->pol;
	const struct input_ent *log = ctx->slog;
	uint32_t n = ctx->slog_len;

	if (!n)
		return;
	ctx->slog_len = 0;
	for (uint32_t k = 0; k < n; k++) {
		if (k + SLOG_PREFETCH < n)
			__builtin_prefetch(&ctx->pages[log[k + SLOG_PREFETCH].page], 1);
		if (log[k].wx) {
			pol->sample(ctx, log[k].page, (int)(log[k].wx & 1), log[k].wx >> 1);
		} else {
			pol->fault(ctx, log[k].page, log[k].t, log[k + 1].t);
			k++;
		}
	}
}

/* Bring every input into the policy state (before any entry point that reads it). */
static inline void ctx_sync(struct colloid_ctx *ctx)
{
	if (ctx->slog_len)
		samples_flush(ctx);
}

/* ---- heat and cooling ---- */

/*
 * Re-bin page @i after cooling changed its counts: a page whose bin changes
 * moves to the head of its new list; one whose bin stays keeps its place.
 * Policies that judge hotness only when a page is sampled keep its flag.
 * (Samples take counts_add(), which always moves the page to the head.)
 */
static void page_rebin(struct colloid_ctx *ctx, uint32_t i)
{
	struct cpage *pg = &ctx->pages[i];
	unsigned int b = ctx->pol->single_list ? 0 : bin_of(heat_of(ctx, pg));

	if (b != pg->bin) {
		page_set_list(ctx, pg, pg->tier, b);
		page_touch(ctx, i);
	}
	if (!ctx->pol->hot_at_sample)
		page_set_flag_hot(ctx, i, ctx->pol->is_hot(ctx, pg));
}

/* Apply pending cooling to page @i (never moves it to a list head unless its bin changes). */
void page_refresh(struct colloid_ctx *ctx, uint32_t i)
{
	struct cpage *pg = &ctx->pages[i];
	uint32_t d = ctx->cool_clock - pg->clock;

	/* counts unchanged since the page was last binned: nothing to do */
	if (!d)
		return;
	pg->reads = shr32(pg->reads, d);
	pg->writes = shr32(pg->writes, d);
	pg->clock = ctx->cool_clock;
	page_rebin(ctx, i);
}

/*
 * Is page @i, after pending cooling, still in bin @b?  If not, re-bin it
 * (it will be met again in its right bin) and return false.  *@heat gets
 * its cooled heat.  Cheaper than page_refresh() for pages about to move.
 */
bool page_in_bin(struct colloid_ctx *ctx, uint32_t i, unsigned int b, uint32_t *heat)
{
	*heat = heat_of(ctx, &ctx->pages[i]);
	if (bin_of(*heat) == b)
		return true;
	page_refresh(ctx, i);
	return false;
}

void cool_global(struct colloid_ctx *ctx)
{
	ctx->cool_clock++;
	ctx->total_weight *= 0.5;
}

/* ---- tiers ---- */

uint64_t tier_room(const struct colloid_ctx *ctx, unsigned int t)
{
	const struct tier *tr = &ctx->tiers[t];
	uint64_t room = tr->used_pages >= tr->cap_pages ? 0 : tr->cap_pages - tr->used_pages;

	if (tr->free_valid && tr->free_reported < room)
		room = tr->free_reported;
	return room;
}

/* The next slower tier with room below @from (by unloaded latency), or -1. */
int tier_pick_lower(const struct colloid_ctx *ctx, unsigned int from)
{
	unsigned int k, pos = 0;

	for (k = 0; k < ctx->ntiers; k++)
		if (ctx->order[k] == from)
			pos = k;
	for (k = pos + 1; k < ctx->ntiers; k++)
		if (tier_room(ctx, ctx->order[k]) > 0)
			return (int)ctx->order[k];
	return -1;
}

static void page_move(struct colloid_ctx *ctx, uint32_t i, unsigned int to)
{
	struct cpage *pg = &ctx->pages[i];
	struct tier *from = &ctx->tiers[pg->tier], *dst = &ctx->tiers[to];
	bool hot = pg->flags & PF_HOT;
	unsigned int bin = pg->bin;

	ctx->tier_moves++;
	/* relinks at once: the caller flushed the touch log */
	link_del(ctx, i);
	/* apply pending cooling while unlinked: one relink instead of two */
	if (ctx->cool_clock != pg->clock) {
		uint32_t d = ctx->cool_clock - pg->clock;

		pg->reads = shr32(pg->reads, d);
		pg->writes = shr32(pg->writes, d);
		pg->clock = ctx->cool_clock;
		if (!ctx->pol->single_list)
			bin = bin_of(heat_of(ctx, pg));
	}
	if (hot)
		from->hot_pages--;
	from->used_pages--;
	if (from->free_valid)
		from->free_reported++;
	page_set_list(ctx, pg, to, bin);
	dst->used_pages++;
	if (dst->free_valid && dst->free_reported)
		dst->free_reported--;
	if (hot)
		dst->hot_pages++;
	link_add_head(ctx, i);
}

/*
 * Append a move of @page to tier @to.  Returns 0, -ENOSPC when the plan
 * array or the byte budget is exhausted (stop planning), or -EAGAIN when
 * this particular move is impossible (no room in @to, same tier, already
 * moved this tick).
 */
int plan_promote(struct colloid_ctx *ctx, struct plan *pl, uint32_t page, unsigned int d, int full,
		 uint32_t (*find_cold)(struct colloid_ctx *ctx, uint64_t *budget), uint64_t *budget)
{
	if (full) {
		uint32_t c;
		int to;

		if (pl->cap - pl->n < 2 || pl->bytes_left < 2.0 * (double)ctx->page_size)
			return 1;
		c = find_cold(ctx, budget);
		if (c == NIL)
			return 1;
		to = tier_pick_lower(ctx, d);
		if (to < 0 || plan_add(ctx, pl, c, (unsigned int)to))
			return 1;
	}
	return plan_add(ctx, pl, page, d) == -ENOSPC;
}

int plan_add(struct colloid_ctx *ctx, struct plan *pl, uint32_t page, unsigned int to)
{
	struct cpage *pg = &ctx->pages[page];

	if (pl->n >= pl->cap || pl->bytes_left < (double)ctx->page_size)
		return -ENOSPC;
	if (pg->tier == to || (pg->flags & PF_MOVED) || !tier_room(ctx, to))
		return -EAGAIN;
	pl->moves[pl->n].page = page;
	pl->moves[pl->n].from = pg->tier;
	pl->moves[pl->n].to = (uint8_t)to;
	pl->n++;
	pl->bytes_left -= (double)ctx->page_size;
	pl->bytes += ctx->page_size;
	page_move(ctx, page, to);
	pg->flags |= PF_MOVED;
	return 0;
}

/* ---- latency ---- */

double tier_lat(const struct colloid_ctx *ctx, unsigned int t)
{
	const struct tier *tr = &ctx->tiers[t];

	if (tr->have_obs && tr->arr > 0)
		return tr->occ / tr->arr;
	return tr->unloaded;
}

bool lat_ready(const struct colloid_ctx *ctx)
{
	if (!ctx->tiers[ctx->dflt].have_obs)
		return false;
	for (unsigned int t = 0; t < ctx->ntiers; t++)
		if (t != ctx->dflt && ctx->tiers[t].have_obs)
			return true;
	return false;
}

/*
 * Default-tier latency and rate, and the alternate tiers' combined rate and
 * rate-weighted mean latency (with two tiers: simply the other tier).
 */
void lat_pair(const struct colloid_ctx *ctx, double *ld, double *la, double *rd, double *ra)
{
	double sum_r = 0, sum_rl = 0, min_l = INFINITY;

	*ld = tier_lat(ctx, ctx->dflt);
	*rd = ctx->tiers[ctx->dflt].rate;
	for (unsigned int t = 0; t < ctx->ntiers; t++) {
		const struct tier *tr = &ctx->tiers[t];

		if (t == ctx->dflt || !tr->have_obs)
			continue;
		sum_r += tr->rate;
		sum_rl += tr->rate * tier_lat(ctx, t);
		if (tier_lat(ctx, t) < min_l)
			min_l = tier_lat(ctx, t);
	}
	*ra = sum_r;
	*la = sum_r > 0 ? sum_rl / sum_r : min_l;
}

/* ---- public: lifecycle ---- */

int colloid_config_check(const struct colloid_config *cfg)
{
	unsigned int t;

	if (!cfg || !cfg->policy)
		return -EINVAL;
	if (!colloid_policy_find(cfg->policy))
		return -ENOENT;
	if ((cfg->colloid != 0 && cfg->colloid != 1) || cfg->ntiers < 2 ||
	    cfg->ntiers > COLLOID_MAX_TIERS || cfg->npages == 0 ||
	    cfg->npages >= UINT32_MAX || cfg->page_size < 4096 ||
	    (cfg->page_size & (cfg->page_size - 1)) || cfg->init_tier >= cfg->ntiers)
		return -EINVAL;
	for (t = 0; t < cfg->ntiers; t++)
		if (!isfinite(cfg->tiers[t].unloaded_latency_ns) ||
		    cfg->tiers[t].unloaded_latency_ns <= 0)
			return -EINVAL;
	return cfg->params ? colloid_params_check(cfg->params) : 0;
}

int colloid_new(const struct colloid_config *cfg, struct colloid_ctx **out)
{
	const struct colloid_policy *pol;
	struct colloid_ctx *ctx;
	unsigned int t, k;
	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	ret = colloid_config_check(cfg);
	if (ret)
		return ret;
	pol = colloid_policy_find(cfg->policy);

	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->pages = malloc(cfg->npages * sizeof(*ctx->pages));
	if (!ctx->pages)
		goto nomem;
	/* the touch log: a flush costs O(entries), so its size only sets how
	 * often a long sample stream flushes between ticks */
	ctx->tlog_cap = cfg->npages < TLOG_MIN ? TLOG_MIN :
			cfg->npages > TLOG_MAX ? TLOG_MAX : (uint32_t)cfg->npages;
	ctx->tlog = malloc((size_t)ctx->tlog_cap * sizeof(*ctx->tlog));
	ctx->slog = malloc(SLOG_CAP * sizeof(*ctx->slog));
	if (!ctx->tlog || !ctx->slog)
		goto nomem;
	if (pol->priv_size) {
		ctx->priv = calloc(1, pol->priv_size);
		if (!ctx->priv)
			goto nomem;
	}

	ctx->pol = pol;
	if (cfg->params)
		ctx->prm = *cfg->params;
	else
		colloid_params_default(&ctx->prm, pol->name);
	ctx->own = ctx->prm.policy + colloid_policy_base(pol);
	ctx->colloid = cfg->colloid;
	ctx->ntiers = cfg->ntiers;
	ctx->npages = (uint32_t)cfg->npages;
	ctx->page_size = cfg->page_size;

	/* stable insertion sort of tiers by unloaded latency */
	for (t = 0; t < ctx->ntiers; t++) {
		double l = cfg->tiers[t].unloaded_latency_ns;

		for (k = t; k > 0 && cfg->tiers[ctx->order[k - 1]].unloaded_latency_ns > l; k--)
			ctx->order[k] = ctx->order[k - 1];
		ctx->order[k] = t;
	}
	ctx->dflt = ctx->order[0];

	for (t = 0; t < ctx->ntiers; t++) {
		ctx->tiers[t].cap_pages = cfg->tiers[t].capacity_bytes / cfg->page_size;
		ctx->tiers[t].unloaded = cfg->tiers[t].unloaded_latency_ns;
		for (k = 0; k < NB; k++)
			ctx->lists[t][k].head = ctx->lists[t][k].tail = NIL;
	}
	for (uint32_t i = 0; i < ctx->npages; i++) {
		struct cpage *pg = &ctx->pages[i];

		pg->prev = i ? i - 1 : NIL;
		pg->next = i + 1 < ctx->npages ? i + 1 : NIL;
		pg->reads = pg->writes = pg->clock = 0;
		pg->tier = (uint8_t)cfg->init_tier;
		pg->bin = pg->flags = pg->lbin = 0;
	}
	ctx->lists[cfg->init_tier][0].head = 0;
	ctx->lists[cfg->init_tier][0].tail = ctx->npages - 1;
	ctx->lists[cfg->init_tier][0].n = ctx->npages;
	ctx->tiers[cfg->init_tier].used_pages = ctx->npages;

	ctx->p = 0.5;
	ctx->p_lo = 0;
	ctx->p_hi = 1;
	if (pol->init && pol->init(ctx))
		goto nomem;
	*out = ctx;
	return 0;
nomem:
	/* ctx->pol is set once everything but the policy's init is in place */
	if (ctx->pol && pol->fini)
		pol->fini(ctx);
	free(ctx->priv);
	free(ctx->slog);
	free(ctx->tlog);
	free(ctx->pages);
	free(ctx);
	return -ENOMEM;
}

void colloid_destroy(struct colloid_ctx *ctx)
{
	if (!ctx)
		return;
	if (ctx->pol->fini)
		ctx->pol->fini(ctx);
	free(ctx->priv);
	free(ctx->slog);
	free(ctx->tlog);
	free(ctx->pages);
	free(ctx);
}

int colloid_ctx_param_set(struct colloid_ctx *ctx, const char *name, double value)
{
	struct colloid_params np;
	int ret;

	if (!ctx)
		return -EINVAL;
	np = ctx->prm;
	ret = colloid_param_set(&np, name, value);
	if (ret)
		return ret;
	if (colloid_params_check(&np))
		return -EINVAL;
	ctx_sync(ctx);
	ctx->prm = np;
	for (unsigned int i = 0; ctx->pol->param_changed && i < ctx->pol->nparams; i++)
		if (!strcmp(ctx->pol->params[i].name, name))
			ctx->pol->param_changed(ctx, i, value);
	return 0;
}

int colloid_ctx_params(const struct colloid_ctx *ctx, struct colloid_params *p)
{
	if (!ctx || !p)
		return -EINVAL;
	*p = ctx->prm;
	return 0;
}

/* ---- public: placement ---- */

int colloid_page_set_tier(struct colloid_ctx *ctx, uint64_t page, unsigned int tier)
{
	if (!ctx || page >= ctx->npages || tier >= ctx->ntiers)
		return -EINVAL;
	if (ctx->pages[page].tier != tier) {
		ctx_sync(ctx);
		pages_flush(ctx);
		page_move(ctx, (uint32_t)page, tier);
	}
	return 0;
}

int colloid_page_tier(const struct colloid_ctx *ctx, uint64_t page)
{
	if (!ctx || page >= ctx->npages)
		return -EINVAL;
	return ctx->pages[page].tier;
}

int colloid_tier_set_capacity(struct colloid_ctx *ctx, unsigned int tier, uint64_t bytes)
{
	if (!ctx || tier >= ctx->ntiers)
		return -EINVAL;
	ctx_sync(ctx);
	ctx->tiers[tier].cap_pages = bytes / ctx->page_size;
	return 0;
}

int colloid_tier_set_free(struct colloid_ctx *ctx, unsigned int tier, uint64_t bytes)
{
	if (!ctx || tier >= ctx->ntiers)
		return -EINVAL;
	ctx_sync(ctx);
	ctx->tiers[tier].free_reported = bytes / ctx->page_size;
	ctx->tiers[tier].free_valid = true;
	return 0;
}

/* ---- public: observations ---- */

int colloid_sample(struct colloid_ctx *ctx, uint64_t page, int is_write, uint32_t weight)
{
	if (!ctx || page >= ctx->npages || weight == 0 || (is_write != 0 && is_write != 1))
		return -EINVAL;
	ctx->samples_total += weight;
	if (weight > UINT32_MAX >> 1) {
		/* does not fit a log entry: apply at once, after the logged ones */
		ctx_sync(ctx);
		ctx->pol->sample(ctx, (uint32_t)page, is_write, weight);
		return 0;
	}
	ctx->slog[ctx->slog_len].page = (uint32_t)page;
	ctx->slog[ctx->slog_len].wx = weight << 1 | (uint32_t)is_write;
	if (++ctx->slog_len == SLOG_CAP)
		samples_flush(ctx);
	return 0;
}

/*
 * Is every one of @pages[0..n) below @npages?  One pass with no early exit,
 * eight pages at a time in two vectors of four (GCC's vector extension:
 * plain SSE2 on x86-64, no -march): a sample batch's check costs about one
 * instruction a page instead of six.
 */
static bool pages_in_range(const uint32_t *pages, size_t n, uint32_t npages)
{
	typedef uint32_t v4u __attribute__((vector_size(16)));
	const uint32_t last = npages - 1;	/* x >= npages is x > last (one compare, not two) */
	const v4u lim = { last, last, last, last };
	v4u bad = { 0, 0, 0, 0 };
	uint32_t bad1 = 0;
	size_t k = 0;

	if (!npages)
		return !n;
	for (; k + 8 <= n; k += 8) {
		v4u a, b;

		memcpy(&a, pages + k, sizeof(a));	/* unaligned loads */
		memcpy(&b, pages + k + 4, sizeof(b));
		bad |= (v4u)(a > lim) | (v4u)(b > lim);
	}
	for (; k < n; k++)
		bad1 |= pages[k] > last;
	return !(bad[0] | bad[1] | bad[2] | bad[3] | bad1);
}

int colloid_sample_many(struct colloid_ctx *ctx, const uint32_t *pages, size_t n, int is_write,
			uint32_t weight)
{
	const struct colloid_policy *pol;

	if (!ctx || (n && !pages) || weight == 0 || (is_write != 0 && is_write != 1))
		return -EINVAL;
	if (!pages_in_range(pages, n, ctx->npages))
		return -EINVAL;
	if (!n)
		return 0;
	/* the logged inputs come first, as if these had been logged after them */
	ctx_sync(ctx);
	ctx->samples_total += (uint64_t)n * weight;
	pol = ctx->pol;
	if (pol->sample_many) {
		pol->sample_many(ctx, pages, n, is_write, weight);
		return 0;
	}
	for (size_t k = 0; k < n; k++) {
		if (k + SAMPLE_PREFETCH < n)
			__builtin_prefetch(&ctx->pages[pages[k + SAMPLE_PREFETCH]], 1);
		pol->sample(ctx, pages[k], is_write, weight);
	}
	return 0;
}

int colloid_hint_fault(struct colloid_ctx *ctx, uint64_t page, uint64_t since_scan_ns,
		       uint64_t now_ns)
{
	struct input_ent *e;

	if (!ctx || page >= ctx->npages)
		return -EINVAL;
	ctx->faults_total++;
	if (ctx->slog_len + 2 > SLOG_CAP)
		samples_flush(ctx);
	e = &ctx->slog[ctx->slog_len];
	e[0].page = e[1].page = (uint32_t)page;
	e[0].wx = e[1].wx = 0;
	e[0].t = since_scan_ns;
	e[1].t = now_ns;
	ctx->slog_len += 2;
	/* keep room for the next sample */
	if (ctx->slog_len == SLOG_CAP)
		samples_flush(ctx);
	return 0;
}

int colloid_observe_cha(struct colloid_ctx *ctx, unsigned int tier, double occupancy,
			double arrivals, uint64_t interval_ns)
{
	struct tier *tr;
	double a, rate;

	if (!ctx || tier >= ctx->ntiers || !interval_ns || !isfinite(occupancy) ||
	    !isfinite(arrivals) || occupancy < 0 || arrivals < 0)
		return -EINVAL;
	/* no sample path reads latencies today; syncing keeps it from mattering */
	ctx_sync(ctx);
	tr = &ctx->tiers[tier];
	rate = arrivals / ((double)interval_ns * 1e-9);
	if (!tr->have_obs) {
		/* start from the first observation, not from zero */
		tr->occ = occupancy;
		tr->arr = arrivals;
		tr->rate = rate;
		tr->have_obs = true;
		return 0;
	}
	a = ctx->prm.ewma_alpha;
	tr->occ = a * occupancy + (1 - a) * tr->occ;
	tr->arr = a * arrivals + (1 - a) * tr->arr;
	tr->rate = a * rate + (1 - a) * tr->rate;
	return 0;
}

int colloid_uses_latency(const struct colloid_ctx *ctx)
{
	/* lat_ready()/lat_pair() are reached only from colloid_tick()'s Colloid branch (balance.c)
	 * and policy_damon.c's user_input goals, which exist only with ctx->colloid; the C test
	 * latency_unread checks that unfed and fed contexts without Colloid plan alike */
	return ctx && ctx->colloid;
}

int colloid_observe_ns(struct colloid_ctx *ctx, unsigned int tier, double latency_ns,
		       double accesses, uint64_t interval_ns)
{
	if (!isfinite(latency_ns) || latency_ns < 0 || !isfinite(accesses) || accesses < 0)
		return -EINVAL;
	return colloid_observe_cha(ctx, tier, latency_ns * accesses, accesses, interval_ns);
}

/* ---- public: decisions ---- */

int colloid_tick(struct colloid_ctx *ctx, uint64_t now_ns, uint64_t quantum_ns,
		 struct colloid_move *plan, size_t cap, size_t *n_out)
{
	struct plan pl;
	double q_s, limit;

	if (!ctx || !quantum_ns || !n_out || (cap && !plan))
		return -EINVAL;
	*n_out = 0;
	q_s = (double)quantum_ns * 1e-9;
	limit = ctx->prm.migrate_limit_Bps * q_s;
	pl.moves = plan;
	pl.cap = cap;
	pl.n = 0;
	pl.bytes = 0;
	pl.bytes_left = limit;

	/* the policies walk the lists: link every touched page, then relink at once */
	ctx_sync(ctx);
	pages_flush(ctx);
	ctx->eager = true;
	if (ctx->colloid)
		colloid_search_update(ctx);

	if (ctx->colloid && !ctx->pol->sign_only && lat_ready(ctx)) {
		double ld, la, rd, ra, budget;

		lat_pair(ctx, &ld, &la, &rd, &ra);
		budget = ctx->delta_p * (rd + ra) * ctx->prm.bytes_per_access * q_s;
		if (budget > limit)
			budget = limit;
		pl.bytes_left = budget;
		ctx->last_budget_bytes = budget;
		colloid_balance(ctx, &pl);
	} else {
		ctx->last_budget_bytes = limit;
		ctx->pol->tick(ctx, &pl, now_ns, quantum_ns);
	}

	ctx->eager = false;
	for (size_t k = 0; k < pl.n; k++)
		ctx->pages[plan[k].page].flags &= ~PF_MOVED;
	ctx->last_plan_moves = pl.n;
	ctx->last_plan_bytes = pl.bytes;
	ctx->moves_total += pl.n;
	ctx->quanta++;
	*n_out = pl.n;
	return 0;
}

int colloid_step(struct colloid_ctx *ctx, const struct colloid_ops *ops, void *priv,
		 uint64_t now_ns, uint64_t quantum_ns, struct colloid_move *buf, size_t cap,
		 size_t *applied)
{
	size_t n = 0, done;
	int ret;

	if (!ctx || !ops || (cap && !buf))
		return -EINVAL;
	if (applied)
		*applied = 0;
	if (ops->observe) {
		ret = ops->observe(priv, ctx, now_ns, quantum_ns);
		if (ret)
			return ret;
	}
	ret = colloid_tick(ctx, now_ns, quantum_ns, buf, cap, &n);
	if (ret)
		return ret;
	if (!n || !ops->migrate) {
		if (applied)
			*applied = ops->migrate ? 0 : n;
		return 0;
	}
	done = 0;
	ret = ops->migrate(priv, buf, n, &done);
	if (done > n)
		done = n;
	/* put pages whose move failed back where they are */
	for (size_t k = n; k > done; k--)
		colloid_page_set_tier(ctx, buf[k - 1].page, buf[k - 1].from);
	if (applied)
		*applied = done;
	return ret;
}

/* ---- public: observability ---- */

/*
 * The getters below are const for the caller: they apply logged samples
 * first, which changes no observable state (the context was allocated
 * non-const by colloid_new(), so writing through it is defined).
 */
int colloid_get_state(const struct colloid_ctx *ctx, struct colloid_state *st)
{
	if (!ctx || !st)
		return -EINVAL;
	ctx_sync((struct colloid_ctx *)ctx);
	memset(st, 0, sizeof(*st));
	st->default_tier = ctx->dflt;
	st->p = ctx->p;
	st->p_lo = ctx->p_lo;
	st->p_hi = ctx->p_hi;
	st->delta_p = ctx->delta_p;
	st->direction = ctx->direction;
	for (unsigned int t = 0; t < ctx->ntiers; t++) {
		st->lat[t] = tier_lat(ctx, t);
		st->rate[t] = ctx->tiers[t].rate;
		st->pages[t] = ctx->tiers[t].used_pages;
		st->hot_pages[t] = ctx->tiers[t].hot_pages;
		st->used_bytes[t] = ctx->tiers[t].used_pages * ctx->page_size;
		st->free_bytes[t] = tier_room(ctx, t) * ctx->page_size;
	}
	st->last_budget_bytes = ctx->last_budget_bytes;
	st->last_plan_moves = ctx->last_plan_moves;
	st->last_plan_bytes = ctx->last_plan_bytes;
	st->hot_threshold = ctx->pol->hot_threshold(ctx);
	st->total_weight = ctx->total_weight;
	st->quanta = ctx->quanta;
	st->moves_total = ctx->moves_total;
	st->samples_total = ctx->samples_total;
	st->faults_total = ctx->faults_total;
	st->ntiers = ctx->ntiers;
	st->colloid = ctx->colloid;
	return 0;
}

const char *colloid_ctx_policy(const struct colloid_ctx *ctx)
{
	return ctx ? ctx->pol->name : NULL;
}

int colloid_ctx_policy_info(const struct colloid_ctx *ctx, struct colloid_policy_info *info)
{
	if (!ctx || !info)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	ctx->pol->info(ctx->own, info);
	return 0;
}

double colloid_page_prob(const struct colloid_ctx *ctx, uint64_t page)
{
	double h;

	if (!ctx || page >= ctx->npages)
		return NAN;
	ctx_sync((struct colloid_ctx *)ctx);
	if (ctx->total_weight <= 0)
		return 0;
	h = heat_of(ctx, &ctx->pages[page]) / ctx->total_weight;
	return h > 1 ? 1 : h;
}
