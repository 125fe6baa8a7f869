// SPDX-License-Identifier: MIT
/*
 * tbprobe - independent page-placement probe for the tierbench QEMU guest.
 *
 *   tbprobe nodes PID
 *       Query, with move_pages(2) status (nodes = NULL, nothing moves), the
 *       node of every 4 KiB page of PID's largest private writable mapping.
 *       Prints one line shaped like a numa_maps entry:
 *         move_pages N0=<pages> N1=<pages> absent=<pages>
 *   tbprobe migrate PID FROM TO
 *       Move every page of PID on node FROM to node TO with migrate_pages(2)
 *       (the kernel's mechanism, without tierd). Prints "not_moved=<pages>".
 *
 * No libnuma: raw system calls, so the static binary stays small. Exit
 * status: 0 done, 1 runtime failure, 2 bad argument.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PROG "tbprobe"
#define BATCH 4096
#define MAX_NODES 64

static int usage(FILE *f, int rc)
{
	fprintf(f,
"usage: tbprobe nodes PID\n"
"       tbprobe migrate PID FROM TO\n"
"  nodes    print 'move_pages N<node>=<pages>... absent=<pages>' for the\n"
"           largest private writable mapping of PID (4 KiB pages, queried\n"
"           with move_pages(2) status; nothing moves)\n"
"  migrate  move all pages of PID from node FROM to node TO with\n"
"           migrate_pages(2); prints not_moved=<pages>\n"
"  -h, --help  this text\n"
"Exit status: 0 done, 1 runtime failure, 2 bad argument.\n");
	return rc;
}

static int bad(const char *what)
{
	fprintf(stderr, PROG ": error: %s\n", what);
	return 2;
}

static int parse_int(const char *s, long max, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	if (errno || end == s || *end || *out < 0 || *out > max)
		return -EINVAL;
	return 0;
}

/* Largest private writable mapping of pid: [*start, *end). */
static int largest_mapping(long pid, uint64_t *start, uint64_t *end)
{
	char path[64], line[512], perms[8];
	uint64_t s, e, best = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s", &s, &e, perms) != 3)
			continue;
		if (perms[1] != 'w' || perms[3] != 'p' || strstr(line, "[stack]"))
			continue;
		if (e - s > best) {
			best = e - s;
			*start = s;
			*end = e;
		}
	}
	fclose(f);
	return best ? 0 : -ENOENT;
}

static int cmd_nodes(long pid)
{
	static void *pages[BATCH];
	static int status[BATCH];
	uint64_t count[MAX_NODES] = { 0 }, absent = 0, start = 0, end = 0, a;
	long psz = sysconf(_SC_PAGESIZE);
	int err, n, i;

	err = largest_mapping(pid, &start, &end);
	if (err) {
		fprintf(stderr, PROG ": no writable mapping in /proc/%ld/maps: %s\n", pid, strerror(-err));
		return 1;
	}
	for (a = start; a < end; a += (uint64_t)n * psz) {
		n = (end - a) / psz < BATCH ? (int)((end - a) / psz) : BATCH;
		for (i = 0; i < n; i++)
			pages[i] = (void *)(uintptr_t)(a + (uint64_t)i * psz);
		if (syscall(SYS_move_pages, pid, (unsigned long)n, pages, NULL, status, 0) < 0) {
			fprintf(stderr, PROG ": move_pages(%ld) status query: %s\n", pid, strerror(errno));
			return 1;
		}
		for (i = 0; i < n; i++) {
			if (status[i] >= 0 && status[i] < MAX_NODES)
				count[status[i]]++;
			else
				absent++;
		}
	}
	printf("move_pages");
	for (i = 0; i < MAX_NODES; i++)
		if (count[i])
			printf(" N%d=%" PRIu64, i, count[i]);
	printf(" absent=%" PRIu64 "\n", absent);
	return 0;
}

static int cmd_migrate(long pid, long from, long to)
{
	unsigned long old_nodes = 1UL << from, new_nodes = 1UL << to;
	long left;

	left = syscall(SYS_migrate_pages, pid, (unsigned long)MAX_NODES + 1, &old_nodes, &new_nodes);
	if (left < 0) {
		fprintf(stderr, PROG ": migrate_pages(%ld, %ld -> %ld): %s\n", pid, from, to, strerror(errno));
		return 1;
	}
	printf("not_moved=%ld\n", left);
	return 0;
}

int main(int argc, char **argv)
{
	long pid, from, to;

	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return usage(stdout, 0);
	if (argc < 3)
		return bad("expected 'nodes PID' or 'migrate PID FROM TO' (see --help)");
	if (parse_int(argv[2], 1L << 30, &pid) || pid == 0)
		return bad("PID must be a positive integer");
	if (!strcmp(argv[1], "nodes")) {
		if (argc != 3)
			return bad("nodes takes one argument, PID");
		return cmd_nodes(pid);
	}
	if (!strcmp(argv[1], "migrate")) {
		if (argc != 5)
			return bad("migrate takes PID FROM TO");
		if (parse_int(argv[3], MAX_NODES - 1, &from) || parse_int(argv[4], MAX_NODES - 1, &to))
			return bad("FROM and TO must be node numbers 0..63");
		return cmd_migrate(pid, from, to);
	}
	return bad("unknown subcommand (nodes or migrate)");
}
