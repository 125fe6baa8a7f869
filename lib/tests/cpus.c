// SPDX-License-Identifier: MIT
/* The allowed CPUs, cpu_check(), pin_self(), cache sizes, mem_limit(). */
#include <errno.h>
#include <stdlib.h>

#include "check.h"
#include "tbutil.h"

int main(void)
{
	int *cpus = NULL, n = 0;

	CHECK(!allowed_cpus(&cpus, &n) && n > 0);
	CHECK(!cpu_check(cpus[0]));
	CHECK(cpu_check(-1) == -ENODEV);
	CHECK(!pin_self(cpus[n - 1]));
	CHECK(mem_limit(NULL, 0) > 0);
	/* the largest cache covers every level's */
	CHECK(cpu_cache_bytes(1, 100) >= cpu_cache_bytes(3, 3));
	CHECK(cpu_cache_bytes(1, 100) >= cpu_cache_bytes(2, 100));
	CHECK(cpu_cache_bytes(5, 4) == 0);
	free(cpus);
	return T_PASS;
err:
	free(cpus);
	return T_FAIL;
}
