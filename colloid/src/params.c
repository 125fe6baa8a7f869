// SPDX-License-Identifier: MIT
/*
 * params.c - defaults and by-name access to struct colloid_params.
 * colloid/README.md gives the source of every default.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "internal.h"

/* the constants every policy shares (struct colloid_params fields) */
struct param_desc {
	const char *name;
	size_t off;
	double min, max;
	const char *desc;
};

#define P(field, lo, hi, text) { #field, offsetof(struct colloid_params, field), lo, hi, text }

static const struct param_desc params[] = {
	P(delta, 0.0, 1.0, "balanced band: |L_D-L_A| <= delta*L_D (fraction)"),
	P(epsilon, 1e-9, 1.0, "re-open the search when p_hi-p_lo < epsilon (fraction)"),
	P(ewma_alpha, 1e-9, 1.0, "EWMA weight of a new latency observation (fraction)"),
	P(dp_mode, 0, 1, "delta-p form: 0 binary search, 1 closed form"),
	P(bytes_per_access, 1, 1 << 20, "bytes per memory access for the budget (bytes)"),
	P(migrate_limit_Bps, 0, 1e15, "static migration limit M (bytes/s)"),
	P(swap_pairs, 0, 1, "Colloid may swap hot/cold pages when the target is full (0/1)"),
	P(scan_limit, 1, 1e6, "pages examined per plan slot per tick (count)"),
};

#define NPARAMS (sizeof(params) / sizeof(params[0]))

/*
 * Constant @i of the name table (the shared ones, then each registered
 * policy's, in registry order, as they follow one another in
 * colloid_params.policy): its offset in the struct, range, name and
 * description.  param_at() returns 0 or -ENOENT past the last.
 */
struct pref {
	size_t off;
	double min, max;
	const char *name, *desc;
};

static int param_at(unsigned int i, struct pref *r)
{
	const struct colloid_policy *pol;
	unsigned int base = 0, k;

	if (i < NPARAMS) {
		r->off = params[i].off;
		r->min = params[i].min;
		r->max = params[i].max;
		r->name = params[i].name;
		r->desc = params[i].desc;
		return 0;
	}
	i -= NPARAMS;
	for (k = 0; (pol = colloid_policy_at(k)); k++) {
		if (i < pol->nparams) {
			if (base + i >= COLLOID_POLICY_PARAMS)
				return -ENOENT;
			r->off = offsetof(struct colloid_params, policy) + (base + i) * sizeof(double);
			r->min = pol->params[i].min;
			r->max = pol->params[i].max;
			r->name = pol->params[i].name;
			r->desc = pol->params[i].desc;
			return 0;
		}
		i -= pol->nparams;
		base += pol->nparams;
	}
	return -ENOENT;
}

int colloid_params_default(struct colloid_params *p, const char *policy)
{
	const struct colloid_policy *pol;
	unsigned int base = 0, k, i;

	if (!p)
		return -EINVAL;
	if (policy && !colloid_policy_find(policy))
		return -ENOENT;

	memset(p, 0, sizeof(*p));
	p->delta = 0.05;
	p->epsilon = 0.01;
	p->ewma_alpha = 1.0 / 32.0;
	p->dp_mode = COLLOID_DP_BINARY;
	p->bytes_per_access = 64;
	p->migrate_limit_Bps = 10e9;
	p->swap_pairs = 1;
	p->scan_limit = 8;

	/* every policy's own defaults, so one struct serves any policy */
	for (k = 0; (pol = colloid_policy_at(k)); k++) {
		if (base + pol->nparams > COLLOID_POLICY_PARAMS)
			return -ENOSPC;
		for (i = 0; i < pol->nparams; i++)
			p->policy[base + i] = pol->params[i].def;
		base += pol->nparams;
	}
	return 0;
}

static int find(const char *name, struct pref *r)
{
	for (unsigned int i = 0; !param_at(i, r); i++)
		if (!strcmp(r->name, name))
			return 0;
	return -ENOENT;
}

int colloid_param_set(struct colloid_params *p, const char *name, double value)
{
	struct pref d;

	if (!p || !name)
		return -EINVAL;
	if (find(name, &d))
		return -ENOENT;
	if (!isfinite(value) || value < d.min || value > d.max)
		return -EINVAL;
	*(double *)((char *)p + d.off) = value;
	return 0;
}

int colloid_param_get(const struct colloid_params *p, const char *name, double *value)
{
	struct pref d;

	if (!p || !name || !value)
		return -EINVAL;
	if (find(name, &d))
		return -ENOENT;
	*value = *(const double *)((const char *)p + d.off);
	return 0;
}

const char *colloid_param_name(unsigned int i, const char **desc)
{
	struct pref d;

	if (param_at(i, &d))
		return NULL;
	if (desc)
		*desc = d.desc;
	return d.name;
}

/* Check a whole struct (used by colloid_new()): ranges, then each policy's own rules. */
int colloid_params_check(const struct colloid_params *p)
{
	const struct colloid_policy *pol;
	struct pref d;

	for (unsigned int i = 0; !param_at(i, &d); i++) {
		double v = *(const double *)((const char *)p + d.off);

		if (!isfinite(v) || v < d.min || v > d.max)
			return -EINVAL;
	}
	for (unsigned int k = 0; (pol = colloid_policy_at(k)); k++)
		if (pol->params_check && pol->params_check(p->policy + colloid_policy_base(pol)))
			return -EINVAL;
	return 0;
}
