#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# DAMON observation: tierd adds a kdamond (vaddr, target = gups), reports
# quanta with access samples for 2.5 s, stops at --duration and on SIGINT,
# and leaves DAMON as it found it: same nr_kdamonds, same kdamond states,
# no kdamond of its own running.  Skips with tierd's reason where DAMON
# cannot be used (no sysfs, no vaddr operations, another kdamond running).
. "$(dirname "$0")/lib/tierd.sh"

A=/sys/kernel/mm/damon/admin/kdamonds
[ -d "$A" ] || skip "no DAMON sysfs interface ($A)"
snapshot() {
	local k
	echo "nr=$(cat $A/nr_kdamonds)"
	for k in "$A"/[0-9]*; do
		[ -d "$k" ] && echo "$(basename "$k")=$(cat "$k/state")"
	done
}
start_gups
N=$(mem_nodes | head -1)
before=$(snapshot)
timeout 20 "$TIERD" --pid "$GPID" --policy hemem --tiers "$N,$N" --observe damon \
	--damon-us 5000,100000 --duration 2.5 --output "$TMP/d.csv" 2>"$TMP/err"
rc=$?
if [ $rc -eq 2 ]; then
	after=$(snapshot)
	[ "$before" = "$after" ] || fail "refused, but DAMON changed: '$before' -> '$after'"
	skip "$(sed 's/^tierd: error: //' "$TMP/err")"
fi
cat "$TMP/err"
[ $rc -eq 0 ] || fail "exit $rc"
after=$(snapshot)
[ "$before" = "$after" ] || fail "DAMON not restored: '$before' -> '$after'"
q=$(csv_sum "$TMP/d.csv" quanta)
s=$(csv_sum "$TMP/d.csv" samples)
[ "$q" -ge 100 ] || fail "$q quanta"
[ "$s" -gt 0 ] || fail "no DAMON samples in 2.5 s of gups"
grep -q "observe damon:kdamond" "$TMP/err" || fail "start line does not name the kdamond"
echo "quanta=$q samples=$s"

# SIGINT mid-run restores DAMON too
"$TIERD" --pid "$GPID" --policy hemem --tiers "$N,$N" --observe damon \
	--output "$TMP/d2.csv" 2>"$TMP/err2" &
T=$!
PIDS="$PIDS $T"
sleep 1.5
kill -INT "$T"
wait "$T"
rc=$?
[ $rc -eq 0 ] || fail "SIGINT: exit $rc: $(cat "$TMP/err2")"
after=$(snapshot)
[ "$before" = "$after" ] || fail "DAMON not restored after SIGINT: '$before' -> '$after'"
stop "$GPID" || fail "gups exit $?"
echo ok
