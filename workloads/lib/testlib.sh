# SPDX-License-Identifier: MIT
# Shared part of the programs' smoke-test runners (workloads/gups,
# antagonists): source it from tests/run_tests.sh, set PROG (the name in the
# program's "PROG: error:" lines), define the tests as functions t_NAME that
# run "$BIN" and end in pass, fail MESSAGE or skip REASON, then call
#   run_tests "NAME..." BINARY...
# which runs every test against every binary, prints a summary and exits 0 if
# every test passed or was skipped, 1 otherwise. Scratch files go in $TMP.
# shellcheck shell=bash
set -u

PASS=0 FAIL=0 SKIP=0
TMP=$(mktemp -d)
# only the script itself cleans up, not a child forked before exec
trap '[ "$BASHPID" = "$$" ] && rm -rf "$TMP"' EXIT

pass() { PASS=$((PASS + 1)); echo "PASS  $BIN_NAME $T"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL  $BIN_NAME $T: $*"; }
skip() { SKIP=$((SKIP + 1)); echo "SKIP  $BIN_NAME $T: $*"; }

# csv_col FILE COLUMN: print the values of a named column, header skipped
csv_col() {
	awk -F, -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
		k { print $k }' "$1"
}

# wait_for FILE: up to 10 s
wait_for() {
	for _ in $(seq 200); do [ -e "$1" ] && return 0; sleep 0.05; done
	return 1
}

# check_help OPTION...: --help exits 0 and names every --OPTION
check_help() {
	local o
	"$BIN" --help >"$TMP/out" 2>"$TMP/err" || { fail "--help exit $?"; return; }
	for o in "$@"; do
		grep -q -- "--$o" "$TMP/out" || { fail "--help lacks --$o"; return; }
	done
	pass
}

# check_bad_args "COMMON ARGS" CASE...: "$BIN" COMMON ARGS CASE (both split
# into words) exits 2 with one "$PROG: error:" line on stderr, nothing on
# stdout
check_bad_args() {
	local common=$1 a rc
	shift
	for a in "$@"; do
		# shellcheck disable=SC2086  # word splitting is the point
		timeout 10 "$BIN" $common $a >"$TMP/out" 2>"$TMP/err"
		rc=$?
		if [ $rc -ne 2 ]; then fail "'$a': exit $rc, want 2"; return; fi
		if [ "$(wc -l <"$TMP/err")" -ne 1 ] ||
		   ! grep -q "^$PROG: error: " "$TMP/err"; then
			fail "'$a': stderr is not one '$PROG: error:' line"; return
		fi
		if [ -s "$TMP/out" ]; then fail "'$a': wrote to stdout"; return; fi
	done
	pass
}

# run_tests "NAME..." BINARY...
run_tests() {
	local tests=$1
	shift
	[ $# -ge 1 ] || { echo "usage: $0 BINARY..." >&2; exit 2; }
	for BIN in "$@"; do
		BIN_NAME=$(basename "$(dirname "$BIN")")/$(basename "$BIN")
		for T in $tests; do
			"t_$T"
		done
	done
	echo "$PROG tests: $PASS passed, $FAIL failed, $SKIP skipped"
	[ $FAIL -eq 0 ] || exit 1
	exit 0
}
