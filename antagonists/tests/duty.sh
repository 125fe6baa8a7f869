#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --duty 0.5 --period-ms 400: the thread idles the second half of every period, so report
# intervals of 50 ms that fall inside an idle half carry no bytes while others carry some
# (what is asserted is the idle phase, not a rate).
PROG=antagonist
# shellcheck source=SCRIPTDIR/../../lib/testlib.sh
. "$(dirname "$0")/../../lib/testlib.sh"

t_duty() {
	local rc idle busy
	timeout 20 "$BIN" --cpus 0 --buffer 8M --duty 0.5 --period-ms 400 \
		--duration 2 --report-interval 0.05 >"$TMP/csv" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ] || { fail "exit $rc: $(cat "$TMP/err")"; return; }
	idle=$(csv_col "$TMP/csv" bytes | awk '$1 == 0' | wc -l)
	busy=$(csv_col "$TMP/csv" bytes | awk '$1 > 0' | wc -l)
	[ "$idle" -ge 4 ] && [ "$busy" -ge 4 ] ||
		{ fail "$idle idle and $busy busy 50 ms intervals in 2 s at duty 0.5 of 400 ms"; return; }
	pass
}

t_duty
pass
