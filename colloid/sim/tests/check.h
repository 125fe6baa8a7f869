/* SPDX-License-Identifier: MIT */
/*
 * check.h - the tiersim C tests' CHECK(cond, fmt, ...): on failure print
 * "FAIL file:line: message" on stderr, then run CHECK_ON_FAIL, which the
 * test defines before including this header (e.g. "goto err" to stop at the
 * first failure, or "fails++" to go on and count).
 */
#ifndef TIERSIM_TEST_CHECK_H
#define TIERSIM_TEST_CHECK_H

#include <stdio.h>

#ifndef CHECK_ON_FAIL
#error "define CHECK_ON_FAIL before including check.h"
#endif

#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);                        \
			fputc('\n', stderr);                                 \
			CHECK_ON_FAIL;                                       \
		}                                                            \
	} while (0)

#endif /* TIERSIM_TEST_CHECK_H */
