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
	P(hemem_read_hot, 1, 65535, "HeMem: hot when sampled reads >= this (samples)"),
	P(hemem_write_hot, 1, 65535, "HeMem: hot when sampled writes >= this (samples)"),
	P(hemem_cool_threshold, 2, 65535, "HeMem: halve all counts when a count reaches this (samples)"),
	P(hemem_sample_period, 1, 1e12, "HeMem: PEBS sampling period, for the mechanism (events)"),
	P(hemem_quantum_ms, 1e-3, 1e7, "HeMem: policy loop period, for the mechanism (ms)"),
	P(tpp_scan_size_bytes, 4096, 1e18, "TPP: bytes unmapped per scan window, for the mechanism (bytes)"),
	P(tpp_scan_period_ms, 1e-3, 1e9, "TPP: time to scan the whole task (scan_period_min), for the mechanism (ms)"),
	P(tpp_hot_threshold_ms, 0, 1e9, "TPP: promote if hint fault within this of the scan (ms)"),
	P(tpp_promote_rate_limit_MBps, 0, 1e12, "TPP: promotion rate limit (MB/s)"),
	P(tpp_threshold_adjust_ms, 0, 1e12, "TPP: hot-threshold adjustment period, 0 = off (ms)"),
	P(tpp_wmark_promo, 0, 0.5, "TPP: free fraction that must remain after a promotion (fraction)"),
	P(tpp_wmark_demote, 0, 0.5, "TPP: kswapd demotes until this free fraction (fraction)"),
	P(tpp_quantum_ms, 1e-3, 1e7, "TPP: tick period, for the mechanism (ms)"),
	P(memtis_cooling_samples, 1, 1e15, "MEMTIS: halve all counts every this many samples (samples)"),
	P(memtis_adapt_samples, 1, 1e15, "MEMTIS: recompute hot threshold every this many samples (samples)"),
	P(memtis_load_period, 1, 1e12, "MEMTIS: PEBS load period, for the mechanism (events)"),
	P(memtis_store_period, 1, 1e12, "MEMTIS: PEBS store period, for the mechanism (events)"),
	P(memtis_quantum_ms, 1e-3, 1e7, "MEMTIS: migration daemon period, for the mechanism (ms)"),
	P(memtis_free_target, 0, 0.5, "MEMTIS: fast-tier free fraction kept by demoting cold pages (fraction)"),
};

#define NPARAMS (sizeof(params) / sizeof(params[0]))

int colloid_params_default(struct colloid_params *p, const char *policy)
{
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

	p->hemem_read_hot = 8;
	p->hemem_write_hot = 4;
	p->hemem_cool_threshold = 18;
	p->hemem_sample_period = 5003;
	p->hemem_quantum_ms = 10;

	p->tpp_scan_size_bytes = 256.0 * 1024 * 1024;
	p->tpp_scan_period_ms = 1000;
	p->tpp_hot_threshold_ms = 1000;
	p->tpp_promote_rate_limit_MBps = 65536;
	p->tpp_threshold_adjust_ms = 60000;
	p->tpp_wmark_promo = 0.01;
	p->tpp_wmark_demote = 0.02;
	p->tpp_quantum_ms = 10;

	p->memtis_cooling_samples = 2000000;
	p->memtis_adapt_samples = 100000;
	p->memtis_load_period = 199;
	p->memtis_store_period = 100007;
	p->memtis_quantum_ms = 500;
	p->memtis_free_target = 0.0;
	return 0;
}

static const struct param_desc *find(const char *name)
{
	for (size_t i = 0; i < NPARAMS; i++)
		if (!strcmp(params[i].name, name))
			return &params[i];
	return NULL;
}

int colloid_param_set(struct colloid_params *p, const char *name, double value)
{
	const struct param_desc *d;

	if (!p || !name)
		return -EINVAL;
	d = find(name);
	if (!d)
		return -ENOENT;
	if (!isfinite(value) || value < d->min || value > d->max)
		return -EINVAL;
	*(double *)((char *)p + d->off) = value;
	return 0;
}

int colloid_param_get(const struct colloid_params *p, const char *name, double *value)
{
	const struct param_desc *d;

	if (!p || !name || !value)
		return -EINVAL;
	d = find(name);
	if (!d)
		return -ENOENT;
	*value = *(const double *)((const char *)p + d->off);
	return 0;
}

const char *colloid_param_name(unsigned int i, const char **desc)
{
	if (i >= NPARAMS)
		return NULL;
	if (desc)
		*desc = params[i].desc;
	return params[i].name;
}

/* Check a whole struct (used by colloid_new()). */
int colloid_params_check(const struct colloid_params *p)
{
	for (size_t i = 0; i < NPARAMS; i++) {
		double v = *(const double *)((const char *)p + params[i].off);

		if (!isfinite(v) || v < params[i].min || v > params[i].max)
			return -EINVAL;
	}
	if (p->tpp_wmark_demote < p->tpp_wmark_promo)
		return -EINVAL;
	return 0;
}
