// SPDX-License-Identifier: MIT
/*
 * cli_host.c - the argument checks that ask the host (CPUs, NUMA nodes);
 * apart from cli.c so that a tool without NUMA placement (tiersim) links
 * without libnuma.
 */
#include "tbcli.h"

#include <errno.h>
#include <string.h>

void cli_cpus_check(bool given, int **cpus, int *n)
{
	int i, ret;

	if (given) {
		for (i = 0; i < *n; i++)
			if (cpu_check((*cpus)[i]))
				cli_bad_arg("--cpus: CPU %d does not exist or is not allowed for this process",
					    (*cpus)[i]);
		return;
	}
	ret = allowed_cpus(cpus, n);
	if (ret || !*n)
		cli_bad_arg("cannot read the allowed CPUs: %s",
			    strerror(ret ? -ret : ENODEV));
}

void cli_nodes_check(const int *nodes, int n, const char *request)
{
	int i, ret;

	for (i = 0; i < n; i++) {
		ret = node_check(nodes[i]);
		if (ret == -ENOSYS)
			cli_bad_arg("%s but the kernel has no NUMA support",
				    request);
		if (ret == -ENODEV)
			cli_bad_arg("node %d does not exist", nodes[i]);
		if (ret)
			cli_bad_arg("node %d has no memory or is not allowed",
				    nodes[i]);
	}
}
