#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tierd stops cleanly: on SIGINT and on SIGTERM (exit 0, CSV flushed, no
# thread or child left), and by itself when the target exits.
. "$(dirname "$0")/lib/tierd.sh"

start_gups
N=$(mem_nodes | head -1)

# running FILE PID: tierd has written its first report (up to 30 s: a loaded machine and the
# sanitizers slow its start; a fixed sleep made this test fail on a busy 2-core host)
running() {
	for _ in $(seq 600); do
		[ -n "$(csv_val "$1" quanta 2>/dev/null)" ] && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}
for s in INT TERM; do
	"$TIERD" --pid "$GPID" --policy hemem --tiers "$N,$N" --observe none \
		--output "$TMP/$s.csv" 2>"$TMP/$s.err" &
	T=$!
	PIDS="$PIDS $T"
	running "$TMP/$s.csv" "$T" || fail "tierd wrote no report or ended early: $(cat "$TMP/$s.err")"
	kill -$s "$T"
	t0=$(date +%s%N)
	wait "$T"
	rc=$?
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	[ $rc -eq 0 ] || fail "SIG$s: exit $rc, want 0: $(cat "$TMP/$s.err")"
	# a bound on hanging, not a timing check (the time is printed)
	[ $ms -lt 10000 ] || fail "SIG$s: took $ms ms to stop"
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
running "$TMP/exit.csv" "$T" || fail "tierd wrote no report or ended early: $(cat "$TMP/exit.err")"
stop "$GPID" || fail "gups exit $?"
for _ in $(seq 200); do
	kill -0 "$T" 2>/dev/null || break
	sleep 0.05
done
kill -0 "$T" 2>/dev/null && fail "tierd still runs 10 s after the target exited"
wait "$T"
rc=$?
[ $rc -eq 0 ] || fail "after target exit: exit $rc: $(cat "$TMP/exit.err")"
grep -q "stopped (target exited)" "$TMP/exit.err" || fail "no 'target exited' summary"
echo ok
