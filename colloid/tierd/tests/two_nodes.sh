#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Two memory nodes A, B: --move-test A:B moves gups's heap to B and back
# (B:A), each verified by tierd's move_pages status queries and by
# /proc/PID/numa_maps; then a TPP run with a 128 MiB default tier demotes
# part of the heap to B.  Skips on hosts with fewer than two memory nodes.
. "$(dirname "$0")/lib/tierd.sh"

mapfile -t nodes < <(mem_nodes)
[ "${#nodes[@]}" -ge 2 ] ||
	skip "fewer than two memory nodes (has_memory: $(cat /sys/devices/system/node/has_memory 2>/dev/null || echo none))"
A=${nodes[0]} B=${nodes[1]}
start_gups --mem-node "$A"
for mv in "$A:$B" "$B:$A"; do
	to=${mv#*:}
	timeout 30 "$TIERD" --pid "$GPID" --move-test "$mv" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	cat "$TMP/out"
	[ $rc -eq 0 ] || fail "move-test $mv: exit $rc: $(cat "$TMP/err")"
	grep -q "verify: 65536 pages on node $to, 0 elsewhere" "$TMP/out" ||
		fail "move-test $mv: not every page verified on node $to"
	np=$(numa_pages "$GPID" | tr ' ' '\n' | sed -n "s/^N$to=//p")
	[ "${np:-0}" -ge 65536 ] || fail "numa_maps: ${np:-0} pages on node $to after $mv"
done
timeout 20 "$TIERD" --pid "$GPID" --policy tpp --tiers "$A,$B" --observe none \
	--capacity 128M,auto --duration 2 --output "$TMP/run.csv" 2>"$TMP/err" ||
	fail "tpp run: $(cat "$TMP/err")"
moved=$(csv_sum "$TMP/run.csv" pages_moved)
[ "$moved" -ge 32768 ] || fail "tpp demoted $moved pages, want >= 32768"
np=$(numa_pages "$GPID" | tr ' ' '\n' | sed -n "s/^N$B=//p")
[ "${np:-0}" -ge 32768 ] || fail "numa_maps: ${np:-0} pages on node $B after demotion"
stop "$GPID" || fail "gups exit $?"
echo ok
