#!/bin/sh
# Same inputs -> byte-identical time series and summary (without timing);
# another seed -> different output.
set -u
T=${TIERSIM:?} C=${CURVES:?}
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
args="--system hemem --colloid on --tier default:$C/paper-default.csv
 --tier alternate:$C/paper-alternate-135.csv --intensity 2 --duration 20
 --average-last 10 --event hotset_move@10 --no-timing"
for i in 1 2; do
	$T $args --seed 7 --timeseries "$d/ts$i" --summary "$d/sum$i" || exit 1
done
$T $args --seed 8 --timeseries "$d/ts3" --summary "$d/sum3" || exit 1
cmp -s "$d/ts1" "$d/ts2" || { echo "time series differ"; exit 1; }
cmp -s "$d/sum1" "$d/sum2" || { echo "summaries differ"; exit 1; }
cmp -s "$d/ts1" "$d/ts3" && { echo "seed has no effect"; exit 1; }
grep -q policy_cpu_share "$d/sum1" && { echo "--no-timing ignored"; exit 1; }
# with timing the share is there and is the only extra row
$T $args --seed 7 --summary "$d/sum4" || exit 1
grep -v policy_cpu_share "$d/sum4" | cmp -s - "$d/sum1" || { echo "timing changed results"; exit 1; }
# the zipf workload too, hot-set move included
for i in 5 6; do
	$T $args --workload zipf --zipf-theta 1.1 --hot-set 8G --seed 7 --timeseries "$d/ts$i" || exit 1
done
cmp -s "$d/ts5" "$d/ts6" || { echo "zipf time series differ"; exit 1; }
cmp -s "$d/ts5" "$d/ts1" && { echo "--workload zipf has no effect"; exit 1; }
exit 0
