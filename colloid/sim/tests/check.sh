#!/bin/sh
# --check: with a run's arguments, print "ok" and exit 0 at once without
# running or writing anything; an argument a run refuses before it starts
# is refused the same way (exit 2, the same one line), including what only
# the run's setup finds: curves, tier order, capacities, libcolloid's
# parameters taken together, the policy's quantum.
set -u
T=${TIERSIM:?} C=${CURVES:?}
d=${TEST_TMPDIR:?the scratch directory lib/runtests.sh gives}
fails=0
D="--tier default:$C/paper-default.csv" A="--tier alternate:$C/paper-alternate-135.csv"
bad() {
	echo "$*"
	fails=$((fails + 1))
}

out=$($T --check --system tpp --colloid on $D $A --duration 100000 --average-last 30 \
	--event hotset_move@50 --summary "$d/s.csv" --timeseries "$d/t.csv" 2>"$d/err")
rc=$?
[ "$rc" -eq 0 ] && [ "$out" = ok ] && [ ! -s "$d/err" ] || bad "valid run: exit $rc, '$out', $(cat "$d/err")"
[ -e "$d/s.csv" ] || [ -e "$d/t.csv" ] && bad "--check wrote an output file"
# no run, no workload built: 18.9 M regions of 4 KiB are checked at once
start=$(date +%s)
out=$($T --check --system memtis $D $A --region-size 4K --duration 100000) || bad "4K: exit $?"
[ "$out" = ok ] || bad "4K: '$out'"
[ $(($(date +%s) - start)) -le 5 ] || bad "--check took more than 5 s: it ran something"
out=$($T --check --system static --static-hot-fraction 0.5 $D $A) || bad "static: exit $?"
[ "$out" = ok ] || bad "static: '$out'"

# same WHAT ARGS...: the run and --check both exit 2 with the same line
same() {
	what=$1
	shift
	$T "$@" --duration 2 --average-last 1 >"$d/run.out" 2>"$d/run.err"
	rr=$?
	$T --check "$@" --duration 2 --average-last 1 >"$d/chk.out" 2>"$d/chk.err"
	rc=$?
	if [ "$rr" -ne 2 ] || [ "$rc" -ne 2 ] || [ "$(wc -l <"$d/chk.err")" -ne 1 ] ||
	    ! grep -q '^tiersim: error: ' "$d/chk.err" || ! cmp -s "$d/run.err" "$d/chk.err" ||
	    [ -s "$d/chk.out" ]; then
		bad "$what: run exit $rr ($(cat "$d/run.err")), --check exit $rc ($(cat "$d/chk.err"))"
	fi
}
printf 'read_ratio,bandwidth_mbps,latency_ns\n1.0,abc,80\n' >"$d/bad.csv"
same "missing curve" --system hemem --tier default:$d/none.csv $A
same "malformed curve" --system hemem --tier default:$d/bad.csv $A
same "tiers in the wrong order" --system hemem --tier default:$C/paper-alternate-135.csv \
	--tier alternate:$C/paper-default.csv
same "capacities below the working set" --system tpp $D:capacity=3 $A:capacity=3
same "freeze at the end" --system hemem $D $A --freeze-at 2
same "event after the end" --system hemem $D $A --event intensity@3=1
same "quantum not dividing 1 s" --system hemem $D $A --quantum-ms 3
same "policy quantum not dividing 1 s" --system memtis $D $A --param memtis_quantum_ms=300.5
same "parameters libcolloid refuses together" --system tpp $D $A \
	--param tpp_wmark_demote=0.001
same "unknown option" --system hemem $D $A --bogus
same "hot set too big to move" --system hemem $D $A --hot-set 40G --event hotset_move@1
[ "$fails" -eq 0 ]
