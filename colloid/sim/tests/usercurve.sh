#!/bin/sh
# A user's own curves: a Mess-style directory and a CSV file run end to end,
# and a slower alternate tier gives lower throughput with the hot set there.
set -u
T=${TIERSIM:?} C=${CURVES:?}
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
mkdir "$d/mess"
printf '0 80\n50000 90\n90000 150\n100000 400\n' >"$d/mess/bwlat_100.txt"
printf '0 85\n40000 95\n80000 170\n90000 420\n' >"$d/mess/bwlat_50.txt"
printf 'read_ratio,bandwidth_mbps,latency_ns\n1.0,0,300\n1.0,30000,320\n1.0,50000,900\n' >"$d/slow.csv"
run() {
	$T --system static --static-hot-fraction 0 --tier default:$d/mess \
		--tier "alternate:$1:capacity=100" --duration 2 --average-last 2 --no-timing |
		awk -F, '$2=="throughput"{print $3}'
}
fast=$(run "$C/paper-alternate-135.csv") slow=$(run "$d/slow.csv")
echo "alternate 135 ns: $fast Mops/s, user's 300 ns curve: $slow Mops/s"
[ -n "$fast" ] && [ -n "$slow" ] || exit 1
awk -v a="$fast" -v b="$slow" 'BEGIN { exit !(a > b) }'
