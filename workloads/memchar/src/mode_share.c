// SPDX-License-Identifier: MIT
/*
 * share: T threads streaming together (as bandwidth does), a share of them
 * over buffers on target B and the others over buffers on target A: how
 * the total bandwidth changes as more of the threads use the slower tier
 * (the thread-share experiment of the seed's Figure 4). Per share: one row
 * per non-empty group (bandwidth_a, bandwidth_b) and one for both
 * (bandwidth_total), all over the same window, so a + b = total.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memchar.h"
#include "modes.h"

/* Threads on target B for a share of T: round half up. */
static int share_count(double share, int nthr)
{
	return (int)floor(share * nthr + 0.5);
}

/* One group's (or, with g == NULL, both groups') row. */
static int share_row(struct mc_ctx *c, const struct mc_group *g,
		     const struct mc_group *both, double share, double secs,
		     const char *total_target)
{
	const struct mc_opts *o = c->o;
	char cpus[256], bpi[32], backing[80];
	const struct mc_group *a = &both[0], *b = &both[1];
	struct mc_row row;
	int ret;

	mc_op_bytes_str(&o->op, bpi, sizeof(bpi));
	mc_row_init(&row);
	row.mode = o->mode_name;
	row.unit = "MB/s";
	row.op = o->op.name;
	row.cpu_node = c->cpu_node;
	row.bytes_per_iter = bpi;
	row.access_bytes = mc_op_access_bytes(&o->op);
	row.flush = o->op.kind == MC_OP_PWRITE ?
		    mc_flush_name(mc_flush_detect()) : NULL;
	row.duration_s = secs;
	row.share = share;
	if (g) {
		row.metric = g == a ? "bandwidth_a" : "bandwidth_b";
		row.value = (double)g->bytes / secs / 1e6;
		row.threads = g->n;
		row.mem_node = g->tgt->dax_path ? -1 : g->tgt->mem_node;
		row.target = g->name;
		row.buffer_bytes = (long long)g->buffer_bytes;
		row.huge_pages = g->backing;
		row.verified = g->verified;
		if (mc_cpus_format(g->cpu, g->n, cpus, sizeof(cpus)))
			cpus[0] = '\0';
	} else {
		row.metric = "bandwidth_total";
		row.value = (double)(a->bytes + b->bytes) / secs / 1e6;
		row.threads = a->n + b->n;
		row.target = total_target;
		row.buffer_bytes = (long long)(a->n ? a->buffer_bytes :
					       b->buffer_bytes);
		snprintf(backing, sizeof(backing), "%s%s%s", a->backing,
			 a->n && b->n ? "+" : "", b->backing);
		row.huge_pages = backing;
		row.verified = a->verified && b->verified;
		if (mc_cpus_format(c->cpus.cpu, a->n + b->n, cpus,
				   sizeof(cpus)))
			cpus[0] = '\0';
	}
	row.cpus = cpus;
	ret = mc_csv_row(c->out, &row);
	if (ret)
		cli_fail("cannot write the CSV output");
	return ret;
}

static int share_point(struct mc_ctx *c, struct mc_target *tb, double req,
		       const char *total_target)
{
	const struct mc_opts *o = c->o;
	int nthr = c->share_threads, nb = share_count(req, nthr);
	size_t bytes = o->buffer_bytes ? o->buffer_bytes :
		       mc_default_stream_bytes(c->llc, nthr);
	struct mc_group g[2] = {
		{ .tgt = &c->tgt, .name = c->target, .cpu = c->cpus.cpu,
		  .n = nthr - nb },
		{ .tgt = tb, .name = c->target_b,
		  .cpu = c->cpus.cpu + (nthr - nb), .n = nb },
	};
	double secs, share = (double)nb / nthr;
	int ret;

	ret = mc_streams_run(c, g, 2, bytes, &secs);
	for (int k = 0; k < 2 && !ret; k++)
		if (g[k].n)
			ret = share_row(c, &g[k], g, share, secs, NULL);
	if (!ret)
		ret = share_row(c, NULL, g, share, secs, total_target);
	if (ret)
		return ret;
	cli_say("share op=%s threads=%d share=%.4f (requested %g): A %s x%d %.1f MB/s, B %s x%d %.1f MB/s, total %.1f MB/s verified=%d",
		o->op.name, nthr, share, req, c->target, g[0].n,
		(double)g[0].bytes / secs / 1e6, c->target_b, g[1].n,
		(double)g[1].bytes / secs / 1e6,
		(double)(g[0].bytes + g[1].bytes) / secs / 1e6,
		g[0].verified && g[1].verified);
	if (!g[0].verified || !g[1].verified) {
		cli_fail("op %s: result check failed after timing", o->op.name);
		return -EIO;
	}
	return 0;
}

int mc_run_share(struct mc_ctx *c)
{
	const struct mc_opts *o = c->o;
	/* the same DAX file for A and B: one target, so buffers never overlap */
	struct mc_target *tb = o->dax && o->dax_b && !strcmp(o->dax, o->dax_b) ?
			       &c->tgt : &c->tgt_b;
	size_t len = strlen(c->target) + strlen(c->target_b) + 2;
	char *total = malloc(len);
	int ret = 0;

	if (!total) {
		cli_fail("out of memory");
		return -ENOMEM;
	}
	snprintf(total, len, "%s+%s", c->target, c->target_b);
	for (int i = 0; i < o->nshares && !ret; i++)
		ret = share_point(c, tb, o->shares[i], total);
	free(total);
	return ret;
}
