#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tierd stops cleanly: on SIGINT and on SIGTERM (exit 0, CSV flushed, no
# thread or child left), and by itself when the target exits.
. "$(dirname "$0")/lib/tierd.sh"

start_gups
N=$(mem_nodes | head -1)
for s in INT TERM; do
	"$TIERD" --pid "$GPID" --policy hemem --tiers "$N,$N" --observe none \
		--output "$TMP/$s.csv" 2>"$TMP/$s.err" &
	T=$!
	PIDS="$PIDS $T"
	sleep 1.5
	kill -0 "$T" || fail "tierd ended early: $(cat "$TMP/$s.err")"
	kill -$s "$T"
	t0=$(date +%s%N)
	wait "$T"
	rc=$?
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	[ $rc -eq 0 ] || fail "SIG$s: exit $rc, want 0: $(cat "$TMP/$s.err")"
	[ $ms -lt 2000 ] || fail "SIG$s: took $ms ms to stop"
	grep -q "stopped (SIG$s)" "$TMP/$s.err" || fail "SIG$s: no stop summary"
	[ -n "$(csv_val "$TMP/$s.csv" quanta)" ] || fail "SIG$s: no rows flushed"
	[ -d "/proc/$T" ] && fail "SIG$s: tierd $T still exists"
	echo "SIG$s: stopped in $ms ms"
done

# the target exits: tierd notices and exits 0
"$TIERD" --pid "$GPID" --policy hemem --tiers "$N,$N" --observe none \
	--output "$TMP/exit.csv" 2>"$TMP/exit.err" &
T=$!
PIDS="$PIDS $T"
sleep 1
stop "$GPID" || fail "gups exit $?"
for _ in $(seq 40); do
	kill -0 "$T" 2>/dev/null || break
	sleep 0.05
done
kill -0 "$T" 2>/dev/null && fail "tierd still runs 2 s after the target exited"
wait "$T"
rc=$?
[ $rc -eq 0 ] || fail "after target exit: exit $rc: $(cat "$TMP/exit.err")"
grep -q "stopped (target exited)" "$TMP/exit.err" || fail "no 'target exited' summary"
echo ok
