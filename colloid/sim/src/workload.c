// SPDX-License-Identifier: MIT
/*
 * workload.c - workloads in the model: a probability vector over regions.
 *
 * GUPS: a working set of R regions of which H (the hot set, a seeded random
 * subset) share hot_share of the accesses uniformly; the other regions share
 * the rest uniformly.  Event "hotset_move": the hot set becomes cold and a
 * fresh random subset of the previously cold regions becomes hot.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tiersim.h"

struct gups {
	struct gups_cfg cfg;
	uint64_t nhot;
	uint64_t *perm; /* scratch for subset draws */
};

static void gups_fill(struct workload *w)
{
	struct gups *g = w->priv;
	uint64_t i, ncold = w->nregions - g->nhot;
	double ph = g->nhot ? g->cfg.hot_share / (double)g->nhot : 0.0;
	double pc = ncold ? (1.0 - (g->nhot ? g->cfg.hot_share : 0.0)) / (double)ncold : 0.0;

	if (!ncold)
		ph = 1.0 / (double)g->nhot;
	for (i = 0; i < w->nregions; i++)
		w->prob[i] = w->hot[i] ? ph : pc;
	w->version++;
}

/* choose g->nhot regions among those with hot[] == from_flag, mark them 2 */
static void pick_subset(struct workload *w, struct rng *r, uint8_t from_flag)
{
	struct gups *g = w->priv;
	uint64_t i, m = 0;

	for (i = 0; i < w->nregions; i++)
		if (w->hot[i] == from_flag)
			g->perm[m++] = i;
	/* partial Fisher-Yates */
	for (i = 0; i < g->nhot && i < m; i++) {
		uint64_t j = i + rng_below(r, m - i), t = g->perm[i];

		g->perm[i] = g->perm[j];
		g->perm[j] = t;
		w->hot[g->perm[i]] = 2;
	}
}

static int gups_event(struct workload *w, const char *name, double value, struct rng *r)
{
	struct gups *g = w->priv;
	uint64_t i;

	(void)value;
	if (strcmp(name, "hotset_move"))
		return -ENOENT;
	if (g->nhot * 2 > w->nregions)
		return -EINVAL;
	pick_subset(w, r, 0); /* new hot regions among the cold ones -> 2 */
	for (i = 0; i < w->nregions; i++)
		w->hot[i] = w->hot[i] == 2;
	gups_fill(w);
	return 0;
}

static void gups_destroy(struct workload *w)
{
	struct gups *g = w->priv;

	if (g)
		free(g->perm);
	free(g);
}

static const struct workload_ops gups_ops = {
	.name = "gups",
	.event = gups_event,
	.destroy = gups_destroy,
};

int workload_gups_new(const struct gups_cfg *cfg, struct rng *r, struct workload **out)
{
	struct workload *w;
	struct gups *g;
	uint64_t i;

	if (!(cfg->working_set > 0) || cfg->region_size == 0 || !(cfg->hot_set >= 0) ||
	    cfg->hot_set > cfg->working_set || !(cfg->hot_share >= 0 && cfg->hot_share <= 1) ||
	    !(cfg->object_bytes >= 1))
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	g = calloc(1, sizeof(*g));
	if (!w || !g)
		goto nomem;
	w->priv = g;
	w->ops = &gups_ops;
	g->cfg = *cfg;
	w->nregions = (uint64_t)ceil(cfg->working_set / (double)cfg->region_size);
	g->nhot = (uint64_t)llround(cfg->hot_set / (double)cfg->region_size);
	if (g->nhot > w->nregions)
		g->nhot = w->nregions;
	w->prob = malloc(w->nregions * sizeof(*w->prob));
	w->hot = calloc(w->nregions, 1);
	g->perm = malloc(w->nregions * sizeof(*g->perm));
	if (!w->prob || !w->hot || !g->perm)
		goto nomem;
	w->object_bytes = cfg->object_bytes;
	w->write_frac = cfg->rmw ? 1.0 : 0.0;
	pick_subset(w, r, 0);
	for (i = 0; i < w->nregions; i++)
		w->hot[i] = w->hot[i] == 2;
	gups_fill(w);
	*out = w;
	return 0;
nomem:
	if (w) {
		free(w->prob);
		free(w->hot);
	}
	if (g)
		free(g->perm);
	free(g);
	free(w);
	return -ENOMEM;
}

void workload_destroy(struct workload *w)
{
	if (!w)
		return;
	if (w->ops && w->ops->destroy)
		w->ops->destroy(w);
	free(w->prob);
	free(w->hot);
	free(w);
}
