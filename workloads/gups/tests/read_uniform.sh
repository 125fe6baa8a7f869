#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A read-only uniform run does no RMW; the checksum verifies.
PROG=gups
# shellcheck source=SCRIPTDIR/../../../lib/testlib.sh
. "$(dirname "$0")/../../../lib/testlib.sh"

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

t_read_uniform
pass
