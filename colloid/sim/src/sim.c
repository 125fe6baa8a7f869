// SPDX-License-Identifier: MIT
/*
 * sim.c - the tiersim main loop: a mechanism for libcolloid on model tiers.
 *
 * Per quantum:
 *   1. phase events due at the quantum's start are applied;
 *   2. the traffic fixed point is solved with the current placement (p) and
 *      the previous quantum's migration traffic;
 *   3. colloid_step() runs the policy through tiersim's operations table:
 *      observe feeds what the policy's mechanism would see, as its
 *      colloid_policy_info() says (PEBS-like samples; with hint_faults,
 *      hint faults from Linux's scanner, shared with tierd in colloid/mech/,
 *      and accessed-bit references; with access_checks, the accessed-bit
 *      checks of the pages its monitor sampled; CHA-style per-tier
 *      occupancy/arrivals polled every cha_poll_ns); the library ticks; migrate applies the plan, and the
 *      bytes moved load both tiers in the next quantum.
 * The policy's quantum and sampling periods come from libcolloid
 * (colloid_policy_info()).  Metrics are averaged over the quanta of each
 * simulated second.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "colloid.h"
#include "mech.h"
#include "sim.h"

volatile sig_atomic_t sim_stop_signal;

enum metric {
	M_THROUGHPUT,
	M_LAT_D,
	M_LAT_A,
	M_P,
	M_HOT_ALT,
	M_MIGR,
	M_ANTAG_BW,
	M_BW_D,
	M_BW_A,
	M_INTENSITY,
	M_UTIL_D,
	M_UTIL_A,
	M_BEYOND_D,
	M_BEYOND_A,
	M_COUNT
};

static const char *const metric_name[M_COUNT] = {
	"throughput",	     "latency_default",	  "latency_alternate", "p",
	"hot_in_alternate",  "migration_rate",	  "antagonist_bandwidth",
	"bandwidth_default", "bandwidth_alternate", "intensity",
	"default_bandwidth_utilization", "alternate_bandwidth_utilization",
	"default_beyond_curve", "alternate_beyond_curve",
};

static const char *const metric_unit[M_COUNT] = {
	"Mops/s", "ns", "ns", "fraction", "GiB", "MB/s", "MB/s", "MB/s", "MB/s", "x",
	"fraction", "fraction", "fraction", "fraction",
};

/*
 * One output file.  A regular file (or a new one) is written to
 * "<target>.tmp.<pid>" in the same directory and renamed over <target> (the
 * path, or the file a symlink at the path names) only when the run
 * succeeds; stdout ("-") and existing non-regular files (/dev/null, a FIFO)
 * are written directly.
 */
struct sim_out {
	const char *path;	/* as given */
	const char *what;	/* "time series", "summary" */
	char *target;		/* what the temporary file replaces */
	char *tmp;		/* NULL: written directly */
	FILE *f;
};

struct sim {
	const struct sim_cfg *cfg;
	const char *prog;
	struct curve_set tier[2];
	struct workload *wl;
	struct rng rng_wl, rng_obs, rng_scan, rng_cha, rng_ref, rng_chk;
	struct alias alias;
	uint64_t alias_version;

	/* placement */
	uint64_t nreg, region;
	uint8_t *where;		/* tier of each region: 0 default, 1 alternate */
	uint64_t cap_reg[2], used_reg[2];
	double p;		/* true share of accesses to default */
	uint64_t hot_alt;	/* hot regions in the alternate tier */

	/* policy */
	struct colloid_ctx *ctx;
	struct colloid_params prm;
	struct colloid_policy_info info;	/* zero for system=static */
	struct colloid_move *plan;
	size_t plan_cap;
	double cpu_ns;		/* CPU time inside libcolloid */
	double cb_ns;		/* CPU time in tiersim's callbacks of one colloid_step() */
	int cb_failed;		/* a callback reported its error (one line printed) */
	double migr;		/* bytes the plan of this quantum moved */

	/* observation buffers */
	uint32_t *sbuf;		/* the pages of one quantum's samples */
	size_t sbuf_cap;
	double cha_poll_ns;	/* CHA read interval: --cha-poll-us or the system's monitor */
	double cha_share;	/* share of the app's reads its arrival counts report */
	/* hint-fault scanner (colloid/mech) and the faults it has armed */
	struct mech_scan scan;
	uint64_t scan_t0;	/* start of the quantum being scanned */
	double scan_qns;
	uint8_t *pending;
	struct fault_heap heap;
	struct fault_ev *fbuf;
	size_t fbuf_cap;
	double *cbuf;		/* CHA polls of one quantum */
	size_t cbuf_cap;
	/* accessed-bit checks of one quantum (colloid_access_checks()) */
	uint64_t *kbuf;
	size_t kbuf_cap;

	/* traffic state */
	double intensity;
	double mig_bytes_prev;	/* bytes moved during the previous quantum */
	double mig_to_d_prev;	/* of which into the default tier */
	double mig_to_d;
	double rr_d, rr_a;
	struct traffic_out tr;
	struct traffic_in prev_in;
	int have_prev_in;
	double lines_per_obj;

	/* output */
	struct sim_out out_ts, out_sum;	/* out_ts.f NULL: no time series */
	double *series;		/* [nsteps][M_COUNT] */
	size_t nsteps;
};

static int fail(struct sim *s, const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: error: ", s->prog);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return 1;
}

static double cpu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* adds the CPU time of @stmt to @acc (when timing) */
#define CPU_TIME(s, acc, stmt)                           \
	do {                                             \
		double t0_ = (s)->cfg->timing ? cpu_now_ns() : 0; \
		stmt;                                    \
		if ((s)->cfg->timing)                    \
			(acc) += cpu_now_ns() - t0_;     \
	} while (0)
/* time spent inside libcolloid: the library calls of tiersim's callbacks */
#define TIMED(s, stmt) CPU_TIME(s, (s)->cpu_ns, stmt)
/* a callback's own time, taken out of colloid_step()'s (model work is not
 * the policy's) */
#define CALLBACK(s, stmt) CPU_TIME(s, (s)->cb_ns, stmt)

/* ---------------------------------------------------------- placement */

static void move_region(struct sim *s, uint64_t r, unsigned int to)
{
	unsigned int from = s->where[r];

	if (from == to)
		return;
	s->used_reg[from]--;
	s->used_reg[to]++;
	s->where[r] = (uint8_t)to;
	if (to == 0)
		s->p += s->wl->prob[r];
	else
		s->p -= s->wl->prob[r];
	if (s->wl->hot[r])
		s->hot_alt += to == 1 ? 1 : (uint64_t)-1;
}

/* exact recomputation (removes rounding drift of the incremental sum) */
static void recount(struct sim *s)
{
	double p = 0.0;
	uint64_t i, h = 0;

	for (i = 0; i < s->nreg; i++) {
		if (s->where[i] == 0)
			p += s->wl->prob[i];
		else if (s->wl->hot[i])
			h++;
	}
	s->p = p;
	s->hot_alt = h;
}

static void initial_placement(struct sim *s)
{
	uint64_t i, nd = 0;

	s->used_reg[0] = s->used_reg[1] = 0;
	if (!s->cfg->policy) {
		uint64_t nhot = 0, want, k = 0;

		for (i = 0; i < s->nreg; i++)
			nhot += s->wl->hot[i];
		want = (uint64_t)llround(s->cfg->static_hot_fraction * (double)nhot);
		if (want > s->cap_reg[0])
			want = s->cap_reg[0];
		for (i = 0; i < s->nreg; i++)
			s->where[i] = 1;
		for (i = 0; i < s->nreg && k < want; i++)
			if (s->wl->hot[i]) {
				s->where[i] = 0;
				k++;
			}
		nd = k;
		for (i = 0; i < s->nreg && nd < s->cap_reg[0]; i++)
			if (!s->wl->hot[i]) {
				s->where[i] = 0;
				nd++;
			}
	} else if (s->cfg->start_alternate) {
		/* bound to the alternate tier at start: the policy promotes from there */
		for (i = 0; i < s->nreg; i++)
			s->where[i] = 1;
	} else {
		/* first touch: the working set is initialised in address order
		 * and fills the default tier first */
		for (i = 0; i < s->nreg; i++) {
			s->where[i] = nd < s->cap_reg[0] ? 0 : 1;
			nd += s->where[i] == 0;
		}
	}
	for (i = 0; i < s->nreg; i++)
		s->used_reg[s->where[i]]++;
	recount(s);
}

/* the quantum: --quantum-ms, else the policy's own period
 * (colloid_policy_info()), else (system=static, no policy) 10 ms */
static uint64_t policy_quantum_ns(const struct sim *s)
{
	if (s->cfg->quantum_ns)
		return s->cfg->quantum_ns;
	return s->info.quantum_ns ? s->info.quantum_ns : 10000000ULL;
}

/* --------------------------------------------------------------- policy */

/* the library's constants for the system: published defaults, the
 * system's own monitor, then --delta-p and --param.  0, or 2 after one
 * error line. */
static int policy_params(struct sim *s)
{
	const struct sim_cfg *c = s->cfg;
	int i, ret;

	ret = colloid_params_default(&s->prm, c->policy);
	if (!ret)
		ret = colloid_policy_info(c->policy, NULL, &s->info);
	if (ret) {
		fail(s, "libcolloid does not know policy %s", c->policy);
		return 2;
	}
	if (c->dp_mode >= 0)
		s->prm.dp_mode = c->dp_mode;
	/* the system's own monitor smooths with its own weight
	 * (colloid_policy_info(): cha_ewma_alpha, e.g. colloid-mon's 1/32) */
	if (s->info.cha_ewma_alpha > 0)
		s->prm.ewma_alpha = s->info.cha_ewma_alpha;
	if (mech_params_apply(&s->prm, c->par, c->npar, &i)) {
		fail(s, "libcolloid rejected --param %s", c->par[i].name);
		return 2;
	}
	ret = colloid_policy_info(c->policy, &s->prm, &s->info);
	if (ret) {
		fail(s, "libcolloid rejects the parameters together: %s", strerror(-ret));
		return 2;
	}
	return 0;
}

/*
 * What a run checks before it starts, beyond the options main() checked:
 * the curves, the workload's layout, the capacities; for a policy, its
 * constants, the tier order and libcolloid's configuration; the quantum.
 * Fills s->tier, s->region, s->nreg, s->cap_reg, s->prm, s->info and *cc.
 * Returns 0, or 2 after one error line (a bad argument).
 */
static int validate(struct sim *s, struct colloid_config *cc)
{
	const struct sim_cfg *c = s->cfg;
	char err[512];
	uint64_t qns;
	int i, ret;

	for (i = 0; i < 2; i++) {
		ret = curve_load(&s->tier[i], c->tier_spec[i], err, sizeof(err));
		if (ret) {
			fail(s, "%s", err);
			return 2;
		}
	}
	ret = workload_layout(c->working_set, c->hot_set, c->object_bytes, c->region_size,
			      &s->nreg);
	if (ret) {
		fail(s, "cannot create workload: %s", strerror(-ret));
		return 2;
	}
	s->region = c->region_size;
	if (s->nreg >= UINT32_MAX) {
		fail(s, "%s", "too many regions");
		return 2;
	}
	for (i = 0; i < 2; i++) {
		double cap = c->capacity[i];

		if (cap < 0)
			cap = i == 0 ? c->working_set / 3.0 : c->working_set;
		s->cap_reg[i] = (uint64_t)floor(cap / (double)s->region + 1e-9);
	}
	if (s->cap_reg[0] + s->cap_reg[1] < s->nreg) {
		fail(s, "%s", "the two tiers' capacities do not hold the working set");
		return 2;
	}
	if (c->start_alternate && s->cap_reg[1] < s->nreg) {
		fail(s, "%s", "the alternate tier's capacity does not hold the working set it starts in (--start-tier alternate)");
		return 2;
	}
	if (c->policy) {
		ret = policy_params(s);
		if (ret)
			return ret;
		memset(cc, 0, sizeof(*cc));
		cc->policy = c->policy;
		cc->colloid = c->colloid;
		cc->ntiers = 2;
		for (i = 0; i < 2; i++) {
			cc->tiers[i].capacity_bytes = s->cap_reg[i] * s->region;
			cc->tiers[i].unloaded_latency_ns =
				curve_unloaded(&s->tier[i], 1.0 / (1.0 + workload_write_frac(c->rmw)));
		}
		/* the default tier must be the faster one for the library too */
		if (!(cc->tiers[0].unloaded_latency_ns < cc->tiers[1].unloaded_latency_ns)) {
			fail(s, "%s", "the default tier's unloaded latency must be below the alternate tier's");
			return 2;
		}
		cc->npages = s->nreg;
		cc->page_size = s->region;
		cc->init_tier = 1;
		cc->params = &s->prm;
		ret = colloid_config_check(cc);
		if (ret) {
			fail(s, "libcolloid rejects the configuration: %s", strerror(-ret));
			return 2;
		}
	}
	qns = policy_quantum_ns(s);
	if (qns == 0 || 1000000000ULL % qns) {
		fail(s, "%s", "the quantum must divide 1 s");
		return 2;
	}
	return 0;
}

static int policy_init(struct sim *s, struct colloid_config *cc)
{
	const struct sim_cfg *c = s->cfg;
	int ret;
	double qs;

	ret = colloid_new(cc, &s->ctx);
	if (ret)
		return fail(s, "colloid_new failed: %s", strerror(-ret));
	for (uint64_t r = 0; r < s->nreg; r++)
		if (s->where[r] == 0 && colloid_page_set_tier(s->ctx, r, 0))
			return fail(s, "%s", "colloid_page_set_tier failed");
	/* the plan holds twice the static limit of one quantum (sized with the
	 * policy's quantum when --quantum-ms is not given) */
	qs = (double)policy_quantum_ns(s) * 1e-9;
	/* the system's own monitor (colloid_policy_info()): its poll interval
	 * (0: once per policy quantum) and the share of the arrivals it counts */
	s->cha_poll_ns = c->cha_poll_us > 0 ? c->cha_poll_us * 1e3 :
			 s->info.cha_poll_ns > 0 ? s->info.cha_poll_ns : qs * 1e9;
	s->cha_share = c->cha_share > 0 ? c->cha_share :
		       s->info.cha_share > 0 ? s->info.cha_share : 1.0;
	if (s->info.hint_faults &&
	    mech_scan_init(&s->scan, &s->info, s->nreg, s->region, c->working_set, c->colloid))
		return fail(s, "%s", "cannot set up the hint-fault scanner");
	s->plan_cap = mech_plan_cap(&s->prm, policy_quantum_ns(s), s->region);
	s->plan = malloc(s->plan_cap * sizeof(*s->plan));
	if (!s->plan)
		return fail(s, "%s", "out of memory");
	return 0;
}

/* room for @n samples in sbuf; 0, or 1 after one error line */
static int sbuf_reserve(struct sim *s, size_t n)
{
	uint32_t *nb;

	if (n <= s->sbuf_cap)
		return 0;
	nb = realloc(s->sbuf, n * sizeof(*nb));
	if (!nb)
		return fail(s, "%s", "out of memory");
	s->sbuf = nb;
	s->sbuf_cap = n;
	return 0;
}

/* PEBS-like samples: one load event and (RMW) one store event per object
 * access (the first line of an object misses; the prefetched rest does not
 * count as a miss), taken every load_period / store_period events and drawn
 * from the true probabilities.  A fixed period delivers every sample.  A
 * sampler that raises its period to bound its CPU use
 * (colloid_policy_info(): sample_rate_bounded; the policy file says whose)
 * is modelled by thinning the samples to at most pebs_max_rate per second.
 * Each delivered sample counts one, so a raised period also stretches a
 * policy's per-sample cooling and adaptation in time. */
static int feed_samples(struct sim *s, double qns)
{
	double acc = s->tr.xa * qns;
	double ev_l = acc / s->info.load_period;
	double ev_s = s->wl->write_frac > 0 ? acc / s->info.store_period : 0;
	double qs = qns * 1e-9, k = 1;
	uint64_t nl, ns, i, n;
	int ret;

	if (s->info.sample_rate_bounded)
		k = ceil((ev_l + ev_s) / (s->cfg->pebs_max_rate * qs));
	if (k < 1)
		k = 1;
	nl = rng_poisson(&s->rng_obs, ev_l / k);
	ns = rng_poisson(&s->rng_obs, ev_s / k);
	n = nl + ns;
	if (sbuf_reserve(s, n))
		return 1;
	for (i = 0; i < n; i++)
		s->sbuf[i] = (uint32_t)alias_draw(&s->alias, &s->rng_obs);
	/* the loads, then the stores: as one colloid_sample() each, in order */
	TIMED(s, ret = colloid_sample_many(s->ctx, s->sbuf, nl, 0, 1);
	      if (!ret) ret = colloid_sample_many(s->ctx, s->sbuf + nl, ns, 1, 1));
	if (ret)
		return fail(s, "colloid_sample_many failed: %s", strerror(-ret));
	return 0;
}

/* A hint-fault system (colloid_policy_info(): hint_faults): the accessed
 * bits that reclaim's LRU aging reads.  Linux demotes
 * only default-tier pages that were not referenced since their last check
 * (folio_referenced() tests and clears the accessed bit); referenced ones
 * are rotated or activated.  The pages kswapd finds idle are therefore those
 * with the longest idle times: reclaim approximates an LRU by last access.
 * Without these references the library's LRU would only know when each page
 * entered the default tier, and kswapd would demote hot and cold pages alike.
 * The model reports ref_rate references per second, each drawn from the
 * true access probabilities: a thinned access stream.  Each reference moves
 * its page to the head of its tier's LRU, so a page's place follows its last
 * reported access; for two resident pages with access rates a < b the
 * colder one is behind with probability b/(a+b), as for the true last
 * accesses, whatever the rate, once each page has had a few references
 * (rate x its share of accesses x its residence >> 1; docs/tier-model.md). */
static int feed_refs(struct sim *s, double qns)
{
	double mean = s->cfg->ref_rate * qns * 1e-9;
	uint64_t n, i;
	int ret;

	if (!(mean > 0))
		return 0;
	n = rng_poisson(&s->rng_ref, mean);
	if (sbuf_reserve(s, n))
		return 1;
	for (i = 0; i < n; i++)
		s->sbuf[i] = (uint32_t)alias_draw(&s->alias, &s->rng_ref);
	TIMED(s, ret = colloid_sample_many(s->ctx, s->sbuf, n, 0, 1));
	if (ret)
		return fail(s, "colloid_sample_many failed: %s", strerror(-ret));
	return 0;
}

/*
 * A hint-fault system: Linux's scanner (colloid/mech: task_numa_work() with
 * the window period of task_scan_min()) walks the address space in order;
 * without Colloid it leaves default-tier pages mapped, with Colloid it
 * unmaps both tiers (mech_scan_init()).  The
 * first access to an unmapped region takes a hint fault after an
 * exponential time with the region's true access rate; the walk is spread
 * over the quantum.
 */
static int scan_tier(void *priv, uint64_t r)
{
	return ((const struct sim *)priv)->where[r];
}

static int scan_visit(void *priv, uint64_t r, uint64_t i, uint64_t nscan)
{
	struct sim *s = priv;
	double lam = s->tr.xa * s->wl->prob[r]; /* accesses/ns to the region */
	struct fault_ev ev;

	if (s->pending[r] || !(lam > 0))
		return 0;
	ev.scan_ns = s->scan_t0 + (uint64_t)((double)i * s->scan_qns / (double)nscan);
	ev.t_ns = ev.scan_ns + (uint64_t)fmin(rng_exp(&s->rng_scan, lam), 1e15);
	ev.page = r;
	if (fheap_push(&s->heap, ev)) {
		fail(s, "%s", "out of memory");
		return -ENOMEM;
	}
	s->pending[r] = 1;
	return 0;
}

static int feed_faults(struct sim *s, uint64_t t0, double qns)
{
	uint64_t i, nf = 0, t1 = t0 + (uint64_t)qns;

	s->scan_t0 = t0;
	s->scan_qns = qns;
	if (mech_scan_quantum(&s->scan, qns, scan_tier, scan_visit, s))
		return 1;
	while (s->heap.n && s->heap.v[0].t_ns < t1) {
		if (nf == s->fbuf_cap) {
			size_t nc = s->fbuf_cap ? 2 * s->fbuf_cap : 1024;
			struct fault_ev *nb = realloc(s->fbuf, nc * sizeof(*nb));

			if (!nb)
				return fail(s, "%s", "out of memory");
			s->fbuf = nb;
			s->fbuf_cap = nc;
		}
		fheap_pop(&s->heap, &s->fbuf[nf]);
		s->pending[s->fbuf[nf].page] = 0;
		nf++;
	}
	TIMED(s, for (i = 0; i < nf; i++)
		colloid_hint_fault(s->ctx, s->fbuf[i].page, s->fbuf[i].t_ns - s->fbuf[i].scan_ns,
				   s->fbuf[i].t_ns));
	return 0;
}

/* after a phase event the pending faults' times follow the new rates
 * (exponential times are memoryless, so redrawing from now is exact) */
static int redraw_faults(struct sim *s, uint64_t now)
{
	struct fault_heap old = s->heap;
	size_t i;

	memset(&s->heap, 0, sizeof(s->heap));
	for (i = 0; i < old.n; i++) {
		struct fault_ev ev = old.v[i];
		double lam = s->tr.xa * s->wl->prob[ev.page];

		if (!(lam > 0)) {
			s->pending[ev.page] = 0;
			continue;
		}
		ev.t_ns = now + (uint64_t)fmin(rng_exp(&s->rng_scan, lam), 1e15);
		if (fheap_push(&s->heap, ev)) {
			fheap_free(&old);
			return fail(s, "%s", "out of memory");
		}
	}
	fheap_free(&old);
	return 0;
}

/*
 * Accessed-bit checks (colloid_policy_info(): access_checks) of the pages the
 * policy sampled, one per monitoring region, as the kernel's monitor does
 * (mm/damon/paddr.c: damon_pa_mkold(), damon_pa_young()): cleared at the
 * start of a sampling interval, read at its end.  A check covers
 * access_check_bytes of its region (a base page of a 2 MiB region; objects
 * spread uniformly over a region): it finds the page accessed with the
 * probability of at least one access in the quantum, 1 - exp(-rate x
 * quantum), rate the region's true access rate times the share it covers.
 */
static int feed_checks(struct sim *s, double qns)
{
	double share = fmin(1.0, s->info.access_check_bytes / (double)s->region);
	size_t n = 0, i;

	if (!(share > 0))
		share = 1.0;
	for (;;) {
		if (s->kbuf_cap && colloid_access_checks(s->ctx, s->kbuf, s->kbuf_cap, &n))
			return fail(s, "%s", "colloid_access_checks failed");
		if (s->kbuf_cap && n < s->kbuf_cap)
			break;
		{
			size_t nc = s->kbuf_cap ? 2 * s->kbuf_cap : 4096;
			uint64_t *nb = realloc(s->kbuf, nc * sizeof(*nb));

			if (!nb)
				return fail(s, "%s", "out of memory");
			s->kbuf = nb;
			s->kbuf_cap = nc;
		}
	}
	for (i = 0; i < n; i++) {
		double lam = s->tr.xa * s->wl->prob[s->kbuf[i]] * share;

		if (lam > 0 && rng_uniform(&s->rng_chk) < -expm1(-lam * qns))
			s->kbuf[i] |= 1ull << 63;
	}
	TIMED(s, for (i = 0; i < n; i++)
		colloid_access_result(s->ctx, s->kbuf[i] & ~(1ull << 63), (int)(s->kbuf[i] >> 63)));
	return 0;
}

/* CHA-style latency: every cha_poll_ns the monitor reads per-tier TOR
 * occupancy and inserts of the application's demand reads (cha_share of
 * them: what the system's monitor counts); the library smooths both with
 * its EWMA and divides (Little's law), as colloid-mon does.  Latency varies around the true loaded latency by a lognormal factor
 * of sigma cha_noise per poll. */
static int feed_cha(struct sim *s, double qns)
{
	double dt = s->cha_poll_ns;
	uint64_t npoll = (uint64_t)llround(qns / dt), i;
	double rd = s->tr.xa * s->lines_per_obj * s->p;
	double ra = s->tr.xa * s->lines_per_obj * (1 - s->p);
	double sig = s->cfg->cha_noise, occ[2], arr[2];
	uint64_t idt;

	if (npoll < 1)
		npoll = 1;
	dt = qns / (double)npoll;
	idt = (uint64_t)llround(dt);
	if (!idt)
		idt = 1;
	if (npoll > s->cbuf_cap) {
		double *nb = realloc(s->cbuf, npoll * 2 * sizeof(*nb));

		if (!nb)
			return fail(s, "%s", "out of memory");
		s->cbuf = nb;
		s->cbuf_cap = npoll;
	}
	arr[0] = rd * dt * s->cha_share;
	arr[1] = ra * dt * s->cha_share;
	for (i = 0; i < npoll; i++) {
		occ[0] = arr[0] * s->tr.ld * exp(sig * rng_normal(&s->rng_cha) - 0.5 * sig * sig);
		occ[1] = arr[1] * s->tr.la * exp(sig * rng_normal(&s->rng_cha) - 0.5 * sig * sig);
		s->cbuf[2 * i] = occ[0];
		s->cbuf[2 * i + 1] = occ[1];
	}
	TIMED(s, for (i = 0; i < npoll; i++) {
		colloid_observe_cha(s->ctx, 0, s->cbuf[2 * i], arr[0], idt);
		colloid_observe_cha(s->ctx, 1, s->cbuf[2 * i + 1], arr[1], idt);
	});
	return 0;
}

/* apply the plan; returns bytes moved */
static double apply_plan(struct sim *s, const struct colloid_move *plan, size_t n)
{
	double bytes = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct colloid_move *m = &plan[i];

		if (m->page >= s->nreg || m->to > 1 || s->where[m->page] != m->from ||
		    s->used_reg[m->to] >= s->cap_reg[m->to]) {
			/* failed move: tell the library where the page really is */
			if (m->page < s->nreg)
				TIMED(s, colloid_page_set_tier(s->ctx, m->page, s->where[m->page]));
			continue;
		}
		move_region(s, m->page, m->to);
		bytes += (double)s->region;
		if (m->to == 0)
			s->mig_to_d += (double)s->region;
	}
	return bytes;
}

/* ------------------------------------------------- operations table */

/* what the policy's mechanism sees in the quantum ending at @now */
static int sim_observe(void *priv, struct colloid_ctx *ctx, uint64_t now, uint64_t qns)
{
	struct sim *s = priv;
	int ret = 0;

	(void)ctx;
	CALLBACK(s, {
		if (s->info.samples)
			ret = feed_samples(s, (double)qns);
		if (!ret && s->info.hint_faults)
			ret = feed_refs(s, (double)qns) || feed_faults(s, now - qns, (double)qns);
		if (!ret && s->info.access_checks)
			ret = feed_checks(s, (double)qns);
		/* the CHA counters only where a decision reads them (with Colloid): without, neither the
		 * released systems nor the library look at them, and their draws (a stream of their own,
		 * rng_cha) were a sixth of the instructions of a point whose monitor polls every 200 us */
		if (!ret && colloid_uses_latency(s->ctx))
			ret = feed_cha(s, (double)qns);
	});
	s->cb_failed = ret != 0;
	return ret ? -EIO : 0;
}

/* moves that fail are reported one by one (colloid_page_set_tier()) */
static int sim_migrate(void *priv, const struct colloid_move *plan, size_t n, size_t *done)
{
	struct sim *s = priv;

	CALLBACK(s, s->migr += apply_plan(s, plan, n));
	*done = n;
	return 0;
}

static const struct colloid_ops sim_ops = {
	.name = "tiersim",
	.observe = sim_observe,
	.migrate = sim_migrate,
};

/* one quantum of the policy; the time inside libcolloid goes to cpu_ns */
static int policy_step(struct sim *s, uint64_t now, uint64_t qns)
{
	double t0 = s->cfg->timing ? cpu_now_ns() : 0;
	int ret;

	s->cb_ns = 0;
	ret = colloid_step(s->ctx, &sim_ops, s, now, qns, s->plan, s->plan_cap, NULL);
	if (s->cfg->timing)
		s->cpu_ns += cpu_now_ns() - t0 - s->cb_ns;
	if (ret && !s->cb_failed)
		fprintf(stderr, "%s: error: colloid_step failed: %s\n", s->prog, strerror(-ret));
	return ret ? 1 : 0;
}

/* ---------------------------------------------------------------- output */

static int out_fail(struct sim *s, const struct sim_out *o, int err, int ret)
{
	fprintf(stderr, "%s: error: cannot write %s file %s: %s\n", s->prog, o->what, o->path,
		strerror(err));
	return ret;
}

/*
 * Opens output @o for @path ("-": stdout) before any work.  Returns 0, or 2
 * (a bad argument: one line on stderr) when it cannot be written.  @other,
 * already open, must not be the same file.
 */
static int out_open(struct sim *s, struct sim_out *o, const char *path, const char *what,
		    const struct sim_out *other)
{
	struct stat st, ost;
	mode_t mode = 0;
	size_t len;
	int fd;

	o->path = path;
	o->what = what;
	if (!strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return out_fail(s, o, EISDIR, 2);
		if (!S_ISREG(st.st_mode)) {
			o->f = fopen(path, "w");
			return o->f ? 0 : out_fail(s, o, errno, 2);
		}
		if (access(path, W_OK))
			return out_fail(s, o, errno, 2);
		mode = st.st_mode & 0777;
	} else if (errno != ENOENT) {
		return out_fail(s, o, errno, 2);
	}
	/* a symlink stays a symlink: replace the file it names */
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		o->target = realpath(path, NULL);
	if (!o->target)
		o->target = strdup(path);
	if (!o->target)
		return out_fail(s, o, ENOMEM, 1);
	len = strlen(o->target) + 32;
	o->tmp = malloc(len);
	if (!o->tmp)
		return out_fail(s, o, ENOMEM, 1);
	snprintf(o->tmp, len, "%s.tmp.%ld", o->target, (long)getpid());
	if (other && other->tmp && stat(o->tmp, &st) == 0 && !fstat(fileno(other->f), &ost) &&
	    st.st_dev == ost.st_dev && st.st_ino == ost.st_ino) {
		fprintf(stderr, "%s: error: the %s and %s files are the same file %s\n", s->prog,
			other->what, what, path);
		free(o->tmp);
		o->tmp = NULL;
		return 2;
	}
	fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0) {
		int err = errno;

		free(o->tmp);
		o->tmp = NULL;
		return out_fail(s, o, err, 2);
	}
	if (mode)
		(void)fchmod(fd, mode);	/* as writing over the old file would keep it */
	o->f = fdopen(fd, "w");
	if (!o->f) {
		int err = errno;

		close(fd);
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
		return out_fail(s, o, err, 1);
	}
	return 0;
}

/* Flushes and closes @o (stdout is only flushed), reporting any write error
 * on the way; a temporary file stays for out_rename(). */
static int out_close(struct sim *s, struct sim_out *o)
{
	int bad;

	if (!o->f)
		return 0;
	errno = 0;
	bad = ferror(o->f);
	bad = (o->f == stdout ? fflush(o->f) : fclose(o->f)) || bad;
	o->f = NULL;
	return bad ? out_fail(s, o, errno ? errno : EIO, 1) : 0;
}

static int out_rename(struct sim *s, struct sim_out *o)
{
	if (!o->tmp)
		return 0;
	if (rename(o->tmp, o->target))
		return out_fail(s, o, errno, 1);
	free(o->tmp);
	o->tmp = NULL;
	return 0;
}

/* Closes @o if open and removes its temporary file, if any. */
static void out_discard(struct sim_out *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	else if (o->f)
		fflush(o->f);
	o->f = NULL;
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->target);
	o->tmp = o->target = NULL;
}

static int open_outputs(struct sim *s)
{
	const struct sim_cfg *c = s->cfg;
	int ret;

	if (c->timeseries) {
		ret = out_open(s, &s->out_ts, c->timeseries, "time series", NULL);
		if (ret)
			return ret;
	}
	return out_open(s, &s->out_sum, c->summary ? c->summary : "-", "summary",
			c->timeseries ? &s->out_ts : NULL);
}

/* Puts both outputs in place, or neither (one line on stderr, 1). */
static int commit_outputs(struct sim *s)
{
	if (out_close(s, &s->out_ts) || out_close(s, &s->out_sum))
		return 1;
	if (out_rename(s, &s->out_ts))
		return 1;
	if (out_rename(s, &s->out_sum)) {
		if (s->out_ts.target)
			unlink(s->out_ts.target);
		return 1;
	}
	return 0;
}

static void write_row(FILE *f, const char *t, const char *metric, double v, const char *unit)
{
	mech_row(f, t, metric, v, unit);	/* a write error is found at fclose() */
}

/* Convergence rule: with the final average F (mean throughput over the last
 * average_last seconds) and 5-s windows (t-5, t] lying wholly after the
 * event, the convergence time is the start of the first window from which
 * every later window's mean stays within 5 % of F, minus the event time.
 * NaN when no window qualifies. */
static double convergence_time(const struct sim *s, double t_ev, double final)
{
	size_t first_ok = (size_t)-1, t;
	const size_t W = 5;

	for (t = s->nsteps; t >= 1; t--) {
		double sum = 0;
		size_t j;

		if ((double)t - (double)W < t_ev - 1e-9)
			break;
		for (j = t - W; j < t; j++)
			sum += s->series[j * M_COUNT + M_THROUGHPUT];
		if (fabs(sum / W - final) > 0.05 * fabs(final))
			break;
		first_ok = t;
	}
	if (first_ok == (size_t)-1)
		return NAN;
	return (double)(first_ok - W) - t_ev;
}

static int write_summary(struct sim *s, double sim_s)
{
	const struct sim_cfg *c = s->cfg;
	FILE *f = s->out_sum.f;
	double avg[M_COUNT] = { 0 };
	size_t from, t, m, n;
	double t_ev = -1, mon;
	int i;

	n = (size_t)llround(c->average_last_s);
	if (n > s->nsteps)
		n = s->nsteps;
	from = s->nsteps - n;
	for (t = from; t < s->nsteps; t++)
		for (m = 0; m < M_COUNT; m++)
			avg[m] += s->series[t * M_COUNT + m] / (double)(n ? n : 1);
	fprintf(f, "t_s,metric,value,unit\n");
	for (m = 0; m < M_COUNT; m++)
		write_row(f, "", metric_name[m], n ? avg[m] : NAN, metric_unit[m]);
	for (i = 0; i < c->nev; i++)
		if (c->ev[i].t_s > t_ev)
			t_ev = c->ev[i].t_s; /* the last event */
	if (t_ev >= 0)
		write_row(f, "", "convergence_time_s",
			  convergence_time(s, t_ev, avg[M_THROUGHPUT]), "s");
	/* modelled: the cores the system's latency monitor occupies on its own
	 * with Colloid on (colloid_policy_info(): colloid_monitor_cores, e.g. a
	 * colloid-mon that spin-polls on a core of its own) */
	mon = c->colloid ? s->info.colloid_monitor_cores : 0.0;
	write_row(f, "", "monitor_cpu_share", mon / c->app_cores, "fraction");
	if (c->timing) {
		write_row(f, "", "policy_cpu_share", s->cpu_ns * 1e-9 / sim_s, "fraction");
		/* share of the application's cores: measured library time plus the
		 * modelled monitor core */
		write_row(f, "", "cpu_overhead", (s->cpu_ns * 1e-9 / sim_s + mon) / c->app_cores,
			  "fraction");
	}
	return 0;
}

/* ------------------------------------------------------------------ run */

static int setup(struct sim *s)
{
	const struct sim_cfg *c = s->cfg;
	struct colloid_config cc;
	int ret;

	ret = validate(s, &cc);
	if (ret)
		return ret;
	rng_seed(&s->rng_wl, c->seed, 1);
	rng_seed(&s->rng_obs, c->seed, 2);
	rng_seed(&s->rng_scan, c->seed, 3);
	rng_seed(&s->rng_cha, c->seed, 4);
	rng_seed(&s->rng_ref, c->seed, 5);
	rng_seed(&s->rng_chk, c->seed, 6);
	if (c->workload == WL_ZIPF) {
		struct zipf_cfg z = {
			.working_set = c->working_set, .hot_set = c->hot_set, .theta = c->zipf_theta,
			.object_bytes = c->object_bytes, .rmw = c->rmw, .region_size = c->region_size,
		};

		ret = workload_zipf_new(&z, &s->rng_wl, &s->wl);
	} else {
		struct gups_cfg g = {
			.working_set = c->working_set, .hot_set = c->hot_set, .hot_share = c->hot_share,
			.object_bytes = c->object_bytes, .rmw = c->rmw, .region_size = c->region_size,
		};

		ret = workload_gups_new(&g, &s->rng_wl, &s->wl);
	}
	if (ret)
		return fail(s, "cannot create workload: %s", strerror(-ret));
	if (s->wl->nregions != s->nreg)
		return fail(s, "%s", "the workload's layout is not the one checked");
	s->lines_per_obj = ceil(c->object_bytes / 64.0);
	s->where = calloc(s->nreg, 1);
	s->pending = calloc(s->nreg, 1);
	if (!s->where || !s->pending)
		return fail(s, "%s", "out of memory");
	initial_placement(s);
	ret = alias_build(&s->alias, s->wl->prob, s->nreg);
	if (ret)
		return fail(s, "cannot build sampler: %s", strerror(-ret));
	s->alias_version = s->wl->version;
	if (c->policy && policy_init(s, &cc))
		return 1;
	s->intensity = c->intensity;
	s->rr_d = s->rr_a = 1.0 / (1.0 + s->wl->write_frac);
	s->nsteps = 0;
	s->series = calloc((size_t)ceil(c->duration_s) + 1, M_COUNT * sizeof(double));
	if (!s->series)
		return fail(s, "%s", "out of memory");
	if (s->out_ts.f)
		fprintf(s->out_ts.f, "t_s,metric,value,unit\n");
	return 0;
}

static void teardown(struct sim *s)
{
	int i;

	/* no-ops once commit_outputs() put them in place */
	out_discard(&s->out_ts);
	out_discard(&s->out_sum);
	colloid_destroy(s->ctx);
	for (i = 0; i < 2; i++)
		curve_free(&s->tier[i]);
	workload_destroy(s->wl);
	alias_free(&s->alias);
	fheap_free(&s->heap);
	free(s->where);
	free(s->pending);
	free(s->plan);
	free(s->sbuf);
	free(s->kbuf);
	free(s->fbuf);
	free(s->cbuf);
	free(s->series);
}

static int apply_events(struct sim *s, uint64_t t0)
{
	struct sim_cfg *c = (struct sim_cfg *)s->cfg;
	int i, ret;

	for (i = 0; i < c->nev; i++) {
		struct sim_event *e = &c->ev[i];

		if (e->done || e->t_s * 1e9 > (double)t0 + 1e-3)
			continue;
		e->done = 1;
		if (!strcmp(e->name, "intensity")) {
			s->intensity = e->value;
			continue;
		}
		ret = s->wl->ops->event(s->wl, e->name, e->value, &s->rng_wl);
		if (ret)
			return fail(s, "workload cannot apply event %s", e->name);
	}
	if (s->wl->version != s->alias_version) {
		ret = alias_build(&s->alias, s->wl->prob, s->nreg);
		if (ret)
			return fail(s, "cannot build sampler: %s", strerror(-ret));
		s->alias_version = s->wl->version;
		recount(s);
		if (s->heap.n && redraw_faults(s, t0))
			return 1;
	}
	return 0;
}

int sim_check(const struct sim_cfg *cfg, const char *prog)
{
	struct sim sim, *s = &sim;
	struct colloid_config cc;
	int ret, i;

	memset(s, 0, sizeof(*s));
	s->cfg = cfg;
	s->prog = prog;
	ret = validate(s, &cc);
	for (i = 0; i < 2; i++)
		curve_free(&s->tier[i]);
	return ret;
}

int sim_run(const struct sim_cfg *cfg, const char *prog)
{
	struct sim sim, *s = &sim;
	const struct sim_cfg *c = cfg;
	uint64_t q, nq, qns = c->quantum_ns, per_step;
	double acc[M_COUNT], sb = 128.0, sa;
	size_t nacc = 0;
	int ret = 0, m;

	memset(s, 0, sizeof(*s));
	s->cfg = cfg;
	s->prog = prog;
	/* outputs first: a path that cannot be written is a bad argument */
	ret = open_outputs(s);
	if (!ret)
		ret = setup(s);
	if (ret) {
		teardown(s);
		return ret;
	}
	if (!qns)
		qns = policy_quantum_ns(s);	/* validate() checked it */
	((struct sim_cfg *)c)->quantum_ns = qns;
	if (s->ctx && !s->plan) {
		teardown(s);
		return 1;
	}
	per_step = 1000000000ULL / qns;
	nq = (uint64_t)llround(c->duration_s) * per_step;
	sa = c->object_bytes * (1.0 + s->wl->write_frac); /* bytes per object access */
	memset(acc, 0, sizeof(acc));

	for (q = 0; q < nq && !sim_stop_signal; q++) {
		uint64_t t0 = q * qns, t1 = t0 + qns;
		struct traffic_in in;
		double lpo = s->lines_per_obj, appr, migr = 0, rd_r, rd_w, ra_r, ra_w, mrate;

		memset(&in, 0, sizeof(in));

		if (apply_events(s, t0)) {
			ret = 1;
			break;
		}
		/* lines in flight per core: random MLP per object line, bounded by
		 * the streaming limit; think time scaled to keep per-object
		 * compute constant (docs/tier-model.md) */
		{
			double m1 = fmin(c->app_mlp * lpo, c->app_stream_mlp);

			in.na = c->app_cores * m1 / lpo;
			in.za = c->app_think_ns * m1 / (c->app_mlp * lpo);
		}
		in.p = fmin(1.0, fmax(0.0, s->p));
		in.sa = sa;
		in.nb = s->intensity * c->antag_per_unit * c->antag_mlp;
		in.zb = c->antag_think_ns;
		in.sb = sb;
		mrate = s->mig_bytes_prev / (double)qns;
		in.md = mrate;
		in.ma = mrate;
		in.rr_d = s->rr_d;
		in.rr_a = s->rr_a;
		/* identical inputs give the identical answer: reuse it */
		if (!s->have_prev_in || memcmp(&in, &s->prev_in, sizeof(in)))
			ret = traffic_solve(&s->tier[0], &s->tier[1], &in, &s->tr);
		s->prev_in = in;
		s->have_prev_in = !ret;
		if (ret) {
			fprintf(stderr, "%s: error: traffic fixed point failed at t=%.3f s\n", prog,
				(double)t0 * 1e-9);
			ret = 1;
			break;
		}
		/* read ratios for the next quantum (reads: app lines read,
		 * antagonist lines read, migration source reads) */
		appr = s->tr.xa * c->object_bytes;
		{
			double to_d = s->mig_to_d_prev / (double)qns;
			double to_a = (s->mig_bytes_prev - s->mig_to_d_prev) / (double)qns;

			rd_r = in.p * appr + 64.0 * s->tr.xb + to_a;
			rd_w = in.p * appr * s->wl->write_frac + 64.0 * s->tr.xb + to_d;
			ra_r = (1 - in.p) * appr + to_d;
			ra_w = (1 - in.p) * appr * s->wl->write_frac + to_a;
		}
		s->rr_d = rd_r + rd_w > 0 ? rd_r / (rd_r + rd_w) : s->rr_d;
		s->rr_a = ra_r + ra_w > 0 ? ra_r / (ra_r + ra_w) : s->rr_a;

		/* what this quantum's plan moves, and how much of it into the
		 * default tier: nothing unless the policy steps.  Both are reset
		 * here for every quantum, not in policy_step(), which a frozen
		 * quantum skips: after --freeze-at a stale mig_to_d (the last
		 * plan's promotions) with migr = 0 would count phantom migration
		 * reads on the alternate tier and writes on the default tier (and
		 * negative ones on the other side) in every later read ratio
		 * (tests/freeze.c). */
		s->migr = 0;
		s->mig_to_d = 0;
		if (s->ctx && !(c->freeze_at_s > 0 && (double)t0 >= c->freeze_at_s * 1e9)) {
			ret = policy_step(s, t1, qns);
			if (ret)
				break;
			migr = s->migr;
		}

		acc[M_THROUGHPUT] += s->tr.xa * 1e3;
		acc[M_LAT_D] += s->tr.ld;
		acc[M_LAT_A] += s->tr.la;
		acc[M_P] += in.p;
		acc[M_HOT_ALT] += (double)s->hot_alt * (double)s->region / 1073741824.0;
		acc[M_MIGR] += migr / (double)qns * 1e3;
		acc[M_ANTAG_BW] += sb * s->tr.xb * 1e3;
		acc[M_BW_D] += s->tr.bd * 1e3;
		acc[M_BW_A] += s->tr.ba * 1e3;
		acc[M_INTENSITY] += s->intensity;
		/* share of the tier's wall bandwidth at this quantum's read ratio */
		acc[M_UTIL_D] += s->tr.bd / s->tr.bmax_d;
		acc[M_UTIL_A] += s->tr.ba / s->tr.bmax_a;
		/* demand past the curve's last point: latency from the closed-loop
		 * wall (Little's law), beyond what the curve measured */
		acc[M_BEYOND_D] += s->tr.wall_d ? 1.0 : 0.0;
		acc[M_BEYOND_A] += s->tr.wall_a ? 1.0 : 0.0;
		nacc++;
		s->mig_bytes_prev = migr;
		s->mig_to_d_prev = s->mig_to_d;

		if ((q + 1) % per_step == 0) {
			double *row = &s->series[s->nsteps * M_COUNT];

			recount(s);
			for (m = 0; m < M_COUNT; m++)
				row[m] = acc[m] / (double)nacc;
			s->nsteps++;
			if (s->out_ts.f) {
				char tb[32];

				snprintf(tb, sizeof(tb), "%zu", s->nsteps);
				for (m = 0; m < M_COUNT; m++)
					write_row(s->out_ts.f, tb, metric_name[m], row[m], metric_unit[m]);
			}
			memset(acc, 0, sizeof(acc));
			nacc = 0;
		}
	}
	if (!ret && sim_stop_signal) {
		ret = 128 + (int)sim_stop_signal;
	} else if (!ret) {
		if (write_summary(s, (double)s->nsteps))
			ret = 1;
	}
	if (!ret)
		ret = commit_outputs(s);
	teardown(s);	/* on failure or a signal, no output is left behind */
	return ret;
}
