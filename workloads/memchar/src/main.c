// SPDX-License-Identifier: MIT
/*
 * memchar: entry point. Parses and validates everything (exit 2 on a bad
 * argument, before any work), resolves CPUs and the memory target, then
 * runs one subcommand.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memchar.h"

static void on_signal(int sig)
{
	mc_stop_signal = sig;
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

void mc_ctx_row(const struct mc_ctx *c, struct mc_row *r, int ncpus_used,
		char *cpus_buf, size_t cpus_len)
{
	mc_row_init(r);
	r->mode = c->o->mode_name;
	if (mc_cpus_format(c->cpus.cpu, ncpus_used, cpus_buf, cpus_len))
		cpus_buf[0] = '\0';
	r->cpus = cpus_buf;
	r->cpu_node = c->cpu_node;
	r->mem_node = c->mem_node;
	r->target = c->target;
}

int mc_ctx_check_regions(const struct mc_ctx *c, const struct mc_region *r,
			 int n, char *backing, size_t blen)
{
	return mc_check_regions(c, &c->tgt, r, n, backing, blen);
}

int mc_check_regions(const struct mc_ctx *c, const struct mc_target *t,
		     const struct mc_region *r, int n, char *backing,
		     size_t blen)
{
	enum mc_huge_req h = c->o->huge;
	double frac;
	int ret;

	if (t->mem_node >= 0 && !t->dax_path) {
		for (int i = 0; i < n; i++) {
			int bad;

			ret = mc_region_check_node(&r[i], t->mem_node, &bad);
			if (ret == -EFAULT) {
				cli_fail("pages of the buffer are on node %d, not on node %d",
					 bad, t->mem_node);
				return ret;
			}
			if (ret) {
				cli_fail("cannot check page placement: %s",
					 strerror(-ret));
				return ret;
			}
		}
	}
	ret = mc_regions_backing(r, n, backing, blen, &frac);
	if (ret) {
		cli_fail("cannot read /proc/self/smaps: %s", strerror(-ret));
		return ret;
	}
	if (!t->dax_path && frac <= 0 &&
	    (h == MC_HUGE_ON || h == MC_HUGE_THP)) {
		cli_fail("--huge %s: no huge pages back the buffer (THP disabled or memory fragmented?)",
			 h == MC_HUGE_ON ? "on" : "thp");
		return -ENOMEM;
	}
	return 0;
}

/* A node to bind buffers to exists and has memory; else a usage error. */
static int check_mem_node(const char *opt, int node)
{
	long long mem;

	if (!mc_numa_ok())
		return mc_usage_error("%s %d: NUMA is not available on this system",
				      opt, node);
	mem = mc_node_mem_bytes(node);
	if (mem == -ENOENT)
		return mc_usage_error("%s %d: no such NUMA node", opt, node);
	if (mem <= 0)
		return mc_usage_error("%s %d: node has no memory", opt, node);
	return 0;
}

/* share: target B (--mem-node-b or --dax-b), and the thread count. */
static int resolve_share(const struct mc_opts *o, struct mc_ctx *c)
{
	int ret;

	c->mem_node_b = -1;
	c->share_threads = o->nthreads ? (int)o->threads[0] : c->cpus.n;
	if (c->share_threads > c->cpus.n)
		return mc_usage_error("--threads %d exceeds the %d CPUs available",
				      c->share_threads, c->cpus.n);
	if (o->dax_b) {
		snprintf(c->target_b, sizeof(c->target_b), "dax:%s", o->dax_b);
		return 0;
	}
	ret = check_mem_node("--mem-node-b", o->mem_node_b);
	if (ret)
		return ret;
	c->mem_node_b = o->mem_node_b;
	snprintf(c->target_b, sizeof(c->target_b), "node:%d", c->mem_node_b);
	return 0;
}

/* CPUs, nodes and sizes: all checked before any work (exit 2). */
static int resolve(const struct mc_opts *o, struct mc_ctx *c)
{
	struct mc_cpus allowed;
	int ret;

	c->llc = mc_llc_bytes();
	c->mem_node = -1;
	c->cpu_node = -1;
	ret = mc_cpus_allowed(&allowed);
	if (ret)
		return mc_usage_error("cannot read the CPU affinity: %s",
				      strerror(-ret));
	if (o->cpus_str) {
		if (mc_cpus_parse(o->cpus_str, &c->cpus)) {
			mc_cpus_free(&allowed);
			return mc_usage_error("bad --cpus '%s' (e.g. 0-3,8; no duplicates)",
					      o->cpus_str);
		}
		for (int i = 0; i < c->cpus.n; i++) {
			if (!mc_cpus_contains(&allowed, c->cpus.cpu[i])) {
				int cpu = c->cpus.cpu[i];

				mc_cpus_free(&allowed);
				return mc_usage_error("CPU %d in --cpus is not available to this process",
						      cpu);
			}
		}
	} else if (o->cpu_node >= 0) {
		if (!mc_numa_ok() || !mc_node_exists(o->cpu_node)) {
			mc_cpus_free(&allowed);
			return mc_usage_error("--cpu-node %d: no such NUMA node",
					      o->cpu_node);
		}
		ret = mc_cpus_of_node(o->cpu_node, &allowed, &c->cpus);
		if (ret || !c->cpus.n) {
			mc_cpus_free(&allowed);
			return mc_usage_error("--cpu-node %d: node has no CPUs available to this process",
					      o->cpu_node);
		}
	} else {
		c->cpus = allowed;
		allowed.cpu = NULL;
	}
	mc_cpus_free(&allowed);

	ret = mc_node_of_cpu(c->cpus.cpu[0]);
	c->cpu_node = ret >= 0 ? ret : -1;

	if (o->mode == MC_MODE_BANDWIDTH) {
		for (int i = 0; i < o->nthreads; i++)
			if (o->threads[i] > c->cpus.n)
				return mc_usage_error("--threads %ld exceeds the %d CPUs available",
						      o->threads[i], c->cpus.n);
	}
	if (o->mode == MC_MODE_LOADED && o->injectors > c->cpus.n - 1)
		return mc_usage_error("--injectors %ld exceeds the %d CPUs available minus one for the latency thread",
				      o->injectors, c->cpus.n);

	if (o->dax) {
		snprintf(c->target, sizeof(c->target), "dax:%s", o->dax);
	} else if (o->mem_node >= 0) {
		ret = check_mem_node("--mem-node", o->mem_node);
		if (ret)
			return ret;
		c->mem_node = o->mem_node;
	} else if (c->cpu_node >= 0 && mc_node_mem_bytes(c->cpu_node) > 0) {
		c->mem_node = c->cpu_node;
	}
	if (!o->dax) {
		if (c->mem_node >= 0)
			snprintf(c->target, sizeof(c->target), "node:%d",
				 c->mem_node);
		else	/* NUMA unavailable or CPU node without memory */
			snprintf(c->target, sizeof(c->target), "local");
	}

	if (o->mode == MC_MODE_SHARE) {
		ret = resolve_share(o, c);
		if (ret)
			return ret;
	}
	if (o->mode == MC_MODE_OBJSIZE) {
		size_t buf = o->buffer_bytes ? o->buffer_bytes :
			     mc_default_chain_bytes(c->llc);

		for (int i = 0; i < o->nsizes; i++) {
			size_t need = o->objects ?
				(size_t)o->objects * (size_t)o->sizes[i] :
				(size_t)o->sizes[i];

			if (need > buf)
				return mc_usage_error("--objects %llu x size %ld B exceeds the %zu MiB buffer",
						      (unsigned long long)(o->objects ? o->objects : 1),
						      o->sizes[i], buf / MC_MIB);
		}
	}
	return 0;
}

static int run_mode(struct mc_ctx *c)
{
	switch (c->o->mode) {
	case MC_MODE_LATENCY:
		return mc_run_latency(c);
	case MC_MODE_BANDWIDTH:
		return mc_run_bandwidth(c);
	case MC_MODE_LOADED:
		return mc_run_loaded(c);
	case MC_MODE_OBJSIZE:
		return mc_run_objsize(c);
	case MC_MODE_SHARE:
		return mc_run_share(c);
	case MC_MODE_SELFTEST:
		break;
	}
	return 1;
}

const char cli_prog[] = "memchar";

int main(int argc, char **argv)
{
	struct mc_opts o;
	struct mc_ctx c;
	int ret;

	memset(&c, 0, sizeof(c));
	ret = mc_opts_parse(argc, argv, &o);
	if (ret) {
		mc_opts_free(&o);
		return ret == 1 ? 0 : ret;
	}
	install_signals();
	if (o.mode == MC_MODE_SELFTEST) {
		ret = mc_selftest();
		mc_opts_free(&o);
		if (mc_stop_signal)
			return 128 + mc_stop_signal;
		return ret;
	}
	c.o = &o;
	c.tgt.dax_fd = -1;
	c.tgt_b.dax_fd = -1;
	ret = resolve(&o, &c);
	if (ret)
		goto out;
	if (o.mode == MC_MODE_LOADED && o.injectors < 0)
		o.injectors = c.cpus.n - 1;
	if (!mc_op_supported(&o.op)) {
		cli_fail("op %s is not supported on this architecture",
			 o.op.name);
		ret = 1;
		goto out;
	}
	c.out = stdout;
	if (o.output) {
		c.out = fopen(o.output, "we");
		if (!c.out) {
			cli_fail("cannot open --output %s: %s", o.output,
				 strerror(errno));
			ret = 1;
			goto out;
		}
	}
	ret = mc_target_open(&c.tgt, c.mem_node, o.dax);
	if (ret) {
		cli_fail("cannot open --dax %s: %s", o.dax, strerror(-ret));
		ret = 1;
		goto out;
	}
	/* --dax-b of the same path as --dax: share A's mapping offsets */
	if (o.mode == MC_MODE_SHARE && !(o.dax && o.dax_b &&
					 !strcmp(o.dax, o.dax_b))) {
		ret = mc_target_open(&c.tgt_b, c.mem_node_b, o.dax_b);
		if (ret) {
			cli_fail("cannot open --dax-b %s: %s", o.dax_b,
				 strerror(-ret));
			ret = 1;
			goto out;
		}
	}
	if (mc_csv_header(c.out)) {
		cli_fail("cannot write the CSV output");
		ret = 1;
		goto out;
	}
	ret = run_mode(&c);
	if (mc_stop_signal) {
		cli_say("interrupted by signal %d", (int)mc_stop_signal);
		ret = 128 + mc_stop_signal;
	} else if (ret < 0) {
		ret = 1;
	}
out:
	mc_target_close(&c.tgt);
	mc_target_close(&c.tgt_b);
	if (c.out && c.out != stdout && fclose(c.out) && !ret) {
		cli_fail("cannot write --output %s", o.output);
		ret = 1;
	}
	mc_cpus_free(&c.cpus);
	mc_opts_free(&o);
	return ret;
}
