#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# latency/loaded/objsize distributions: timer_cost rows, 12 quantile rows per point
# (q ascending, values non-decreasing, max last), the interrupted and groups
# counts; --outlier-ns 0 keeps every group; --group/--outlier-ns are checked
# and refused elsewhere; every bandwidth row records its access width.
. "$(dirname "$0")/lib/memchar.sh"

# check_dist FILE METRIC POINTS
check_dist() {
	local f=$1 m=$2 points=$3
	if ! awk -F, -v m="$m" -v points="$points" '
		$3 == "timer_cost" { if (!($4 > 0) || $5 != "ns") bad = 1; timer++ }
		$3 == m { mean = $4; if ($23 != 16) bad = 1; pts++ }
		$3 == m "_quantile" {
			if ($22 <= lastq && lastq < 1) bad = 1
			if ($4 < lastv && lastq < 1) bad = 1
			if (m == "loaded_latency" && $14 == "") bad = 1
			lastq = $22; lastv = $4; nq++
			if ($22 == 1) { lastq = 0; lastv = 0 }
		}
		$3 == m "_interrupted" { if ($5 != "groups" || $4 < 0) bad = 1; ni++ }
		$3 == m "_groups" { if (!($4 > 0)) bad = 1; ng++ }
		END { exit bad || timer < 1 || pts != points || nq != 12 * points ||
			   ni != points || ng != points }' "$f"; then
		bad "$f: distribution rows"; cat "$f" >&2; return
	fi
	ok
}

run lat 0 latency --buffer-mib 8 --duration $D && check_dist "$TMP/lat.csv" idle_latency 1
run lat0 0 latency --buffer-mib 8 --duration $D --outlier-ns 0 --group 4 &&
	{ awk -F, '$3 == "idle_latency_interrupted" && $4 != 0 { exit 1 }
		   $3 ~ /^idle_latency/ && $23 != 4 { exit 1 }' "$TMP/lat0.csv" ||
	  bad "--outlier-ns 0 must keep every group, --group 4 be recorded"; }
if [ "$NCPU" -ge 2 ]; then
	run ld 0 loaded --injectors 1 --delays 0,100 --buffer-mib 8 --duration $D &&
		check_dist "$TMP/ld.csv" loaded_latency 2 &&
		{ awk -F, '$3 == "loaded_latency_quantile" && !($15 > 0) { exit 1 }' "$TMP/ld.csv" ||
		  bad "loaded quantile rows need the point's bandwidth"; }
fi
# objsize: 16 objects per group, whatever their size
run obj 0 objsize --buffer-mib 8 --duration $D --sizes 64,1024 &&
	{ awk -F, '$3 == "object_latency_quantile" { n++; g[$12] = $23; if (!($4 > 0)) bad = 1 }
		   $3 == "object_latency_interrupted" { ni++ }
		   $3 == "timer_cost" { nt++ }
		   END { exit bad || n != 24 || ni != 2 || g[64] != 16 || g[1024] != 16 || nt < 1 }' "$TMP/obj.csv" ||
	  { bad "objsize distribution rows"; cat "$TMP/obj.csv" >&2; }; }
usage_error groupobj objsize --group 4
usage_error group0 latency --group 0
usage_error groupbw bandwidth --group 4 --op read --threads 1
usage_error outlier latency --outlier-ns -5
# x86-64: explicit 16 B SSE2 accesses in every kernel; elsewhere 8 (ntwrite
# is x86-64 only)
[ "$(uname -m)" = x86_64 ] && W=16 || W=8
for op in read write; do
	run "bw_$op" 0 bandwidth --op "$op" --threads 1 --buffer-mib 4 --duration $D &&
		{ awk -F, -v w="$W" 'NR > 1 && $24 != w { exit 1 }' "$TMP/bw_$op.csv" ||
		  bad "$op: access width, want $W"; }
done
finish
