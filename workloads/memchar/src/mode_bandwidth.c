// SPDX-License-Identifier: MIT
/*
 * bandwidth: T threads, one per CPU, each streaming over its own buffer.
 * Threads fill their buffers, wait at a gate, then run whole chunks of
 * the kernel until --duration has passed; the time is from the gate's
 * opening (earliest thread start) to the last thread done.
 * mc_streams_run() does this for groups of threads on different targets
 * (one gate, one window); share mode (mode_share.c) uses it too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "memchar.h"
#include "modes.h"

struct bw_worker {
	struct mc_gate *gate;
	struct mc_stream st;
	int cpu;
	uint64_t run_ns;
	size_t chunk;
	uint64_t t0, t1;
	int err;
};

static void *bw_main(void *arg)
{
	struct bw_worker *w = arg;
	uint64_t t;

	w->err = pin_self(w->cpu);
	if (!w->err)
		mc_stream_fill(&w->st);
	if (mc_gate_arrive(w->gate) < 0 || w->err)
		return NULL;
	w->t0 = now_ns();
	do {
		mc_stream_run(&w->st, w->chunk, 0);
		t = now_ns();
	} while (t - w->t0 < w->run_ns && !mc_stopping());
	w->t1 = t;
	return NULL;
}

/* Iterations worth about 1 MiB of traffic between clock checks. */
size_t mc_stream_chunk(const struct mc_op *op, unsigned int delay)
{
	unsigned int rd, wr;
	size_t chunk;

	mc_op_bytes(op, &rd, &wr);
	chunk = MC_MIB / (rd + wr);
	if (delay)
		chunk = chunk / (delay + 1) ? chunk / (delay + 1) : 1;
	return chunk;
}

/* Start the workers, wait for them at the gate, check placement, run. */
static int streams_start(struct mc_ctx *c, struct mc_group *g, int ngroups,
			 struct bw_worker *w, struct mc_region *reg, int nthr)
{
	pthread_t *tid = calloc((size_t)nthr, sizeof(*tid));
	struct mc_gate gate;
	int started = 0, ret = 0;

	if (!tid) {
		cli_fail("out of memory");
		return -ENOMEM;
	}
	mc_gate_init(&gate);
	for (; started < nthr; started++) {
		w[started].gate = &gate;
		ret = mc_thread_start(&tid[started], bw_main, &w[started]);
		if (ret) {
			cli_fail("cannot start a thread: %s", strerror(-ret));
			break;
		}
	}
	mc_gate_wait_ready(&gate, started);
	for (int i = 0; i < started && !ret; i++) {
		if (w[i].err) {
			ret = w[i].err;
			cli_fail("cannot pin to CPU %d: %s", w[i].cpu,
				 strerror(-ret));
		}
	}
	for (int k = 0, first = 0; k < ngroups && !ret; first += g[k].n, k++)
		if (g[k].n)
			ret = mc_check_regions(c, g[k].tgt, &reg[first],
					       g[k].n, g[k].backing,
					       sizeof(g[k].backing));
	if (!ret && mc_stopping())
		ret = -EINTR;
	mc_gate_open(&gate, ret ? -1 : 1);
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	mc_gate_destroy(&gate);
	free(tid);
	if (!ret && mc_stopping())
		ret = -EINTR;
	return ret;
}

int mc_streams_run(struct mc_ctx *c, struct mc_group *g, int ngroups,
		   size_t bytes, double *secs)
{
	const struct mc_opts *o = c->o;
	uint64_t tmin = UINT64_MAX, tmax = 0;
	struct bw_worker *w = NULL;
	struct mc_region *reg = NULL;
	unsigned int rd, wr;
	int nthr = 0, ret = 0;

	for (int k = 0; k < ngroups; k++) {
		nthr += g[k].n;
		g[k].bytes = 0;
		g[k].verified = 1;
		g[k].backing[0] = '\0';
		g[k].buffer_bytes = 0;
	}
	w = calloc((size_t)nthr, sizeof(*w));
	reg = calloc((size_t)nthr, sizeof(*reg));
	if (!w || !reg) {
		ret = -ENOMEM;
		cli_fail("out of memory");
		goto out;
	}
	mc_op_bytes(&o->op, &rd, &wr);
	for (int k = 0, i = 0; k < ngroups; k++) {
		for (int j = 0; j < g[k].n; j++, i++) {
			ret = mc_region_alloc(g[k].tgt, bytes, o->huge, &reg[i]);
			if (ret) {
				mc_target_alloc_error(c, g[k].tgt, g[k].name,
						      g[k].n, bytes, ret);
				goto out;
			}
			g[k].buffer_bytes = reg[i].len;
			ret = mc_stream_init(&w[i].st, &o->op, reg[i].addr,
					     reg[i].len, o->seed *
					     0x9e3779b97f4a7c15ULL + (uint64_t)i);
			if (ret) {
				cli_fail("cannot set up op %s: %s", o->op.name,
					 strerror(-ret));
				goto out;
			}
			w[i].cpu = g[k].cpu[j];
			w[i].run_ns = (uint64_t)(o->duration * 1e9);
			w[i].chunk = mc_stream_chunk(&o->op, 0);
		}
	}
	ret = streams_start(c, g, ngroups, w, reg, nthr);
	if (ret)
		goto out;
	for (int k = 0, i = 0; k < ngroups; k++) {
		for (int j = 0; j < g[k].n; j++, i++) {
			if (w[i].t0 < tmin)
				tmin = w[i].t0;
			if (w[i].t1 > tmax)
				tmax = w[i].t1;
			g[k].bytes += w[i].st.iters * (rd + wr);
			if (mc_stream_verify(&w[i].st))
				g[k].verified = 0;
		}
	}
	*secs = (double)(tmax - tmin) / 1e9;
out:
	for (int i = 0; reg && i < nthr; i++)
		mc_region_free(&reg[i]);
	for (int k = 0; k < ngroups; k++)
		mc_target_rewind(g[k].tgt);
	free(w);
	free(reg);
	return ret;
}

static int bw_point(struct mc_ctx *c, int nthr)
{
	const struct mc_opts *o = c->o;
	size_t bytes = o->buffer_bytes ? o->buffer_bytes :
		       mc_default_stream_bytes(c->llc, nthr);
	struct mc_group g = { .tgt = &c->tgt, .name = c->target,
			       .cpu = c->cpus.cpu, .n = nthr };
	char cpus[256], bpi[32];
	struct mc_row row;
	double secs, mbps;
	int ret;

	ret = mc_streams_run(c, &g, 1, bytes, &secs);
	if (ret)
		return ret;
	mbps = (double)g.bytes / secs / 1e6;
	mc_op_bytes_str(&o->op, bpi, sizeof(bpi));
	mc_ctx_row(c, &row, nthr, cpus, sizeof(cpus));
	row.metric = "bandwidth";
	row.value = mbps;
	row.unit = "MB/s";
	row.op = o->op.name;
	row.threads = nthr;
	row.buffer_bytes = (long long)g.buffer_bytes;
	row.bytes_per_iter = bpi;
	row.access_bytes = mc_op_access_bytes(&o->op);
	row.flush = o->op.kind == MC_OP_PWRITE ?
		    mc_flush_name(mc_flush_detect()) : NULL;
	row.huge_pages = g.backing;
	row.verified = g.verified;
	row.duration_s = secs;
	ret = mc_csv_row(c->out, &row);
	if (ret)
		cli_fail("cannot write the CSV output");
	cli_say("bandwidth op=%s threads=%d cpus=%s %s pages=%s: %.1f MB/s verified=%d",
		    o->op.name, nthr, cpus, c->target, g.backing, mbps,
		    g.verified);
	if (!g.verified) {
		cli_fail("op %s: result check failed after timing", o->op.name);
		ret = -EIO;
	}
	return ret;
}

int mc_run_bandwidth(struct mc_ctx *c)
{
	int ret = 0;

	for (int i = 0; i < c->o->nthreads && !ret; i++)
		ret = bw_point(c, (int)c->o->threads[i]);
	return ret;
}
