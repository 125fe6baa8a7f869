// SPDX-License-Identifier: MIT
/* time.c - clocks, and waiting for SIGINT/SIGTERM until a time. */
#include <pthread.h>
#include <signal.h>
#include <time.h>

#include "tbutil.h"

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

double process_cpu_s(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int sig_block_stop(sigset_t *sigs)
{
	sigemptyset(sigs);
	sigaddset(sigs, SIGINT);
	sigaddset(sigs, SIGTERM);
	return -pthread_sigmask(SIG_BLOCK, sigs, NULL);
}

int sig_wait_until(const sigset_t *sigs, double t)
{
	double d = t - now_s();
	struct timespec ts;
	int sig;

	if (d < 0)
		d = 0;
	ts.tv_sec = (time_t)d;
	ts.tv_nsec = (long)((d - ts.tv_sec) * 1e9);
	sig = sigtimedwait(sigs, NULL, &ts);
	return sig > 0 ? sig : 0;
}
