// SPDX-License-Identifier: MIT
/*
 * golden_smalllog - the golden test on a copy of the library built with
 * tiny input and touch logs, so that every flush path (a full input log
 * between a fault's two entries and the next sample, a full touch log in
 * the middle of an input-log flush, ...) runs every few inputs.  Plans and
 * state must match the same recorded hashes as with the default sizes.
 *
 * core.c (the logs) is compiled into this program; the policies, the
 * registry and the rest come from the sanitized archive it is linked with
 * (the linker takes no archive member whose symbols are all defined here).
 */
#define SLOG_CAP 3u
#define TLOG_MIN 1u
#define TLOG_MAX 5u

#include "../src/core.c"

#include "golden.c"
