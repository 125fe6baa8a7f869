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

/* "0-3,8" -> {0,1,2,3,8}, in the order given; duplicates are an error. */
int mc_cpus_parse(const char *s, struct mc_cpus *out)
{
	out->cpu = NULL;
	out->n = 0;
	return parse_id_list(s, MC_MAX_CPU - 1, &out->cpu, &out->n);
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
	int ret = allowed_cpus(&out->cpu, &out->n);

	if (ret) {
		out->cpu = NULL;
		out->n = 0;
	}
	return ret ? ret : out->n ? 0 : -ENOENT;
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
