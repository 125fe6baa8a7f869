// SPDX-License-Identifier: MIT
/*
 * amdl3_plan(): tierd's AMD latency source against stand-in sysfs trees:
 * which CPUs (one per CCX of the default node, from the amd_l3 PMU's
 * cpumask), which data source stands for each tier (dram_near; dram_far for
 * a node with CPUs, ext_near+ext_far = CXL for a CPU-less one), the latency
 * unit (10 ns with >= 32 MiB of L3 per CCX, else 30 ns: AMD's PPR,
 * L3PMCxAC), and the config words the kernel's format files give (amd_l3 in
 * arch/x86/events/amd/uncore.c: event "config:0-7,32-35", umask
 * "config:8-15", enallslices "config:46", enallcores "config:47", sliceid
 * "config:48-50", threadmask "config:56-57"); Zen 3 and Intel refused.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tierd.h"

#include "sysfs_tree.h"

/* the amd_l3 PMU of a family 19h+ kernel, CCXs of 8 CPUs */
static void amd_l3(const char *cpumask, int formats)
{
	put("pmu/amd_l3/type", "13");
	put("pmu/amd_l3/cpumask", cpumask);
	put("pmu/amd_l3/format/event", "config:0-7,32-35");
	put("pmu/amd_l3/format/umask", "config:8-15");
	if (formats) {
		put("pmu/amd_l3/format/enallslices", "config:46");
		put("pmu/amd_l3/format/enallcores", "config:47");
		put("pmu/amd_l3/format/sliceid", "config:48-50");
		put("pmu/amd_l3/format/threadmask", "config:56-57");
	}
}

static uint64_t config_of(const char *spec)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	if (pmu_parse("amd_l3", spec, &a))
		return 0;
	return a.config;
}

static uint64_t want(unsigned int event, unsigned int umask)
{
	return event | (uint64_t)umask << 8 | 1ULL << 46 | 1ULL << 47 | 3ULL << 48 | 3ULL << 56;
}

int main(void)
{
	struct amdl3_plan p;
	char why[TIERD_WHY], dir[300];
	int ret;

	if (tree_begin("tierd-l3"))
		return 1;
	snprintf(dir, sizeof(dir), "%s/pmu", root);
	pmu_set_root(dir);
	snprintf(dir, sizeof(dir), "%s/sys", root);
	lat_set_sys_root(dir);

	fresh("Zen 4, CXL alternate (CPU-less node 1), 32 MiB L3 per CCX");
	amd_l3("0,8,16,24", 1);
	put("sys/node/node0/cpulist", "0-15");
	put("sys/node/node1/cpulist", "");
	put("sys/cpu/cpu0/cache/index3/size", "32768K");
	ret = amdl3_plan(&p, 2, 0x19, 0x11, 0, 1, why);
	CHECK(ret == 0, "plan: %s", why);
	CHECK(p.ncpu == 2 && p.cpus[0] == 0 && p.cpus[1] == 8, "CCX CPUs %d: %d %d", p.ncpu, p.cpus[0],
	      p.cpus[1]);
	CHECK(p.ns_per_unit == 10, "unit %g", p.ns_per_unit);
	CHECK(!strcmp(p.alternate, "ext_near+ext_far"), "alternate %s", p.alternate);
	CHECK(config_of(p.spec[0][0]) == want(0xac, 0x01), "default latency 0x%llx",
	      (unsigned long long)config_of(p.spec[0][0]));
	CHECK(config_of(p.spec[0][1]) == want(0xad, 0x01), "default requests");
	CHECK(config_of(p.spec[1][0]) == want(0xac, 0x30), "CXL latency 0x%llx",
	      (unsigned long long)config_of(p.spec[1][0]));
	CHECK(config_of(p.spec[1][1]) == want(0xad, 0x30), "CXL requests");

	fresh("Zen 5, two sockets (node 1 has CPUs), 16 MiB L3 per CCX");
	amd_l3("0,8,16,24", 1);
	put("sys/node/node0/cpulist", "0-15");
	put("sys/node/node1/cpulist", "16-31");
	put("sys/cpu/cpu0/cache/index3/size", "16384K");
	ret = amdl3_plan(&p, 2, 0x1a, 0x02, 0, 1, why);
	CHECK(ret == 0, "plan: %s", why);
	CHECK(!strcmp(p.alternate, "dram_far") && config_of(p.spec[1][0]) == want(0xac, 0x02),
	      "alternate %s 0x%llx", p.alternate, (unsigned long long)config_of(p.spec[1][0]));
	CHECK(p.ns_per_unit == 30, "unit %g (L3 below 32 MiB per CCX)", p.ns_per_unit);

	fresh("refusals");
	amd_l3("0,8", 1);
	put("sys/node/node0/cpulist", "0-15");
	put("sys/cpu/cpu0/cache/index3/size", "32768K");
	ret = amdl3_plan(&p, 2, 0x19, 0x21, 0, 1, why);	/* Zen 3 (Vermeer) */
	CHECK(ret == -ENOTSUP && strstr(why, "Zen 4"), "Zen 3: %d %s", ret, why);
	ret = amdl3_plan(&p, 1, 6, 0x8f, 0, 1, why);
	CHECK(ret == -ENOTSUP, "Intel: %d", ret);
	ret = amdl3_plan(&p, 2, 0x19, 0x11, 0, 1, why);
	CHECK(ret == 0, "Zen 4: %s", why);
	ret = amdl3_plan(&p, 2, 0x19, 0x11, 2, 1, why);	/* node 2: no CPUs */
	CHECK(ret == -ENOTSUP && strstr(why, "no CPUs"), "CPU-less default: %d %s", ret, why);
	put("pmu/amd_l3/cpumask", "16,24");
	ret = amdl3_plan(&p, 2, 0x19, 0x11, 0, 1, why);
	CHECK(ret == -ENOTSUP && strstr(why, "no amd_l3 CPU"), "no CCX on node 0: %d %s", ret, why);
	fresh("old kernel: no family 19h L3 fields");
	amd_l3("0", 0);
	put("sys/node/node0/cpulist", "0-15");
	ret = amdl3_plan(&p, 2, 0x19, 0x11, 0, 1, why);
	CHECK(ret == -ENOTSUP && strstr(why, "enallslices"), "%d %s", ret, why);
	fresh("no amd_l3 PMU");
	ret = amdl3_plan(&p, 2, 0x19, 0x11, 0, 1, why);
	CHECK(ret == -ENOENT, "%d %s", ret, why);

	return tree_end();
}
