/* SPDX-License-Identifier: MIT */
/* sim.h - tiersim run configuration and entry point (internal). */
#ifndef TIERSIM_SIM_H
#define TIERSIM_SIM_H

#include <signal.h>
#include <stdint.h>

#include "mech.h"
#include "tiersim.h"

#define SIM_MAX_EVENTS 32
#define SIM_MAX_PARAMS MECH_MAX_PARAMS

enum sim_workload { WL_GUPS = 0, WL_ZIPF };

struct sim_event {
	double t_s;
	char name[32];	/* "hotset_move" or "intensity" */
	double value;
	int done;
};

struct sim_cfg {
	/* the libcolloid policy that models the system (its monitor's
	 * constants come from colloid_policy_info()); NULL = static placement */
	const char *policy;
	int colloid;
	int dp_mode;		/* -1: library default, else enum colloid_dp_mode */
	char tier_spec[2][1024];
	double capacity[2];	/* bytes; <0: default */

	/* workload */
	enum sim_workload workload;
	double working_set, hot_set, hot_share, object_bytes;
	double zipf_theta;
	int rmw;

	/* host model */
	double app_cores, antag_per_unit, intensity;
	double app_mlp, app_stream_mlp, app_think_ns;
	double antag_mlp, antag_think_ns;

	double static_hot_fraction;
	int start_alternate;	/* a policy's working set starts in the alternate tier (--start-tier) */
	uint64_t region_size;
	double duration_s, average_last_s;
	double freeze_at_s;	/* > 0: no policy ticks (no migration) from this time on */
	uint64_t quantum_ns;	/* 0: the policy's own period */
	struct sim_event ev[SIM_MAX_EVENTS];
	int nev;
	struct mech_param par[SIM_MAX_PARAMS];	/* --param, parsed */
	int npar;
	uint64_t seed;

	/* observation models */
	double cha_poll_us, cha_noise, cha_share, pebs_max_rate;
	double ref_rate;	/* a hint-fault system: accessed-bit references per second */

	const char *timeseries, *summary;
	int timing;
};

extern volatile sig_atomic_t sim_stop_signal;

/* Runs the simulation.  Returns 0; 2 on a bad argument found before the run
 * (an unwritable output, a bad curve, tiers that cannot hold the working
 * set); 1 on a runtime failure (one line on stderr); or 128+signal when
 * stopped by a signal.  Outputs appear at their paths only on success. */
int sim_run(const struct sim_cfg *cfg, const char *prog);

/* What sim_run() checks before it starts, without running or opening the
 * outputs: 0, or 2 after one error line (1: out of memory). */
int sim_check(const struct sim_cfg *cfg, const char *prog);

#endif /* TIERSIM_SIM_H */
