// SPDX-License-Identifier: MIT
/*
 * selftest: chain construction, every kernel and the helpers, on small
 * buffers. Each check also feeds a corrupted input to its verifier and
 * expects a failure, so a verifier that always passes is caught too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memchar.h"

static int failures, checks;

static void check(bool ok, const char *what)
{
	checks++;
	if (!ok) {
		failures++;
		fprintf(stderr, "memchar selftest: FAIL: %s\n", what);
	}
}

static void test_cpulist(void)
{
	struct mc_cpus l;
	char buf[64];

	check(!mc_cpus_parse("0-3,8,10-11", &l) && l.n == 7 &&
	      l.cpu[4] == 8, "cpulist parse 0-3,8,10-11");
	check(!mc_cpus_format(l.cpu, l.n, buf, sizeof(buf)) &&
	      !strcmp(buf, "0-3;8;10-11"), "cpulist format 0-3;8;10-11");
	mc_cpus_free(&l);
	check(!mc_cpus_parse("5", &l) && l.n == 1 && l.cpu[0] == 5,
	      "cpulist parse single");
	mc_cpus_free(&l);
	check(mc_cpus_parse("3-1", &l) == -EINVAL, "cpulist rejects 3-1");
	check(mc_cpus_parse("1,1", &l) == -EINVAL, "cpulist rejects dups");
	check(mc_cpus_parse("1,", &l) == -EINVAL, "cpulist rejects 1,");
	check(mc_cpus_parse("a", &l) == -EINVAL, "cpulist rejects a");
	check(!mc_cpus_allowed(&l) && l.n > 0, "affinity has CPUs");
	mc_cpus_free(&l);
}

static void test_rng_fill(void)
{
	struct rng a, b;
	bool same = true, below = true;
	uint64_t sum = 0;

	rng_seed(&a, 42, 0);
	rng_seed(&b, 42, 0);
	for (int i = 0; i < 1000; i++) {
		uint64_t x = rng_below_exact(&a, 7), y = rng_below_exact(&b, 7);

		same &= x == y && rng_next(&a) == rng_next(&b);
		below &= x < 7;
	}
	check(same, "rng deterministic per seed");
	check(below, "rng_below in range");
	for (uint64_t m = 0; m < 300; m++) {
		if (mc_fill_sum(m, 12345) != sum) {
			check(false, "fill closed-form sum");
			return;
		}
		sum += mc_fill_word(m, 12345);
	}
	check(true, "fill closed-form sum");
}

/* mc_chain_verify() against the plain walk on chains with random damage: the same verdict */
static void test_chain_verify_agrees(void)
{
	struct rng rng;
	int differ = 0, whole = 0;

	rng_seed(&rng, 11, 0);
	for (int it = 0; it < 3000; it++) {
		size_t n = 1 + (size_t)rng_below_exact(&rng, 300);
		struct mc_line *e = aligned_alloc(MC_LINE, n * MC_LINE);
		int cuts = (int)rng_below_exact(&rng, 3);

		if (!e || mc_chain_build(e, n, (uint64_t)it)) {
			free(e);
			check(false, "chain alloc");
			return;
		}
		/* none, one or two changes: two successors swapped (still a permutation) or one redirected */
		for (int c = 0; c < cuts; c++) {
			size_t i = (size_t)rng_below_exact(&rng, n), j = (size_t)rng_below_exact(&rng, n);
			struct mc_line *t = e[i].next;

			if (rng_below_exact(&rng, 2)) {
				e[i].next = e[j].next;
				e[j].next = t;
			} else {
				e[i].next = &e[j];
			}
		}
		whole += !mc_chain_verify_walk(e, n);
		differ += mc_chain_verify(e, n) != mc_chain_verify_walk(e, n);
		free(e);
	}
	/* some damaged chains are still one cycle, most are not: both verdicts were tried */
	check(differ == 0 && whole > 300 && whole < 2700, "chain verify agrees with the walk (3000 damaged chains)");
}

static void test_chain(void)
{
	static const size_t sizes[] = { 1, 2, 3, 17, 1000, 4101 };

	for (size_t k = 0; k < MC_ARRAY_SIZE(sizes); k++) {
		size_t n = sizes[k];
		struct mc_line *e = aligned_alloc(MC_LINE, n * MC_LINE);
		struct mc_line *f = aligned_alloc(MC_LINE, n * MC_LINE);
		char what[96];
		bool same = true;

		if (!e || !f) {
			check(false, "chain alloc");
			free(e);
			free(f);
			return;
		}
		snprintf(what, sizeof(what), "chain n=%zu is one cycle", n);
		check(!mc_chain_build(e, n, 7) && !mc_chain_verify(e, n), what);
		/* deterministic, and the same chain from the in-place fallback */
		snprintf(what, sizeof(what), "chain n=%zu deterministic, in place alike", n);
		check(!mc_chain_build_lines(f, n, 7) && !mc_chain_verify_walk(f, n), what);
		for (size_t i = 0; i < n; i++)
			same &= e[i].next - e == f[i].next - f;
		check(same, what);
		snprintf(what, sizeof(what), "chain n=%zu chase returns", n);
		check(mc_chain_chase(e, 16 * n) == e, what);
		if (n >= 3) {
			/* Split into two cycles: swap two successors. */
			struct mc_line *t = e[0].next;

			e[0].next = e[1].next;
			e[1].next = t;
			snprintf(what, sizeof(what),
				 "chain n=%zu split detected", n);
			check(mc_chain_verify(e, n) == -ELOOP && mc_chain_verify_walk(e, n) == -ELOOP, what);
			e[1].next = e[0].next;
			e[0].next = t;
			check(!mc_chain_verify(e, n) && !mc_chain_verify_walk(e, n), "chain restored");
			/* A pointer leaving the buffer. */
			t = e[n / 2].next;
			e[n / 2].next = e + n;
			snprintf(what, sizeof(what),
				 "chain n=%zu stray pointer detected", n);
			check(mc_chain_verify(e, n) == -EFAULT && mc_chain_verify_walk(e, n) == -EFAULT, what);
			/* off the buffer's lines: inside it, but not on a line boundary */
			e[n / 2].next = (struct mc_line *)((char *)e + 8);
			snprintf(what, sizeof(what), "chain n=%zu misaligned pointer detected", n);
			check(mc_chain_verify(e, n) == -EFAULT && mc_chain_verify_walk(e, n) == -EFAULT, what);
			e[n / 2].next = t;
			/* two pointers to one line (and so a line nothing points to) */
			t = e[2].next;
			e[2].next = e[0].next;
			snprintf(what, sizeof(what), "chain n=%zu shared successor detected", n);
			check(mc_chain_verify(e, n) == -ELOOP && mc_chain_verify_walk(e, n) == -ELOOP, what);
			e[2].next = t;
			check(!mc_chain_verify(e, n), "chain restored");
		}
		free(e);
		free(f);
	}
}

static void test_stream_op(const char *name)
{
	const size_t bytes = (256 << 10) + 3 * MC_LINE;
	uint64_t *buf = aligned_alloc(MC_LINE, bytes);
	struct mc_op op;
	struct mc_stream s;
	char what[96];
	bool ok = true;

	if (!buf || mc_op_parse(name, &op)) {
		check(false, name);
		free(buf);
		return;
	}
	if (!mc_op_supported(&op)) {
		fprintf(stderr, "memchar selftest: skip %s (unsupported)\n",
			name);
		free(buf);
		return;
	}
	snprintf(what, sizeof(what), "kernel %s runs and verifies", name);
	if (mc_stream_init(&s, &op, buf, bytes, 99)) {
		check(false, what);
		free(buf);
		return;
	}
	mc_stream_fill(&s);
	ok &= !mc_stream_verify(&s);
	/* Partial passes, pass boundaries, with and without delays. */
	const size_t steps[] = { 1, s.iters_per_pass - 1, 5,
				 2 * s.iters_per_pass + 7, s.iters_per_pass };
	for (size_t i = 0; i < MC_ARRAY_SIZE(steps); i++) {
		mc_stream_run(&s, steps[i], i % 2 ? 3 : 0);
		ok &= !mc_stream_verify(&s);
	}
	check(ok, what);

	if (s.src) {
		snprintf(what, sizeof(what), "kernel %s: bad read detected",
			 name);
		s.src[5] ^= 1;
		mc_stream_run(&s, s.iters_per_pass, 0);
		check(mc_stream_verify(&s) == -EIO, what);
		s.src[5] ^= 1;
	}
	if (s.dst) {
		mc_stream_init(&s, &op, buf, bytes, 99);
		mc_stream_fill(&s);
		mc_stream_run(&s, s.iters_per_pass + 3, 0);
		snprintf(what, sizeof(what), "kernel %s: bad write detected",
			 name);
		s.dst[MC_LINE_WORDS * 2 + 1] ^= 1;
		check(mc_stream_verify(&s) == -EIO, what);
	}
	free(buf);
}

static void test_objects(enum mc_obj_op op, size_t size)
{
	const size_t n = 37;
	uint8_t *buf = aligned_alloc(MC_LINE, n * size);
	enum mc_flush fl = mc_flush_detect();
	struct mc_objs o;
	char what[96];
	bool ok = true;

	snprintf(what, sizeof(what), "objects op=%d size=%zu verify", op,
		 size);
	if (!buf) {
		check(false, what);
		return;
	}
	if (op == MC_OBJ_WRITE_PERSIST && fl == MC_FLUSH_NONE) {
		fprintf(stderr, "memchar selftest: skip persist (no flush)\n");
		free(buf);
		return;
	}
	if (mc_objs_init(&o, buf, size, n, op, fl, 3) ||
	    mc_objs_check_order(&o)) {
		check(false, what);
		free(buf);
		return;
	}
	mc_objs_fill(&o);
	mc_objs_run(&o, n / 2);
	ok &= !mc_objs_verify(&o);
	mc_objs_run(&o, 2 * n + 5);
	ok &= !mc_objs_verify(&o);
	check(ok, what);

	snprintf(what, sizeof(what), "objects op=%d size=%zu bad data detected",
		 op, size);
	buf[size * (n / 3) + size - 8] ^= 0x10;
	if (op == MC_OBJ_READ)
		mc_objs_run(&o, n);
	check(mc_objs_verify(&o) == -EIO, what);

	o.order[1] = o.order[0];
	check(mc_objs_check_order(&o) == -EFAULT, "objects bad order detected");
	mc_objs_destroy(&o);
	free(buf);
}

static void test_regions(void)
{
	static const enum mc_huge_req reqs[] = { MC_HUGE_OFF, MC_HUGE_AUTO };
	int node = mc_numa_ok() ? mc_node_of_cpu(0) : -1;
	struct mc_target t;

	if (node >= 0 && mc_node_mem_bytes(node) <= 0)
		node = -1;
	check(!mc_target_open(&t, node, NULL), "target open");
	for (size_t i = 0; i < MC_ARRAY_SIZE(reqs); i++) {
		struct mc_region r;
		char backing[32];
		double frac;
		int bad;

		if (mc_region_alloc(&t, 3 * MC_MIB, reqs[i], &r)) {
			check(false, "region alloc");
			continue;
		}
		check(r.len == 4 * MC_MIB && !((uintptr_t)r.addr % MC_HUGE),
		      "region rounded and aligned to 2 MiB");
		memset(r.addr, 1, r.len);
		check(!mc_regions_backing(&r, 1, backing, sizeof(backing),
					  &frac) && backing[0],
		      "region backing from smaps");
		if (reqs[i] == MC_HUGE_OFF)
			check(!strcmp(backing, "none"), "huge off is 4 KiB");
		if (node >= 0)
			check(!mc_region_check_node(&r, node, &bad),
			      "region on its node");
		mc_region_free(&r);
	}
	mc_target_close(&t);
}

int mc_selftest(void)
{
	static const char *const ops[] = { "read", "write", "ntwrite",
					   "pwrite", "rmw", "mix1:1", "mix2:1",
					   "mix3:1" };
	static const size_t osz[] = { 64, 192, 4096 };
	struct mc_op op;

	test_cpulist();
	test_rng_fill();
	test_chain();
	test_chain_verify_agrees();
	for (size_t i = 0; i < MC_ARRAY_SIZE(ops); i++)
		test_stream_op(ops[i]);
	check(mc_op_parse("mix0:1", &op) && mc_op_parse("mix2:2", &op) &&
	      mc_op_parse("copy", &op), "bad ops rejected");
	for (size_t i = 0; i < MC_ARRAY_SIZE(osz); i++) {
		test_objects(MC_OBJ_READ, osz[i]);
		test_objects(MC_OBJ_WRITE, osz[i]);
		test_objects(MC_OBJ_WRITE_PERSIST, osz[i]);
	}
	test_regions();
	fprintf(stderr, "memchar selftest: %d/%d checks passed\n",
		checks - failures, checks);
	return failures ? 1 : 0;
}
