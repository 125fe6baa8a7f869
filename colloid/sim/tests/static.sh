#!/bin/sh
# Static placement at 0x: all hot regions in the default tier beat all hot
# regions in the alternate tier.
set -u
T=${TIERSIM:?} C=${CURVES:?}
get() {
	$T --system static --static-hot-fraction "$1" --tier default:$C/paper-default.csv \
		--tier alternate:$C/paper-alternate-135.csv --intensity 0 --duration 3 \
		--average-last 3 --no-timing | awk -F, '$2=="throughput"{print $3}'
}
hi=$(get 1) lo=$(get 0)
echo "all hot in default: $hi Mops/s, all hot in alternate: $lo Mops/s"
[ -n "$hi" ] && [ -n "$lo" ] || exit 1
awk -v a="$hi" -v b="$lo" 'BEGIN { exit !(a > 1.2 * b) }'
