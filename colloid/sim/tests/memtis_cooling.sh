#!/bin/sh
# MEMTIS counts one per delivered PEBS record: its cooling (every
# memtis_cooling_samples records) and threshold adaptation run on delivered
# records, so when the sampler is throttled (--pebs-max-rate) the counts
# remember longer in time and a hot-set move takes longer to follow.  The
# model once delivered throttled samples with a weight (the samples each
# stood for): cooling then ran at the unthrottled rate, every ~0.7 s, and the
# convergence time did not depend on the throttle at all.
set -u
T=${TIERSIM:?} C=${CURVES:?}
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
conv() {
	$T --system memtis --tier default:$C/paper-default.csv:capacity=24 \
		--tier alternate:$C/paper-alternate-135.csv:capacity=72 --hot-share 0.928 \
		--duration 100 --average-last 20 --event hotset_move@40 --no-timing \
		--pebs-max-rate "$1" --summary "$d/sum" >/dev/null || exit 1
	awk -F, '$2 == "convergence_time_s" {print $3}' "$d/sum"
}
slow=$(conv 1e5) fast=$(conv 1e6)
echo "hot-set move, MEMTIS at 0x: converged after $slow s at 1e5 records/s, $fast s at 1e6"
awk -v s="$slow" -v f="$fast" 'BEGIN { exit !(s >= 10 && s >= 2 * f) }' ||
	{ echo "convergence does not follow the delivered-record rate"; exit 1; }
exit 0
