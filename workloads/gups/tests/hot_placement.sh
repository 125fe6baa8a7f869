#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --hot-placement N: each row gives the hot set's bytes off node N (move_pages(2)
# asked where its pages are); bound to node 0, none of it is off node 0; a node
# that does not exist and a run without a hot set are refused.
PROG=gups
# shellcheck source=SCRIPTDIR/../../../lib/testlib.sh
. "$(dirname "$0")/../../../lib/testlib.sh"

t_hot_placement() {
	local rc
	[ -d /sys/devices/system/node/node0 ] || skip "no NUMA sysfs"
	timeout 20 "$BIN" --working-set 64M --hot-set 16M --mem-node 0 --duration 1.2 \
		--move-hot-at 0.5 --hot-placement 0 >"$TMP/csv" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ] || fail "exit $rc: $(cat "$TMP/err")"
	head -1 "$TMP/csv" | grep -q ',cpu_share,hot_off_node_bytes$' || fail "no hot_off_node_bytes column"
	# every row: 0 bytes of the hot set off node 0 (phase 0 and, after the move, phase 1)
	[ "$(tail -n +2 "$TMP/csv" | cut -d, -f8 | sort -u)" = 0 ] ||
		fail "hot_off_node_bytes not 0 on node 0: $(cat "$TMP/csv")"
	# without the option the columns are as before
	timeout 20 "$BIN" --working-set 64M --hot-set 16M --duration 0.3 >"$TMP/csv2" 2>/dev/null
	[ "$(head -1 "$TMP/csv2")" = 't_s,updates,updates_per_s,gbytes_per_s,bytes,phase,cpu_share' ] ||
		fail "header changed without --hot-placement"
}

t_hot_placement_refused() {
	local n rc
	n=$(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)
	timeout 20 "$BIN" --working-set 64M --hot-set 16M --duration 0.3 --hot-placement $((n + 7)) \
		>/dev/null 2>"$TMP/err"
	rc=$?
	[ $rc -eq 2 ] && grep -q "does not exist\|no NUMA support" "$TMP/err" ||
		fail "a missing node: exit $rc: $(cat "$TMP/err")"
	timeout 20 "$BIN" --working-set 64M --duration 0.3 --hot-placement 0 >/dev/null 2>"$TMP/err"
	rc=$?
	[ $rc -eq 2 ] && grep -q "needs a --hot-set" "$TMP/err" || fail "no hot set: exit $rc: $(cat "$TMP/err")"
}

t_hot_placement
t_hot_placement_refused
pass
