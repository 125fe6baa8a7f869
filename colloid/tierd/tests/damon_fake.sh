#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# DAMON plumbing against a fake admin tree (TIERD_DAMON_ADMIN), so that it
# is checked on hosts whose kernel cannot run a vaddr kdamond: tierd adds
# kdamond 0, configures it (vaddr, pid, intervals, a "stat" scheme), turns
# it on, reads tried_regions (here: a fixed 64 MiB region of gups's heap
# with nr_accesses 10) into samples of the overlapping 2 MiB regions, which
# HeMem then classes hot (10 >= hemem_read_hot), and at exit turns the
# kdamond off and writes nr_kdamonds back.  Also the refusals: another
# kdamond running, or configured.
. "$(dirname "$0")/lib/tierd.sh"

start_gups
N=$(mem_nodes | head -1)
lo="" hi=""
while read -r range perms _ _ inode name; do
	[ "$perms" = rw-p ] && [ "$inode" = 0 ] && [ -z "${name:-}" ] || continue
	s=$((16#${range%-*})) e=$((16#${range#*-}))
	if [ $((e - s)) -ge 268435456 ]; then lo=$s hi=$e; break; fi
done <"/proc/$GPID/maps"
[ -n "${lo:-}" ] || fail "no 256 MiB heap mapping in /proc/$GPID/maps"

F=$TMP/admin
K=$F/kdamonds/0
C=$K/contexts/0
mkdir -p "$C/monitoring_attrs/intervals" "$C/monitoring_attrs/nr_regions" "$C/targets/0" \
	"$C/schemes/0/access_pattern/sz" "$C/schemes/0/access_pattern/nr_accesses" \
	"$C/schemes/0/access_pattern/age" "$C/schemes/0/tried_regions/0" \
	"$C/schemes/0/tried_regions/1"
# the attribute files exist, as in sysfs (tierd never creates files)
for f in operations monitoring_attrs/intervals/sample_us monitoring_attrs/intervals/aggr_us \
	monitoring_attrs/intervals/update_us monitoring_attrs/nr_regions/min \
	monitoring_attrs/nr_regions/max targets/nr_targets targets/0/pid_target \
	schemes/nr_schemes schemes/0/action; do
	: >"$C/$f"
done
for d in sz nr_accesses age; do
	: >"$C/schemes/0/access_pattern/$d/min"
	: >"$C/schemes/0/access_pattern/$d/max"
done
echo 0 >"$F/kdamonds/nr_kdamonds"
echo off >"$K/state"
echo 0 >"$K/contexts/nr_contexts"
printf 'vaddr\nfvaddr\npaddr\n' >"$C/avail_operations"
# region 0: heap start + [0, 64 MiB) accessed; region 1: the rest, idle
r0s=$(( (lo + 2097151) / 2097152 * 2097152 ))
echo "$r0s" >"$C/schemes/0/tried_regions/0/start"
echo $((r0s + 67108864)) >"$C/schemes/0/tried_regions/0/end"
echo 10 >"$C/schemes/0/tried_regions/0/nr_accesses"
echo $((r0s + 67108864)) >"$C/schemes/0/tried_regions/1/start"
echo "$hi" >"$C/schemes/0/tried_regions/1/end"
echo 0 >"$C/schemes/0/tried_regions/1/nr_accesses"

TIERD_DAMON_ADMIN=$F timeout 20 "$TIERD" --pid "$GPID" --policy hemem --tiers "$N,$N" \
	--observe damon --duration 1.5 --output "$TMP/d.csv" 2>"$TMP/err"
rc=$?
cat "$TMP/err"
[ $rc -eq 0 ] || fail "exit $rc"
grep -q "observe damon:kdamond0" "$TMP/err" || fail "not run with kdamond 0"
[ "$(cat "$F/kdamonds/nr_kdamonds")" = 0 ] || fail "nr_kdamonds not restored"
[ "$(cat "$K/state")" = off ] || fail "kdamond state '$(cat "$K/state")', want off"
[ "$(cat "$C/operations")" = vaddr ] || fail "operations not vaddr"
[ "$(cat "$C/targets/0/pid_target")" = "$GPID" ] || fail "pid_target not gups"
[ "$(cat "$C/schemes/0/action")" = stat ] || fail "scheme action not stat"
[ "$(cat "$C/monitoring_attrs/intervals/aggr_us")" = 100000 ] || fail "aggr_us"
s=$(csv_sum "$TMP/d.csv" samples)
hot=$(csv_val "$TMP/d.csv" hot_regions_default | tail -1)
[ "$s" -ge 32 ] || fail "samples $s, want >= 32 (one per 2 MiB region per aggregation)"
[ "$hot" = 32 ] || fail "hot_regions_default $hot, want 32 (the 64 MiB accessed region)"
echo "samples=$s hot_regions_default=$hot"

# refusals: a running kdamond; a configured idle one
echo 1 >"$F/kdamonds/nr_kdamonds"
echo on >"$K/state"
TIERD_DAMON_ADMIN=$F timeout 20 "$TIERD" --pid "$GPID" --policy hemem --tiers "$N,$N" \
	--observe damon --duration 1 >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && grep -q "kdamond 0 is on and not tierd's" "$TMP/err" ||
	fail "running kdamond: exit $rc: $(cat "$TMP/err")"
echo off >"$K/state"
echo 1 >"$K/contexts/nr_contexts"
TIERD_DAMON_ADMIN=$F timeout 20 "$TIERD" --pid "$GPID" --policy hemem --tiers "$N,$N" \
	--observe damon --duration 1 >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && grep -q "holds a configuration" "$TMP/err" ||
	fail "configured kdamond: exit $rc: $(cat "$TMP/err")"
[ "$(cat "$F/kdamonds/nr_kdamonds")" = 1 ] || fail "a refusal changed nr_kdamonds"
stop "$GPID" || fail "gups exit $?"
echo ok
