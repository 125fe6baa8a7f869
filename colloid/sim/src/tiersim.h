/* SPDX-License-Identifier: MIT */
/*
 * tiersim.h - internal declarations of tiersim, the modelled-tier mechanism
 * for libcolloid.  Not a public header: only colloid/sim/ includes it.
 *
 * Units inside tiersim: time in ns, bandwidth in bytes/ns (= GB/s), request
 * rates in requests/ns, latency in ns.  Files and outputs use MB/s and
 * Mops/s; conversions happen at the edges.
 */
#ifndef TIERSIM_H
#define TIERSIM_H

#include <stddef.h>
#include <stdint.h>

#include "tbutil.h"

/* random numbers: struct rng and rng_*() of libtbutil (lib/include/tbutil.h) */

/* ---------------------------------------------------------------- curve */

/* read ratios of one tier: every whole read percentage, 0..100 */
#define CURVE_MAX_RATIOS 101

/* One bandwidth-latency curve at one read ratio. */
struct curve1 {
	double read_ratio;
	int parametric;
	/* tabulated: n points, bw strictly increasing (bytes/ns), lat
	 * non-decreasing (ns); the last point is the saturation wall. */
	size_t n;
	double *bw;
	double *lat;
	/* parametric: L = L0 + a*rho^k/(1-rho), rho = B/bsat */
	double L0, a, k;
	double bmax; /* bytes/ns: tabulated last bw, or parametric bsat */
};

/* All curves of one tier, sorted by read ratio. */
struct curve_set {
	int n;
	struct curve1 c[CURVE_MAX_RATIOS];
	char src[256];
	/* measured points dropped as noise on loading (bandwidth below 0) */
	size_t noise;
};

/*
 * curve_load() - load CURVE: "param:L0=..,a=..,k=..,bsat=.." (bsat in MB/s),
 * a CSV file (read_ratio,bandwidth_mbps,latency_ns) or a Mess-style directory
 * of bwlat_<readpct>.txt files (space or tab separated).  A point with a
 * negative bandwidth is measurement noise at idle: it is dropped and counted
 * in ->noise.  On error returns -errno and writes a one-line reason into @err.
 */
int curve_load(struct curve_set *cs, const char *spec, char *err, size_t errlen);
void curve_free(struct curve_set *cs);
/* latency (ns) at bandwidth @b (bytes/ns) and read ratio @rr; b < bmax. */
double curve_latency(const struct curve_set *cs, double rr, double b);
/* saturation bandwidth (bytes/ns) at read ratio @rr */
double curve_bmax(const struct curve_set *cs, double rr);
/* latency just below the wall (ns); +inf for parametric curves */
double curve_lmax(const struct curve_set *cs, double rr);
/* unloaded latency (ns) at read ratio @rr */
double curve_unloaded(const struct curve_set *cs, double rr);
/* unloaded latency (ns) of one read ratio's curve: L0, or the first point
 * the loader kept */
double curve1_unloaded(const struct curve1 *c);

/* -------------------------------------------------------------- traffic */

struct traffic_in {
	double p;		/* share of app accesses served by the default tier */
	double na, za, sa;	/* app: requests in flight, think ns, bytes/request */
	double nb, zb, sb;	/* antagonist (default tier only): same */
	double md, ma;		/* migration traffic on each tier, bytes/ns */
	double rr_d, rr_a;	/* read ratio of each tier's traffic */
};

struct traffic_out {
	double xa, xb;		/* requests/ns */
	double ld, la;		/* ns */
	double bd, ba;		/* bytes/ns */
	double bmax_d, bmax_a;	/* each tier's wall at its read ratio, bytes/ns */
	int wall_d, wall_a;	/* solved on a saturation wall */
};

int traffic_solve(const struct curve_set *d, const struct curve_set *a,
		  const struct traffic_in *in, struct traffic_out *out);

/* ------------------------------------------------------------- workload */

struct workload;

struct workload_ops {
	const char *name;
	/* apply a phase event (e.g. "hotset_move"); -ENOENT if unknown */
	int (*event)(struct workload *w, const char *name, double value, struct rng *r);
	void (*destroy)(struct workload *w);
};

/*
 * A workload in the model is a probability vector over regions plus the
 * shape of one access.  New workloads (zipfian KV, graph degree skew,
 * CacheBench hot/cold) fill the same structure.
 */
struct workload {
	const struct workload_ops *ops;
	uint64_t nregions;
	double *prob;		/* true access probability per region, sums to 1 */
	uint8_t *hot;		/* 1 = region is in the hot set (for reporting) */
	uint64_t version;	/* bumped whenever prob changes */
	double object_bytes;	/* bytes touched per access (object) */
	double write_frac;	/* write-backs per line read: 1 = RMW, 0 = read */
	void *priv;
};

struct gups_cfg {
	double working_set, hot_set;	/* bytes */
	double hot_share;		/* share of accesses to the hot set */
	double object_bytes;
	int rmw;
	uint64_t region_size;
};

/*
 * workload_layout() - check a workload's layout as the constructors do and
 * give its number of regions: 0, or -EINVAL (no working set or region, a
 * hot set outside 0..working set, objects under one byte).
 */
int workload_layout(double working_set, double hot_set, double object_bytes,
		    uint64_t region_size, uint64_t *nregions);
/* write-backs per line read: 1 for read-modify-write, 0 for reads */
static inline double workload_write_frac(int rmw)
{
	return rmw ? 1.0 : 0.0;
}

int workload_gups_new(const struct gups_cfg *cfg, struct rng *r, struct workload **out);

struct zipf_cfg {
	double working_set, hot_set;	/* bytes; hot set: the top-ranked regions (reporting) */
	double theta;			/* region of rank k gets a share ~ k^-theta, 0..10 */
	double object_bytes;
	int rmw;
	uint64_t region_size;
};

int workload_zipf_new(const struct zipf_cfg *cfg, struct rng *r, struct workload **out);
void workload_destroy(struct workload *w);

/* ----------------------------------------------------------- alias table */

struct alias {
	uint64_t n;
	/* column i: its alias (high 32 bits) and its coin's threshold (low
	 * 32: the draw keeps page i when the coin's 32 bits are below it),
	 * one 8-byte load per draw */
	uint64_t *cell;
};

int alias_build(struct alias *a, const double *p, uint64_t n);
void alias_free(struct alias *a);

/* one draw (inline: one per sample) */
static inline uint64_t alias_draw(const struct alias *a, struct rng *r)
{
	uint64_t x = rng_next(r);
	/* one draw, two disjoint halves: the column from the high 32 bits
	 * (n < 2^32), the coin from the low 32.  They must not share bits: a
	 * coin taken from bits that also pick the column is nearly fixed for
	 * each column, and columns whose coin never falls below their
	 * probability never yield their own page. */
	uint64_t i = ((x >> 32) * a->n) >> 32;
	uint64_t c = a->cell[i];

	/* the coin (x's low 32 bits, as u = lo * 2^-32 < the column's
	 * probability: alias.c, cell_of()), then a conditional move: which one
	 * is taken is a coin toss per draw, a branch on it is mispredicted */
	return (x & 0xffffffffULL) < (c & 0xffffffffULL) ? i : c >> 32;
}

/* ------------------------------------------------------------ fault heap */

struct fault_ev {
	uint64_t t_ns;
	uint64_t scan_ns;
	uint64_t page;
};

struct fault_heap {
	struct fault_ev *v;
	size_t n, cap;
};

int fheap_push(struct fault_heap *h, struct fault_ev ev);
int fheap_pop(struct fault_heap *h, struct fault_ev *out);
void fheap_free(struct fault_heap *h);

#endif /* TIERSIM_H */
