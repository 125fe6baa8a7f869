// SPDX-License-Identifier: MIT
/*
 * policy_damon.c - DAMON-based memory tiering (Linux >= 6.11, DAMOS
 * migrate_hot / migrate_cold), as the kernel does it, on modelled tiers.
 *
 * Sources (upstream Linux; what each part below follows):
 * - mm/damon/core.c: kdamond_fn() (one access check per region per sampling
 *   interval; every aggregation interval: merge, apply schemes, reset,
 *   split), kdamond_merge_regions() / damon_merge_regions_of() (age, the
 *   threshold max_nr_accesses / 10 doubled while there are more than
 *   max_nr_regions, merged regions no larger than damon_region_sz_limit() =
 *   total / min_nr_regions, size-weighted nr_accesses and age),
 *   kdamond_split_regions() / damon_split_regions_of() (only while at most
 *   max_nr_regions / 2 regions; into two, or three when the count did not
 *   change and is below max_nr_regions / 3; cut at a random 1/10 .. 9/10),
 *   damos_adjust_quota() (the score histogram and min_score: the hottest
 *   regions first, up to the effective quota), damos_apply_scheme() (a
 *   region is split where the quota runs out; the quota is charged the
 *   region's size, applied or not), damos_set_effective_quota(),
 *   damos_quota_score() (the highest goal score) and
 *   damon_feed_loop_next_input() (the goal's proportional feedback loop).
 * - mm/damon/ops-common.c: damon_hot_score() / damon_cold_score() (the
 *   priority of a region: nr_accesses and log2 of its age in seconds, each
 *   weighted; the age counts toward coldness when nr_accesses is 0).
 * - mm/damon/paddr.c: the physical address space (damon_pa_mkold() /
 *   damon_pa_young() on the folio of one sampled address; migrate_hot /
 *   migrate_cold move a region's folios to target_nid).
 * - Documentation/mm/damon/design.rst, Documentation/admin-guide/mm/damon/
 *   usage.rst: the same, and the defaults of damon_new_ctx() (sampling
 *   5 ms, aggregation 100 ms, 10 .. 1000 regions).
 * - samples/damon/mtier.c: the tiering setup modelled here (also
 *   systems/damon/kernel.py, docs/damon.md): one monitor on the
 *   alternate node's memory with migrate_hot -> default node for regions
 *   with >= 1 access per aggregation, one on the default node's memory with
 *   migrate_cold -> alternate node for regions with none; apply interval
 *   1 s; quota 200 MiB per 1 s, weights nr_accesses 100 / age 100 / size 0;
 *   goals node_mem_used_bp 9970 (promotion) and node_mem_free_bp 50
 *   (demotion) of the default node (Linux >= 6.16).
 *
 * Model: each tier is a node of frames (its capacity in pages); a page
 * occupies one frame of the tier it is in, and a migration frees its frame
 * and takes a free one of the target node, as the page allocator would.
 * DAMON's regions are ranges of frames.  Every quantum (= the sampling
 * interval) the policy names one sampled frame's page per region
 * (colloid_access_checks()) and the mechanism answers whether it was
 * accessed (colloid_access_result()): DAMON's access check, modelled by
 * the mechanism as TPP's scanner is.  A free frame is never accessed.
 * Not modelled: the young page filters of mtier.c (a scheme acts on every
 * page of a region it picks), the time a migration takes (the plan is
 * bounded by migrate_limit_Bps: what a scheme picks is queued and moved at
 * that rate), the aggregation-interval auto-tuning (intervals_goal).
 *
 * With Colloid (Colloid's rule through DAMOS quota goals, docs/damon.md):
 * the node goals are replaced by user_input goals (target 10000) fed the
 * measured latency ratio at every quota reset: the promotion scheme's
 * current value is 10000 L_D / L_A, so its quota grows while the default
 * tier is the faster one and shrinks to the minimum once it is the slower
 * one; a third scheme on the default node, migrate_hot -> alternate node
 * (same pattern as the promotion), has 10000 L_A / L_D, so it moves hot
 * regions away from the default tier only while that tier is the slower
 * one.  The cold demotion keeps its fixed quota.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* DAMON's constants (colloid/README.md gives each default's source) */
enum {
	SAMPLE_US, AGGR_US, MIN_NR_REGIONS, MAX_NR_REGIONS, APPLY_US, QUOTA_BYTES, RESET_MS,
	WEIGHT_NR, WEIGHT_AGE, PROMO_MIN_NR, NODE_GOALS, USED_BP, FREE_BP, CHECK_BYTES, NPARAMS
};

static const struct colloid_param_desc damon_params[NPARAMS] = {
	/* damon_new_ctx() (mm/damon/core.c) and mtier.c: 5 ms, 100 ms, 10 .. 1000 */
	[SAMPLE_US] = { "damon_sample_us", 5000, 1, 1e9,
			"DAMON: sampling interval, one access check per region; the tick period (us)" },
	[AGGR_US] = { "damon_aggr_us", 100000, 1, 1e10, "DAMON: aggregation interval (us)" },
	[MIN_NR_REGIONS] = { "damon_min_nr_regions", 10, 1, 1e6, "DAMON: fewest monitoring regions per node" },
	[MAX_NR_REGIONS] = { "damon_max_nr_regions", 1000, 3, 1e6, "DAMON: most monitoring regions per node" },
	/* mtier.c: apply interval 1 s, 200 MiB per 1 s, weights 0 / 100 / 100 */
	[APPLY_US] = { "damon_apply_interval_us", 1000000, 1, 1e10,
		       "DAMON: DAMOS apply interval of the schemes (us)" },
	[QUOTA_BYTES] = { "damon_quota_bytes", 200.0 * 1024 * 1024, 0, 1e18,
			  "DAMON: size quota of each scheme per reset interval (bytes)" },
	[RESET_MS] = { "damon_quota_reset_ms", 1000, 1, 1e9, "DAMON: quota reset interval (ms)" },
	[WEIGHT_NR] = { "damon_weight_nr_accesses", 100, 0, 1e6,
			"DAMON: prioritization weight of nr_accesses (permil)" },
	[WEIGHT_AGE] = { "damon_weight_age", 100, 0, 1e6, "DAMON: prioritization weight of age (permil)" },
	/* mtier.c: promote regions with nr_accesses in [1, max], demote [0, 0] */
	[PROMO_MIN_NR] = { "damon_promote_min_nr_accesses", 1, 1, 1e6,
			   "DAMON: fewest accesses per aggregation of a region to promote" },
	[NODE_GOALS] = { "damon_node_goals", 1, 0, 1,
			 "DAMON: 1 = mtier.c's node memory quota goals (Linux >= 6.16), without Colloid" },
	[USED_BP] = { "damon_promote_used_bp", 9970, 1, 10000,
		      "DAMON: promotion goal, default node's used memory (basis points)" },
	[FREE_BP] = { "damon_demote_free_bp", 50, 1, 10000,
		      "DAMON: demotion goal, default node's free memory (basis points)" },
	/* PAGE_SIZE: damon_pa_young() checks the folio of one address; a base page */
	[CHECK_BYTES] = { "damon_check_bytes", 4096, 64, 1073741824.0,
			  "DAMON: bytes one access check covers (base page; a huge page with THP) (bytes)" },
};

/* mm/damon/ops-common.c and include/linux/damon.h */
#define DAMON_MAX_SUBSCORE 100
#define DAMON_MAX_AGE_IN_LOG 32
#define DAMOS_MAX_SCORE 99
#define GOAL_BP 10000.0	/* damon_feed_loop_next_input()'s goal and min_input */

struct dregion {
	uint32_t start, end;	/* frames [start, end) */
	uint32_t nr_accesses, last_nr_accesses, age;
	uint32_t sfr, spage;	/* sampled frame, its page when checked (NIL: free) */
};

/* one kdamond: a node's frames and its regions */
struct dmon {
	unsigned int tier;
	uint32_t nframes, nfree;
	uint32_t *frame;	/* frame -> page, NIL when free */
	uint32_t *freel;	/* stack of free frames */
	/* frame -> the hot flag mark_hot() last gave its page (0 or 1), or
	 * saw it empty with, 0xff when unknown: set whenever the frame's page
	 * changes.  Only
	 * mark_hot() sets DAMON's hot flags (hot_at_sample) and a move keeps
	 * them, so a frame whose entry is the flag its region now gives
	 * needs no visit */
	uint8_t *fhot;
	struct dregion *r, *tmp;
	uint32_t n, rcap, last_nr;
};

enum { G_NONE, G_USED, G_FREE, G_USER_LD_LA, G_USER_LA_LD };

/* one DAMOS scheme */
struct scheme {
	unsigned int mon, to;
	bool hot;		/* migrate_hot (priority by hotness), else migrate_cold */
	bool promo_pattern;	/* nr_accesses in [promote_min, max], else [0, 0] */
	int goal;
	double esz_bp, esz, charged;
	uint64_t window;
	bool started;
};

struct damon {
	struct dmon m[2];	/* 0: the alternate node (promotion), 1: the default node */
	uint32_t *pframe;	/* page -> frame in its tier, NIL: none */
	uint8_t *ftier;		/* page -> tier of that frame, 0xff: none */
	uint8_t *young;		/* checked page was accessed (colloid_access_result()) */
	struct scheme s[3];
	unsigned int nsch;
	uint64_t rng;
	uint64_t next_aggr, next_apply;
	uint64_t *ring;		/* queued moves: page | to << 32 */
	uint32_t rhead, rlen;
	bool started;
	/*
	 * The frames match the tiers (a frames_sync() pass would change
	 * nothing) while @synced and ctx->tier_moves == @synced_moves:
	 * @synced when every page in a monitored tier had a frame there after
	 * the last pass, and drain() counts its own moves in @synced_moves
	 * (it moves their frames along); any other move makes the next
	 * aggregation sync again.
	 */
	bool synced;
	uint64_t synced_moves;
};

static inline struct damon *D(const struct colloid_ctx *ctx)
{
	return ctx->priv;
}

/* damon_rand(l, r): [l, r); xorshift64*, fixed seed (identical inputs, identical plans) */
static uint32_t drand(struct damon *d, uint32_t l, uint32_t r)
{
	uint64_t x = d->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	d->rng = x;
	return r > l ? l + (uint32_t)((x * 0x2545F4914F6CDD1Dull >> 32) % (r - l)) : l;
}

static uint32_t max_nr_accesses(const double *own)
{
	double v = floor(own[AGGR_US] / own[SAMPLE_US]);

	return v < 1 ? 1 : v > 1e9 ? 1000000000u : (uint32_t)v;
}

static int damon_params_check(const double *own)
{
	if (own[MIN_NR_REGIONS] > own[MAX_NR_REGIONS] || own[AGGR_US] < own[SAMPLE_US])
		return -EINVAL;
	return 0;
}

static int damon_init(struct colloid_ctx *ctx)
{
	struct damon *d = D(ctx);
	uint32_t rcap = (uint32_t)fmax(ctx->own[MAX_NR_REGIONS], ctx->own[MIN_NR_REGIONS]) + 16;

	d->pframe = malloc((size_t)ctx->npages * sizeof(*d->pframe));
	d->ftier = malloc((size_t)ctx->npages);
	d->young = calloc((size_t)ctx->npages, 1);
	d->ring = malloc((size_t)ctx->npages * sizeof(*d->ring));
	if (!d->pframe || !d->ftier || !d->young || !d->ring)
		return -ENOMEM;
	for (unsigned int k = 0; k < 2; k++) {
		struct dmon *m = &d->m[k];
		uint64_t nf;

		m->tier = ctx->order[k == 0 && ctx->ntiers > 1 ? 1 : 0];
		nf = ctx->tiers[m->tier].cap_pages;
		if (nf > ctx->npages)
			nf = ctx->npages;	/* no page could use more */
		if (!nf)
			nf = 1;
		m->nframes = (uint32_t)nf;
		m->rcap = rcap < m->nframes + 16 ? rcap : m->nframes + 16;
		m->frame = malloc((size_t)m->nframes * sizeof(*m->frame));
		m->freel = malloc((size_t)m->nframes * sizeof(*m->freel));
		m->fhot = malloc((size_t)m->nframes);
		m->r = malloc((size_t)m->rcap * sizeof(*m->r));
		m->tmp = malloc((size_t)m->rcap * sizeof(*m->tmp));
		if (!m->frame || !m->freel || !m->fhot || !m->r || !m->tmp)
			return -ENOMEM;
	}
	d->rng = 0x9E3779B97F4A7C15ull;
	return 0;
}

static void damon_fini(struct colloid_ctx *ctx)
{
	struct damon *d = D(ctx);

	for (unsigned int k = 0; k < 2; k++) {
		free(d->m[k].frame);
		free(d->m[k].freel);
		free(d->m[k].fhot);
		free(d->m[k].r);
		free(d->m[k].tmp);
	}
	free(d->pframe);
	free(d->ftier);
	free(d->young);
	free(d->ring);
}

/* ---- frames ---- */

static struct dmon *mon_of_tier(struct damon *d, unsigned int t)
{
	return d->m[0].tier == t ? &d->m[0] : d->m[1].tier == t ? &d->m[1] : NULL;
}

static void frame_release(struct damon *d, uint32_t p)
{
	struct dmon *m;

	if (d->ftier[p] == 0xff)
		return;
	m = mon_of_tier(d, d->ftier[p]);
	if (m && d->pframe[p] != NIL) {
		m->frame[d->pframe[p]] = NIL;
		m->fhot[d->pframe[p]] = 0xff;
		m->freel[m->nfree++] = d->pframe[p];
	}
	d->pframe[p] = NIL;
	d->ftier[p] = 0xff;
}

/* false when tier @t is monitored but has no free frame (the page gets none) */
static bool frame_take(struct damon *d, uint32_t p, unsigned int t)
{
	struct dmon *m = mon_of_tier(d, t);

	if (!m)
		return true;	/* not in a monitored node: not seen by DAMON */
	if (!m->nfree)
		return false;
	d->pframe[p] = m->freel[--m->nfree];
	d->ftier[p] = (uint8_t)t;
	m->frame[d->pframe[p]] = p;
	m->fhot[d->pframe[p]] = 0xff;
	return true;
}

/* frames follow the tiers the pages are in (colloid_page_set_tier() included) */
static void frames_sync(struct colloid_ctx *ctx)
{
	struct damon *d = D(ctx);
	/* in locals: the byte stores of frame_release() and frame_take() may
	 * alias anything, and the compiler would reload them at every page */
	const struct cpage *pages = ctx->pages;
	const uint8_t *ftier = d->ftier;
	const uint32_t npages = ctx->npages;
	bool ok = true;

	/* no page moved but by drain() since a pass that framed every page: nothing to do */
	if (d->synced && d->synced_moves == ctx->tier_moves)
		return;
	for (uint32_t p = 0; p < npages; p++)
		if (ftier[p] != pages[p].tier) {
			frame_release(d, p);
			ok &= frame_take(d, p, pages[p].tier);
		}
	d->synced = ok;
	d->synced_moves = ctx->tier_moves;
}

/* first tick: the nodes' frames, pages in page order, and the initial regions */
static void damon_start(struct colloid_ctx *ctx, uint64_t now)
{
	struct damon *d = D(ctx);

	for (unsigned int k = 0; k < 2; k++) {
		struct dmon *m = &d->m[k];
		uint32_t n = (uint32_t)ctx->own[MIN_NR_REGIONS];

		for (uint32_t f = 0; f < m->nframes; f++) {
			m->frame[f] = NIL;
			m->fhot[f] = 0xff;
			m->freel[f] = m->nframes - 1 - f;	/* lowest frame on top */
		}
		m->nfree = m->nframes;
		/* one region per node split to at most total / min_nr_regions
		 * (damon_region_sz_limit()), in equal parts */
		if (n > m->nframes)
			n = m->nframes;
		if (n > m->rcap)
			n = m->rcap;
		for (uint32_t i = 0; i < n; i++) {
			struct dregion *r = &m->r[i];

			memset(r, 0, sizeof(*r));
			r->start = (uint32_t)((uint64_t)m->nframes * i / n);
			r->end = (uint32_t)((uint64_t)m->nframes * (i + 1) / n);
			r->spage = NIL;
		}
		m->n = n;
		m->last_nr = n;
	}
	d->synced = true;
	d->synced_moves = ctx->tier_moves;
	for (uint32_t p = 0; p < ctx->npages; p++) {
		d->pframe[p] = NIL;
		d->ftier[p] = 0xff;
		d->synced &= frame_take(d, p, ctx->pages[p].tier);
	}
	/* the schemes: mtier.c's two, and Colloid's relief scheme */
	memset(d->s, 0, sizeof(d->s));
	d->s[0] = (struct scheme){ .mon = 0, .to = d->m[1].tier, .hot = true, .promo_pattern = true,
				   .goal = ctx->colloid ? G_USER_LD_LA :
					   ctx->own[NODE_GOALS] > 0 ? G_USED : G_NONE };
	d->s[1] = (struct scheme){ .mon = 1, .to = d->m[0].tier, .hot = false, .promo_pattern = false,
				   .goal = !ctx->colloid && ctx->own[NODE_GOALS] > 0 ? G_FREE : G_NONE };
	d->nsch = 2;
	if (ctx->colloid)
		d->s[d->nsch++] = (struct scheme){ .mon = 1, .to = d->m[0].tier, .hot = true,
						   .promo_pattern = true, .goal = G_USER_LA_LD };
	d->next_aggr = now + (uint64_t)(ctx->own[AGGR_US] * 1e3);
	d->next_apply = now + (uint64_t)(ctx->own[APPLY_US] * 1e3);
	d->started = true;
}

/* ---- monitor ---- */

static inline uint32_t rsz(const struct dregion *r)
{
	return r->end - r->start;
}

static inline uint32_t udiff(uint32_t a, uint32_t b)
{
	return a > b ? a - b : b - a;
}

/* damon_merge_regions_of() */
static void merge_pass(struct dmon *m, uint32_t thres, uint32_t sz_limit)
{
	uint32_t w = 0;

	for (uint32_t i = 0; i < m->n; i++) {
		struct dregion r = m->r[i];

		if (udiff(r.nr_accesses, r.last_nr_accesses) > thres)
			r.age = 0;
		else if ((r.nr_accesses == 0) != (r.last_nr_accesses == 0))
			r.age = 0;
		else
			r.age++;
		if (w) {
			struct dregion *p = &m->r[w - 1];

			if (p->end == r.start && udiff(p->nr_accesses, r.nr_accesses) <= thres &&
			    (uint64_t)rsz(p) + rsz(&r) <= sz_limit) {
				/* damon_merge_two_regions(): size-weighted averages */
				uint64_t sl = rsz(p), sr = rsz(&r);

				p->nr_accesses = (uint32_t)((p->nr_accesses * sl + r.nr_accesses * sr) / (sl + sr));
				p->age = (uint32_t)((p->age * sl + r.age * sr) / (sl + sr));
				p->end = r.end;
				continue;
			}
		}
		m->r[w++] = r;
	}
	m->n = w;
}

/* kdamond_merge_regions(): the threshold doubles while there are too many */
static void merge_regions(struct colloid_ctx *ctx)
{
	struct damon *d = D(ctx);
	uint32_t max_thres = max_nr_accesses(ctx->own), thres = max_thres / 10;
	uint32_t max_nr = (uint32_t)ctx->own[MAX_NR_REGIONS], nr;

	do {
		nr = 0;
		for (unsigned int k = 0; k < 2; k++) {
			struct dmon *m = &d->m[k];
			uint32_t lim = (uint32_t)(m->nframes / ctx->own[MIN_NR_REGIONS]);

			merge_pass(m, thres, lim ? lim : 1);
			nr += m->n;
		}
		thres = thres * 2 > 1 ? thres * 2 : 1;
	} while (nr > max_nr && thres / 2 < max_thres);
}

/* kdamond_split_regions() / damon_split_regions_of(), for one node */
static void split_regions(struct colloid_ctx *ctx, struct dmon *m, uint32_t nr_total, uint32_t last_total)
{
	struct damon *d = D(ctx);
	uint32_t max_nr = (uint32_t)ctx->own[MAX_NR_REGIONS], subs = 2, w = 0;

	if (max_nr > m->rcap - 16)
		max_nr = m->rcap - 16;
	if (nr_total > max_nr / 2)
		return;
	if (last_total == nr_total && nr_total < max_nr / 3)
		subs = 3;
	for (uint32_t i = 0; i < m->n; i++) {
		struct dregion r = m->r[i];
		struct dregion rest[2];
		unsigned int nrest = 0;

		for (unsigned int s = 0; s < subs - 1 && rsz(&r) > 2; s++) {
			uint32_t sub = (uint32_t)((uint64_t)drand(d, 1, 10) * rsz(&r) / 10);

			if (!sub || sub >= rsz(&r))
				continue;
			/* damon_split_region_at(): the new region takes the right part */
			rest[nrest] = r;
			rest[nrest].start = r.start + sub;
			nrest++;
			r.end = r.start + sub;
		}
		m->tmp[w++] = r;
		while (nrest)
			m->tmp[w++] = rest[--nrest];
	}
	memcpy(m->r, m->tmp, (size_t)w * sizeof(*m->r));
	m->n = w;
}

/* ---- schemes ---- */

/* damon_hot_score() (mm/damon/ops-common.c) */
static int hot_score(const double *own, const struct dregion *r)
{
	unsigned int fw = (unsigned int)own[WEIGHT_NR], aw = (unsigned int)own[WEIGHT_AGE];
	int freq = (int)((uint64_t)r->nr_accesses * DAMON_MAX_SUBSCORE / max_nr_accesses(own));
	uint64_t age_s = (uint64_t)((double)r->age * own[AGGR_US] / 1e6);
	int age_log, age_sub, hot;

	for (age_log = 0; age_log < DAMON_MAX_AGE_IN_LOG && age_s; age_log++, age_s >>= 1)
		;
	if (freq == 0)
		age_log = -age_log;	/* no access: older is colder */
	age_log += DAMON_MAX_AGE_IN_LOG;
	age_sub = age_log * DAMON_MAX_SUBSCORE / DAMON_MAX_AGE_IN_LOG / 2;
	hot = (int)(fw * (unsigned int)freq + aw * (unsigned int)age_sub);
	if (fw + aw)
		hot /= (int)(fw + aw);
	hot = hot * DAMOS_MAX_SCORE / DAMON_MAX_SUBSCORE;
	return hot < 0 ? 0 : hot > DAMOS_MAX_SCORE ? DAMOS_MAX_SCORE : hot;
}

static int scheme_score(const double *own, const struct scheme *s, const struct dregion *r)
{
	int h = hot_score(own, r);

	return s->hot ? h : DAMOS_MAX_SCORE - h;	/* damon_cold_score() */
}

static bool pattern_ok(const double *own, const struct scheme *s, const struct dregion *r)
{
	if (s->promo_pattern)
		return r->nr_accesses >= (uint32_t)own[PROMO_MIN_NR];
	return r->nr_accesses == 0;
}

/* damon_feed_loop_next_input() (mm/damon/core.c, current form) */
static double feed_loop_next_input(double last, double score)
{
	double diff, comp;

	if (score == GOAL_BP)
		return last;
	if (score >= GOAL_BP * 2)
		return GOAL_BP;
	diff = score > GOAL_BP ? score - GOAL_BP : GOAL_BP - score;
	comp = floor(last * diff / GOAL_BP);
	if (score > GOAL_BP)
		return last - comp > GOAL_BP ? last - comp : GOAL_BP;
	return fmin(last + comp, 1e30);
}

/* a goal's current value x 10000 / its target (damos_quota_score()) */
static double goal_score(struct colloid_ctx *ctx, int goal)
{
	unsigned int t = ctx->dflt;
	double cap = (double)ctx->tiers[t].cap_pages, room = (double)tier_room(ctx, t);
	double ld, la, rd, ra;

	switch (goal) {
	case G_USED:
		return cap > 0 ? floor((cap - room) / cap * 1e4) * GOAL_BP / ctx->own[USED_BP] : GOAL_BP;
	case G_FREE:
		return cap > 0 ? floor(room / cap * 1e4) * GOAL_BP / ctx->own[FREE_BP] : GOAL_BP;
	case G_USER_LD_LA:
	case G_USER_LA_LD:
		/* fed the measured ratio; before any latency it holds the target */
		if (!lat_ready(ctx))
			return GOAL_BP;
		lat_pair(ctx, &ld, &la, &rd, &ra);
		if (!(ld > 0 && la > 0))
			return GOAL_BP;
		return floor(GOAL_BP * (goal == G_USER_LD_LA ? ld / la : la / ld));
	default:
		return GOAL_BP;
	}
}

/* damos_set_effective_quota(): goal-tuned, capped by the size quota */
static void set_effective_quota(struct colloid_ctx *ctx, struct scheme *s)
{
	double sz = ctx->own[QUOTA_BYTES];

	if (s->goal == G_NONE) {
		s->esz = sz;
		return;
	}
	s->esz_bp = feed_loop_next_input(fmax(s->esz_bp, GOAL_BP), goal_score(ctx, s->goal));
	s->esz = floor(s->esz_bp / GOAL_BP);
	if (sz > 0 && sz < s->esz)
		s->esz = sz;
}

static void queue_move(struct colloid_ctx *ctx, uint32_t p, unsigned int to)
{
	struct damon *d = D(ctx);
	uint32_t pos;

	if (ctx->pages[p].flags & PF_PROMO)
		return;
	pos = d->rhead + d->rlen;
	if (pos >= ctx->npages)
		pos -= ctx->npages;
	d->ring[pos] = (uint64_t)p | (uint64_t)to << 32;
	d->rlen++;
	ctx->pages[p].flags |= PF_PROMO;
}

/* damos_adjust_quota() and damos_apply_scheme() for one scheme */
static void apply_scheme(struct colloid_ctx *ctx, struct scheme *s, uint64_t now)
{
	struct damon *d = D(ctx);
	struct dmon *m = &d->m[s->mon];
	double hist[DAMOS_MAX_SCORE + 1] = { 0 }, cum = 0, psz = (double)ctx->page_size;
	int max_score = 0, min_score;
	uint64_t reset_ns = (uint64_t)(ctx->own[RESET_MS] * 1e6);

	if (!s->started || now - s->window >= reset_ns) {
		s->started = true;
		s->window = now;
		s->charged = 0;
		set_effective_quota(ctx, s);
	}
	if (s->charged >= s->esz)
		return;
	for (uint32_t i = 0; i < m->n; i++) {
		int sc;

		if (!pattern_ok(ctx->own, s, &m->r[i]))
			continue;
		sc = scheme_score(ctx->own, s, &m->r[i]);
		hist[sc] += rsz(&m->r[i]) * psz;
		if (sc > max_score)
			max_score = sc;
	}
	for (min_score = max_score;; min_score--) {
		cum += hist[min_score];
		if (cum >= s->esz || !min_score)
			break;
	}
	for (uint32_t i = 0; i < m->n; i++) {
		struct dregion *r = &m->r[i];
		uint32_t sz;

		if (!pattern_ok(ctx->own, s, r) || scheme_score(ctx->own, s, r) < min_score)
			continue;
		sz = rsz(r);
		if (s->charged + sz * psz > s->esz) {
			sz = (uint32_t)floor((s->esz - s->charged) / psz);
			if (!sz || m->n >= m->rcap)
				break;
			/* damon_split_region_at(): the rest stays a region of its own */
			memmove(&m->r[i + 2], &m->r[i + 1], (size_t)(m->n - i - 1) * sizeof(*r));
			m->r[i + 1] = *r;
			m->r[i + 1].start = r->start + sz;
			r->end = r->start + sz;
			m->n++;
		}
		for (uint32_t f = r->start; f < r->end; f++) {
			uint32_t p = m->frame[f];

			if (p != NIL && ctx->pages[p].tier == m->tier)
				queue_move(ctx, p, s->to);
		}
		s->charged += sz * psz;
	}
}

/* ---- the policy's entry points ---- */

/*
 * DAMON checks accessed bits and takes no samples.  A mechanism that has no
 * accessed-bit checks but reports sampled accesses (tierd's perf or DAMON
 * observation) stands in for them: a sampled page counts as found accessed
 * at its region's next check (tiersim does the checks and sends no samples).
 */
static void damon_sample(struct colloid_ctx *ctx, uint32_t i, int is_write, uint32_t w)
{
	(void)is_write;
	(void)w;
	D(ctx)->young[i] = 1;
}

static void damon_fault(struct colloid_ctx *ctx, uint32_t i, uint64_t since, uint64_t now)
{
	(void)ctx;
	(void)i;
	(void)since;
	(void)now;
}

static size_t damon_access_checks(const struct colloid_ctx *ctx, uint64_t *pages, size_t cap)
{
	const struct damon *d = D(ctx);
	size_t n = 0;

	if (!d->started)
		return 0;
	for (unsigned int k = 0; k < 2; k++)
		for (uint32_t i = 0; i < d->m[k].n && n < cap; i++)
			if (d->m[k].r[i].spage != NIL)
				pages[n++] = d->m[k].r[i].spage;
	return n;
}

static void damon_access_result(struct colloid_ctx *ctx, uint32_t page, bool accessed)
{
	D(ctx)->young[page] = accessed;
}

/* every region's access check of the sampling interval that ended (damon_pa_check_accesses()) */
static void check_accesses(struct colloid_ctx *ctx)
{
	struct damon *d = D(ctx);
	uint32_t cap = max_nr_accesses(ctx->own);

	for (unsigned int k = 0; k < 2; k++) {
		struct dmon *m = &d->m[k];

		for (uint32_t i = 0; i < m->n; i++) {
			struct dregion *r = &m->r[i];

			if (r->spage == NIL)
				continue;
			if (d->young[r->spage] && m->frame[r->sfr] == r->spage && r->nr_accesses < cap)
				r->nr_accesses++;
			d->young[r->spage] = 0;
		}
	}
}

/* one sampled frame per region for the next interval (damon_pa_prepare_access_checks()) */
static void prepare_access_checks(struct colloid_ctx *ctx)
{
	struct damon *d = D(ctx);

	for (unsigned int k = 0; k < 2; k++) {
		struct dmon *m = &d->m[k];

		for (uint32_t i = 0; i < m->n; i++) {
			struct dregion *r = &m->r[i];

			r->sfr = drand(d, r->start, r->end);
			r->spage = m->frame[r->sfr];
			if (r->spage != NIL)
				d->young[r->spage] = 0;
		}
	}
}

/* mark_hot() flips the flag with its 0/1 hot value: PF_HOT must be that bit */
_Static_assert(PF_HOT == 1, "mark_hot() takes PF_HOT for bit 0");

/*
 * The first frame in [@f, @end) whose fhot is not @hot, or @end: eight
 * frames to one 8-byte compare (from one aggregation to the next most
 * frames are already marked, and a byte loop over them was most of a
 * DAMON point's instructions).
 */
static inline uint32_t fhot_next(const uint8_t *fhot, uint32_t f, uint32_t end, unsigned int hot)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t all = 0x0101010101010101ull * hot;

	for (; f + 8 <= end; f += 8) {
		uint64_t w;

		memcpy(&w, fhot + f, sizeof(w));
		w ^= all;
		if (w)	/* the lowest differing byte is the first frame */
			return f + (uint32_t)__builtin_ctzll(w) / 8;
	}
#endif
	while (f < end && fhot[f] == hot)
		f++;
	return f;
}

/* the baseline's hot pages: those in a region that the promotion pattern matches */
static void mark_hot(struct colloid_ctx *ctx)
{
	struct damon *d = D(ctx);
	/* in locals: the flag stores (bytes) may alias anything, and the
	 * compiler would reload them at every frame */
	struct cpage *pages = ctx->pages;
	const uint32_t min_nr = (uint32_t)ctx->own[PROMO_MIN_NR];

	for (unsigned int k = 0; k < 2; k++) {
		const struct dmon *m = &d->m[k];
		const uint32_t *frame = m->frame;
		uint8_t *fhot = m->fhot;
		const unsigned int t = m->tier;
		uint64_t on = 0, off = 0;

		for (uint32_t i = 0; i < m->n; i++) {
			const unsigned int hot = m->r[i].last_nr_accesses >= min_nr;
			const uint32_t end = m->r[i].end;
			uint32_t flips = 0;

			/*
			 * page_set_flag_hot(pages in tier t, hot) without a branch
			 * on the flag: the flips are counted, and tier t's
			 * hot_pages changes by their sum after the node (nothing
			 * reads it meanwhile; uint64_t arithmetic wraps alike).
			 * A frame whose page already has the flag is passed over
			 * (fhot): most are, from one aggregation to the next.  So
			 * is an empty frame, once seen (fhot_next() skips both):
			 * taking a page sets its fhot to 0xff (frame_take()).
			 */
			for (uint32_t f = fhot_next(fhot, m->r[i].start, end, hot); f < end;
			     f = fhot_next(fhot, f + 1, end, hot)) {
				uint32_t p = frame[f];

				if (p == NIL) {
					fhot[f] = (uint8_t)hot;
				} else if (pages[p].tier == t) {
					unsigned int x = (pages[p].flags ^ hot) & PF_HOT;

					pages[p].flags ^= (uint8_t)x;
					flips += x;
					fhot[f] = (uint8_t)hot;
				}
			}
			if (hot)
				on += flips;
			else
				off += flips;
		}
		ctx->tiers[t].hot_pages += on - off;
	}
}

/* the queued moves, as far as this tick's plan goes */
static void drain(struct colloid_ctx *ctx, struct plan *pl)
{
	struct damon *d = D(ctx);

	while (d->rlen) {
		uint64_t e = d->ring[d->rhead];
		uint32_t p = (uint32_t)e;
		unsigned int to = (unsigned int)(e >> 32);
		int ret;

		if (pl->n >= pl->cap || pl->bytes_left < (double)ctx->page_size)
			break;
		if (++d->rhead == ctx->npages)
			d->rhead = 0;
		d->rlen--;
		ctx->pages[p].flags &= ~PF_PROMO;
		/* a migration to a full node fails (the page stays) */
		ret = plan_add(ctx, pl, p, to);
		if (ret == 0) {
			frame_release(d, p);
			/* the move's frame follows it: still in sync, unless no frame was free */
			if (frame_take(d, p, to))
				d->synced_moves++;
			else
				d->synced = false;
		} else if (ret == -ENOSPC) {
			break;
		}
	}
}

static void damon_tick(struct colloid_ctx *ctx, struct plan *pl, uint64_t now, uint64_t q)
{
	struct damon *d = D(ctx);

	(void)q;
	if (!d->started) {
		damon_start(ctx, now);
		prepare_access_checks(ctx);
		return;
	}
	check_accesses(ctx);
	if (now >= d->next_aggr) {
		uint32_t nr, last;

		frames_sync(ctx);
		merge_regions(ctx);
		if (now >= d->next_apply) {
			for (unsigned int k = 0; k < d->nsch; k++)
				apply_scheme(ctx, &d->s[k], now);
			while (d->next_apply <= now)
				d->next_apply += (uint64_t)(ctx->own[APPLY_US] * 1e3);
		}
		/* kdamond_reset_aggregated() */
		for (unsigned int k = 0; k < 2; k++)
			for (uint32_t i = 0; i < d->m[k].n; i++) {
				d->m[k].r[i].last_nr_accesses = d->m[k].r[i].nr_accesses;
				d->m[k].r[i].nr_accesses = 0;
			}
		mark_hot(ctx);
		/* kdamond_split_regions(): the count over both nodes, as one kdamond each */
		for (unsigned int k = 0; k < 2; k++) {
			nr = d->m[k].n;
			last = d->m[k].last_nr;
			split_regions(ctx, &d->m[k], nr, last);
			d->m[k].last_nr = nr;
		}
		while (d->next_aggr <= now)
			d->next_aggr += (uint64_t)(ctx->own[AGGR_US] * 1e3);
	}
	drain(ctx, pl);
	prepare_access_checks(ctx);
}

static bool damon_is_hot(const struct colloid_ctx *ctx, const struct cpage *pg)
{
	(void)ctx;
	return pg->flags & PF_HOT;
}

/* the promotion scheme's effective quota, bytes per reset interval */
static double damon_hot_threshold(const struct colloid_ctx *ctx)
{
	return D(ctx)->started ? D(ctx)->s[0].esz : 0;
}

static void damon_info(const double *own, struct colloid_policy_info *info)
{
	/* one tick per sampling interval: the access checks' period */
	info->quantum_ns = (uint64_t)llround(own[SAMPLE_US] * 1e3);
	/* DAMON takes no samples; chosen as TPP's, for a mechanism that samples anyway */
	info->load_period = 5003;
	info->store_period = 5003;
	info->access_checks = 1;
	info->access_check_bytes = own[CHECK_BYTES];
	/* with Colloid the latency ratio comes from the mechanism's monitor
	 * (tierd's CHA or probe source), read once per quantum */
	info->cha_ewma_alpha = 1.0 / 32.0;
	info->cha_share = 1.0;
}

const struct colloid_policy colloid_policy_damon = {
	.name = "damon",
	.params = damon_params,
	.nparams = NPARAMS,
	.params_check = damon_params_check,
	.priv_size = sizeof(struct damon),
	.init = damon_init,
	.fini = damon_fini,
	.sign_only = true,	/* Colloid is its own: the quota goals above */
	.single_list = true,
	.hot_at_sample = true,
	.sample = damon_sample,
	.fault = damon_fault,
	.tick = damon_tick,
	.is_hot = damon_is_hot,
	.hot_threshold = damon_hot_threshold,
	.info = damon_info,
	.access_checks = damon_access_checks,
	.access_result = damon_access_result,
};
