#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --mem-node 0, and --interleave 0 with --huge on.
PROG=gups
# shellcheck source=SCRIPTDIR/../../../lib/testlib.sh
. "$(dirname "$0")/../../../lib/testlib.sh"

SMALL=(--working-set 64M --hot-set 16M)

t_numa_node() {
	local rc
	if [ ! -d /sys/devices/system/node/node0 ]; then skip "no NUMA sysfs"; return; fi
	timeout 20 "$BIN" "${SMALL[@]}" --mem-node 0 --duration 0.3 \
		--summary "$TMP/sum" >/dev/null 2>"$TMP/err" &&
	timeout 20 "$BIN" "${SMALL[@]}" --interleave 0 --huge on --duration 0.3 \
		--summary "$TMP/sum2" >/dev/null 2>>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ] || { fail "exit $rc: $(cat "$TMP/err")"; return; }
	[ "$(csv_col "$TMP/sum" checksum_ok)$(csv_col "$TMP/sum2" checksum_ok)" = 11 ] ||
		{ fail "checksum_ok != 1"; return; }
	pass
}

t_numa_node
pass
