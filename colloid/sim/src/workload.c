// SPDX-License-Identifier: MIT
/*
 * workload.c - workloads in the model: a probability vector over regions.
 *
 * GUPS: a working set of R regions of which H (the hot set, a seeded random
 * subset) share hot_share of the accesses uniformly; the other regions share
 * the rest uniformly.  Event "hotset_move": the hot set becomes cold and a
 * fresh random subset of the previously cold regions becomes hot.
 *
 * Zipf: region k of a seeded random ranking (k = 1..R) gets a share
 * proportional to k^-theta (theta = 0 is uniform; YCSB's default is 0.99),
 * as a key-value store whose keys are laid out in popularity order would
 * see it at page granularity.  The top-ranked regions that fill hot_set
 * bytes are flagged hot for reporting and for static placement.  Event
 * "hotset_move": a new ranking whose top hot_set regions are drawn among
 * the previously unflagged ones; the others take the remaining ranks in
 * random order.
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

/*
 * What both constructors share: check the layout, allocate the workload
 * (prob, hot) and one uint64_t per region of scratch (*index), and count the
 * hot regions.  The caller sets priv and fills prob.
 */
int workload_layout(double working_set, double hot_set, double object_bytes,
		    uint64_t region_size, uint64_t *nregions)
{
	if (!(working_set > 0) || region_size == 0 || !(hot_set >= 0) || hot_set > working_set ||
	    !(object_bytes >= 1))
		return -EINVAL;
	*nregions = (uint64_t)ceil(working_set / (double)region_size);
	return 0;
}

static int wl_start(double working_set, double hot_set, double object_bytes, int rmw,
		    uint64_t region_size, const struct workload_ops *ops, struct workload **out,
		    uint64_t **index, uint64_t *nhot)
{
	struct workload *w;
	uint64_t n;
	int ret;

	ret = workload_layout(working_set, hot_set, object_bytes, region_size, &n);
	if (ret)
		return ret;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->ops = ops;
	w->nregions = n;
	w->prob = malloc(w->nregions * sizeof(*w->prob));
	w->hot = calloc(w->nregions, 1);
	*index = malloc(w->nregions * sizeof(**index));
	if (!w->prob || !w->hot || !*index) {
		free(*index);
		*index = NULL;
		workload_destroy(w);
		return -ENOMEM;
	}
	w->object_bytes = object_bytes;
	w->write_frac = workload_write_frac(rmw);
	*nhot = (uint64_t)llround(hot_set / (double)region_size);
	if (*nhot > w->nregions)
		*nhot = w->nregions;
	*out = w;
	return 0;
}

int workload_gups_new(const struct gups_cfg *cfg, struct rng *r, struct workload **out)
{
	struct workload *w;
	struct gups *g;
	uint64_t i;
	int ret;

	if (!(cfg->hot_share >= 0 && cfg->hot_share <= 1))
		return -EINVAL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	ret = wl_start(cfg->working_set, cfg->hot_set, cfg->object_bytes, cfg->rmw,
		       cfg->region_size, &gups_ops, &w, &g->perm, &g->nhot);
	if (ret) {
		free(g);
		return ret;
	}
	w->priv = g;
	g->cfg = *cfg;
	pick_subset(w, r, 0);
	for (i = 0; i < w->nregions; i++)
		w->hot[i] = w->hot[i] == 2;
	gups_fill(w);
	*out = w;
	return 0;
}

/* ------------------------------------------------------------------ zipf */

struct zipf {
	double theta;
	uint64_t nhot;
	uint64_t *rank_of; /* rank_of[k] = the region of rank k (0 = most popular) */
	double norm;	   /* sum of (k+1)^-theta */
};

static void zipf_fill(struct workload *w)
{
	struct zipf *z = w->priv;
	uint64_t k;

	for (k = 0; k < w->nregions; k++) {
		uint64_t i = z->rank_of[k];

		w->prob[i] = pow((double)(k + 1), -z->theta) / z->norm;
		w->hot[i] = k < z->nhot;
	}
	w->version++;
}

/* shuffle rank_of[from..n) in place */
static void shuffle_tail(struct zipf *z, uint64_t from, uint64_t n, struct rng *r)
{
	for (uint64_t i = from; i + 1 < n; i++) {
		uint64_t j = i + rng_below(r, n - i), t = z->rank_of[i];

		z->rank_of[i] = z->rank_of[j];
		z->rank_of[j] = t;
	}
}

static int zipf_event(struct workload *w, const char *name, double value, struct rng *r)
{
	struct zipf *z = w->priv;
	uint64_t i, m = 0, n = w->nregions;

	(void)value;
	if (strcmp(name, "hotset_move"))
		return -ENOENT;
	if (z->nhot * 2 > n)
		return -EINVAL;
	/* the previously unflagged regions first, then the old hot ones */
	for (i = 0; i < n; i++)
		if (!w->hot[i])
			z->rank_of[m++] = i;
	for (i = 0; i < n; i++)
		if (w->hot[i])
			z->rank_of[m++] = i;
	/* a random ranking of the unflagged ones gives the new top ranks ... */
	shuffle_tail(z, 0, n - z->nhot, r);
	/* ... and everything below the top, old hot set included, is reshuffled */
	shuffle_tail(z, z->nhot, n, r);
	zipf_fill(w);
	return 0;
}

static void zipf_destroy(struct workload *w)
{
	struct zipf *z = w->priv;

	if (z)
		free(z->rank_of);
	free(z);
}

static const struct workload_ops zipf_ops = {
	.name = "zipf",
	.event = zipf_event,
	.destroy = zipf_destroy,
};

int workload_zipf_new(const struct zipf_cfg *cfg, struct rng *r, struct workload **out)
{
	struct workload *w;
	struct zipf *z;
	uint64_t k;
	int ret;

	if (!(cfg->theta >= 0 && cfg->theta <= 10))
		return -EINVAL;
	z = calloc(1, sizeof(*z));
	if (!z)
		return -ENOMEM;
	ret = wl_start(cfg->working_set, cfg->hot_set, cfg->object_bytes, cfg->rmw,
		       cfg->region_size, &zipf_ops, &w, &z->rank_of, &z->nhot);
	if (ret) {
		free(z);
		return ret;
	}
	w->priv = z;
	z->theta = cfg->theta;
	/* summed smallest first, so the total does not depend on rounding order */
	for (k = w->nregions; k > 0; k--)
		z->norm += pow((double)k, -z->theta);
	for (k = 0; k < w->nregions; k++)
		z->rank_of[k] = k;
	shuffle_tail(z, 0, w->nregions, r);
	zipf_fill(w);
	*out = w;
	return 0;
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
