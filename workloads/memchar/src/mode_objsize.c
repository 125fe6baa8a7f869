// SPDX-License-Identifier: MIT
/*
 * objsize: latency of whole-object accesses by object size (the PMDK
 * read/write experiment). One thread on the first CPU; objects.c has the
 * access kernels. Each size: fill, warm up (a tenth of --duration, at
 * most 0.2 s), time batches of accesses for --duration, verify.
 */
#include <errno.h>
#include <string.h>

#include "memchar.h"
#include "modes.h"

static int objsize_point(struct mc_ctx *c, struct mc_region *r, size_t size,
			 enum mc_obj_op op, enum mc_flush flush,
			 bool *checked, char *backing, size_t blen)
{
	const struct mc_opts *o = c->o;
	size_t n = o->objects ? (size_t)o->objects : r->len / size;
	uint64_t batch = 262144 / size, warm_ns, run_ns, t0, t, prev;
	struct mc_timing tm = { 0 };
	char cpus[64], bpi[48];
	const char *opname = op == MC_OBJ_READ ? "read" :
			     op == MC_OBJ_WRITE ? "write" : "write_persist";
	struct mc_objs ob;
	struct mc_row row;
	double ns;
	long csw;
	int ret, verified;

	if (batch < 64)
		batch = 64;
	ret = mc_objs_init(&ob, r->addr, size, n, op, flush,
			   o->seed + size);
	if (ret) {
		cli_fail("cannot set up %zu objects of %zu B: %s", n, size,
			 strerror(-ret));
		return ret;
	}
	ret = mc_objs_check_order(&ob);
	if (ret) {
		cli_fail("object order is not a permutation");
		goto out;
	}
	mc_objs_fill(&ob);
	if (!*checked) {
		/* Only the objects' part of the buffer was touched. */
		struct mc_region used = *r;

		used.len = mc_round_up(n * size, 4096);
		ret = mc_ctx_check_regions(c, &used, 1, backing, blen);
		if (ret)
			goto out;
		*checked = true;
	}
	run_ns = (uint64_t)(o->duration * 1e9);
	warm_ns = run_ns / 10 < 200000000ULL ? run_ns / 10 : 200000000ULL;
	t0 = now_ns();
	do {
		mc_objs_run(&ob, batch);
		t = now_ns();
	} while (t - t0 < warm_ns && !mc_stopping());
	csw = mc_preemptions();
	t0 = prev = now_ns();
	do {
		long now_csw;

		mc_objs_run(&ob, batch);
		t = now_ns();
		now_csw = mc_preemptions();
		mc_timing_add(&tm, batch, t - prev, now_csw - csw);
		prev = t;
		csw = now_csw;
	} while (t - t0 < run_ns && !mc_stopping());
	if (mc_stopping()) {
		ret = -EINTR;
		goto out;
	}
	ns = mc_timing_per_op(&tm);
	verified = mc_objs_verify(&ob) == 0;

	if (op == MC_OBJ_READ)
		snprintf(bpi, sizeof(bpi), "%zu+0", size);
	else
		snprintf(bpi, sizeof(bpi), "0+%zu", size);
	mc_ctx_row(c, &row, 1, cpus, sizeof(cpus));
	row.metric = "object_latency";
	row.value = ns;
	row.unit = "ns";
	row.op = opname;
	row.threads = 1;
	row.size_bytes = (long long)size;
	row.buffer_bytes = (long long)(n * size);
	row.bytes_per_iter = bpi;
	row.huge_pages = backing;
	row.flush = op == MC_OBJ_WRITE_PERSIST ? mc_flush_name(flush) : NULL;
	row.verified = verified;
	row.duration_s = (double)tm.ns / 1e9;
	ret = mc_csv_row(c->out, &row);
	if (ret)
		cli_fail("cannot write the CSV output");
	cli_say("objsize op=%s%s%s size=%zu objects=%zu pages=%s: %.1f ns/object verified=%d (preempted %ld times, %llu of %llu batches left out)",
		    opname, row.flush ? " flush=" : "",
		    row.flush ? row.flush : "", size, n, backing, ns,
		    verified, tm.preempted, (unsigned long long)tm.dropped,
		    (unsigned long long)tm.chunks);
	if (!verified) {
		cli_fail("objsize %s: result check failed after timing",
			 opname);
		ret = -EIO;
	}
out:
	mc_objs_destroy(&ob);
	return ret;
}

int mc_run_objsize(struct mc_ctx *c)
{
	const struct mc_opts *o = c->o;
	size_t bytes = o->buffer_bytes ? o->buffer_bytes :
		       mc_default_chain_bytes(c->llc);
	enum mc_obj_op op = MC_OBJ_READ;
	enum mc_flush flush = MC_FLUSH_NONE;
	struct mc_region r = { 0 };
	char backing[32] = "";
	bool checked = false;
	int ret;

	if (o->op.kind == MC_OP_WRITE)
		op = o->persist ? MC_OBJ_WRITE_PERSIST : MC_OBJ_WRITE;
	if (op == MC_OBJ_WRITE_PERSIST) {
		flush = mc_flush_detect();
		if (flush == MC_FLUSH_NONE) {
			cli_fail("--persist: this CPU has no cache-line flush instruction (clwb, clflushopt, clflush)");
			return -EOPNOTSUPP;
		}
	}
	ret = pin_self(c->cpus.cpu[0]);
	if (ret) {
		cli_fail("cannot pin to CPU %d: %s", c->cpus.cpu[0],
			 strerror(-ret));
		return ret;
	}
	ret = mc_region_alloc(&c->tgt, bytes, o->huge, &r);
	if (ret) {
		mc_alloc_error(c, 1, bytes, ret);
		return ret;
	}
	for (int i = 0; i < o->nsizes && !ret && !mc_stopping(); i++)
		ret = objsize_point(c, &r, (size_t)o->sizes[i], op, flush,
				    &checked, backing, sizeof(backing));
	if (!ret && mc_stopping())
		ret = -EINTR;
	mc_region_free(&r);
	return ret;
}
