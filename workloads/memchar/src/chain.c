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

#include "memchar.h"

int mc_chain_build(void *buf, size_t n, uint64_t seed)
{
	struct mc_line *e = buf;
	struct rng rng;

	if (!n)
		return -EINVAL;
	rng_seed(&rng, seed, 0);
	/*
	 * Work on indices stored in each element's first word (this also
	 * touches every line), then turn indices into pointers in place.
	 */
	for (size_t i = 0; i < n; i++)
		e[i].pad[0] = i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)rng_below_exact(&rng, i);	/* j < i */
		uint64_t t = e[i].pad[0];

		e[i].pad[0] = e[j].pad[0];
		e[j].pad[0] = t;
		if (!(i & 0xffff) && mc_stopping())
			return -EINTR;
	}
	for (size_t i = 0; i < n; i++) {
		e[i].next = &e[e[i].pad[0]];
		e[i].pad[0] = 0;
	}
	return 0;
}

/*
 * Walk from element 0: every pointer must land on an element of the
 * buffer, and the walk must first come back to element 0 after exactly n
 * steps. A walk whose first return is at step n has visited n distinct
 * elements, i.e. every element exactly once.
 */
int mc_chain_verify(const void *buf, size_t n)
{
	const struct mc_line *e = buf, *p = e;
	uintptr_t lo = (uintptr_t)e, hi = lo + n * MC_LINE;

	if (!n)
		return -EINVAL;
	for (size_t step = 1; step <= n; step++) {
		uintptr_t a = (uintptr_t)p->next;

		if (a < lo || a >= hi || (a - lo) % MC_LINE)
			return -EFAULT;
		p = p->next;
		if (p == e && step != n)
			return -ELOOP;
		if (!(step & 0xfffff) && mc_stopping())
			return -EINTR;
	}
	return p == e ? 0 : -ELOOP;
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
