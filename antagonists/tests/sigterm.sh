#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SIGTERM and SIGINT stop it within 1 s with exit 0, the rows flushed.
PROG=antagonist
# shellcheck source=SCRIPTDIR/../../lib/testlib.sh
. "$(dirname "$0")/../../lib/testlib.sh"

CPU0=$(awk '/^Cpus_allowed_list/ { split($2, a, "[,-]"); print a[1] }' /proc/self/status)

t_sigterm() {
	local pid rc t0 t1 ms sig
	for sig in TERM INT; do
		rm -f "$TMP/ready"
		"$BIN" --cpus "$CPU0" --buffer 64M --ready-file "$TMP/ready" \
			--report-interval 0.2 >"$TMP/csv" 2>"$TMP/err" &
		pid=$!
		wait_for "$TMP/ready" || { kill -KILL $pid; fail "no ready file"; return; }
		sleep 0.5
		t0=$(date +%s%N)
		kill -$sig $pid
		wait $pid
		rc=$?
		t1=$(date +%s%N)
		ms=$(((t1 - t0) / 1000000))
		[ $rc -eq 0 ] || { fail "exit $rc after SIG$sig"; return; }
		[ $ms -le 1000 ] || { fail "took $ms ms to stop on SIG$sig"; return; }
		[ "$(csv_col "$TMP/csv" threads | wc -l)" -ge 2 ] ||
			{ fail "rows not flushed on SIG$sig"; return; }
	done
	pass
}

t_sigterm
pass
