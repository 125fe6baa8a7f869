#!/bin/sh
# Run every libcolloid test program in DIR with a per-test timeout.
# Exit status of a test: 0 pass, 77 skip, anything else fail (124: timeout).
# Usage: runtests.sh DIR [TEST...]   (TEST_TIMEOUT seconds, default 30)
set -u
dir=${1:?usage: runtests.sh DIR [TEST...]}
shift
timeout_s=${TEST_TIMEOUT:-30}
pass=0 fail=0 skip=0 failed=""

if [ $# -gt 0 ]; then
	tests="$*"
else
	tests=$(cd "$dir" && for f in *; do
		[ -f "$f" ] && [ -x "$f" ] && echo "$f"
	done)
fi

for t in $tests; do
	log="$dir/$t.log"
	start=$(date +%s)
	timeout -k 2 "$timeout_s" "$dir/$t" >"$log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	case $rc in
	0) pass=$((pass + 1)); echo "PASS $t (${secs}s)" ;;
	77) skip=$((skip + 1)); echo "SKIP $t" ;;
	124|137) fail=$((fail + 1)); failed="$failed $t"
		echo "FAIL $t (timeout after ${timeout_s}s)"; sed 's/^/    /' "$log" | tail -20 ;;
	*) fail=$((fail + 1)); failed="$failed $t"
		echo "FAIL $t (exit $rc)"; sed 's/^/    /' "$log" | tail -20 ;;
	esac
done

[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
