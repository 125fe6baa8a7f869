// SPDX-License-Identifier: MIT
/*
 * A mechanism written against struct colloid_ops: colloid_step() calls
 * observe, ticks, calls migrate, and puts back pages whose move failed.
 */
#include "helpers.h"

#define NP 100

struct mech {
	int observed, migrated;
	size_t fail_after;	/* moves that succeed per call */
	unsigned char where[NP];
};

static int observe(void *priv, struct colloid_ctx *c, uint64_t now, uint64_t q)
{
	struct mech *m = priv;

	m->observed++;
	for (uint64_t i = 0; i < 30; i++)
		for (int r = 0; r < 10; r++)
			if (colloid_sample(c, i, 1, 1))
				return -EIO;
	(void)now;
	(void)q;
	return 0;
}

static int migrate(void *priv, const struct colloid_move *mv, size_t n, size_t *done)
{
	struct mech *m = priv;
	size_t k;

	m->migrated++;
	for (k = 0; k < n && k < m->fail_after; k++)
		m->where[mv[k].page] = mv[k].to;
	*done = k;
	return 0;
}

static int fail_observe(void *priv, struct colloid_ctx *c, uint64_t now, uint64_t q)
{
	(void)priv;
	(void)c;
	(void)now;
	(void)q;
	return -EIO;
}

int main(void)
{
	static struct mech m;
	struct colloid_ops ops = { .name = "test", .observe = observe, .migrate = migrate };
	struct colloid_ops bad = { .name = "bad", .observe = fail_observe, .migrate = migrate };
	struct colloid_ctx *c = NULL;
	struct colloid_move buf[64];
	size_t applied;

	memset(m.where, 1, sizeof(m.where));
	m.fail_after = 5;
	CHECK(t_ctx(&c, "memtis", 0, NP, 50, NP, 1, NULL) == 0);
	CHECK(colloid_step(c, &ops, &m, 10 * T_MS, 10 * T_MS, buf, 64, &applied) == 0);
	CHECK(m.observed == 1 && m.migrated == 1);
	CHECKF(applied == 5, "applied %zu", applied);
	for (uint64_t i = 0; i < NP; i++)
		CHECKF(colloid_page_tier(c, i) == m.where[i], "page %" PRIu64 " map differs", i);
	m.fail_after = 1000;
	CHECK(colloid_step(c, &ops, &m, 20 * T_MS, 10 * T_MS, buf, 64, &applied) == 0);
	CHECK(applied == 25);
	for (uint64_t i = 0; i < NP; i++)
		CHECK(colloid_page_tier(c, i) == m.where[i]);
	CHECK(colloid_step(c, &bad, &m, 30 * T_MS, 10 * T_MS, buf, 64, &applied) == -EIO);
	colloid_destroy(c);
	return T_PASS;
err:
	colloid_destroy(c);
	return T_FAIL;
}
