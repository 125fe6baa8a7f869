// SPDX-License-Identifier: MIT
/* Time, cache size discovery, PRNG and spin-wait helpers. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "memchar.h"

volatile sig_atomic_t mc_stop_signal;

uint64_t mc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

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

static int read_small_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return 0;
}

/* Largest level-3 cache of cpu0, from sysfs; 0 if there is none. */
uint64_t mc_llc_bytes(void)
{
	const char *dir = "/sys/devices/system/cpu/cpu0/cache";
	uint64_t best = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char path[512], buf[64], *end;
		unsigned long long v;

		if (strncmp(de->d_name, "index", 5))
			continue;
		snprintf(path, sizeof(path), "%s/%s/level", dir, de->d_name);
		if (read_small_file(path, buf, sizeof(buf)) || atoi(buf) != 3)
			continue;
		snprintf(path, sizeof(path), "%s/%s/size", dir, de->d_name);
		if (read_small_file(path, buf, sizeof(buf)))
			continue;
		v = strtoull(buf, &end, 10);
		if (*end == 'K')
			v <<= 10;
		else if (*end == 'M')
			v <<= 20;
		else if (*end == 'G')
			v <<= 30;
		if (v > best)
			best = v;
	}
	closedir(d);
	return best;
}

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void mc_rng_seed(struct mc_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t mc_rng_next(struct mc_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

/* Unbiased: reject the top partial bucket. */
uint64_t mc_rng_below(struct mc_rng *r, uint64_t bound)
{
	uint64_t limit, x;

	if (bound <= 1)
		return 0;
	limit = UINT64_MAX - UINT64_MAX % bound;
	do {
		x = mc_rng_next(r);
	} while (x >= limit);
	return x % bound;
}
