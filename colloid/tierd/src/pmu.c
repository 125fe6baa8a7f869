// SPDX-License-Identifier: MIT
/*
 * pmu.c - perf_event_open helpers: turn "event=0x36,umask=0x...,filter_nm=1"
 * into perf_event_attr config words with the PMU's own sysfs format
 * description (/sys/bus/event_source/devices/<pmu>/format/<term>, e.g.
 * "config:8-15,32-55"), as perf(1) does, so no bit layout is hard-coded.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tierd.h"

/* where the PMUs are; tests point it at a stand-in tree (pmu_set_root) */
static char pmu_dir[256] = "/sys/bus/event_source/devices";

void pmu_set_root(const char *dir)
{
	snprintf(pmu_dir, sizeof(pmu_dir), "%s", dir);
}

const char *pmu_root(void)
{
	return pmu_dir;
}

long sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			 unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

int pmu_type(const char *pmu)
{
	char path[320], buf[32];
	int ret;

	snprintf(path, sizeof(path), "%s/%s/type", pmu_dir, pmu);
	ret = read_text_file(path, buf, sizeof(buf));
	if (ret)
		return ret;
	return atoi(buf);
}

int pmu_event_alias(const char *pmu, const char *name, char *buf, size_t len)
{
	char path[384];

	snprintf(path, sizeof(path), "%s/%s/events/%s", pmu_dir, pmu, name);
	return read_text_file(path, buf, len);
}

int pmu_has_format(const char *pmu, const char *term)
{
	char path[384], buf[64];

	snprintf(path, sizeof(path), "%s/%s/format/%s", pmu_dir, pmu, term);
	return read_text_file(path, buf, sizeof(buf)) == 0;
}

/* deposit the low bits of @val into the bit ranges of format @fmt */
static int put_term(const char *fmt, uint64_t val, struct perf_event_attr *attr)
{
	const char *p = strchr(fmt, ':');
	__u64 *word;

	if (!strncmp(fmt, "config:", 7))
		word = &attr->config;
	else if (!strncmp(fmt, "config1:", 8))
		word = &attr->config1;
	else if (!strncmp(fmt, "config2:", 8))
		word = &attr->config2;
	else
		return -EINVAL;
	p++;
	while (*p) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p || lo < 0 || lo > 63)
			return -EINVAL;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			p = end;
		}
		if (hi < lo || hi > 63)
			return -EINVAL;
		for (long b = lo; b <= hi; b++) {
			if (val & 1)
				*word |= 1ULL << b;
			else
				*word &= ~(1ULL << b);
			val >>= 1;
		}
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
	}
	return val ? -ERANGE : 0;
}

int pmu_parse(const char *pmu, const char *spec, struct perf_event_attr *attr)
{
	char buf[512], path[512], fmt[128];
	char *save = NULL, *tok;
	int ret;

	if (strlen(spec) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, spec);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		uint64_t val = 1;

		if (eq) {
			*eq = '\0';
			val = strtoull(eq + 1, NULL, 0);
		}
		snprintf(path, sizeof(path), "%s/%s/format/%s", pmu_dir, pmu, tok);
		ret = read_text_file(path, fmt, sizeof(fmt));
		if (ret)
			return -ENOENT;
		ret = put_term(fmt, val, attr);
		if (ret)
			return ret;
	}
	return 0;
}
