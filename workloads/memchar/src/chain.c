// SPDX-License-Identifier: MIT
/*
 * Pointer-chasing chain for load-to-use latency.
 *
 * The buffer holds n cache-line elements. Sattolo's algorithm turns the
 * identity into a uniformly random *cyclic* permutation, so following
 * next pointers from any element visits all n elements before returning:
 * each load depends on the previous one, hits a random line of the whole
 * buffer, and hardware prefetchers cannot guess the next address.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "memchar.h"

/*
 * Where the chain has fewer than 2^32 lines, build and verify work on a
 * compact array of line indices (4 bytes a line: 16 MiB for a 256 MiB
 * buffer, a sixteenth of the lines' footprint) rather than on the lines
 * themselves, each a cache miss (and, on 4 KiB pages, a TLB miss) into
 * the whole buffer: the same chain (the same swaps, in the same
 * order) in a fraction of the time (README.md, "Chain", "Verification").
 * Where that array cannot be had, the lines are used as before.
 */
static uint32_t *index_array(size_t n)
{
	size_t bytes = n * sizeof(uint32_t);
	long free_pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	void *p;

	if (n > UINT32_MAX)
		return NULL;
	/*
	 * A sixteenth of the chain's size, in this process's memory for a moment: not where it would
	 * take more than half of the memory free now (a very large chain on a small host), the
	 * "currently available pages of physical memory" of sysconf(3) (_SC_AVPHYS_PAGES); where
	 * that is unknown (-1), as if there were room.
	 */
	if (free_pages > 0 && page > 0 && bytes > (size_t)free_pages / 2 * (size_t)page)
		return NULL;
	if (bytes < MC_HUGE)
		return malloc(bytes);
	bytes = (bytes + MC_HUGE - 1) / MC_HUGE * MC_HUGE;
	if (posix_memalign(&p, MC_HUGE, bytes))
		return NULL;
	/*
	 * Its walk is random too: on 2 MiB pages, where transparent huge pages
	 * are enabled ("always" or "madvise"), it misses the TLB far less
	 * (Documentation/admin-guide/mm/transhuge.rst: MADV_HUGEPAGE); a
	 * refusal costs nothing but that.
	 */
	(void)madvise(p, bytes, MADV_HUGEPAGE);
	return p;
}

/*
 * Sattolo's algorithm: turn the identity held in slots AT(0..n-1) (an
 * lvalue macro) into a uniformly random cyclic permutation; sets @stopped
 * and ends early where a signal asks the run to stop.
 */
#define SATTOLO(AT, n, rng, stopped)						\
	for (size_t i_ = (n) - 1; i_ > 0 && !(stopped); i_--) {		\
		size_t j_ = (size_t)rng_below_exact(rng, i_);	/* j < i */	\
		__typeof__(AT(i_)) t_ = AT(i_);					\
										\
		AT(i_) = AT(j_);						\
		AT(j_) = t_;							\
		if (!(i_ & 0xffff))						\
			(stopped) = mc_stopping();				\
	}

/* The fallback: indices held in each line's first word (which also touches every line), then
 * turned into pointers in place. */
int mc_chain_build_lines(void *buf, size_t n, uint64_t seed)
{
	struct mc_line *e = buf;
	struct rng rng;
	bool stopped = false;

	if (!n)
		return -EINVAL;
	rng_seed(&rng, seed, 0);
#define LINE(i) e[i].pad[0]
	for (size_t i = 0; i < n; i++)
		e[i].pad[0] = i;
	SATTOLO(LINE, n, &rng, stopped);
#undef LINE
	if (stopped)
		return -EINTR;
	for (size_t i = 0; i < n; i++) {
		e[i].next = &e[e[i].pad[0]];
		e[i].pad[0] = 0;
	}
	return 0;
}

int mc_chain_build(void *buf, size_t n, uint64_t seed)
{
	struct mc_line *e = buf;
	uint32_t *idx = n ? index_array(n) : NULL;
	struct rng rng;
	bool stopped = false;

	if (!idx)
		return mc_chain_build_lines(buf, n, seed);
	rng_seed(&rng, seed, 0);
#define IDX(i) idx[i]
	for (size_t i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	SATTOLO(IDX, n, &rng, stopped);
#undef IDX
	/* every line written once, in order: its pointer, its first padding word zeroed */
	for (size_t i = 0; i < n && !stopped; i++) {
		e[i].next = &e[idx[i]];
		e[i].pad[0] = 0;
	}
	free(idx);
	return stopped ? -EINTR : 0;
}

/* Whether @a points to an element of the n-line chain at @e: inside the buffer, on a line. */
static inline bool on_a_line(const struct mc_line *e, size_t n, const struct mc_line *a)
{
	uintptr_t lo = (uintptr_t)e, x = (uintptr_t)a;

	return x >= lo && x < lo + n * MC_LINE && (x - lo) % MC_LINE == 0;
}

/*
 * Walk from element 0: every pointer must land on an element of the
 * buffer, and the walk must first come back to element 0 after exactly n
 * steps. A walk whose first return is at step n has visited n distinct
 * elements, i.e. every element exactly once.
 */
int mc_chain_verify_walk(const void *buf, size_t n)
{
	const struct mc_line *e = buf, *p = e;

	if (!n)
		return -EINVAL;
	for (size_t step = 1; step <= n; step++) {
		if (!on_a_line(e, n, p->next))
			return -EFAULT;
		p = p->next;
		if (p == e && step != n)
			return -ELOOP;
		if (!(step & 0xfffff) && mc_stopping())
			return -EINTR;
	}
	return p == e ? 0 : -ELOOP;
}

/* walkers of mc_chain_verify(): each walk's loads are independent of the others', so the
 * memory system serves them together instead of one dependent load at a time */
#define VERIFY_WALKERS 16

/*
 * The walk's verdict from the same pointers, read in order: each line's
 * pointer is checked (inside the buffer, on a line) and kept as an index;
 * a pointer off the buffer fails with -EFAULT wherever it is (the walk
 * meets one only on the cycle through element 0, where it fails alike).
 * Then VERIFY_WALKERS walks, from elements spread over the buffer (the
 * starts), step in turn, each until it reaches a start, marking what
 * they visit. The chain is one cycle through all n elements exactly when
 * no element is visited twice, the walks take n steps in all, and the
 * starts, each followed to the start its walk reached, form one cycle;
 * otherwise -ELOOP, as the walk says of a chain of several cycles.
 */
int mc_chain_verify(const void *buf, size_t n)
{
	const struct mc_line *e = buf;
	uint32_t start[VERIFY_WALKERS], at[VERIFY_WALKERS], reached[VERIFY_WALKERS];
	unsigned int k = n >= VERIFY_WALKERS ? VERIFY_WALKERS : 1, live = k;
	uint32_t *idx;
	uint64_t *seen;
	size_t steps = 0;
	int ret = 0;

	if (!n)
		return -EINVAL;
	idx = index_array(n);
	seen = calloc((n + 63) / 64, sizeof(*seen));
	if (!idx || !seen) {
		free(idx);
		free(seen);
		return mc_chain_verify_walk(buf, n);
	}
	for (size_t i = 0; i < n && !ret; i++) {
		if (on_a_line(e, n, e[i].next))
			idx[i] = (uint32_t)(e[i].next - e);
		else
			ret = -EFAULT;
	}
	/* the starts (distinct: n >= k), marked seen; at[j]: walk j's element */
	for (unsigned int j = 0; j < k; j++) {
		start[j] = at[j] = (uint32_t)(j * (n / k));
		seen[at[j] / 64] |= 1ULL << (at[j] % 64);
	}
	for (size_t round = 1; live && !ret; round++) {
		for (unsigned int j = 0; j < k && !ret; j++) {
			uint32_t x;
			uint64_t bit;

			if (at[j] == UINT32_MAX)
				continue;
			x = idx[at[j]];
			steps++;
			bit = 1ULL << (x % 64);
			if (seen[x / 64] & bit) {
				/* a start ends the walk (which one: below); anything else seen twice is no cycle */
				unsigned int s = 0;

				while (s < k && start[s] != x)
					s++;
				if (s == k)
					ret = -ELOOP;
				reached[j] = s;
				at[j] = UINT32_MAX;
				live--;
			} else {
				seen[x / 64] |= bit;
				at[j] = x;
			}
		}
		if (!(round & 0xffff) && mc_stopping())
			ret = -EINTR;
	}
	if (!ret && steps != n)
		ret = -ELOOP;
	/* the starts in walk order from start 0: back at start 0 after all k of them, not before */
	for (unsigned int j = 0, s = 0; !ret && j < k; j++) {
		s = reached[s];
		if ((s == 0) != (j == k - 1))
			ret = -ELOOP;
	}
	free(idx);
	free(seen);
	return ret;
}

#define HOP(p) ((p) = (p)->next)
#define HOP4(p) do { HOP(p); HOP(p); HOP(p); HOP(p); } while (0)

struct mc_line *mc_chain_chase(struct mc_line *p, uint64_t n)
{
	for (uint64_t i = 0; i < n / 16; i++) {
		HOP4(p);
		HOP4(p);
		HOP4(p);
		HOP4(p);
	}
	return p;
}
