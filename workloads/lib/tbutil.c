// SPDX-License-Identifier: MIT
#include "tbutil.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define HUGE_ALIGN (2UL << 20)

/*
 * libnuma reports some errors itself through these weak hooks; the
 * programs report errors on their own, in one line, so keep libnuma quiet.
 */
void numa_warn(int num, char *fmt, ...)
{
	(void)num;
	(void)fmt;
}

void numa_error(char *where)
{
	(void)where;
}

int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned int shift = 0;

	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (toupper((unsigned char)*end)) {
	case 'K':
		shift = 10;
		break;
	case 'M':
		shift = 20;
		break;
	case 'G':
		shift = 30;
		break;
	case 'T':
		shift = 40;
		break;
	}
	if (shift) {
		end++;
		if (*end == 'i' || *end == 'I')
			end++;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		return -EINVAL;
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = (uint64_t)v << shift;
	return 0;
}

int parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_huge(const char *s, enum huge_mode *out)
{
	if (!strcmp(s, "auto"))
		*out = HUGE_AUTO;
	else if (!strcmp(s, "on"))
		*out = HUGE_ON;
	else if (!strcmp(s, "off"))
		*out = HUGE_OFF;
	else
		return -EINVAL;
	return 0;
}

static int parse_id(const char **p, int max_id, int *out)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	v = strtol(*p, &end, 10);
	if (errno || v > max_id)
		return -EINVAL;
	*p = end;
	*out = (int)v;
	return 0;
}

int parse_id_list(const char *s, int max_id, int **ids, int *n)
{
	const char *p = s;
	int *v = NULL, cnt = 0, cap = 0;
	int lo, hi, i, j;

	if (!s || !*s)
		return -EINVAL;
	for (;;) {
		if (parse_id(&p, max_id, &lo))
			goto err;
		hi = lo;
		if (*p == '-') {
			p++;
			if (parse_id(&p, max_id, &hi) || hi < lo)
				goto err;
		}
		for (i = lo; i <= hi; i++) {
			for (j = 0; j < cnt; j++)
				if (v[j] == i)
					goto err; /* duplicate */
			if (cnt == cap) {
				int *nv;

				cap = cap ? 2 * cap : 16;
				nv = realloc(v, cap * sizeof(*v));
				if (!nv) {
					free(v);
					return -ENOMEM;
				}
				v = nv;
			}
			v[cnt++] = i;
		}
		if (*p == '\0')
			break;
		if (*p != ',')
			goto err;
		p++;
	}
	*ids = v;
	*n = cnt;
	return 0;
err:
	free(v);
	return -EINVAL;
}

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

int node_check(int node)
{
	long long size;

	if (numa_available() < 0)
		return -ENOSYS;
	if (node < 0 || node > numa_max_node())
		return -ENODEV;
	if (!numa_bitmask_isbitset(numa_all_nodes_ptr, node))
		return -ENOMEM;
	size = numa_node_size64(node, NULL);
	if (size <= 0)
		return -ENOMEM;
	return 0;
}

int node_mem(int node, uint64_t *bytes)
{
	long long size;

	if (numa_available() < 0)
		return -ENOSYS;
	size = numa_node_size64(node, NULL);
	if (size < 0)
		return -ENODEV;
	*bytes = (uint64_t)size;
	return 0;
}

uint64_t mem_limit(const int *nodes, int nnodes)
{
	uint64_t sum = 0, n;
	int i;

	for (i = 0; i < nnodes; i++)
		if (!node_mem(nodes[i], &n))
			sum += n;
	if (sum)
		return sum;
	return (uint64_t)sysconf(_SC_PHYS_PAGES) *
	       (uint64_t)sysconf(_SC_PAGESIZE);
}

static int region_policy(void *addr, size_t len, const int *nodes, int nnodes,
			 int interleave)
{
	struct bitmask *bm;
	int i, ret = 0;

	if (numa_available() < 0)
		return -ENOSYS;
	bm = numa_allocate_nodemask();
	if (!bm)
		return -ENOMEM;
	for (i = 0; i < nnodes; i++)
		numa_bitmask_setbit(bm, nodes[i]);
	if (mbind(addr, len, interleave ? MPOL_INTERLEAVE : MPOL_BIND,
		  bm->maskp, bm->size + 1, 0))
		ret = -errno;
	numa_bitmask_free(bm);
	return ret;
}

int region_map(size_t len, enum huge_mode huge, const int *nodes, int nnodes,
	       int interleave, void **out)
{
	size_t maplen = len + HUGE_ALIGN;
	uintptr_t raw, start;
	void *p;
	int ret;

	if (!len || maplen < len)
		return -EINVAL;
	p = mmap(NULL, maplen, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	raw = (uintptr_t)p;
	start = (raw + HUGE_ALIGN - 1) & ~(HUGE_ALIGN - 1);
	if (start > raw)
		munmap(p, start - raw);
	if (raw + maplen > start + len)
		munmap((void *)(start + len), raw + maplen - (start + len));
	p = (void *)start;

	ret = 0;
	if (huge == HUGE_ON && madvise(p, len, MADV_HUGEPAGE))
		ret = -errno;
	else if (huge == HUGE_OFF && madvise(p, len, MADV_NOHUGEPAGE))
		ret = -errno;
	if (!ret && nnodes > 0)
		ret = region_policy(p, len, nodes, nnodes, interleave);
	if (ret) {
		munmap(p, len);
		return ret;
	}
	*out = p;
	return 0;
}

void region_unmap(void *addr, size_t len)
{
	if (addr)
		munmap(addr, len);
}

static int write_atomic(const char *path, const char *text)
{
	size_t plen = strlen(path), tlen = strlen(text);
	char *tmp = malloc(plen + 32);
	int fd, ret = 0;

	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, plen + 32, "%s.tmp.%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	if (tlen && write(fd, text, tlen) != (ssize_t)tlen)
		ret = errno ? -errno : -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
out:
	free(tmp);
	return ret;
}

int write_pid_file(const char *path, long pid)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld\n", pid);
	return write_atomic(path, buf);
}

int create_flag_file(const char *path)
{
	return write_atomic(path, "");
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
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
