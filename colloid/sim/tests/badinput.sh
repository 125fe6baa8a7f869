#!/bin/sh
# Bad input exits 2 with exactly one line on stderr, before any work.
set -u
T=${TIERSIM:?} C=${CURVES:?}
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
D="--tier default:$C/paper-default.csv"
A="--tier alternate:$C/paper-alternate-135.csv"
printf 'read_ratio,bandwidth_mbps,latency_ns\n1.0,abc,80\n' >"$d/bad.csv"
fails=0
expect2() {
	what=$1
	shift
	$T "$@" --duration 2 --average-last 1 >"$d/out" 2>"$d/err"
	rc=$?
	n=$(wc -l <"$d/err")
	if [ "$rc" -ne 2 ] || [ "$n" -ne 1 ] || ! grep -q '^tiersim: error: ' "$d/err"; then
		echo "$what: exit $rc, $n stderr lines:"
		cat "$d/err"
		fails=$((fails + 1))
	fi
}
expect2 "missing curve file" --system hemem --tier default:$d/none.csv $A
expect2 "malformed curve" --system hemem --tier default:$d/bad.csv $A
expect2 "unknown system" --system linux $D $A
expect2 "negative intensity" --system hemem $D $A --intensity -1
expect2 "intensity too high" --system hemem $D $A --intensity 11
expect2 "missing tier" --system hemem $D
expect2 "bad event" --system hemem $D $A --event explode@3
expect2 "unknown param" --system hemem $D $A --param no_such_param=1
expect2 "bad region size" --system hemem $D $A --region-size 3M
expect2 "freeze at zero" --system hemem $D $A --freeze-at 0
expect2 "cha share above 1" --system hemem $D $A --cha-share 1.5
expect2 "cha share not a number" --system hemem $D $A --cha-share half
expect2 "unknown workload" --system hemem $D $A --workload silo
expect2 "hot share with zipf" --system hemem $D $A --workload zipf --hot-share 0.9
expect2 "zipf theta with gups" --system hemem $D $A --zipf-theta 0.99
expect2 "zipf theta negative" --system hemem $D $A --workload zipf --zipf-theta -1
expect2 "zipf hot-set move too big" --system hemem $D $A --workload zipf --hot-set 40G --event hotset_move@1
expect2 "unknown option" --system hemem $D $A --bogus
expect2 "unknown short option" --system hemem $D $A -x
expect2 "value for an option without one" --system hemem $D $A --no-timing=1
expect2 "capacities below the working set" --system hemem $D:capacity=3 $A:capacity=3
expect2 "freeze at the end" --system hemem $D $A --freeze-at 2
expect2 "freeze after the end" --system hemem $D $A --freeze-at 5
expect2 "unknown tier option" --system hemem $D:cap=3 $A
grep -q "unknown tier option 'cap'" "$d/err" || { echo "unknown tier option: $(cat "$d/err")"; fails=$((fails + 1)); }
expect2 "working set of no region" --system hemem $D $A --working-set 0
grep -q "working-set is smaller than one region" "$d/err" || { echo "working set 0: $(cat "$d/err")"; fails=$((fails + 1)); }
$T --help >/dev/null || { echo "--help failed"; fails=$((fails + 1)); }
[ "$fails" -eq 0 ]
