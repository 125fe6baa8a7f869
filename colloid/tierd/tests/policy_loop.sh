#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The quantum loop on a running gups, without access samples (--observe
# none: this test must run on hosts without PMU or DAMON): TPP with a
# default tier smaller than the heap demotes (kswapd) until it fits, so
# the policy's plan really goes through move_pages(); both tiers are one
# node here, so the moves are same-node batches.  Checks the CSV metrics,
# the budget (bytes moved per second <= migrate_limit_Bps), and exit 0 at
# the end of --duration.
. "$(dirname "$0")/lib/tierd.sh"

start_gups
N=$(mem_nodes | head -1)
timeout 20 "$TIERD" --pid "$GPID" --policy tpp --tiers "$N,$N" --observe none \
	--capacity 128M,1G --param migrate_limit_Bps=2e9 --duration 2.5 \
	--output "$TMP/run.csv" 2>"$TMP/err"
rc=$?
cat "$TMP/err"
[ $rc -eq 0 ] || fail "exit $rc"
[ "$(head -1 "$TMP/run.csv")" = "t_s,metric,value,unit" ] || fail "bad CSV header"
for m in quanta pages_moved pages_already_placed bytes_moved move_failures p latency_default latency_alternate \
	hot_regions_default hot_regions_alternate tierd_cpu_share; do
	[ -n "$(csv_val "$TMP/run.csv" $m)" ] || fail "no $m rows"
done
awk -F, 'NR > 1 && NF != 4 { exit 1 }' "$TMP/run.csv" || fail "a row without 4 fields"
q=$(csv_sum "$TMP/run.csv" quanta)
[ "$q" -ge 100 ] || fail "$q quanta in 2 s of 10 ms quanta"
# one node: the plan's moves go through move_pages() and find every page there
# already, so they count as placed, none as moved
moved=$(csv_sum "$TMP/run.csv" pages_moved)
placed=$(csv_sum "$TMP/run.csv" pages_already_placed)
# 256 MiB heap, 128 MiB default tier: at least 64 regions (32768 pages) demoted
[ "$placed" -ge 32768 ] || fail "pages_already_placed $placed, want >= 32768"
[ "$moved" = 0 ] || fail "pages_moved $moved on one node, want 0"
[ "$(csv_sum "$TMP/run.csv" move_failures)" = 0 ] || fail "move failures"
# budget: 2 GB/s -> at most 2e9 B per 1 s row (+1 region of slack)
awk -F, '$2 == "bytes_moved" && $3 > 2e9 + 2097152 { exit 1 }' "$TMP/run.csv" ||
	fail "a 1 s row moved more than migrate_limit_Bps allows"
share=$(csv_val "$TMP/run.csv" tierd_cpu_share | tail -1)
awk -v s="$share" 'BEGIN { exit !(s > 0 && s < 0.5) }' || fail "tierd_cpu_share $share"
grep -q "stopped (duration)" "$TMP/err" || fail "no stop summary on stderr"
echo "pages_moved=$moved pages_already_placed=$placed quanta=$q cpu_share(last)=$share"
# --dry-run: the same plan, nothing moves
timeout 20 "$TIERD" --pid "$GPID" --policy tpp --tiers "$N,$N" --observe none \
	--capacity 128M,1G --duration 1.2 --dry-run --output "$TMP/dry.csv" 2>"$TMP/err" ||
	fail "dry run: $(cat "$TMP/err")"
[ "$(csv_sum "$TMP/dry.csv" pages_moved)" = 0 ] && [ "$(csv_sum "$TMP/dry.csv" pages_already_placed)" = 0 ] ||
	fail "--dry-run moved pages"
kill -0 "$GPID" || fail "gups died"
stop "$GPID" || fail "gups exit $?: $(cat "$TMP/gups.err")"
echo ok
