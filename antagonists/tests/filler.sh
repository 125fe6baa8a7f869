#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# filler: holds node 0's free memory but for --leave, locked (VmLck), writes
# its row, ends 0 on SIGTERM; missing --leave is a bad argument (exit 2).
PROG=filler
# shellcheck source=SCRIPTDIR/../../lib/testlib.sh
. "$(dirname "$0")/../../lib/testlib.sh"

PID=
test_cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null; }

t_filler() {
	local free_kb leave held lck rc
	if [ ! -r /sys/devices/system/node/node0/meminfo ]; then skip "no NUMA sysfs"; return; fi
	if [ "$(id -u)" != 0 ] && [ "$(ulimit -l)" != unlimited ]; then skip "mlock needs root or an unlimited RLIMIT_MEMLOCK"; return; fi
	"$BIN" --mem-node 0 >/dev/null 2>"$TMP/err"
	rc=$?
	[ $rc -eq 2 ] && grep -q "^filler: error: " "$TMP/err" || { fail "without --leave: exit $rc, $(cat "$TMP/err")"; return; }
	free_kb=$(awk '/MemFree/ { print $4 }' /sys/devices/system/node/node0/meminfo)
	leave=$(((free_kb - 64 * 1024) * 1024))  # hold about 64 MiB (others allocate and free meanwhile)
	[ "$leave" -gt 0 ] || { skip "node 0 has under 64 MiB free"; return; }
	"$BIN" --mem-node 0 --leave "$leave" --max 96M --output "$TMP/out.csv" --ready-file "$TMP/ready" 2>"$TMP/err" &
	PID=$!
	wait_for "$TMP/ready" || { fail "not ready: $(cat "$TMP/err")"; return; }
	held=$(csv_col "$TMP/out.csv" held_bytes)
	before=$(csv_col "$TMP/out.csv" free_before_bytes)
	want=$((before - leave))
	[ "$want" -gt $((96 << 20)) ] && want=$((96 << 20))
	want=$((want / (2 << 20) * (2 << 20)))
	[ "$want" -lt 0 ] && want=0
	[ "$held" = "$want" ] || { fail "held $held bytes, not $want (free before $before, leave $leave, at most 96M)"; return; }
	lck=$(awk '/VmLck/ { print $2 }' "/proc/$PID/status")
	# AddressSanitizer makes mlock a no-op: no lock to see in the sanitized build
	nm "$BIN" 2>/dev/null | grep -q __asan_init ||
		[ "$((lck * 1024))" -ge "$held" ] || { fail "VmLck ${lck} kB < held $held bytes"; return; }
	kill -TERM "$PID"
	wait "$PID"
	rc=$?
	PID=
	[ $rc -eq 0 ] || { fail "exit $rc after SIGTERM"; return; }
	pass
}

t_filler
