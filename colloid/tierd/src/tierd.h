/* SPDX-License-Identifier: MIT */
/*
 * tierd.h - internal interfaces of tierd, libcolloid's mechanism on real
 * NUMA tiers.  One file per concern:
 *   target.c   the target's address space, its regions and move_pages(2)
 *   pmu.c      perf_event_open helpers: sysfs event strings -> attr
 *   obs_perf.c PEBS (Intel mem-loads/mem-stores) / AMD IBS op samples
 *   obs_damon.c DAMON sysfs, vaddr operations, nr_accesses per region
 *   latency.c  per-tier latency: CHA TOR via perf uncore, or a pointer-chase
 *              probe thread per tier
 *   main.c     options, the operations table, the quantum loop, CSV output
 * Functions return 0 or -errno; a failing probe writes its reason into a
 * caller buffer (why, TIERD_WHY bytes) so main can print one line.
 */
#ifndef TIERD_H
#define TIERD_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "colloid.h"
#include "tbutil.h"	/* read_text_file(), now_ns(), cpu_cache_bytes() */

#define TIERD_WHY 512

/* ---- target.c ---- */

struct region {
	uintptr_t start;	/* first byte */
	size_t len;		/* bytes (<= region size; edges may be shorter) */
};

struct target {
	pid_t pid;
	size_t region_size;	/* bytes per region */
	size_t npages_4k;	/* base pages in all regions */
	struct region *reg;	/* sorted by address */
	size_t nreg;
	size_t batch;		/* pages per move_pages() call */
	/* scratch for move_pages, batch entries each */
	void **pages;
	int *nodes, *status, *before;	/* before: each page's node before a move */
	uint32_t *slot, *rslot;	/* entry -> index into the caller's region list */
};

/* counters of move_pages work, summed by the caller */
struct move_stats {
	uint64_t pages_ok;	/* pages the call moved to the target node */
	uint64_t pages_already;	/* pages on the target node before the call */
	uint64_t pages_failed;	/* pages not on the target node after it (errno counted) */
	uint64_t pages_absent;	/* -ENOENT or -EFAULT: not present (never touched), the zero
				 * page, or no migratable mapping there */
	uint64_t bytes;		/* pages_ok * base page size: bytes moved */
	uint64_t calls;		/* move_pages() calls (batches) */
	uint64_t ns;		/* time inside move_pages() */
	uint64_t err_by_errno[134]; /* failures per errno (index < 134) */
};


int target_open(struct target *t, pid_t pid, size_t region_size, size_t min_mapping,
		size_t batch, char *why);
void target_close(struct target *t);
/* node of region i's first present page (status query), -ENOENT if none
 * of the probed pages is present, or -errno */
int target_region_node(struct target *t, size_t i, int all_pages);
/* move every page of regions idx[0..nidx) to node, t->batch pages per
 * move_pages() call (a call may span regions); ok[j] / bad[j] receive the
 * pages of idx[j] that are / are not on node afterwards (absent pages are
 * neither); adds to *st.  Returns 0 or the -errno of a whole call
 * (-ESRCH: the target is gone). */
int target_move_regions(struct target *t, const size_t *idx, size_t nidx, int node,
			uint32_t *ok, uint32_t *bad, struct move_stats *st);
/* every count of @src added to @dst */
void move_stats_add(struct move_stats *dst, const struct move_stats *src);
/* node of the first page of every region (-ENOENT: not present) into out[] */
int target_first_nodes(struct target *t, int *out);
/* status of every page of region i: counts pages on node / elsewhere / absent */
int target_verify_region(struct target *t, size_t i, int node, uint64_t *on, uint64_t *off,
			 uint64_t *absent);
/* region containing addr, or -1 */
long target_find(const struct target *t, uintptr_t addr);
/* 1 while the target lives (not a zombie), 0 when gone */
int target_alive(pid_t pid);
/* 0 if this process may move the target's pages, -EPERM/-ESRCH otherwise */
int target_check_access(pid_t pid, char *why);
int target_check_nodes(pid_t pid, const int *nodes, int nnodes, char *why);

/* ---- host facts ---- */
int node_has_memory(int node);
int64_t node_free_bytes(int node);

/* ---- pmu.c ---- */

/* type of PMU @pmu from sysfs, or -errno */
int pmu_type(const char *pmu);
/* fill attr->config/config1/config2 from "event=0x36,umask=0x..." using
 * /sys/bus/event_source/devices/@pmu/format; -ENOENT for an unknown term */
int pmu_parse(const char *pmu, const char *spec, struct perf_event_attr *attr);
/* read /sys/bus/event_source/devices/@pmu/events/@name into buf */
int pmu_event_alias(const char *pmu, const char *name, char *buf, size_t len);
/* 1 when @pmu's sysfs format directory has @term */
int pmu_has_format(const char *pmu, const char *term);
/* the directory the PMUs are read from (default /sys/bus/event_source/devices);
 * tests point it at a stand-in tree */
void pmu_set_root(const char *dir);
const char *pmu_root(void);
long sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			 unsigned long flags);

/* ---- observation sources ---- */

enum obs_kind { OBS_AUTO, OBS_PERF, OBS_DAMON, OBS_NONE };

/* one access observation: region index, write flag, weight, and the
 * load's sampled latency in core cycles (0: none) */
typedef void (*obs_sink)(void *priv, size_t region, int is_write, uint32_t weight,
			 uint32_t lat_cycles);

/* what obs_perf opens, decided from sysfs alone (obs_perf_plan) */
struct perf_plan {
	struct perf_event_attr aux;	/* group leader (mem-loads-aux) if have_aux */
	struct perf_event_attr load;	/* PEBS mem-loads or IBS op */
	struct perf_event_attr store;	/* PEBS mem-stores if have_store */
	int have_aux, have_store;
	int ibs, ibs_l3missonly;	/* IBS; the hardware drops L3 hits */
	double load_scale, store_scale;	/* accesses one sample stands for */
	char pmu[32], name[96];
};
int obs_perf_plan(struct perf_plan *p, uint64_t load_period, uint64_t store_period, char *why);

/* the fields of one PERF_RECORD_SAMPLE that tierd asks for */
struct perf_sample {
	uint32_t pid, tid;
	uint64_t addr;
	uint32_t lat;		/* load latency, cycles (the weight's low 32 bits) */
	int has_lat, has_src;
	uint64_t data_src;
};
int perf_sample_parse(uint64_t sample_type, const uint64_t *rec, size_t nw,
		      struct perf_sample *s);
int perf_src_cache_hit(uint64_t data_src);

struct obs_perf;
int obs_perf_open(struct obs_perf **out, const struct target *t, uint64_t load_period,
		  uint64_t store_period, char *why);
/* drain the ring buffers; calls sink per sample; returns samples in *n */
int obs_perf_poll(struct obs_perf *o, obs_sink sink, void *priv, uint64_t *n);
/* re-scan /proc/PID/task for new threads */
int obs_perf_rescan(struct obs_perf *o);
const char *obs_perf_name(const struct obs_perf *o);
const struct perf_plan *obs_perf_plan_of(const struct obs_perf *o);
/* samples dropped as served by a cache (perf_src_cache_hit()) */
uint64_t obs_perf_dropped(const struct obs_perf *o);
/* samples the kernel reported lost (PERF_RECORD_LOST, PERF_RECORD_LOST_SAMPLES) */
uint64_t obs_perf_lost(const struct obs_perf *o);
/* PERF_RECORD_THROTTLE records: the kernel stopped sampling for a while */
uint64_t obs_perf_throttles(const struct obs_perf *o);
void obs_perf_close(struct obs_perf *o);

struct damon_cfg {
	uint64_t sample_us, aggr_us, update_us;
	unsigned int min_regions, max_regions;
};
struct obs_damon;
int obs_damon_open(struct obs_damon **out, const struct target *t, const struct damon_cfg *c,
		   char *why);
/* when an aggregation interval has passed: read nr_accesses of every DAMON
 * region and feed every overlapping tierd region with weight nr_accesses;
 * *n receives the number of sink calls */
int obs_damon_poll(struct obs_damon *o, obs_sink sink, void *priv, uint64_t *n);
/* turn the kdamond off and restore nr_kdamonds; safe to call twice */
void obs_damon_close(struct obs_damon *o);
/* the kdamond index tierd created, -1 if none */
int obs_damon_index(const struct obs_damon *o);

/* ---- latency.c ---- */

enum lat_kind { LAT_AUTO, LAT_CHA, LAT_AMDL3, LAT_PROBE };

struct lat_sample {
	double occupancy;	/* ns x requests (Little's law numerator) */
	double arrivals;	/* requests, 0 if the source counts none */
	double mean_ns;		/* occupancy / arrivals, NAN if no data */
	double running;		/* least time_running / time_enabled of the
				 * source's counters in the interval (1: not
				 * multiplexed; NAN: no counters) */
};
/* a counter's increase @dv over an interval in which it was enabled @den ns
 * and on the PMU @drun ns, scaled to the whole interval as perf stat does;
 * *frac = drun / den (NAN/0 when it never ran) */
double ctr_scaled_delta(uint64_t dv, uint64_t den, uint64_t drun, double *frac);

struct lat_cha;
/* CHA TOR occupancy / inserts on the socket of @default_node: even boxes
 * count local (default tier) DRd misses, odd boxes remote (alternate) */
int lat_cha_open(struct lat_cha **out, int default_node, int alternate_node, char *why);
int lat_cha_read(struct lat_cha *c, struct lat_sample s[2]);
void lat_cha_close(struct lat_cha *c);

/* AMD Zen 4/5 L3 XI sampled latency (latency.c): what is counted where */
#define MAX_CCX 64
struct amdl3_plan {
	char spec[2][2][160];	/* [tier][0: latency 0xac, 1: requests 0xad] */
	int cpus[MAX_CCX];	/* one CPU per CCX of the default node */
	int ncpu;
	double ns_per_unit;	/* 10 (L3 per CCX >= 32 MiB) or 30 */
	char alternate[32];	/* the alternate tier's data source */
};
/* @vendor: 1 Intel, 2 AMD; reads the PMU tree (pmu_root) and the node/cpu tree */
int amdl3_plan(struct amdl3_plan *p, int vendor, int family, int model, int default_node,
	       int alternate_node, char *why);
/* the node/ and cpu/ tree amdl3_plan reads (default /sys/devices/system) */
void lat_set_sys_root(const char *dir);
struct lat_amdl3;
int lat_amdl3_open(struct lat_amdl3 **out, int default_node, int alternate_node, char *why);
int lat_amdl3_read(struct lat_amdl3 *l, struct lat_sample s[2]);
void lat_amdl3_close(struct lat_amdl3 *l);

struct lat_probe;
/* one thread per tier chasing a buffer bound to nodes[i] */
int lat_probe_open(struct lat_probe **out, const int nodes[2], size_t bytes, unsigned int loads,
		   int cpu, uint64_t period_ns, char *why);
/* start the chase threads (after any lat_probe_unloaded() calls) */
int lat_probe_start(struct lat_probe *p, char *why);
/* accumulated since the last read; mean_ns NAN when no chase ran */
int lat_probe_read(struct lat_probe *p, struct lat_sample s[2]);
/* a long chase (idle latency), run in the caller's thread before the threads start */
double lat_probe_unloaded(struct lat_probe *p, unsigned int tier);
void lat_probe_close(struct lat_probe *p);

/* ---- sources.c: the sources behind operations tables ---- */

/*
 * An access observation source, as the policy loop sees it (DAMON's
 * struct damon_operations is the model): @src is what its open function
 * returned.
 * @label:  name for messages ("perf", "DAMON").
 * @poll:   feed this quantum's observations to @sink; *@n = sink calls;
 *          0 or -errno (the loop stops).
 * @upkeep: every 100 quanta (NULL: nothing), e.g. find new threads.
 * @close:  release the source; NULL @src is allowed.
 */
struct tierd_obs_ops {
	const char *label;
	int (*poll)(void *src, obs_sink sink, void *priv, uint64_t *n);
	void (*upkeep)(void *src);
	void (*close)(void *src);
};

extern const struct tierd_obs_ops tierd_obs_perf, tierd_obs_damon;

/*
 * A latency source.
 * @label:          name for messages ("cha", "probe").
 * @counts_traffic: 1 when its arrivals are the workload's own requests
 *                  (CHA TOR inserts); 0 when it measures latency only (the
 *                  probe threads): the loop then estimates each tier's
 *                  traffic from the access samples.
 * @read:           per-tier occupancy, arrivals, mean since the last read.
 * @close:          release it; NULL @src is allowed.
 */
struct tierd_lat_ops {
	const char *label;
	int counts_traffic;
	int (*read)(void *src, struct lat_sample s[2]);
	void (*close)(void *src);
};

extern const struct tierd_lat_ops tierd_lat_cha, tierd_lat_amdl3, tierd_lat_probe;

/* ---- time ---- */
uint64_t cpu_ns(void);	/* CLOCK_PROCESS_CPUTIME_ID (now_ns(): libtbutil) */

#endif /* TIERD_H */
