#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# PEBS / IBS sampling: with --observe perf tierd gets address samples of
# gups's heap.  Skips with tierd's reason on hosts without them (VMs
# without a virtual PMU, AMD without IBS, perf_event_paranoid).
. "$(dirname "$0")/lib/tierd.sh"

start_gups
N=$(mem_nodes | head -1)
timeout 20 "$TIERD" --pid "$GPID" --policy hemem --tiers "$N,$N" --observe perf \
	--duration 2 --output "$TMP/p.csv" 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && skip "$(sed 's/^tierd: error: //' "$TMP/err")"
cat "$TMP/err"
[ $rc -eq 0 ] || fail "exit $rc"
s=$(csv_sum "$TMP/p.csv" samples)
[ "$s" -gt 0 ] || fail "no samples from the PMU in 2 s of gups"
echo "samples=$s"
stop "$GPID" || fail "gups exit $?"
echo ok
