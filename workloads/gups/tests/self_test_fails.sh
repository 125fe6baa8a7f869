#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --self-test corrupts the buffer: the checksum mismatch is found (exit 1).
PROG=gups
# shellcheck source=SCRIPTDIR/../../../lib/testlib.sh
. "$(dirname "$0")/../../../lib/testlib.sh"

SMALL=(--working-set 64M --hot-set 16M)

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

t_self_test_fails
pass
