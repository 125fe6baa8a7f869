// SPDX-License-Identifier: MIT
/*
 * The policy registry tells a mechanism each policy's quantum, sampling
 * periods and inputs from its constants (defaults and changed ones, before
 * and after colloid_new()), and the constants of the system's own monitor
 * (scanner, CHA polling, EWMA, arrival share, rate bound, monitor cores);
 * colloid_config_check() answers what colloid_new() would, allocating
 * nothing.  A policy's constants are its own (tpp_sample_period, not
 * HeMem's), and a live change of one reaches the policy's private state.
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
	struct colloid_state st;

	/* published defaults, by policy */
	CHECK(colloid_policy_info("hemem", NULL, &in) == 0);
	CHECK(info_is(&in, 10 * T_MS, 5003, 5003, 1, 0));
	CHECK(colloid_policy_info("tpp", NULL, &in) == 0);
	CHECK(info_is(&in, 10 * T_MS, 5003, 5003, 0, 1));
	CHECK(colloid_policy_info("memtis", NULL, &in) == 0);
	CHECK(info_is(&in, 500 * T_MS, 199, 100007, 1, 0));

	/* the systems' own monitors */
	CHECK(colloid_policy_info("hemem", NULL, &in) == 0);
	CHECK(in.cha_poll_ns == 0 && in.cha_ewma_alpha == 1.0 / 16 && in.cha_share == 18.0 / 32);
	CHECK(!in.sample_rate_bounded && in.colloid_monitor_cores == 0 && in.scan_size_bytes == 0);
	CHECK(colloid_policy_info("tpp", NULL, &in) == 0);
	CHECK(in.cha_poll_ns == 200e3 && in.cha_ewma_alpha == 1.0 / 32 && in.cha_share == 1);
	CHECK(in.colloid_monitor_cores == 1 && in.scan_size_bytes == 256.0 * 1024 * 1024 &&
	      in.scan_period_ms == 1000);
	CHECK(colloid_policy_info("memtis", NULL, &in) == 0);
	CHECK(in.sample_rate_bounded && in.cha_poll_ns == 200e3 && in.colloid_monitor_cores == 0);

	/* TPP's sampling period is its own constant */
	CHECK(colloid_params_default(&p, "tpp") == 0);
	CHECK(colloid_param_set(&p, "hemem_sample_period", 100) == 0);
	CHECK(colloid_param_set(&p, "tpp_scan_period_ms", 500) == 0);
	CHECK(colloid_policy_info("tpp", &p, &in) == 0);
	CHECK(in.load_period == 5003 && in.scan_period_ms == 500);
	CHECK(colloid_param_set(&p, "tpp_sample_period", 997) == 0);
	CHECK(colloid_policy_info("tpp", &p, &in) == 0 && in.load_period == 997);
	/* ... and a rule between its constants is checked */
	CHECK(colloid_param_set(&p, "tpp_wmark_demote", 0.001) == 0);
	CHECK(colloid_policy_info("tpp", &p, &in) == -EINVAL);

	/* a live change reaches the policy's private state (TPP's threshold) */
	CHECK(t_ctx(&c, "tpp", 0, 64, 32, 64, 1, NULL) == 0);
	CHECK(colloid_ctx_param_set(c, "tpp_hot_threshold_ms", 250) == 0);
	CHECK(colloid_get_state(c, &st) == 0 && st.hot_threshold == 250);
	colloid_destroy(c);
	c = NULL;

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
