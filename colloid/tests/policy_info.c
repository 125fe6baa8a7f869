// SPDX-License-Identifier: MIT
/*
 * The policy registry tells a mechanism each policy's quantum, sampling
 * periods and inputs from its constants (defaults and changed ones, before
 * and after colloid_new()), and colloid_config_check() answers what
 * colloid_new() would, allocating nothing.
 */
#include "helpers.h"

static int info_is(const struct colloid_policy_info *in, uint64_t q, double lp, double sp,
		   int samples, int faults)
{
	return in->quantum_ns == q && in->load_period == lp && in->store_period == sp &&
	       in->samples == samples && in->hint_faults == faults;
}

int main(void)
{
	struct colloid_policy_info in;
	struct colloid_params p;
	struct colloid_config cfg;
	struct colloid_ctx *c = NULL;

	/* published defaults, by policy */
	CHECK(colloid_policy_info("hemem", NULL, &in) == 0);
	CHECK(info_is(&in, 10 * T_MS, 5003, 5003, 1, 0));
	CHECK(colloid_policy_info("tpp", NULL, &in) == 0);
	CHECK(info_is(&in, 10 * T_MS, 5003, 5003, 0, 1));
	CHECK(colloid_policy_info("memtis", NULL, &in) == 0);
	CHECK(info_is(&in, 500 * T_MS, 199, 100007, 1, 0));

	/* changed constants are what the answer follows */
	CHECK(colloid_params_default(&p, "memtis") == 0);
	CHECK(colloid_param_set(&p, "memtis_quantum_ms", 250) == 0);
	CHECK(colloid_param_set(&p, "memtis_load_period", 1000) == 0);
	CHECK(colloid_param_set(&p, "hemem_quantum_ms", 0.5) == 0);
	CHECK(colloid_policy_info("memtis", &p, &in) == 0);
	CHECK(info_is(&in, 250 * T_MS, 1000, 100007, 1, 0));
	CHECK(colloid_policy_info("hemem", &p, &in) == 0);
	CHECKF(in.quantum_ns == 500000, "hemem quantum %" PRIu64 " ns", in.quantum_ns);

	/* the live constants of a context */
	CHECK(t_ctx(&c, "memtis", 1, 64, 32, 64, 1, &p) == 0);
	CHECK(colloid_ctx_policy_info(c, &in) == 0);
	CHECK(info_is(&in, 250 * T_MS, 1000, 100007, 1, 0));
	CHECK(colloid_ctx_param_set(c, "memtis_quantum_ms", 100) == 0);
	CHECK(colloid_ctx_policy_info(c, &in) == 0 && in.quantum_ns == 100 * T_MS);
	colloid_destroy(c);
	c = NULL;

	/* bad arguments */
	CHECK(colloid_policy_info("linux", NULL, &in) == -ENOENT);
	CHECK(colloid_policy_info(NULL, NULL, &in) == -ENOENT);
	CHECK(colloid_policy_info("tpp", NULL, NULL) == -EINVAL);
	p.delta = -1;
	CHECK(colloid_policy_info("tpp", &p, &in) == -EINVAL);
	CHECK(colloid_ctx_policy_info(NULL, &in) == -EINVAL);

	/* colloid_config_check() answers as colloid_new() does */
	memset(&cfg, 0, sizeof(cfg));
	cfg.policy = "hemem";
	cfg.ntiers = 2;
	cfg.tiers[0].capacity_bytes = 16 * T_PAGE;
	cfg.tiers[0].unloaded_latency_ns = T_LAT_FAST;
	cfg.tiers[1].capacity_bytes = 64 * T_PAGE;
	cfg.tiers[1].unloaded_latency_ns = T_LAT_SLOW;
	cfg.npages = 64;
	cfg.page_size = T_PAGE;
	CHECK(colloid_config_check(&cfg) == 0);
	CHECK(colloid_new(&cfg, &c) == 0);
	colloid_destroy(c);
	c = NULL;
	cfg.page_size = 3 * T_PAGE;
	CHECK(colloid_config_check(&cfg) == -EINVAL && colloid_new(&cfg, &c) == -EINVAL && !c);
	cfg.page_size = T_PAGE;
	cfg.tiers[1].unloaded_latency_ns = 0;
	CHECK(colloid_config_check(&cfg) == -EINVAL && colloid_new(&cfg, &c) == -EINVAL && !c);
	cfg.tiers[1].unloaded_latency_ns = T_LAT_SLOW;
	cfg.params = &p;
	CHECK(colloid_config_check(&cfg) == -EINVAL && colloid_new(&cfg, &c) == -EINVAL && !c);
	cfg.params = NULL;
	cfg.policy = "linux";
	CHECK(colloid_config_check(&cfg) == -ENOENT && colloid_new(&cfg, &c) == -ENOENT && !c);
	CHECK(colloid_config_check(NULL) == -EINVAL);
	return T_PASS;
err:
	colloid_destroy(c);
	return T_FAIL;
}
