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

#define OBJ_GROUPS_MAX 4096

/*
 * Object accesses per timed group: 16, as latency's 16 loads. With one
 * object per group the clock read was not a fixed cost: part of it
 * overlaps the object's loads, so subtracting its back-to-back cost (24 ns
 * on the development VM) made 4 KiB reads 3.6 % faster than memchar's
 * batch-timed mean (interleaved pairs); over 16 objects that error is at
 * most 1.5 ns per object.
 */
#define OBJS_GROUP 16

/*
 * As mc_chase_for (mode_latency.c) for object accesses: timed groups of
 * tail->group accesses, a clock read after each, chunks (>= 100 us) left
 * out when the thread was preempted, the clock's cost subtracted.
 */
static void objs_timed(struct mc_objs *ob, uint64_t ns, struct mc_timing *t,
		       struct mc_tail *tail)
{
	static uint32_t d[OBJ_GROUPS_MAX];
	size_t groups = 8;
	uint64_t t0, start, prev, now = 0;
	long csw_prev = mc_preemptions(), csw;

	t0 = prev = now_ns();
	do {
		uint64_t dt;

		start = prev;
		for (size_t i = 0; i < groups; i++) {
			mc_objs_run(ob, tail->group);
			now = now_ns();
			d[i] = now - prev > UINT32_MAX ? UINT32_MAX :
			       (uint32_t)(now - prev);
			prev = now;
		}
		dt = now - start;
		csw = mc_chunk_done(t, tail, d, groups, tail->group, dt, csw_prev);
		if (dt < 100000 && groups < OBJ_GROUPS_MAX)
			groups *= 2;
		csw_prev = csw;
		prev = now_ns();
	} while (prev - t0 < ns && !mc_stopping());
}

static void objs_prepare(struct mc_objs *ob, uint64_t warm_ns,
			 const struct mc_opts *o, struct mc_tail *tail)
{
	struct mc_timing tw = { 0 };
	double timer = mc_timer_cost_ns();

	mc_tail_init(tail, OBJS_GROUP, timer, 0);
	objs_timed(ob, warm_ns, &tw, tail);
	tail->cap_ns = o->outlier_ns >= 0 ? (uint64_t)o->outlier_ns :
		       mc_tail_cap(&tail->h, MC_OUTLIER_FACTOR,
				   MC_OUTLIER_FLOOR_NS);
	mc_tail_init(tail, OBJS_GROUP, timer, tail->cap_ns);
}

static int objsize_point(struct mc_ctx *c, struct mc_region *r, size_t size,
			 enum mc_obj_op op, enum mc_flush flush,
			 bool *checked, char *backing, size_t blen)
{
	const struct mc_opts *o = c->o;
	size_t n = o->objects ? (size_t)o->objects : r->len / size;
	uint64_t batch = 262144 / size, warm_ns, run_ns, t0, t;
	struct mc_timing tm = { 0 };
	static struct mc_tail tail;
	char cpus[64], bpi[48];
	const char *opname = op == MC_OBJ_READ ? "read" :
			     op == MC_OBJ_WRITE ? "write" : "write_persist";
	struct mc_objs ob;
	struct mc_row row;
	double ns;
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
	/* untimed warm-up, then a timed one for the clock's cost and the cap */
	t0 = now_ns();
	do {
		mc_objs_run(&ob, batch);
		t = now_ns();
	} while (t - t0 < warm_ns / 2 && !mc_stopping());
	objs_prepare(&ob, warm_ns / 2, o, &tail);
	objs_timed(&ob, run_ns, &tm, &tail);
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
	row.group_loads = (int)tail.group;
	ret = mc_csv_row(c->out, &row);
	if (!ret)
		ret = mc_tail_rows(c, &row, &tail);
	if (ret)
		cli_fail("cannot write the CSV output");
	cli_say("objsize op=%s%s%s size=%zu objects=%zu pages=%s: %.1f ns/object verified=%d (preempted %ld times, %llu of %llu batches left out)",
		    opname, row.flush ? " flush=" : "",
		    row.flush ? row.flush : "", size, n, backing, ns,
		    verified, tm.preempted, (unsigned long long)tm.dropped,
		    (unsigned long long)tm.chunks);
	mc_tail_say("objsize", "object", &tail);
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
	{
		struct mc_row tmp;	/* formats the timing CPU */
		char cpus[64];

		mc_ctx_row(c, &tmp, 1, cpus, sizeof(cpus));
		mc_timer_rows(c, cpus);
	}
	for (int i = 0; i < o->nsizes && !ret && !mc_stopping(); i++)
		ret = objsize_point(c, &r, (size_t)o->sizes[i], op, flush,
				    &checked, backing, sizeof(backing));
	if (!ret && mc_stopping())
		ret = -EINTR;
	mc_region_free(&r);
	return ret;
}
