// SPDX-License-Identifier: MIT
/* alias.c - Vose alias tables (O(1) draws) and a min-heap of pending faults. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "tiersim.h"

/*
 * One column's coin as an integer: the draw's coin is u = lo * 2^-32 for a
 * 32-bit lo, exactly, and p * 2^32 is exact too (a power of two), so
 * u < p exactly when lo < ceil(p * 2^32).  A column whose coin always
 * yields its own page (ceil >= 2^32: p = 1, or within 2^-32 of it) keeps
 * UINT32_MAX with its own page as the alias, which lo = UINT32_MAX then
 * takes: the same page whatever the coin.
 */
static uint64_t cell_of(double prob, uint32_t self, uint32_t alias)
{
	double t = ceil(prob * 0x1.0p32);

	if (!(t > 0))
		return (uint64_t)alias << 32;
	if (t >= 0x1.0p32)
		return (uint64_t)self << 32 | UINT32_MAX;
	return (uint64_t)alias << 32 | (uint32_t)t;
}

int alias_build(struct alias *a, const double *p, uint64_t n)
{
	uint32_t *small = NULL, *large = NULL, *alias = NULL;
	double *prob = NULL;
	uint64_t ns = 0, nl = 0, i;
	double sum = 0.0;
	int ret = -ENOMEM;

	if (n == 0 || n > UINT32_MAX)
		return -EINVAL;
	if (a->n != n) {
		alias_free(a);
		a->cell = malloc(n * sizeof(*a->cell));
		if (!a->cell)
			return -ENOMEM;
		a->n = n;
	}
	small = malloc(n * sizeof(*small));
	large = malloc(n * sizeof(*large));
	prob = malloc(n * sizeof(*prob));
	alias = malloc(n * sizeof(*alias));
	if (!small || !large || !prob || !alias)
		goto out;
	for (i = 0; i < n; i++)
		sum += p[i];
	ret = -EINVAL;
	if (!(sum > 0.0))
		goto out;
	for (i = 0; i < n; i++) {
		prob[i] = p[i] * (double)n / sum;
		alias[i] = (uint32_t)i;
		if (prob[i] < 1.0)
			small[ns++] = (uint32_t)i;
		else
			large[nl++] = (uint32_t)i;
	}
	while (ns && nl) {
		uint32_t s = small[--ns], l = large[--nl];

		alias[s] = l;
		prob[l] = (prob[l] + prob[s]) - 1.0;
		if (prob[l] < 1.0)
			small[ns++] = l;
		else
			large[nl++] = l;
	}
	while (nl)
		prob[large[--nl]] = 1.0;
	while (ns)
		prob[small[--ns]] = 1.0;
	for (i = 0; i < n; i++)
		a->cell[i] = cell_of(prob[i], (uint32_t)i, alias[i]);
	ret = 0;
out:
	free(small);
	free(large);
	free(prob);
	free(alias);
	return ret;
}

/* alias_draw() is inline in tiersim.h */

void alias_free(struct alias *a)
{
	free(a->cell);
	a->cell = NULL;
	a->n = 0;
}

static int ev_less(const struct fault_ev *x, const struct fault_ev *y)
{
	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns;
	return x->page < y->page;
}

int fheap_push(struct fault_heap *h, struct fault_ev ev)
{
	size_t i;

	if (h->n == h->cap) {
		size_t nc = h->cap ? h->cap * 2 : 1024;
		struct fault_ev *nv = realloc(h->v, nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		h->v = nv;
		h->cap = nc;
	}
	i = h->n++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (!ev_less(&ev, &h->v[parent]))
			break;
		h->v[i] = h->v[parent];
		i = parent;
	}
	h->v[i] = ev;
	return 0;
}

int fheap_pop(struct fault_heap *h, struct fault_ev *out)
{
	struct fault_ev last;
	size_t i = 0;

	if (!h->n)
		return -ENOENT;
	*out = h->v[0];
	last = h->v[--h->n];
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && ev_less(&h->v[c + 1], &h->v[c]))
			c++;
		if (!ev_less(&h->v[c], &last))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = last;
	return 0;
}

void fheap_free(struct fault_heap *h)
{
	free(h->v);
	h->v = NULL;
	h->n = h->cap = 0;
}
