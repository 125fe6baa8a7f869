#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --move-test N:N on a running gups: every page of its 256 MiB heap goes
# through move_pages() in budget-limited batches without an error, counted as
# there already (none moved), and the status query afterwards finds every
# page on N (also per /proc/PID/numa_maps).
. "$(dirname "$0")/lib/tierd.sh"

start_gups
N=$(mem_nodes | head -1)
before=$(numa_pages "$GPID")
timeout 30 "$TIERD" --pid "$GPID" --move-test "$N:$N" --output "$TMP/mt.csv" \
	>"$TMP/out" 2>"$TMP/err"
rc=$?
cat "$TMP/out"
[ $rc -eq 0 ] || fail "exit $rc: $(cat "$TMP/err")"
grep -q "verify: 65536 pages on node $N, 0 elsewhere, 0 absent: ok" "$TMP/out" ||
	fail "summary does not report 65536 pages verified on node $N"
# one node: every page goes through move_pages() and is there already, so none counts as moved
grep -q " 65536 pages ok (0 moved, 65536 there already), 0 failed" "$TMP/out" ||
	fail "summary does not report 65536 pages placed, none moved"
[ "$(head -1 "$TMP/mt.csv")" = "t_s,metric,value,unit" ] || fail "bad CSV header"
[ "$(csv_val "$TMP/mt.csv" pages_moved)" = 0 ] || fail "pages_moved != 0 on one node"
[ "$(csv_val "$TMP/mt.csv" pages_already_placed)" = 65536 ] || fail "pages_already_placed != 65536"
[ "$(csv_val "$TMP/mt.csv" bytes_moved)" = 0 ] || fail "bytes_moved != 0 on one node"
[ "$(csv_val "$TMP/mt.csv" move_failures)" = 0 ] || fail "move_failures != 0"
[ "$(csv_val "$TMP/mt.csv" move_batches)" -ge 128 ] || fail "fewer than 128 batches of 512 pages"
# a smaller budget spreads the same work over more quanta
timeout 30 "$TIERD" --pid "$GPID" --move-test "$N:$N" --param migrate_limit_Bps=5e9 \
	--quantum-ms 10 >"$TMP/out2" 2>"$TMP/err" || fail "budget run: $(cat "$TMP/err")"
q=$(sed -n 's/.* \([0-9]*\) quanta of 10 ms.*/\1/p' "$TMP/out2")
[ "${q:-0}" -ge 5 ] || fail "5 GB/s x 10 ms budget: 256 MiB took ${q:-?} quanta, want >= 5"
echo "numa_maps before: $before after: $(numa_pages "$GPID")"
numa_pages "$GPID" | grep -Eq "N$N=[0-9]+" || fail "numa_maps shows no pages on node $N"
kill -0 "$GPID" || fail "gups died"
stop "$GPID" || fail "gups exit $? (checksum?): $(cat "$TMP/gups.err")"
echo ok
