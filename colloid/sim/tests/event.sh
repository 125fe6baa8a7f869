#!/bin/sh
# Phase events act at the right quantum: with 10 ms quanta an event at
# t = 2.5 s affects exactly the second half of the step (2, 3] s.
set -u
T=${TIERSIM:?} C=${CURVES:?}
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
$T --system static --tier default:$C/paper-default.csv \
	--tier alternate:$C/paper-alternate-135.csv --duration 5 --average-last 2 \
	--quantum-ms 10 --event hotset_move@2.5 --event intensity@2.5=3 --no-timing \
	--timeseries "$d/ts" --summary "$d/sum" || exit 1
val() { awk -F, -v t="$1" -v m="$2" '$1==t && $2==m {print $3}' "$d/ts"; }
p2=$(val 2 p) p3=$(val 3 p) p4=$(val 4 p)
i2=$(val 2 intensity) i3=$(val 3 intensity) i4=$(val 4 intensity)
echo "p: $p2 $p3 $p4  intensity: $i2 $i3 $i4"
# all hot regions were in the default tier; after the move none are
awk -v a="$p2" -v b="$p3" -v c="$p4" 'BEGIN {
	if (!(a > 0.8 && c < 0.2)) exit 1
	if ((b - (a + c) / 2) ^ 2 > 1e-8) exit 1 }' || { echo "p wrong"; exit 1; }
[ "$i2" = 0 ] && [ "$i3" = 1.5 ] && [ "$i4" = 3 ] || { echo "intensity wrong"; exit 1; }
grep -q '^,convergence_time_s,' "$d/sum" || { echo "no convergence_time_s"; exit 1; }
exit 0
