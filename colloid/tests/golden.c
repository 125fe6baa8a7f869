// SPDX-License-Identifier: MIT
/*
 * golden - plans and state are unchanged by internal rewrites.
 *
 * Drives every policy (HeMem, TPP, MEMTIS), Colloid off and on, for 2 MiB
 * regions, 4 KiB pages and a three-tier 4 KiB case, through a few hundred
 * quanta of seeded synthetic inputs: skewed samples (reads and writes,
 * weights 1..4 and rare large ones), hint faults, latency observations that
 * turn the default tier overloaded and back, a hot-set move, a huge weight,
 * reported free space, a capacity cut, a live parameter change, failed moves
 * and placement changes in the middle of a sample stream.  Every plan, every
 * state snapshot (also taken between samples), page probabilities and page
 * tiers are hashed (FNV-1a 64).  The hashes are compared with the ones
 * recorded below.
 *
 * A change to the library that is meant to change decisions must update
 * the table: run `golden --print` and paste its output over golden_expected.
 * Floating-point results are those of IEEE-754 doubles without contraction
 * (the Makefile builds with -std=c11, which turns contraction off), so the
 * hashes are the same on every such build; on an architecture where they
 * differ, this test is the place to look first.
 *
 * Usage: golden            compare with the table (exit 0 pass, 1 fail)
 *        golden --print    print the table
 */
#include "helpers.h"

#define NQ 300

struct gcase {
	const char *policy;
	int colloid;
	uint64_t npages, page_size;
	unsigned int ntiers;
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static uint64_t hash_u64(uint64_t h, uint64_t v)
{
	return fnv(h, &v, sizeof(v));
}

static uint64_t hash_dbl(uint64_t h, double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	return hash_u64(h, u);
}

static uint64_t hash_state(uint64_t h, const struct colloid_ctx *c)
{
	struct colloid_state st;

	if (colloid_get_state(c, &st))
		return hash_u64(h, 0xbad);
	h = hash_u64(h, st.default_tier);
	h = hash_dbl(h, st.p);
	h = hash_dbl(h, st.p_lo);
	h = hash_dbl(h, st.p_hi);
	h = hash_dbl(h, st.delta_p);
	h = hash_u64(h, (uint64_t)(int64_t)st.direction);
	for (unsigned int t = 0; t < st.ntiers; t++) {
		h = hash_dbl(h, st.lat[t]);
		h = hash_dbl(h, st.rate[t]);
		h = hash_u64(h, st.pages[t]);
		h = hash_u64(h, st.hot_pages[t]);
		h = hash_u64(h, st.used_bytes[t]);
		h = hash_u64(h, st.free_bytes[t]);
	}
	h = hash_dbl(h, st.last_budget_bytes);
	h = hash_u64(h, st.last_plan_moves);
	h = hash_u64(h, st.last_plan_bytes);
	h = hash_dbl(h, st.hot_threshold);
	h = hash_dbl(h, st.total_weight);
	h = hash_u64(h, st.quanta);
	h = hash_u64(h, st.moves_total);
	h = hash_u64(h, st.samples_total);
	h = hash_u64(h, st.faults_total);
	return h;
}

/* A page of a skewed distribution: 85 % from a hot set of npages/5 whose
 * position moves at quantum NQ/2, the rest uniform. */
static uint64_t pick(uint64_t *seed, uint64_t np, int q)
{
	uint64_t r = t_rand(seed), hot = np / 5, off = q < NQ / 2 ? 0 : np / 2;

	if (r % 100 < 85) {
		/* within the hot set, a further skew: a quarter of it gets half */
		uint64_t k = (r >> 8) % 2 ? (r >> 9) % (hot / 4 + 1) : (r >> 9) % hot;

		return (off + k) % np;
	}
	return (r >> 8) % np;
}

static int run_case(const struct gcase *gc, uint64_t *plan_hash, uint64_t *state_hash,
		    uint64_t *moves)
{
	struct colloid_config cfg;
	struct colloid_params prm;
	struct colloid_ctx *c = NULL;
	struct colloid_move *plan = NULL;
	unsigned char *where = NULL;
	uint64_t seed = 0x9e3779b97f4a7c15ull ^ (gc->npages * 31 + gc->ntiers * 7 +
						 (uint64_t)gc->colloid * 3 + gc->policy[0]);
	uint64_t np = gc->npages, now = 0, hp = 0xcbf29ce484222325ull, hs = hp;
	size_t cap = gc->page_size >= (2u << 20) ? 96 : 3000, n;
	unsigned int fast = gc->ntiers == 3 ? 2 : 0, slow = gc->ntiers == 3 ? 0 : 1;
	int ret = -1;

	colloid_params_default(&prm, gc->policy);
	/* make cooling and MEMTIS's adaptation happen inside sample streams */
	colloid_param_set(&prm, "memtis_cooling_samples", 40000);
	colloid_param_set(&prm, "memtis_adapt_samples", 7000);
	colloid_param_set(&prm, "tpp_threshold_adjust_ms", 500);
	colloid_param_set(&prm, "tpp_promote_rate_limit_MBps",
			  gc->page_size >= (2u << 20) ? 4096 : 256);
	memset(&cfg, 0, sizeof(cfg));
	cfg.policy = gc->policy;
	cfg.colloid = gc->colloid;
	cfg.ntiers = gc->ntiers;
	/* fast tier: a quarter of the pages (the hot set is a fifth, it moves) */
	cfg.tiers[fast].capacity_bytes = np / 4 * gc->page_size;
	cfg.tiers[fast].unloaded_latency_ns = 80;
	cfg.tiers[slow].capacity_bytes = np * gc->page_size;
	cfg.tiers[slow].unloaded_latency_ns = 140;
	if (gc->ntiers == 3) {
		cfg.tiers[1].capacity_bytes = np / 3 * gc->page_size;
		cfg.tiers[1].unloaded_latency_ns = 110;
	}
	cfg.npages = np;
	cfg.page_size = gc->page_size;
	cfg.init_tier = slow;
	cfg.params = &prm;
	if (colloid_new(&cfg, &c))
		goto out;
	plan = malloc(cap * sizeof(*plan));
	where = malloc(np);
	if (!plan || !where)
		goto out;
	memset(where, (int)slow, np);
	/* the fast tier starts with a sixth of the pages, picked at random */
	for (uint64_t k = 0; k < np / 6; k++) {
		uint64_t i = t_rand(&seed) % np;

		where[i] = (unsigned char)fast;
		if (colloid_page_set_tier(c, i, fast))
			goto out;
	}

	for (int q = 0; q < NQ; q++) {
		uint64_t qns = (q % 7 == 3 ? 5 : 10) * T_MS;
		uint64_t ns = 500 + t_rand(&seed) % 3000, nf = 100 + t_rand(&seed) % 300;
		int overloaded = (q / 20) % 2;

		now += qns;
		for (uint64_t s = 0; s < ns + nf; s++) {
			uint64_t r = t_rand(&seed), i = pick(&seed, np, q);

			if (r % (ns + nf) < nf) {
				/* hint fault, up to 2 s after the scan */
				if (colloid_hint_fault(c, i, (r >> 20) % (2000 * T_MS),
						       now - qns + s))
					goto out;
			} else {
				uint32_t w = (r >> 8) % 50 == 0 ? 1 : 1 + (uint32_t)((r >> 16) & 3);

				if ((r >> 24) % 20000 == 0)
					w = 100000;
				/* one weight too large for any packing: saturates counts */
				if (q == 250 && s == 1)
					w = 0x80000001u;
				if (colloid_sample(c, i, (r >> 32) % 10 < 3, w))
					goto out;
			}
			/* the mechanism finds a page elsewhere, mid-stream */
			if ((r >> 40) % 1500 == 0) {
				uint64_t j = pick(&seed, np, q);
				unsigned int t = (unsigned int)((r >> 50) % gc->ntiers);

				where[j] = (unsigned char)t;
				if (colloid_page_set_tier(c, j, t))
					goto out;
			}
			/* observability mid-stream */
			if ((r >> 44) % 997 == 0) {
				double pp = colloid_page_prob(c, i);

				hs = hash_state(hs, c);
				hs = hash_dbl(hs, pp);
			}
		}
		/* latency: several observations per quantum */
		for (int k = 0; k < 4; k++) {
			double ld = (overloaded ? 260 : 85) + 30 * t_unif(&seed);
			double la = 150 + 40 * t_unif(&seed);
			double s = (double)qns * 1e-9 / 4;

			if (colloid_observe_ns(c, fast, ld, (2e8 + 8e8 * t_unif(&seed)) * s,
					       qns / 4) ||
			    colloid_observe_ns(c, slow, la, (1e8 + 4e8 * t_unif(&seed)) * s,
					       qns / 4))
				goto out;
			if (gc->ntiers == 3 &&
			    colloid_observe_ns(c, 1, 120 + 30 * t_unif(&seed),
					       (5e7 + 1e8 * t_unif(&seed)) * s, qns / 4))
				goto out;
		}
		if (q % 50 == 25 &&
		    colloid_tier_set_free(c, fast, (np / 200 + t_rand(&seed) % (np / 50 + 1)) *
							   gc->page_size))
			goto out;
		if (q == 200 && colloid_tier_set_capacity(c, fast, np / 5 * gc->page_size))
			goto out;
		if (q == 120 && colloid_ctx_param_set(c, "delta", 0.1))
			goto out;
		if (q == 160 && colloid_ctx_param_set(c, "tpp_hot_threshold_ms", 400))
			goto out;
		if (colloid_tick(c, now, qns, plan, q % 11 == 5 ? cap / 8 : cap, &n))
			goto out;
		hp = hash_u64(hp, n);
		for (size_t k = 0; k < n; k++) {
			hp = hash_u64(hp, plan[k].page);
			hp = hash_u64(hp, plan[k].from);
			hp = hash_u64(hp, plan[k].to);
			/* every 13th move fails: the page stays where it is */
			if ((plan[k].page + (uint64_t)q) % 13 == 0) {
				if (colloid_page_set_tier(c, plan[k].page, where[plan[k].page]))
					goto out;
			} else {
				where[plan[k].page] = plan[k].to;
			}
		}
		hs = hash_state(hs, c);
		for (int k = 0; k < 8; k++) {
			uint64_t i = t_rand(&seed) % np;

			hs = hash_dbl(hs, colloid_page_prob(c, i));
			hs = hash_u64(hs, (uint64_t)colloid_page_tier(c, i));
		}
	}
	/* final placement of every page */
	for (uint64_t i = 0; i < np; i++) {
		int t = colloid_page_tier(c, i);

		if (t < 0 || (unsigned int)t != where[i])
			goto out;
		hs = hash_u64(hs, (uint64_t)t);
	}
	{
		struct colloid_state st;

		if (colloid_get_state(c, &st))
			goto out;
		*moves = st.moves_total;
	}
	*plan_hash = hp;
	*state_hash = hs;
	ret = 0;
out:
	free(where);
	free(plan);
	colloid_destroy(c);
	return ret;
}

struct golden {
	const char *name;
	uint64_t plan, state;
};

/* Recorded from the library before the deferred-maintenance rewrite. */
static const struct golden golden_expected[] = {
#include "golden_expected.h"
};

int main(int argc, char **argv)
{
	static const struct {
		uint64_t npages, page_size;
		unsigned int ntiers;
		const char *tag;
	} shapes[] = {
		{ 3000, 2ull << 20, 2, "2MiB" },
		{ 40000, 4096, 2, "4KiB" },
		{ 30000, 4096, 3, "4KiBx3" },
	};
	int print = argc > 1 && !strcmp(argv[1], "--print");
	size_t k = 0, nexp = sizeof(golden_expected) / sizeof(golden_expected[0]);
	int bad = 0;

	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		for (int p = 0; p < T_NPOLICIES; p++) {
			for (int col = 0; col <= 1; col++, k++) {
				struct gcase gc = { t_policies[p], col, shapes[s].npages,
						    shapes[s].page_size, shapes[s].ntiers };
				uint64_t hp, hs, moves;
				char name[64];

				snprintf(name, sizeof(name), "%s/%s/colloid=%d", shapes[s].tag,
					 t_policies[p], col);
				if (run_case(&gc, &hp, &hs, &moves)) {
					fprintf(stderr, "%s: run failed\n", name);
					return T_FAIL;
				}
				if (print) {
					printf("\t{ \"%s\", 0x%016" PRIx64 "ull, 0x%016" PRIx64
					       "ull }, /* %" PRIu64 " moves */\n", name, hp, hs, moves);
					continue;
				}
				if (k >= nexp || strcmp(golden_expected[k].name, name) ||
				    golden_expected[k].plan != hp || golden_expected[k].state != hs) {
					fprintf(stderr, "%s: plan %016" PRIx64 " state %016" PRIx64
						" differ from the recorded hashes\n", name, hp, hs);
					bad = 1;
				} else {
					fprintf(stderr, "%s: ok\n", name);
				}
			}
		}
	}
	return bad ? T_FAIL : T_PASS;
}
