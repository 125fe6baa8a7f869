// SPDX-License-Identifier: MIT
/*
 * main.c - tiersim command line: parse and validate everything before any
 * work, then run.  See --help and docs/tier-model.md.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "colloid.h"
#include "mech.h"
#include "sim.h"
#include "tbcli.h"

#define MAX_INTENSITY 10.0

const char cli_prog[] = "tiersim";
static const char *const prog = cli_prog;

/* Calibrated model constants (docs/tier-model.md, "Calibration"). */
#define DEF_APP_MLP 4.0
#define DEF_APP_STREAM_MLP 14.0
#define DEF_APP_THINK_NS 10.0
#define DEF_ANTAG_MLP 17.0
#define DEF_ANTAG_THINK_NS 20.0

static void usage(FILE *f)
{
	fprintf(f,
"usage: %s --system POLICY|static --tier default:CURVE[:capacity=GiB]\n"
"               --tier alternate:CURVE[:capacity=GiB] [options] [--check]\n"
"       %s --check-curve CURVE\n"
"\n"
"tiersim: deterministic closed-loop simulator of two memory tiers driving\n"
"libcolloid's policies (docs/tier-model.md).  Output is long-form CSV\n"
"t_s,metric,value,unit.\n"
"\n"
"system:\n"
"  --system NAME             a libcolloid policy (%s) or static\n"
"  --colloid on|off          Colloid balancing on top of the policy (default off)\n"
"  --delta-p binary|closed   Colloid's delta-p rule (default: libcolloid's, binary)\n"
"  --param NAME=VALUE        set a libcolloid parameter (repeatable; see colloid.h)\n"
"  --static-hot-fraction F   system=static: share of the hot set kept in the default\n"
"                            tier; cold regions fill the rest of it (default 1)\n"
"  --start-tier default|alternate  a policy: where the working set starts: default =\n"
"                            first touch in address order, filling the default tier\n"
"                            first; alternate = all of it in the alternate tier (a\n"
"                            program bound there at start), which must hold it\n"
"                            (default default)\n"
"tiers:\n"
"  --tier ROLE:CURVE[:capacity=GiB]  ROLE is default or alternate; CURVE is a CSV\n"
"                            file (read_ratio,bandwidth_mbps,latency_ns), a Mess-style\n"
"                            directory of bwlat_<readpct>.txt, or\n"
"                            param:L0=NS,a=NS,k=EXP,bsat=MBPS (hosts/curves/README.md).\n"
"                            Capacity defaults: default = working set / 3,\n"
"                            alternate = working set\n"
"workload:\n"
"  --workload gups|zipf      gups: a hot set sharing --hot-share of the accesses\n"
"                            uniformly, the rest uniform; zipf: regions in a\n"
"                            seeded random ranking, rank k gets ~k^-theta\n"
"                            (default gups)\n"
"  --working-set SIZE        bytes, suffix K/M/G/T (binary) (default 72G)\n"
"  --hot-set SIZE            bytes (default 20G); zipf: the top-ranked regions\n"
"                            reported as hot and placed first by static\n"
"  --hot-share F             gups: share of accesses to the hot set, 0..1\n"
"                            (default 0.9)\n"
"  --zipf-theta T            zipf: skew exponent, 0..10 (default 0.99, YCSB's)\n"
"  --object-size BYTES       bytes per access, 64..1048576 (default 64)\n"
"  --op rmw|read             read-modify-write or read-only (default rmw)\n"
"host model (defaults: the paper testbed calibration):\n"
"  --app-cores N             application cores (default 15)\n"
"  --antagonist-cores-per-unit N  antagonist cores per 1x intensity (default 5)\n"
"  --intensity X             antagonist intensity, 0..%g, float (default 0)\n"
"  --app-mlp N               random-access lines in flight per app core (default %g)\n"
"  --app-stream-mlp N        most lines in flight per app core (prefetch) (default %g)\n"
"  --app-think-ns NS         app think time per request at 64 B (default %g)\n"
"  --antagonist-mlp N        lines in flight per antagonist core (default %g)\n"
"  --antagonist-think-ns NS  antagonist think time per line (default %g)\n"
"simulation:\n"
"  --region-size SIZE        region (page) size, 4K..1G power of two (default 2M)\n"
"  --duration S              simulated seconds, integer (default 100)\n"
"  --quantum-ms Q            quantum in ms, must divide 1000 (default: the\n"
"                            policy's period (colloid_policy_info()), static 10)\n"
"  --average-last S          seconds averaged in the summary (default 30)\n"
"  --freeze-at S             from S s on the policy no longer runs: placement is\n"
"                            frozen, no migration (the cost of steady-state\n"
"                            migrations is then a same-seed comparison)\n"
"  --event hotset_move@T     move the hot set at T s (repeatable)\n"
"  --event intensity@T=X     set the antagonist intensity to X at T s\n"
"  --seed N                  random seed (default 1)\n"
"observation models:\n"
"  --cha-poll-us US          CHA monitor poll interval (default: the system's own\n"
"                            monitor, colloid_policy_info(): its poll interval, or\n"
"                            once per policy quantum)\n"
"  --cha-noise S             lognormal sigma of one poll's latency (default 0.05)\n"
"  --cha-share F             share of the application's reads the monitor's\n"
"                            arrival counts report, 0..1 (default: the system's\n"
"                            monitor, colloid_policy_info(); else 1)\n"
"  --pebs-max-rate N         a system whose sampler bounds its rate\n"
"                            (colloid_policy_info(): sample_rate_bounded): most\n"
"                            sample calls per second (its sampler raises its\n"
"                            period) (default 100000)\n"
"  --ref-rate N              a system fed by hint faults (colloid_policy_info():\n"
"                            hint_faults): accessed-bit references reported per\n"
"                            second, drawn from the true access probabilities;\n"
"                            they order its LRU (reclaim demotes the tail); 0 =\n"
"                            none (default 100000)\n"
"output:\n"
"  --timeseries FILE         per-second metrics (- = stdout)\n"
"  --summary FILE            averages of the last --average-last s, convergence_time_s\n"
"                            (runs with events) and policy_cpu_share (default stdout)\n"
"                            Files are written as FILE.tmp.PID and renamed into place\n"
"                            when the run completes: a failed or stopped run leaves none\n"
"  --no-timing               omit policy_cpu_share (the only non-deterministic value)\n"
"checks (nothing runs, no file is written):\n"
"  --check                   with the arguments of a run: check everything the run\n"
"                            would check before it starts (options, curves, tier\n"
"                            order, workload, capacities, freeze-at, events,\n"
"                            quantum; not the output paths) and print 'ok'\n"
"  --check-curve CURVE       load one curve as a run would and print\n"
"                            read_ratio,unloaded_latency_ns, one row per read ratio\n"
"                            (ascending); the unloaded latency is the first point\n"
"                            the loader keeps.  No other option is taken\n"
"  -h, --help                this text\n"
"\n"
"metrics: throughput (Mops/s), latency_default, latency_alternate (ns), p (share\n"
"of app accesses served by the default tier), hot_in_alternate (GiB),\n"
"migration_rate, antagonist_bandwidth, bandwidth_default, bandwidth_alternate\n"
"(MB/s), intensity (x), default_bandwidth_utilization,\n"
"alternate_bandwidth_utilization (fraction of the tier's wall bandwidth at its\n"
"read ratio), default_beyond_curve, alternate_beyond_curve (share of the time\n"
"the tier's demand was past its curve's last point: latency extrapolated from the\n"
"closed-loop wall, not read from the curve).\n"
"exit: 0 done, 1 runtime failure, 2 bad arguments, 130/143 interrupted.\n",
		prog, prog, mech_policy_names(), MAX_INTENSITY, DEF_APP_MLP, DEF_APP_STREAM_MLP, DEF_APP_THINK_NS,
		DEF_ANTAG_MLP, DEF_ANTAG_THINK_NS);
}

/*
 * The tier option ending @curve: ":NAME=VALUE" with NAME a word and no '/'
 * in VALUE, not the "param:" prefix of a parametric curve.  NULL: none.
 */
static char *tier_option(char *curve)
{
	char *colon = strrchr(curve, ':'), *p;

	if (!colon || (colon - curve == 5 && !strncmp(curve, "param", 5)))
		return NULL;
	p = colon + 1;
	if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
		return NULL;
	p += strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");
	if (*p != '=' || strchr(p, '/'))
		return NULL;
	return colon;
}

static void parse_tier(struct sim_cfg *c, const char *arg, int seen[2])
{
	const char *colon = strchr(arg, ':');
	char curve[1024], *opt;
	size_t len;
	int role;

	if (!colon)
		cli_bad_arg("--tier needs ROLE:CURVE, got '%s'", arg);
	if (!strncmp(arg, "default:", 8))
		role = 0;
	else if (!strncmp(arg, "alternate:", 10))
		role = 1;
	else
		cli_bad_arg("--tier role must be default or alternate: '%s'", arg);
	if (seen[role])
		cli_bad_arg("--tier %s given twice", role ? "alternate" : "default");
	seen[role] = 1;
	len = strlen(colon + 1);
	if (len >= sizeof(curve))
		cli_bad_arg("--tier curve too long: '%s'", arg);
	strcpy(curve, colon + 1);
	c->capacity[role] = -1;
	while ((opt = tier_option(curve))) {
		double gib;

		if (strncmp(opt, ":capacity=", 10)) {
			char msg[1200];

			snprintf(msg, sizeof(msg), "unknown tier option '%.*s' in '%s' (only capacity=GiB is accepted)",
				 (int)strcspn(opt + 1, "="), opt + 1, arg);
			cli_bad_arg("%s", msg);
		}
		if (c->capacity[role] >= 0)
			cli_bad_arg("--tier capacity given twice: '%s'", arg);
		gib = cli_number("capacity", opt + 10, -INFINITY, INFINITY, 0);
		if (!(gib > 0))
			cli_bad_arg("capacity must be > 0 GiB: '%s'", arg);
		c->capacity[role] = gib * 1073741824.0;
		*opt = '\0';
	}
	if (!curve[0])
		cli_bad_arg("--tier has an empty curve: '%s'", arg);
	strcpy(c->tier_spec[role], curve);
}

static void parse_event(struct sim_cfg *c, const char *arg)
{
	const char *at = strchr(arg, '@');
	struct sim_event *e;
	char tbuf[64];
	const char *eq;

	if (c->nev >= SIM_MAX_EVENTS)
		cli_bad_arg("too many --event options (max %s)", "32");
	if (!at)
		cli_bad_arg("--event needs NAME@T[=VALUE], got '%s'", arg);
	e = &c->ev[c->nev];
	memset(e, 0, sizeof(*e));
	if ((size_t)(at - arg) >= sizeof(e->name))
		cli_bad_arg("bad event name in '%s'", arg);
	memcpy(e->name, arg, (size_t)(at - arg));
	eq = strchr(at, '=');
	if (strlen(at + 1) >= sizeof(tbuf))
		cli_bad_arg("bad event time in '%s'", arg);
	strcpy(tbuf, at + 1);
	if (eq)
		tbuf[eq - at - 1] = '\0';
	e->t_s = cli_number("event time", tbuf, -INFINITY, INFINITY, 0);
	if (e->t_s < 0)
		cli_bad_arg("event time must be >= 0: '%s'", arg);
	if (!strcmp(e->name, "hotset_move")) {
		if (eq)
			cli_bad_arg("hotset_move takes no value: '%s'", arg);
	} else if (!strcmp(e->name, "intensity")) {
		if (!eq)
			cli_bad_arg("intensity event needs =VALUE: '%s'", arg);
		e->value = cli_number("event intensity", eq + 1, -INFINITY, INFINITY, 0);
		if (e->value < 0 || e->value > MAX_INTENSITY)
			cli_bad_arg("event intensity out of range 0..10: '%s'", arg);
	} else {
		cli_bad_arg("unknown event '%s' (hotset_move, intensity)", e->name);
	}
	c->nev++;
}

static void parse_param(struct sim_cfg *c, const char *arg)
{
	struct mech_param *p = &c->par[c->npar];

	if (c->npar >= SIM_MAX_PARAMS)
		cli_bad_arg("too many --param options (max %d)", SIM_MAX_PARAMS);
	switch (mech_param_parse(arg, p)) {
	case 0:
		break;
	case -ENOENT:
		cli_bad_arg("unknown libcolloid parameter '%s'", p->name);
	case -ERANGE:
		cli_bad_arg("libcolloid parameter out of range: '%s'", arg);
	default:
		cli_bad_arg("--param needs NAME=VALUE, got '%s'", arg);
	}
	c->npar++;
}

static void on_signal(int sig)
{
	sim_stop_signal = sig;
}

enum {
	O_SYSTEM = 256, O_COLLOID, O_DELTAP, O_TIER, O_WORKLOAD, O_WS, O_HOT, O_SHARE, O_THETA,
	O_OBJ, O_OP, O_APPC, O_ANTU, O_INT, O_SHF, O_REGION, O_DUR, O_QUANT, O_AVG, O_FREEZE,
	O_EVENT, O_PARAM, O_SEED, O_TS, O_SUM, O_NOTIME, O_AMLP, O_ASMLP, O_ATHINK,
	O_BMLP, O_BTHINK, O_CHAPOLL, O_CHANOISE, O_CHASHARE, O_PEBSMAX, O_REFRATE, O_CHECK,
	O_CHECKCURVE, O_START,
};

/* --check-curve: the curve as a run loads it, one row per read ratio */
static int check_curve(const char *spec)
{
	struct curve_set cs;
	char err[512];
	int i;

	if (curve_load(&cs, spec, err, sizeof(err)))
		cli_bad_arg("%s", err);
	if (cs.noise)
		fprintf(stderr, "%s: %s: %zu point(s) with a negative bandwidth dropped as noise\n",
			prog, spec, cs.noise);
	printf("read_ratio,unloaded_latency_ns\n");
	for (i = 0; i < cs.n; i++)
		printf("%.6g,%.6g\n", cs.c[i].read_ratio, curve1_unloaded(&cs.c[i]));
	curve_free(&cs);
	if (fflush(stdout)) {
		fprintf(stderr, "%s: error: cannot write to stdout\n", prog);
		return 1;
	}
	return 0;
}

/* options that set one number of the configuration, in a range */
static const struct num_opt {
	int id;
	const char *name;
	size_t off;
	double lo, hi;
	unsigned int flags;	/* CLI_OPEN_LO, CLI_INT */
} num_opts[] = {
	{ O_SHARE, "--hot-share", offsetof(struct sim_cfg, hot_share), 0, 1, 0 },
	{ O_THETA, "--zipf-theta", offsetof(struct sim_cfg, zipf_theta), 0, 10, 0 },
	{ O_APPC, "--app-cores", offsetof(struct sim_cfg, app_cores), 1, 4096, 0 },
	{ O_ANTU, "--antagonist-cores-per-unit", offsetof(struct sim_cfg, antag_per_unit), 0, 4096, 0 },
	{ O_INT, "--intensity", offsetof(struct sim_cfg, intensity), 0, MAX_INTENSITY, 0 },
	{ O_SHF, "--static-hot-fraction", offsetof(struct sim_cfg, static_hot_fraction), 0, 1, 0 },
	{ O_DUR, "--duration", offsetof(struct sim_cfg, duration_s), 1, 1e6, CLI_INT },
	{ O_FREEZE, "--freeze-at", offsetof(struct sim_cfg, freeze_at_s), 0, INFINITY, CLI_OPEN_LO },
	{ O_AVG, "--average-last", offsetof(struct sim_cfg, average_last_s), 1, INFINITY, CLI_INT },
	{ O_AMLP, "--app-mlp", offsetof(struct sim_cfg, app_mlp), 0, 1024, CLI_OPEN_LO },
	{ O_ASMLP, "--app-stream-mlp", offsetof(struct sim_cfg, app_stream_mlp), 0, 1024, CLI_OPEN_LO },
	{ O_ATHINK, "--app-think-ns", offsetof(struct sim_cfg, app_think_ns), 0, 1e9, 0 },
	{ O_BMLP, "--antagonist-mlp", offsetof(struct sim_cfg, antag_mlp), 0, 1024, 0 },
	{ O_BTHINK, "--antagonist-think-ns", offsetof(struct sim_cfg, antag_think_ns), 0, 1e9, 0 },
	{ O_CHAPOLL, "--cha-poll-us", offsetof(struct sim_cfg, cha_poll_us), 1, 1e6, 0 },
	{ O_CHASHARE, "--cha-share", offsetof(struct sim_cfg, cha_share), 0, 1, CLI_OPEN_LO },
	{ O_CHANOISE, "--cha-noise", offsetof(struct sim_cfg, cha_noise), 0, 2, 0 },
	{ O_PEBSMAX, "--pebs-max-rate", offsetof(struct sim_cfg, pebs_max_rate), 1, INFINITY, 0 },
	{ O_REFRATE, "--ref-rate", offsetof(struct sim_cfg, ref_rate), 0, 1e9, 0 },
};

/* sets the number of option @id from optarg; 0 if @id is not one of them */
static int num_opt(struct sim_cfg *c, int id)
{
	for (size_t i = 0; i < sizeof(num_opts) / sizeof(num_opts[0]); i++) {
		const struct num_opt *n = &num_opts[i];

		if (n->id == id) {
			*(double *)((char *)c + n->off) =
				cli_number(n->name, optarg, n->lo, n->hi, n->flags);
			return 1;
		}
	}
	return 0;
}

/* option @opt's value @v as one of two words: 0 for @a, 1 for @b; else exit 2 saying both */
static int either(const char *opt, const char *v, const char *a, const char *b)
{
	if (!strcmp(v, a))
		return 0;
	if (!strcmp(v, b))
		return 1;
	cli_bad_arg("%s must be %s or %s, got '%s'", opt, a, b, v);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "system", required_argument, NULL, O_SYSTEM },
		{ "colloid", required_argument, NULL, O_COLLOID },
		{ "delta-p", required_argument, NULL, O_DELTAP },
		{ "tier", required_argument, NULL, O_TIER },
		{ "workload", required_argument, NULL, O_WORKLOAD },
		{ "working-set", required_argument, NULL, O_WS },
		{ "hot-set", required_argument, NULL, O_HOT },
		{ "hot-share", required_argument, NULL, O_SHARE },
		{ "zipf-theta", required_argument, NULL, O_THETA },
		{ "object-size", required_argument, NULL, O_OBJ },
		{ "op", required_argument, NULL, O_OP },
		{ "app-cores", required_argument, NULL, O_APPC },
		{ "antagonist-cores-per-unit", required_argument, NULL, O_ANTU },
		{ "intensity", required_argument, NULL, O_INT },
		{ "static-hot-fraction", required_argument, NULL, O_SHF },
		{ "start-tier", required_argument, NULL, O_START },
		{ "region-size", required_argument, NULL, O_REGION },
		{ "duration", required_argument, NULL, O_DUR },
		{ "quantum-ms", required_argument, NULL, O_QUANT },
		{ "average-last", required_argument, NULL, O_AVG },
		{ "freeze-at", required_argument, NULL, O_FREEZE },
		{ "event", required_argument, NULL, O_EVENT },
		{ "param", required_argument, NULL, O_PARAM },
		{ "seed", required_argument, NULL, O_SEED },
		{ "timeseries", required_argument, NULL, O_TS },
		{ "summary", required_argument, NULL, O_SUM },
		{ "no-timing", no_argument, NULL, O_NOTIME },
		{ "app-mlp", required_argument, NULL, O_AMLP },
		{ "app-stream-mlp", required_argument, NULL, O_ASMLP },
		{ "app-think-ns", required_argument, NULL, O_ATHINK },
		{ "antagonist-mlp", required_argument, NULL, O_BMLP },
		{ "antagonist-think-ns", required_argument, NULL, O_BTHINK },
		{ "cha-poll-us", required_argument, NULL, O_CHAPOLL },
		{ "cha-noise", required_argument, NULL, O_CHANOISE },
		{ "cha-share", required_argument, NULL, O_CHASHARE },
		{ "pebs-max-rate", required_argument, NULL, O_PEBSMAX },
		{ "ref-rate", required_argument, NULL, O_REFRATE },
		{ "check", no_argument, NULL, O_CHECK },
		{ "check-curve", required_argument, NULL, O_CHECKCURVE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct sim_cfg c;
	int seen_tier[2] = { 0, 0 }, have_system = 0, have_share = 0, have_theta = 0, o, ret;
	int check = 0, nopts = 0;
	const char *curve_spec = NULL;
	double v;
	struct sigaction sa;

	opterr = 0;	/* one error line, ours (the default case below) */
	memset(&c, 0, sizeof(c));
	c.colloid = 0;
	c.dp_mode = -1;
	c.capacity[0] = c.capacity[1] = -1;
	c.working_set = 72.0 * 1073741824.0;
	c.hot_set = 20.0 * 1073741824.0;
	c.hot_share = 0.9;
	c.workload = WL_GUPS;
	c.zipf_theta = 0.99;
	c.object_bytes = 64;
	c.rmw = 1;
	c.app_cores = 15;
	c.antag_per_unit = 5;
	c.intensity = 0;
	c.app_mlp = DEF_APP_MLP;
	c.app_stream_mlp = DEF_APP_STREAM_MLP;
	c.app_think_ns = DEF_APP_THINK_NS;
	c.antag_mlp = DEF_ANTAG_MLP;
	c.antag_think_ns = DEF_ANTAG_THINK_NS;
	c.static_hot_fraction = 1.0;
	c.region_size = 2u << 20;
	c.duration_s = 100;
	c.average_last_s = 30;
	c.seed = 1;
	c.cha_poll_us = 0;	/* the system's own monitor (sim.c) */
	c.cha_noise = 0.05;
	c.cha_share = -1;	/* the system's own monitor (sim.c) */
	c.pebs_max_rate = 100000;
	c.ref_rate = 100000;
	c.timing = 1;

	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		nopts += o != O_CHECKCURVE;
		switch (o) {
		case 'h':
			usage(stdout);
			return 0;
		case O_SYSTEM:
			have_system = 1;
			/* a libcolloid policy by name, or static placement */
			if (!strcmp(optarg, "static"))
				c.policy = NULL;
			else if (colloid_policy_info(optarg, NULL, &(struct colloid_policy_info){ 0 }))
				cli_bad_arg("unknown system '%s' (a libcolloid policy: %s; or static)",
					    optarg, mech_policy_names());
			else
				c.policy = optarg;
			break;
		case O_COLLOID:
			c.colloid = !either("--colloid", optarg, "on", "off");
			break;
		case O_DELTAP:
			c.dp_mode = either("--delta-p", optarg, "binary", "closed") ? COLLOID_DP_CLOSED
										   : COLLOID_DP_BINARY;
			break;
		case O_TIER:
			parse_tier(&c, optarg, seen_tier);
			break;
		case O_WORKLOAD:
			if (!strcmp(optarg, "gups"))
				c.workload = WL_GUPS;
			else if (!strcmp(optarg, "zipf"))
				c.workload = WL_ZIPF;
			else
				cli_bad_arg("unknown workload '%s' (gups, zipf)", optarg);
			break;
		case O_WS:
			c.working_set = (double)cli_size("--working-set", optarg);
			break;
		case O_HOT:
			c.hot_set = (double)cli_size("--hot-set", optarg);
			break;
		case O_SHARE:
			num_opt(&c, o);
			have_share = 1;
			break;
		case O_THETA:
			num_opt(&c, o);
			have_theta = 1;
			break;
		case O_OBJ:
			c.object_bytes = (double)cli_size("--object-size", optarg);
			if (c.object_bytes < 64 || c.object_bytes > 1048576)
				cli_bad_arg("--object-size must be 64..1048576 bytes, got '%s'", optarg);
			break;
		case O_START:
			c.start_alternate = either("--start-tier", optarg, "default", "alternate");
			break;
		case O_OP:
			c.rmw = !either("--op", optarg, "rmw", "read");
			break;
		case O_REGION:
			v = (double)cli_size("--region-size", optarg);
			if (v < 4096 || v > 1073741824.0 || v != floor(v) ||
			    ((uint64_t)v & ((uint64_t)v - 1)))
				cli_bad_arg("--region-size must be a power of two in 4K..1G, got '%s'",
					optarg);
			c.region_size = (uint64_t)v;
			break;
		case O_QUANT:
			v = cli_number("--quantum-ms", optarg, 0, 1000, CLI_OPEN_LO);
			c.quantum_ns = (uint64_t)llround(v * 1e6);
			if (!c.quantum_ns || 1000000000ULL % c.quantum_ns)
				cli_bad_arg("--quantum-ms must divide 1000, got '%s'", optarg);
			break;
		case O_EVENT:
			parse_event(&c, optarg);
			break;
		case O_PARAM:
			parse_param(&c, optarg);
			break;
		case O_SEED:
			v = cli_number("--seed", optarg, 0, 9007199254740992.0, CLI_INT);
			c.seed = (uint64_t)v;
			break;
		case O_TS:
			c.timeseries = optarg;
			break;
		case O_SUM:
			c.summary = optarg;
			break;
		case O_NOTIME:
			c.timing = 0;
			break;
		case O_CHECK:
			check = 1;
			break;
		case O_CHECKCURVE:
			if (curve_spec)
				cli_bad_arg("%s", "--check-curve given twice");
			curve_spec = optarg;
			break;
		default:
			if (!num_opt(&c, o))
				cli_bad_option(o, argv);
		}
	}
	if (optind < argc)
		cli_bad_arg("unexpected argument '%s'", argv[optind]);
	if (curve_spec) {
		if (nopts)
			cli_bad_arg("%s", "--check-curve takes no other option");
		return check_curve(curve_spec);
	}
	if (!have_system)
		cli_bad_arg("%s", "--system is required");
	if (!seen_tier[0] || !seen_tier[1])
		cli_bad_arg("%s", "--tier default:CURVE and --tier alternate:CURVE are required");
	if (c.working_set < (double)c.region_size)
		cli_bad_arg("%s", "--working-set is smaller than one region");
	if (c.hot_set > c.working_set)
		cli_bad_arg("%s", "--hot-set is larger than --working-set");
	if (c.workload == WL_ZIPF && have_share)
		cli_bad_arg("%s", "--hot-share is for --workload gups; zipf's skew is --zipf-theta");
	if (c.workload == WL_GUPS && have_theta)
		cli_bad_arg("%s", "--zipf-theta needs --workload zipf");
	if (c.start_alternate && !c.policy)
		cli_bad_arg("%s", "--start-tier alternate needs a policy (system=static places with --static-hot-fraction)");
	if (c.average_last_s > c.duration_s)
		cli_bad_arg("%s", "--average-last is longer than --duration");
	if (c.freeze_at_s >= c.duration_s)
		cli_bad_arg("%s", "--freeze-at is not before the end of the run (--duration)");
	if (c.working_set / (double)c.region_size > 2e8)
		cli_bad_arg("%s", "too many regions (working set / region size > 2e8)");
	for (o = 0; o < c.nev; o++) {
		if (c.ev[o].t_s >= c.duration_s)
			cli_bad_arg("event '%s' is not before the end of the run", c.ev[o].name);
		if (!strcmp(c.ev[o].name, "hotset_move") && c.hot_set * 2 > c.working_set)
			cli_bad_arg("%s", "hotset_move needs a hot set at most half the working set");
	}
	if (check) {
		ret = sim_check(&c, prog);
		if (!ret)
			printf("ok\n");
		return ret;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	ret = sim_run(&c, prog);
	return ret;
}
