// SPDX-License-Identifier: MIT
/*
 * obs_perf.c - access samples from the PMU through perf_event_open(2).
 *
 * Intel: the core PMU's "mem-loads" (PEBS load-latency, with an ldlat
 * threshold so that mostly cache-missing loads are sampled) and "mem-stores"
 * (PEBS stores) events, encodings taken from the PMU's own sysfs aliases
 * (/sys/bus/event_source/devices/cpu{,_core}/events/mem-{loads,stores}),
 * PERF_SAMPLE_ADDR gives the data address.  AMD: the "ibs_op" PMU with
 * PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC, loads and stores told apart by
 * data_src.mem_op; IBS samples every kind of op, so samples without an
 * address are dropped.
 *
 * One event per thread of the target (pid = tid, cpu = -1), each with its
 * own ring buffer; new threads are picked up by obs_perf_rescan().
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

struct ring {
	int fd;
	int is_write;		/* -1: decide per sample from data_src (IBS) */
	pid_t tid;
	void *base;
	size_t len;
};

struct obs_perf {
	const struct target *t;
	char name[64];
	char pmu[32];
	struct perf_event_attr load, store;
	int have_store, ibs;
	struct ring ring[MAX_EV];
	size_t nring;
	size_t page;
	uint64_t lost;
};

const char *obs_perf_name(const struct obs_perf *o)
{
	return o->name;
}

static int open_ring(struct obs_perf *o, struct perf_event_attr *a, pid_t tid, int is_write)
{
	struct ring *r;
	long fd;

	if (o->nring == MAX_EV)
		return -ENOSPC;
	fd = sys_perf_event_open(a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = &o->ring[o->nring];
	r->fd = (int)fd;
	r->tid = tid;
	r->is_write = is_write;
	r->len = (RING_PAGES + 1) * o->page;
	r->base = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (r->base == MAP_FAILED) {
		int e = -errno;

		close(r->fd);
		return e;
	}
	o->nring++;
	return 0;
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
		ret = open_ring(o, &o->load, tid, o->ibs ? -1 : 0);
		if (!ret && o->have_store) {
			ret = open_ring(o, &o->store, tid, 1);
			if (ret) { /* undo the load event of this thread */
				struct ring *r = &o->ring[--o->nring];

				munmap(r->base, r->len);
				close(r->fd);
			}
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

static int setup_intel(struct obs_perf *o, const char *pmu, uint64_t lp, uint64_t sp, char *why)
{
	char spec[256], alias[200];
	int type = pmu_type(pmu), ret;

	if (pmu_event_alias(pmu, "mem-loads", alias, sizeof(alias))) {
		snprintf(why, TIERD_WHY, "PMU %s has no mem-loads event (no PEBS load sampling)",
			 pmu);
		return -ENOENT;
	}
	memset(&o->load, 0, sizeof(o->load));
	o->load.size = sizeof(o->load);
	o->load.type = (uint32_t)type;
	snprintf(spec, sizeof(spec), "%s,ldlat=%d", alias, LDLAT);
	ret = pmu_parse(pmu, spec, &o->load);
	if (ret == -ENOENT) /* no ldlat term: use the alias as is */
		ret = pmu_parse(pmu, alias, &o->load);
	if (ret) {
		snprintf(why, TIERD_WHY, "cannot parse %s/events/mem-loads '%s'", pmu, alias);
		return ret;
	}
	o->load.sample_period = lp;
	o->load.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_ADDR;
	o->load.exclude_kernel = 1;
	o->load.exclude_hv = 1;
	o->load.precise_ip = 2;
	o->load.wakeup_events = 1u << 20;
	if (!pmu_event_alias(pmu, "mem-stores", alias, sizeof(alias))) {
		o->store = o->load;
		o->store.config = o->store.config1 = o->store.config2 = 0;
		if (!pmu_parse(pmu, alias, &o->store)) {
			o->store.sample_period = sp;
			o->have_store = 1;
		}
	}
	snprintf(o->pmu, sizeof(o->pmu), "%s", pmu);
	snprintf(o->name, sizeof(o->name), "perf:%s/mem-loads%s", pmu,
		 o->have_store ? "+mem-stores" : "");
	return 0;
}

static int setup_ibs(struct obs_perf *o, uint64_t lp, char *why)
{
	int type = pmu_type("ibs_op");

	if (type < 0) {
		snprintf(why, TIERD_WHY, "no ibs_op PMU");
		return -ENOENT;
	}
	memset(&o->load, 0, sizeof(o->load));
	o->load.size = sizeof(o->load);
	o->load.type = (uint32_t)type;
	/* IBS op counts cycles by default; the period's low 4 bits are ignored */
	o->load.sample_period = lp < 0x10 ? 0x10 : lp & ~0xfULL;
	o->load.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
	o->load.wakeup_events = 1u << 20;
	o->ibs = 1;
	snprintf(o->pmu, sizeof(o->pmu), "ibs_op");
	snprintf(o->name, sizeof(o->name), "perf:ibs_op");
	return 0;
}

int obs_perf_open(struct obs_perf **out, const struct target *t, uint64_t load_period,
		  uint64_t store_period, char *why)
{
	struct obs_perf *o = calloc(1, sizeof(*o));
	char paranoid[32] = "?", alias[200];
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
	if (pmu_type("cpu_core") >= 0)
		ret = setup_intel(o, "cpu_core", load_period, store_period, why);
	else if (pmu_type("cpu") >= 0 && pmu_event_alias("cpu", "mem-loads", alias, sizeof(alias)) == 0)
		ret = setup_intel(o, "cpu", load_period, store_period, why);
	else if (pmu_type("ibs_op") >= 0)
		ret = setup_ibs(o, load_period, why);
	else if (pmu_type("cpu") >= 0) {
		snprintf(why, TIERD_WHY,
			 "the core PMU has no mem-loads event and there is no ibs_op PMU "
			 "(no PEBS/IBS address sampling)");
		ret = -ENOENT;
	} else {
		snprintf(why, TIERD_WHY,
			 "no hardware PMU (no cpu, cpu_core or ibs_op under "
			 "/sys/bus/event_source/devices; a VM without a virtual PMU?)");
		ret = -ENOENT;
	}
	if (ret)
		goto err;
	ret = obs_perf_rescan(o);
	if (ret == -EINVAL && o->load.precise_ip) {
		/* some PMUs take a lower precise level */
		o->load.precise_ip = 1;
		o->store.precise_ip = 1;
		ret = obs_perf_rescan(o);
	}
	if (ret == -EINVAL && o->ibs) {
		/* older IBS drivers reject exclude_* and DATA_SRC */
		o->load.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_ADDR;
		ret = obs_perf_rescan(o);
	}
	if (ret || !o->nring) {
		snprintf(why, TIERD_WHY,
			 "perf_event_open(%s) on the target's threads failed: %s "
			 "(perf_event_paranoid=%s)", o->name, ret ? strerror(-ret) : "no threads",
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
				uint64_t addr, src = 0;
				int w = r->is_write;
				long reg;

				ring_copy(r, o->page, tail + sizeof(h), rec, h.size - sizeof(h));
				/* layout: u32 pid, tid; u64 addr; [u64 data_src] */
				addr = rec[1];
				if (o->load.sample_type & PERF_SAMPLE_DATA_SRC)
					src = rec[2];
				if (w < 0) {
					union perf_mem_data_src ds = { .val = src };

					if (ds.mem_op & PERF_MEM_OP_STORE)
						w = 1;
					else if (ds.mem_op & PERF_MEM_OP_LOAD)
						w = 0;
					else if (!(o->load.sample_type & PERF_SAMPLE_DATA_SRC))
						w = 0;
				}
				reg = addr ? target_find(o->t, (uintptr_t)addr) : -1;
				if (reg >= 0 && w >= 0) {
					sink(priv, (size_t)reg, w, 1);
					(*n)++;
				}
			} else if (h.type == PERF_RECORD_LOST) {
				o->lost++;
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
	for (size_t i = 0; i < o->nring; i++) {
		munmap(o->ring[i].base, o->ring[i].len);
		close(o->ring[i].fd);
	}
	free(o);
}
