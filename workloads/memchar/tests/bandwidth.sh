#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bandwidth: every kernel (pwrite where the CPU flushes lines), and a list of thread counts.
. "$(dirname "$0")/lib/memchar.sh"

OPS="read write ntwrite mix1:1 mix2:1 mix3:1"
grep -qwE 'clwb|clflushopt|clflush' /proc/cpuinfo && OPS="$OPS pwrite"
for op in $OPS; do
	run "bw_$op" 0 bandwidth --op "$op" --threads 1 --buffer-mib 4 --duration $D &&
		check_csv "$TMP/bw_$op.csv" 1 bandwidth
done
if [ "$NCPU" -ge 2 ]; then
	run bw2 0 bandwidth --threads 1,2 --buffer-mib 4 --duration $D &&
		check_csv "$TMP/bw2.csv" 2 bandwidth
fi
finish
