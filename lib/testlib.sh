# SPDX-License-Identifier: MIT
# Helpers for test scripts (one behaviour per script; lib/runtests.sh runs
# them). A test sets PROG (the program's name, as in its "PROG: error:"
# lines) and sources this file:
#	PROG=gups
#	. "$(dirname "$0")/../../../lib/testlib.sh"
# BIN is then the program under test, from the environment variable named
# PROG in capitals (GUPS=...; make test sets it, for the plain and for the
# sanitized build), TMP a scratch directory removed at exit. A test ends in
# pass, fail MESSAGE or skip REASON (exit 0, 1, 77); a test that starts
# processes defines test_cleanup, which runs at exit before TMP is removed.
# shellcheck shell=bash
set -u

_tl_var=$(echo "${PROG:?set PROG before sourcing testlib.sh}" | tr a-z- A-Z_)
BIN=${!_tl_var:-}
[ -n "$BIN" ] || { echo "FAIL: \$$_tl_var (the $PROG binary) is not set"; exit 1; }
[ -x "$BIN" ] || { echo "FAIL: no $PROG binary at $BIN"; exit 1; }
TMP=$(mktemp -d "${TEST_TMPDIR:-${TMPDIR:-/tmp}}/$PROG.XXXXXX") || exit 1
_tl_exit() {
	if declare -F test_cleanup >/dev/null; then test_cleanup; fi
	rm -rf "$TMP"
}
# only the script itself cleans up, not a child forked before exec
trap '[ "$BASHPID" = "$$" ] && _tl_exit' EXIT
trap 'exit 1' INT TERM

pass() { echo "PASS${*:+: $*}"; exit 0; }
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

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
	"$BIN" --help >"$TMP/out" 2>"$TMP/err" || fail "--help exit $?"
	for o in "$@"; do
		grep -q -- "--$o" "$TMP/out" || fail "--help lacks --$o"
	done
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
		[ $rc -eq 2 ] || fail "'$a': exit $rc, want 2"
		if [ "$(wc -l <"$TMP/err")" -ne 1 ] ||
		   ! grep -q "^$PROG: error: " "$TMP/err"; then
			fail "'$a': stderr is not one '$PROG: error:' line"
		fi
		[ -s "$TMP/out" ] && fail "'$a': wrote to stdout"
		echo "  refused: $a -> $(cat "$TMP/err")"
	done
}
