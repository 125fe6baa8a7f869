#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SIGTERM while the buffer is still being touched (512 MiB takes a while).
PROG=antagonist
# shellcheck source=SCRIPTDIR/../../lib/testlib.sh
. "$(dirname "$0")/../../lib/testlib.sh"

CPU0=$(awk '/^Cpus_allowed_list/ { split($2, a, "[,-]"); print a[1] }' /proc/self/status)

t_sigterm_warmup() {
	local pid rc
	"$BIN" --cpus "$CPU0" --buffer 512M >"$TMP/csv" 2>"$TMP/err" &
	pid=$!
	sleep 0.1
	kill -TERM $pid
	wait $pid
	rc=$?
	[ $rc -eq 0 ] || { fail "exit $rc after SIGTERM during warm-up"; return; }
	pass
}

t_sigterm_warmup
pass
