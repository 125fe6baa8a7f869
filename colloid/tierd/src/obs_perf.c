// SPDX-License-Identifier: MIT
/*
 * obs_perf.c - access samples from the PMU through perf_event_open(2).
 *
 * What is opened is decided by obs_perf_plan() from the PMUs' sysfs
 * description alone (so a test can plan against a stand-in tree, see
 * tests/perf_plan.c); obs_perf_open() then opens the plan on every thread.
 *
 * Intel: the core PMU's "mem-loads" (PEBS load latency, with an ldlat
 * threshold so that mostly cache-missing loads are sampled) and "mem-stores"
 * (PEBS stores) events, encodings taken from the PMU's own sysfs aliases
 * (/sys/bus/event_source/devices/cpu{,_core}/events/mem-{loads,stores};
 * the kernel defines them in arch/x86/events/intel/core.c, e.g. mem-loads
 * "event=0xcd,umask=0x1,ldlat=3", format ldlat "config1:0-15").  Where the
 * PMU also has "mem-loads-aux" (Sapphire, Emerald, Granite Rapids and the
 * hybrid parts' big cores: "event=0x03,umask=0x82", arch/x86/events/intel/
 * core.c), the kernel says the load-latency event "doesn't function quite
 * right" alone and "needs to always be co-scheduled with" that auxiliary
 * event, which "must be in front of the load latency event" in a group
 * (intel_pmu_hw_config(), arch/x86/events/intel/core.c); perf's own
 * `perf mem record` opens "{mem-loads-aux,mem-loads,ldlat=N}" for the same
 * reason (tools/perf/arch/x86/util/mem-events.c).  So tierd opens a
 * counting mem-loads-aux event as the group leader and mem-loads in its
 * group.  Each load sample stands for load_period loads above the ldlat
 * threshold, each store sample for store_period stores.  Loads carry their
 * data source, and those a cache served are dropped (perf_src_cache_hit()).
 *
 * AMD: the "ibs_op" PMU (arch/x86/events/amd/ibs.c).  Its period counts
 * cycles unless cnt_ctl is set (format "config:19": "IbsOpCntCtl (bit 19)
 * ... select either cycle or micro-ops counting mode"), so cnt_ctl=1 is
 * required: only then does a sample stand for `period` dispatched ops.  On
 * Zen 4 and later the format also has l3missonly ("config:16", shown when
 * the CPU has the Zen 4 IBS extensions): only ops that missed the L3 are
 * reported, as PEBS's ldlat threshold mostly does on Intel.  With it or
 * without (Zen 2/3), samples whose data source the kernel decodes as served
 * by a cache (L1, L2, L3, a fill buffer, another CCX's cache: ibs.c,
 * PERF_SAMPLE_DATA_SRC; perf_src_cache_hit()) are dropped here.  Either way a kept sample stands for `period` ops
 * (the tagged op is one in `period`; the filter only drops some of them).
 * Loads and stores are told apart by data_src.mem_op; IBS samples every
 * kind of op, so samples without an address are dropped.  IBS takes no
 * exclude_* bits unless its software filter is asked for (perf_ibs_init():
 * "-EINVAL" for exclude_* without config2's swfilt, a format added late in
 * 2024) and periods with the low four bits clear (perf_ibs_init()).
 *
 * Weights: PERF_SAMPLE_WEIGHT_STRUCT (Linux 5.12+) or, on older kernels,
 * PERF_SAMPLE_WEIGHT.  Either way the load's latency in core cycles is the
 * low 32 bits: PEBS puts the cache latency there (weight.full for WEIGHT,
 * weight.var1_dw for WEIGHT_STRUCT; arch/x86/events/intel/ds.c,
 * setup_pebs_fixed_sample_data() for legacy PEBS and the adaptive path,
 * __setup_pebs_meminfo_group() in newer kernels), IBS its DcMissLat for loads that missed the
 * data cache (perf_ibs_parse_ld_st_data(), ibs.c).  tierd reports their
 * mean per tier; the policy still counts samples (weight 1), as tiersim.
 *
 * One event (group) per thread of the target (pid = tid, cpu = -1), each
 * with its own ring buffer; new threads are picked up by obs_perf_rescan().
 */
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tierd.h"

#define RING_PAGES 64		/* data pages per ring buffer (power of two) */
#define MAX_EV 4096		/* events (threads x kinds) */
#define LDLAT 64		/* load-latency threshold, core cycles (perf mem uses 30) */

#ifndef PERF_SAMPLE_WEIGHT_STRUCT
#define PERF_SAMPLE_WEIGHT_STRUCT (1U << 24)	/* include/uapi/linux/perf_event.h, 5.12 */
#endif

struct ring {
	int fd;
	int aux_fd;		/* the group leader (mem-loads-aux), -1 if none */
	int is_write;		/* -1: decide per sample from data_src (IBS) */
	uint64_t sample_type;
	pid_t tid;
	void *base;
	size_t len;
};

struct obs_perf {
	const struct target *t;
	struct perf_plan p;
	struct ring ring[MAX_EV];
	size_t nring;
	size_t page;
	uint64_t lost;		/* samples lost: PERF_RECORD_LOST's and _LOST_SAMPLES' counts */
	uint64_t throttles;	/* PERF_RECORD_THROTTLE records: sampling stopped for a while */
	uint64_t dropped;	/* samples a cache served (perf_src_cache_hit()) */
};

const char *obs_perf_name(const struct obs_perf *o)
{
	return o->p.name;
}

const struct perf_plan *obs_perf_plan_of(const struct obs_perf *o)
{
	return &o->p;
}

uint64_t obs_perf_dropped(const struct obs_perf *o)
{
	return o ? o->dropped : 0;
}

uint64_t obs_perf_lost(const struct obs_perf *o)
{
	return o ? o->lost : 0;
}

uint64_t obs_perf_throttles(const struct obs_perf *o)
{
	return o ? o->throttles : 0;
}

static int open_ring(struct obs_perf *o, struct perf_event_attr *a, pid_t tid, int is_write,
		     int with_aux)
{
	struct ring *r;
	long fd, aux = -1;

	if (o->nring == MAX_EV)
		return -ENOSPC;
	if (with_aux) {
		aux = sys_perf_event_open(&o->p.aux, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (aux < 0)
			return -errno;
	}
	fd = sys_perf_event_open(a, tid, -1, (int)aux, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		int e = -errno;

		if (aux >= 0)
			close((int)aux);
		return e;
	}
	r = &o->ring[o->nring];
	r->fd = (int)fd;
	r->aux_fd = (int)aux;
	r->tid = tid;
	r->is_write = is_write;
	r->sample_type = a->sample_type;
	r->len = (RING_PAGES + 1) * o->page;
	r->base = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (r->base == MAP_FAILED) {
		int e = -errno;

		close(r->fd);
		if (r->aux_fd >= 0)
			close(r->aux_fd);
		return e;
	}
	o->nring++;
	return 0;
}

static void close_ring(struct ring *r)
{
	munmap(r->base, r->len);
	close(r->fd);
	if (r->aux_fd >= 0)
		close(r->aux_fd);
}

static int have_tid(const struct obs_perf *o, pid_t tid)
{
	for (size_t i = 0; i < o->nring; i++)
		if (o->ring[i].tid == tid)
			return 1;
	return 0;
}

/* open events for every thread not yet covered */
int obs_perf_rescan(struct obs_perf *o)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)o->t->pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);

		if (tid <= 0 || have_tid(o, tid))
			continue;
		ret = open_ring(o, &o->p.load, tid, o->p.ibs ? -1 : 0, o->p.have_aux);
		if (!ret && o->p.have_store) {
			ret = open_ring(o, &o->p.store, tid, 1, 0);
			if (ret) /* undo the load event of this thread */
				close_ring(&o->ring[--o->nring]);
		}
		if (ret == -ESRCH) { /* the thread just ended */
			ret = 0;
			continue;
		}
		if (ret)
			break;
	}
	closedir(d);
	return ret;
}

static void base_attr(struct perf_event_attr *a, int type)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = (uint32_t)type;
}

static int plan_intel(struct perf_plan *p, const char *pmu, uint64_t lp, uint64_t sp, char *why)
{
	char spec[256], alias[200];
	int type = pmu_type(pmu), ret;

	if (pmu_event_alias(pmu, "mem-loads", alias, sizeof(alias))) {
		snprintf(why, TIERD_WHY, "PMU %s has no mem-loads event (no PEBS load sampling)",
			 pmu);
		return -ENOENT;
	}
	base_attr(&p->load, type);
	snprintf(spec, sizeof(spec), "%s,ldlat=%d", alias, LDLAT);
	ret = pmu_parse(pmu, spec, &p->load);
	if (ret == -ENOENT) /* no ldlat term: use the alias as is */
		ret = pmu_parse(pmu, alias, &p->load);
	if (ret) {
		snprintf(why, TIERD_WHY, "cannot parse %s/events/mem-loads '%s'", pmu, alias);
		return ret;
	}
	p->load.sample_period = lp;
	/* the data source too: the ldlat threshold is a latency, not a miss filter, so L3 and
	 * fill-buffer hits slower than it are sampled; their decoded source drops them
	 * (perf_src_cache_hit()).  With DATA_SRC the kernel wants the mem-loads-aux leader
	 * where the PMU has it (intel_pmu_hw_config(): "require_mem_loads_aux_event(event) &&
	 * (event->attr.sample_type & PERF_SAMPLE_DATA_SRC)"), which is opened below. */
	p->load.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT_STRUCT |
			      PERF_SAMPLE_DATA_SRC;
	p->load.exclude_kernel = 1;
	p->load.exclude_hv = 1;
	p->load.precise_ip = 2;
	p->load.wakeup_events = 1u << 20;
	p->load_scale = (double)lp;
	/* the group leader the kernel asks for (see the top of this file) */
	if (!pmu_event_alias(pmu, "mem-loads-aux", alias, sizeof(alias))) {
		base_attr(&p->aux, type);
		if (pmu_parse(pmu, alias, &p->aux)) {
			snprintf(why, TIERD_WHY, "cannot parse %s/events/mem-loads-aux '%s'", pmu,
				 alias);
			return -EINVAL;
		}
		p->aux.exclude_kernel = 1;
		p->aux.exclude_hv = 1;
		p->have_aux = 1;
	}
	if (!pmu_event_alias(pmu, "mem-stores", alias, sizeof(alias))) {
		p->store = p->load;
		p->store.config = p->store.config1 = p->store.config2 = 0;
		p->store.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_ADDR;
		if (!pmu_parse(pmu, alias, &p->store)) {
			p->store.sample_period = sp;
			p->store_scale = (double)sp;
			p->have_store = 1;
		}
	}
	snprintf(p->pmu, sizeof(p->pmu), "%s", pmu);
	snprintf(p->name, sizeof(p->name), "perf:%s/%smem-loads%s", pmu,
		 p->have_aux ? "{mem-loads-aux}+" : "", p->have_store ? "+mem-stores" : "");
	return 0;
}

static int plan_ibs(struct perf_plan *p, uint64_t lp, char *why)
{
	int type = pmu_type("ibs_op");
	uint64_t period;

	if (type < 0) {
		snprintf(why, TIERD_WHY, "no ibs_op PMU");
		return -ENOENT;
	}
	if (!pmu_has_format("ibs_op", "cnt_ctl")) {
		/* ibs.c shows cnt_ctl only with IBS_CAPS_OPCNT */
		snprintf(why, TIERD_WHY,
			 "ibs_op has no cnt_ctl format: its period would count cycles, not ops, "
			 "so samples could not stand for accesses");
		return -ENOTSUP;
	}
	base_attr(&p->load, type);
	if (pmu_parse("ibs_op", "cnt_ctl=1", &p->load)) {
		snprintf(why, TIERD_WHY, "cannot parse ibs_op/format/cnt_ctl");
		return -EINVAL;
	}
	if (pmu_has_format("ibs_op", "l3missonly")) {
		if (pmu_parse("ibs_op", "l3missonly=1", &p->load)) {
			snprintf(why, TIERD_WHY, "cannot parse ibs_op/format/l3missonly");
			return -EINVAL;
		}
		p->ibs_l3missonly = 1;
	}
	/* perf_ibs_init() takes no period with the low 4 bits set */
	period = lp < 0x10 ? 0x10 : lp & ~0xfULL;
	p->load.sample_period = period;
	p->load.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT_STRUCT |
			      PERF_SAMPLE_DATA_SRC;
	p->load.wakeup_events = 1u << 20;
	p->load_scale = p->store_scale = (double)period;
	p->ibs = 1;
	snprintf(p->pmu, sizeof(p->pmu), "ibs_op");
	snprintf(p->name, sizeof(p->name), "perf:ibs_op/cnt_ctl%s/",
		 p->ibs_l3missonly ? ",l3missonly" : "");
	return 0;
}

int obs_perf_plan(struct perf_plan *p, uint64_t load_period, uint64_t store_period, char *why)
{
	char alias[200];

	memset(p, 0, sizeof(*p));
	if (pmu_type("cpu_core") >= 0) {
		int ret = plan_intel(p, "cpu_core", load_period, store_period, why);

		/* a hybrid part's E-cores have their own mem-loads on cpu_atom
		 * (arch/x86/events/intel/core.c EVENT_ATTR_STR_HYBRID mem_ld_adl):
		 * only the P-cores' loads are sampled, and the name says so */
		if (!ret && pmu_type("cpu_atom") >= 0)
			strncat(p->name, " (P-cores only: cpu_atom not sampled)",
				sizeof(p->name) - strlen(p->name) - 1);
		return ret;
	}
	if (pmu_type("cpu") >= 0 && pmu_event_alias("cpu", "mem-loads", alias, sizeof(alias)) == 0)
		return plan_intel(p, "cpu", load_period, store_period, why);
	if (pmu_type("ibs_op") >= 0)
		return plan_ibs(p, load_period, why);
	if (pmu_type("cpu") >= 0) {
		snprintf(why, TIERD_WHY,
			 "the core PMU has no mem-loads event and there is no ibs_op PMU "
			 "(no PEBS/IBS address sampling)");
		return -ENOENT;
	}
	snprintf(why, TIERD_WHY,
		 "no hardware PMU (no cpu, cpu_core or ibs_op under %s; a VM without a "
		 "virtual PMU?)", pmu_root());
	return -ENOENT;
}

/* the weight bits asked for: WEIGHT_STRUCT -> WEIGHT (before Linux 5.12) */
static void weight_fallback(struct perf_event_attr *a)
{
	if (a->sample_type & PERF_SAMPLE_WEIGHT_STRUCT) {
		a->sample_type &= ~(uint64_t)PERF_SAMPLE_WEIGHT_STRUCT;
		a->sample_type |= PERF_SAMPLE_WEIGHT;
	}
}

int obs_perf_open(struct obs_perf **out, const struct target *t, uint64_t load_period,
		  uint64_t store_period, char *why)
{
	struct obs_perf *o = calloc(1, sizeof(*o));
	char paranoid[32] = "?";
	FILE *f;
	int ret;

	if (!o) {
		snprintf(why, TIERD_WHY, "out of memory");
		return -ENOMEM;
	}
	o->t = t;
	o->page = (size_t)sysconf(_SC_PAGESIZE);
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	if (f) {
		if (fscanf(f, "%31s", paranoid) != 1)
			snprintf(paranoid, sizeof(paranoid), "?");
		fclose(f);
	}
	ret = obs_perf_plan(&o->p, load_period, store_period, why);
	if (ret)
		goto err;
	ret = obs_perf_rescan(o);
	if (ret == -EINVAL) {
		/* kernels before 5.12 know PERF_SAMPLE_WEIGHT only */
		weight_fallback(&o->p.load);
		ret = obs_perf_rescan(o);
	}
	/* a PMU whose precise level is lower refuses with EOPNOTSUPP (arch/x86/events/core.c
	 * x86_pmu_hw_config(): "if (event->attr.precise_ip > precise) return -EOPNOTSUPP") */
	if ((ret == -EINVAL || ret == -EOPNOTSUPP) && o->p.load.precise_ip > 1) {
		/* some PMUs take a lower precise level */
		o->p.load.precise_ip = 1;
		o->p.store.precise_ip = 1;
		ret = obs_perf_rescan(o);
	}
	if (ret == -EINVAL && o->p.ibs) {
		/* older IBS drivers reject DATA_SRC and weights: samples unfiltered */
		o->p.load.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_ADDR;
		ret = obs_perf_rescan(o);
		if (!ret && !o->p.ibs_l3missonly)
			strncat(o->p.name, " (no data source: cache hits not filtered)",
				sizeof(o->p.name) - strlen(o->p.name) - 1);
	}
	if (ret || !o->nring) {
		snprintf(why, TIERD_WHY,
			 "perf_event_open(%s) on the target's threads failed: %s "
			 "(perf_event_paranoid=%s)", o->p.name, ret ? strerror(-ret) : "no threads",
			 paranoid);
		ret = ret ? ret : -ESRCH;
		goto err;
	}
	*out = o;
	return 0;
err:
	obs_perf_close(o);
	return ret;
}

/*
 * One PERF_RECORD_SAMPLE body (after the header) of @nw u64 words, in the
 * order of perf_output_sample() for the bits tierd asks for: TID (u32 pid,
 * u32 tid), ADDR, WEIGHT or WEIGHT_STRUCT, DATA_SRC (perf_event_open(2),
 * "PERF_RECORD_SAMPLE").  Returns 0 or -EINVAL when the record is short.
 */
int perf_sample_parse(uint64_t sample_type, const uint64_t *rec, size_t nw,
		      struct perf_sample *s)
{
	size_t i = 0;

	memset(s, 0, sizeof(*s));
#define TAKE(dst) do { if (i >= nw) return -EINVAL; (dst) = rec[i++]; } while (0)
	if (sample_type & PERF_SAMPLE_TID) {
		uint64_t v;

		TAKE(v);
		s->pid = (uint32_t)v;		/* little-endian x86: pid first */
		s->tid = (uint32_t)(v >> 32);
	}
	if (sample_type & PERF_SAMPLE_ADDR)
		TAKE(s->addr);
	if (sample_type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		uint64_t w;

		TAKE(w);
		s->lat = (uint32_t)w;	/* weight.full's low half or weight.var1_dw */
		s->has_lat = 1;
	}
	if (sample_type & PERF_SAMPLE_DATA_SRC) {
		TAKE(s->data_src);
		s->has_src = 1;
	}
#undef TAKE
	return 0;
}

/*
 * 1 when the kernel decoded @data_src as served by a cache, not by memory:
 * a hit in L1, L2 or L3, in a fill buffer (LFB), or in another core's or
 * CCX's cache (REM_CCE1/2), by the old level bits or the level number
 * (include/uapi/linux/perf_event.h PERF_MEM_LVL_* and PERF_MEM_LVLNUM_*).
 * IBS sets such sources for other CCXs' caches and in-flight misses
 * (arch/x86/events/amd/ibs.c: "L(REM_CCE2) | LN(ANY_CACHE)", "L(LFB) |
 * LN(LFB)"), which an L3 miss filter (l3missonly) does not exclude; PEBS
 * for L3 and fill-buffer hits slower than the ldlat threshold.  A source
 * the kernel marks memory (DRAM local or remote, PMEM, CXL) or gives none
 * (NA) is kept, as perf's own c2c counts memory (tools/perf/util/
 * mem-events.c c2c_decode_stats: "lvl & P(LVL, LOC_RAM) || lnum ==
 * P(LVLNUM, RAM)").
 */
#ifndef PERF_MEM_LVLNUM_ANY_CACHE
#define PERF_MEM_LVLNUM_ANY_CACHE 0x0b
#endif
#ifndef PERF_MEM_LVLNUM_LFB
#define PERF_MEM_LVLNUM_LFB 0x0c
#endif
int perf_src_cache_hit(uint64_t data_src)
{
	union perf_mem_data_src ds = { .val = data_src };
	unsigned int n = ds.mem_lvl_num;

	if (n == PERF_MEM_LVLNUM_L1 || n == PERF_MEM_LVLNUM_L2 || n == PERF_MEM_LVLNUM_L3 ||
	    n == PERF_MEM_LVLNUM_L4 || n == PERF_MEM_LVLNUM_ANY_CACHE || n == PERF_MEM_LVLNUM_LFB)
		return 1;
	return (ds.mem_lvl & PERF_MEM_LVL_HIT) &&
	       (ds.mem_lvl & (PERF_MEM_LVL_L1 | PERF_MEM_LVL_L2 | PERF_MEM_LVL_L3 | PERF_MEM_LVL_LFB |
			      PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_REM_CCE2));
}

/* copy @len bytes at ring offset @off (may wrap) */
static void ring_copy(const struct ring *r, size_t page, uint64_t off, void *dst, size_t len)
{
	const char *data = (const char *)r->base + page;
	size_t size = RING_PAGES * page, o = (size_t)(off % size);

	if (o + len <= size) {
		memcpy(dst, data + o, len);
	} else {
		memcpy(dst, data + o, size - o);
		memcpy((char *)dst + (size - o), data, len - (size - o));
	}
}

int obs_perf_poll(struct obs_perf *o, obs_sink sink, void *priv, uint64_t *n)
{
	*n = 0;
	for (size_t i = 0; i < o->nring; i++) {
		struct ring *r = &o->ring[i];
		struct perf_event_mmap_page *m = r->base;
		uint64_t head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE);
		uint64_t tail = m->data_tail;

		while (tail < head) {
			struct perf_event_header h;
			uint64_t rec[8];

			ring_copy(r, o->page, tail, &h, sizeof(h));
			if (h.size < sizeof(h))
				break;
			if (h.type == PERF_RECORD_SAMPLE && h.size <= sizeof(h) + sizeof(rec)) {
				struct perf_sample ps;
				int w = r->is_write;
				long reg;

				ring_copy(r, o->page, tail + sizeof(h), rec, h.size - sizeof(h));
				if (perf_sample_parse(r->sample_type, rec,
						      (h.size - sizeof(h)) / sizeof(uint64_t), &ps)) {
					tail += h.size;
					continue;
				}
				if (w < 0) {
					union perf_mem_data_src ds = { .val = ps.data_src };

					if (!ps.has_src)
						w = 0;
					else if (ds.mem_op & PERF_MEM_OP_STORE)
						w = 1;
					else if (ds.mem_op & PERF_MEM_OP_LOAD)
						w = 0;
				}
				/* a sample a cache served (perf_src_cache_hit()) is no
				 * access to a tier: dropped, on IBS (l3missonly or not)
				 * and on PEBS alike */
				if (ps.has_src && perf_src_cache_hit(ps.data_src)) {
					o->dropped++;
					w = -1;
				}
				reg = ps.addr ? target_find(o->t, (uintptr_t)ps.addr) : -1;
				if (reg >= 0 && w >= 0) {
					sink(priv, (size_t)reg, w, 1,
					     ps.has_lat && w == 0 ? ps.lat : 0);
					(*n)++;
				}
			} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
				uint64_t body[2];	/* u64 id, u64 lost (perf_event.h) */

				ring_copy(r, o->page, tail + sizeof(h), body, sizeof(body));
				o->lost += body[1];
			} else if (h.type == PERF_RECORD_LOST_SAMPLES && h.size >= sizeof(h) + 8) {
				uint64_t lost;	/* u64 lost: samples the PMU dropped (ds.c) */

				ring_copy(r, o->page, tail + sizeof(h), &lost, sizeof(lost));
				o->lost += lost;
			} else if (h.type == PERF_RECORD_THROTTLE) {
				o->throttles++;
			}
			tail += h.size;
		}
		__atomic_store_n(&m->data_tail, tail, __ATOMIC_RELEASE);
	}
	return 0;
}

void obs_perf_close(struct obs_perf *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->nring; i++)
		close_ring(&o->ring[i]);
	free(o);
}
