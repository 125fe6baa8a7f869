// SPDX-License-Identifier: MIT
/*
 * latency.c - per-tier loaded latency for Colloid.
 *
 * 1. CHA TOR (Intel uncore, perf): per CHA box, TOR occupancy (event 0x36)
 *    and TOR inserts (0x35) of LLC-missing demand data reads, homed locally
 *    (default tier) or remotely (alternate tier: the other socket), plus CHA
 *    clockticks to turn cycles into ns.  Little's law: latency =
 *    occupancy / inserts.  Event encodings, with their provenance, are those
 *    documented in workflows/harness/counters.py (checked there against the
 *    kernel's uncore_snbep.c, perf's vendor event JSON and the Colloid
 *    authors' colloid-mon); this file only repeats them.  Not validated on
 *    hardware by this project.  TOR occupancy counts on counter 0 only and
 *    (SKX) the filter is per box, so as colloid-mon does, even boxes count
 *    local and odd boxes remote requests; both sums are scaled to all boxes.
 * 2. AMD L3 (Zen 4 and Zen 5): the L3 PMU's XI sampled latency, per data
 *    source: L3PMCxAC L3_XiSampledLatency and L3PMCxAD
 *    L3_XiSampledLatencyRequests (encodings: the kernel's
 *    tools/perf/pmu-events/arch/x86/amdzen5/l3-cache.json and amdzen4/
 *    cache.json, "l3_xi_sampled_latency.*" event 0xac and
 *    "l3_xi_sampled_latency_requests.*" event 0xad, umask dram_near 0x01,
 *    dram_far 0x02, ext_near 0x10, ext_far 0x20 (CXL), with EnAllCores=1,
 *    EnAllSlices=1, SliceId=3, ThreadMask=3).  AMD's PPR (L3PMCxAC): "if
 *    (L3Size-per-CCX >= 32MB) L3LatScalingFactor=10 else
 *    L3LatScalingFactor=30 ... Average Sampled Latency =
 *    L3_XiSampledLatency/L3_XiSampledLatencyRequests * L3LatScalingFactor
 *    ns", and EnAllSlices=1, SliceId=3 "must be programmed" for an accurate
 *    latency.  The sampled requests are not all requests, so this source
 *    gives latency only (traffic comes from the access samples, as with the
 *    probe).  The kernel's amd_l3 PMU (arch/x86/events/amd/uncore.c) names
 *    the fields enallslices "config:46", enallcores "config:47", sliceid
 *    "config:48-50", threadmask "config:56-57" (family 19h+); tierd lays
 *    them out from the PMU's sysfs format files.  Counted on each CCX of the
 *    default node (the PMU's cpumask names one CPU per CCX).  Zen 4/5 only:
 *    perf's mapfile (tools/perf/pmu-events/arch/x86/mapfile.csv,
 *    "AuthenticAMD-25-([245][[:xdigit:]]|[[:xdigit:]]),v1,amdzen3") has family
 *    25 models 00-0f, 20-2f and 40-5f as Zen 3 (no such events), the other
 *    family 25 models (10-1f, 30-3f, 60-) as Zen 4, family 26 as Zen 5.  Not validated on hardware by
 *    this project.
 * 3. Probe: one thread per tier chases a random cyclic pointer chain through
 *    a buffer bound (mbind) to that tier's node, a few hundred dependent
 *    loads once per quantum, and reports the mean time per load.  The buffer
 *    is larger than the LLC, so every load misses; it says what a load to
 *    that tier costs now, under the load that the workload and everybody
 *    else put on the tier.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <math.h>

#include "tierd.h"

/* ------------------------------------------------------------ helpers */

/* first CPU of @node, -1 if it has none */
static int node_first_cpu(int node)
{
	char path[96], buf[1024];

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
	if (read_text_file(path, buf, sizeof(buf)) || !buf[0])
		return -1;
	return atoi(buf);
}

static int cpu_package(int cpu)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
		 cpu);
	if (read_text_file(path, buf, sizeof(buf)))
		return -1;
	return atoi(buf);
}

/* ---------------------------------------------------------------- CHA */

#define MAX_BOX 256

/*
 * One uncore counter, read with PERF_FORMAT_TOTAL_TIME_ENABLED |
 * PERF_FORMAT_TOTAL_TIME_RUNNING ({ value, time_enabled, time_running },
 * perf_event_open(2) "Reading results").  When more events want a box's
 * counters than it has (another tool counting the same counter-0-only TOR
 * occupancy, say) the kernel multiplexes them and running < enabled; the
 * count is then scaled by enabled / running, as perf stat does
 * (perf_counts_values__scale(), tools/perf/util/counts.c), and the fraction
 * running / enabled is reported so a reader knows the count is an estimate.
 */
struct ctr {
	int fd;
	uint64_t v, en, run;	/* at the last read */
};

struct lat_cha {
	int nbox;
	struct ctr occ[MAX_BOX], ins[MAX_BOX], clk;
	uint64_t prev_t;
};

double ctr_scaled_delta(uint64_t dv, uint64_t den, uint64_t drun, double *frac)
{
	if (den == 0 || drun == 0) {	/* never on the PMU in this interval */
		*frac = den ? 0 : NAN;
		return den ? NAN : 0;
	}
	*frac = drun >= den ? 1 : (double)drun / (double)den;
	return drun >= den ? (double)dv : (double)dv * ((double)den / (double)drun);
}

/* the scaled increase since the last read; *frac: min running share */
static int ctr_read(struct ctr *c, double *delta, double *frac)
{
	uint64_t b[3];
	double f;

	if (read(c->fd, b, sizeof(b)) != sizeof(b))
		return -EIO;
	*delta = ctr_scaled_delta(b[0] - c->v, b[1] - c->en, b[2] - c->run, &f);
	if (!(f >= *frac))	/* NaN-safe min */
		*frac = isnan(*frac) ? f : (f < *frac ? f : *frac);
	c->v = b[0];
	c->en = b[1];
	c->run = b[2];
	return 0;
}

/* 1 GenuineIntel, 2 AuthenticAMD, 0 other; family and model from /proc/cpuinfo */
static int cpu_model(int *family, int *model)
{
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "re");
	int vendor = 0;

	*family = *model = -1;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "vendor_id", 9) && strstr(line, "GenuineIntel"))
			vendor = 1;
		else if (!strncmp(line, "vendor_id", 9) && strstr(line, "AuthenticAMD"))
			vendor = 2;
		else if (!strncmp(line, "cpu family", 10))
			*family = atoi(strchr(line, ':') + 1);
		else if (!strncmp(line, "model\t", 6) || !strncmp(line, "model :", 7))
			*model = atoi(strchr(line, ':') + 1);
		if (*family >= 0 && *model >= 0 && vendor)
			break;
	}
	fclose(f);
	return vendor;
}

/* @*parse_err set when the kernel's sysfs format could not lay @spec out (a
 * term it lacks, a value wider than the field), not perf_event_open() */
static int cha_open_one(const char *pmu, const char *spec, int cpu, struct ctr *c, int *parse_err)
{
	struct perf_event_attr a;
	int type = pmu_type(pmu), ret;
	long r;

	if (type < 0)
		return type;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = (uint32_t)type;
	ret = pmu_parse(pmu, spec, &a);
	if (ret) {
		*parse_err = 1;
		return ret;
	}
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	r = sys_perf_event_open(&a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (r < 0)
		return -errno;
	c->fd = (int)r;
	return 0;
}

int lat_cha_open(struct lat_cha **out, int default_node, int alternate_node, char *why)
{
	const char *occ_l, *occ_r, *ins_l, *ins_r, *clk;
	char pmu[32], buf[256];
	int family, model, cpu, cpu_alt, pkg, ret, sock_cpu = -1;
	struct lat_cha *c;

	if (cpu_model(&family, &model) != 1 || family != 6) {
		snprintf(why, TIERD_WHY, "CHA TOR counters need an Intel Xeon (family 6)");
		return -ENOTSUP;
	}
	/*
	 * icelakex, sapphirerapids and emeraldrapids uncore-cache.json (perf's
	 * pmu-events; intel/perfmon): UNC_CHA_TOR_{OCCUPANCY,INSERTS} (EventCode
	 * 0x36 / 0x35).IA_MISS_DRD_LOCAL (UMask 0x01, UMaskExt 0xC816FE) and
	 * .IA_MISS_DRD_REMOTE (UMaskExt 0xC8177E), the extension above the umask
	 * byte; UNC_CHA_CLOCKTICKS EventCode 0x00 (ICX), 0x01 (SPR, EMR).
	 * skylakex uncore-cache.json: .IA_MISS_DRD UMask 0x21 with Filter1 0x40433
	 * (DRd opcode 0x202, local/remote, near and not-near memory), written with
	 * the kernel's named SKX filter terms (arch/x86/events/intel/uncore_snbep.c
	 * skx_uncore_cha_formats_attr: filter_opc0, filter_loc, filter_rem,
	 * filter_nm, filter_not_nm), as workflows/harness/counters.py does.
	 */
	switch (model) {
	case 0x6a: case 0x6c:	/* Ice Lake SP */
	case 0x8f: case 0xcf:	/* Sapphire / Emerald Rapids */
		occ_l = "event=0x36,umask=0xc816fe01";
		occ_r = "event=0x36,umask=0xc8177e01";
		ins_l = "event=0x35,umask=0xc816fe01";
		ins_r = "event=0x35,umask=0xc8177e01";
		clk = model == 0x6a || model == 0x6c ? "event=0x00" : "event=0x01";
		break;
	case 0x55:		/* Skylake / Cascade Lake / Cooper Lake SP */
		occ_l = "event=0x36,umask=0x21,filter_opc0=0x202,filter_loc=1,filter_nm=1,filter_not_nm=1";
		occ_r = "event=0x36,umask=0x21,filter_opc0=0x202,filter_rem=1,filter_nm=1,filter_not_nm=1";
		ins_l = "event=0x35,umask=0x21,filter_opc0=0x202,filter_loc=1,filter_nm=1,filter_not_nm=1";
		ins_r = "event=0x35,umask=0x21,filter_opc0=0x202,filter_rem=1,filter_nm=1,filter_not_nm=1";
		clk = "event=0x00";
		break;
	default:
		snprintf(why, TIERD_WHY, "no CHA TOR event encodings known for family 6 model 0x%x",
			 model);
		return -ENOTSUP;
	}
	if (pmu_type("uncore_cha_0") < 0) {
		snprintf(why, TIERD_WHY, "no uncore_cha PMU under /sys/bus/event_source/devices");
		return -ENOENT;
	}
	cpu = node_first_cpu(default_node);
	cpu_alt = node_first_cpu(alternate_node);
	if (cpu < 0) {
		snprintf(why, TIERD_WHY, "default node %d has no CPUs: no socket to count on",
			 default_node);
		return -ENOTSUP;
	}
	pkg = cpu_package(cpu);
	if (cpu_alt < 0 || cpu_package(cpu_alt) == pkg) {
		snprintf(why, TIERD_WHY,
			 "node %d is not on another socket: CHA local/remote cannot tell the tiers "
			 "apart (CPU-less or same-socket node)", alternate_node);
		return -ENOTSUP;
	}
	/* the uncore PMU's cpumask names one CPU per socket */
	if (!read_text_file("/sys/bus/event_source/devices/uncore_cha_0/cpumask", buf, sizeof(buf))) {
		for (char *p = buf; *p;) {
			int v = atoi(p);

			if (cpu_package(v) == pkg) {
				sock_cpu = v;
				break;
			}
			p = strchr(p, ',');
			if (!p)
				break;
			p++;
		}
	}
	if (sock_cpu < 0)
		sock_cpu = cpu;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->clk.fd = -1;
	for (int b = 0; b < MAX_BOX; b++) {
		snprintf(pmu, sizeof(pmu), "uncore_cha_%d", b);
		if (pmu_type(pmu) < 0)
			break;
		int parse_err = 0;

		c->occ[b].fd = c->ins[b].fd = -1;
		ret = cha_open_one(pmu, b % 2 ? occ_r : occ_l, sock_cpu, &c->occ[b], &parse_err);
		if (!ret)
			ret = cha_open_one(pmu, b % 2 ? ins_r : ins_l, sock_cpu, &c->ins[b],
					   &parse_err);
		if (!ret && b == 0)
			ret = cha_open_one(pmu, clk, sock_cpu, &c->clk, &parse_err);
		c->nbox = b + 1;
		if (ret && parse_err) {
			snprintf(why, TIERD_WHY, "the kernel's %s format (sysfs format/) cannot "
				 "express the TOR events: %s (a term it lacks, or an umask wider "
				 "than its field)", pmu, strerror(-ret));
			lat_cha_close(c);
			return ret;
		}
		if (ret) {
			snprintf(why, TIERD_WHY, "perf_event_open(%s TOR) failed: %s", pmu,
				 strerror(-ret));
			lat_cha_close(c);
			return ret;
		}
	}
	if (c->nbox < 2) {
		snprintf(why, TIERD_WHY, "only one CHA box: cannot split local and remote");
		lat_cha_close(c);
		return -ENOTSUP;
	}
	{
		double d, f = NAN;

		for (int b = 0; b < c->nbox; b++) {
			ctr_read(&c->occ[b], &d, &f);
			ctr_read(&c->ins[b], &d, &f);
		}
		ctr_read(&c->clk, &d, &f);
	}
	c->prev_t = now_ns();
	*out = c;
	return 0;
}

int lat_cha_read(struct lat_cha *c, struct lat_sample s[2])
{
	double occ[2] = { 0, 0 }, ins[2] = { 0, 0 }, nb[2] = { 0, 0 };
	double clk, d, frac = NAN, ns_per_tick;
	uint64_t t = now_ns();

	if (ctr_read(&c->clk, &clk, &frac))
		return -EIO;
	ns_per_tick = clk > 0 ? (double)(t - c->prev_t) / clk : 0;
	c->prev_t = t;
	for (int b = 0; b < c->nbox; b++) {
		int g = b % 2;

		if (ctr_read(&c->occ[b], &d, &frac))
			return -EIO;
		occ[g] += d;
		if (ctr_read(&c->ins[b], &d, &frac))
			return -EIO;
		ins[g] += d;
		nb[g] += 1;
	}
	for (int g = 0; g < 2; g++) {
		/* each group sees its share of the address-hashed requests */
		double scale = nb[g] > 0 ? (double)c->nbox / nb[g] : 0;

		s[g].occupancy = occ[g] * ns_per_tick * scale;
		s[g].arrivals = ins[g] * scale;
		s[g].mean_ns = s[g].arrivals > 0 ? s[g].occupancy / s[g].arrivals : NAN;
		s[g].running = frac;
	}
	return 0;
}

void lat_cha_close(struct lat_cha *c)
{
	if (!c)
		return;
	for (int b = 0; b < c->nbox; b++) {
		if (c->occ[b].fd >= 0)
			close(c->occ[b].fd);
		if (c->ins[b].fd >= 0)
			close(c->ins[b].fd);
	}
	if (c->clk.fd >= 0)
		close(c->clk.fd);
	free(c);
}

/* ------------------------------------------------------------- AMD L3 */

static char sys_dir[256] = "/sys/devices/system";	/* node/, cpu/ (tests: a stand-in) */

void lat_set_sys_root(const char *dir)
{
	snprintf(sys_dir, sizeof(sys_dir), "%s", dir);
}

/* a kernel CPU list ("0-3,8") into out[] (at most max); returns the count */
static int parse_cpulist(const char *s, int *out, int max)
{
	int n = 0;

	while (*s && n < max) {
		char *end;
		long lo = strtol(s, &end, 10), hi = lo;

		if (end == s)
			break;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		for (long c = lo; c <= hi && n < max; c++)
			out[n++] = (int)c;
		s = *end == ',' ? end + 1 : end;
		if (*s == '\n')
			break;
	}
	return n;
}

static int node_cpus(int node, int *out, int max)
{
	char path[320], buf[4096];

	snprintf(path, sizeof(path), "%s/node/node%d/cpulist", sys_dir, node);
	if (read_text_file(path, buf, sizeof(buf)))
		return 0;
	return parse_cpulist(buf, out, max);
}

/* L3 bytes of @cpu's cache (sysfs cache/index3/size, "32768K"), -1 if unknown */
static long long l3_bytes(int cpu)
{
	char path[320], buf[64], *end;
	long long v;

	snprintf(path, sizeof(path), "%s/cpu/cpu%d/cache/index3/size", sys_dir, cpu);
	if (read_text_file(path, buf, sizeof(buf)))
		return -1;
	v = strtoll(buf, &end, 10);
	if (*end == 'K')
		v <<= 10;
	else if (*end == 'M')
		v <<= 20;
	return v > 0 ? v : -1;
}

int amdl3_plan(struct amdl3_plan *p, int vendor, int family, int model, int default_node,
	       int alternate_node, char *why)
{
	static const char *const need[] = { "enallslices", "enallcores", "sliceid", "threadmask" };
	int dcpu[1024], nd, acpu[4], na, mask[MAX_CCX], nm;
	char buf[4096], path[320];
	unsigned int umask[2];
	long long l3;

	memset(p, 0, sizeof(*p));
	if (vendor != 2 || !((family == 0x19 && !(model <= 0x0f || (model >= 0x20 && model <= 0x2f) ||
						  (model >= 0x40 && model <= 0x5f))) ||
			     family == 0x1a)) {
		snprintf(why, TIERD_WHY, "L3 sampled latency needs an AMD Zen 4 or Zen 5 (family 25 "
			 "but models 00-0f, 20-2f, 40-5f; or family 26)");
		return -ENOTSUP;
	}
	if (pmu_type("amd_l3") < 0) {
		snprintf(why, TIERD_WHY, "no amd_l3 PMU under %s", pmu_root());
		return -ENOENT;
	}
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!pmu_has_format("amd_l3", need[i])) {
			snprintf(why, TIERD_WHY, "amd_l3 has no '%s' format (a kernel before the family 19h "
				 "L3 fields)", need[i]);
			return -ENOTSUP;
		}
	nd = node_cpus(default_node, dcpu, 1024);
	if (nd <= 0) {
		snprintf(why, TIERD_WHY, "default node %d has no CPUs: no CCX to count on", default_node);
		return -ENOTSUP;
	}
	/* default tier: DRAM of the requesting CCX's node; alternate: another node's DRAM
	 * (a node with CPUs) or extension memory, CXL (a CPU-less node) */
	na = node_cpus(alternate_node, acpu, 4);
	umask[0] = 0x01;
	umask[1] = na > 0 ? 0x02 : 0x10 | 0x20;
	snprintf(p->alternate, sizeof(p->alternate), "%s", na > 0 ? "dram_far" : "ext_near+ext_far");
	snprintf(path, sizeof(path), "%s/amd_l3/cpumask", pmu_root());
	if (read_text_file(path, buf, sizeof(buf))) {
		snprintf(why, TIERD_WHY, "cannot read %s", path);
		return -ENOENT;
	}
	nm = parse_cpulist(buf, mask, MAX_CCX);
	for (int i = 0; i < nm; i++)
		for (int j = 0; j < nd; j++)
			if (mask[i] == dcpu[j] && p->ncpu < MAX_CCX)
				p->cpus[p->ncpu++] = mask[i];
	if (!p->ncpu) {
		snprintf(why, TIERD_WHY, "no amd_l3 CPU (one per CCX) is on the default node %d",
			 default_node);
		return -ENOTSUP;
	}
	l3 = l3_bytes(p->cpus[0]);
	if (l3 < 0) {
		snprintf(why, TIERD_WHY, "L3 size of CPU %d unknown: the latency unit (10 or 30 ns) "
			 "depends on it", p->cpus[0]);
		return -ENOENT;
	}
	p->ns_per_unit = l3 >= (32LL << 20) ? 10 : 30;
	for (int t = 0; t < 2; t++) {
		snprintf(p->spec[t][0], sizeof(p->spec[t][0]),
			 "event=0xac,umask=0x%x,enallslices=1,sliceid=3,enallcores=1,threadmask=3", umask[t]);
		snprintf(p->spec[t][1], sizeof(p->spec[t][1]),
			 "event=0xad,umask=0x%x,enallslices=1,sliceid=3,enallcores=1,threadmask=3", umask[t]);
	}
	return 0;
}

struct lat_amdl3 {
	struct amdl3_plan p;
	struct ctr c[MAX_CCX][2][2];	/* [ccx][tier][latency, requests] */
};

int lat_amdl3_open(struct lat_amdl3 **out, int default_node, int alternate_node, char *why)
{
	int family, model, vendor = cpu_model(&family, &model), ret;
	struct lat_amdl3 *l = calloc(1, sizeof(*l));

	if (!l)
		return -ENOMEM;
	ret = amdl3_plan(&l->p, vendor, family, model, default_node, alternate_node, why);
	if (ret) {
		free(l);
		return ret;
	}
	for (int i = 0; i < l->p.ncpu; i++)
		for (int t = 0; t < 2; t++)
			for (int k = 0; k < 2; k++)
				l->c[i][t][k].fd = -1;
	for (int i = 0; i < l->p.ncpu; i++)
		for (int t = 0; t < 2; t++)
			for (int k = 0; k < 2; k++) {
				double d, f = NAN;
				int parse_err = 0;

				ret = cha_open_one("amd_l3", l->p.spec[t][k], l->p.cpus[i], &l->c[i][t][k],
						   &parse_err);
				if (ret) {
					snprintf(why, TIERD_WHY, "%s(amd_l3 '%s' on CPU %d) failed: %s",
						 parse_err ? "laying out from the sysfs format" : "perf_event_open",
						 l->p.spec[t][k], l->p.cpus[i], strerror(-ret));
					lat_amdl3_close(l);
					return ret;
				}
				ctr_read(&l->c[i][t][k], &d, &f);
			}
	*out = l;
	return 0;
}

int lat_amdl3_read(struct lat_amdl3 *l, struct lat_sample s[2])
{
	double frac = NAN;

	for (int t = 0; t < 2; t++) {
		double lat = 0, req = 0, d;

		for (int i = 0; i < l->p.ncpu; i++) {
			if (ctr_read(&l->c[i][t][0], &d, &frac))
				return -EIO;
			lat += d;
			if (ctr_read(&l->c[i][t][1], &d, &frac))
				return -EIO;
			req += d;
		}
		s[t].mean_ns = req > 0 ? lat * l->p.ns_per_unit / req : NAN;
		s[t].arrivals = req;	/* sampled requests: not the tier's traffic */
		s[t].occupancy = req > 0 ? s[t].mean_ns * req : 0;
	}
	s[0].running = s[1].running = frac;
	return 0;
}

void lat_amdl3_close(struct lat_amdl3 *l)
{
	if (!l)
		return;
	for (int i = 0; i < l->p.ncpu; i++)
		for (int t = 0; t < 2; t++)
			for (int k = 0; k < 2; k++)
				if (l->c[i][t][k].fd >= 0)
					close(l->c[i][t][k].fd);
	free(l);
}

/* -------------------------------------------------------------- probe */

struct probe_tier {
	struct lat_probe *p;
	int node;
	void *buf;
	size_t bytes;
	void **cur;		/* where the chase continues */
	pthread_t thr;
	int started;
	double sum_ns;
	uint64_t loads;
	uint64_t rehomed;	/* pages moved back to @node while the probe ran (probe_home) */
	int lost;		/* a move back failed: said once, then no more tries */
};

struct lat_probe {
	struct probe_tier t[2];
	unsigned int loads;
	int cpu;
	uint64_t period_ns;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop;
};

/* how often a probe thread checks that its buffer is still on its node (probe_home) */
#define PROBE_HOME_NS 1000000000ULL

static void **chase(void **p, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		p = (void **)*p;
	return p;
}

/*
 * Move every page of @pt's buffer that is not on its node back there.  A
 * tiering mechanism under test may move them: a migration by physical
 * address "ignores all cpuset and mempolicy settings" (the kernel's
 * mm/damon/paddr.c), so the buffer's MPOL_BIND does not keep it on its
 * node, and a fresh buffer looks cold to an access monitor until it has seen
 * the probe's loads.  move_pages(2): with @nodes NULL @status gets each
 * page's node; with @nodes and MPOL_MF_MOVE the pages mapped only by this
 * process move to them.  Returns the pages moved (0: all were home), or -1
 * with @why said when the query or the move fails or pages stay elsewhere.
 */
/* Ask where @n @pages are (move_pages with no nodes: @st gets each one's
 * node) and pack those away from @pt's node at the front: their count, or -1
 * with @why said when the query fails. */
static long pages_away(const struct probe_tier *pt, void **pages, size_t n, int *st, char *why)
{
	size_t left = 0;

	if (move_pages(0, n, pages, NULL, st, 0)) {
		snprintf(why, TIERD_WHY, "probe buffer: move_pages (query) failed: %s", strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (st[i] >= 0 && st[i] != pt->node)
			pages[left++] = pages[i];
	return (long)left;
}

static long probe_home(struct probe_tier *pt, char *why)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE), n = pt->bytes / psz, off, away, i;
	void **pages = malloc(n * sizeof(*pages));
	int *nodes = malloc(n * sizeof(*nodes)), *st = malloc(n * sizeof(*st));
	long ret = -1, left;

	if (!pages || !nodes || !st) {
		snprintf(why, TIERD_WHY, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		pages[i] = (char *)pt->buf + i * psz;
		nodes[i] = pt->node;
	}
	left = pages_away(pt, pages, n, st, why);
	if (left < 0)
		goto out;
	off = (size_t)left;
	/*
	 * Move them, then ask again where they are: the move's own status is no
	 * answer for a transparent huge page, whose 4 KiB pages after the first
	 * report -EBUSY once the first has isolated it (mm/migrate.c,
	 * add_folio_for_migration: folio_isolate_lru fails) though it moves whole.
	 * A page the mechanism is migrating at that moment is busy too: a few tries.
	 */
	away = off;
	for (int tries = 0; away && tries < 3; tries++) {
		(void)move_pages(0, away, pages, nodes, st, MPOL_MF_MOVE);
		left = pages_away(pt, pages, away, st, why);
		if (left < 0)
			goto out;
		away = (size_t)left;
	}
	if (away) {
		snprintf(why, TIERD_WHY, "probe buffer: %zu of %zu pages left node %d (a tiering mechanism moved them) and "
			 "%zu could not be moved back", off, n, pt->node, away);
		goto out;
	}
	ret = (long)off;
out:
	free(pages);
	free(nodes);
	free(st);
	return ret;
}

static int probe_buffer(struct probe_tier *pt, size_t bytes, char *why)
{
	size_t lines = bytes / 64, i;
	unsigned long mask[64] = { 0 };
	uint32_t *perm;
	struct rng rng;
	long moved;

	if ((size_t)pt->node >= sizeof(mask) * 8) {
		snprintf(why, TIERD_WHY, "node %d out of range for the probe", pt->node);
		return -EINVAL;
	}
	pt->bytes = lines * 64;
	pt->buf = mmap(NULL, pt->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pt->buf == MAP_FAILED) {
		pt->buf = NULL;
		snprintf(why, TIERD_WHY, "probe buffer: mmap of %zu bytes failed", pt->bytes);
		return -ENOMEM;
	}
	madvise(pt->buf, pt->bytes, MADV_HUGEPAGE);
	mask[pt->node / (8 * sizeof(long))] |= 1UL << (pt->node % (8 * sizeof(long)));
	if (mbind(pt->buf, pt->bytes, MPOL_BIND, mask, sizeof(mask) * 8, 0)) {
		snprintf(why, TIERD_WHY, "probe buffer: mbind to node %d failed: %s", pt->node,
			 strerror(errno));
		return -errno;
	}
	perm = malloc(lines * sizeof(*perm));
	if (!perm) {
		snprintf(why, TIERD_WHY, "out of memory");
		return -ENOMEM;
	}
	/* Sattolo: a random permutation that is one cycle over all lines */
	rng_seed(&rng, (uint64_t)pt->node, 0x70726f6265);	/* "probe" */
	for (i = 0; i < lines; i++)
		perm[i] = (uint32_t)i;
	for (i = lines - 1; i > 0; i--) {
		size_t j = (size_t)rng_below(&rng, i);
		uint32_t tmp = perm[i];

		perm[i] = perm[j];
		perm[j] = tmp;
	}
	for (i = 0; i < lines; i++)
		*(void **)((char *)pt->buf + i * 64) = (char *)pt->buf + (size_t)perm[i] * 64;
	free(perm);
	pt->cur = pt->buf;
	/* every page on its node before the chase starts (a tiering mechanism may have moved some) */
	moved = probe_home(pt, why);
	if (moved < 0)
		return -EIO;
	if (moved)
		fprintf(stderr, "tierd: note: %ld page(s) of the node-%d probe buffer had left it (a tiering "
			"mechanism moved them); moved back\n", moved, pt->node);
	return 0;
}

static void *probe_thread(void *arg)
{
	struct probe_tier *pt = arg;
	struct lat_probe *p = pt->p;
	struct timespec dl;
	uint64_t next_home = now_ns() + PROBE_HOME_NS;
	char why[TIERD_WHY];

	clock_gettime(CLOCK_MONOTONIC, &dl);
	pthread_mutex_lock(&p->mu);
	while (!p->stop) {
		uint64_t t0, t1;

		dl.tv_nsec += (long)(p->period_ns % 1000000000ULL);
		dl.tv_sec += (time_t)(p->period_ns / 1000000000ULL);
		if (dl.tv_nsec >= 1000000000L) {
			dl.tv_nsec -= 1000000000L;
			dl.tv_sec++;
		}
		while (!p->stop && pthread_cond_timedwait(&p->cv, &p->mu, &dl) != ETIMEDOUT)
			;
		if (p->stop)
			break;
		pthread_mutex_unlock(&p->mu);
		t0 = now_ns();
		pt->cur = chase(pt->cur, p->loads);
		t1 = now_ns();
		if (t1 >= next_home && !pt->lost) {	/* once a second: still on its node? */
			long moved = probe_home(pt, why);

			next_home = t1 + PROBE_HOME_NS;
			if (moved > 0)
				pt->rehomed += (uint64_t)moved;
			if (moved < 0) {
				pt->lost = 1;
				fprintf(stderr, "tierd: warning: %s; the node-%d probe's latencies from now on mix "
					"the tiers\n", why, pt->node);
			}
		}
		pthread_mutex_lock(&p->mu);
		pt->sum_ns += (double)(t1 - t0);
		pt->loads += p->loads;
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

double lat_probe_unloaded(struct lat_probe *p, unsigned int tier)
{
	struct probe_tier *pt = &p->t[tier];
	unsigned int n = 100000;
	uint64_t t0;

	pt->cur = chase(pt->cur, 1000); /* warm the TLB path */
	t0 = now_ns();
	pt->cur = chase(pt->cur, n);
	return (double)(now_ns() - t0) / n;
}

int lat_probe_open(struct lat_probe **out, const int nodes[2], size_t bytes, unsigned int loads,
		   int cpu, uint64_t period_ns, char *why)
{
	struct lat_probe *p = calloc(1, sizeof(*p));
	pthread_condattr_t ca;
	int ret;

	if (!p) {
		snprintf(why, TIERD_WHY, "out of memory");
		return -ENOMEM;
	}
	p->loads = loads;
	p->cpu = cpu;
	p->period_ns = period_ns;
	pthread_mutex_init(&p->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cv, &ca);
	pthread_condattr_destroy(&ca);
	for (int i = 0; i < 2; i++) {
		p->t[i].p = p;
		p->t[i].node = nodes[i];
		ret = probe_buffer(&p->t[i], bytes, why);
		if (ret)
			goto err;
	}
	*out = p;
	return 0;
err:
	lat_probe_close(p);
	return ret;
}

/* start the threads (after lat_probe_unloaded) */
int lat_probe_start(struct lat_probe *p, char *why)
{
	for (int i = 0; i < 2; i++) {
		pthread_attr_t at;
		int ret;

		pthread_attr_init(&at);
		if (p->cpu >= 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(p->cpu, &set);
			pthread_attr_setaffinity_np(&at, sizeof(set), &set);
		}
		ret = pthread_create(&p->t[i].thr, &at, probe_thread, &p->t[i]);
		pthread_attr_destroy(&at);
		if (ret) {
			snprintf(why, TIERD_WHY, "cannot start a probe thread: %s", strerror(ret));
			return -ret;
		}
		p->t[i].started = 1;
	}
	return 0;
}

int lat_probe_read(struct lat_probe *p, struct lat_sample s[2])
{
	pthread_mutex_lock(&p->mu);
	for (int i = 0; i < 2; i++) {
		struct probe_tier *pt = &p->t[i];

		s[i].occupancy = pt->sum_ns;
		s[i].arrivals = (double)pt->loads;
		s[i].mean_ns = pt->loads ? pt->sum_ns / (double)pt->loads : NAN;
		s[i].running = NAN;	/* no counters */
		pt->sum_ns = 0;
		pt->loads = 0;
	}
	pthread_mutex_unlock(&p->mu);
	return 0;
}

void lat_probe_close(struct lat_probe *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < 2; i++) {
		if (p->t[i].started)
			pthread_join(p->t[i].thr, NULL);
		if (p->t[i].rehomed)
			fprintf(stderr, "tierd: note: %llu page(s) of the node-%d probe buffer were moved off it while "
				"the probe ran (a tiering mechanism); moved back within a second each time\n",
				(unsigned long long)p->t[i].rehomed, p->t[i].node);
		if (p->t[i].buf)
			munmap(p->t[i].buf, p->t[i].bytes);
	}
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p);
}
