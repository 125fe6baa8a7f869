// SPDX-License-Identifier: MIT
/*
 * target.c - the target process: its anonymous writable mappings cut into
 * regions, page placement queries and moves with move_pages(2).
 *
 * move_pages() with nodes == NULL only queries (status = node or -errno);
 * with nodes set it migrates, MPOL_MF_MOVE (pages mapped only by the
 * target).  A per-page status can be spuriously negative for the address
 * right after a transparent huge page's head in the same call (-EBUSY: the
 * folio queued by the head is off the LRU until the call moves it; the
 * function is add_page_for_migration() up to 6.11, add_folio_for_migration()
 * from 6.12), so every page that reports a failure is queried again after
 * the call and counts as moved if it is on the requested node by then.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tierd.h"

#define BASE_PAGE 4096UL

uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---------------------------------------------------------- host facts */

/* 1 if @v is in the kernel cpu/node list @s ("0-3,8"), else 0 */
static int in_list(const char *s, long v)
{
	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s)
			return 0;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			s = end;
		}
		if (v >= a && v <= b)
			return 1;
		if (*s == ',')
			s++;
	}
	return 0;
}

int node_has_memory(int node)
{
	char buf[4096];

	if (node < 0)
		return 0;
	if (read_text_file("/sys/devices/system/node/has_memory", buf, sizeof(buf)) == 0)
		return in_list(buf, node);
	/* no NUMA sysfs (kernel without CONFIG_NUMA): node 0 is all memory */
	return node == 0 && access("/sys/devices/system/node", F_OK) != 0;
}

int64_t node_free_bytes(int node)
{
	char path[96], buf[4096], *p;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	if (read_text_file(path, buf, sizeof(buf)))
		return -ENOENT;
	p = strstr(buf, "MemFree:");
	if (!p)
		return -ENOENT;
	return (int64_t)strtoll(p + 8, NULL, 10) * 1024;
}

/* -------------------------------------------------------------- target */

int target_alive(pid_t pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_text_file(path, buf, sizeof(buf)))
		return 0;
	p = strrchr(buf, ')');
	if (!p || !p[1] || !p[2])
		return 0;
	return p[2] != 'Z' && p[2] != 'X';
}

/*
 * -EACCES (with the reason) unless the target's cpuset allows both tier
 * nodes: a move to a node outside it fails for the whole call
 * (mm/migrate.c do_pages_move(): "err = -EACCES; if (!node_isset(node,
 * task_nodes))", task_nodes = cpuset_mems_allowed()), which the status query
 * of target_check_access() never reaches.  Mems_allowed_list in
 * /proc/PID/status (Documentation/filesystems/proc.rst) is that mask.
 */
int target_check_nodes(pid_t pid, const int *nodes, int nnodes, char *why)
{
	char path[64], buf[8192], *p;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (read_text_file(path, buf, sizeof(buf)))
		return 0;	/* gone: said by the next check */
	p = strstr(buf, "Mems_allowed_list:");
	if (!p)
		return 0;
	p += strlen("Mems_allowed_list:");
	while (*p == ' ' || *p == '\t')
		p++;
	for (int i = 0; i < nnodes; i++) {
		if (nodes[i] >= 0 && !in_list(p, nodes[i])) {
			char *nl = strchr(p, '\n');

			if (nl)
				*nl = '\0';
			snprintf(why, TIERD_WHY,
				 "pid %d may not use node %d (its cpuset allows memory on %.64s only): "
				 "a move there fails", (int)pid, nodes[i], p);
			return -EACCES;
		}
	}
	return 0;
}

int target_check_access(pid_t pid, char *why)
{
	int st = 0;
	void *pg = NULL;
	long r;

	if (!target_alive(pid)) {
		snprintf(why, TIERD_WHY, "pid %d does not exist", (int)pid);
		return -ESRCH;
	}
	/* a status query goes through the same permission check as a move
	 * (mm/migrate.c find_mm_struct(): ptrace_may_access(task,
	 * PTRACE_MODE_READ_REALCREDS), then security_task_movememory; since 4.13
	 * that, not CAP_SYS_NICE, is what move_pages(2) asks of another process:
	 * the same user with a dumpable target, or CAP_SYS_PTRACE) */
	r = move_pages(pid, 1, &pg, NULL, &st, 0);
	if (r < 0 && (errno == EPERM || errno == EACCES)) {
		snprintf(why, TIERD_WHY,
			 "no permission to move pages of pid %d (need root, the same user with a "
			 "dumpable target, or CAP_SYS_PTRACE): %s", (int)pid, strerror(errno));
		return -EPERM;
	}
	if (r < 0 && errno == ESRCH) {
		snprintf(why, TIERD_WHY, "pid %d does not exist", (int)pid);
		return -ESRCH;
	}
	if (r < 0 && errno == ENOSYS) {
		snprintf(why, TIERD_WHY, "move_pages(2) is not supported by this kernel");
		return -ENOSYS;
	}
	return 0;
}

static int add_region(struct target *t, size_t *cap, uintptr_t s, size_t len)
{
	if (t->nreg == *cap) {
		size_t nc = *cap ? 2 * *cap : 1024;
		struct region *nr = realloc(t->reg, nc * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		t->reg = nr;
		*cap = nc;
	}
	t->reg[t->nreg].start = s;
	t->reg[t->nreg].len = len;
	t->nreg++;
	t->npages_4k += len / BASE_PAGE;
	return 0;
}

int target_open(struct target *t, pid_t pid, size_t region_size, size_t min_mapping,
		size_t batch, char *why)
{
	char path[64], line[4096];
	size_t cap = 0, nmap = 0;
	FILE *f;
	int ret = 0;

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->region_size = region_size;
	t->batch = batch;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f) {
		ret = -errno;
		snprintf(why, TIERD_WHY, "cannot read %s: %s", path, strerror(errno));
		return ret;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long s, e, off, ino;
		char perms[8], dev[16], name[4096] = "";
		uintptr_t a;

		if (sscanf(line, "%lx-%lx %7s %lx %15s %lu %4095[^\n]", &s, &e, perms, &off, dev,
			   &ino, name) < 6)
			continue;
		/* private, writable, anonymous (no file; [heap] is anonymous too) */
		if (perms[0] != 'r' || perms[1] != 'w' || perms[3] != 'p' || ino != 0)
			continue;
		{
			const char *n = name;

			while (*n == ' ')
				n++;
			if (*n && strcmp(n, "[heap]") != 0)
				continue;
		}
		if (e - s < min_mapping)
			continue;
		nmap++;
		/* cut at region_size-aligned boundaries */
		for (a = s; a < e;) {
			uintptr_t next = (a / region_size + 1) * region_size;

			if (next > e)
				next = e;
			ret = add_region(t, &cap, a, next - a);
			if (ret)
				goto out;
			a = next;
		}
	}
	if (!nmap) {
		ret = -ENOENT;
		snprintf(why, TIERD_WHY,
			 "pid %d has no anonymous writable mapping of at least %zu bytes", (int)pid,
			 min_mapping);
		goto out;
	}
	t->pages = calloc(batch, sizeof(*t->pages));
	t->nodes = calloc(batch, sizeof(*t->nodes));
	t->status = calloc(batch, sizeof(*t->status));
	t->before = calloc(batch, sizeof(*t->before));
	t->slot = calloc(batch, sizeof(*t->slot));
	t->rslot = calloc(batch, sizeof(*t->rslot));
	if (!t->pages || !t->nodes || !t->status || !t->before || !t->slot || !t->rslot) {
		ret = -ENOMEM;
		snprintf(why, TIERD_WHY, "out of memory");
	}
out:
	fclose(f);
	if (ret)
		target_close(t);
	return ret;
}

void target_close(struct target *t)
{
	free(t->reg);
	free(t->pages);
	free(t->nodes);
	free(t->status);
	free(t->before);
	free(t->slot);
	free(t->rslot);
	t->slot = t->rslot = NULL;
	t->reg = NULL;
	t->pages = NULL;
	t->nodes = NULL;
	t->status = NULL;
	t->before = NULL;
	t->nreg = 0;
}

long target_find(const struct target *t, uintptr_t addr)
{
	size_t lo = 0, hi = t->nreg;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct region *r = &t->reg[mid];

		if (addr < r->start)
			hi = mid;
		else if (addr >= r->start + r->len)
			lo = mid + 1;
		else
			return (long)mid;
	}
	return -1;
}

/*
 * The error of a whole move_pages() call.  Its flags here are always valid (0
 * or MPOL_MF_MOVE), so EINVAL means the target has no mm any more: it is
 * exiting (mm/migrate.c find_mm_struct: get_task_mm() gives NULL and the call
 * returns -EINVAL), which to the caller is the target gone, -ESRCH.  A bad
 * node would be -ENODEV or -EACCES (do_pages_move), never EINVAL.
 */
static int call_error(void)
{
	return errno == EINVAL ? -ESRCH : -errno;
}

/* status query of n pages starting at page index @first of region @i */
static int query(struct target *t, size_t i, size_t first, size_t n)
{
	const struct region *r = &t->reg[i];

	for (size_t k = 0; k < n; k++)
		t->pages[k] = (void *)(r->start + (first + k) * BASE_PAGE);
	if (move_pages(t->pid, n, t->pages, NULL, t->status, 0) < 0)
		return call_error();
	return 0;
}

int target_region_node(struct target *t, size_t i, int all_pages)
{
	size_t np = t->reg[i].len / BASE_PAGE, done, n, k;
	int ret;

	ret = query(t, i, 0, 1);
	if (ret)
		return ret;
	if (t->status[0] >= 0 || !all_pages)
		return t->status[0] >= 0 ? t->status[0] : -ENOENT;
	for (done = 1; done < np; done += n) {
		n = np - done < t->batch ? np - done : t->batch;
		ret = query(t, i, done, n);
		if (ret)
			return ret;
		for (k = 0; k < n; k++)
			if (t->status[k] >= 0)
				return t->status[k];
	}
	return -ENOENT;
}

int target_first_nodes(struct target *t, int *out)
{
	size_t done, n, k;

	for (done = 0; done < t->nreg; done += n) {
		n = t->nreg - done < t->batch ? t->nreg - done : t->batch;
		for (k = 0; k < n; k++)
			t->pages[k] = (void *)t->reg[done + k].start;
		if (move_pages(t->pid, n, t->pages, NULL, t->status, 0) < 0)
			return call_error();
		for (k = 0; k < n; k++)
			out[done + k] = t->status[k] >= 0 ? t->status[k] : -ENOENT;
	}
	return 0;
}

void move_stats_add(struct move_stats *dst, const struct move_stats *src)
{
	dst->pages_ok += src->pages_ok;
	dst->pages_already += src->pages_already;
	dst->pages_failed += src->pages_failed;
	dst->pages_absent += src->pages_absent;
	dst->bytes += src->bytes;
	dst->calls += src->calls;
	dst->ns += src->ns;
	for (size_t e = 0; e < sizeof(src->err_by_errno) / sizeof(src->err_by_errno[0]); e++)
		dst->err_by_errno[e] += src->err_by_errno[e];
}

static void count_fail(struct move_stats *st, int status)
{
	int e = -status;

	st->pages_failed++;
	if (e > 0 && e < (int)(sizeof(st->err_by_errno) / sizeof(st->err_by_errno[0])))
		st->err_by_errno[e]++;
}

/*
 * One move of the first n entries of t->pages to @node, the per-page results
 * into st and the per-region counters (ok: on @node after the call, moved or
 * there already; bad: failed).  What move_pages(2) reports, and how:
 *  - it returns the number of pages it did not migrate when that is positive,
 *    without writing their status (mm/migrate.c do_pages_move(),
 *    move_pages_and_store_status(): "err += nr_pages - i"); a status array
 *    preset to a value that is no node tells them apart (move_pages(2):
 *    "Preinitialization of the array to a value which cannot represent a real
 *    numa node ... could help to identify pages that have been migrated");
 *  - it fails the whole call with ENOMEM when the target node is full
 *    (migrate_pages_batch(): "When memory is low, don't bother to try to
 *    migrate other folios"), after moving what earlier parts of the call did;
 * in both cases every page's node is queried again (nodes == NULL) and counted
 * as it is.  A page already on @node before the call (queried first) is
 * placed, not moved: the call reports it on @node too ("If the page is already
 * on the target node ... store the node").
 */
/* a page on @node after a move: moved there, or there before it (@before) */
static void count_on_node(struct move_stats *st, int before, int node)
{
	if (before == node)
		st->pages_already++;
	else
		st->pages_ok++;
}

static int move_batch(struct target *t, size_t n, int node, const uint32_t *slot,
		      uint32_t *ok, uint32_t *bad, struct move_stats *st)
{
	size_t k, nre = 0;
	uint64_t t0 = now_ns();
	long r;
	int whole = 0, ret = 0;

	if (move_pages(t->pid, n, t->pages, NULL, t->before, 0) < 0) {
		ret = call_error();	/* the target is gone, or no permission */
		goto out;
	}
	for (k = 0; k < n; k++) {
		t->nodes[k] = node;
		t->status[k] = INT_MIN;	/* no node: a status the kernel did not write */
	}
	r = move_pages(t->pid, n, t->pages, t->nodes, t->status, MPOL_MF_MOVE);
	if (r < 0) {
		whole = call_error();
		if (whole != -ENOMEM) {
			ret = whole;	/* whole call: the target is gone, or no permission */
			goto out;
		}
		/* the node is full: what did move is read back */
	}
	if (r != 0) {
		if (move_pages(t->pid, n, t->pages, NULL, t->status, 0) < 0) {
			ret = call_error();
			goto out;
		}
		for (k = 0; k < n; k++)	/* not on @node after the call: not migrated */
			if (t->status[k] >= 0 && t->status[k] != node)
				t->status[k] = whole ? whole : -EAGAIN;
	}
	for (k = 0; k < n; k++) {
		int s = t->status[k];

		if (s == -ENOENT || s == -EFAULT) {
			/* not present, the shared zero page (never written), or no
			 * migratable mapping there */
			st->pages_absent++;
		} else if (s == node) {
			count_on_node(st, t->before[k], node);
			ok[slot[k]]++;
		} else {
			/* query again below: the page after a THP's head in this
			 * call can report -EBUSY while its folio is off the LRU */
			t->pages[nre] = t->pages[k];
			t->nodes[nre] = s < 0 ? s : -EAGAIN; /* keep the first error */
			t->rslot[nre] = slot[k];
			t->before[nre] = t->before[k];
			nre++;
		}
	}
	if (nre) {
		int qr = move_pages(t->pid, nre, t->pages, NULL, t->status, 0) < 0;

		for (k = 0; k < nre; k++) {
			int s = qr ? t->nodes[k] : t->status[k];

			if (s == node) {
				count_on_node(st, t->before[k], node);
				ok[t->rslot[k]]++;
			} else if (s == -ENOENT || s == -EFAULT) {
				st->pages_absent++;
			} else {
				count_fail(st, t->nodes[k]);
				bad[t->rslot[k]]++;
			}
		}
	}
	st->bytes = st->pages_ok * BASE_PAGE;
out:
	st->ns += now_ns() - t0;
	st->calls++;
	return ret;
}

int target_move_regions(struct target *t, const size_t *idx, size_t nidx, int node,
			uint32_t *ok, uint32_t *bad, struct move_stats *st)
{
	size_t n = 0;
	int ret;

	for (size_t j = 0; j < nidx; j++) {
		const struct region *r = &t->reg[idx[j]];
		size_t np = r->len / BASE_PAGE;

		ok[j] = bad[j] = 0;
		for (size_t p = 0; p < np; p++) {
			t->pages[n] = (void *)(r->start + p * BASE_PAGE);
			t->slot[n] = (uint32_t)j;
			if (++n == t->batch) {
				ret = move_batch(t, n, node, t->slot, ok, bad, st);
				if (ret)
					return ret;
				n = 0;
			}
		}
	}
	if (n)
		return move_batch(t, n, node, t->slot, ok, bad, st);
	return 0;
}

int target_verify_region(struct target *t, size_t i, int node, uint64_t *on, uint64_t *off,
			 uint64_t *absent)
{
	size_t np = t->reg[i].len / BASE_PAGE, done, n, k;
	int ret;

	for (done = 0; done < np; done += n) {
		n = np - done < t->batch ? np - done : t->batch;
		ret = query(t, i, done, n);
		if (ret)
			return ret;
		for (k = 0; k < n; k++) {
			if (t->status[k] == node)
				(*on)++;
			else if (t->status[k] == -ENOENT || t->status[k] == -EFAULT)
				(*absent)++;
			else
				(*off)++;
		}
	}
	return 0;
}
