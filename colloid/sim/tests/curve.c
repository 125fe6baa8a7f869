// SPDX-License-Identifier: MIT
/* curve.c - curve loading and interpolation: CSV, Mess-style
 * directory, parametric; monotone normalisation; malformed input. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tiersim.h"

#define CHECK_ON_FAIL goto err
#include "check.h"

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1.0, fmax(fabs(a), fabs(b)));
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

int main(void)
{
	char dir[] = "/tmp/tiersim_curveXXXXXX", path[256], err[256];
	struct curve_set cs;
	int ret = 1;

	memset(&cs, 0, sizeof(cs));
	CHECKF(mkdtemp(dir), "mkdtemp");

	/* CSV, two read ratios, rows out of order, a noisy non-monotone point */
	snprintf(path, sizeof(path), "%s/c.csv", dir);
	CHECKF(!write_file(path, "read_ratio,bandwidth_mbps,latency_ns\n"
				"1.0,0,80\n1.0,50000,100\n1.0,100000,300\n"
				"0.5,80000,400\n0.5,0,90\n0.5,40000,110\n0.5,60000,105\n"),
	      "write");
	CHECKF(!curve_load(&cs, path, err, sizeof(err)), "%s", err);
	CHECKF(cs.n == 2, "ratios %d", cs.n);
	CHECKF(near(cs.c[0].read_ratio, 0.5) && near(cs.c[1].read_ratio, 1.0), "order");
	/* read ratio 1.0: linear between points (B in bytes/ns = MB/s / 1000) */
	CHECKF(near(curve_latency(&cs, 1.0, 25.0), 90), "lin %g", curve_latency(&cs, 1.0, 25.0));
	CHECKF(near(curve_latency(&cs, 1.0, 75.0), 200), "lin2");
	CHECKF(near(curve_bmax(&cs, 1.0), 100), "bmax");
	CHECKF(near(curve_lmax(&cs, 1.0), 300), "lmax");
	CHECKF(near(curve_unloaded(&cs, 1.0), 80), "unloaded");
	/* read ratio 0.5: ordered by latency, (40000,110) comes after (60000,105)
	 * and is dropped (monotone normalisation) */
	CHECKF(cs.c[0].n == 3, "monotone normalisation kept %zu points", cs.c[0].n);
	CHECKF(near(curve_bmax(&cs, 0.5), 80), "bmax 0.5");
	/* interpolation in read ratio at equal utilisation: rr 0.75, u = 0.5 */
	CHECKF(near(curve_bmax(&cs, 0.75), 90), "bmax 0.75");
	/* rr 0.5 at 40 B/ns: 90 + 15 * 40/60 = 100; rr 1.0 at 50 B/ns: 100 */
	CHECKF(near(curve_latency(&cs, 0.75, 45.0), 0.5 * 100 + 0.5 * 100), "rr interp %g",
	      curve_latency(&cs, 0.75, 45.0));
	/* outside the ratio range: the nearest curve */
	CHECKF(near(curve_latency(&cs, 0.1, 20.0), 95), "clamp low %g", curve_latency(&cs, 0.1, 20.0));
	/* monotone in bandwidth everywhere */
	{
		double b, prev = 0;

		for (b = 0; b < 89.9; b += 0.5) {
			double l = curve_latency(&cs, 0.75, b);

			CHECKF(l >= prev, "not monotone at %g", b);
			prev = l;
		}
	}
	curve_free(&cs);

	/* Mess-style directory: bwlat_<readpct>.txt */
	snprintf(path, sizeof(path), "%s/mess", dir);
	CHECKF(!mkdir(path, 0755), "mkdir");
	snprintf(path, sizeof(path), "%s/mess/bwlat_100.txt", dir);
	/* includes the backward bend of an over-saturated Mess curve */
	CHECKF(!write_file(path, "1000 80\n20000 85\n40000 120\n38000 200\n"), "write");
	snprintf(path, sizeof(path), "%s/mess/bwlat_50.txt", dir);
	CHECKF(!write_file(path, "1000 90\n30000 150\n"), "write");
	snprintf(path, sizeof(path), "%s/mess/README", dir);
	CHECKF(!write_file(path, "not a curve\n"), "write");
	snprintf(path, sizeof(path), "%s/mess", dir);
	CHECKF(!curve_load(&cs, path, err, sizeof(err)), "%s", err);
	CHECKF(cs.n == 2, "mess ratios %d", cs.n);
	CHECKF(near(cs.c[1].read_ratio, 1.0) && cs.c[1].n == 3, "bend dropped: %zu", cs.c[1].n);
	CHECKF(near(curve_bmax(&cs, 1.0), 40), "mess bmax");
	CHECKF(near(curve_latency(&cs, 1.0, 30.0), 102.5), "mess interp");
	curve_free(&cs);

	/* parametric */
	CHECKF(!curve_load(&cs, "param:L0=71,a=20,k=3,bsat=120000", err, sizeof(err)), "%s", err);
	CHECKF(near(curve_latency(&cs, 0.5, 60.0), 71 + 20 * 0.125 / 0.5), "param");
	CHECKF(isinf(curve_lmax(&cs, 0.5)), "param lmax");
	curve_free(&cs);

	/* malformed inputs */
	CHECKF(curve_load(&cs, "param:L0=71,a=20", err, sizeof(err)) < 0, "param missing");
	CHECKF(curve_load(&cs, "param:L0=71,a=20,k=3,bsat=x", err, sizeof(err)) < 0, "param bad");
	CHECKF(curve_load(&cs, "/nonexistent/curve.csv", err, sizeof(err)) < 0, "missing file");
	snprintf(path, sizeof(path), "%s/bad.csv", dir);
	CHECKF(!write_file(path, "bw,lat\n1,2\n"), "write");
	CHECKF(curve_load(&cs, path, err, sizeof(err)) < 0, "bad header");
	CHECKF(!write_file(path, "read_ratio,bandwidth_mbps,latency_ns\n1.0,abc,80\n"), "write");
	CHECKF(curve_load(&cs, path, err, sizeof(err)) < 0, "bad row");
	CHECKF(strstr(err, "malformed") != NULL, "message: %s", err);
	CHECKF(!write_file(path, "read_ratio,bandwidth_mbps,latency_ns\n1.0,0,80\n"), "write");
	CHECKF(curve_load(&cs, path, err, sizeof(err)) < 0, "one point");
	CHECKF(!write_file(path, "read_ratio,bandwidth_mbps,latency_ns\n1.5,0,80\n1.5,9,90\n"), "w");
	CHECKF(curve_load(&cs, path, err, sizeof(err)) < 0, "ratio > 1");
	ret = 0;
err:
	curve_free(&cs);
	if (dir[0]) {
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", dir);
	}
	return ret;
}
