// SPDX-License-Identifier: MIT
#include "tbcli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void vreport(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: error: ", cli_prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cli_bad_arg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	exit(2);
}

void cli_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
}

void cli_bad_option(int c, char **argv)
{
	if (c == ':')
		cli_bad_arg("option '%s' needs a value", argv[optind - 1]);
	cli_bad_arg("unknown option '%s' (see --help)", argv[optind - 1]);
}

void cli_no_operands(int argc, char **argv)
{
	if (optind < argc)
		cli_bad_arg("unexpected argument '%s'", argv[optind]);
}

double cli_double(const char *opt, const char *v, double lo, double hi)
{
	double d;

	if (parse_double(v, &d) || d < lo || d > hi)
		cli_bad_arg("%s: '%s' is not a number in [%g, %g]", opt, v, lo,
			    hi);
	return d;
}

uint64_t cli_size(const char *opt, const char *v)
{
	uint64_t s;

	if (parse_size(v, &s))
		cli_bad_arg("%s: '%s' is not a size (e.g. 4096, 64K, 512M, 1G)",
			    opt, v);
	return s;
}

enum huge_mode cli_huge(const char *v)
{
	enum huge_mode h;

	if (parse_huge(v, &h))
		cli_bad_arg("--huge: '%s' is not auto, on or off", v);
	return h;
}

void cli_cpus(const char *v, int **cpus, int *n)
{
	free(*cpus);
	*cpus = NULL;
	if (parse_id_list(v, 1 << 20, cpus, n))
		cli_bad_arg("--cpus: '%s' is not a CPU list (e.g. 0-3,8)", v);
}

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

int cli_open_output(const char *path, FILE **out)
{
	*out = stdout;
	if (!path)
		return 0;
	*out = fopen(path, "w");
	if (!*out) {
		int err = errno;

		cli_fail("cannot open --output '%s': %s", path, strerror(err));
		return -err;
	}
	return 0;
}

int cli_close_output(FILE *out, const char *path, int status)
{
	if (out && out != stdout && fclose(out) && !status) {
		cli_fail("cannot write --output '%s'", path);
		status = 1;
	} else if (out == stdout && fflush(stdout) && !status) {
		cli_fail("cannot write to stdout");
		status = 1;
	}
	return status;
}
