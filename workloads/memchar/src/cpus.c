// SPDX-License-Identifier: MIT
/* CPU lists, affinity, pinning and NUMA node facts (libnuma). */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <numa.h>

#include "memchar.h"

#define MC_MAX_CPU	65536

void mc_cpus_free(struct mc_cpus *l)
{
	free(l->cpu);
	l->cpu = NULL;
	l->n = 0;
}

static int cpus_push(struct mc_cpus *l, int cpu, int *cap)
{
	if (l->n == *cap) {
		int ncap = *cap ? *cap * 2 : 16;
		int *p = realloc(l->cpu, (size_t)ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		l->cpu = p;
		*cap = ncap;
	}
	l->cpu[l->n++] = cpu;
	return 0;
}

bool mc_cpus_contains(const struct mc_cpus *l, int cpu)
{
	for (int i = 0; i < l->n; i++)
		if (l->cpu[i] == cpu)
			return true;
	return false;
}

static int parse_num(const char **s, long *v)
{
	char *end;

	if (**s < '0' || **s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtol(*s, &end, 10);
	if (errno || *v < 0 || *v >= MC_MAX_CPU)
		return -EINVAL;
	*s = end;
	return 0;
}

/* "0-3,8" -> {0,1,2,3,8}, in the order given; duplicates are an error. */
int mc_cpus_parse(const char *s, struct mc_cpus *out)
{
	int cap = 0, ret;

	out->cpu = NULL;
	out->n = 0;
	if (!*s)
		return -EINVAL;
	for (;;) {
		long a, b;

		ret = parse_num(&s, &a);
		if (ret)
			goto err;
		b = a;
		if (*s == '-') {
			s++;
			ret = parse_num(&s, &b);
			if (ret || b < a) {
				ret = -EINVAL;
				goto err;
			}
		}
		for (long c = a; c <= b; c++) {
			ret = -EINVAL;
			if (mc_cpus_contains(out, (int)c))
				goto err;
			ret = cpus_push(out, (int)c, &cap);
			if (ret)
				goto err;
		}
		if (!*s)
			return 0;
		if (*s != ',') {
			ret = -EINVAL;
			goto err;
		}
		s++;
	}
err:
	mc_cpus_free(out);
	return ret;
}

/* Runs of consecutive ids become "a-b"; runs are separated by ';'. */
int mc_cpus_format(const int *cpu, int n, char *buf, size_t len)
{
	size_t off = 0;
	int i = 0;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	while (i < n) {
		int j = i;
		int w;

		while (j + 1 < n && cpu[j + 1] == cpu[j] + 1)
			j++;
		if (j == i)
			w = snprintf(buf + off, len - off, "%s%d",
				     off ? ";" : "", cpu[i]);
		else
			w = snprintf(buf + off, len - off, "%s%d-%d",
				     off ? ";" : "", cpu[i], cpu[j]);
		if (w < 0 || (size_t)w >= len - off)
			return -ENOSPC;
		off += (size_t)w;
		i = j + 1;
	}
	return 0;
}

int mc_cpus_allowed(struct mc_cpus *out)
{
	cpu_set_t *set;
	size_t sz;
	int cap = 0, ret = 0, ncpu = CPU_SETSIZE;

	out->cpu = NULL;
	out->n = 0;
	/* Grow the mask until the kernel accepts it (large machines). */
	for (;;) {
		set = CPU_ALLOC(ncpu);
		if (!set)
			return -ENOMEM;
		sz = CPU_ALLOC_SIZE(ncpu);
		CPU_ZERO_S(sz, set);
		if (!sched_getaffinity(0, sz, set))
			break;
		ret = -errno;
		CPU_FREE(set);
		if (ret != -EINVAL || ncpu >= MC_MAX_CPU)
			return ret;
		ncpu *= 2;
	}
	for (int c = 0; c < ncpu; c++) {
		if (!CPU_ISSET_S(c, sz, set))
			continue;
		ret = cpus_push(out, c, &cap);
		if (ret) {
			mc_cpus_free(out);
			break;
		}
	}
	CPU_FREE(set);
	if (!ret && !out->n)
		ret = -ENOENT;
	return ret;
}

bool mc_numa_ok(void)
{
	static int ok = -1;

	if (ok < 0)
		ok = numa_available() >= 0;
	return ok;
}

bool mc_node_exists(int node)
{
	char path[128];
	struct stat st;

	if (node < 0)
		return false;
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", node);
	return stat(path, &st) == 0;
}

long long mc_node_mem_bytes(int node)
{
	if (!mc_numa_ok())
		return -ENOSYS;
	if (!mc_node_exists(node) || node > numa_max_node())
		return -ENOENT;
	return numa_node_size64(node, NULL);
}

int mc_node_of_cpu(int cpu)
{
	int node;

	if (!mc_numa_ok())
		return -ENOSYS;
	node = numa_node_of_cpu(cpu);
	return node < 0 ? -EINVAL : node;
}

/* The allowed CPUs that belong to node, in ascending order. */
int mc_cpus_of_node(int node, const struct mc_cpus *allowed,
		    struct mc_cpus *out)
{
	struct bitmask *bm;
	int cap = 0, ret = 0;

	out->cpu = NULL;
	out->n = 0;
	if (!mc_numa_ok())
		return -ENOSYS;
	if (!mc_node_exists(node) || node > numa_max_node())
		return -ENOENT;
	bm = numa_allocate_cpumask();
	if (!bm)
		return -ENOMEM;
	if (numa_node_to_cpus(node, bm)) {
		ret = -EINVAL;
		goto out;
	}
	for (int i = 0; i < allowed->n; i++) {
		int c = allowed->cpu[i];

		if ((unsigned int)c >= bm->size || !numa_bitmask_isbitset(bm, c))
			continue;
		ret = cpus_push(out, c, &cap);
		if (ret) {
			mc_cpus_free(out);
			goto out;
		}
	}
out:
	numa_free_cpumask(bm);
	return ret;
}

int mc_pin_self(int cpu)
{
	cpu_set_t *set = CPU_ALLOC(cpu + 1);
	size_t sz = CPU_ALLOC_SIZE(cpu + 1);
	int ret = 0;

	if (!set)
		return -ENOMEM;
	CPU_ZERO_S(sz, set);
	CPU_SET_S(cpu, sz, set);
	if (sched_setaffinity(0, sz, set))
		ret = -errno;
	CPU_FREE(set);
	return ret;
}
