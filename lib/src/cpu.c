// SPDX-License-Identifier: MIT
/* cpu.c - the CPUs this process may use, pinning, cache sizes. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tbutil.h"

static int affinity_mask(cpu_set_t **set, size_t *setsize, int *ncpus)
{
	long conf = sysconf(_SC_NPROCESSORS_CONF);
	int n = conf > CPU_SETSIZE ? (int)conf : CPU_SETSIZE;
	cpu_set_t *s;

	for (;;) {
		s = CPU_ALLOC(n);
		if (!s)
			return -ENOMEM;
		*setsize = CPU_ALLOC_SIZE(n);
		if (!sched_getaffinity(0, *setsize, s))
			break;
		CPU_FREE(s);
		if (errno != EINVAL || n > (1 << 20))
			return -errno;
		n *= 2;
	}
	*set = s;
	*ncpus = n;
	return 0;
}

int allowed_cpus(int **cpus, int *n)
{
	cpu_set_t *set;
	size_t setsize;
	int ncpus, i, cnt = 0, ret;
	int *v;

	ret = affinity_mask(&set, &setsize, &ncpus);
	if (ret)
		return ret;
	v = malloc(sizeof(*v) * (CPU_COUNT_S(setsize, set) + 1));
	if (!v) {
		CPU_FREE(set);
		return -ENOMEM;
	}
	for (i = 0; i < ncpus; i++)
		if (CPU_ISSET_S(i, setsize, set))
			v[cnt++] = i;
	CPU_FREE(set);
	*cpus = v;
	*n = cnt;
	return 0;
}

int cpu_check(int cpu)
{
	cpu_set_t *set;
	size_t setsize;
	int ncpus, ret;

	ret = affinity_mask(&set, &setsize, &ncpus);
	if (ret)
		return ret;
	ret = (cpu >= 0 && cpu < ncpus && CPU_ISSET_S(cpu, setsize, set)) ?
		0 : -ENODEV;
	CPU_FREE(set);
	return ret;
}

int pin_self(int cpu)
{
	size_t setsize = CPU_ALLOC_SIZE(cpu + 1);
	cpu_set_t *set = CPU_ALLOC(cpu + 1);
	int ret;

	if (!set)
		return -ENOMEM;
	CPU_ZERO_S(setsize, set);
	CPU_SET_S(cpu, setsize, set);
	ret = pthread_setaffinity_np(pthread_self(), setsize, set);
	CPU_FREE(set);
	return -ret;
}

uint64_t cpu_cache_bytes(int lo, int hi)
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
		int level;

		if (strncmp(de->d_name, "index", 5))
			continue;
		snprintf(path, sizeof(path), "%s/%s/level", dir, de->d_name);
		if (read_text_file(path, buf, sizeof(buf)))
			continue;
		level = atoi(buf);
		if (level < lo || level > hi)
			continue;
		snprintf(path, sizeof(path), "%s/%s/size", dir, de->d_name);
		if (read_text_file(path, buf, sizeof(buf)))
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
