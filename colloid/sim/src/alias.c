// SPDX-License-Identifier: MIT
/* alias.c - Vose alias tables (O(1) draws) and a min-heap of pending faults. */
#include <errno.h>
#include <stdlib.h>

#include "tiersim.h"

int alias_build(struct alias *a, const double *p, uint64_t n)
{
	uint32_t *small = NULL, *large = NULL;
	uint64_t ns = 0, nl = 0, i;
	double sum = 0.0;

	if (n == 0 || n > UINT32_MAX)
		return -EINVAL;
	if (a->n != n) {
		alias_free(a);
		a->prob = malloc(n * sizeof(*a->prob));
		a->alias = malloc(n * sizeof(*a->alias));
		if (!a->prob || !a->alias) {
			alias_free(a);
			return -ENOMEM;
		}
		a->n = n;
	}
	small = malloc(n * sizeof(*small));
	large = malloc(n * sizeof(*large));
	if (!small || !large) {
		free(small);
		free(large);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		sum += p[i];
	if (!(sum > 0.0)) {
		free(small);
		free(large);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		a->prob[i] = p[i] * (double)n / sum;
		a->alias[i] = (uint32_t)i;
		if (a->prob[i] < 1.0)
			small[ns++] = (uint32_t)i;
		else
			large[nl++] = (uint32_t)i;
	}
	while (ns && nl) {
		uint32_t s = small[--ns], l = large[--nl];

		a->alias[s] = l;
		a->prob[l] = (a->prob[l] + a->prob[s]) - 1.0;
		if (a->prob[l] < 1.0)
			small[ns++] = l;
		else
			large[nl++] = l;
	}
	while (nl)
		a->prob[large[--nl]] = 1.0;
	while (ns)
		a->prob[small[--ns]] = 1.0;
	free(small);
	free(large);
	return 0;
}

/* alias_draw() is inline in tiersim.h */

void alias_free(struct alias *a)
{
	free(a->prob);
	free(a->alias);
	a->prob = NULL;
	a->alias = NULL;
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
