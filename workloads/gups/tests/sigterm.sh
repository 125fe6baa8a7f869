#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SIGTERM stops a run within 1 s with exit 0; the summary is written and
# names the signal.
PROG=gups
# shellcheck source=SCRIPTDIR/../../../lib/testlib.sh
. "$(dirname "$0")/../../../lib/testlib.sh"

SMALL=(--working-set 64M --hot-set 16M)
NT=$(( $(nproc) >= 2 ? 2 : 1 ))

t_sigterm() {
	local pid rc t0 t1 ms
	rm -f "$TMP/ready"
	"$BIN" "${SMALL[@]}" --threads $NT --duration 0 --ready-file "$TMP/ready" \
		--summary "$TMP/sum" >"$TMP/csv" 2>"$TMP/err" &
	pid=$!
	wait_for "$TMP/ready" || { kill -KILL $pid 2>/dev/null; fail "no ready file"; return; }
	sleep 0.3
	t0=$(date +%s%N)
	kill -TERM $pid
	wait $pid
	rc=$?
	t1=$(date +%s%N)
	ms=$(((t1 - t0) / 1000000))
	[ $rc -eq 0 ] || { fail "exit $rc after SIGTERM"; return; }
	[ $ms -le 1000 ] || { fail "took $ms ms to stop"; return; }
	[ "$(csv_col "$TMP/sum" checksum_ok)" = 1 ] || { fail "checksum_ok != 1"; return; }
	grep -q 'SIGTERM' "$TMP/err" || { fail "summary does not name SIGTERM"; return; }
	pass
}

t_sigterm
pass
