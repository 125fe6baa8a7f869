#!/bin/sh
# Run every tiersim test: C programs built into $TESTBIN and the *.sh
# scripts here.  Exit codes: 0 pass, 1 fail, 77 skip.  Needs $TIERSIM.
here=$(cd "$(dirname "$0")" && pwd)
: "${TEST_TIMEOUT:=60}"
: "${TESTBIN:=}"
export TIERSIM CURVES="$here/../../../hosts/curves"
pass=0 fail=0 skip=0
run_one() {
	name=$1
	shift
	timeout "$TEST_TIMEOUT" "$@" >"$tmp/out" 2>&1
	rc=$?
	case $rc in
	0) pass=$((pass + 1)); echo "PASS $name" ;;
	77) skip=$((skip + 1)); echo "SKIP $name" ;;
	*) fail=$((fail + 1)); echo "FAIL $name (exit $rc)"; sed 's/^/    /' "$tmp/out" | tail -20 ;;
	esac
}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
if [ -n "$TESTBIN" ]; then
	for t in "$TESTBIN"/test_*; do
		case $t in *.o | *.d) continue ;; esac
		[ -x "$t" ] && run_one "$(basename "$t")" "$t" "$here"
	done
fi
for t in "$here"/test_*.sh; do
	run_one "$(basename "$t")" sh "$t"
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
