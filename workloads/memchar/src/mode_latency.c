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

void mc_chase_for(struct mc_line **p, uint64_t ns, struct mc_timing *t)
{
	uint64_t chunk = 1024, t0 = now_ns(), prev = t0, now;
	long csw_prev = mc_preemptions(), csw;
	struct mc_line *q = *p;

	do {
		uint64_t dt;

		q = mc_chain_chase(q, chunk);
		now = now_ns();
		csw = mc_preemptions();
		dt = now - prev;
		mc_timing_add(t, chunk, dt, csw - csw_prev);
		/* Grow chunks to >= 100 us so the checks cost nothing. */
		if (dt < 100000 && chunk < (1u << 22))
			chunk *= 2;
		prev = now;
		csw_prev = csw;
	} while (now - t0 < ns && !mc_stopping());
	*p = q;
	mc_sink = (uintptr_t)q;
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
	mc_chase_for(&p, (uint64_t)(o->duration * 1e9), &tm);
	if (mc_stopping()) {
		ret = -EINTR;
		goto out;
	}
	ns = mc_timing_per_op(&tm);

	mc_ctx_row(c, &row, 1, cpus, sizeof(cpus));
	row.metric = "idle_latency";
	row.value = ns;
	row.unit = "ns";
	row.threads = 1;
	row.size_bytes = MC_LINE;
	row.buffer_bytes = (long long)r.len;
	row.huge_pages = backing;
	row.verified = 1;
	row.duration_s = (double)tm.ns / 1e9;
	ret = mc_csv_row(c->out, &row);
	if (ret)
		cli_fail("cannot write the CSV output");
	cli_say("latency cpu=%d %s buffer=%zu MiB pages=%s: %.1f ns/load (all chunks %.1f; preempted %ld times, %llu of %llu chunks left out)",
		    c->cpus.cpu[0], c->target, r.len / MC_MIB, backing, ns,
		    (double)tm.ns / (double)tm.n, tm.preempted,
		    (unsigned long long)tm.dropped,
		    (unsigned long long)tm.chunks);
out:
	mc_region_free(&r);
	return ret;
}
