#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --mem-node 0 with --huge on.
PROG=antagonist
# shellcheck source=SCRIPTDIR/../../lib/testlib.sh
. "$(dirname "$0")/../../lib/testlib.sh"

CPU0=$(awk '/^Cpus_allowed_list/ { split($2, a, "[,-]"); print a[1] }' /proc/self/status)

t_numa_node() {
	local rc
	if [ ! -d /sys/devices/system/node/node0 ]; then skip "no NUMA sysfs"; return; fi
	timeout 20 "$BIN" --cpus "$CPU0" --mem-node 0 --buffer 64M --huge on \
		--duration 0.3 >"$TMP/csv" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ] || { fail "exit $rc: $(cat "$TMP/err")"; return; }
	pass
}

t_numa_node
pass
