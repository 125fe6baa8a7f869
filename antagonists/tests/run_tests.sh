#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Smoke tests for the antagonist: run_tests.sh BINARY... (each binary gets
# every test). Each test takes a second or two and at most 128 MiB.
# Exit 0 if every test passed or was skipped, 1 otherwise.
# shellcheck disable=SC2317  # the t_* functions run through run_tests
# pass/fail/skip, csv_col, wait_for, check_help, check_bad_args, run_tests
# shellcheck source=SCRIPTDIR/../../workloads/lib/testlib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../workloads/lib/testlib.sh"

PROG=antagonist

HEADER='t_s,bytes,mbytes_per_s,threads'
CPU0=$(awk '/^Cpus_allowed_list/ { split($2, a, "[,-]"); print a[1] }' /proc/self/status)

t_help() {
	check_help cpus mem-node buffer write-fraction access-size rate huge \
		duration report-interval output ready-file help
}

t_bad_args() {
	local cases=(
		"--frobnicate" "--cpus" "--cpus 99999" "--cpus 0-x"
		"--cpus 0,0" "--mem-node 9999" "--mem-node 0,1" "--buffer 1K"
		"--buffer 100T" "--write-fraction 25" "--access-size 32"
		"--rate -5" "--duration abc" "--report-interval 0" "--huge yes"
		"stray"
	)
	check_bad_args "--duration 0.1" "${cases[@]}"
}

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

# Rate limit within 20 % of the target at a low rate (2 threads if possible).
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

# SIGTERM while the buffer is still being touched (512 MiB takes a while).
t_sigterm_warmup() {
	local pid rc
	"$BIN" --cpus "$CPU0" --buffer 512M >"$TMP/csv" 2>"$TMP/err" &
	pid=$!
	sleep 0.1
	kill -TERM $pid
	wait $pid
	rc=$?
	[ $rc -eq 0 ] || { fail "exit $rc after SIGTERM during warm-up"; return; }
	pass
}

t_numa_node() {
	local rc
	if [ ! -d /sys/devices/system/node/node0 ]; then skip "no NUMA sysfs"; return; fi
	timeout 20 "$BIN" --cpus "$CPU0" --mem-node 0 --buffer 64M --huge on \
		--duration 0.3 >"$TMP/csv" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ] || { fail "exit $rc: $(cat "$TMP/err")"; return; }
	pass
}

run_tests "help bad_args modes rate_limit sigterm sigterm_warmup numa_node" "$@"
