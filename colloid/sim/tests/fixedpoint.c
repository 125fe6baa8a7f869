// SPDX-License-Identifier: MIT
/* fixedpoint.c - the traffic fixed point: hand-computed cases, the
 * saturation wall, monotonicity, determinism. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tiersim.h"

#define CHECK_ON_FAIL goto err
#include "check.h"

static int close_to(double a, double b, double rel)
{
	return fabs(a - b) <= rel * fmax(fabs(a), fabs(b));
}

int main(void)
{
	struct curve_set flat100, flat200, d, a, wall;
	struct traffic_in in;
	struct traffic_out o, o2;
	char err[256];
	double prev_xa, prev_ld;
	int i, ret = 1;

	memset(&flat100, 0, sizeof(flat100));
	memset(&flat200, 0, sizeof(flat200));
	memset(&d, 0, sizeof(d));
	memset(&a, 0, sizeof(a));
	memset(&wall, 0, sizeof(wall));
	CHECKF(!curve_load(&flat100, "param:L0=100,a=0,k=1,bsat=1e9", err, sizeof(err)), "%s", err);
	CHECKF(!curve_load(&flat200, "param:L0=200,a=0,k=1,bsat=1e9", err, sizeof(err)), "%s", err);

	/* 1. constant latencies: X_a = N_a/(Z_a + p L_D + (1-p) L_A) by hand */
	memset(&in, 0, sizeof(in));
	in.p = 0.5;
	in.na = 10;
	in.za = 50;
	in.sa = 128;
	in.nb = 5;
	in.zb = 0;
	in.sb = 128;
	in.rr_d = in.rr_a = 0.5;
	CHECKF(!traffic_solve(&flat100, &flat200, &in, &o), "solve failed");
	CHECKF(close_to(o.xa, 10.0 / (50 + 0.5 * 100 + 0.5 * 200), 1e-9), "xa %.12g", o.xa);
	CHECKF(close_to(o.xb, 5.0 / 100, 1e-9), "xb %.12g", o.xb);
	CHECKF(close_to(o.bd, 128 * (0.5 * o.xa + o.xb), 1e-9), "bd %.12g", o.bd);
	CHECKF(close_to(o.ba, 128 * 0.5 * o.xa, 1e-9), "ba %.12g", o.ba);

	/* 2. the wall: flat 100 ns up to 10 GB/s, app alone (p = 1) asks for
	 * 100*128/100 = 128 B/ns -> bandwidth pinned at 10 B/ns and, by Little's
	 * law, L = N s / B = 100*128/10 = 1280 ns */
	{
		char tmpl[] = "/tmp/tiersim_wallXXXXXX";
		int fd = mkstemp(tmpl);
		FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

		CHECKF(f, "cannot write temp file");
		fprintf(f, "read_ratio,bandwidth_mbps,latency_ns\n0.5,0,100\n0.5,10000,100\n");
		fclose(f);
		ret = curve_load(&wall, tmpl, err, sizeof(err));
		remove(tmpl);
		CHECKF(!ret, "%s", err);
		ret = 1;
	}
	memset(&in, 0, sizeof(in));
	in.p = 1;
	in.na = 100;
	in.sa = 128;
	in.sb = 128;
	in.rr_d = in.rr_a = 0.5;
	CHECKF(!traffic_solve(&wall, &flat200, &in, &o), "solve failed");
	CHECKF(close_to(o.xa, 10.0 / 128, 1e-9), "wall xa %.12g", o.xa);
	CHECKF(close_to(o.ld, 1280, 1e-6), "wall ld %.12g", o.ld);
	/* antagonist on the wall too: both share 10 B/ns with one latency */
	in.nb = 100;
	CHECKF(!traffic_solve(&wall, &flat200, &in, &o), "solve failed");
	CHECKF(close_to(o.bd, 10, 1e-6), "shared wall bd %.12g", o.bd);
	CHECKF(close_to(o.ld, 200 * 128 / 10.0, 1e-6), "shared wall ld %.12g", o.ld);
	CHECKF(close_to(o.xa, o.xb, 1e-6), "equal shares %.12g %.12g", o.xa, o.xb);

	/* 3. monotone: more antagonist -> lower app throughput, higher L_D */
	CHECKF(!curve_load(&d, "param:L0=71,a=20,k=3,bsat=120000", err, sizeof(err)), "%s", err);
	CHECKF(!curve_load(&a, "param:L0=135,a=20,k=3,bsat=55000", err, sizeof(err)), "%s", err);
	memset(&in, 0, sizeof(in));
	in.p = 0.9;
	in.na = 60;
	in.za = 10;
	in.sa = 128;
	in.zb = 20;
	in.sb = 128;
	in.rr_d = in.rr_a = 0.5;
	prev_xa = INFINITY;
	prev_ld = 0;
	for (i = 0; i <= 30; i++) {
		in.nb = 10.0 * i;
		CHECKF(!traffic_solve(&d, &a, &in, &o), "solve failed at nb=%g", in.nb);
		CHECKF(o.xa < prev_xa || i == 0, "xa not decreasing at nb=%g", in.nb);
		CHECKF(o.ld > prev_ld, "ld not increasing at nb=%g", in.nb);
		/* the answer is a fixed point */
		CHECKF(close_to(o.xa, in.na / (in.za + in.p * o.ld + (1 - in.p) * o.la), 1e-7),
		      "not a fixed point at nb=%g", in.nb);
		CHECKF(close_to(o.ld, curve_latency(&d, 0.5, o.bd), 1e-7), "ld off the curve");
		CHECKF(o.bd < 120 && o.ba < 55, "bandwidth above saturation");
		prev_xa = o.xa;
		prev_ld = o.ld;
	}
	/* moving traffic to the alternate tier lowers L_D and raises L_A */
	in.nb = 200;
	prev_ld = INFINITY;
	for (i = 10; i >= 0; i--) {
		double la_prev = o.la;

		in.p = i / 10.0;
		CHECKF(!traffic_solve(&d, &a, &in, &o), "solve failed at p=%g", in.p);
		CHECKF(o.ld < prev_ld, "ld not decreasing as p falls (p=%g)", in.p);
		CHECKF(i == 10 || o.la >= la_prev, "la not increasing as p falls (p=%g)", in.p);
		prev_ld = o.ld;
	}
	/* determinism: same input, bit-identical output */
	CHECKF(!traffic_solve(&d, &a, &in, &o), "solve");
	CHECKF(!traffic_solve(&d, &a, &in, &o2), "solve");
	CHECKF(!memcmp(&o, &o2, sizeof(o)), "two solves differ");
	ret = 0;
err:
	curve_free(&flat100);
	curve_free(&flat200);
	curve_free(&d);
	curve_free(&a);
	curve_free(&wall);
	return ret;
}
