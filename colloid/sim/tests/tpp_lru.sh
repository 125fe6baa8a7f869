#!/bin/sh
# TPP without Colloid at 0x: every scanned alternate-tier region faults well
# within the 1000 ms hot threshold, so TPP promotes cold regions as well as
# hot ones; what sorts them is kswapd demoting the tail of the default
# tier's LRU, which the accessed-bit references (--ref-rate) keep in
# recency order.  After a few scan passes (one is ~29 s: 72 GiB at 256 MB
# per 100 ms) nearly all of the 20 GiB hot
# set must be in the default tier and throughput near the best static
# placement (all hot in default).  Without references the LRU only knows
# arrival order and the hot share never improves (the old FIFO behaviour).
set -u
T=${TIERSIM:?} C=${CURVES:?}
tiers="--tier default:$C/paper-default.csv:capacity=24 --tier alternate:$C/paper-alternate-135.csv:capacity=72"
val() { awk -F, -v m="$1" '$1=="" && $2==m {print $3}'; }
out=$($T --system tpp --colloid off $tiers --intensity 0 --duration 100 --average-last 30 --no-timing) || exit 1
thr=$(echo "$out" | val throughput) hot=$(echo "$out" | val hot_in_alternate)
best=$($T --system static --static-hot-fraction 1 $tiers --intensity 0 --duration 3 \
	--average-last 3 --no-timing | val throughput) || exit 1
echo "tpp: $thr Mops/s, hot in alternate $hot GiB; best static $best Mops/s"
[ -n "$thr" ] && [ -n "$hot" ] && [ -n "$best" ] || exit 1
awk -v h="$hot" -v t="$thr" -v b="$best" 'BEGIN { exit !(h < 2 && t > 0.95 * b) }' || exit 1
# no references: arrival order only, the hot share stays where it started
fifo=$($T --system tpp --colloid off $tiers --intensity 0 --duration 100 --average-last 30 \
	--no-timing --ref-rate 0 | val hot_in_alternate) || exit 1
echo "tpp without references: hot in alternate $fifo GiB"
[ -n "$fifo" ] && awk -v h="$fifo" 'BEGIN { exit !(h > 10) }'
