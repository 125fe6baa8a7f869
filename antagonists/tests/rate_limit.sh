#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Rate limit within 20 % of the target at a low rate (2 threads if possible).
PROG=antagonist
# shellcheck source=SCRIPTDIR/../../lib/testlib.sh
. "$(dirname "$0")/../../lib/testlib.sh"

t_rate_limit() {
	local rc cpus mbps target=40 n
	cpus=$(awk '/^Cpus_allowed_list/ { print $2 }' /proc/self/status)
	timeout 20 "$BIN" --cpus "$cpus" --buffer 16M --rate $target \
		--duration 1.5 --report-interval 0.5 >"$TMP/csv" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ] || { fail "exit $rc: $(cat "$TMP/err")"; return; }
	n=$(csv_col "$TMP/csv" threads | tail -1)
	mbps=$(awk -F, -v n="$n" 'NR > 1 { b += $2; t = $1 }
		END { printf "%.1f", b / t / 1e6 / n }' "$TMP/csv")
	awk -v m="$mbps" -v t=$target 'BEGIN { exit !(m > 0.8 * t && m < 1.2 * t) }' ||
		{ fail "$mbps MB/s per thread, target $target"; return; }
	pass
}

t_rate_limit
pass
