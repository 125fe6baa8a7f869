/* SPDX-License-Identifier: MIT */
/*
 * memchar - memory tier characterization microbenchmarks.
 *
 * Private header shared by the memchar sources. Helper modules (cpus.c,
 * alloc.c, chain.c, kernels.c, objects.c, util.c) return 0 or -errno and
 * never print or exit; only main.c, opts.c, the mode_*.c drivers and
 * selftest.c talk to the user.
 */
#ifndef MEMCHAR_H
#define MEMCHAR_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <signal.h>

#include "tbcli.h"
#include "tbutil.h"

#define MC_LINE		64UL			/* cache line / chain element */
#define MC_LINE_WORDS	(MC_LINE / sizeof(uint64_t))
#define MC_HUGE		(2UL << 20)		/* 2 MiB: buffer rounding, THP */
#define MC_MIB		(1UL << 20)

#define MC_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* ---- util.c ---------------------------------------------------------- */

/* Set by the SIGINT/SIGTERM handler; every long loop polls it. */
extern volatile sig_atomic_t mc_stop_signal;

static inline bool mc_stopping(void)
{
	return mc_stop_signal != 0;
}

/* clocks (now_ns()), the random generator (struct rng) and cache sizes
 * (cpu_cache_bytes()) come from libtbutil; mc_llc_bytes() is the largest
 * level-3 cache of cpu0, 0 when unknown */
#define mc_llc_bytes() cpu_cache_bytes(3, 3)
/* Involuntary context switches of the calling thread so far. */
long mc_preemptions(void);
size_t mc_round_up(size_t v, size_t to);
/* Default sizes: chain max(256 MiB, 8 x LLC); stream max(64 MiB, 4 x LLC / T). */
size_t mc_default_chain_bytes(uint64_t llc);
size_t mc_default_stream_bytes(uint64_t llc, int threads);

/*
 * Busy-wait n iterations of an empty loop (about one CPU cycle each).
 * Deliberately not `pause`: its length differs between CPU generations
 * (about 10 to 140 cycles) and, in a VM, tight pause loops trigger
 * pause-loop VM exits, which made one pause cost ~150 ns on a KVM guest.
 */
static inline void mc_spin(unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		__asm__ __volatile__("" : "+r"(i));
}

/* ---- threads.c ------------------------------------------------------- */

/*
 * Start gate: workers arrive (after pinning and filling), the driver
 * waits until all have, checks what it must, then opens the gate with
 * 1 (run) or -1 (abort). Unlike a pthread barrier it copes with a
 * thread that failed to start.
 */
struct mc_gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int ready;
	int state;		/* 0 closed, 1 run, -1 abort */
};

void mc_gate_init(struct mc_gate *g);
void mc_gate_destroy(struct mc_gate *g);
int mc_gate_arrive(struct mc_gate *g);		/* returns the state */
void mc_gate_wait_ready(struct mc_gate *g, int n);
void mc_gate_open(struct mc_gate *g, int state);
/* pthread_create with SIGINT/SIGTERM blocked in the new thread. */
int mc_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

/* ---- cpus.c ---------------------------------------------------------- */

struct mc_cpus {
	int *cpu;
	int n;
};

int mc_cpus_parse(const char *s, struct mc_cpus *out);
int mc_cpus_format(const int *cpu, int n, char *buf, size_t len);
int mc_cpus_allowed(struct mc_cpus *out);
int mc_cpus_of_node(int node, const struct mc_cpus *allowed,
		    struct mc_cpus *out);
bool mc_cpus_contains(const struct mc_cpus *l, int cpu);
void mc_cpus_free(struct mc_cpus *l);
int mc_node_of_cpu(int cpu);		/* node id or -errno */
bool mc_numa_ok(void);
bool mc_node_exists(int node);
long long mc_node_mem_bytes(int node);	/* total memory, or -errno */

/* ---- alloc.c --------------------------------------------------------- */

enum mc_huge_req {
	MC_HUGE_AUTO,		/* hugetlb, else THP, else 4 KiB */
	MC_HUGE_ON,		/* hugetlb or THP; error if neither backs it */
	MC_HUGE_OFF,		/* 4 KiB pages, THP disabled for the range */
	MC_HUGE_THP,		/* THP only (madvise) */
	MC_HUGE_HUGETLB,	/* MAP_HUGETLB only */
};

/* Where buffers come from: a NUMA node (or unbound) or a DAX path. */
struct mc_target {
	int mem_node;		/* -1: no binding (NUMA unavailable) or DAX */
	const char *dax_path;	/* NULL for anonymous memory */
	int dax_fd;
	bool dax_is_dev;
	unsigned long long dax_size;
	unsigned long long dax_next;	/* next free offset in the DAX file */
};

struct mc_region {
	void *addr;		/* 2 MiB aligned start, len bytes usable */
	size_t len;
	void *map;		/* what to munmap */
	size_t map_len;
	bool hugetlb;
	bool dax;
};

int mc_target_open(struct mc_target *t, int mem_node, const char *dax_path);
void mc_target_close(struct mc_target *t);
/* All regions of the target were freed: reuse the DAX file from 0. */
void mc_target_rewind(struct mc_target *t);
int mc_region_alloc(struct mc_target *t, size_t len, enum mc_huge_req h,
		    struct mc_region *r);
void mc_region_free(struct mc_region *r);
/* Check sampled pages of touched regions are on node; -EFAULT if not. */
int mc_region_check_node(const struct mc_region *r, int node, int *bad_node);
/*
 * Describe what backs the regions after they were touched:
 * "hugetlb", "thp:0.98", "none", or "" when unknown (DAX without Rss).
 * *huge_frac gets the fraction of resident bytes in huge pages.
 */
int mc_regions_backing(const struct mc_region *r, int n, char *buf,
		       size_t len, double *huge_frac);

/* ---- chain.c --------------------------------------------------------- */

/* One chain element fills a cache line; only .next is used. */
struct mc_line {
	struct mc_line *next;
	uint64_t pad[MC_LINE_WORDS - 1];
};

int mc_chain_build(void *buf, size_t n, uint64_t seed);
int mc_chain_verify(const void *buf, size_t n);
/* The same on the lines themselves, as mc_chain_build()/mc_chain_verify() do where their array
 * of 4-byte line indices cannot be had (n >= 2^32 lines, or no memory for it): for the self-test. */
int mc_chain_build_lines(void *buf, size_t n, uint64_t seed);
int mc_chain_verify_walk(const void *buf, size_t n);
/* Follow n dependent loads (n rounded down to a multiple of 16). */
struct mc_line *mc_chain_chase(struct mc_line *p, uint64_t n);

/* ---- objects.c: cache-line flush instruction, chosen at run time ---- */

enum mc_flush {
	MC_FLUSH_NONE,
	MC_FLUSH_CLFLUSH,
	MC_FLUSH_CLFLUSHOPT,
	MC_FLUSH_CLWB,
};

enum mc_flush mc_flush_detect(void);
const char *mc_flush_name(enum mc_flush f);

/* ---- kernels.c -------------------------------------------------------- */

enum mc_op_kind {
	MC_OP_READ,
	MC_OP_WRITE,
	MC_OP_NTWRITE,
	MC_OP_PWRITE,
	MC_OP_MIX,
	MC_OP_RMW,
};

struct mc_op {
	enum mc_op_kind kind;
	unsigned int ratio;	/* R of mixR:1, else 0 */
	char name[16];
};

int mc_op_parse(const char *s, struct mc_op *op);
bool mc_op_supported(const struct mc_op *op);
void mc_op_bytes(const struct mc_op *op, unsigned int *rd, unsigned int *wr);
void mc_op_bytes_str(const struct mc_op *op, char *buf, size_t len);
/* Width of one load or store the kernel issues, bytes (8, or 16 for ntwrite). */
int mc_op_access_bytes(const struct mc_op *op);

/* Per-thread streaming state; see kernels.c for the kernels. */
struct mc_stream {
	struct mc_op op;
	uint64_t *src;		/* read region (read, mix) */
	size_t src_lines;
	uint64_t *dst;		/* write region (write, ntwrite, mix) */
	size_t dst_lines;
	size_t iters_per_pass;
	size_t cursor;		/* iteration inside the current pass */
	uint64_t pass;		/* current pass, from 1 (fill = pass 0) */
	uint64_t iters;		/* iterations done in total */
	uint64_t sum;		/* sum of every word read */
	uint64_t salt;
	enum mc_flush flush;	/* pwrite */
};

int mc_stream_init(struct mc_stream *s, const struct mc_op *op, void *buf,
		   size_t bytes, uint64_t salt);
void mc_stream_fill(struct mc_stream *s);
void mc_stream_run(struct mc_stream *s, size_t iters, unsigned int delay);
int mc_stream_verify(const struct mc_stream *s);

/* Exposed for the self-test. */
uint64_t mc_fill_word(uint64_t i, uint64_t salt);
uint64_t mc_fill_sum(uint64_t nwords, uint64_t salt);

/* ---- objects.c ------------------------------------------------------- */

enum mc_obj_op {
	MC_OBJ_READ,
	MC_OBJ_WRITE,
	MC_OBJ_WRITE_PERSIST,
};

struct mc_objs {
	uint8_t *base;
	size_t size;		/* object size, multiple of 64 */
	size_t n;		/* objects */
	uint32_t *order;	/* random visiting order (a permutation) */
	size_t pos;		/* next index into order */
	uint64_t visits;
	uint64_t err;		/* read: OR of (sum - expected) */
	uint64_t carry;		/* read: dependency into the next address */
	enum mc_obj_op op;
	enum mc_flush flush;
	uint64_t salt;
};

int mc_objs_init(struct mc_objs *o, void *buf, size_t size, size_t n,
		 enum mc_obj_op op, enum mc_flush flush, uint64_t seed);
void mc_objs_fill(struct mc_objs *o);
int mc_objs_check_order(const struct mc_objs *o);
void mc_objs_run(struct mc_objs *o, uint64_t count);
int mc_objs_verify(const struct mc_objs *o);
void mc_objs_destroy(struct mc_objs *o);

/* ---- output.c ---------------------------------------------------------- */

/* One CSV row; NULL strings / negative numbers print as empty fields. */
struct mc_row {
	const char *mode;
	const char *metric;
	double value;
	const char *unit;
	const char *op;
	int threads;
	const char *cpus;
	int cpu_node;
	int mem_node;
	const char *target;
	long long size_bytes;
	long long buffer_bytes;
	long long delay;
	double bandwidth_mbps;	/* < 0: empty */
	const char *bytes_per_iter;
	const char *huge_pages;
	const char *flush;
	int verified;		/* < 0: empty */
	double duration_s;	/* < 0: empty */
	double share;		/* share: fraction of threads on B; < 0: empty */
	double quantile;	/* *_quantile rows: q in (0, 1]; < 0: empty */
	int group_loads;	/* latency/loaded: dependent loads per timed group;
				 * objsize: object accesses per timed group */
	int access_bytes;	/* width of one load/store of the kernel, bytes */
};

void mc_row_init(struct mc_row *r);
int mc_csv_header(FILE *f);
int mc_csv_row(FILE *f, const struct mc_row *r);

/* ---- tail.c: latency distributions -------------------------------------- */

/*
 * Log-spaced histogram of non-negative integers (ns), fixed size: values
 * below 64 have a bin each; above, every power of two is cut into 32
 * equal bins (each at most 1/32 = 3.1 % wide), up to 2^64.
 */
#define MC_HIST_SUB_BITS	5
#define MC_HIST_SUB		(1u << MC_HIST_SUB_BITS)
#define MC_HIST_BINS		(2 * MC_HIST_SUB + (63 - MC_HIST_SUB_BITS) * MC_HIST_SUB)

struct mc_hist {
	uint64_t bin[MC_HIST_BINS];
	uint64_t n, sum, min, max;
};

size_t mc_hist_index(uint64_t v);
void mc_hist_bounds(size_t i, double *lo, double *hi);	/* [lo, hi) */
void mc_hist_reset(struct mc_hist *h);
void mc_hist_add(struct mc_hist *h, uint64_t v);
double mc_hist_quantile(const struct mc_hist *h, double q);	/* -1: empty */
double mc_hist_mean(const struct mc_hist *h);		/* -1: empty */

/*
 * Timed groups of `group` dependent loads. Each group's duration includes
 * one clock read, timer_ns (its median cost) is subtracted. A chunk of
 * groups during which the thread was switched out (preempted) is left out
 * whole; a group longer than cap_ns (0: no cap) is counted as interrupted
 * and left out of the histogram.
 */
struct mc_tail {
	struct mc_hist h;		/* clean groups, ns per group */
	unsigned int group;		/* loads per timed group */
	double timer_ns;
	uint64_t cap_ns;
	uint64_t interrupted;		/* groups over cap_ns */
	uint64_t interrupted_max;	/* the longest of them, ns */
	uint64_t preempted_groups;	/* groups of preempted chunks */
};

void mc_tail_init(struct mc_tail *t, unsigned int group, double timer_ns,
		  uint64_t cap_ns);
void mc_tail_add_chunk(struct mc_tail *t, const uint32_t *d, size_t n,
		       bool preempted);
/* max(factor x median of warm, floor_ns) */
uint64_t mc_tail_cap(const struct mc_hist *warm, double factor,
		     uint64_t floor_ns);
double mc_timer_cost_ns(void);
/* mean of sorted d[0..n) up to 4 x the median */
double mc_trimmed_mean(const uint64_t *d, size_t n);
double mc_rdtscp_cost_ns(void);
extern volatile uint64_t mc_tsc_sink;

/* quantiles reported per point (1 = the max) */
#define MC_NQUANTILES 12
extern const double mc_quantiles[MC_NQUANTILES];

/* ---- opts.c / modes ------------------------------------------------- */

enum mc_mode {
	MC_MODE_LATENCY,
	MC_MODE_BANDWIDTH,
	MC_MODE_LOADED,
	MC_MODE_OBJSIZE,
	MC_MODE_SHARE,
	MC_MODE_SELFTEST,
};

struct mc_opts {
	enum mc_mode mode;
	const char *mode_name;
	const char *cpus_str;
	int cpu_node;		/* -1: unset */
	int mem_node;		/* -1: unset */
	const char *dax;
	uint64_t seed;
	enum mc_huge_req huge;
	double duration;	/* seconds */
	size_t buffer_bytes;	/* 0: default */
	struct mc_op op;
	bool op_set;
	long *threads;
	int nthreads;
	long injectors;		/* -1: unset */
	long *delays;
	int ndelays;
	long *sizes;
	int nsizes;
	uint64_t objects;	/* 0: fill the buffer */
	bool persist;
	double *shares;		/* share: fractions of threads on target B */
	int nshares;
	int mem_node_b;		/* share: target B's node; -1: unset */
	const char *dax_b;	/* share: target B's DAX path */
	unsigned int group;	/* latency/loaded: loads per timed group */
	long long outlier_ns;	/* cap of a clean group, ns; -1: auto, 0: none */
	const char *output;
};

/* Resolved run context shared by the mode drivers. */
struct mc_ctx {
	const struct mc_opts *o;
	struct mc_cpus cpus;	/* CPUs to use, in order */
	int cpu_node;
	int mem_node;		/* -1 for DAX / unbound */
	char target[4200];
	struct mc_target tgt;
	int share_threads;	/* share: threads in all */
	int mem_node_b;		/* share: target B's node, -1 for DAX */
	char target_b[4200];	/* share: target B, as target */
	struct mc_target tgt_b;
	uint64_t llc;
	FILE *out;
};

#define MC_EXIT_USAGE	2

int mc_opts_parse(int argc, char **argv, struct mc_opts *o);
void mc_opts_free(struct mc_opts *o);
void mc_usage(FILE *f);
/* Print "memchar: error: ..." and return MC_EXIT_USAGE. */
int mc_usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* runtime failures: cli_fail() ("memchar: error: ..."); progress: cli_say() */

/* Row prefilled with the context's common columns. */
void mc_ctx_row(const struct mc_ctx *c, struct mc_row *r, int ncpus_used,
		char *cpus_buf, size_t cpus_len);
/* Check touched regions: node placement, page backing, --huge on/thp. */
int mc_ctx_check_regions(const struct mc_ctx *c, const struct mc_region *r,
			 int n, char *backing, size_t blen);
/* The same for regions of target t (the context's or share's target B). */
int mc_check_regions(const struct mc_ctx *c, const struct mc_target *t,
		     const struct mc_region *r, int n, char *backing,
		     size_t blen);

int mc_run_latency(struct mc_ctx *c);
int mc_run_bandwidth(struct mc_ctx *c);
int mc_run_loaded(struct mc_ctx *c);
int mc_run_objsize(struct mc_ctx *c);
int mc_run_share(struct mc_ctx *c);
int mc_selftest(void);

#endif /* MEMCHAR_H */
