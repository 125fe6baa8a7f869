// SPDX-License-Identifier: MIT
/* latency: idle load-to-use latency by pointer chasing on one CPU. */
#include <errno.h>
#include <string.h>

#include "memchar.h"
#include "modes.h"

volatile uintptr_t mc_sink;

void mc_target_alloc_error(const struct mc_ctx *c, const struct mc_target *t,
			   const char *name, int count, size_t bytes, int err)
{
	const char *hint = "";

	if (t->dax_path && err == -ENOSPC)
		hint = " (the DAX device is too small)";
	else if (!t->dax_path && c->o->huge == MC_HUGE_HUGETLB)
		hint = " (not enough free 2 MiB hugetlb pages on the node?)";
	cli_fail("cannot map %d x %zu MiB on %s: %s%s", count,
		 bytes / MC_MIB, name, strerror(-err), hint);
}

void mc_alloc_error(const struct mc_ctx *c, int count, size_t bytes, int err)
{
	mc_target_alloc_error(c, &c->tgt, c->target, count, bytes, err);
}

int mc_chain_setup(struct mc_ctx *c, size_t bytes,
		   struct mc_region *r, char *backing, size_t blen)
{
	size_t n;
	int ret;

	ret = mc_region_alloc(&c->tgt, bytes, c->o->huge,
			      r);
	if (ret) {
		mc_alloc_error(c, 1, bytes, ret);
		return ret;
	}
	n = r->len / MC_LINE;
	cli_say("%s: building a random chain of %zu lines (%zu MiB) on %s",
		    c->o->mode_name, n, r->len / MC_MIB, c->target);
	ret = mc_chain_build(r->addr, n, c->o->seed);
	if (ret)
		return ret;
	ret = mc_ctx_check_regions(c, r, 1, backing, blen);
	if (ret)
		return ret;
	ret = mc_chain_verify(r->addr, n);
	if (ret == -EINTR)
		return ret;
	if (ret) {
		cli_fail("chain verification failed: not a single cycle over all %zu lines",
			 n);
		return ret;
	}
	if (!strcmp(backing, "none"))
		cli_say("%s: 4 KiB pages: latencies include TLB misses (page walks)",
			    c->o->mode_name);
	return 0;
}

long mc_chunk_done(struct mc_timing *t, struct mc_tail *tail, const uint32_t *d,
		   size_t groups, uint64_t per_group, uint64_t dt, long csw_prev)
{
	long csw = mc_preemptions();
	double over = (double)groups * tail->timer_ns;

	mc_tail_add_chunk(tail, d, groups, csw != csw_prev);
	mc_timing_add(t, groups * per_group,
		      (double)dt > over ? dt - (uint64_t)over : 0,
		      csw - csw_prev);
	return csw;
}

double mc_timing_per_op(const struct mc_timing *t)
{
	if (t->clean_n)
		return (double)t->clean_ns / (double)t->clean_n;
	return t->n ? (double)t->ns / (double)t->n : 0;
}

void mc_timing_add(struct mc_timing *t, uint64_t n, uint64_t dt,
		   long preempted)
{
	t->n += n;
	t->ns += dt;
	t->chunks++;
	if (!preempted) {
		t->clean_n += n;
		t->clean_ns += dt;
	} else {
		t->dropped++;
		t->preempted += preempted;
	}
}

/* groups per chunk at most: the chunk's durations wait here for the check */
#define MC_GROUPS_MAX 4096

/*
 * Chase in timed groups of t->group dependent loads, a clock read after
 * each, in chunks of groups (grown to >= 100 us). The clock is
 * clock_gettime(CLOCK_MONOTONIC) (libtbutil now_ns): on x86 Linux its vDSO
 * reads the TSC with rdtsc_ordered() (lfence;rdtsc or rdtscp), so the read
 * waits for the loads before it (arch/x86/include/asm/vdso/gettimeofday.h,
 * __arch_get_hw_counter). Each group's duration therefore holds its loads
 * plus one clock read; the read's median cost is subtracted from the group
 * and from the chunk's time. After each chunk, getrusage (ru_nivcsw)
 * tells whether the thread was switched out: such a chunk is left out of
 * the mean and of the distribution. The getrusage call itself is outside
 * every group (the next group starts from a fresh clock read).
 */
void mc_chase_for(struct mc_line **p, uint64_t ns, struct mc_timing *t,
		  struct mc_tail *tail)
{
	static uint32_t d[MC_GROUPS_MAX];
	unsigned int g = tail->group;
	size_t groups = 8;
	uint64_t t0, start, prev, now = 0;
	long csw_prev = mc_preemptions(), csw;
	struct mc_line *q = *p;

	t0 = prev = now_ns();
	do {
		uint64_t dt;

		start = prev;
		for (size_t i = 0; i < groups; i++) {
			for (unsigned int k = 0; k < g; k++)
				q = q->next;
			now = now_ns();
			d[i] = now - prev > UINT32_MAX ? UINT32_MAX :
			       (uint32_t)(now - prev);
			prev = now;
		}
		dt = now - start;
		csw = mc_chunk_done(t, tail, d, groups, g, dt, csw_prev);
		/* Grow chunks to >= 100 us so the checks cost nothing. */
		if (dt < 100000 && groups < MC_GROUPS_MAX)
			groups *= 2;
		csw_prev = csw;
		prev = now_ns();
	} while (prev - t0 < ns && !mc_stopping());
	*p = q;
	mc_sink = (uintptr_t)q;
}

/* Timed warm-up: the clock's cost and the outlier cap of a point. */
void mc_tail_prepare(struct mc_line **p, uint64_t warm_ns,
		     const struct mc_opts *o, struct mc_tail *tail)
{
	struct mc_timing tw = { 0 };
	double timer = mc_timer_cost_ns();

	mc_tail_init(tail, o->group, timer, 0);
	mc_chase_for(p, warm_ns, &tw, tail);
	if (o->outlier_ns >= 0)
		tail->cap_ns = (uint64_t)o->outlier_ns;
	else
		tail->cap_ns = mc_tail_cap(&tail->h, MC_OUTLIER_FACTOR,
					   MC_OUTLIER_FLOOR_NS);
	mc_tail_init(tail, o->group, timer, tail->cap_ns);
}

void mc_timer_rows(struct mc_ctx *c, const char *cpus)
{
	struct mc_row row;
	double rdtscp = mc_rdtscp_cost_ns();

	mc_row_init(&row);
	row.mode = c->o->mode_name;
	row.metric = "timer_cost";
	row.unit = "ns";
	row.op = "clock_gettime";
	row.cpus = cpus;
	row.cpu_node = c->cpu_node;
	row.value = mc_timer_cost_ns();
	mc_csv_row(c->out, &row);
	cli_say("timer: clock_gettime(CLOCK_MONOTONIC) %.1f ns (mean of back-to-back reads; subtracted per group)",
		row.value);
	if (rdtscp >= 0) {
		row.op = "rdtscp";
		row.value = rdtscp;
		mc_csv_row(c->out, &row);
		cli_say("timer: rdtscp+lfence %.1f ns per call (not used; stated for comparison)",
			rdtscp);
	}
}

/*
 * The distribution rows of a point, beside its mean row *base: per
 * quantile of mc_quantiles, ns per load (group / loads per group);
 * then <metric>_interrupted (groups over the cap) and <metric>_groups
 * (groups in the histogram).
 */
int mc_tail_rows(struct mc_ctx *c, const struct mc_row *base,
		 const struct mc_tail *tail)
{
	char qm[64], im[64], gm[64];
	struct mc_row row = *base;
	int ret = 0;

	snprintf(qm, sizeof(qm), "%s_quantile", base->metric);
	snprintf(im, sizeof(im), "%s_interrupted", base->metric);
	snprintf(gm, sizeof(gm), "%s_groups", base->metric);
	row.group_loads = (int)tail->group;
	for (int i = 0; i < MC_NQUANTILES && tail->h.n; i++) {
		row.metric = qm;
		row.quantile = mc_quantiles[i];
		row.value = mc_hist_quantile(&tail->h, mc_quantiles[i]) /
			    tail->group;
		ret |= mc_csv_row(c->out, &row);
	}
	row.quantile = -1;
	row.metric = im;
	row.unit = "groups";
	row.value = (double)tail->interrupted;
	ret |= mc_csv_row(c->out, &row);
	row.metric = gm;
	row.value = (double)tail->h.n;
	ret |= mc_csv_row(c->out, &row);
	return ret;
}

void mc_tail_say(const char *what, const char *unit,
		 const struct mc_tail *tail)
{
	const struct mc_hist *h = &tail->h;
	double g = tail->group;

	cli_say("%s: per %s p50 %.1f p90 %.1f p99 %.1f p99.9 %.1f max %.1f ns (mean %.1f) over %llu groups of %u; %llu groups over %.1f us left out as interrupted (longest %.1f us), %llu in preempted chunks",
		what, unit, mc_hist_quantile(h, 0.5) / g, mc_hist_quantile(h, 0.9) / g,
		mc_hist_quantile(h, 0.99) / g, mc_hist_quantile(h, 0.999) / g,
		mc_hist_quantile(h, 1) / g, mc_hist_mean(h) / g,
		(unsigned long long)h->n, tail->group,
		(unsigned long long)tail->interrupted, tail->cap_ns / 1e3,
		tail->interrupted_max / 1e3,
		(unsigned long long)tail->preempted_groups);
}

int mc_run_latency(struct mc_ctx *c)
{
	const struct mc_opts *o = c->o;
	size_t bytes = o->buffer_bytes ? o->buffer_bytes :
		       mc_default_chain_bytes(c->llc);
	char backing[32], cpus[64];
	struct mc_region r = { 0 };
	struct mc_line *p;
	struct mc_timing tm = { 0 };
	static struct mc_tail tail;
	uint64_t warm;
	struct mc_row row;
	double ns;
	int ret;

	ret = pin_self(c->cpus.cpu[0]);
	if (ret) {
		cli_fail("cannot pin to CPU %d: %s", c->cpus.cpu[0],
			 strerror(-ret));
		return ret;
	}
	ret = mc_chain_setup(c, bytes, &r, backing, sizeof(backing));
	if (ret)
		goto out;
	/* Warm-up: one pass over the chain (capped at 16 Mi loads). */
	p = r.addr;
	warm = r.len / MC_LINE;
	if (warm > (1u << 24))
		warm = 1u << 24;
	p = mc_chain_chase(p, warm);
	mc_sink = (uintptr_t)p;
	mc_ctx_row(c, &row, 1, cpus, sizeof(cpus));
	mc_timer_rows(c, cpus);
	mc_tail_prepare(&p, mc_tail_warm_ns(o->duration), o, &tail);
	mc_chase_for(&p, (uint64_t)(o->duration * 1e9), &tm, &tail);
	if (mc_stopping()) {
		ret = -EINTR;
		goto out;
	}
	ns = mc_timing_per_op(&tm);

	row.metric = "idle_latency";
	row.value = ns;
	row.unit = "ns";
	row.threads = 1;
	row.size_bytes = MC_LINE;
	row.buffer_bytes = (long long)r.len;
	row.huge_pages = backing;
	row.verified = 1;
	row.duration_s = (double)tm.ns / 1e9;
	row.group_loads = (int)tail.group;
	row.access_bytes = 8;
	ret = mc_csv_row(c->out, &row);
	if (!ret)
		ret = mc_tail_rows(c, &row, &tail);
	if (ret)
		cli_fail("cannot write the CSV output");
	cli_say("latency cpu=%d %s buffer=%zu MiB pages=%s: %.1f ns/load (all chunks %.1f; preempted %ld times, %llu of %llu chunks left out)",
		    c->cpus.cpu[0], c->target, r.len / MC_MIB, backing, ns,
		    (double)tm.ns / (double)tm.n, tm.preempted,
		    (unsigned long long)tm.dropped,
		    (unsigned long long)tm.chunks);
	mc_tail_say("latency", "load", &tail);
out:
	mc_region_free(&r);
	return ret;
}
