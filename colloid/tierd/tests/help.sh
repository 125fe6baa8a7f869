#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --help prints every option and exits 0.
. "$(dirname "$0")/lib/tierd.sh"

"$TIERD" --help >"$TMP/out" 2>"$TMP/err" || fail "--help exit $?"
[ -s "$TMP/err" ] && fail "--help wrote to stderr"
for o in pid policy colloid tiers region-size min-mapping quantum-ms duration param \
	observe latency probe-cpu probe-size probe-loads damon-us sample-scale capacity \
	batch report-interval output dry-run move-test help; do
	grep -q -- "--$o" "$TMP/out" || fail "--help lacks --$o"
done
echo "ok"
