// SPDX-License-Identifier: MIT
/* Default sizes and preemption counts (clocks, cache sizes and the
 * random generator come from libtbutil). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "memchar.h"

volatile sig_atomic_t mc_stop_signal;

long mc_preemptions(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return 0;
	return ru.ru_nivcsw;
}

size_t mc_round_up(size_t v, size_t to)
{
	return (v + to - 1) / to * to;
}

size_t mc_default_chain_bytes(uint64_t llc)
{
	size_t b = 256 * MC_MIB;

	if (8 * llc > b)
		b = (size_t)(8 * llc);
	return mc_round_up(b, MC_HUGE);
}

size_t mc_default_stream_bytes(uint64_t llc, int threads)
{
	size_t b = 64 * MC_MIB;

	if (threads > 0 && 4 * llc / (uint64_t)threads > b)
		b = (size_t)(4 * llc / (uint64_t)threads);
	return mc_round_up(b, MC_HUGE);
}
