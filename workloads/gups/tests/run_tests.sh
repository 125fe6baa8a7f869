#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Smoke tests for gups: run_tests.sh BINARY... (each binary gets every test).
# Each test takes a second or two and at most 64 MiB of memory.
# Exit 0 if every test passed or was skipped, 1 otherwise.
# shellcheck disable=SC2317  # the t_* functions run through run_tests
# pass/fail/skip, csv_col, wait_for, check_help, check_bad_args, run_tests
# shellcheck source=SCRIPTDIR/../../lib/testlib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../lib/testlib.sh"

PROG=gups

HEADER='t_s,updates,updates_per_s,gbytes_per_s,bytes,phase'
SUMHEADER='updates_total,seconds,updates_per_s,gbytes_per_s,checksum_ok'
SMALL=(--working-set 64M --hot-set 16M)
NT=$(( $(nproc) >= 2 ? 2 : 1 ))

t_help() {
	check_help working-set hot-set hot-share object-size op threads cpus \
		mem-node interleave duration move-hot-at seed report-interval \
		output pid-file ready-file summary huge self-test help
}

t_bad_args() {
	local cases=(
		"--frobnicate" "--working-set" "--working-set 1X"
		"--working-set 100T" "--hot-set 2G" "--hot-share 1.5"
		"--object-size 100" "--object-size 8192" "--op write"
		"--op mix:1.2" "--threads 0" "--threads 100000" "--cpus 99999"
		"--cpus 1-0" "--mem-node 9999" "--mem-node 0 --interleave 0"
		"--duration -1" "--report-interval 0" "--huge maybe"
		"--move-hot-at 1" "--hot-set 48M --move-hot-at 1"
		"--hot-set 16M --duration 2 --move-hot-at 3" "stray"
	)
	check_bad_args "--working-set 64M" "${cases[@]}"
}

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

t_mix_move() {
	local rc phases
	timeout 20 "$BIN" "${SMALL[@]}" --threads $NT --op mix:0.5 \
		--object-size 4096 --duration 1 --move-hot-at 0.5 \
		--report-interval 0.25 --summary "$TMP/sum" >"$TMP/csv" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ] || { fail "exit $rc: $(cat "$TMP/err")"; return; }
	phases=$(csv_col "$TMP/csv" phase | sort -u | tr '\n' ' ')
	[ "$phases" = "0 1 " ] || { fail "phases '$phases', want '0 1 '"; return; }
	[ "$(csv_col "$TMP/sum" checksum_ok)" = 1 ] || { fail "checksum_ok != 1"; return; }
	pass
}

t_read_uniform() {
	local rc
	timeout 20 "$BIN" --working-set 64M --op read --threads 1 --duration 0.5 \
		--huge off --seed 7 --summary "$TMP/sum" >"$TMP/csv" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ] || { fail "exit $rc: $(cat "$TMP/err")"; return; }
	grep -q '(0 rmw)' "$TMP/err" || { fail "read run did RMW"; return; }
	[ "$(csv_col "$TMP/sum" checksum_ok)" = 1 ] || { fail "checksum_ok != 1"; return; }
	pass
}

t_self_test_fails() {
	local rc
	timeout 20 "$BIN" "${SMALL[@]}" --duration 0.3 --self-test \
		--summary "$TMP/sum" >"$TMP/csv" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 1 ] || { fail "exit $rc, want 1 for a corrupted buffer"; return; }
	grep -q '^gups: error: checksum mismatch' "$TMP/err" ||
		{ fail "no mismatch message"; return; }
	[ "$(csv_col "$TMP/sum" checksum_ok)" = 0 ] || { fail "checksum_ok != 0"; return; }
	pass
}

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

t_numa_node() {
	local rc
	if [ ! -d /sys/devices/system/node/node0 ]; then skip "no NUMA sysfs"; return; fi
	timeout 20 "$BIN" "${SMALL[@]}" --mem-node 0 --duration 0.3 \
		--summary "$TMP/sum" >/dev/null 2>"$TMP/err" &&
	timeout 20 "$BIN" "${SMALL[@]}" --interleave 0 --huge on --duration 0.3 \
		--summary "$TMP/sum2" >/dev/null 2>>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ] || { fail "exit $rc: $(cat "$TMP/err")"; return; }
	[ "$(csv_col "$TMP/sum" checksum_ok)$(csv_col "$TMP/sum2" checksum_ok)" = 11 ] ||
		{ fail "checksum_ok != 1"; return; }
	pass
}

run_tests "help bad_args rmw_checksum mix_move read_uniform self_test_fails
	sigterm numa_node" "$@"
