// SPDX-License-Identifier: MIT
/*
 * Each baseline alone (Colloid off) promotes the hottest pages until the
 * fast tier is full, and then stops; cold pages are never promoted.
 *   - HeMem, MEMTIS: 40 hot pages and 24 warm ones
 *     (a tenth of the rate) compete for a fast tier of 40 pages; the first, size-limited plan
 *     takes the hottest pages first.
 *   - TPP: hot set (60) smaller than the fast tier (100) less its
 *     watermark; faults arrive within the hot threshold.
 */
#include "helpers.h"

#define NP 400

static int run(const char *pol)
{
	struct colloid_ctx *c = NULL;
	struct colloid_state st;
	struct colloid_move m[NP];
	static double prob[NP];
	int tpp = !strcmp(pol, "tpp");
	uint64_t cap_fast = tpp ? 100 : 40, nhot = tpp ? 60 : 40, now = 0;
	uint64_t late_moves = 0;
	size_t n;

	CHECK(t_ctx(&c, pol, 0, NP, cap_fast, NP, 1, NULL) == 0);
	for (int q = 0; q < 60; q++) {
		now += 10 * T_MS;
		/* hot pages: equal rate, 2/3 stores, round robin (no sampling noise,
		 * which makes HeMem's hot/cold classes flicker); warm pages (next
		 * 24): a tenth of the rate */
		for (int r = 0; r < 40; r++) {
			for (uint64_t i = 0; i < nhot + 24; i++) {
				if (i >= nhot && (r + (int)i) % 10)
					continue;
				colloid_sample(c, i, r % 3 != 0, 1);
				if (r % 10 == 0)
					colloid_hint_fault(c, i, i < nhot ? 50 * T_MS : 3000 * T_MS, now);
			}
		}
		/* cold pages are touched rarely, and never within the hot threshold */
		for (uint64_t i = nhot; i < NP; i += 37)
			colloid_hint_fault(c, i, 5000 * T_MS, now);
		if (q == 0) {
			for (uint64_t i = 0; i < NP; i++)
				prob[i] = colloid_page_prob(c, i);
			/* first plan limited to 8 moves: must be among the hottest */
			CHECK(colloid_tick(c, now, 10 * T_MS, m, 8, &n) == 0);
			CHECK(n == 8);
			if (!tpp) {
				for (size_t k = 0; k < n; k++) {
					int hotter = 0;

					for (uint64_t i = 0; i < NP; i++)
						hotter += prob[i] > prob[m[k].page] * 1.25;
					CHECKF(hotter < 8, "%s: page %" PRIu64 " is not among the hottest",
					       pol, m[k].page);
				}
			}
		} else {
			CHECK(colloid_tick(c, now, 10 * T_MS, m, NP, &n) == 0);
		}
		for (size_t k = 0; k < n; k++) {
			/* warm pages may look hot for a while; cold ones never */
			CHECKF(m[k].to != 0 || m[k].page < nhot + 24, "%s promoted cold page %" PRIu64,
			       pol, m[k].page);
			if (q >= 40) {
				late_moves++;
				fprintf(stderr, "q %d: page %" PRIu64 " %u -> %u\n", q, m[k].page,
					m[k].from, m[k].to);
			}
		}
		CHECK(colloid_get_state(c, &st) == 0);
		CHECK(st.pages[0] <= cap_fast);
	}
	CHECK(colloid_get_state(c, &st) == 0);
	printf("%s: fast tier %" PRIu64 "/%" PRIu64 " pages, %" PRIu64 " hot there, moves %" PRIu64
	       ", after q40 %" PRIu64 "\n", pol, st.pages[0], cap_fast, st.hot_pages[0],
	       st.moves_total, late_moves);
	if (tpp) {
		CHECKF(st.pages[0] == nhot, "%s: %" PRIu64 " pages in fast tier", pol, st.pages[0]);
	} else {
		CHECKF(st.pages[0] == cap_fast, "%s: fast tier not full", pol);
	}
	for (uint64_t i = 0; i < NP; i++)
		if (colloid_page_tier(c, i) == 0)
			CHECK(i < nhot);
	CHECKF(late_moves == 0, "%s kept moving (%" PRIu64 " moves after quantum 40)", pol,
	       late_moves);
	colloid_destroy(c);
	return 0;
err:
	colloid_destroy(c);
	return -1;
}

int main(void)
{
	for (int k = 0; k < T_NPOLICIES; k++)
		CHECK(run(t_policies[k]) == 0);
	return T_PASS;
err:
	return T_FAIL;
}
