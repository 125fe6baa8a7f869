#!/bin/sh
# --check-curve CURVE: each read ratio (ascending) and the unloaded latency
# the loader uses (the lowest-latency point, the first its monotone filter
# keeps), as %.6g; a curve a run refuses: the run's one error line, exit 2.
set -u
T=${TIERSIM:?} C=${CURVES:?}
d=${TEST_TMPDIR:?the scratch directory lib/runtests.sh gives}
fails=0
bad() {
	echo "$*"
	fails=$((fails + 1))
}
# expect NAME SPEC: stdout must be $want, exit 0
expect() {
	out=$($T --check-curve "$2" 2>"$d/err")
	rc=$?
	[ "$rc" -eq 0 ] && [ "$out" = "$want" ] && [ ! -s "$d/err" ] ||
		bad "$1: exit $rc, got '$out', $(cat "$d/err")"
}

# CSV: read ratios out of order, the lowest latency not on the first row,
# comments and blank lines
cat >"$d/c.csv" <<'CSV'
# a user's curve
read_ratio,bandwidth_mbps,latency_ns
1.0,30000,95.5
1.0,0,90.25

0.5,20000,110
0.5,0,101.123456789
0.5,60000,400
CSV
want='read_ratio,unloaded_latency_ns
0.5,101.123
1,90.25'
expect csv "$d/c.csv"

# a Mess directory; an editor's backup beside a curve is not a curve
mkdir "$d/mess"
printf '0 80\n50000 90\n90000 150\n' >"$d/mess/bwlat_100.txt"
printf '40000 95\n0 85\n' >"$d/mess/bwlat_50.txt"
printf '0 70\n10 71\n' >"$d/mess/bwlat_0.txt"
cp "$d/mess/bwlat_50.txt" "$d/mess/bwlat_50.txt~"
cp "$d/mess/bwlat_50.txt" "$d/mess/bwlat_50.txt.orig"
want='read_ratio,unloaded_latency_ns
0,70
0.5,85
1,80'
expect mess "$d/mess"

want='read_ratio,unloaded_latency_ns
1,72.5'
expect param "param:L0=72.5,a=20,k=3,bsat=100000"

# the bundled curves load
for f in "$C"/*.csv; do
	$T --check-curve "$f" >"$d/out" 2>"$d/err" && [ "$(head -1 "$d/out")" = \
		read_ratio,unloaded_latency_ns ] || bad "$f: $(cat "$d/err")"
done

# bad curves: the run's error line, exit 2, nothing on stdout
printf 'read_ratio,bandwidth_mbps,latency_ns\n1.0,0,80\n' >"$d/one.csv"
printf 'read_ratio,bw,lat\n1.0,0,80\n' >"$d/header.csv"
mkdir "$d/empty"
for spec in "$d/none.csv" "$d/one.csv" "$d/header.csv" "$d/empty" "param:L0=70,a=20" \
	"param:L0=70,a=20,k=3,bsat=1e5,z=1"; do
	$T --check-curve "$spec" >"$d/out" 2>"$d/err"
	rc=$?
	$T --system static --tier "default:$spec" --tier "alternate:$C/paper-alternate-135.csv" \
		--duration 1 --average-last 1 >/dev/null 2>"$d/run.err"
	[ "$rc" -eq 2 ] && [ ! -s "$d/out" ] && [ "$(wc -l <"$d/err")" -eq 1 ] &&
		cmp -s "$d/err" "$d/run.err" || bad "$spec: exit $rc: $(cat "$d/err") / run: $(cat "$d/run.err")"
done
$T --check-curve "$d/c.csv" --system hemem >"$d/out" 2>"$d/err"
[ $? -eq 2 ] && grep -q '^tiersim: error: ' "$d/err" || bad "--check-curve with other options"
[ "$fails" -eq 0 ]
