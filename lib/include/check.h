/* SPDX-License-Identifier: MIT */
/*
 * check.h - assertions for the C test programs of every component (one
 * program per behaviour; exit T_PASS 0, T_FAIL 1, T_SKIP 77, as
 * lib/runtests.sh reads them).
 *
 *   CHECK(cond)            on failure: "file:line: check failed: cond"
 *   CHECKF(cond, fmt, ...) the same, then ": " and a printf message
 *
 * Then CHECK_ON_FAIL runs: by default "goto err" (stop at the first
 * failure; the test has an err: label that cleans up and returns T_FAIL).
 * A test that goes on and counts defines it before including this header,
 * e.g. "#define CHECK_ON_FAIL fails++".
 */
#ifndef TIERBENCH_CHECK_H
#define TIERBENCH_CHECK_H

#include <stdio.h>

#define T_PASS 0
#define T_FAIL 1
#define T_SKIP 77

#ifndef CHECK_ON_FAIL
#define CHECK_ON_FAIL goto err
#endif

#define CHECK(cond)                                                                   \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, \
				#cond);                                               \
			CHECK_ON_FAIL;                                                \
		}                                                                     \
	} while (0)

#define CHECKF(cond, ...)                                                             \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, \
				#cond);                                               \
			fprintf(stderr, __VA_ARGS__);                                 \
			fputc('\n', stderr);                                          \
			CHECK_ON_FAIL;                                                \
		}                                                                     \
	} while (0)

/* T_SKIP with the reason as the last line of the output, as runtests.sh shows it */
#define SKIP(...)                                                                     \
	do {                                                                          \
		printf("SKIP: ");                                                     \
		printf(__VA_ARGS__);                                                  \
		putchar('\n');                                                        \
		return T_SKIP;                                                        \
	} while (0)

#endif /* TIERBENCH_CHECK_H */
