// SPDX-License-Identifier: MIT
/*
 * golden_smalllog - the golden test on a copy of the library built with
 * tiny input and touch logs, so that every flush path (a full input log
 * between a fault's two entries and the next sample, a full touch log in
 * the middle of an input-log flush, ...) runs every few inputs.  Plans and
 * state must match the same recorded hashes as with the default sizes.
 *
 * The library sources are compiled into this program, so the sanitized
 * archive it is linked with contributes nothing.
 */
#define SLOG_CAP 3u
#define TLOG_MIN 1u
#define TLOG_MAX 5u

#include "../src/core.c"
#include "../src/balance.c"
#include "../src/hemem.c"
#include "../src/memtis.c"
#include "../src/params.c"
#include "../src/tpp.c"

#include "golden.c"
