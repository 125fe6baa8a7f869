#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A read/RMW mix of 4 KiB objects with a hot-set move: both phases are
# reported and the checksum verifies.
PROG=gups
# shellcheck source=SCRIPTDIR/../../../lib/testlib.sh
. "$(dirname "$0")/../../../lib/testlib.sh"

SMALL=(--working-set 64M --hot-set 16M)
NT=$(( $(nproc) >= 2 ? 2 : 1 ))

t_mix_move() {
	local rc phases
	timeout 20 "$BIN" "${SMALL[@]}" --threads $NT --op mix:0.5 \
		--object-size 4096 --duration 1 --move-hot-at 0.5 \
		--report-interval 0.25 --summary "$TMP/sum" >"$TMP/csv" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ] || { fail "exit $rc: $(cat "$TMP/err")"; return; }
	phases=$(csv_col "$TMP/csv" phase | sort -u | tr '\n' ' ')
	[ "$phases" = "0 1 " ] || { fail "phases '$phases', want '0 1 '"; return; }
	[ "$(csv_col "$TMP/sum" checksum_ok)" = 1 ] || { fail "checksum_ok != 1"; return; }
	pass
}

t_mix_move
pass
