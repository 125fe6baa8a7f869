#!/bin/sh
# --start-tier: "default" is the first-touch placement a run without the option
# has (byte-identical output); "alternate" starts the whole working set in the
# alternate tier, so HeMem serves less from the default tier in the first
# second and promotes the hot set from there; static placement and an
# alternate tier too small to hold the working set are refused before the run.
set -u
T=${TIERSIM:?} C=${CURVES:?}
A="--system hemem --tier default:$C/paper-default.csv:capacity=8 --workload gups --working-set 24G --hot-set 6G
   --app-cores 15 --duration 6 --average-last 3 --no-timing"
bad() { echo "FAIL: $*"; exit 1; }
p_at() {	# p at second $1 of a run with further options $2...
	t=$1; shift
	$T $A --tier alternate:$C/paper-alternate-135.csv:capacity=24 "$@" --timeseries - --summary /dev/null |
		awk -F, -v t="$t" '$2=="p" && $1==t {print $3}'
}
none=$($T $A --tier alternate:$C/paper-alternate-135.csv:capacity=24) || bad "no --start-tier: exit $?"
dflt=$($T $A --tier alternate:$C/paper-alternate-135.csv:capacity=24 --start-tier default) || bad "default: exit $?"
[ "$none" = "$dflt" ] || bad "--start-tier default changed the output"
first=$(p_at 1) alt=$(p_at 1 --start-tier alternate) late=$(p_at 6 --start-tier alternate)
echo "p at 1 s: first touch $first, started in the alternate tier $alt; at 6 s: $late"
[ -n "$first" ] && [ -n "$alt" ] && [ -n "$late" ] || bad "no p series"
awk -v a="$alt" -v f="$first" -v l="$late" 'BEGIN { exit !(a < f && l > 0.8) }' || bad "p did not start lower and converge"
out=$($T --system static --tier default:$C/paper-default.csv --tier alternate:$C/paper-alternate-135.csv \
	--start-tier alternate 2>&1) && bad "static with --start-tier alternate ran"
echo "$out" | grep -q "needs a policy" || bad "static: $out"
out=$($T $A --tier alternate:$C/paper-alternate-135.csv:capacity=20 --start-tier alternate --check 2>&1) &&
	bad "an alternate tier smaller than the working set was accepted"
echo "$out" | grep -q "does not hold the working set it starts in" || bad "small alternate: $out"
out=$($T $A --tier alternate:$C/paper-alternate-135.csv --start-tier nowhere 2>&1) && bad "--start-tier nowhere ran"
echo "$out" | grep -q "must be default or alternate" || bad "nowhere: $out"
echo ok
