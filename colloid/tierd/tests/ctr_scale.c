// SPDX-License-Identifier: MIT
/*
 * ctr_scaled_delta(): a latency counter read with
 * PERF_FORMAT_TOTAL_TIME_ENABLED/RUNNING is scaled by enabled / running when
 * the kernel multiplexed it (as perf stat, tools/perf/util/counts.c), and
 * the running share is reported; a counter that never ran gives no value.
 */
#include <math.h>
#include <stdio.h>

#include "tierd.h"

static int failures;

#define CHECK(cond, ...) do { if (!(cond)) { failures++; \
	fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

int main(void)
{
	double f, v;

	v = ctr_scaled_delta(1000, 1000000, 1000000, &f);
	CHECK(v == 1000 && f == 1, "not multiplexed: %g %g", v, f);
	v = ctr_scaled_delta(1000, 1000000, 250000, &f);
	CHECK(fabs(v - 4000) < 1e-9 && fabs(f - 0.25) < 1e-12, "a quarter of the time: %g %g", v, f);
	v = ctr_scaled_delta(1000, 1000000, 0, &f);
	CHECK(isnan(v) && f == 0, "never on the PMU: %g %g", v, f);
	v = ctr_scaled_delta(0, 0, 0, &f);
	CHECK(v == 0 && isnan(f), "not enabled: %g %g", v, f);
	v = ctr_scaled_delta(7, 100, 101, &f);	/* rounding: running a bit past enabled */
	CHECK(v == 7 && f == 1, "running > enabled: %g %g", v, f);
	if (failures)
		return 1;
	printf("ok\n");
	return 0;
}
