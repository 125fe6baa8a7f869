// SPDX-License-Identifier: MIT
/*
 * Latency smoothing: occupancy and arrivals are smoothed separately with
 * weight ewma_alpha (1/32 by default, as the released colloid-mon does) and
 * L = occupancy / arrivals.  Parameters: published defaults, by-name access,
 * the name table, live changes; default tier = lowest unloaded latency.
 */
#include "helpers.h"

static int param_is(const struct colloid_params *p, const char *name, double want)
{
	double v = -1;

	return colloid_param_get(p, name, &v) == 0 && v == want;
}

int main(void)
{
	struct colloid_ctx *c = NULL;
	struct colloid_config cfg;
	struct colloid_params p;
	struct colloid_state st;
	const char *name, *desc;
	double v, occ, arr;
	unsigned int i;

	CHECK(colloid_params_default(&p, NULL) == 0);
	CHECK(p.delta == 0.05 && p.epsilon == 0.01 && p.ewma_alpha == 1.0 / 32);
	CHECK(param_is(&p, "hemem_read_hot", 8) && param_is(&p, "hemem_write_hot", 4) &&
	      param_is(&p, "hemem_cool_threshold", 18));
	CHECK(param_is(&p, "hemem_sample_period", 5003) && param_is(&p, "hemem_quantum_ms", 10));
	CHECK(p.migrate_limit_Bps == 10e9);
	CHECK(param_is(&p, "tpp_scan_size_bytes", 256.0 * 1024 * 1024) &&
	      param_is(&p, "tpp_hot_threshold_ms", 1000));
	CHECK(param_is(&p, "memtis_quantum_ms", 500) && param_is(&p, "tpp_sample_period", 5003));
	/* each policy's constants are its own: setting one leaves the others */
	CHECK(colloid_param_set(&p, "tpp_quantum_ms", 20) == 0 && param_is(&p, "tpp_quantum_ms", 20));
	CHECK(param_is(&p, "hemem_quantum_ms", 10) && param_is(&p, "memtis_quantum_ms", 500));
	CHECK(colloid_param_set(&p, "tpp_quantum_ms", 10) == 0);
	CHECK(colloid_param_set(&p, "nosuch_constant", 1) == -ENOENT);
	CHECK(colloid_param_set(&p, "hemem_read_hot", 0) == -EINVAL);
	/* every named parameter round-trips */
	for (i = 0; (name = colloid_param_name(i, &desc)); i++) {
		CHECK(desc && *desc);
		CHECK(colloid_param_get(&p, name, &v) == 0);
		CHECK(colloid_param_set(&p, name, v) == 0);
	}
	CHECK(i >= 25);
	CHECK(colloid_param_set(&p, "delta", 0.1) == 0 && p.delta == 0.1);
	/* the registered policies, in name order, then NULL */
	for (i = 1; colloid_policy_name(i); i++)
		CHECK(strcmp(colloid_policy_name(i - 1), colloid_policy_name(i)) < 0);
	CHECK(i >= 3 && colloid_policy_name(i) == NULL);

	/* tier 1 is the fastest: it becomes the default tier */
	memset(&cfg, 0, sizeof(cfg));
	cfg.policy = "memtis";
	cfg.colloid = 1;
	cfg.ntiers = 3;
	cfg.tiers[0].capacity_bytes = cfg.tiers[1].capacity_bytes = cfg.tiers[2].capacity_bytes = 1 << 24;
	cfg.tiers[0].unloaded_latency_ns = 140;
	cfg.tiers[1].unloaded_latency_ns = 80;
	cfg.tiers[2].unloaded_latency_ns = 300;
	cfg.npages = 16;
	cfg.page_size = 4096;
	CHECK(colloid_new(&cfg, &c) == 0);
	CHECK(colloid_get_state(c, &st) == 0 && st.default_tier == 1 && st.ntiers == 3);
	CHECK(!strcmp(colloid_ctx_policy(c), "memtis"));
	/* before observations: the unloaded latency */
	CHECK(st.lat[0] == 140 && st.lat[1] == 80);

	/* first observation is taken as is, later ones smoothed with 1/32 */
	CHECK(colloid_observe_cha(c, 1, 1000, 10, 1000000) == 0);
	CHECK(colloid_get_state(c, &st) == 0 && fabs(st.lat[1] - 100) < 1e-9);
	CHECK(fabs(st.rate[1] - 10 / 1e-3) < 1e-6);
	occ = 1000;
	arr = 10;
	for (int k = 0; k < 50; k++) {
		CHECK(colloid_observe_cha(c, 1, 4000, 20, 1000000) == 0);
		occ = occ + (4000 - occ) / 32;
		arr = arr + (20 - arr) / 32;
	}
	CHECK(colloid_get_state(c, &st) == 0);
	CHECKF(fabs(st.lat[1] - occ / arr) < 1e-9, "lat %g expected %g", st.lat[1], occ / arr);
	CHECK(st.lat[1] > 100 && st.lat[1] < 200);
	/* ns form: same as occupancy = latency * accesses */
	CHECK(colloid_observe_ns(c, 0, 200, 50, 1000000) == 0);
	CHECK(colloid_get_state(c, &st) == 0 && fabs(st.lat[0] - 200) < 1e-9);
	/* live parameter change */
	CHECK(colloid_ctx_param_set(c, "ewma_alpha", 1) == 0);
	CHECK(colloid_observe_ns(c, 0, 300, 50, 1000000) == 0);
	CHECK(colloid_get_state(c, &st) == 0 && fabs(st.lat[0] - 300) < 1e-9);
	CHECK(colloid_ctx_params(c, &p) == 0 && p.ewma_alpha == 1);
	colloid_destroy(c);
	return T_PASS;
err:
	colloid_destroy(c);
	return T_FAIL;
}
