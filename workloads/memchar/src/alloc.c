// SPDX-License-Identifier: MIT
/*
 * Buffers on a memory tier: anonymous memory bound to a NUMA node
 * (mbind MPOL_BIND before the first touch) or a MAP_SHARED mapping of a
 * DAX device / file. Page backing (hugetlb, THP, 4 KiB) is chosen here
 * and reported from /proc/self/smaps after the buffer was touched.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <numa.h>
#include <numaif.h>

#include "memchar.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#define MC_MAP_HUGE_2MB (21 << MAP_HUGE_SHIFT)

#define MC_SAMPLE_PAGES 512

static long long read_sysfs_ll(const char *path)
{
	char buf[64];
	FILE *f = fopen(path, "re");
	long long v;

	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	v = strtoll(buf, NULL, 10);
	return v;
}

int mc_target_open(struct mc_target *t, int mem_node, const char *dax_path)
{
	struct stat st;

	memset(t, 0, sizeof(*t));
	t->dax_fd = -1;
	t->mem_node = dax_path ? -1 : mem_node;
	if (!dax_path)
		return 0;
	t->dax_path = dax_path;
	t->dax_fd = open(dax_path, O_RDWR | O_CLOEXEC);
	if (t->dax_fd < 0)
		return -errno;
	if (fstat(t->dax_fd, &st))
		goto err;
	if (S_ISCHR(st.st_mode)) {
		char path[128];
		long long sz;

		t->dax_is_dev = true;
		snprintf(path, sizeof(path), "/sys/dev/char/%u:%u/size",
			 major(st.st_rdev), minor(st.st_rdev));
		sz = read_sysfs_ll(path);
		/* Size unknown: let mmap decide. */
		t->dax_size = sz > 0 ? (unsigned long long)sz : ~0ULL;
	} else if (S_ISREG(st.st_mode)) {
		t->dax_size = (unsigned long long)st.st_size;
	} else {
		errno = EINVAL;
		goto err;
	}
	return 0;
err:
	{
		int ret = -errno;

		close(t->dax_fd);
		t->dax_fd = -1;
		return ret;
	}
}

void mc_target_close(struct mc_target *t)
{
	if (t->dax_fd >= 0)
		close(t->dax_fd);
	t->dax_fd = -1;
}

void mc_target_rewind(struct mc_target *t)
{
	t->dax_next = 0;
}

static int region_bind(const struct mc_target *t, void *addr, size_t len)
{
	struct bitmask *bm;
	int ret = 0;

	if (t->mem_node < 0 || !mc_numa_ok())
		return 0;
	bm = numa_allocate_nodemask();
	if (!bm)
		return -ENOMEM;
	numa_bitmask_setbit(bm, (unsigned int)t->mem_node);
	if (mbind(addr, len, MPOL_BIND, bm->maskp, bm->size + 1,
		  MPOL_MF_STRICT))
		ret = -errno;
	numa_bitmask_free(bm);
	return ret;
}

/* Are there enough free 2 MiB hugetlb pages (on the node) for len? */
static bool hugetlb_available(const struct mc_target *t, size_t len)
{
	const char *g = "/sys/kernel/mm/hugepages/hugepages-2048kB";
	long long need = (long long)(len / MC_HUGE);
	long long free_g, resv, free_n;
	char path[160];

	free_g = read_sysfs_ll("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages");
	snprintf(path, sizeof(path), "%s/resv_hugepages", g);
	resv = read_sysfs_ll(path);
	if (free_g <= 0)
		return false;
	if (resv < 0)
		resv = 0;
	if (free_g - resv < need)
		return false;
	if (t->mem_node < 0)
		return true;
	/* Reservations are global: a bound fault on an empty node SIGBUSes. */
	snprintf(path, sizeof(path),
		 "/sys/devices/system/node/node%d/hugepages/hugepages-2048kB/free_hugepages",
		 t->mem_node);
	free_n = read_sysfs_ll(path);
	return free_n - resv >= need;
}

static int region_dax(struct mc_target *t, size_t len, struct mc_region *r)
{
	unsigned long long off = t->dax_next, need = off + len;
	void *p;
	int e;

	if (need > t->dax_size) {
		if (t->dax_is_dev)
			return -ENOSPC;
		/* A regular file is scratch space: grow it. */
		e = posix_fallocate(t->dax_fd, 0, (off_t)need);
		if (e == EOPNOTSUPP || e == EINVAL)
			e = ftruncate(t->dax_fd, (off_t)need) ? errno : 0;
		if (e)
			return -e;
		t->dax_size = need;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, t->dax_fd,
		 (off_t)off);
	if (p == MAP_FAILED)
		return -errno;
	t->dax_next = need;
	r->addr = r->map = p;
	r->len = r->map_len = len;
	r->dax = true;
	return 0;
}

int mc_region_alloc(struct mc_target *t, size_t len, enum mc_huge_req h,
		    struct mc_region *r)
{
	size_t head, map_len;
	uint8_t *p, *a;
	int ret;

	memset(r, 0, sizeof(*r));
	if (!len)
		return -EINVAL;
	len = mc_round_up(len, MC_HUGE);
	if (t->dax_path)
		return region_dax(t, len, r);

	if ((h == MC_HUGE_AUTO || h == MC_HUGE_ON || h == MC_HUGE_HUGETLB) &&
	    hugetlb_available(t, len)) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
			 MC_MAP_HUGE_2MB, -1, 0);
		if (p != MAP_FAILED) {
			ret = region_bind(t, p, len);
			if (ret) {
				munmap(p, len);
				return ret;
			}
			r->addr = r->map = p;
			r->len = r->map_len = len;
			r->hugetlb = true;
			return 0;
		}
		if (h == MC_HUGE_HUGETLB)
			return -errno;
	}
	if (h == MC_HUGE_HUGETLB)
		return -ENOMEM;

	/*
	 * Over-map by 2 MiB to align the start for THP; the unused head is
	 * unmapped and the tail kept as a PROT_NONE guard so the region's
	 * VMA never merges with a neighbour (its smaps entry stays its own).
	 */
	map_len = len + MC_HUGE;
	p = mmap(NULL, map_len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	a = (uint8_t *)mc_round_up((uintptr_t)p, MC_HUGE);
	head = (size_t)(a - p);
	if (head) {
		munmap(p, head);
		map_len -= head;
	}
	if (mprotect(a + len, map_len - len, PROT_NONE)) {
		ret = -errno;
		goto err;
	}
	ret = region_bind(t, a, len);
	if (ret)
		goto err;
	if (madvise(a, len, h == MC_HUGE_OFF ? MADV_NOHUGEPAGE :
					       MADV_HUGEPAGE)) {
		/* No THP in this kernel: fine unless THP was demanded. */
		ret = -errno;
		if (h == MC_HUGE_THP)
			goto err;
	}
	r->addr = a;
	r->len = len;
	r->map = a;
	r->map_len = map_len;
	return 0;
err:
	munmap(a, map_len);
	return ret;
}

void mc_region_free(struct mc_region *r)
{
	if (r->map)
		munmap(r->map, r->map_len);
	memset(r, 0, sizeof(*r));
}

int mc_region_check_node(const struct mc_region *r, int node, int *bad_node)
{
	int status[MC_SAMPLE_PAGES];
	/* evenly spread, the last page included (the length is whole 2 MiB pages) */
	long n = pages_where(r->addr, r->len, MC_SAMPLE_PAGES, status);

	*bad_node = node;
	if (n < 0)
		return (int)n;
	for (long i = 0; i < n; i++) {
		if (status[i] != node) {
			*bad_node = status[i];
			return -EFAULT;
		}
	}
	return 0;
}

static bool overlaps_any(const struct mc_region *r, int n, uintptr_t s,
			 uintptr_t e)
{
	for (int i = 0; i < n; i++) {
		uintptr_t rs = (uintptr_t)r[i].addr, re = rs + r[i].len;

		if (!r[i].hugetlb && s < re && rs < e)
			return true;
	}
	return false;
}

int mc_regions_backing(const struct mc_region *r, int n, char *buf,
		       size_t len, double *huge_frac)
{
	unsigned long long rss = 0, huge = 0;
	bool all_hugetlb = n > 0, in = false;
	char line[512];
	FILE *f;

	*huge_frac = 0;
	for (int i = 0; i < n; i++) {
		if (r[i].hugetlb) {
			rss += r[i].len;
			huge += r[i].len;
		} else {
			all_hugetlb = false;
		}
	}
	if (all_hugetlb) {
		*huge_frac = 1.0;
		snprintf(buf, len, "hugetlb");
		return 0;
	}
	f = fopen("/proc/self/smaps", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long s, e;
		unsigned long long kb;
		char key[64];

		if (sscanf(line, "%lx-%lx ", &s, &e) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = overlaps_any(r, n, s, e);
			continue;
		}
		if (!in || sscanf(line, "%63[^:]: %llu kB", key, &kb) != 2)
			continue;
		if (!strcmp(key, "Rss"))
			rss += kb << 10;
		else if (!strcmp(key, "AnonHugePages") ||
			 !strcmp(key, "FilePmdMapped") ||
			 !strcmp(key, "ShmemPmdMapped"))
			huge += kb << 10;
	}
	fclose(f);
	if (!rss) {
		buf[0] = '\0';	/* unknown, e.g. a DAX device mapping */
		return 0;
	}
	*huge_frac = (double)huge / (double)rss;
	if (!huge)
		snprintf(buf, len, "none");
	else
		snprintf(buf, len, "thp:%.2f", *huge_frac);
	return 0;
}
