#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every write fraction and access size: the CSV header and rows.
PROG=antagonist
# shellcheck source=SCRIPTDIR/../../lib/testlib.sh
. "$(dirname "$0")/../../lib/testlib.sh"

HEADER='t_s,bytes,mbytes_per_s,threads,cpu_share'
CPU0=$(awk '/^Cpus_allowed_list/ { split($2, a, "[,-]"); print a[1] }' /proc/self/status)

t_modes() {
	local wf as rc rows
	for wf in 0 50 100; do
		for as in 16 64; do
			timeout 20 "$BIN" --cpus "$CPU0" --buffer 64M \
				--write-fraction $wf --access-size $as \
				--duration 0.3 --report-interval 0.1 \
				>"$TMP/csv" 2>"$TMP/err"
			rc=$?
			[ $rc -eq 0 ] || { fail "wf $wf as $as: exit $rc: $(cat "$TMP/err")"; return; }
			[ "$(head -1 "$TMP/csv")" = "$HEADER" ] ||
				{ fail "bad CSV header"; return; }
			rows=$(csv_col "$TMP/csv" threads | grep -c '^1$')
			[ "$rows" -ge 2 ] || { fail "wf $wf as $as: $rows rows"; return; }
		done
	done
	pass
}

t_modes
pass
