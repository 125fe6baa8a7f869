/* SPDX-License-Identifier: MIT */
/*
 * colloid.h - libcolloid: tiered-memory placement policies (HeMem, TPP,
 * MEMTIS, DAMON) with optional Colloid latency balancing, behind one API.
 *
 * Split between policy and mechanism
 * ----------------------------------
 * The library holds only *policy*: what to move, where, and when.  A
 * *mechanism* (a simulator, or a daemon on a real NUMA host) observes the
 * workload and moves pages.  Per quantum a mechanism:
 *
 *   1. feeds observations:   colloid_sample()        (PEBS-like samples)
 *                            colloid_hint_fault()    (NUMA hint faults)
 *                            colloid_observe_cha() / colloid_observe_ns()
 *                                                    (per-tier latency)
 *                            colloid_tier_set_free() (optional)
 *   2. calls colloid_tick(), which writes a bounded migration plan into a
 *      caller-provided array; the library assumes the plan is applied,
 *   3. applies the plan, and reports each move that failed with
 *      colloid_page_set_tier(ctx, page, tier_it_is_really_in).
 *
 * The same loop can be written once against struct colloid_ops (an
 * operations table in the style of DAMON's) and run by colloid_step().
 *
 * Policies are chosen by name at run time (colloid_policy_name() lists them), each
 * with Colloid on or off.  A policy never knows which mechanism runs it.
 *
 * Units: pages are indices 0..npages-1 of equally sized regions (page_size
 * bytes, e.g. 4 KiB or 2 MiB); times are nanoseconds (uint64_t) unless a
 * name says otherwise; sizes are bytes.
 *
 * Conventions: every function that can fail returns 0 or a negative errno
 * (-EINVAL for bad arguments, -ENOMEM, -ENOENT for an unknown name).  The
 * library never prints, never exits, and never allocates after
 * colloid_new(): sample, fault, observation and tick paths are
 * allocation-free.  Per-sample work is amortised O(1) (samples are logged and
 * applied in order before any other call); per-tick work is O(plan + bins +
 * pages touched since the last tick), never a scan of all pages.  A context is not thread-safe:
 * callers serialise access to one context.  Identical inputs give identical
 * plans (no randomness, no clock reads inside the library).
 */
#ifndef COLLOID_H
#define COLLOID_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Maximum number of tiers a context can hold. */
#define COLLOID_MAX_TIERS 8

/** Number of exponential hotness bins (bin b>0 holds counts in [2^(b-1), 2^b)). */
#define COLLOID_NBINS 16

/** Room for the constants of all registered policies together (struct colloid_params.policy). */
#define COLLOID_POLICY_PARAMS 96

/** Library version (major*10000 + minor*100 + patch). */
#define COLLOID_VERSION 10000

/** Values of colloid_params.dp_mode: how Colloid computes delta-p. */
enum colloid_dp_mode {
	/** Binary search on [p_lo, p_hi]: dp = |(p_lo + p_hi)/2 - p| (released code). */
	COLLOID_DP_BINARY = 0,
	/** Closed form: dp = p(1-p)|L_D-L_A| / (p*L_A + (1-p)*L_D). */
	COLLOID_DP_CLOSED = 1,
};

/**
 * struct colloid_params - every tunable constant.
 *
 * Fill with colloid_params_default() and change the common fields directly
 * or any constant by name with colloid_param_set() (names of the common
 * ones are the field names; a policy's own are declared by its policy file,
 * prefixed with its name, e.g. "tpp_wmark_promo").  Defaults are the
 * published values where a source states one; colloid/README.md lists each
 * default with its source, or "chosen" and why.
 */
struct colloid_params {
	/* ---- Colloid balancing (all policies) ---- */
	/** delta: relative latency band treated as balanced, |L_D-L_A| <= delta*L_D. Default 0.05. */
	double delta;
	/** epsilon: when p_hi - p_lo < epsilon the bound on the side being moved toward re-opens. Default 0.01. */
	double epsilon;
	/** ewma_alpha: weight of a new latency observation in the EWMA of occupancy and arrivals (0,1]. Default 1/32. */
	double ewma_alpha;
	/** dp_mode: enum colloid_dp_mode. Default COLLOID_DP_BINARY. */
	double dp_mode;
	/** bytes_per_access: bytes one memory access moves (cache line), for the budget. Default 64. */
	double bytes_per_access;
	/** migrate_limit_Bps: static migration limit M in bytes per second; caps baselines and Colloid. Default 10e9. */
	double migrate_limit_Bps;
	/** swap_pairs: 1 = Colloid may swap a hot page with a cold one when the target tier is full. Default 1. */
	double swap_pairs;
	/** scan_limit: most pages a tick may examine (and lazily cool) beyond those it moves, per plan slot. Default 8. */
	double scan_limit;

	/* ---- each policy's own constants ---- */
	/**
	 * policy: the constants each registered policy declares for itself
	 * (its parameter descriptors), reached by name only:
	 * colloid_param_set(p, "hemem_read_hot", 8), colloid_param_get(),
	 * colloid_param_name().  The layout is the library's; never index it.
	 */
	double policy[COLLOID_POLICY_PARAMS];
};

/**
 * struct colloid_tier_config - one tier, as the mechanism describes it.
 * @capacity_bytes:      bytes of this tier the context may use for its pages.
 * @unloaded_latency_ns: idle load-to-use latency; the tier with the lowest
 *                       value is the default tier (ties: lowest index).
 *                       Also seeds the latency estimate before observations.
 */
struct colloid_tier_config {
	uint64_t capacity_bytes;
	double unloaded_latency_ns;
};

/**
 * struct colloid_config - everything colloid_new() needs.
 * @policy:     a registered policy's name (colloid_policy_name() lists them).
 * @colloid:    0 = baseline policy alone, 1 = Colloid balancing on top.
 * @ntiers:     number of tiers, 2..COLLOID_MAX_TIERS.
 * @tiers:      per-tier description, @ntiers entries used.
 * @npages:     number of pages (regions), 1..UINT32_MAX-1.
 * @page_size:  bytes per page/region, a power of two >= 4096.
 * @init_tier:  tier every page starts in (colloid_page_set_tier() changes it).
 * @params:     constants; NULL = colloid_params_default(&p, policy).
 */
struct colloid_config {
	const char *policy;
	int colloid;
	unsigned int ntiers;
	struct colloid_tier_config tiers[COLLOID_MAX_TIERS];
	uint64_t npages;
	uint64_t page_size;
	unsigned int init_tier;
	const struct colloid_params *params;
};

/**
 * struct colloid_move - one planned migration.
 * @page: page index.
 * @from: tier the page is in now.
 * @to:   tier it should move to.
 * A plan lists moves in the order to apply them: a demotion that makes room
 * comes before the promotion that uses it, so applying moves in order never
 * exceeds any tier's capacity.
 */
struct colloid_move {
	uint64_t page;
	uint8_t from;
	uint8_t to;
};

/**
 * struct colloid_state - policy state, for observability (logging, tests).
 * @default_tier:  index of the default (fastest unloaded) tier.
 * @p:             share of accesses the default tier serves, R_D/(R_D+R_A),
 *                 from the smoothed arrival rates (0.5 before any data).
 * @p_lo, @p_hi:   Colloid's current search bounds on p.
 * @delta_p:       last |target - p| Colloid computed (0 when balanced).
 * @direction:     last Colloid decision: +1 toward default tier, -1 away,
 *                 0 balanced / off.
 * @lat:           smoothed loaded latency per tier (unit of the
 *                 observations: ns, or occupancy/arrival units).
 * @rate:          smoothed arrivals per second per tier.
 * @pages:         pages currently in each tier.
 * @hot_pages:     pages the baseline policy classes hot, per tier (lazy
 *                 cooling may leave it slightly stale).
 * @used_bytes:    pages[t] * page_size.
 * @free_bytes:    free space per tier as the policy sees it.
 * @last_budget_bytes: migration budget of the last tick (bytes).
 * @last_plan_moves, @last_plan_bytes: size of the last plan.
 * @hot_threshold: policy's current hotness threshold (HeMem: read_hot;
 *                 TPP: hot threshold in ms; MEMTIS: histogram bin; DAMON:
 *                 the promotion scheme's effective quota, bytes per reset
 *                 interval).
 * @total_weight:  decayed sum of all sample weights (probability denominator).
 * @quanta:        ticks so far.
 * @moves_total:   moves planned so far.
 * @samples_total, @faults_total: inputs so far.
 * @ntiers:        number of tiers of the context.
 * @colloid:       1 when Colloid balancing is on.
 */
struct colloid_state {
	unsigned int default_tier;
	double p, p_lo, p_hi, delta_p;
	int direction;
	double lat[COLLOID_MAX_TIERS];
	double rate[COLLOID_MAX_TIERS];
	uint64_t pages[COLLOID_MAX_TIERS];
	uint64_t hot_pages[COLLOID_MAX_TIERS];
	uint64_t used_bytes[COLLOID_MAX_TIERS];
	uint64_t free_bytes[COLLOID_MAX_TIERS];
	double last_budget_bytes;
	uint64_t last_plan_moves, last_plan_bytes;
	double hot_threshold;
	double total_weight;
	uint64_t quanta, moves_total, samples_total, faults_total;
	unsigned int ntiers;
	int colloid;
};

struct colloid_ctx;

/* ---- parameters ---- */

/**
 * colloid_params_default() - fill @p with published defaults for @policy.
 * @policy: a policy name, or NULL for the policy-independent defaults.
 * Return: 0, -EINVAL (@p NULL), -ENOENT (unknown policy).
 */
int colloid_params_default(struct colloid_params *p, const char *policy);

/**
 * colloid_param_set() - set one constant by field name, e.g. "delta".
 * Return: 0, -EINVAL (NULL, or value out of range), -ENOENT (no such name).
 */
int colloid_param_set(struct colloid_params *p, const char *name, double value);

/** colloid_param_get() - read one constant by field name into *@value. Return 0, -EINVAL, -ENOENT. */
int colloid_param_get(const struct colloid_params *p, const char *name, double *value);

/**
 * colloid_param_name() - name and one-line description of parameter @i.
 * @desc: if not NULL, receives a static description string (with unit).
 * Return: static name string, or NULL when @i is past the last parameter.
 */
const char *colloid_param_name(unsigned int i, const char **desc);

/** colloid_policy_name() - name of registered policy @i (in name order), NULL past the last. */
const char *colloid_policy_name(unsigned int i);

/**
 * struct colloid_policy_info - what a policy asks of its mechanism, and the
 * constants of the system's own monitor that a mechanism modelling (or
 * running) that system uses.
 *
 * A mechanism reads these instead of choosing them by the policy's name:
 * colloid_policy_info() derives them from the policy's constants.
 * @quantum_ns:   the tick period the policy is designed for, in ns (the
 *                policy's <name>_quantum_ms, rounded to the nearest ns).
 * @load_period:  PEBS-like sampling period for loads, in events per sample:
 *                hemem_sample_period (HeMem), memtis_load_period (MEMTIS),
 *                tpp_sample_period (TPP decides on hint faults, not
 *                samples; a mechanism that detects accesses by sampling,
 *                to emulate hint faults or to order TPP's LRU, uses it).
 * @store_period: the same for stores.
 * @samples:      1 when the policy ranks pages by colloid_sample() (HeMem,
 *                MEMTIS); 0 when samples only order its LRU (TPP).
 * @hint_faults:  1 when the policy needs colloid_hint_fault() from a page
 *                scanner whose constants are @scan_size_bytes and
 *                @scan_period_ms (TPP); 0 and both 0 otherwise.
 * @scan_size_bytes: bytes the scanner unmaps per scan window.
 * @scan_period_ms:  time the scanner aims to cover the whole task in.
 * @sample_rate_bounded: 1 when the system's sampler raises its period to
 *                bound its own CPU use (MEMTIS), so a mechanism thins the
 *                samples to the rate it can deliver.
 * @cha_poll_ns:  how often the system's latency monitor reads the CHA
 *                counters, in ns; 0 = once per policy quantum (HeMem reads
 *                them in its policy loop).
 * @cha_ewma_alpha: the EWMA weight that monitor smooths with (a mechanism
 *                modelling it sets ewma_alpha to this before its own
 *                overrides).
 * @cha_share:    the share of the true TOR arrivals that monitor's counts
 *                report (1: all CHA boxes are read).
 * @colloid_monitor_cores: cores the latency monitor occupies on its own
 *                with Colloid on (0: it runs inside the policy's thread, or
 *                is not released).
 *
 * @access_checks: 1 when the policy monitors accesses by checking accessed
 *                bits (DAMON): once per quantum the mechanism asks
 *                colloid_access_checks() which pages to check and answers
 *                each with colloid_access_result(); 0 otherwise.
 * @access_check_bytes: the bytes one such check covers (DAMON checks the
 *                folio of one sampled address: a 4 KiB base page, or a
 *                huge page), for a mechanism whose pages are larger.
 *
 * A policy file sets every field its system has; new monitor constants
 * are added here, zero meaning "not this kind of monitor".
 */
struct colloid_policy_info {
	uint64_t quantum_ns;
	double load_period;
	double store_period;
	int samples;
	int hint_faults;
	double scan_size_bytes;
	double scan_period_ms;
	int sample_rate_bounded;
	double cha_poll_ns;
	double cha_ewma_alpha;
	double cha_share;
	double colloid_monitor_cores;
	int access_checks;
	double access_check_bytes;
};

/**
 * colloid_policy_info() - what policy @policy, with constants @p, needs
 * from its mechanism.
 * @p:    constants; NULL = the policy's defaults (colloid_params_default()).
 * @info: receives the answer.
 * Return: 0, -EINVAL (@info NULL, or a constant of @p out of range),
 * -ENOENT (unknown or NULL @policy).
 */
int colloid_policy_info(const char *policy, const struct colloid_params *p,
			struct colloid_policy_info *info);

/* ---- lifecycle ---- */

/**
 * colloid_new() - create a context; the only function that allocates.
 * Return: 0 and *@out set; -EINVAL (bad config), -ENOENT (unknown policy),
 * -ENOMEM.  All pages start in cfg->init_tier.
 */
int colloid_new(const struct colloid_config *cfg, struct colloid_ctx **out);

/**
 * colloid_config_check() - would colloid_new() accept @cfg?  Checks what
 * colloid_new() checks, allocating nothing (for a mechanism's dry run).
 * Return: 0, -EINVAL (bad config), -ENOENT (unknown policy).
 */
int colloid_config_check(const struct colloid_config *cfg);

/** colloid_destroy() - free a context; NULL is allowed. */
void colloid_destroy(struct colloid_ctx *ctx);

/**
 * colloid_ctx_param_set() - change one constant of a live context.
 * Takes effect from the next input or tick.  Return as colloid_param_set().
 */
int colloid_ctx_param_set(struct colloid_ctx *ctx, const char *name, double value);

/** colloid_ctx_params() - copy the live constants to *@p. Return 0 or -EINVAL. */
int colloid_ctx_params(const struct colloid_ctx *ctx, struct colloid_params *p);

/* ---- placement and capacity ---- */

/**
 * colloid_page_set_tier() - tell the library which tier @page is in (initial
 * placement, or a planned move that failed).  Does not check capacity.
 * Return: 0 or -EINVAL.
 */
int colloid_page_set_tier(struct colloid_ctx *ctx, uint64_t page, unsigned int tier);

/** colloid_page_tier() - tier of @page (>= 0) or -EINVAL. */
int colloid_page_tier(const struct colloid_ctx *ctx, uint64_t page);

/**
 * colloid_tier_set_capacity() - change the bytes of @tier the context may use.
 * Return: 0 or -EINVAL.
 */
int colloid_tier_set_capacity(struct colloid_ctx *ctx, unsigned int tier, uint64_t bytes);

/**
 * colloid_tier_set_free() - report free bytes on @tier as the mechanism sees
 * them (other users of the node count).  Until reported, free = capacity -
 * used.  The policy uses min(reported free, capacity - used) and deducts
 * what its own plans consume until the next report.
 * Return: 0 or -EINVAL.
 */
int colloid_tier_set_free(struct colloid_ctx *ctx, unsigned int tier, uint64_t bytes);

/* ---- observations (allocation-free, O(1)) ---- */

/**
 * colloid_sample() - one or more access samples of @page (e.g. PEBS).
 * @is_write: 0 load, 1 store.
 * @weight:   number of samples this call stands for (>= 1).
 * Return: 0 or -EINVAL.
 */
int colloid_sample(struct colloid_ctx *ctx, uint64_t page, int is_write, uint32_t weight);

/**
 * colloid_sample_many() - @n samples of one kind, in order: the same state as
 * colloid_sample(ctx, @pages[k], @is_write, @weight) for k = 0 .. @n - 1, at
 * a lower cost per sample (applied at once, without the input log).
 * Return: 0, or -EINVAL (a page >= npages, @weight 0, @is_write not 0 or 1,
 * or @pages NULL with @n > 0) with no sample applied.
 */
int colloid_sample_many(struct colloid_ctx *ctx, const uint32_t *pages, size_t n, int is_write,
			uint32_t weight);

/**
 * colloid_hint_fault() - a NUMA hint fault on @page.
 * @since_scan_ns: time between the scanner unmapping the page and the fault.
 * @now_ns:        mechanism time of the fault (monotonic).
 * Used by TPP (other policies count it as one read sample).
 * Return: 0 or -EINVAL.
 */
int colloid_hint_fault(struct colloid_ctx *ctx, uint64_t page, uint64_t since_scan_ns,
		       uint64_t now_ns);

/**
 * colloid_observe_cha() - one latency observation of @tier as CHA TOR
 * counters give it, over an interval of @interval_ns:
 * @occupancy: occupancy integral over the interval: the sum, over every
 *             time unit of the interval, of the requests in the queue
 *             (TOR occupancy counter delta), i.e. requests x time unit;
 *             the time unit becomes the unit of the latency (use ns, or
 *             the same clock for every tier: only ratios are compared);
 * @arrivals:  requests that arrived (TOR inserts) in the interval.
 * The library smooths occupancy and arrivals separately with an EWMA of
 * weight ewma_alpha and uses L = occ/arrivals (Little's law), as the
 * released colloid-mon does.  Rate = arrivals / interval.
 * Return: 0 or -EINVAL (negative or non-finite values, interval 0).
 */
int colloid_observe_cha(struct colloid_ctx *ctx, unsigned int tier, double occupancy,
			double arrivals, uint64_t interval_ns);

/**
 * colloid_observe_ns() - one latency observation of @tier in nanoseconds:
 * mean load latency @latency_ns over @accesses accesses in @interval_ns.
 * Equivalent to colloid_observe_cha(occupancy = latency*accesses, accesses).
 * Return: 0 or -EINVAL.
 */
int colloid_observe_ns(struct colloid_ctx *ctx, unsigned int tier, double latency_ns,
		       double accesses, uint64_t interval_ns);

/**
 * colloid_uses_latency() - whether @ctx's decisions read the latency
 * observations (colloid_observe_cha(), colloid_observe_ns()): with Colloid
 * on, for every policy (its balancing; DAMON's user_input quota goals).
 * Without Colloid no decision reads them (the released systems read no CHA
 * counter either), so a mechanism may leave them unfed; colloid_get_state()
 * then reports the latency of the last observation, or none.
 * Return: 1 or 0 (0 also for a NULL @ctx).
 */
int colloid_uses_latency(const struct colloid_ctx *ctx);

/**
 * colloid_access_checks() - the pages whose accessed bit the policy asks
 * the mechanism to check over the quantum that starts now (a policy with
 * colloid_policy_info().access_checks; DAMON's prepare_access_checks: the
 * bit of one sampled page per monitoring region is cleared at the end of
 * each tick).  The mechanism answers, before the next tick, whether each
 * page was accessed since, with colloid_access_result().
 * @pages: receives at most @cap page indices; @n: receives how many.
 * Return: 0 (*@n = 0 for a policy without such a monitor) or -EINVAL.
 */
int colloid_access_checks(const struct colloid_ctx *ctx, uint64_t *pages, size_t cap, size_t *n);

/**
 * colloid_access_result() - the answer to one check colloid_access_checks()
 * named: @accessed 1 when @page was accessed since the last tick, else 0.
 * Other pages and policies without the monitor ignore it.
 * Return: 0 or -EINVAL.
 */
int colloid_access_result(struct colloid_ctx *ctx, uint64_t page, int accessed);

/* ---- decisions ---- */

/**
 * colloid_tick() - end of a quantum: decide and return a migration plan.
 * @now_ns:     mechanism time at the end of the quantum (monotonic).
 * @quantum_ns: length of the quantum that ended (> 0).
 * @plan:       caller array receiving at most @cap moves (may be NULL if
 *              @cap is 0).
 * @n_out:      receives the number of moves written.
 * The plan never exceeds @cap, the migration budget (Colloid) or
 * migrate_limit_Bps * quantum (everyone), nor any tier's capacity when
 * applied in order.  The library records the plan as applied.
 * Return: 0 or -EINVAL.
 */
int colloid_tick(struct colloid_ctx *ctx, uint64_t now_ns, uint64_t quantum_ns,
		 struct colloid_move *plan, size_t cap, size_t *n_out);

/** colloid_ctx_policy() - policy name of @ctx ("hemem", ...), NULL if @ctx is NULL. */
const char *colloid_ctx_policy(const struct colloid_ctx *ctx);

/**
 * colloid_ctx_policy_info() - colloid_policy_info() for the policy and the
 * live constants of @ctx.  Return: 0 or -EINVAL.
 */
int colloid_ctx_policy_info(const struct colloid_ctx *ctx, struct colloid_policy_info *info);

/** colloid_get_state() - snapshot policy state into *@st. Return 0 or -EINVAL. */
int colloid_get_state(const struct colloid_ctx *ctx, struct colloid_state *st);

/**
 * colloid_page_prob() - the policy's estimate of @page's share of all
 * accesses (decayed sample weight / total), in [0,1].  NAN for bad args.
 */
double colloid_page_prob(const struct colloid_ctx *ctx, uint64_t page);

/* ---- mechanism operations table ---- */

/**
 * struct colloid_ops - what a mechanism implements (model or real host).
 * @name:    mechanism name, for logs.
 * @observe: feed the observations of the quantum ending at @now_ns into
 *           @ctx (colloid_sample(), colloid_hint_fault(),
 *           colloid_observe_*(), colloid_tier_set_free()).  Return 0 or
 *           -errno (aborts the step).
 * @migrate: apply @n moves in order; set *@done to the number of leading
 *           moves that succeeded (moves after *@done are treated as failed
 *           and the library puts those pages back in their @from tier).
 *           A mechanism whose moves can fail out of order instead reports
 *           each failed move with colloid_page_set_tier() (on the context
 *           it drives) and sets *@done = @n.
 *           Return 0 or -errno.  May be NULL: the plan is then left in
 *           the buffer for the caller to apply, as with colloid_tick().
 * @priv:    not used by the library; the @priv argument of colloid_step()
 *           is passed to both callbacks.
 */
struct colloid_ops {
	const char *name;
	int (*observe)(void *priv, struct colloid_ctx *ctx, uint64_t now_ns, uint64_t quantum_ns);
	int (*migrate)(void *priv, const struct colloid_move *moves, size_t n, size_t *done);
};

/**
 * colloid_step() - one quantum through an ops table: observe, tick, migrate,
 * and correct the page map for moves that failed.
 * @buf, @cap: plan buffer owned by the caller.
 * @applied:   if not NULL, receives the number of moves that succeeded.
 * Return: 0, -EINVAL, or the first error a callback returned.
 */
int colloid_step(struct colloid_ctx *ctx, const struct colloid_ops *ops, void *priv,
		 uint64_t now_ns, uint64_t quantum_ns, struct colloid_move *buf, size_t cap,
		 size_t *applied);

#ifdef __cplusplus
}
#endif

#endif /* COLLOID_H */
