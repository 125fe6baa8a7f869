// SPDX-License-Identifier: MIT
/*
 * obs_perf_plan() against stand-in sysfs PMU trees: the perf_event_attr
 * tierd opens for the sampling PMUs of Ice Lake SP (mem-loads alone),
 * Sapphire/Emerald/Granite Rapids (mem-loads-aux group leader), a hybrid
 * part (cpu_core), AMD Zen 4+ (ibs_op cnt_ctl + l3missonly), Zen 2/3
 * (cnt_ctl only) and an IBS without cnt_ctl (refused); and the sample
 * record parser.  The sysfs contents are the kernel's own strings:
 * arch/x86/events/intel/core.c (EVENT_ATTR_STR mem-loads mem_ld_hsw
 * "event=0xcd,umask=0x1,ldlat=3"; mem-stores mem_st_hsw "event=0xd0,
 * umask=0x82" on Ice Lake, icl_events_attrs, and mem_st_spr "event=0xcd,
 * umask=0x2" on Sapphire Rapids and later, glc_events_attrs; mem-loads-aux
 * "event=0x03,umask=0x82"; PMU_FORMAT_ATTR event "config:0-7", umask
 * "config:8-15", ldlat "config1:0-15") and arch/x86/events/amd/ibs.c
 * (cnt_ctl "config:19", l3missonly "config:16").
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tierd.h"

#ifndef PERF_MEM_LVLNUM_CXL
#define PERF_MEM_LVLNUM_CXL 0x09	/* include/uapi/linux/perf_event.h (6.1: "perf/mem: Rename
					 * PERF_MEM_LVLNUM_EXTN_MEM to PERF_MEM_LVLNUM_CXL") */
#endif

#include "sysfs_tree.h"

static void intel_core(const char *pmu, int aux)
{
	char p[128];

	snprintf(p, sizeof(p), "%s/type", pmu);
	put(p, "4");
	snprintf(p, sizeof(p), "%s/format/event", pmu);
	put(p, "config:0-7");
	snprintf(p, sizeof(p), "%s/format/umask", pmu);
	put(p, "config:8-15");
	snprintf(p, sizeof(p), "%s/format/ldlat", pmu);
	put(p, "config1:0-15");
	snprintf(p, sizeof(p), "%s/events/mem-loads", pmu);
	put(p, "event=0xcd,umask=0x1,ldlat=3");
	snprintf(p, sizeof(p), "%s/events/mem-stores", pmu);
	put(p, aux ? "event=0xcd,umask=0x2" : "event=0xd0,umask=0x82");
	if (aux) {
		snprintf(p, sizeof(p), "%s/events/mem-loads-aux", pmu);
		put(p, "event=0x03,umask=0x82");
	}
}

static void check_intel(const struct perf_plan *p, int aux)
{
	CHECK(p->load.type == 4, "load type %u", p->load.type);
	CHECK(p->load.config == 0x01cd, "mem-loads config 0x%llx", (unsigned long long)p->load.config);
	CHECK(p->load.config1 == 64, "ldlat (config1) %llu, want tierd's 64",
	      (unsigned long long)p->load.config1);
	CHECK(p->load.sample_period == 1000, "load period %llu", (unsigned long long)p->load.sample_period);
	CHECK(p->load.sample_type & PERF_SAMPLE_WEIGHT_STRUCT, "load samples carry no weight");
	CHECK(p->load.sample_type & PERF_SAMPLE_ADDR, "load samples carry no address");
	CHECK(p->load.sample_type & PERF_SAMPLE_DATA_SRC, "Intel loads without DATA_SRC (cache hits kept)");
	CHECK(p->load.precise_ip == 2 && p->load.exclude_kernel, "precise/exclude");
	CHECK(p->have_aux == aux, "have_aux %d, want %d", p->have_aux, aux);
	if (aux) {
		CHECK(p->aux.config == 0x8203, "mem-loads-aux config 0x%llx",
		      (unsigned long long)p->aux.config);
		CHECK(p->aux.sample_period == 0, "the aux leader samples");
		CHECK(p->aux.type == p->load.type, "aux on another PMU");
		CHECK(strstr(p->name, "mem-loads-aux"), "name '%s'", p->name);
	}
	CHECK(p->have_store && p->store.config == (aux ? 0x02cdull : 0x82d0ull), "mem-stores config 0x%llx",
	      (unsigned long long)p->store.config);
	CHECK(p->store.config1 == 0, "stores carry an ldlat");
	CHECK(p->store.sample_period == 5000, "store period");
	CHECK(p->load_scale == 1000 && p->store_scale == 5000, "scales %g %g", p->load_scale,
	      p->store_scale);
	CHECK(!p->ibs, "ibs set on Intel");
}

static void ibs(int cnt_ctl, int l3)
{
	put("ibs_op/type", "11");
	if (cnt_ctl)
		put("ibs_op/format/cnt_ctl", "config:19");
	if (l3) {
		put("ibs_op/format/l3missonly", "config:16");
		put("ibs_op/caps/zen4_ibs_extensions", "1");
	}
	/* an AMD core PMU has no mem-loads alias */
	put("cpu/type", "4");
	put("cpu/format/event", "config:0-7,32-35");
}

int main(void)
{
	struct perf_plan p;
	char why[TIERD_WHY];
	int ret;

	if (tree_begin("tierd-pmu"))
		return 1;
	pmu_set_root(root);

	fresh("Ice Lake SP: mem-loads alone");
	intel_core("cpu", 0);
	ret = obs_perf_plan(&p, 1000, 5000, why);
	CHECK(ret == 0, "plan: %s", why);
	check_intel(&p, 0);

	fresh("Sapphire/Emerald/Granite Rapids: {mem-loads-aux, mem-loads}");
	intel_core("cpu", 1);
	ret = obs_perf_plan(&p, 1000, 5000, why);
	CHECK(ret == 0, "plan: %s", why);
	check_intel(&p, 1);

	fresh("hybrid: cpu_core with mem-loads-aux, cpu_atom without");
	intel_core("cpu_core", 1);
	put("cpu_atom/type", "10");
	ret = obs_perf_plan(&p, 1000, 5000, why);
	CHECK(ret == 0, "plan: %s", why);
	check_intel(&p, 1);
	CHECK(!strcmp(p.pmu, "cpu_core"), "pmu %s", p.pmu);
	CHECK(strstr(p.name, "P-cores only"), "the E-cores' loads unsampled, unsaid: '%s'", p.name);

	fresh("AMD Zen 4/5: ibs_op cnt_ctl + l3missonly");
	ibs(1, 1);
	ret = obs_perf_plan(&p, 1003, 5000, why);
	CHECK(ret == 0, "plan: %s", why);
	CHECK(p.ibs && p.ibs_l3missonly, "ibs %d l3missonly %d", p.ibs, p.ibs_l3missonly);
	CHECK(p.load.type == 11, "type %u", p.load.type);
	CHECK(p.load.config == ((1ULL << 19) | (1ULL << 16)), "config 0x%llx",
	      (unsigned long long)p.load.config);
	CHECK(p.load.sample_period == 992, "period %llu (1003 with the low 4 bits cleared: 992)",
	      (unsigned long long)p.load.sample_period);
	CHECK(!p.load.exclude_kernel && !p.load.exclude_hv && !p.load.precise_ip,
	      "IBS takes no exclude bits (PERF_PMU_CAP_NO_EXCLUDE)");
	CHECK(p.load.sample_type & PERF_SAMPLE_DATA_SRC, "no DATA_SRC: loads and stores not told apart");
	CHECK(p.load.sample_type & PERF_SAMPLE_WEIGHT_STRUCT, "no weight");
	CHECK(p.load_scale == 992 && p.store_scale == 992,
	      "IBS samples stand for the op period: %g %g", p.load_scale, p.store_scale);
	CHECK(!p.have_aux && !p.have_store, "aux/store on IBS");

	fresh("AMD Zen 2/3: ibs_op cnt_ctl only");
	ibs(1, 0);
	ret = obs_perf_plan(&p, 8, 5000, why);
	CHECK(ret == 0, "plan: %s", why);
	CHECK(p.load.config == (1ULL << 19) && !p.ibs_l3missonly, "config 0x%llx",
	      (unsigned long long)p.load.config);
	CHECK(p.load.sample_period == 0x10, "period %llu, want the minimum 16",
	      (unsigned long long)p.load.sample_period);

	fresh("IBS without cnt_ctl: refused");
	ibs(0, 0);
	ret = obs_perf_plan(&p, 1000, 5000, why);
	CHECK(ret == -ENOTSUP, "ret %d", ret);
	CHECK(strstr(why, "cycles"), "why '%s'", why);

	fresh("no PMU");
	ret = obs_perf_plan(&p, 1000, 5000, why);
	CHECK(ret == -ENOENT && strstr(why, "no hardware PMU"), "ret %d why '%s'", ret, why);

	printf("-- sample records\n");
	{
		union perf_mem_data_src ds = { .val = 0 };
		uint64_t rec[4] = { 0 }, st;
		struct perf_sample s;

		ds.mem_op = PERF_MEM_OP_LOAD;
		ds.mem_lvl = PERF_MEM_LVL_LOC_RAM | PERF_MEM_LVL_HIT;
		rec[0] = (uint64_t)123 | ((uint64_t)456 << 32);
		rec[1] = 0x7f0000001000ULL;
		rec[2] = 321 | ((uint64_t)77 << 32);	/* var1_dw 321, var2_w 77 */
		rec[3] = ds.val;
		st = PERF_SAMPLE_TID | PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT_STRUCT |
		     PERF_SAMPLE_DATA_SRC;
		CHECK(perf_sample_parse(st, rec, 4, &s) == 0, "parse");
		CHECK(s.pid == 123 && s.tid == 456, "pid %u tid %u", s.pid, s.tid);
		CHECK(s.addr == 0x7f0000001000ULL, "addr");
		CHECK(s.has_lat && s.lat == 321, "lat %u", s.lat);
		CHECK(s.has_src && s.data_src == ds.val, "data_src");
		CHECK(!perf_src_cache_hit(s.data_src), "local DRAM taken for a cache hit");
		CHECK(perf_sample_parse(st, rec, 3, &s) == -EINVAL, "short record accepted");
		/* without a weight the data source follows the address */
		st = PERF_SAMPLE_TID | PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
		rec[2] = ds.val;
		CHECK(perf_sample_parse(st, rec, 3, &s) == 0 && s.data_src == ds.val && !s.has_lat,
		      "layout without weight");
		/* PERF_SAMPLE_WEIGHT: latency in weight.full */
		st = PERF_SAMPLE_TID | PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT;
		rec[2] = 250;
		CHECK(perf_sample_parse(st, rec, 3, &s) == 0 && s.lat == 250, "WEIGHT lat %u", s.lat);
		ds.mem_lvl = PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT;
		CHECK(perf_src_cache_hit(ds.val), "L1 hit not a cache hit");
		ds.mem_lvl = PERF_MEM_LVL_L3 | PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_HIT;
		CHECK(perf_src_cache_hit(ds.val), "L3 hit not a cache hit");
		ds.mem_lvl = PERF_MEM_LVL_NA;
		ds.mem_lvl_num = PERF_MEM_LVLNUM_CXL;
		CHECK(!perf_src_cache_hit(ds.val), "CXL taken for a cache hit");
		/* another CCX's cache and a fill buffer (ibs.c: L(REM_CCE2) | LN(ANY_CACHE),
		 * L(LFB) | LN(LFB)): served by a cache, dropped */
		ds.val = 0;
		ds.mem_lvl = PERF_MEM_LVL_REM_CCE2 | PERF_MEM_LVL_HIT;
		ds.mem_lvl_num = 0x0b;	/* PERF_MEM_LVLNUM_ANY_CACHE */
		CHECK(perf_src_cache_hit(ds.val), "another CCX's cache taken for memory");
		ds.val = 0;
		ds.mem_lvl = PERF_MEM_LVL_LFB | PERF_MEM_LVL_HIT;
		ds.mem_lvl_num = 0x0c;	/* PERF_MEM_LVLNUM_LFB */
		CHECK(perf_src_cache_hit(ds.val), "a fill-buffer hit taken for memory");
		/* local and remote DRAM, PMEM: memory, kept */
		ds.val = 0;
		ds.mem_lvl = PERF_MEM_LVL_LOC_RAM | PERF_MEM_LVL_HIT;
		ds.mem_lvl_num = PERF_MEM_LVLNUM_RAM;
		CHECK(!perf_src_cache_hit(ds.val), "local DRAM taken for a cache hit");
		ds.mem_lvl = PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_HIT;
		ds.mem_remote = 1;
		CHECK(!perf_src_cache_hit(ds.val), "remote DRAM taken for a cache hit");
		ds.val = 0;
		ds.mem_lvl = PERF_MEM_LVL_NA;
		ds.mem_lvl_num = PERF_MEM_LVLNUM_PMEM;
		CHECK(!perf_src_cache_hit(ds.val), "PMEM taken for a cache hit");
	}

	return tree_end();
}
