#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Run every tierd test (tests/*.sh but lib.sh and this file) with a
# per-test timeout.  A test exits 0 pass, 77 skip (reason on its last
# line), anything else fail.  Usage: runtests.sh [TEST...]
# Environment: TIERD, GUPS (binaries), TEST_TIMEOUT (s, default 30).
set -u
dir=$(cd "$(dirname "$0")" && pwd)
timeout_s=${TEST_TIMEOUT:-30}
pass=0 fail=0 skip=0 failed=""
logdir=$(mktemp -d "${TMPDIR:-/tmp}/tierd-tests.XXXXXX")
trap 'rm -rf "$logdir"' EXIT

if [ $# -gt 0 ]; then
	tests="$*"
else
	tests=$(cd "$dir" && ls *.sh | grep -v -e '^lib\.sh$' -e '^runtests\.sh$')
fi
for t in $tests; do
	t=${t%.sh}
	log="$logdir/$t.log"
	start=$(date +%s)
	timeout -k 5 "$timeout_s" bash "$dir/$t.sh" >"$log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	case $rc in
	0) pass=$((pass + 1)); echo "PASS $t (${secs}s)" ;;
	77) skip=$((skip + 1)); echo "SKIP $t: $(tail -1 "$log" | sed 's/^SKIP: //')" ;;
	124|137) fail=$((fail + 1)); failed="$failed $t"
		echo "FAIL $t (timeout after ${timeout_s}s)"; sed 's/^/    /' "$log" | tail -20 ;;
	*) fail=$((fail + 1)); failed="$failed $t"
		echo "FAIL $t (exit $rc)"; sed 's/^/    /' "$log" | tail -20 ;;
	esac
	[ -n "${VERBOSE:-}" ] && sed 's/^/    /' "$log"
done
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
