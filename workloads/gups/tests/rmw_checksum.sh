#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A read-modify-write run: CSV rows and the summary agree, the checksum
# verifies, the pid and ready files are written.
PROG=gups
# shellcheck source=SCRIPTDIR/../../../lib/testlib.sh
. "$(dirname "$0")/../../../lib/testlib.sh"

HEADER='t_s,updates,updates_per_s,gbytes_per_s,bytes,phase,cpu_share'
SUMHEADER='updates_total,seconds,updates_per_s,gbytes_per_s,checksum_ok'
SMALL=(--working-set 64M --hot-set 16M)
NT=$(( $(nproc) >= 2 ? 2 : 1 ))

t_rmw_checksum() {
	local pid rc rows total
	rm -f "$TMP/pid" "$TMP/ready"
	"$BIN" "${SMALL[@]}" --threads $NT --duration 1 \
		--report-interval 0.25 --output "$TMP/csv" --summary "$TMP/sum" \
		--pid-file "$TMP/pid" --ready-file "$TMP/ready" 2>"$TMP/err" &
	pid=$!
	wait $pid
	rc=$?
	[ $rc -eq 0 ] || { fail "exit $rc: $(cat "$TMP/err")"; return; }
	[ "$(head -1 "$TMP/csv")" = "$HEADER" ] || { fail "bad CSV header"; return; }
	rows=$(($(wc -l <"$TMP/csv") - 1))
	[ $rows -ge 3 ] || { fail "$rows CSV rows, want >= 3"; return; }
	[ "$(head -1 "$TMP/sum")" = "$SUMHEADER" ] || { fail "bad summary header"; return; }
	[ "$(csv_col "$TMP/sum" checksum_ok)" = 1 ] || { fail "checksum_ok != 1"; return; }
	total=$(csv_col "$TMP/csv" updates | awk '{ s += $1 } END { print s }')
	[ "$total" = "$(csv_col "$TMP/sum" updates_total)" ] ||
		{ fail "CSV rows sum to $total, summary differs"; return; }
	[ "$(cat "$TMP/pid")" = "$pid" ] || { fail "pid file is not the pid"; return; }
	[ -e "$TMP/ready" ] || { fail "no ready file"; return; }
	grep -q 'checksum ok' "$TMP/err" || { fail "no summary line on stderr"; return; }
	pass
}

t_rmw_checksum
pass
