// SPDX-License-Identifier: MIT
/*
 * tierd - libcolloid's mechanism on real NUMA tiers.
 *
 * Attaches to a running process by pid, cuts its large anonymous mappings
 * into regions (libcolloid "pages"), and per quantum runs colloid_step()
 * through tierd's operations table, as tiersim does on model tiers:
 *   observe: access observations, PEBS / IBS samples (perf) or the
 *      kernel's DAMON monitor's nr_accesses (an observation source, not a
 *      system) -> colloid_sample(); for a policy fed by hint faults
 *      (colloid_policy_info(): hint_faults), Linux's scanner (shared
 *      with tiersim in colloid/mech/) "unmaps" regions and the first
 *      observed access after that becomes colloid_hint_fault(); per-tier
 *      latency, CHA TOR occupancy/inserts or probe chases ->
 *      colloid_observe_cha();
 *   the library ticks;
 *   migrate: the plan goes through move_pages(2), in plan order, at most
 *      the plan; moves that fail are reported back with
 *      colloid_page_set_tier().
 * The quantum and the sampling periods come from colloid_policy_info().
 * Every report interval it writes t_s,metric,value,unit rows.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mech.h"
#include "tbcli.h"
#include "tierd.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

#define PROG "tierd"
const char cli_prog[] = PROG;
#define MAX_PARAMS MECH_MAX_PARAMS

struct opts {
	pid_t pid;
	const char *policy;
	int colloid;
	int nodes[2], have_tiers;
	size_t region_size, min_mapping, batch;
	double quantum_ms;	/* 0: the policy's own */
	double duration_s;	/* 0: until the target exits or a signal */
	double report_s;
	struct mech_param par[MAX_PARAMS];	/* --param, parsed */
	int npar;
	enum obs_kind observe;
	enum lat_kind latency;
	int probe_cpu;
	size_t probe_size;
	unsigned int probe_loads;
	uint64_t damon_sample_us, damon_aggr_us;
	double sample_scale;	/* accesses per sample weight; <0: default */
	int64_t capacity[2];	/* <0: auto */
	const char *output;
	int dry_run;
	int move_test, mt_from, mt_to;
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: tierd --pid PID --policy POLICY --tiers NODE,NODE [options]\n"
"       tierd --pid PID --move-test FROM:TO [options]\n"
"Runs a libcolloid placement policy on a running process (pages move with\n"
"move_pages(2)), or moves all its pages between two nodes and verifies them.\n"
"\n"
"  --pid PID              target process (required)\n"
"  --policy NAME          a libcolloid policy: %s (required\n"
"                         unless --move-test)\n"
"  --colloid on|off       Colloid latency balancing on top (default off)\n"
"  --tiers D,A            NUMA node of the default tier, then of the alternate\n"
"                         tier (required unless --move-test); D may equal A\n"
"  --region-size 2M|4K    bytes per region, the policy's page (default 2M)\n"
"  --min-mapping SIZE     only anonymous writable mappings at least this large\n"
"                         (default 64M); SIZE takes K/M/G (binary)\n"
"  --quantum-ms Q         policy quantum in ms (default: the policy's own,\n"
"                         its parameter <policy>_quantum_ms)\n"
"  --duration S           stop after S seconds (default 0: until the target\n"
"                         exits or SIGINT/SIGTERM)\n"
"  --param NAME=VALUE     set a libcolloid parameter (repeatable), e.g.\n"
"                         migrate_limit_Bps=1e9; names as in colloid.h\n"
"  --observe auto|perf|damon|none\n"
"                         access observation (default auto: perf, else DAMON,\n"
"                         else refuse); none runs the loop without access\n"
"                         samples (latency only; for tests)\n"
"  --latency auto|cha|amd-l3|probe\n"
"                         per-tier latency source (default auto: CHA TOR via\n"
"                         perf uncore on Intel, the L3 XI sampled latency on\n"
"                         AMD Zen 4/5, else probe threads)\n"
"  --probe-cpu CPU        CPU for the probe threads (default: not pinned)\n"
"  --probe-size SIZE      probe buffer per tier (default 2 x LLC, 16M..256M)\n"
"  --probe-loads N        dependent loads per tier per quantum (default 128)\n"
"  --damon-us SAMPLE,AGGR DAMON sample and aggregation intervals in us\n"
"                         (default 5000,100000)\n"
"  --sample-scale X       memory accesses one sample weight stands for, for\n"
"                         Colloid's rates (default: each event's own period\n"
"                         for perf: PEBS load / store period, IBS op period;\n"
"                         1 for DAMON)\n"
"  --capacity D,A         bytes of each tier the policy may use; 'auto' = the\n"
"                         target's bytes there plus the node's free memory\n"
"                         (default auto,auto)\n"
"  --batch PAGES          4 KiB pages per move_pages() call (default 512)\n"
"  --report-interval S    seconds per CSV block (default 1)\n"
"  --output FILE          CSV t_s,metric,value,unit (default stdout)\n"
"  --dry-run              run the policy, move nothing\n"
"  --move-test FROM:TO    move every region on node FROM to node TO in batches\n"
"                         limited by migrate_limit_Bps per quantum, verify with\n"
"                         move_pages status queries, print one summary line;\n"
"                         exit 1 if a page is not on TO\n"
"  --help                 this text\n"
"Exit: 0 done (duration, target exit, SIGINT/SIGTERM), 1 runtime failure,\n"
"2 bad argument or unusable host (one line 'tierd: error: ...').\n", mech_policy_names());
}

/* a node number of option @opt */
static int node_arg(const char *opt, const char *s)
{
	return (int)cli_number(opt, s, 0, 4095, CLI_INT);
}

/* a size (parse_size()) that fits a size_t; 0 or -EINVAL */
static int size_arg(const char *s, size_t *out)
{
	uint64_t v;

	if (parse_size(s, &v) || v > SIZE_MAX)
		return -EINVAL;
	*out = (size_t)v;
	return 0;
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	enum { O_PID = 256, O_POLICY, O_COLLOID, O_TIERS, O_REGION, O_MINMAP, O_QUANTUM,
	       O_DURATION, O_PARAM, O_OBSERVE, O_LATENCY, O_PCPU, O_PSIZE, O_PLOADS,
	       O_DAMON, O_SCALE, O_CAP, O_BATCH, O_REPORT, O_OUTPUT, O_DRY, O_MOVE, O_HELP };
	static const struct option lo[] = {
		{ "pid", required_argument, 0, O_PID },
		{ "policy", required_argument, 0, O_POLICY },
		{ "colloid", required_argument, 0, O_COLLOID },
		{ "tiers", required_argument, 0, O_TIERS },
		{ "region-size", required_argument, 0, O_REGION },
		{ "min-mapping", required_argument, 0, O_MINMAP },
		{ "quantum-ms", required_argument, 0, O_QUANTUM },
		{ "duration", required_argument, 0, O_DURATION },
		{ "param", required_argument, 0, O_PARAM },
		{ "observe", required_argument, 0, O_OBSERVE },
		{ "latency", required_argument, 0, O_LATENCY },
		{ "probe-cpu", required_argument, 0, O_PCPU },
		{ "probe-size", required_argument, 0, O_PSIZE },
		{ "probe-loads", required_argument, 0, O_PLOADS },
		{ "damon-us", required_argument, 0, O_DAMON },
		{ "sample-scale", required_argument, 0, O_SCALE },
		{ "capacity", required_argument, 0, O_CAP },
		{ "batch", required_argument, 0, O_BATCH },
		{ "report-interval", required_argument, 0, O_REPORT },
		{ "output", required_argument, 0, O_OUTPUT },
		{ "dry-run", no_argument, 0, O_DRY },
		{ "move-test", required_argument, 0, O_MOVE },
		{ "help", no_argument, 0, O_HELP },
		{ 0, 0, 0, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->pid = -1;
	o->region_size = 2UL << 20;
	o->min_mapping = 64UL << 20;
	o->batch = 512;
	o->report_s = 1;
	o->probe_cpu = -1;
	o->probe_loads = 128;
	o->damon_sample_us = 5000;
	o->damon_aggr_us = 100000;
	o->sample_scale = -1;
	o->capacity[0] = o->capacity[1] = -1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		char *comma;
		size_t sz;

		switch (c) {
		case O_PID:
			o->pid = (pid_t)cli_number("--pid", optarg, 1, INT_MAX, CLI_INT);
			break;
		case O_POLICY:
			o->policy = optarg;
			break;
		case O_COLLOID:
			if (!strcmp(optarg, "on"))
				o->colloid = 1;
			else if (!strcmp(optarg, "off"))
				o->colloid = 0;
			else
				cli_bad_arg("--colloid: '%s' is not on or off", optarg);
			break;
		case O_TIERS:
			comma = strchr(optarg, ',');
			if (!comma || strchr(comma + 1, ','))
				cli_bad_arg("--tiers: '%s' is not NODE,NODE", optarg);
			*comma = '\0';
			o->nodes[0] = node_arg("--tiers", optarg);
			o->nodes[1] = node_arg("--tiers", comma + 1);
			o->have_tiers = 1;
			break;
		case O_REGION:
			if (size_arg(optarg, &sz) || (sz != 4096 && sz != (2UL << 20)))
				cli_bad_arg("--region-size: '%s' is not 2M or 4K", optarg);
			o->region_size = sz;
			break;
		case O_MINMAP:
			if (size_arg(optarg, &o->min_mapping))
				cli_bad_arg("--min-mapping: '%s' is not a size", optarg);
			break;
		case O_QUANTUM:
			o->quantum_ms = cli_number("--quantum-ms", optarg, 1, 60000, 0);
			break;
		case O_DURATION:
			o->duration_s = cli_number("--duration", optarg, 0, 1e7, 0);
			break;
		case O_PARAM:
			if (o->npar == MAX_PARAMS)
				cli_bad_arg("--param: more than %d parameters", MAX_PARAMS);
			switch (mech_param_parse(optarg, &o->par[o->npar])) {
			case 0:
				break;
			case -ENOENT:
				cli_bad_arg("--param: libcolloid has no parameter '%s'", o->par[o->npar].name);
			case -ERANGE:
				cli_bad_arg("--param: libcolloid rejects %s", optarg);
			default:
				cli_bad_arg("--param: '%s' is not NAME=VALUE", optarg);
			}
			o->npar++;
			break;
		case O_OBSERVE:
			if (!strcmp(optarg, "auto"))
				o->observe = OBS_AUTO;
			else if (!strcmp(optarg, "perf"))
				o->observe = OBS_PERF;
			else if (!strcmp(optarg, "damon"))
				o->observe = OBS_DAMON;
			else if (!strcmp(optarg, "none"))
				o->observe = OBS_NONE;
			else
				cli_bad_arg("--observe: '%s' is not auto, perf, damon or none", optarg);
			break;
		case O_LATENCY:
			if (!strcmp(optarg, "auto"))
				o->latency = LAT_AUTO;
			else if (!strcmp(optarg, "cha"))
				o->latency = LAT_CHA;
			else if (!strcmp(optarg, "amd-l3"))
				o->latency = LAT_AMDL3;
			else if (!strcmp(optarg, "probe"))
				o->latency = LAT_PROBE;
			else
				cli_bad_arg("--latency: '%s' is not auto, cha, amd-l3 or probe", optarg);
			break;
		case O_PCPU:
			o->probe_cpu = (int)cli_number("--probe-cpu", optarg, 0, CPU_SETSIZE - 1, CLI_INT);
			break;
		case O_PSIZE:
			if (size_arg(optarg, &o->probe_size) || o->probe_size < (1UL << 20) ||
			    o->probe_size > (16UL << 30))
				cli_bad_arg("--probe-size: '%s' is not a size in 1M..16G", optarg);
			break;
		case O_PLOADS:
			o->probe_loads = (unsigned int)cli_number("--probe-loads", optarg, 1, 1e7, CLI_INT);
			break;
		case O_DAMON:
			comma = strchr(optarg, ',');
			if (!comma)
				cli_bad_arg("--damon-us: '%s' is not SAMPLE,AGGR", optarg);
			*comma = '\0';
			o->damon_sample_us = (uint64_t)cli_number("--damon-us", optarg, 100, 1e7, CLI_INT);
			o->damon_aggr_us = (uint64_t)cli_number("--damon-us", comma + 1, 100, 6e7, CLI_INT);
			if (o->damon_aggr_us < o->damon_sample_us)
				cli_bad_arg("--damon-us: the aggregation interval is shorter than the sample interval");
			break;
		case O_SCALE:
			o->sample_scale = cli_number("--sample-scale", optarg, 1e-9, 1e12, 0);
			break;
		case O_CAP:
			comma = strchr(optarg, ',');
			if (!comma)
				cli_bad_arg("--capacity: '%s' is not SIZE,SIZE", optarg);
			*comma = '\0';
			for (int i = 0; i < 2; i++) {
				const char *s = i ? comma + 1 : optarg;

				if (!strcmp(s, "auto"))
					o->capacity[i] = -1;
				else if (size_arg(s, &sz))
					cli_bad_arg("--capacity: '%s' is not a size or auto", s);
				else
					o->capacity[i] = (int64_t)sz;
			}
			break;
		case O_BATCH:
			o->batch = (size_t)cli_number("--batch", optarg, 1, 1 << 20, CLI_INT);
			break;
		case O_REPORT:
			o->report_s = cli_number("--report-interval", optarg, 0.001, 3600, 0);
			break;
		case O_OUTPUT:
			o->output = optarg;
			break;
		case O_DRY:
			o->dry_run = 1;
			break;
		case O_MOVE: {
			char *colon = strchr(optarg, ':');

			if (!colon)
				cli_bad_arg("--move-test: '%s' is not FROM:TO", optarg);
			*colon = '\0';
			o->mt_from = node_arg("--move-test", optarg);
			o->mt_to = node_arg("--move-test", colon + 1);
			o->move_test = 1;
			break;
		}
		case O_HELP:
			usage(stdout);
			exit(0);
		default:
			cli_bad_option(c, argv);
		}
	}
	if (optind < argc)
		cli_bad_arg("unexpected argument '%s'", argv[optind]);
	if (o->pid <= 0)
		cli_bad_arg("--pid is required");
	if (!o->move_test) {
		if (!o->policy)
			cli_bad_arg("--policy is required (a libcolloid policy)");
		if (!o->have_tiers)
			cli_bad_arg("--tiers is required (default node first, e.g. 0,1)");
	}
}

/* ------------------------------------------------------------ the run */

struct totals {
	struct move_stats ms;
	uint64_t regions_moved, regions_failed, quanta, overruns, samples;
};

/* an interval's counts into the totals (quanta and overruns are counted in the totals at once) */
static void totals_fold(struct totals *tot, const struct totals *iv)
{
	move_stats_add(&tot->ms, &iv->ms);
	tot->regions_moved += iv->regions_moved;
	tot->regions_failed += iv->regions_failed;
	tot->samples += iv->samples;
}

struct reporter {
	FILE *out;
	struct colloid_ctx *ctx;
	struct totals *iv, *tot;
	uint64_t t_start, cpu_last, wall_last;
	double lat_sum[2];
	uint64_t lat_n[2];
	double slat_sum[2];	/* sampled load latency, cycles, per tier */
	uint64_t slat_n[2];
	double run_min;		/* least running share of the latency counters */
	uint64_t mux_quanta;	/* quanta whose latency counters were multiplexed */
	const struct obs_perf *perf;	/* the perf samples' source, or NULL */
	uint64_t lost_last, throttles_last, dropped_last;	/* its counts at the last block */
};

struct run {
	const struct opts *o;
	struct target t;
	struct colloid_ctx *ctx;
	struct colloid_params prm;
	struct colloid_policy_info info;
	uint64_t now;
	double acc_w[2];	/* accesses per tier in this quantum (weight x scale) */
	uint64_t samples;	/* sink calls in this report interval */
	/* hint faults: Linux's scanner (colloid/mech) and the regions it "unmapped" */
	struct mech_scan scan;
	uint64_t *scan_ns;
	uint8_t *pending;
	uint64_t faults;
	/* the sources, each behind its operations table (sources.c) */
	const struct tierd_obs_ops *obs;	/* NULL: --observe none */
	void *obs_src;
	const struct tierd_lat_ops *lat;
	void *lat_src;
	double scale[2];	/* accesses per sample weight: [0] loads, [1] stores */
	uint64_t last_free;	/* when free memory was last reported */
	struct reporter *rp;
	struct totals *iv, *tot;
	size_t *midx;		/* move scratch, plan-sized */
	uint32_t *mok, *mbad;
	int cb_failed;		/* a callback printed its error */
};

static void on_sample(void *priv, size_t r, int is_write, uint32_t weight, uint32_t lat)
{
	struct run *R = priv;
	int tier;

	if (weight == 0)
		return;
	colloid_sample(R->ctx, r, is_write, weight);
	tier = colloid_page_tier(R->ctx, r);
	if (tier >= 0 && tier < 2) {
		/* a load sample and a store sample stand for different counts
		 * (their own periods; obs_perf.c) */
		R->acc_w[tier] += weight * R->scale[is_write ? 1 : 0];
		if (lat) {
			R->rp->slat_sum[tier] += lat;
			R->rp->slat_n[tier]++;
		}
	}
	R->samples++;
	if (R->info.hint_faults && R->pending[r]) {
		colloid_hint_fault(R->ctx, r, R->now - R->scan_ns[r], R->now);
		R->pending[r] = 0;
		R->faults++;
	}
}

/* A policy fed by hint faults (colloid_policy_info(): hint_faults): the
 * scanner (colloid/mech: Linux's task_numa_work() budgets and
 * task_scan_min() window period, as tiersim) walks the regions in address
 * order; without Colloid it leaves default-tier regions mapped, with
 * Colloid it unmaps both (mech_scan_init()).  An "unmapped" region's next observed access is its hint
 * fault; one already unmapped keeps its scan time, as a PROT_NONE PTE
 * does. */
static int scan_tier(void *priv, uint64_t r)
{
	return colloid_page_tier(((struct run *)priv)->ctx, r);
}

static int scan_visit(void *priv, uint64_t r, uint64_t i, uint64_t n)
{
	struct run *R = priv;

	(void)i;
	(void)n;
	if (!R->pending[r]) {
		R->scan_ns[r] = R->now;
		R->pending[r] = 1;
	}
	return 0;
}

static void row(FILE *f, double t, const char *m, double v, const char *unit)
{
	char tb[32];

	snprintf(tb, sizeof(tb), "%.3f", t);
	mech_row(f, tb, m, v, unit);	/* a write error is found when the output closes */
}

static const char *errname(int e)
{
	switch (e) {
	case EBUSY: return "EBUSY";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EAGAIN: return "EAGAIN";
	case EIO: return "EIO";
	case EINVAL: return "EINVAL";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	default: return NULL;
	}
}

static void print_errnos(FILE *f, const struct move_stats *ms)
{
	const size_t n = sizeof(ms->err_by_errno) / sizeof(ms->err_by_errno[0]);

	for (size_t e = 1; e < n; e++) {
		const char *nm = errname((int)e);

		if (!ms->err_by_errno[e])
			continue;
		if (nm)
			fprintf(f, " %s=%llu", nm, (unsigned long long)ms->err_by_errno[e]);
		else
			fprintf(f, " errno%zu=%llu", e, (unsigned long long)ms->err_by_errno[e]);
	}
}

/* one block of rows for the interval that ends now; moves it into the totals */
static void report(struct reporter *r)
{
	struct colloid_state st;
	struct totals *iv = r->iv, *tot = r->tot;
	uint64_t c = cpu_ns(), wt = now_ns();
	double ts = (double)(wt - r->t_start) * 1e-9;
	FILE *out = r->out;

	colloid_get_state(r->ctx, &st);
	row(out, ts, "quanta", (double)iv->quanta, "count");
	row(out, ts, "samples", (double)iv->samples, "count");
	row(out, ts, "pages_moved", (double)iv->ms.pages_ok, "pages");
	row(out, ts, "pages_already_placed", (double)iv->ms.pages_already, "pages");
	row(out, ts, "bytes_moved", (double)iv->ms.bytes, "B");
	row(out, ts, "regions_moved", (double)iv->regions_moved, "count");
	row(out, ts, "move_failures", (double)iv->ms.pages_failed, "pages");
	row(out, ts, "move_batches", (double)iv->ms.calls, "count");
	row(out, ts, "move_seconds", (double)iv->ms.ns * 1e-9, "s");
	row(out, ts, "p", st.p, "fraction");
	row(out, ts, "latency_default", st.lat[0], "ns");
	row(out, ts, "latency_alternate", st.lat[1], "ns");
	row(out, ts, "latency_measured_default",
	    r->lat_n[0] ? r->lat_sum[0] / (double)r->lat_n[0] : NAN, "ns");
	row(out, ts, "latency_measured_alternate",
	    r->lat_n[1] ? r->lat_sum[1] / (double)r->lat_n[1] : NAN, "ns");
	row(out, ts, "latency_counters_running", r->run_min, "fraction");
	row(out, ts, "latency_multiplexed_quanta", (double)r->mux_quanta, "count");
	row(out, ts, "sampled_load_latency_default",
	    r->slat_n[0] ? r->slat_sum[0] / (double)r->slat_n[0] : NAN, "cycles");
	row(out, ts, "sampled_load_latency_alternate",
	    r->slat_n[1] ? r->slat_sum[1] / (double)r->slat_n[1] : NAN, "cycles");
	if (r->perf) {	/* what the perf samples miss: rows only where perf samples */
		uint64_t lost = obs_perf_lost(r->perf), th = obs_perf_throttles(r->perf);
		uint64_t dr = obs_perf_dropped(r->perf);

		row(out, ts, "samples_lost", (double)(lost - r->lost_last), "count");
		row(out, ts, "sample_throttles", (double)(th - r->throttles_last), "count");
		row(out, ts, "samples_cache_hits_dropped", (double)(dr - r->dropped_last), "count");
		r->lost_last = lost;
		r->throttles_last = th;
		r->dropped_last = dr;
	}
	row(out, ts, "hot_regions_default", (double)st.hot_pages[0], "count");
	row(out, ts, "hot_regions_alternate", (double)st.hot_pages[1], "count");
	row(out, ts, "tierd_cpu_share",
	    wt > r->wall_last ? (double)(c - r->cpu_last) / (double)(wt - r->wall_last) : 0,
	    "fraction");
	fflush(out);
	r->cpu_last = c;
	r->wall_last = wt;
	r->lat_sum[0] = r->lat_sum[1] = 0;
	r->lat_n[0] = r->lat_n[1] = 0;
	r->slat_sum[0] = r->slat_sum[1] = 0;
	r->slat_n[0] = r->slat_n[1] = 0;
	r->run_min = NAN;
	r->mux_quanta = 0;
	totals_fold(tot, iv);
	memset(iv, 0, sizeof(*iv));
}

static int make_sigfd(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -1;
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

/* wait until @deadline; 1 if a signal came (*sig set), 2 if the target
 * exited, 0 at the deadline */
static int wait_until(uint64_t deadline, int sigfd, int pidfd, pid_t pid, int *sig)
{
	for (;;) {
		struct pollfd pf[2] = { { sigfd, POLLIN, 0 }, { pidfd, POLLIN, 0 } };
		uint64_t t = now_ns();
		int ms, r;

		if (t >= deadline)
			return 0;
		ms = (int)((deadline - t + 999999) / 1000000);
		r = poll(pf, pidfd >= 0 ? 2 : 1, ms);
		if (r < 0 && errno != EINTR)
			return 0;
		if (r > 0 && (pf[0].revents & POLLIN)) {
			struct signalfd_siginfo si;

			if (read(sigfd, &si, sizeof(si)) == sizeof(si)) {
				*sig = (int)si.ssi_signo;
				return 1;
			}
		}
		if (r > 0 && pidfd >= 0 && (pf[1].revents & (POLLIN | POLLHUP)))
			return 2;
		if (pidfd < 0 && !target_alive(pid))
			return 2;
	}
}

/* --------------------------------------------------------- move test */

static int run_move_test(const struct opts *o, struct target *t, int sigfd)
{
	struct colloid_params prm;
	struct move_stats ms;
	uint64_t on = 0, off = 0, absent = 0, qns, budget, spent = 0, t0, t1, quanta = 1;
	uint64_t deadline, total_bytes = 0;
	size_t moved_regions = 0, skipped = 0, nidx = 0, *idx = NULL;
	uint32_t *ok = NULL, *bad = NULL;
	int *first, sig = 0, ret = 0, stopped = 0;

	colloid_params_default(&prm, NULL);
	mech_params_apply(&prm, o->par, o->npar, NULL);	/* checked when parsed */
	qns = (uint64_t)((o->quantum_ms > 0 ? o->quantum_ms : 10) * 1e6);
	budget = (uint64_t)(prm.migrate_limit_Bps * (double)qns * 1e-9);
	if (budget < t->region_size)
		budget = t->region_size;
	memset(&ms, 0, sizeof(ms));
	first = calloc(t->nreg, sizeof(*first));
	if (!first) {
		cli_fail("out of memory");
		return 1;
	}
	ret = target_first_nodes(t, first);
	if (ret) {
		cli_fail("move_pages status query failed: %s",
			strerror(-ret));
		free(first);
		return 1;
	}
	idx = calloc(t->nreg, sizeof(*idx));
	ok = calloc(t->nreg, sizeof(*ok));
	bad = calloc(t->nreg, sizeof(*bad));
	if (!idx || !ok || !bad) {
		cli_fail("out of memory");
		ret = -ENOMEM;
		goto done;
	}
	t0 = now_ns();
	deadline = t0 + qns;
	for (size_t i = 0; i <= t->nreg; i++) {
		/* only regions on FROM (or not yet present) move */
		if (i < t->nreg && o->mt_from != o->mt_to && first[i] >= 0 &&
		    first[i] != o->mt_from) {
			skipped++;
			continue;
		}
		if (i == t->nreg || spent + t->reg[i].len > budget) {
			/* this quantum's budget is spent: move its regions, in
			 * batches of --batch pages, then wait for the next one */
			ret = target_move_regions(t, idx, nidx, o->mt_to, ok, bad, &ms);
			if (ret) {
				cli_fail("move_pages on pid %d failed: %s",
					(int)t->pid, strerror(-ret));
				goto done;
			}
			nidx = 0;
			spent = 0;
			if (i == t->nreg)
				break;
			if (wait_until(deadline, sigfd, -1, t->pid, &sig) == 1) {
				stopped = 1;
				break;
			}
			deadline = now_ns() + qns;
			quanta++;
		}
		idx[nidx++] = i;
		spent += t->reg[i].len;
		total_bytes += t->reg[i].len;
		moved_regions++;
	}
	t1 = now_ns();
	for (size_t i = 0; i < t->nreg && !stopped; i++) {
		ret = target_verify_region(t, i, o->mt_to, &on, &off, &absent);
		if (ret) {
			cli_fail("move_pages status query failed: %s",
				strerror(-ret));
			goto done;
		}
	}
	printf("tierd: move-test %d:%d pid %d: %zu regions (%llu bytes), %llu pages ok (%llu moved, "
	       "%llu there already), %llu failed, %llu absent, %llu batches, %.3f ms in move_pages "
	       "(%.4f ms/batch), %llu quanta of %.0f ms, %.3f s; verify: %llu pages on node %d, "
	       "%llu elsewhere, %llu absent: %s",
	       o->mt_from, o->mt_to, (int)t->pid, moved_regions, (unsigned long long)total_bytes,
	       (unsigned long long)(ms.pages_ok + ms.pages_already), (unsigned long long)ms.pages_ok,
	       (unsigned long long)ms.pages_already, (unsigned long long)ms.pages_failed,
	       (unsigned long long)ms.pages_absent, (unsigned long long)ms.calls,
	       (double)ms.ns * 1e-6, ms.calls ? (double)ms.ns * 1e-6 / (double)ms.calls : 0.0,
	       (unsigned long long)quanta, (double)qns * 1e-6, (double)(t1 - t0) * 1e-9,
	       (unsigned long long)on, o->mt_to, (unsigned long long)off,
	       (unsigned long long)absent,
	       stopped ? "stopped" : (off || ms.pages_failed) ? "FAIL" : "ok");
	if (ms.pages_failed) {
		printf(" (failures:");
		print_errnos(stdout, &ms);
		printf(")");
	}
	if (skipped)
		printf(" (%zu regions not on node %d skipped)", skipped, o->mt_from);
	printf("\n");
	fflush(stdout);
	if (o->output) {
		FILE *f = fopen(o->output, "w");

		if (f) {
			double ts = (double)(t1 - t0) * 1e-9;

			fprintf(f, "t_s,metric,value,unit\n");
			row(f, ts, "pages_moved", (double)ms.pages_ok, "pages");
			row(f, ts, "pages_already_placed", (double)ms.pages_already, "pages");
			row(f, ts, "bytes_moved", (double)ms.bytes, "B");
			row(f, ts, "move_failures", (double)ms.pages_failed, "pages");
			row(f, ts, "move_batches", (double)ms.calls, "count");
			row(f, ts, "move_seconds", (double)ms.ns * 1e-9, "s");
			row(f, ts, "verify_off_node", (double)off, "pages");
			fclose(f);
		}
	}
done:
	free(first);
	free(idx);
	free(ok);
	free(bad);
	if (ret)
		return 1;
	if (stopped)
		return 0;
	return (off || ms.pages_failed) ? 1 : 0;
}

/* ---------------------------------------------------------- policy run */

/* ------------------------------------------------- operations table */

/* what the hardware saw in the quantum of @q ns ending at @now */
static int tierd_observe(void *priv, struct colloid_ctx *ctx, uint64_t now, uint64_t q)
{
	struct run *R = priv;
	struct reporter *rp = R->rp;
	struct lat_sample ls[2];
	uint64_t np = 0;
	int ret;

	R->now = now;
	R->acc_w[0] = R->acc_w[1] = 0;
	/* 1. accesses; for a hint-fault policy the scanner first */
	if (R->info.hint_faults)
		mech_scan_quantum(&R->scan, (double)q, scan_tier, scan_visit, R);
	if (R->obs) {
		ret = R->obs->poll(R->obs_src, on_sample, R, &np);
		if (ret) {
			if (!target_alive(R->o->pid))
				return -ESRCH;
			cli_fail("%s: %s", R->obs->label, strerror(-ret));
			R->cb_failed = 1;
			return ret;
		}
		if (R->obs->upkeep && R->tot->quanta % 100 == 99)
			R->obs->upkeep(R->obs_src);
	}
	R->iv->samples += np;

	/* 2. latency */
	ret = R->lat->read(R->lat_src, ls);
	if (!ret) {
		double accsum = R->acc_w[0] + R->acc_w[1];

		if (!isnan(ls[0].running)) {
			if (isnan(rp->run_min) || ls[0].running < rp->run_min)
				rp->run_min = ls[0].running;
			if (ls[0].running < 1)
				rp->mux_quanta++;
		}

		for (int i = 0; i < 2; i++) {
			double arr, occ;

			if (isnan(ls[i].mean_ns))
				continue;
			rp->lat_sum[i] += ls[i].mean_ns;
			rp->lat_n[i]++;
			if (R->lat->counts_traffic) {
				arr = ls[i].arrivals;
				occ = ls[i].occupancy;
			} else {
				/* the probe measures latency, not traffic: the
				 * workload's traffic per tier is estimated from
				 * its access samples (the probe's own loads when
				 * there are none) */
				arr = accsum > 0 ? R->acc_w[i] : ls[i].arrivals;
				occ = ls[i].mean_ns * arr;
			}
			colloid_observe_cha(ctx, (unsigned int)i, occ, arr, q);
		}
	}
	if (R->o->nodes[0] != R->o->nodes[1] && now - R->last_free >= 1000000000ULL) {
		for (int i = 0; i < 2; i++) {
			int64_t fr = node_free_bytes(R->o->nodes[i]);

			if (fr >= 0)
				colloid_tier_set_free(ctx, (unsigned int)i, (uint64_t)fr);
		}
		R->last_free = now;
	}
	R->iv->quanta++;
	R->tot->quanta++;
	return 0;
}

/*
 * Apply the plan in order; consecutive moves to one tier share
 * move_pages() batches.  A region moved if most of its present pages did;
 * else the library is told where it still is.  -ESRCH: the target is gone.
 */
static int tierd_migrate(void *priv, const struct colloid_move *plan, size_t n, size_t *done)
{
	struct run *R = priv;
	struct totals *iv = R->iv;
	size_t k;
	int ret = 0;

	for (k = 0; k < n;) {
		size_t j = k, nidx = 0;
		unsigned int to = plan[k].to;
		struct move_stats one;

		while (j < n && plan[j].to == to) {
			if (plan[j].page < R->t.nreg && to < 2)
				R->midx[nidx++] = (size_t)plan[j].page;
			j++;
		}
		memset(&one, 0, sizeof(one));
		ret = nidx ? target_move_regions(&R->t, R->midx, nidx,
						 R->o->nodes[to < 2 ? to : 0], R->mok, R->mbad,
						 &one) : 0;
		if (ret && ret != -ESRCH) {
			cli_fail("move_pages failed: %s", strerror(-ret));
			R->cb_failed = 1;
		}
		if (ret)
			break;
		for (size_t m = 0, x = k; x < j; x++) {
			if (plan[x].page >= R->t.nreg || to >= 2)
				continue;
			if (R->mbad[m] > R->mok[m]) {
				colloid_page_set_tier(R->ctx, plan[x].page, plan[x].from);
				iv->regions_failed++;
			} else {
				iv->regions_moved++;
			}
			m++;
		}
		move_stats_add(&iv->ms, &one);
		k = j;
	}
	*done = ret ? k : n;
	return ret;
}

static const struct colloid_ops tierd_ops = {
	.name = "tierd",
	.observe = tierd_observe,
	.migrate = tierd_migrate,
};

/* --dry-run: the library assumes the plan applied, nothing moves */
static const struct colloid_ops tierd_dry_ops = {
	.name = "tierd (dry run)",
	.observe = tierd_observe,
};

int main(int argc, char **argv)
{
	struct opts o;
	struct run R;
	struct totals tot, iv;
	struct obs_perf *perf = NULL;
	struct obs_damon *damon = NULL;
	struct lat_cha *cha = NULL;
	struct lat_amdl3 *amdl3 = NULL;
	struct lat_probe *probe = NULL;
	struct colloid_config cc;
	struct colloid_move *plan = NULL;
	size_t plan_cap, *midx = NULL;
	uint32_t *mok = NULL, *mbad = NULL;
	char why[TIERD_WHY], why2[TIERD_WHY], obs_name[96] = "none", lat_name[64] = "probe";
	int sigfd, pidfd = -1, ret, rc = 0, sig = 0, *first = NULL;
	uint64_t qns, t_start, next, next_report, last_q, cpu0, t_end = 0;
	double unl[2] = { 100, 100 }, scale[2] = { 1, 1 };
	struct reporter rp;
	const char *stop_why = "duration";
	FILE *out = stdout;

	parse_args(argc, argv, &o);
	memset(&R, 0, sizeof(R));
	R.o = &o;

	/* ---- checks before doing anything: exit 2 ---- */
	if (!target_alive(o.pid))
		cli_bad_arg("pid %d does not exist", (int)o.pid);
	if (o.move_test) {
		if (!node_has_memory(o.mt_from))
			cli_bad_arg("--move-test: node %d does not exist or has no memory", o.mt_from);
		if (!node_has_memory(o.mt_to))
			cli_bad_arg("--move-test: node %d does not exist or has no memory", o.mt_to);
	} else {
		for (int i = 0; i < 2; i++)
			if (!node_has_memory(o.nodes[i]))
				cli_bad_arg("--tiers: node %d does not exist or has no memory", o.nodes[i]);
		ret = colloid_params_default(&R.prm, o.policy);
		if (ret == -ENOENT)
			cli_bad_arg("--policy: unknown policy '%s' (libcolloid's policies: %s)", o.policy, mech_policy_names());
		if (ret)
			cli_bad_arg("libcolloid: colloid_params_default failed: %s", strerror(-ret));
	}
	if (o.move_test)
		colloid_params_default(&R.prm, NULL);
	if (mech_params_apply(&R.prm, o.par, o.npar, NULL))	/* each checked when parsed */
		cli_bad_arg("--param: libcolloid rejects the parameters");
	/* the policy's quantum, sampling periods and inputs */
	if (!o.move_test && colloid_policy_info(o.policy, &R.prm, &R.info))
		cli_bad_arg("--param: libcolloid rejects the parameters");
	if (o.probe_cpu >= 0) {
		cpu_set_t set;

		if (sched_getaffinity(0, sizeof(set), &set) || !CPU_ISSET(o.probe_cpu, &set))
			cli_bad_arg("--probe-cpu: CPU %d is not available to this process", o.probe_cpu);
	}
	if (target_check_access(o.pid, why))
		cli_bad_arg("%s", why);
	{
		int to[2] = { o.move_test ? o.mt_from : o.nodes[0], o.move_test ? o.mt_to : o.nodes[1] };

		if (target_check_nodes(o.pid, to, 2, why))
			cli_bad_arg("%s", why);
	}
	ret = target_open(&R.t, o.pid, o.region_size, o.min_mapping, o.batch, why);
	if (ret == -ENOMEM) {
		cli_fail("out of memory");
		return 1;
	}
	if (ret)
		cli_bad_arg("%s", why);

	sigfd = make_sigfd();
	if (sigfd < 0) {
		cli_fail("signalfd: %s", strerror(errno));
		target_close(&R.t);
		return 1;
	}

	if (o.move_test) {
		rc = run_move_test(&o, &R.t, sigfd);
		target_close(&R.t);
		close(sigfd);
		return rc;
	}

	qns = o.quantum_ms > 0 ? (uint64_t)llround(o.quantum_ms * 1e6) : R.info.quantum_ns;

	/* ---- access observation ---- */
	if (o.observe == OBS_AUTO || o.observe == OBS_PERF) {
		uint64_t lp = (uint64_t)R.info.load_period, sp = (uint64_t)R.info.store_period;

		ret = obs_perf_open(&perf, &R.t, lp, sp, why);
		if (ret && o.observe == OBS_PERF)
			cli_bad_arg("--observe perf: %s", why);
		if (!ret) {
			const struct perf_plan *pp = obs_perf_plan_of(perf);

			snprintf(obs_name, sizeof(obs_name), "%s", obs_perf_name(perf));
			scale[0] = pp->load_scale;
			scale[1] = pp->have_store || pp->ibs ? pp->store_scale : pp->load_scale;
		}
	}
	if (!perf && (o.observe == OBS_AUTO || o.observe == OBS_DAMON)) {
		struct damon_cfg dc = {
			.sample_us = o.damon_sample_us,
			.aggr_us = o.damon_aggr_us,
			.update_us = 1000000,
			.min_regions = 10,
			.max_regions = 1000,
		};

		ret = obs_damon_open(&damon, &R.t, &dc, o.observe == OBS_AUTO ? why2 : why);
		if (ret && o.observe == OBS_DAMON)
			cli_bad_arg("--observe damon: %s", why);
		if (ret)
			cli_bad_arg("no access observation source: perf: %s; DAMON: %s "
			     "(--observe none runs the loop without access samples)", why, why2);
		snprintf(obs_name, sizeof(obs_name), "damon:kdamond%d", obs_damon_index(damon));
		scale[0] = scale[1] = 1;
	}
	if (o.sample_scale > 0)
		scale[0] = scale[1] = o.sample_scale;

	/* from here on, errors go through the cleanup at "out" */

	/* ---- latency ---- */
	if (o.latency == LAT_AUTO || o.latency == LAT_CHA) {
		ret = lat_cha_open(&cha, o.nodes[0], o.nodes[1], why);
		if (ret && o.latency == LAT_CHA) {
			cli_fail("--latency cha: %s", why);
			rc = 2;
			goto out;
		}
		if (!ret)
			snprintf(lat_name, sizeof(lat_name), "cha");
		else if (o.latency == LAT_AUTO)
			snprintf(why2, sizeof(why2), "%s", why);
	}
	if (!cha && (o.latency == LAT_AUTO || o.latency == LAT_AMDL3)) {
		ret = lat_amdl3_open(&amdl3, o.nodes[0], o.nodes[1], why);
		if (ret && o.latency == LAT_AMDL3) {
			cli_fail("--latency amd-l3: %s", why);
			rc = 2;
			goto out;
		}
		if (!ret)
			snprintf(lat_name, sizeof(lat_name), "amd-l3");
		else
			cli_say("note: no hardware latency source (CHA: %s; AMD L3: %s); using probe "
				"threads", why2, why);
	}
	{
		size_t psz = o.probe_size;

		if (!psz) {
			psz = 2 * (size_t)cpu_cache_bytes(2, INT_MAX);
			if (psz < (16UL << 20))
				psz = 16UL << 20;
			if (psz > (256UL << 20))
				psz = 256UL << 20;
		}
		ret = lat_probe_open(&probe, o.nodes, psz, o.probe_loads, o.probe_cpu, qns, why);
		if (ret) {
			cli_fail("latency probe: %s", why);
			rc = 1;
			goto out;
		}
		unl[0] = lat_probe_unloaded(probe, 0);
		unl[1] = lat_probe_unloaded(probe, 1);
		if (cha || amdl3) {
			lat_probe_close(probe);
			probe = NULL;
		} else {
			snprintf(lat_name, sizeof(lat_name), "probe(%zu MiB, %u loads/quantum)",
				 psz >> 20, o.probe_loads);
		}
	}
	if (o.nodes[0] == o.nodes[1]) {
		/* one node as both tiers: the two probes measure the same thing */
		unl[0] = unl[1] = (unl[0] + unl[1]) / 2;
	} else if (unl[0] > unl[1]) {
		cli_say("note: node %d measured slower idle (%.1f ns) than node %d (%.1f ns); "
			"keeping node %d as the default tier (alternate's idle latency raised to %.1f ns)",
			o.nodes[0], unl[0], o.nodes[1], unl[1], o.nodes[0], unl[0]);
		unl[1] = unl[0];
	}

	/* ---- the policy ---- */
	first = calloc(R.t.nreg, sizeof(*first));
	R.scan_ns = calloc(R.t.nreg, sizeof(*R.scan_ns));
	R.pending = calloc(R.t.nreg, 1);
	if (!first || !R.scan_ns || !R.pending) {
		cli_fail("out of memory");
		rc = 1;
		goto out;
	}
	/* Linux sizes the scan window by the task's RSS; tierd's regions stand in */
	if (R.info.hint_faults &&
	    mech_scan_init(&R.scan, &R.info, R.t.nreg, R.t.region_size,
			   (double)R.t.npages_4k * 4096.0, o.colloid)) {
		cli_fail("cannot set up the page scanner");
		rc = 1;
		goto out;
	}
	ret = target_first_nodes(&R.t, first);
	if (ret) {
		cli_fail("move_pages status query failed: %s", strerror(-ret));
		rc = ret == -ESRCH ? 0 : 1;
		goto out;
	}
	memset(&cc, 0, sizeof(cc));
	cc.policy = o.policy;
	cc.colloid = o.colloid;
	cc.ntiers = 2;
	cc.npages = R.t.nreg;
	cc.page_size = R.t.region_size;
	cc.init_tier = 0;
	cc.params = &R.prm;
	{
		uint64_t on_tier[2] = { 0, 0 };

		for (size_t i = 0; i < R.t.nreg; i++)
			if (first[i] == o.nodes[1] && o.nodes[1] != o.nodes[0])
				on_tier[1] += R.t.region_size;
			else
				on_tier[0] += R.t.region_size;
		for (int i = 0; i < 2; i++) {
			int64_t fr = node_free_bytes(o.nodes[i]);

			if (o.capacity[i] >= 0) {
				cc.tiers[i].capacity_bytes = (uint64_t)o.capacity[i];
			} else {
				/* the target's bytes there plus 99% of the node's free memory */
				cc.tiers[i].capacity_bytes = on_tier[i] + (fr > 0 ? (uint64_t)fr / 100 * 99 : 0);
				if (o.nodes[0] == o.nodes[1])
					cc.tiers[i].capacity_bytes = on_tier[0] + on_tier[1] +
						(fr > 0 ? (uint64_t)fr / 100 * 99 : 0);
			}
			cc.tiers[i].unloaded_latency_ns = unl[i];
		}
	}
	ret = colloid_new(&cc, &R.ctx);
	if (ret) {
		cli_fail("colloid_new failed: %s", strerror(-ret));
		rc = 1;
		goto out;
	}
	for (size_t i = 0; i < R.t.nreg; i++)
		if (o.nodes[0] != o.nodes[1] && first[i] == o.nodes[1])
			colloid_page_set_tier(R.ctx, i, 1);
	plan_cap = mech_plan_cap(&R.prm, qns, R.t.region_size);
	plan = malloc(plan_cap * sizeof(*plan));
	midx = malloc(plan_cap * sizeof(*midx));
	mok = malloc(plan_cap * sizeof(*mok));
	mbad = malloc(plan_cap * sizeof(*mbad));
	if (!plan || !midx || !mok || !mbad) {
		cli_fail("out of memory");
		rc = 1;
		goto out;
	}
	if (o.output) {
		out = fopen(o.output, "w");
		if (!out) {
			cli_fail("cannot open %s: %s", o.output, strerror(errno));
			out = stdout;
			rc = 1;
			goto out;
		}
	}
	fprintf(out, "t_s,metric,value,unit\n");
	fflush(out);
	if (o.observe == OBS_NONE)
		cli_say("note: --observe none: the policy gets no access samples");
	fprintf(stderr,
		PROG ": pid %d, %zu regions of %zu KiB (%zu MiB), policy %s, colloid %s, tiers %d,%d "
		"(idle %.1f / %.1f ns, capacity %llu / %llu MiB), quantum %.1f ms, observe %s, "
		"latency %s%s\n",
		(int)o.pid, R.t.nreg, R.t.region_size >> 10,
		(R.t.nreg * R.t.region_size) >> 20, o.policy, o.colloid ? "on" : "off", o.nodes[0],
		o.nodes[1], unl[0], unl[1],
		(unsigned long long)(cc.tiers[0].capacity_bytes >> 20),
		(unsigned long long)(cc.tiers[1].capacity_bytes >> 20), (double)qns * 1e-6,
		obs_name, lat_name, o.dry_run ? ", dry run" : "");
	if (probe && lat_probe_start(probe, why)) {
		cli_fail("%s", why);
		rc = 1;
		goto out;
	}
#ifdef SYS_pidfd_open
	pidfd = (int)syscall(SYS_pidfd_open, o.pid, 0);
#endif

	/* ---- the loop ---- */
	memset(&tot, 0, sizeof(tot));
	memset(&iv, 0, sizeof(iv));
	t_start = now_ns();
	last_q = t_start;
	next = t_start + qns;
	next_report = t_start + (uint64_t)(o.report_s * 1e9);
	if (o.duration_s > 0)
		t_end = t_start + (uint64_t)(o.duration_s * 1e9);
	cpu0 = cpu_ns();
	memset(&rp, 0, sizeof(rp));
	rp.out = out;
	rp.ctx = R.ctx;
	rp.run_min = NAN;
	rp.iv = &iv;
	rp.tot = &tot;
	rp.t_start = t_start;
	rp.cpu_last = cpu0;
	rp.wall_last = t_start;
	rp.perf = perf;
	R.obs = perf ? &tierd_obs_perf : damon ? &tierd_obs_damon : NULL;
	R.obs_src = perf ? (void *)perf : (void *)damon;
	R.lat = cha ? &tierd_lat_cha : amdl3 ? &tierd_lat_amdl3 : &tierd_lat_probe;
	R.lat_src = cha ? (void *)cha : amdl3 ? (void *)amdl3 : (void *)probe;
	R.scale[0] = scale[0];
	R.scale[1] = scale[1];
	R.rp = &rp;
	R.iv = &iv;
	R.tot = &tot;
	R.midx = midx;
	R.mok = mok;
	R.mbad = mbad;
	for (;;) {
		uint64_t q;
		int w;

		w = wait_until(t_end && t_end < next ? t_end : next, sigfd, pidfd, o.pid, &sig);
		if (w == 1) {
			stop_why = sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP";
			break;
		}
		if (w == 2) {
			stop_why = "target exited";
			break;
		}
		R.now = now_ns();
		if (t_end && R.now >= t_end)
			break;
		q = R.now - last_q;
		last_q = R.now;
		if (!q)
			q = 1;

		/* observe, decide, move */
		ret = colloid_step(R.ctx, o.dry_run ? &tierd_dry_ops : &tierd_ops, &R, R.now, q,
				   plan, plan_cap, NULL);
		if (ret == -ESRCH) {
			stop_why = "target exited";
			break;
		}
		if (ret) {
			if (!R.cb_failed)
				cli_fail("colloid_step failed: %s",
					strerror(-ret));
			rc = 1;
			break;
		}

		/* report */
		if (now_ns() >= next_report) {
			report(&rp);
			while (next_report <= rp.wall_last)
				next_report += (uint64_t)(o.report_s * 1e9);
		}
		next += qns;
		if (next < now_ns()) {
			tot.overruns++;
			next = now_ns() + qns;
		}
	}
	/* the last, partial interval */
	if (iv.quanta && out)
		report(&rp);
	totals_fold(&tot, &iv);
	{
		double wall = (double)(now_ns() - t_start) * 1e-9;
		double share = wall > 0 ? (double)(cpu_ns() - cpu0) * 1e-9 / wall : 0;

		fprintf(stderr,
			PROG ": stopped (%s) after %.2f s: %llu quanta (%llu overran), %llu samples, "
			"%llu regions moved (%llu pages, %llu bytes) in %llu batches, %.3f ms in "
			"move_pages, %llu regions failed (%llu pages", stop_why, wall,
			(unsigned long long)tot.quanta, (unsigned long long)tot.overruns,
			(unsigned long long)tot.samples, (unsigned long long)tot.regions_moved,
			(unsigned long long)tot.ms.pages_ok, (unsigned long long)tot.ms.bytes,
			(unsigned long long)tot.ms.calls, (double)tot.ms.ns * 1e-6,
			(unsigned long long)tot.regions_failed,
			(unsigned long long)tot.ms.pages_failed);
		print_errnos(stderr, &tot.ms);
		fprintf(stderr, "), cpu share %.4f\n", share);
	}
out:
	if (out != stdout && out) {
		if (fclose(out) && !rc) {
			cli_fail("writing %s failed", o.output);
			rc = 1;
		}
	} else {
		fflush(stdout);
	}
	tierd_obs_perf.close(perf);
	tierd_obs_damon.close(damon);
	tierd_lat_cha.close(cha);
	tierd_lat_amdl3.close(amdl3);
	tierd_lat_probe.close(probe);
	colloid_destroy(R.ctx);
	free(plan);
	free(midx);
	free(mok);
	free(mbad);
	free(first);
	free(R.scan_ns);
	free(R.pending);
	target_close(&R.t);
	if (pidfd >= 0)
		close(pidfd);
	close(sigfd);
	return rc;
}
