// SPDX-License-Identifier: MIT
/*
 * freeze.c - after --freeze-at nothing moves, so each tier carries only its
 * own traffic: with GUPS read-modify-write at 0x the alternate tier serves
 * the application's lines read and written back, read ratio exactly 0.5,
 * and its latency is the curve's at 0.5.
 *
 * The alternate tier is a Mess-style directory with a healthy 50 % and
 * 100 % curve and a failed 60 % curve (3..64 MB/s at one latency, as a
 * measurement that broke down).  HeMem+Colloid at 0x swaps pages every
 * quantum until the freeze.  The freeze used to leave the last plan's
 * promotions (bytes moved into the default tier) counted with no bytes
 * moved, so every later quantum saw phantom migration reads on the
 * alternate tier (and negative writes): read ratio 0.54 instead of 0.5, a
 * curve interpolated toward the failed one, and here 3383 ns instead of
 * 135 ns and 166 instead of 644 Mops/s after the freeze - in the frozen
 * run only.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "colloid.h"
#include "sim.h"
#include "tiersim.h"

#define CHECK_ON_FAIL goto err
#include "check.h"

#define DURATION 20
#define FREEZE 10
#define GIB 1073741824.0

/* the alternate tier of hosts/curves/paper-alternate-135.csv, 25 points */
static int write_healthy(const char *path, double bsat)
{
	FILE *f = fopen(path, "w");
	int i;

	if (!f)
		return -1;
	for (i = 0; i < 25; i++) {
		double rho = i < 19 ? i * 0.05 : 0.90 + (i - 18) * 0.015;

		fprintf(f, "%.1f %.2f\n", rho * bsat, 135.0 + 20.0 * pow(rho, 3) / (1.0 - rho));
	}
	return fclose(f);
}

static int write_failed(const char *path)
{
	static const double mbps[] = { 3, 5, 8, 12, 16, 24, 32, 40, 48, 56, 64 };
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f)
		return -1;
	for (i = 0; i < sizeof(mbps) / sizeof(mbps[0]); i++)
		fprintf(f, "%g 5000\n", mbps[i]);
	return fclose(f);
}

/* value of @metric at second @t in a long-form time series; NAN if absent */
static double ts_value(const char *path, int t, const char *metric)
{
	char line[256], m[64];
	double v = NAN;
	FILE *f = fopen(path, "r");
	int tt;

	if (!f)
		return NAN;
	while (fgets(line, sizeof(line), f)) {
		double x;

		if (sscanf(line, "%d,%63[^,],%lf", &tt, m, &x) == 3 && tt == t && !strcmp(m, metric)) {
			v = x;
			break;
		}
	}
	fclose(f);
	return v;
}

int main(void)
{
	const char *tmp = getenv("TEST_TMPDIR");
	char dir[512], alt[600], path[700], ts[600], err[256];
	static struct sim_cfg c;
	struct curve_set cs;
	double x_before;
	int t, ret = T_FAIL;

	memset(&cs, 0, sizeof(cs));
	snprintf(dir, sizeof(dir), "%s/freeze.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	CHECKF(mkdtemp(dir), "%s", strerror(errno));
	snprintf(alt, sizeof(alt), "%s/alt", dir);
	CHECK(mkdir(alt, 0755) == 0);
	snprintf(path, sizeof(path), "%s/bwlat_100.txt", alt);
	CHECK(write_healthy(path, 60000) == 0);
	snprintf(path, sizeof(path), "%s/bwlat_50.txt", alt);
	CHECK(write_healthy(path, 100000) == 0);
	snprintf(path, sizeof(path), "%s/bwlat_60.txt", alt);
	CHECK(write_failed(path) == 0);
	snprintf(ts, sizeof(ts), "%s/ts.csv", dir);
	CHECKF(!curve_load(&cs, alt, err, sizeof(err)), "%s", err);

	/* the workflow's hemem-c1-i0 point (families/tiering/model.py), shorter;
	 * the model constants are tiersim's calibrated defaults (main.c) */
	c.policy = "hemem";
	c.colloid = 1;
	c.dp_mode = COLLOID_DP_BINARY;
	snprintf(c.tier_spec[0], sizeof(c.tier_spec[0]), "param:L0=71,a=20,k=3,bsat=140000");
	snprintf(c.tier_spec[1], sizeof(c.tier_spec[1]), "%s", alt);
	c.capacity[0] = 24 * GIB;
	c.capacity[1] = 72 * GIB;
	c.workload = WL_GUPS;
	c.working_set = 72 * GIB;
	c.hot_set = 20 * GIB;
	c.hot_share = 0.928;
	c.object_bytes = 64;
	c.rmw = 1;
	c.app_cores = 15;
	c.antag_per_unit = 5;
	c.intensity = 0;
	c.app_mlp = 4;
	c.app_stream_mlp = 14;
	c.app_think_ns = 10;
	c.antag_mlp = 17;
	c.antag_think_ns = 20;
	c.region_size = 2u << 20;
	c.duration_s = DURATION;
	c.average_last_s = DURATION - FREEZE;
	c.freeze_at_s = FREEZE;
	c.seed = 1;
	c.cha_noise = 0.05;
	c.cha_share = -1;
	c.pebs_max_rate = 100000;
	c.ref_rate = 100000;
	c.timeseries = ts;
	c.summary = "/dev/null";
	c.timing = 0;
	CHECK(sim_run(&c, "freeze") == 0);

	/* before the freeze the policy migrates (and the curve is fine) */
	CHECKF(ts_value(ts, FREEZE, "migration_rate") > 0, "no migration before the freeze");
	x_before = ts_value(ts, FREEZE, "throughput");
	printf("before the freeze: %g Mops/s, %g MB/s migrated; after: %g Mops/s, alternate %g ns at %g MB/s\n",
	       x_before, ts_value(ts, FREEZE, "migration_rate"), ts_value(ts, DURATION, "throughput"),
	       ts_value(ts, DURATION, "latency_alternate"), ts_value(ts, DURATION, "bandwidth_alternate"));
	CHECKF(x_before > 500, "throughput %g Mops/s before the freeze", x_before);
	for (t = FREEZE + 2; t <= DURATION; t++) {
		double x = ts_value(ts, t, "throughput");
		double la = ts_value(ts, t, "latency_alternate");
		double ba = ts_value(ts, t, "bandwidth_alternate");
		double want = curve_latency(&cs, 0.5, ba * 1e-3);

		CHECKF(ts_value(ts, t, "migration_rate") == 0, "t=%d s: migration after the freeze", t);
		/* the series has 6 significant digits */
		CHECKF(fabs(la - want) <= 1e-4 * want,
		       "t=%d s: alternate latency %g ns at %g MB/s, the curve at read ratio 0.5 gives %g ns",
		       t, la, ba, want);
		CHECKF(x >= 0.99 * x_before, "t=%d s: throughput %g Mops/s, %g before the freeze", t, x,
		       x_before);
	}
	ret = T_PASS;
err:
	curve_free(&cs);
	snprintf(path, sizeof(path), "%s/bwlat_100.txt", alt);
	unlink(path);
	snprintf(path, sizeof(path), "%s/bwlat_50.txt", alt);
	unlink(path);
	snprintf(path, sizeof(path), "%s/bwlat_60.txt", alt);
	unlink(path);
	unlink(ts);
	rmdir(alt);
	rmdir(dir);
	return ret;
}
