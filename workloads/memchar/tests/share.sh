#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# share: groups on target A and B (here both node 0, or B a DAX file); one
# row per non-empty group and a total per share, a + b = total, share column.
. "$(dirname "$0")/lib/memchar.sh"

T=$((NCPU >= 2 ? 2 : 1))
SHARES=0,1
[ "$T" -ge 2 ] && SHARES=0,0.5,1

# check_share FILE SHARES: per share, bandwidth_a (share < 1), bandwidth_b
# (share > 0) and bandwidth_total; a + b = total (within 0.1 %); all verified
check_share() {
	local f=$1 shares=$2
	if [ "$(head -n1 "$f")" != "$HEADER" ]; then
		bad "$f: header"; return
	fi
	if ! awk -F, -v shares="$shares" '
		NR == 1 { next }
		NF != 24 || $1 != "memchar" || $2 != "share" || $19 != 1 ||
		!($4 > 0) || $5 != "MB/s" { bad = 1 }
		{ s = $21 + 0; n[s]++ }
		$3 == "bandwidth_a" { a[s] = $4 }
		$3 == "bandwidth_b" { b[s] = $4 }
		$3 == "bandwidth_total" { t[s] = $4 }
		END {
			k = split(shares, want, ",")
			for (s in n) seen++
			if (seen != k) bad = 1
			for (i = 1; i <= k; i++) {
				s = want[i] + 0
				rows = 1 + (s < 1) + (s > 0)
				if (n[s] != rows || !(s in t)) { bad = 1; continue }
				d = a[s] + b[s] - t[s]
				if (d < 0) d = -d
				if (d > 0.001 * t[s] + 0.01) bad = 1
			}
			exit bad
		}' "$f"; then
		bad "$f: rows"; cat "$f" >&2; return
	fi
	ok
}

run share_n0 0 share --mem-node 0 --mem-node-b 0 --threads "$T" \
	--shares "$SHARES" --buffer-mib 4 --duration $D &&
	check_share "$TMP/share_n0.csv" "$SHARES" &&
	{ grep -q ',bandwidth_total,.*,node:0+node:0,' "$TMP/share_n0.csv" ||
		bad "total row names both targets"; }
run share_wr 0 share --mem-node-b 0 --op write --threads 1 --shares 1 \
	--buffer-mib 4 --duration $D && check_share "$TMP/share_wr.csv" 1
# B a file standing in for a DAX tier, A anonymous memory on node 0; then
# the same file for A and B (one mapping space: buffers must not overlap)
: >"$TMP/b.img"
run share_dax 0 share --mem-node 0 --dax-b "$TMP/b.img" --threads "$T" \
	--shares "$SHARES" --buffer-mib 4 --duration $D &&
	check_share "$TMP/share_dax.csv" "$SHARES" &&
	{ grep -q ",bandwidth_b,.*,dax:$TMP/b.img," "$TMP/share_dax.csv" ||
		bad "group b names the DAX target"; }
run share_same 0 share --dax "$TMP/b.img" --dax-b "$TMP/b.img" \
	--threads "$T" --shares "$SHARES" --buffer-mib 4 --duration $D &&
	check_share "$TMP/share_same.csv" "$SHARES"
# a share that rounds: 0.25 of 2 threads is 1 thread, reported as 0.5
if [ "$T" -ge 2 ]; then
	run share_round 0 share --mem-node-b 0 --threads 2 --shares 0.25 \
		--buffer-mib 4 --duration $D &&
		check_share "$TMP/share_round.csv" 0.5
fi
finish
