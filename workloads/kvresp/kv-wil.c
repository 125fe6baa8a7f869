// SPDX-License-Identifier: MIT
/*
 * kv-wil: run a program under the kernel's weighted interleave memory policy (Linux 6.9+,
 * MPOL_WEIGHTED_INTERLEAVE), which Debian 12's numactl cannot set.
 *
 *   kv-wil --nodes 0,1 -- PROGRAM [ARG]...
 *
 * Pages of PROGRAM's new allocations go round robin over the nodes, node N taking as many pages in
 * a row as /sys/kernel/mm/mempolicy/weighted_interleave/nodeN says (the harness sets those weights
 * and restores them: they are system-wide). The policy is inherited across exec. Exit 1 (with the
 * reason) if the kernel lacks the policy, 2 on a usage error; else PROGRAM replaces this process.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MPOL_WEIGHTED_INTERLEAVE
#define MPOL_WEIGHTED_INTERLEAVE 6
#endif
#define MAX_NODE 1024

static void usage(void)
{
	fprintf(stderr, "usage: kv-wil --nodes LIST -- PROGRAM [ARG]...  (LIST: 0,1 or 0-1)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long mask[MAX_NODE / (8 * sizeof(unsigned long))] = { 0 };
	const unsigned bits = 8 * sizeof(unsigned long);
	char *list;
	int i = 1;

	if (argc < 5 || strcmp(argv[1], "--nodes") || strcmp(argv[3], "--"))
		usage();
	list = argv[2];
	for (char *t = strtok(list, ","); t; t = strtok(NULL, ",")) {
		char *end;
		long lo = strtol(t, &end, 10), hi = lo;
		if (end == t)
			usage();
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		if (*end || lo < 0 || hi < lo || hi >= MAX_NODE)
			usage();
		for (long n = lo; n <= hi; n++)
			mask[n / bits] |= 1UL << (n % bits);
	}
	i = 4;
	if (syscall(SYS_set_mempolicy, MPOL_WEIGHTED_INTERLEAVE, mask, MAX_NODE + 1) != 0) {
		fprintf(stderr, "kv-wil: error: set_mempolicy(MPOL_WEIGHTED_INTERLEAVE) failed: %s%s\n", strerror(errno),
			errno == EINVAL ? " (a kernel before 6.9, or a node without memory)" : "");
		return 1;
	}
	execvp(argv[i], argv + i);
	fprintf(stderr, "kv-wil: error: cannot run %s: %s\n", argv[i], strerror(errno));
	return 1;
}
