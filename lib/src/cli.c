// SPDX-License-Identifier: MIT
/* cli.c - one-line errors, exit 2 on bad arguments, option values, output. */
#include "tbcli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void cli_vmsg(const char *kind, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s%s", cli_prog, kind ? kind : "", kind ? ": " : "");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cli_msg(const char *kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_vmsg(kind, fmt, ap);
	va_end(ap);
}

void cli_bad_arg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_vmsg("error", fmt, ap);
	va_end(ap);
	exit(2);
}

void cli_bad_option(int c, char **argv)
{
	const char *arg = argv[optind - 1];

	if (c == ':')
		cli_bad_arg("option '%s' needs a value (see --help)", arg);
	if (!optopt)
		cli_bad_arg("unknown or ambiguous option '%s' (see --help)", arg);
	if (optopt < 256 && strncmp(arg, "--", 2))
		cli_bad_arg("unknown option '-%c' (see --help)", optopt);
	/* a long option known to getopt_long: its value is the problem */
	if (strchr(arg, '='))
		cli_bad_arg("option '%s' takes no value (see --help)", arg);
	cli_bad_arg("option '%s' needs a value (see --help)", arg);
}

void cli_no_operands(int argc, char **argv)
{
	if (optind < argc)
		cli_bad_arg("unexpected argument '%s'", argv[optind]);
}

double cli_number(const char *opt, const char *v, double lo, double hi, unsigned int flags)
{
	bool open_lo = flags & CLI_OPEN_LO, integer = flags & CLI_INT;
	double d;

	if (!parse_double(v, &d) && (open_lo ? d > lo : d >= lo) && d <= hi &&
	    (!integer || d == floor(d)))
		return d;
	if (isinf(lo) && isinf(hi))
		cli_bad_arg("%s must be %s, got '%s'", opt, integer ? "an integer" : "a number", v);
	cli_bad_arg("%s must be %s in %c%g, %g%c, got '%s'", opt,
		    integer ? "an integer" : "a number", open_lo || isinf(lo) ? '(' : '[', lo, hi,
		    isinf(hi) ? ')' : ']', v);
}

uint64_t cli_size(const char *opt, const char *v)
{
	uint64_t s;

	if (parse_size(v, &s))
		cli_bad_arg("%s: '%s' is not a size (e.g. 4096, 64K, 512M, 1.5G, 2GiB)", opt, v);
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
