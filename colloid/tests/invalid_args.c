// SPDX-License-Identifier: MIT
/* Invalid arguments give -EINVAL (unknown names -ENOENT) and change nothing. */
#include "helpers.h"

int main(void)
{
	struct colloid_ctx *c = NULL, *c2 = (struct colloid_ctx *)0x1;
	struct colloid_config cfg;
	struct colloid_params p;
	struct colloid_state st;
	struct colloid_move m[4];
	struct colloid_ops ops = { .name = "none" };
	size_t n = 99;
	double v;

	/* parameters */
	CHECK(colloid_params_default(NULL, NULL) == -EINVAL);
	CHECK(colloid_params_default(&p, "nosuch") == -ENOENT);
	CHECK(colloid_params_default(&p, "hemem") == 0);
	CHECK(colloid_param_set(&p, "delta", -1) == -EINVAL);
	CHECK(colloid_param_set(&p, "delta", NAN) == -EINVAL);
	CHECK(colloid_param_set(&p, "epsilon", 0) == -EINVAL);
	CHECK(colloid_param_set(&p, "ewma_alpha", 1.5) == -EINVAL);
	CHECK(colloid_param_set(&p, "dp_mode", 2) == -EINVAL);
	CHECK(colloid_param_set(&p, "nosuch", 1) == -ENOENT);
	CHECK(colloid_param_set(NULL, "delta", 0.1) == -EINVAL);
	CHECK(colloid_param_set(&p, NULL, 0.1) == -EINVAL);
	CHECK(colloid_param_get(&p, "delta", NULL) == -EINVAL);
	CHECK(colloid_param_get(&p, "nosuch", &v) == -ENOENT);
	CHECK(colloid_param_get(&p, "delta", &v) == 0 && v == 0.05);

	/* contexts */
	CHECK(colloid_new(NULL, &c) == -EINVAL);
	memset(&cfg, 0, sizeof(cfg));
	CHECK(colloid_new(&cfg, &c) == -EINVAL);	/* no policy */
	cfg.policy = "hemem";
	cfg.ntiers = 2;
	cfg.tiers[0].capacity_bytes = 1 << 20;
	cfg.tiers[0].unloaded_latency_ns = 80;
	cfg.tiers[1].capacity_bytes = 1 << 22;
	cfg.tiers[1].unloaded_latency_ns = 150;
	cfg.npages = 100;
	cfg.page_size = 4096;
	CHECK(colloid_new(&cfg, NULL) == -EINVAL);
	cfg.policy = "lru";
	CHECK(colloid_new(&cfg, &c2) == -ENOENT && c2 == NULL);
	cfg.policy = "hemem";
	cfg.ntiers = 1;
	CHECK(colloid_new(&cfg, &c) == -EINVAL);
	cfg.ntiers = COLLOID_MAX_TIERS + 1;
	CHECK(colloid_new(&cfg, &c) == -EINVAL);
	cfg.ntiers = 2;
	cfg.page_size = 5000;
	CHECK(colloid_new(&cfg, &c) == -EINVAL);
	cfg.page_size = 2048;
	CHECK(colloid_new(&cfg, &c) == -EINVAL);
	cfg.page_size = 4096;
	cfg.npages = 0;
	CHECK(colloid_new(&cfg, &c) == -EINVAL);
	cfg.npages = 100;
	cfg.colloid = 2;
	CHECK(colloid_new(&cfg, &c) == -EINVAL);
	cfg.colloid = 1;
	cfg.init_tier = 2;
	CHECK(colloid_new(&cfg, &c) == -EINVAL);
	cfg.init_tier = 1;
	cfg.tiers[1].unloaded_latency_ns = 0;
	CHECK(colloid_new(&cfg, &c) == -EINVAL);
	cfg.tiers[1].unloaded_latency_ns = 150;
	p.delta = -3;	/* bad params struct */
	cfg.params = &p;
	CHECK(colloid_new(&cfg, &c) == -EINVAL);
	cfg.params = NULL;
	CHECK(c == NULL);
	CHECK(colloid_new(&cfg, &c) == 0 && c);

	/* inputs */
	CHECK(colloid_sample(NULL, 0, 0, 1) == -EINVAL);
	CHECK(colloid_sample(c, 100, 0, 1) == -EINVAL);
	CHECK(colloid_sample(c, 0, 2, 1) == -EINVAL);
	CHECK(colloid_sample(c, 0, 0, 0) == -EINVAL);
	CHECK(colloid_hint_fault(c, 100, 0, 0) == -EINVAL);
	CHECK(colloid_hint_fault(NULL, 0, 0, 0) == -EINVAL);
	CHECK(colloid_observe_cha(c, 2, 1, 1, 1000) == -EINVAL);
	CHECK(colloid_observe_cha(c, 0, -1, 1, 1000) == -EINVAL);
	CHECK(colloid_observe_cha(c, 0, 1, NAN, 1000) == -EINVAL);
	CHECK(colloid_observe_cha(c, 0, 1, 1, 0) == -EINVAL);
	CHECK(colloid_observe_ns(c, 0, INFINITY, 1, 1000) == -EINVAL);
	CHECK(colloid_observe_ns(c, 0, 100, -1, 1000) == -EINVAL);
	CHECK(colloid_page_set_tier(c, 100, 0) == -EINVAL);
	CHECK(colloid_page_set_tier(c, 0, 2) == -EINVAL);
	CHECK(colloid_page_tier(c, 100) == -EINVAL);
	CHECK(colloid_page_tier(NULL, 0) == -EINVAL);
	CHECK(colloid_tier_set_capacity(c, 2, 0) == -EINVAL);
	CHECK(colloid_tier_set_free(c, 2, 0) == -EINVAL);
	CHECK(colloid_ctx_param_set(c, "nosuch", 1) == -ENOENT);
	CHECK(colloid_ctx_param_set(c, "tpp_wmark_demote", 0.001) == -EINVAL); /* < promo */
	CHECK(colloid_ctx_param_set(NULL, "delta", 0.1) == -EINVAL);
	CHECK(colloid_ctx_params(c, NULL) == -EINVAL);
	CHECK(isnan(colloid_page_prob(c, 100)));

	/* decisions */
	CHECK(colloid_tick(c, 0, 0, m, 4, &n) == -EINVAL);
	CHECK(colloid_tick(c, 0, T_MS, NULL, 4, &n) == -EINVAL);
	CHECK(colloid_tick(c, 0, T_MS, m, 4, NULL) == -EINVAL);
	CHECK(colloid_tick(NULL, 0, T_MS, m, 4, &n) == -EINVAL);
	CHECK(colloid_tick(c, 0, T_MS, NULL, 0, &n) == 0 && n == 0);
	CHECK(colloid_step(c, NULL, NULL, 0, T_MS, m, 4, &n) == -EINVAL);
	CHECK(colloid_step(c, &ops, NULL, 0, 0, m, 4, &n) == -EINVAL);
	CHECK(colloid_get_state(c, NULL) == -EINVAL);
	CHECK(colloid_get_state(NULL, &st) == -EINVAL);

	/* nothing changed: every page still in tier 1 */
	CHECK(colloid_get_state(c, &st) == 0);
	CHECK(st.pages[1] == 100 && st.pages[0] == 0 && st.samples_total == 0);
	colloid_destroy(c);
	colloid_destroy(NULL);
	return T_PASS;
err:
	colloid_destroy(c);
	return T_FAIL;
}
