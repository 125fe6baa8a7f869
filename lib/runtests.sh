#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The test runner of every C component (make test calls it).
#
#   runtests.sh [-n NAME] TEST...
#
# Runs each TEST (a test program, or a shell script *.sh run with bash)
# with a timeout of TEST_TIMEOUT seconds (default 60) and its output in a
# log. A test exits 0 to pass, 77 to skip (the reason on its last output
# line) and anything else to fail (124/137: the timeout). Prints one line
# per test, the log's last lines for a failure (all of it with VERBOSE=1),
# and ends with "NAME: N passed, N failed, N skipped". Exit 0 when nothing
# failed, 1 otherwise, 2 for bad usage. The tests get the environment as it
# is (binaries, data directories) and TEST_TMPDIR, a scratch directory of
# their own that is removed afterwards.
set -u
name=tests
while getopts n: o; do
	case $o in
	n) name=$OPTARG ;;
	*) echo "usage: $0 [-n NAME] TEST..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [-n NAME] TEST..." >&2; exit 2; }
timeout_s=${TEST_TIMEOUT:-60}
pass=0 fail=0 skip=0 failed=""
work=$(mktemp -d "${TMPDIR:-/tmp}/runtests.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT

for t in "$@"; do
	base=$(basename "$t")
	tn=${base%.sh}
	log="$work/$tn.log"
	export TEST_TMPDIR="$work/$tn.tmp"
	mkdir -p "$TEST_TMPDIR"
	start=$(date +%s)
	case $t in
	*.sh) timeout -k 5 "$timeout_s" bash "$t" >"$log" 2>&1 ;;
	*) timeout -k 5 "$timeout_s" "$t" >"$log" 2>&1 ;;
	esac
	rc=$?
	secs=$(($(date +%s) - start))
	case $rc in
	0) pass=$((pass + 1)); echo "PASS $tn (${secs}s)" ;;
	77) skip=$((skip + 1)); echo "SKIP $tn: $(tail -n 1 "$log" | sed 's/^SKIP:* *//')" ;;
	124 | 137) fail=$((fail + 1)); failed="$failed $tn"
		echo "FAIL $tn (timeout after ${timeout_s}s)"; tail -n 20 "$log" | sed 's/^/    /' ;;
	*) fail=$((fail + 1)); failed="$failed $tn"
		echo "FAIL $tn (exit $rc)"; tail -n 20 "$log" | sed 's/^/    /' ;;
	esac
	[ -n "${VERBOSE:-}" ] && sed 's/^/    /' "$log"
	rm -rf "$TEST_TMPDIR"
done
[ -n "$failed" ] && echo "$name: failed:$failed"
echo "$name: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
