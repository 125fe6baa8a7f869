#!/bin/sh
# Output files: a path that cannot be written is a bad argument found before
# any work (exit 2, one stderr line, nothing written); a run stopped by
# SIGTERM leaves no output, partial or temporary, and an existing file at
# the final path unchanged; a run that completes leaves no temporary file.
set -u
T=${TIERSIM:?} C=${CURVES:?}
d=$(mktemp -d) || exit 1
pid=
trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$d"' EXIT
args="--system hemem --tier default:$C/paper-default.csv
 --tier alternate:$C/paper-alternate-135.csv --no-timing"
o=$d/out
mkdir "$o" || exit 1
fails=0
bad() {
	echo "$*"
	fails=$((fails + 1))
}
# nothing in $o but the files named
only() {
	want=$(printf '%s\n' "$@" | sort)
	have=$(cd "$o" && ls -A | sort)
	[ "$have" = "$want" ] || bad "$what: left in the output directory: $(echo $have)"
}
# $1: what; then the arguments; exit 2, one line naming $bad_path
expect2() {
	what=$1
	shift
	$T $args --duration 2 --average-last 1 "$@" >"$d/stdout" 2>"$d/err"
	rc=$?
	n=$(wc -l <"$d/err")
	if [ "$rc" -ne 2 ] || [ "$n" -ne 1 ] || ! grep -q '^tiersim: error: ' "$d/err" ||
	    ! grep -qF "$bad_path" "$d/err"; then
		bad "$what: exit $rc, $n stderr lines: $(cat "$d/err")"
	fi
	[ -s "$d/stdout" ] && bad "$what: wrote to stdout"
	only
	rm -rf "$o" && mkdir "$o" || exit 1
}

bad_path=$d/none/s.csv
expect2 "summary in a missing directory" --timeseries "$o/t.csv" --summary "$bad_path"
bad_path=$d/none/t.csv
expect2 "time series in a missing directory" --timeseries "$bad_path" --summary "$o/s.csv"
bad_path=$d
expect2 "summary is a directory" --timeseries "$o/t.csv" --summary "$bad_path"

# SIGTERM mid-run: exit 143, no time series, the old summary untouched
what="SIGTERM"
echo "an older summary" >"$o/s.csv"
cp "$o/s.csv" "$d/s.orig"
$T $args --duration 100000 --average-last 1 --timeseries "$o/t.csv" \
	--summary "$o/s.csv" 2>"$d/err" &
pid=$!
sleep 1
kill -TERM "$pid"
wait "$pid"
rc=$?
pid=
[ "$rc" -eq 143 ] || bad "$what: exit $rc, not 143: $(cat "$d/err")"
cmp -s "$o/s.csv" "$d/s.orig" || bad "$what: the existing summary was changed"
only s.csv

# a completed run puts both in place (the old summary replaced), nothing else
what="completed run"
$T $args --duration 3 --average-last 1 --timeseries "$o/t.csv" --summary "$o/s.csv" ||
	bad "$what: exit $?"
[ "$(grep -c ',throughput,' "$o/t.csv")" -eq 3 ] || bad "$what: time series incomplete"
grep -q '^,throughput,' "$o/s.csv" || bad "$what: summary not written"
only s.csv t.csv
[ "$fails" -eq 0 ]
