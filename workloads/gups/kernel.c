// SPDX-License-Identifier: MIT
#include "gups.h"
#include "tbutil.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>

/* Accesses between two looks at the stop flag and the counters. */
#define BATCH_BYTES (64UL << 10)

/* Uniform integer in [0, n) from a uniform 64-bit draw (Lemire). */
static inline uint64_t scale(uint64_t x, uint64_t n)
{
#if defined(__SIZEOF_INT128__)
	return (uint64_t)(((unsigned __int128)x * n) >> 64);
#else
	return x % n;
#endif
}

uint64_t gups_threshold(double p)
{
	if (p <= 0.0)
		return 0;
	if (p >= 1.0)
		return UINT64_MAX;
	return (uint64_t)ldexp(p, 64);
}

/* Objects of [a, a + n) owned by thread t of nt: a + j0 + k * nt. */
static void own_range(uint64_t a, uint64_t n, unsigned int t, unsigned int nt,
		      uint64_t *first, uint64_t *count)
{
	uint64_t j0 = (t + nt - a % nt) % nt;

	*first = a + j0;
	*count = n > j0 ? (n - j0 + nt - 1) / nt : 0;
}

int gups_plan(const struct gups_cfg *cfg, unsigned int id,
	      struct gups_sel sel[2])
{
	unsigned int nt = cfg->nthreads;
	int ph;

	for (ph = 0; ph < 2; ph++) {
		struct gups_pick *h = &sel[ph].hot, *c = &sel[ph].cold;
		uint64_t hs = cfg->hot_start[ph], he = hs + cfg->nhot;

		own_range(hs, cfg->nhot, id, nt, &h->first[0], &h->count[0]);
		h->first[1] = 0;
		h->count[1] = 0;
		own_range(0, hs, id, nt, &c->first[0], &c->count[0]);
		own_range(he, cfg->nobj - he, id, nt, &c->first[1],
			  &c->count[1]);
		h->total = h->count[0];
		c->total = c->count[0] + c->count[1];
		if (cfg->hot_thresh && !h->total)
			return -EINVAL;
		if (!c->total)
			return -EINVAL;
	}
	return 0;
}

static inline uint64_t pick(const struct gups_pick *pk, uint64_t x,
			    unsigned int stride)
{
	uint64_t k = scale(x, pk->total);

	if (k < pk->count[0])
		return pk->first[0] + k * stride;
	return pk->first[1] + (k - pk->count[0]) * stride;
}

/* This thread's slice of words for touching and verifying. */
static void slice(const struct gups_thread *th, uint64_t **p, uint64_t *n)
{
	const struct gups_cfg *cfg = th->cfg;
	uint64_t lo = cfg->nobj * th->id / cfg->nthreads;
	uint64_t hi = cfg->nobj * (th->id + 1) / cfg->nthreads;

	*p = cfg->buf + lo * cfg->obj_words;
	*n = (hi - lo) * cfg->obj_words;
}

static void pin(struct gups_thread *th)
{
	if (th->cpu >= 0)
		th->err = pin_self(th->cpu);
}

void *gups_touch_main(void *arg)
{
	struct gups_thread *th = arg;
	uint64_t *p, n, i, base, sum = 0;

	pin(th);
	slice(th, &p, &n);
	base = (uint64_t)(p - th->cfg->buf);
	for (i = 0; i < n; i++) {
		p[i] = base + i;
		sum += base + i;
	}
	th->sum = sum;
	return NULL;
}

void *gups_sum_main(void *arg)
{
	struct gups_thread *th = arg;
	uint64_t *p, n, i, sum = 0;

	pin(th);
	slice(th, &p, &n);
	for (i = 0; i < n; i++)
		sum += p[i];
	th->sum = sum;
	return NULL;
}

/*
 * One batch of accesses. Inlined with a constant words for the common
 * 64-byte object so the per-object loop unrolls.
 */
static inline __attribute__((always_inline)) void
batch(const struct gups_cfg *cfg, const struct gups_sel *sel, uint64_t *rng,
      unsigned int words, uint64_t n, uint64_t *rmw, uint64_t *sink)
{
	uint64_t *buf = cfg->buf;
	unsigned int nt = cfg->nthreads;
	uint64_t hot_thresh = cfg->hot_thresh;
	enum gups_op op = cfg->op;
	uint64_t i, acc = 0, writes = 0;
	unsigned int w;

	for (i = 0; i < n; i++) {
		uint64_t r1 = splitmix64(rng), r2 = splitmix64(rng);
		const struct gups_pick *pk = r1 < hot_thresh ?
			&sel->hot : &sel->cold;
		uint64_t *obj = buf + pick(pk, r2, nt) * words;
		bool read = op == GUPS_READ ||
			(op == GUPS_MIX && splitmix64(rng) < cfg->read_thresh);

		if (read) {
			for (w = 0; w < words; w++)
				acc += obj[w];
		} else {
			for (w = 0; w < words; w++)
				obj[w]++;
			writes++;
		}
	}
	*rmw += writes;
	*sink += acc;
}

void *gups_run_main(void *arg)
{
	struct gups_thread *th = arg;
	struct gups_cfg *cfg = th->cfg;
	unsigned int words = cfg->obj_words;
	uint64_t n = BATCH_BYTES / (words * 8);
	uint64_t rng = cfg->seed ^ (0xd1b54a32d192ed03ULL * (th->id + 1));
	uint64_t updates = 0, rmw = 0, sink = 0;

	pin(th);
	if (th->err)
		return NULL;
	splitmix64(&rng);
	while (!atomic_load_explicit(&cfg->stop, memory_order_relaxed)) {
		int ph = atomic_load_explicit(&cfg->phase, memory_order_relaxed);
		const struct gups_sel *sel = &th->sel[ph];

		if (words == 8)
			batch(cfg, sel, &rng, 8, n, &rmw, &sink);
		else
			batch(cfg, sel, &rng, words, n, &rmw, &sink);
		updates += n;
		atomic_store_explicit(&th->ctr->updates, updates,
				      memory_order_relaxed);
		atomic_store_explicit(&th->ctr->rmw, rmw, memory_order_relaxed);
	}
	th->sink = sink;
	return NULL;
}
