/* SPDX-License-Identifier: MIT */
/*
 * internal.h - libcolloid internals shared by core, policies and balancing.
 * Not installed; mechanisms use include/colloid.h only.
 */
#ifndef COLLOID_INTERNAL_H
#define COLLOID_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "colloid.h"

#define NIL UINT32_MAX

/* a per-sample function, always inlined into its batch loop (sample_many) */
#define COLLOID_HOT static inline __attribute__((always_inline))

/*
 * Hotness bins: bin 0 = never sampled; bin b > 0 covers a quarter of a
 * power of two, [2^e (1 + s/4), 2^e (1 + (s+1)/4)) with e = (b-1)/4,
 * s = (b-1)%4, so pages in one bin differ by less than 25 % in heat.
 * The power-of-two ("exponential histogram") bin of MEMTIS is e + 1.
 */
#define NB_SUB 4

/*
 * A tick walking one bin's list gives up on that bin after this many
 * consecutive pages it examined but could not move (chosen: bounds the
 * futile part of a walk; the bin is retried next tick).
 */
#define BIN_MISS_LIMIT 64
#define NB (1 + NB_SUB * (COLLOID_NBINS - 1))

static inline unsigned int bin_pow2(unsigned int b)
{
	return b ? (b - 1) / NB_SUB + 1 : 0;
}

/* Smallest heat a page in bin b can have. */
static inline double bin_floor(unsigned int b)
{
	unsigned int e, s;

	if (!b)
		return 0;
	e = (b - 1) / NB_SUB;
	s = (b - 1) % NB_SUB;
	return (double)(1ull << e) * (1.0 + (double)s / NB_SUB);
}

/* page flags */
#define PF_HOT 0x01	/* baseline classes the page hot (counted in hot_pages) */
#define PF_MOVED 0x02	/* already in this tick's plan */
#define PF_PROMO 0x04	/* TPP: queued promotion candidate */
#define PF_DEMO 0x08	/* TPP+Colloid: queued demotion candidate */
#define PF_LOGGED 0x10	/* in the touch log: its list position is pending */

/*
 * Per-page state: 24 bytes.  @tier and @bin are the page's list as the
 * policy sees it; @lbin is the bin whose list the page is linked into now.
 * They differ only for a page in the touch log (see core.c, "lists").
 */
struct cpage {
	uint32_t prev, next;	/* links in the (tier, lbin) list */
	uint32_t reads, writes;	/* decayed sample counts, valid at @clock */
	uint32_t clock;		/* cooling clock these counts were cooled to */
	uint8_t tier, bin, flags, lbin;
};

/*
 * Intrusive doubly linked list of pages; head = most recently (re)linked.
 * @n counts the pages whose (tier, bin) is this list, including logged
 * pages not linked into it yet, so it is exact at every moment.
 */
struct clist {
	uint32_t head, tail;
	uint64_t n;
};

struct colloid_ctx;

/*
 * One logged input.  A sample: @wx = weight << 1 | is_write (never 0),
 * @t unused.  A hint fault takes two entries: @wx = 0 and @t = since_scan_ns,
 * then one whose @t is now_ns (both with the fault's @page).
 */
struct input_ent {
	uint32_t page, wx;
	uint64_t t;
};

/* One migration plan under construction. */
struct plan {
	struct colloid_move *moves;
	size_t cap, n;
	double bytes_left;	/* min(static limit, budget) still available */
	uint64_t bytes;
};

/*
 * One constant a policy declares: @name is "<policy>_<constant>"; @def its
 * default (colloid/README.md gives the source), [@min, @max] its range.
 */
struct colloid_param_desc {
	const char *name;
	double def, min, max;
	const char *desc;
};

/*
 * A placement policy: its own constants, its private state, how inputs
 * update page state and what the baseline plans.  A policy file
 * src/policy_<name>.c defines `const struct colloid_policy
 * colloid_policy_<name>`; the build registers every such file (see
 * colloid/Makefile), so no list names the policies.  A policy reads its
 * constants through ctx->own[i] (i = index into its @params) and keeps its
 * state in ctx->priv (@priv_size bytes, zeroed by colloid_new()).
 */
struct colloid_policy {
	const char *name;
	const struct colloid_param_desc *params;
	unsigned int nparams;
	/* checks between its own constants (NULL: none); 0 or -EINVAL */
	int (*params_check)(const double *own);
	size_t priv_size;
	/* after the context is set up: allocate what it needs (NULL: nothing); 0 or -ENOMEM */
	int (*init)(struct colloid_ctx *ctx);
	/* free what init allocated (NULL: nothing); called also after a failed init */
	void (*fini)(struct colloid_ctx *ctx);
	/* a live change of its own constant @i to @v (NULL: nothing to do) */
	void (*param_changed)(struct colloid_ctx *ctx, unsigned int i, double v);
	bool sign_only;		/* Colloid uses only the sign of L_D - L_A (TPP) */
	bool single_list;	/* one LRU list per tier (bin 0), no hotness bins */
	bool hot_at_sample;	/* hot/cold is decided only when a page is sampled (HeMem) */
	void (*sample)(struct colloid_ctx *ctx, uint32_t page, int is_write, uint32_t weight);
	void (*fault)(struct colloid_ctx *ctx, uint32_t page, uint64_t since_ns, uint64_t now_ns);
	/* baseline (or, for sign_only policies, complete) plan for one tick */
	void (*tick)(struct colloid_ctx *ctx, struct plan *pl, uint64_t now_ns, uint64_t quantum_ns);
	/* is the page hot by the baseline's rule (after cooling)? */
	bool (*is_hot)(const struct colloid_ctx *ctx, const struct cpage *pg);
	double (*hot_threshold)(const struct colloid_ctx *ctx);
	/* what the policy asks of its mechanism (periods, quantum, inputs, monitor) */
	void (*info)(const double *own, struct colloid_policy_info *info);
	/* an accessed-bit monitor (info.access_checks; NULL: none): the pages to
	 * check (at most @cap written, their count returned), and one answer */
	size_t (*access_checks)(const struct colloid_ctx *ctx, uint64_t *pages, size_t cap);
	void (*access_result)(struct colloid_ctx *ctx, uint32_t page, bool accessed);
	/*
	 * optional: @n samples in order, each exactly as @sample (NULL: the
	 * core calls @sample for each).  COLLOID_SAMPLE_MANY(fn) defines one
	 * from a policy's @sample, inlined into the loop.
	 */
	void (*sample_many)(struct colloid_ctx *ctx, const uint32_t *pages, size_t n, int is_write,
			    uint32_t weight);
};

struct tier {
	uint64_t cap_pages;	/* capacity_bytes / page_size */
	uint64_t used_pages;
	uint64_t free_reported;	/* pages, valid if free_valid */
	bool free_valid;
	double unloaded;	/* ns */
	/* latency EWMA */
	double occ, arr, rate;
	bool have_obs;
	uint64_t hot_pages;
};

struct colloid_ctx {
	const struct colloid_policy *pol;
	struct colloid_params prm;
	bool colloid;
	unsigned int ntiers;
	unsigned int order[COLLOID_MAX_TIERS];	/* tiers by unloaded latency, fastest first */
	unsigned int dflt;			/* = order[0] */
	uint32_t npages;
	uint64_t page_size;

	struct tier tiers[COLLOID_MAX_TIERS];
	struct cpage *pages;
	struct clist lists[COLLOID_MAX_TIERS][NB];

	/*
	 * input log: colloid_sample() and colloid_hint_fault() calls not
	 * applied yet, in order.  samples_flush() applies them.
	 */
	struct input_ent *slog;
	uint32_t slog_len;

	/* touch log: pages moved to a list head since the last flush, in order */
	uint32_t *tlog;
	uint32_t tlog_len, tlog_cap;
	bool eager;		/* inside a tick: relink at once, never log */

	/* cooling */
	uint32_t cool_clock;
	double total_weight;	/* decayed sum of sample weights */

	/* Colloid search state */
	double p, p_lo, p_hi, delta_p;
	int direction;

	/* the policy's own constants (in prm.policy) and private state */
	const double *own;
	void *priv;

	/* stats */
	double last_budget_bytes;
	uint64_t last_plan_moves, last_plan_bytes;
	uint64_t quanta, moves_total, samples_total, faults_total;
	/* pages that changed tier (page_move()), ever: a policy that mirrors
	 * placement (DAMON's frames) can tell whether any moved since it looked */
	uint64_t tier_moves;
};

/* params.c */
int colloid_params_check(const struct colloid_params *p);

/* registry.c: the registered policies, in name order */
const struct colloid_policy *colloid_policy_find(const char *name);
const struct colloid_policy *colloid_policy_at(unsigned int i);
/* index of @pol's first constant in colloid_params.policy */
unsigned int colloid_policy_base(const struct colloid_policy *pol);

/* core.c */
void samples_flush(struct colloid_ctx *ctx);
void pages_flush(struct colloid_ctx *ctx);
void page_refresh(struct colloid_ctx *ctx, uint32_t i);
bool page_in_bin(struct colloid_ctx *ctx, uint32_t i, unsigned int b, uint32_t *heat);
uint64_t tier_room(const struct colloid_ctx *ctx, unsigned int t);
int tier_pick_lower(const struct colloid_ctx *ctx, unsigned int from);
int plan_add(struct colloid_ctx *ctx, struct plan *pl, uint32_t page, unsigned int to);
/*
 * Promote page to tier d; when full is set, first demote one cold page that
 * find_cold picks (HeMem and MEMTIS share this step). Returns 0 to go on, 1 when
 * the plan, its byte budget or the cold candidates are exhausted.
 */
int plan_promote(struct colloid_ctx *ctx, struct plan *pl, uint32_t page, unsigned int d, int full,
		 uint32_t (*find_cold)(struct colloid_ctx *ctx, uint64_t *budget), uint64_t *budget);
bool lat_ready(const struct colloid_ctx *ctx);
double tier_lat(const struct colloid_ctx *ctx, unsigned int t);
void lat_pair(const struct colloid_ctx *ctx, double *ld, double *la, double *rd, double *ra);
void cool_global(struct colloid_ctx *ctx);
void page_relink(struct colloid_ctx *ctx, uint32_t i);

/* balance.c */
void colloid_search_update(struct colloid_ctx *ctx);
void colloid_balance(struct colloid_ctx *ctx, struct plan *pl);
int colloid_sign(const struct colloid_ctx *ctx);

/*
 * Prefetch page @i's node (pointer chasing dominates), NIL (a list end,
 * rare) included: the address is computed as an integer, not by pointer
 * arithmetic past the array, and a prefetch never faults, so no branch on
 * NIL is needed.
 */
static inline void page_prefetch(const struct cpage *pages, uint32_t i)
{
	__builtin_prefetch((const void *)((uintptr_t)pages + (uintptr_t)i * sizeof(*pages)), 1);
}

static inline uint32_t sat_add32(uint32_t a, uint32_t b)
{
	uint64_t s = (uint64_t)a + b;

	return s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
}

/* ---- per-page helpers of the input and tick paths (inline: hot) ---- */

static inline uint32_t shr32(uint32_t v, uint32_t d)
{
	return d >= 32 ? 0 : v >> d;
}

/* Decayed sample count of a page, cooled to the global clock. */
static inline uint32_t heat_of(const struct colloid_ctx *ctx, const struct cpage *pg)
{
	uint32_t d = ctx->cool_clock - pg->clock;

	return sat_add32(shr32(pg->reads, d), shr32(pg->writes, d));
}

/*
 * Hotness bin of a heat (see NB_SUB).  64 bits wide so that a run can bin
 * the plain sum of two counts: a sum past UINT32_MAX lands in the top bin,
 * as sat_add32()'s UINT32_MAX does (the assertion below).
 */
static inline unsigned int bin_of(uint64_t heat)
{
	unsigned int e, s, b;

	if (!heat)
		return 0;
	e = 63 - (unsigned int)__builtin_clzll(heat);	/* floor(log2) */
	/* the two bits below the leading one: heat >> (e - 2), or << (2 - e) */
	s = (unsigned int)(((uint64_t)heat << 2) >> e) & 3;
	b = 1 + NB_SUB * e + s;
	return b < NB ? b : NB - 1;
}

/* bin_of(UINT32_MAX) = 1 + NB_SUB * 31 + 3 is already capped to the top bin */
_Static_assert(1 + NB_SUB * 31 + 3 >= NB - 1, "heats past UINT32_MAX must share UINT32_MAX's bin");

static inline void page_set_flag_hot(struct colloid_ctx *ctx, uint32_t i, bool hot)
{
	struct cpage *pg = &ctx->pages[i];

	/* one test that rarely passes: whether a page is hot is not predictable */
	if (hot != !!(pg->flags & PF_HOT)) {
		pg->flags ^= PF_HOT;
		if (hot)
			ctx->tiers[pg->tier].hot_pages++;
		else
			ctx->tiers[pg->tier].hot_pages--;
	}
}

/* Change the (tier, bin) of a page as the policy sees it (list counts only). */
static inline void page_set_list(struct colloid_ctx *ctx, struct cpage *pg, unsigned int tier,
				 unsigned int bin)
{
	ctx->lists[pg->tier][pg->bin].n--;
	pg->tier = (uint8_t)tier;
	pg->bin = (uint8_t)bin;
	ctx->lists[tier][bin].n++;
}

/* Move page @i to the head of its (tier, bin) list: at once in a tick, else logged. */
static inline void page_touch(struct colloid_ctx *ctx, uint32_t i)
{
	struct cpage *pg = &ctx->pages[i];

	if (ctx->eager) {
		page_relink(ctx, i);
		return;
	}
	/* touched again right after its last touch: the log already ends with it */
	if ((pg->flags & PF_LOGGED) && ctx->tlog[ctx->tlog_len - 1] == i)
		return;
	pg->flags |= PF_LOGGED;
	ctx->tlog[ctx->tlog_len++] = i;
	if (ctx->tlog_len == ctx->tlog_cap)
		pages_flush(ctx);
}

/*
 * One sample of weight @w: cool the page's counts to the global clock, add
 * @w, re-bin it and move it to the head of its list.  Returns its new bin.
 * The caller sets the hot flag by its policy's rule.  @single_list is a
 * constant in each policy, so each gets its own copy.
 */
static inline unsigned int counts_add(struct colloid_ctx *ctx, uint32_t i, int is_write,
				      uint32_t w, bool single_list)
{
	struct cpage *pg = &ctx->pages[i];
	uint32_t d = ctx->cool_clock - pg->clock;
	uint32_t r = shr32(pg->reads, d), wr = shr32(pg->writes, d);
	uint32_t wmask = -(uint32_t)(is_write != 0);	/* branch-free: is_write is random */
	unsigned int b;

	r = sat_add32(r, w & ~wmask);
	wr = sat_add32(wr, w & wmask);
	pg->reads = r;
	pg->writes = wr;
	pg->clock = ctx->cool_clock;
	ctx->total_weight += w;
	b = single_list ? 0 : bin_of(sat_add32(r, wr));
	/* unconditional: the bin changes often enough to defeat prediction */
	ctx->lists[pg->tier][pg->bin].n--;
	ctx->lists[pg->tier][b].n++;
	pg->bin = (uint8_t)b;
	page_touch(ctx, i);
	return b;
}

/* Unlink page @i from the list it is linked into (tier, lbin). */
COLLOID_HOT void link_del(struct colloid_ctx *ctx, uint32_t i)
{
	struct cpage *pages = ctx->pages, *pg = &pages[i];
	struct clist *l = &ctx->lists[pg->tier][pg->lbin];

	if (pg->prev != NIL)
		pages[pg->prev].next = pg->next;
	else
		l->head = pg->next;
	if (pg->next != NIL)
		pages[pg->next].prev = pg->prev;
	else
		l->tail = pg->prev;
}

/* Link page @i at the head of its (tier, bin) list. */
COLLOID_HOT void link_add_head(struct colloid_ctx *ctx, uint32_t i)
{
	struct cpage *pg = &ctx->pages[i];
	struct clist *l = &ctx->lists[pg->tier][pg->bin];

	pg->lbin = pg->bin;
	pg->prev = NIL;
	pg->next = l->head;
	if (l->head != NIL)
		ctx->pages[l->head].prev = i;
	else
		l->tail = i;
	l->head = i;
}

/*
 * A batch of samples (a policy's sample_many hook) applied the cheap way:
 * each sample relinks its page at once, as inside a tick (ctx->eager), so
 * no touch log is written and replayed (the lists end the same: see
 * core.c, "lists"), and the context fields every sample reads or writes
 * are held in a local copy (stores through page nodes, uint8_t fields, may
 * alias anything: the compiler would otherwise reload them at every
 * sample).  run_begin() flushes the touch log and takes the copy;
 * run_end() writes it back: call it before anything that reads or changes
 * those fields (cool_global(), page_refresh(), a policy's own out-of-line
 * code) and run_begin() after.  The run_* helpers do what counts_add() and
 * page_set_flag_hot() do, in the same order.
 */
struct sample_run {
	struct cpage *pages;
	struct clist (*lists)[NB];
	struct tier *tiers;
	uint32_t clock;
	double total_weight;
};

COLLOID_HOT void run_begin(struct colloid_ctx *ctx, struct sample_run *sr)
{
	if (ctx->tlog_len)
		pages_flush(ctx);
	ctx->eager = true;
	sr->pages = ctx->pages;
	sr->lists = ctx->lists;
	sr->tiers = ctx->tiers;
	sr->clock = ctx->cool_clock;
	sr->total_weight = ctx->total_weight;
}

COLLOID_HOT void run_end(struct colloid_ctx *ctx, const struct sample_run *sr)
{
	ctx->eager = false;
	ctx->total_weight = sr->total_weight;
}

/* page_set_flag_hot() in a run */
COLLOID_HOT void run_set_hot(struct sample_run *sr, struct cpage *pg, bool hot)
{
	/* one test, on the change (rare), not two on the flag and on @hot (unpredictable) */
	if ((pg->flags ^ (unsigned int)hot) & PF_HOT) {
		pg->flags ^= PF_HOT;
		if (hot)
			sr->tiers[pg->tier].hot_pages++;
		else
			sr->tiers[pg->tier].hot_pages--;
	}
}

/* Prefetch, for a run, page @i's list neighbours (a few samples ahead). */
COLLOID_HOT void run_prefetch_nb(const struct sample_run *sr, uint32_t i)
{
	const struct cpage *pg = &sr->pages[i];

	page_prefetch(sr->pages, pg->prev);
	page_prefetch(sr->pages, pg->next);
}

/* counts_add() in a run: the page moves to its list head at once */
COLLOID_HOT unsigned int run_counts_add(struct sample_run *sr, uint32_t i, int is_write, uint32_t w,
					bool single_list)
{
	struct cpage *pages = sr->pages, *pg = &pages[i];
	uint32_t d = sr->clock - pg->clock;
	uint32_t r = shr32(pg->reads, d), wr = shr32(pg->writes, d);
	uint32_t wmask = -(uint32_t)(is_write != 0);
	uint32_t prev = pg->prev, next = pg->next;
	/*
	 * The page's tier's lists, and the list it is in: in a run a page is
	 * linked into the list of its bin (lbin == bin: run_begin() flushed
	 * the touch log, and only a logged page's differ).
	 */
	struct clist *tl = sr->lists[pg->tier], *l = &tl[pg->bin];
	unsigned int b;

	r = sat_add32(r, w & ~wmask);
	wr = sat_add32(wr, w & wmask);
	pg->reads = r;
	pg->writes = wr;
	pg->clock = sr->clock;
	sr->total_weight += w;
	/* bin_of(sat_add32(r, wr)): bin_of() takes the sum unsaturated */
	b = single_list ? 0 : bin_of((uint64_t)r + wr);
	l->n--;
	tl[b].n++;
	pg->bin = (uint8_t)b;
	/* page_touch() in a tick: link_del(), link_add_head() */
	if (prev != NIL)
		pages[prev].next = next;
	else
		l->head = next;
	if (next != NIL)
		pages[next].prev = prev;
	else
		l->tail = prev;
	l = &tl[b];
	pg->lbin = (uint8_t)b;
	pg->prev = NIL;
	pg->next = l->head;
	if (l->head != NIL)
		pages[l->head].prev = i;
	else
		l->tail = i;
	l->head = i;
	return b;
}

/*
 * The policies' "coldest page" search: walk tier @t's lists from the
 * coldest bin up, each from its tail (least recently touched), and return
 * the first page not yet in the plan that @take accepts (@take may cool the
 * page first: its list links are read before).  Stops, returning NIL, at
 * the first bin @bin_ok refuses (NULL: none) or when @budget examinations
 * are spent.  Inlined with constant predicates at each call site.
 */
static inline uint32_t cold_walk(struct colloid_ctx *ctx, unsigned int t,
				 bool (*bin_ok)(const struct colloid_ctx *ctx, unsigned int b, double arg),
				 bool (*take)(struct colloid_ctx *ctx, uint32_t i, double arg),
				 double arg, uint64_t *budget)
{
	for (unsigned int b = 0; b < NB; b++) {
		if (bin_ok && !bin_ok(ctx, b, arg))
			return NIL;
		for (uint32_t i = ctx->lists[t][b].tail; i != NIL;) {
			uint32_t prev = ctx->pages[i].prev;

			if (!*budget)
				return NIL;
			(*budget)--;
			if (!(ctx->pages[i].flags & PF_MOVED) && take(ctx, i, arg))
				return i;
			i = prev;
		}
	}
	return NIL;
}

/* What hot_walk()'s visitor did with a page. */
enum { HW_SKIP, HW_TOOK, HW_STOP };

/*
 * The policies' "hottest pages" walk over one list, (tier @t, bin @b), from
 * its head (most recently touched): pages already in the plan are passed
 * over, and with @check_bin so are pages whose cooled heat left bin @b
 * (page_in_bin() re-bins them); every other page goes to @visit with its
 * heat (0 without @check_bin).  HW_SKIP counts as a miss, HW_TOOK resets
 * the count, and BIN_MISS_LIMIT misses in a row end the list.  Returns
 * false when the whole walk must end: @visit said HW_STOP, or @budget
 * examinations are spent.  Inlined with a constant visitor at each call.
 */
static inline bool hot_walk(struct colloid_ctx *ctx, unsigned int t, unsigned int b, bool check_bin,
			    int (*visit)(struct colloid_ctx *ctx, uint32_t i, uint32_t heat, void *arg),
			    void *arg, uint64_t *budget)
{
	uint32_t i = ctx->lists[t][b].head;
	unsigned int miss = 0;

	while (i != NIL && miss++ < BIN_MISS_LIMIT) {
		struct cpage *pg = &ctx->pages[i];
		uint32_t next = pg->next, h = 0;

		if (!*budget)
			return false;
		(*budget)--;
		page_prefetch(ctx->pages, next);
		page_prefetch(ctx->pages, pg->prev);
		if (!(pg->flags & PF_MOVED) && (!check_bin || page_in_bin(ctx, i, b, &h))) {
			int r = visit(ctx, i, h, arg);

			if (r == HW_STOP)
				return false;
			if (r == HW_TOOK)
				miss = 0;
		}
		i = next;
	}
	return true;
}

/* samples ahead whose page node, and whose node's list neighbours, a batch prefetches */
#define SAMPLE_PREFETCH 16u
#define SAMPLE_PREFETCH_NB 8u

/* In a run over @pages[0..n), before sample @k: prefetch the page node
 * SAMPLE_PREFETCH samples ahead and the list neighbours SAMPLE_PREFETCH_NB ahead. */
COLLOID_HOT void run_prefetch(const struct sample_run *sr, const uint32_t *pages, size_t k, size_t n)
{
	if (k + SAMPLE_PREFETCH < n)
		__builtin_prefetch(&sr->pages[pages[k + SAMPLE_PREFETCH]], 1);
	if (k + SAMPLE_PREFETCH_NB < n)
		run_prefetch_nb(sr, pages[k + SAMPLE_PREFETCH_NB]);
}

/* run_prefetch() for a @k with k + SAMPLE_PREFETCH < n: no bounds to check */
COLLOID_HOT void run_prefetch_bulk(const struct sample_run *sr, const uint32_t *pages, size_t k)
{
	_Static_assert(SAMPLE_PREFETCH_NB <= SAMPLE_PREFETCH, "the page node is prefetched furthest");
	__builtin_prefetch(&sr->pages[pages[k + SAMPLE_PREFETCH]], 1);
	run_prefetch_nb(sr, pages[k + SAMPLE_PREFETCH_NB]);
}

/*
 * A run's loop: `for (size_t k = 0; k < n; k++) { run_prefetch(); BODY }`
 * over @pages[0..n), in two loops, the same BODY in each: all but the last
 * SAMPLE_PREFETCH samples with run_prefetch_bulk() (no bounds checks: two
 * compares and branches a sample fewer), then the rest with run_prefetch().
 */
#define RUN_FOR_EACH(sr, pages, n, k, ...)					\
	do {									\
		size_t k = 0;							\
										\
		for (; k + SAMPLE_PREFETCH < (n); k++) {			\
			run_prefetch_bulk(sr, pages, k);			\
			__VA_ARGS__						\
		}								\
		for (; k < (n); k++) {						\
			run_prefetch(sr, pages, k, n);				\
			__VA_ARGS__						\
		}								\
	} while (0)

/*
 * Define `static void fn##_many(...)`, a sample_many hook that applies
 * policy sample function @fn (static, same file) to each sample in order,
 * with the page SAMPLE_PREFETCH samples ahead prefetched.  One loop per
 * kind of sample (and weight 1, the common case), so that with @fn inlined
 * the compiler drops the branches on them: declare @fn COLLOID_HOT.
 */
#define COLLOID_SAMPLE_LOOP(fn, wr, wt)								\
	for (size_t k = 0; k < n; k++) {							\
		if (k + SAMPLE_PREFETCH < n)							\
			__builtin_prefetch(&ctx->pages[pages[k + SAMPLE_PREFETCH]], 1);	\
		fn(ctx, pages[k], wr, wt);							\
	}
#define COLLOID_SAMPLE_MANY(fn)									\
	static void fn##_many(struct colloid_ctx *ctx, const uint32_t *pages, size_t n,		\
			      int is_write, uint32_t weight)					\
	{											\
		if (weight != 1)								\
			COLLOID_SAMPLE_LOOP(fn, is_write, weight)				\
		else if (is_write)								\
			COLLOID_SAMPLE_LOOP(fn, 1, 1)						\
		else										\
			COLLOID_SAMPLE_LOOP(fn, 0, 1)						\
	}

#endif /* COLLOID_INTERNAL_H */
