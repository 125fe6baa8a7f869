#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SIGINT stops a long run promptly with 130, the header already out.
. "$(dirname "$0")/lib/memchar.sh"

"$BIN" latency --buffer-mib 8 --duration 60 >"$TMP/int.csv" 2>"$TMP/int.err" &
pid=$!
sleep 0.5
kill -INT "$pid"
wait "$pid"
rc=$?
if [ "$rc" -ne 130 ]; then bad "SIGINT: exit $rc, want 130"; else ok; fi
finish
