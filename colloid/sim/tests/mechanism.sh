#!/bin/sh
# Two mechanism details that once were wrong:
# 1. The plan buffer is sized from the policy's own quantum when --quantum-ms
#    is not given (it was sized for a zero quantum: 64 moves per tick, which
#    capped MEMTIS at 64 x 2 MiB per 500 ms = 268 MB/s).  Giving the same
#    quantum explicitly must not change a byte of the output.
# 2. --freeze-at stops the policy: the run is byte-identical up to the freeze
#    and moves nothing after it (the migration-cost experiment relies on both).
# 3. TPP's scan period is Linux's per-window period (task_scan_min():
#    numa_balancing_scan_period_min_ms spread over rss/scan_size windows,
#    floor 100 ms), not scan_period_min_ms per window: for 72 GiB that is
#    100 ms per 256 MB, so TPP+Colloid at 3x has the whole hot set out of the
#    default tier within 30 s; with a 1000 ms window it has not.
set -u
T=${TIERSIM:?} C=${CURVES:?}
tiers="--tier default:$C/paper-default.csv:capacity=24 --tier alternate:$C/paper-alternate-135.csv:capacity=72"
common="--colloid on $tiers --intensity 3 --duration 20 --average-last 10 --no-timing"
a=$($T --system memtis $common --timeseries -) || exit 1
b=$($T --system memtis $common --quantum-ms 500 --timeseries -) || exit 1
[ "$a" = "$b" ] || { echo "memtis output differs with an explicit --quantum-ms 500"; exit 1; }
mig=$(echo "$a" | awk -F, '$1==3 && $2=="migration_rate" {print $3}')
echo "memtis+colloid migration at t=3 s after 0x->3x start: $mig MB/s"
awk -v m="$mig" 'BEGIN { exit !(m > 1000) }' || exit 1
f0=$($T --system hemem $common --intensity 0 --timeseries - --summary /dev/null) || exit 1
f1=$($T --system hemem $common --intensity 0 --freeze-at 10 --timeseries - --summary /dev/null) || exit 1
[ "$(echo "$f0" | awk -F, '$1 != "t_s" && $1 <= 10')" = "$(echo "$f1" | awk -F, '$1 != "t_s" && $1 <= 10')" ] ||
	{ echo "--freeze-at 10 changed the first 10 s"; exit 1; }
moved=$(echo "$f1" | awk -F, '$1 > 11 && $2 == "migration_rate" && $3 != 0' | wc -l)
[ "$moved" -eq 0 ] || { echo "migration after --freeze-at: $moved s"; exit 1; }
hot() {
	$T --system tpp --colloid on $tiers --intensity 3 --duration 30 --average-last 10 \
		--no-timing --param tpp_scan_period_ms="$1" --timeseries - --summary /dev/null |
		awk -F, '$1==30 && $2=="hot_in_alternate" {print $3}'
}
fast=$(hot 1000) slow=$(hot 288000) || exit 1
echo "tpp+colloid hot in alternate at 30 s: $fast GiB (Linux window), $slow GiB (1000 ms window)"
[ -n "$fast" ] && [ -n "$slow" ] || exit 1
awk -v f="$fast" -v s="$slow" 'BEGIN { exit !(f > 19.5 && s < 17) }'
