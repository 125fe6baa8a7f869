// SPDX-License-Identifier: MIT
/* numa.c - NUMA nodes and placed mappings: libtbutil's libnuma calls (memchar and tierd also call libnuma themselves). */
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tbutil.h"

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

int node_free(int node, uint64_t *bytes)
{
	long long free_bytes = 0;

	if (numa_available() < 0)
		return -ENOSYS;
	if (numa_node_size64(node, &free_bytes) < 0)
		return -ENODEV;
	*bytes = (uint64_t)free_bytes;
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

/*
 * Why not MPOL_F_NUMA_BALANCING instead (Linux mm/mempolicy.c): a VMA with its own
 * policy is scanned by NUMA balancing only if that policy has MPOL_F_MOF, which
 * only the default policy and MPOL_F_NUMA_BALANCING give; and with that flag,
 * mpol_misplaced() lets an MPOL_BIND page move only to the faulting CPU's node
 * when that node is in the bound set. A buffer bound to the slow node alone
 * could never be promoted to the CPUs' node; bound to both, first touch would
 * place it on the CPUs' node. mbind(2): MPOL_DEFAULT "requests that any
 * nondefault policy be removed" for the range, which then follows the
 * thread's own policy (so a caller must not run under numactl --membind, or
 * the range stays bound), and without MPOL_MF_MOVE no page moves.
 */
int region_unbind(void *addr, size_t len)
{
	if (mbind(addr, len, MPOL_DEFAULT, NULL, 0, 0))
		return -errno;
	return 0;
}

long pages_where(const void *addr, size_t len, size_t max, int *status)
{
	size_t pages = (len + 4095) / 4096, n = pages < max ? pages : max;
	void *at[PAGES_WHERE_MAX];

	if (n > PAGES_WHERE_MAX)
		n = PAGES_WHERE_MAX;
	for (size_t i = 0; i < n; i++) {
		size_t pg = n == 1 ? 0 : i * (pages - 1) / (n - 1);

		at[i] = (uint8_t *)addr + pg * 4096;
	}
	/* nodes == NULL: a query, each status the page's node or -errno (mm/migrate.c, do_pages_stat_array) */
	if (n && move_pages(0, (unsigned long)n, at, NULL, status, 0))
		return -errno;
	return (long)n;
}

void region_unmap(void *addr, size_t len)
{
	if (addr)
		munmap(addr, len);
}

