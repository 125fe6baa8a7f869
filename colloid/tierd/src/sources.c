// SPDX-License-Identifier: MIT
/*
 * sources.c - tierd's observation and latency sources as operations tables
 * (struct tierd_obs_ops, struct tierd_lat_ops in tierd.h), in the style of
 * DAMON's struct damon_operations: the policy loop (main.c) calls a source
 * through its table and never asks which source it is.  Each table adapts
 * one source's own functions (obs_perf.c, obs_damon.c, latency.c).
 */
#include <errno.h>

#include "tierd.h"

static int perf_poll(void *src, obs_sink sink, void *priv, uint64_t *n)
{
	/* a failed read loses that quantum's samples only: the loop goes on */
	obs_perf_poll(src, sink, priv, n);
	return 0;
}

static void perf_upkeep(void *src)
{
	obs_perf_rescan(src);	/* threads started since the last rescan */
}

static void perf_close(void *src)
{
	obs_perf_close(src);
}

const struct tierd_obs_ops tierd_obs_perf = {
	.label = "perf",
	.poll = perf_poll,
	.upkeep = perf_upkeep,
	.close = perf_close,
};

static int damon_poll(void *src, obs_sink sink, void *priv, uint64_t *n)
{
	return obs_damon_poll(src, sink, priv, n);
}

static void damon_close(void *src)
{
	obs_damon_close(src);
}

const struct tierd_obs_ops tierd_obs_damon = {
	.label = "DAMON",
	.poll = damon_poll,
	.close = damon_close,
};

static int cha_read(void *src, struct lat_sample s[2])
{
	return lat_cha_read(src, s);
}

static void cha_close(void *src)
{
	lat_cha_close(src);
}

const struct tierd_lat_ops tierd_lat_cha = {
	.label = "cha",
	.counts_traffic = 1,
	.read = cha_read,
	.close = cha_close,
};

static int amdl3_read(void *src, struct lat_sample s[2])
{
	return lat_amdl3_read(src, s);
}

static void amdl3_close(void *src)
{
	lat_amdl3_close(src);
}

/* sampled requests are not the traffic: the loop estimates it from the access samples */
const struct tierd_lat_ops tierd_lat_amdl3 = {
	.label = "amd-l3",
	.counts_traffic = 0,
	.read = amdl3_read,
	.close = amdl3_close,
};

static int probe_read(void *src, struct lat_sample s[2])
{
	return lat_probe_read(src, s);
}

static void probe_close(void *src)
{
	lat_probe_close(src);
}

const struct tierd_lat_ops tierd_lat_probe = {
	.label = "probe",
	.counts_traffic = 0,
	.read = probe_read,
	.close = probe_close,
};
