/* SPDX-License-Identifier: MIT */
/*
 * Command-line plumbing shared by the programs (gups, antagonist), on top
 * of tbutil.h. Unlike the rest of libtbutil these helpers do print: errors
 * go to stderr as one line "<prog>: error: <what is wrong>", and the
 * argument checks exit with status 2 on a bad argument, before any work.
 *
 * Each program defines the name used in those lines:
 *	const char cli_prog[] = "gups";
 */
#ifndef TIERBENCH_TBCLI_H
#define TIERBENCH_TBCLI_H

#include "tbutil.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

extern const char cli_prog[];

/* Print "<prog>: error: ..." and exit 2 (a bad argument). */
void cli_bad_arg(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));
/* Print "<prog>: error: ..." (a runtime failure; the caller exits 1). */
void cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * getopt_long() (with opterr = 0 and ":" leading the short options)
 * returned ':' or an unknown option: report the option named by
 * argv[optind - 1] and exit 2.
 */
void cli_bad_option(int c, char **argv) __attribute__((noreturn));
/* Exit 2 if arguments are left after the options. */
void cli_no_operands(int argc, char **argv);

/* Option values; each exits 2 with a message naming opt if v is bad. */
double cli_double(const char *opt, const char *v, double lo, double hi);
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
