// SPDX-License-Identifier: MIT
/*
 * colloid-example - a minimal mechanism written against colloid.h alone.
 *
 * A toy two-tier "machine": 64 pages of 2 MiB, a fast tier that holds 16 of
 * them, 8 hot pages that start in the slow tier.  Its ops table feeds
 * access samples and latencies (the fast tier gets overloaded halfway) and
 * "migrates" by updating its own page map.  Prints every plan as CSV:
 * quantum,page,from,to  (then the policy state per quantum on stderr).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colloid.h"

#define NPAGES 64
#define NHOT 8
#define PAGE (2ull << 20)
#define QUANTUM_NS 10000000ull

struct toy {
	unsigned char tier[NPAGES];
	unsigned int quantum, quanta;
};

/* Share of accesses the fast tier serves, from the toy's own page map. */
static double fast_share(const struct toy *t)
{
	double fast = 0;

	for (int i = 0; i < NPAGES; i++)
		if (t->tier[i] == 0)
			fast += i < NHOT ? 0.9 / NHOT : 0.1 / (NPAGES - NHOT);
	return fast;
}

static int toy_observe(void *priv, struct colloid_ctx *ctx, uint64_t now, uint64_t q)
{
	struct toy *t = priv;
	double p = fast_share(t), load = t->quantum >= t->quanta / 2 ? 400 : 0;
	int ret;

	(void)now;
	/* hot pages: 10 samples a quantum each, cold ones one every few quanta */
	for (uint64_t i = 0; i < NPAGES; i++) {
		uint32_t w = i < NHOT ? 10 : (t->quantum + i) % 8 == 0;

		if (w && (ret = colloid_sample(ctx, i, i % 3 == 0, w)))
			return ret;
	}
	/* latency rises with the load each tier serves; an antagonist joins later */
	ret = colloid_observe_ns(ctx, 0, 80 + 100 * p + load * p, 1e7 * p, q);
	if (!ret)
		ret = colloid_observe_ns(ctx, 1, 140 + 60 * (1 - p), 1e7 * (1 - p), q);
	return ret;
}

static int toy_migrate(void *priv, const struct colloid_move *m, size_t n, size_t *done)
{
	struct toy *t = priv;

	for (size_t k = 0; k < n; k++) {
		t->tier[m[k].page] = m[k].to;
		printf("%u,%" PRIu64 ",%u,%u\n", t->quantum, m[k].page, m[k].from, m[k].to);
	}
	*done = n;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: colloid-example [--policy NAME] [--colloid 0|1] [--quanta N]\n"
		"Drive a libcolloid policy on a toy 2-tier machine and print its plans.\n"
		"  --policy NAME  hemem, tpp or memtis (default hemem)\n"
		"  --colloid 0|1  Colloid balancing off/on (default 1)\n"
		"  --quanta N     10 ms quanta to run, 1..100000 (default 40); the fast tier\n"
		"                 gets an antagonist at the halfway point\n"
		"  --help         this text\n"
		"Output: CSV quantum,page,from,to on stdout; state per quantum on stderr.\n");
}

int main(int argc, char **argv)
{
	static const struct colloid_ops ops = {
		.name = "toy", .observe = toy_observe, .migrate = toy_migrate,
	};
	struct colloid_config cfg;
	struct colloid_move plan[NPAGES];
	struct colloid_ctx *ctx = NULL;
	struct colloid_state st;
	struct toy toy;
	const char *policy = "hemem";
	int colloid = 1, ret;
	long quanta = 40;

	for (int a = 1; a < argc; a++) {
		char *end;

		if (!strcmp(argv[a], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[a], "--policy") && a + 1 < argc) {
			policy = argv[++a];
		} else if (!strcmp(argv[a], "--colloid") && a + 1 < argc) {
			a++;
			if (strcmp(argv[a], "0") && strcmp(argv[a], "1")) {
				fprintf(stderr, "colloid-example: error: --colloid must be 0 or 1\n");
				return 2;
			}
			colloid = argv[a][0] == '1';
		} else if (!strcmp(argv[a], "--quanta") && a + 1 < argc) {
			quanta = strtol(argv[++a], &end, 10);
			if (*end || quanta < 1 || quanta > 100000) {
				fprintf(stderr, "colloid-example: error: --quanta must be 1..100000\n");
				return 2;
			}
		} else {
			fprintf(stderr, "colloid-example: error: unknown or incomplete option '%s'\n",
				argv[a]);
			return 2;
		}
	}

	memset(&cfg, 0, sizeof(cfg));
	cfg.policy = policy;
	cfg.colloid = colloid;
	cfg.ntiers = 2;
	cfg.tiers[0].capacity_bytes = 16 * PAGE;	/* fast: 16 pages */
	cfg.tiers[0].unloaded_latency_ns = 80;
	cfg.tiers[1].capacity_bytes = NPAGES * PAGE;
	cfg.tiers[1].unloaded_latency_ns = 140;
	cfg.npages = NPAGES;
	cfg.page_size = PAGE;
	cfg.init_tier = 1;
	ret = colloid_new(&cfg, &ctx);
	if (ret == -ENOENT) {
		fprintf(stderr, "colloid-example: error: unknown policy '%s'\n", policy);
		return 2;
	}
	if (ret) {
		fprintf(stderr, "colloid-example: colloid_new: %s\n", strerror(-ret));
		return 1;
	}
	/* the toy has no scanner: TPP sees samples only, so give it faults too */
	memset(&toy, 1, sizeof(toy.tier));
	toy.quanta = (unsigned int)quanta;

	printf("quantum,page,from,to\n");
	for (toy.quantum = 0; toy.quantum < toy.quanta; toy.quantum++) {
		uint64_t now = (toy.quantum + 1) * QUANTUM_NS;

		for (uint64_t i = 0; i < NHOT; i++)
			colloid_hint_fault(ctx, i, QUANTUM_NS, now);
		ret = colloid_step(ctx, &ops, &toy, now, QUANTUM_NS, plan, NPAGES, NULL);
		if (ret) {
			fprintf(stderr, "colloid-example: colloid_step: %s\n", strerror(-ret));
			colloid_destroy(ctx);
			return 1;
		}
		colloid_get_state(ctx, &st);
		fprintf(stderr, "q %3u p %.3f [%.3f,%.3f] L_D %.0f L_A %.0f moves %" PRIu64
			" fast %" PRIu64 "/16 hot-in-fast %" PRIu64 "\n",
			toy.quantum, st.p, st.p_lo, st.p_hi, st.lat[0], st.lat[1],
			st.last_plan_moves, st.pages[0], st.hot_pages[0]);
	}
	colloid_destroy(ctx);
	return 0;
}
