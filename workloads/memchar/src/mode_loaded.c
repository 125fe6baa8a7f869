// SPDX-License-Identifier: MIT
/*
 * loaded: latency under load (the bandwidth-latency curve, in the manner
 * of Intel MLC --loaded_latency). The calling thread chases the chain on
 * the first CPU while T injector threads on the next T CPUs run a stream
 * kernel with `delay` spin iterations after every iteration. For each
 * delay, largest first: injectors start, a warm-up passes, then latency
 * and the injectors' progress are sampled over the same window.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "memchar.h"
#include "modes.h"

struct inj {
	struct mc_gate *gate;
	struct mc_stream st;
	int cpu;
	unsigned int delay;
	size_t chunk;
	_Atomic uint64_t done;		/* st.iters, published per chunk */
	atomic_int *stop;
	int err;
};

static void *inj_main(void *arg)
{
	struct inj *w = arg;

	w->err = pin_self(w->cpu);
	if (mc_gate_arrive(w->gate) < 0 || w->err)
		return NULL;
	while (!atomic_load_explicit(w->stop, memory_order_relaxed) &&
	       !mc_stopping()) {
		mc_stream_run(&w->st, w->chunk, w->delay);
		atomic_store_explicit(&w->done, w->st.iters,
				      memory_order_relaxed);
	}
	return NULL;
}

static int cmp_desc(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x < y) - (x > y);
}

struct loaded {
	struct mc_ctx *c;
	struct inj *w;
	pthread_t *tid;
	int nthr;
	struct mc_region chain;
	struct mc_line *p;
	char backing[32];
	char cpus[256];
	char bpi[32];
};

static int loaded_point(struct loaded *L, long delay)
{
	const struct mc_opts *o = L->c->o;
	uint64_t b0 = 0, b1 = 0, tb0 = 0, tb1 = 1, warm;
	struct mc_timing tm = { 0 };
	static struct mc_tail tail;
	uint64_t run_ns = (uint64_t)(o->duration * 1e9);
	unsigned int rd, wr;
	struct mc_gate gate;
	atomic_int stop = 0;
	int started = 0, ret = 0, verified = 1;
	struct mc_row row;
	double ns, inj_mbps, lat_mbps, secs;

	mc_op_bytes(&o->op, &rd, &wr);
	mc_gate_init(&gate);
	for (int i = 0; i < L->nthr; i++) {
		struct inj *w = &L->w[i];

		w->gate = &gate;
		w->stop = &stop;
		w->delay = (unsigned int)delay;
		w->chunk = mc_stream_chunk(&o->op, w->delay);
		atomic_store(&w->done, w->st.iters);
	}
	for (; started < L->nthr; started++) {
		ret = mc_thread_start(&L->tid[started], inj_main,
				      &L->w[started]);
		if (ret) {
			cli_fail("cannot start a thread: %s", strerror(-ret));
			break;
		}
	}
	mc_gate_wait_ready(&gate, started);
	for (int i = 0; i < started && !ret; i++) {
		if (L->w[i].err) {
			ret = L->w[i].err;
			cli_fail("cannot pin to CPU %d: %s", L->w[i].cpu,
				 strerror(-ret));
		}
	}
	mc_gate_open(&gate, ret ? -1 : 1);
	if (!ret) {
		/* Let the injectors reach a steady state. */
		warm = run_ns / 5 < 200000000ULL ? run_ns / 5 : 200000000ULL;
		mc_tail_prepare(&L->p, warm, o, &tail);
		for (int i = 0; i < L->nthr; i++)
			b0 += atomic_load(&L->w[i].done);
		tb0 = now_ns();
		mc_chase_for(&L->p, run_ns, &tm, &tail);
		for (int i = 0; i < L->nthr; i++)
			b1 += atomic_load(&L->w[i].done);
		tb1 = now_ns();
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < started; i++)
		pthread_join(L->tid[i], NULL);
	mc_gate_destroy(&gate);
	if (ret)
		return ret;
	if (mc_stopping())
		return -EINTR;

	for (int i = 0; i < L->nthr; i++)
		if (mc_stream_verify(&L->w[i].st))
			verified = 0;
	ns = mc_timing_per_op(&tm);
	secs = (double)(tb1 - tb0) / 1e9;
	inj_mbps = (double)(b1 - b0) * (rd + wr) / secs / 1e6;
	lat_mbps = (double)tm.n * MC_LINE / ((double)tm.ns / 1e9) / 1e6;

	mc_ctx_row(L->c, &row, L->nthr + 1, L->cpus, sizeof(L->cpus));
	row.metric = "loaded_latency";
	row.value = ns;
	row.unit = "ns";
	row.op = o->op.name;
	row.threads = L->nthr;
	row.size_bytes = MC_LINE;
	row.buffer_bytes = (long long)L->chain.len;
	row.delay = delay;
	row.bandwidth_mbps = inj_mbps + lat_mbps;
	row.bytes_per_iter = L->bpi;
	row.flush = o->op.kind == MC_OP_PWRITE ?
		    mc_flush_name(mc_flush_detect()) : NULL;
	row.huge_pages = L->backing;
	row.verified = verified;
	row.duration_s = (double)tm.ns / 1e9;
	row.group_loads = (int)tail.group;
	row.access_bytes = mc_op_access_bytes(&o->op);
	ret = mc_csv_row(L->c->out, &row);
	if (!ret)
		ret = mc_tail_rows(L->c, &row, &tail);
	if (ret)
		cli_fail("cannot write the CSV output");
	cli_say("loaded op=%s injectors=%d delay=%ld: %.1f ns/load, %.1f MB/s (injectors %.1f + chase %.1f) verified=%d (preempted %ld times, %llu of %llu chunks left out)",
		    o->op.name, L->nthr, delay, ns, inj_mbps + lat_mbps,
		    inj_mbps, lat_mbps, verified, tm.preempted,
		    (unsigned long long)tm.dropped,
		    (unsigned long long)tm.chunks);
	mc_tail_say("loaded", "load", &tail);
	if (!verified) {
		cli_fail("injector op %s: result check failed after timing",
			 o->op.name);
		return -EIO;
	}
	return ret;
}

int mc_run_loaded(struct mc_ctx *c)
{
	const struct mc_opts *o = c->o;
	size_t chain_bytes = o->buffer_bytes ? o->buffer_bytes :
			     mc_default_chain_bytes(c->llc);
	size_t inj_bytes;
	struct mc_region *reg = NULL;
	struct loaded L;
	long *delays = NULL;
	char inj_backing[32];
	uint64_t warm;
	int ret;

	memset(&L, 0, sizeof(L));
	L.c = c;
	L.nthr = (int)o->injectors;
	inj_bytes = o->buffer_bytes ? o->buffer_bytes :
		    mc_default_stream_bytes(c->llc, L.nthr);
	mc_op_bytes_str(&o->op, L.bpi, sizeof(L.bpi));
	ret = pin_self(c->cpus.cpu[0]);
	if (ret) {
		cli_fail("cannot pin to CPU %d: %s", c->cpus.cpu[0],
			 strerror(-ret));
		return ret;
	}
	L.w = calloc((size_t)L.nthr + 1, sizeof(*L.w));
	L.tid = calloc((size_t)L.nthr + 1, sizeof(*L.tid));
	reg = calloc((size_t)L.nthr + 1, sizeof(*reg));
	delays = malloc((size_t)o->ndelays * sizeof(*delays));
	if (!L.w || !L.tid || !reg || !delays) {
		cli_fail("out of memory");
		ret = -ENOMEM;
		goto out;
	}
	ret = mc_chain_setup(c, chain_bytes, &L.chain, L.backing,
			     sizeof(L.backing));
	if (ret)
		goto out;
	for (int i = 0; i < L.nthr; i++) {
		ret = mc_region_alloc(&c->tgt, inj_bytes, o->huge, &reg[i]);
		if (ret) {
			mc_alloc_error(c, L.nthr, inj_bytes, ret);
			goto out;
		}
		ret = mc_stream_init(&L.w[i].st, &o->op, reg[i].addr,
				     reg[i].len,
				     o->seed * 0x9e3779b97f4a7c15ULL + (uint64_t)i);
		if (ret) {
			cli_fail("cannot set up op %s: %s", o->op.name,
				 strerror(-ret));
			goto out;
		}
		mc_stream_fill(&L.w[i].st);
		L.w[i].cpu = c->cpus.cpu[i + 1];
	}
	if (L.nthr) {
		ret = mc_ctx_check_regions(c, reg, L.nthr, inj_backing,
					   sizeof(inj_backing));
		if (ret)
			goto out;
	}
	memcpy(delays, o->delays, (size_t)o->ndelays * sizeof(*delays));
	qsort(delays, (size_t)o->ndelays, sizeof(*delays), cmp_desc);

	{
		struct mc_row tmp;	/* formats the chasing CPU into L.cpus */

		mc_ctx_row(c, &tmp, 1, L.cpus, sizeof(L.cpus));
		mc_timer_rows(c, L.cpus);
	}
	L.p = L.chain.addr;
	warm = L.chain.len / MC_LINE;
	L.p = mc_chain_chase(L.p, warm < (1u << 24) ? warm : (1u << 24));
	for (int i = 0; i < o->ndelays && !ret && !mc_stopping(); i++)
		ret = loaded_point(&L, delays[i]);
	if (!ret && mc_stopping())
		ret = -EINTR;
out:
	mc_sink = (uintptr_t)L.p;
	for (int i = 0; reg && i < L.nthr; i++)
		mc_region_free(&reg[i]);
	mc_region_free(&L.chain);
	free(reg);
	free(L.w);
	free(L.tid);
	free(delays);
	return ret;
}
