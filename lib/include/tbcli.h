/* SPDX-License-Identifier: MIT */
/*
 * tbcli.h - the command-line layer shared by the tools (gups, antagonist,
 * memchar, tiersim, tierd), on top of tbutil.h.  Unlike the rest of
 * libtbutil these helpers print: errors go to stderr as one line
 * "<prog>: error: <what is wrong>", and the argument checks exit with
 * status 2 on a bad argument, before any work.
 *
 * Each program defines the name used in those lines:
 *	const char cli_prog[] = "gups";
 */
#ifndef TIERBENCH_TBCLI_H
#define TIERBENCH_TBCLI_H

#include "tbutil.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

extern const char cli_prog[];

/*
 * cli_msg() - one line "<prog>: <kind>: <message>" on stderr ("<prog>:
 * <message>" when @kind is NULL).
 */
void cli_msg(const char *kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_vmsg(const char *kind, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* "<prog>: error: ..." (a runtime failure; the caller exits 1) */
#define cli_fail(...) cli_msg("error", __VA_ARGS__)
/* "<prog>: ..." (progress, notes, summaries) */
#define cli_say(...) cli_msg(NULL, __VA_ARGS__)
/* Print "<prog>: error: ..." and exit 2 (a bad argument). */
void cli_bad_arg(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));

/*
 * getopt_long() (with opterr = 0) returned ':' or '?' for the option named
 * by argv[optind - 1]: report what is wrong with it (unknown or ambiguous,
 * a value missing, or a value it does not take) and exit 2.
 */
void cli_bad_option(int c, char **argv) __attribute__((noreturn));
/* Exit 2 if arguments are left after the options. */
void cli_no_operands(int argc, char **argv);

/* flags of cli_number() */
#define CLI_OPEN_LO 1u	/* lo itself is not allowed: (lo, hi] */
#define CLI_INT 2u	/* an integer */

/*
 * Option values; each exits 2 with a message naming opt if v is bad.
 * cli_number(): a finite number in [lo, hi] (flags above; lo = -INFINITY
 * and hi = INFINITY for any number).  cli_size(): parse_size().
 */
double cli_number(const char *opt, const char *v, double lo, double hi, unsigned int flags);
uint64_t cli_size(const char *opt, const char *v);
enum huge_mode cli_huge(const char *v);			/* --huge */
/* --cpus LIST: replaces *cpus (freed) with the parsed list. */
void cli_cpus(const char *v, int **cpus, int *n);

/*
 * After parsing: every CPU of a given --cpus list must be allowed for the
 * process; without --cpus (!given), *cpus becomes the allowed set.
 */
void cli_cpus_check(bool given, int **cpus, int *n);
/*
 * Every node must exist and have memory; request names what asked for NUMA
 * placement in the "<request> but the kernel has no NUMA support" message.
 */
void cli_nodes_check(const int *nodes, int n, const char *request);

/*
 * Open --output path for the CSV, or use stdout when path is NULL; reports
 * a failure and returns -errno.
 */
int cli_open_output(const char *path, FILE **out);
/*
 * Close (or flush, for stdout) the CSV output. Returns status, or 1 where
 * status was 0 and the output could not be written (which it reports).
 */
int cli_close_output(FILE *out, const char *path, int status);

#endif
