// SPDX-License-Identifier: MIT
/*
 * filler: holds a NUMA node's free memory but for --leave bytes, locked, so
 * that a policy the harness cannot limit otherwise (the kernel's TPP) has the
 * same capacity of that node as one it can (tierd's --capacity). See README.md.
 */
#include "tbcli.h"
#include "tbutil.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PROG "filler"
#define CHUNK (2UL << 20)

const char cli_prog[] = PROG;

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " --mem-node N --leave SIZE [OPTION]...\n"
"Allocate, touch and lock (mlock) the free memory of NUMA node N but for SIZE\n"
"bytes, then hold it until SIGINT/SIGTERM. Locked pages are neither swapped\n"
"nor demoted, so N keeps about SIZE bytes for other programs.\n"
"Writes one CSV row: node,free_before_bytes,leave_bytes,held_bytes,free_after_bytes.\n"
"\n"
"  --mem-node N           the node to fill (required)\n"
"  --leave SIZE           bytes of N to leave free (K/M/G suffixes; required)\n"
"  --max SIZE             hold at most SIZE bytes; default: no limit\n"
"  --output FILE          the CSV row; default stdout\n"
"  --ready-file FILE      create FILE once the memory is held\n"
"  -h, --help             this text\n"
"\n"
"Exit status: 0 after SIGINT/SIGTERM, 1 runtime failure (e.g. mlock refused:\n"
"run as root or raise RLIMIT_MEMLOCK), 2 bad arguments.\n");
}

enum { OPT_NODE = 256, OPT_LEAVE, OPT_MAX, OPT_OUTPUT, OPT_READY };

static const struct option longopts[] = {
	{ "mem-node", required_argument, NULL, OPT_NODE },
	{ "leave", required_argument, NULL, OPT_LEAVE },
	{ "max", required_argument, NULL, OPT_MAX },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "ready-file", required_argument, NULL, OPT_READY },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	const char *output = NULL, *ready = NULL;
	uint64_t leave = 0, before = 0, after = 0, held = 0, max = UINT64_MAX;
	bool leave_given = false;
	int node = -1, c, ret, sig;
	char *end;
	void *p = NULL;
	FILE *out;
	sigset_t sigs;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_NODE:
			errno = 0;
			node = (int)strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || node < 0)
				cli_bad_arg("--mem-node: '%s' is not a node number", optarg);
			break;
		case OPT_LEAVE:
			leave = cli_size("--leave", optarg);
			leave_given = true;
			break;
		case OPT_MAX:
			max = cli_size("--max", optarg);
			break;
		case OPT_OUTPUT:
			output = optarg;
			break;
		case OPT_READY:
			ready = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			cli_bad_option(c, argv);
		}
	}
	cli_no_operands(argc, argv);
	if (node < 0 || !leave_given)
		cli_bad_arg("--mem-node and --leave are required");
	cli_nodes_check(&node, 1, "--mem-node");

	sig_block_stop(&sigs);
	if (cli_open_output(output, &out))
		return 1;
	ret = node_free(node, &before);
	if (ret) {
		cli_fail("cannot read the free memory of node %d: %s", node, strerror(-ret));
		return 1;
	}
	if (before > leave)
		held = before - leave < max ? before - leave : max;
	held = held / CHUNK * CHUNK;
	if (held) {
		ret = region_map(held, HUGE_AUTO, &node, 1, 0, &p);
		if (ret) {
			cli_fail("cannot map %" PRIu64 " bytes on node %d: %s", held, node, strerror(-ret));
			return 1;
		}
		/* mlock faults every page in (bound to the node) and keeps it resident */
		if (mlock(p, held)) {
			cli_fail("cannot lock %" PRIu64 " bytes on node %d: %s", held, node, strerror(errno));
			return 1;
		}
	}
	node_free(node, &after);
	fprintf(out, "node,free_before_bytes,leave_bytes,held_bytes,free_after_bytes\n");
	fprintf(out, "%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", node, before, leave, held, after);
	if (cli_close_output(out, output, 0))
		return 1;
	if (ready && (ret = create_flag_file(ready))) {
		cli_fail("cannot create --ready-file '%s': %s", ready, strerror(-ret));
		return 1;
	}
	do /* an hour at a time: sig_wait_until() takes a finite time */
		sig = sig_wait_until(&sigs, now_s() + 3600);
	while (!sig);
	region_unmap(p, held);
	return 0;
}
