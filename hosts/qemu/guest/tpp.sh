# Kernel TPP in the CXL-like guest (busybox sh, run by /init as root): GUPS's buffer first touched
# on the CPU-less node 1 and then unbound (--unbind-after-touch), numa_balancing=2 with demotion
# on; /proc/vmstat before and after, and where the buffer ended, come back in $OUT for the host to
# judge (tests/test_qemu_topologies.py). Settings restored at the end.

. /lib/tierbench/lib.sh

BIN=/opt/tierbench/bin
cat /proc/vmstat >"$OUT/vmstat_before.txt"
settings_set /proc/sys/kernel/numa_balancing 2 && settings_set /sys/kernel/mm/numa/demotion_enabled true ||
	echo "settings_failed" >"$OUT/problem.txt"
"$BIN/gups" --cpus 0 --mem-node 1 --unbind-after-touch --working-set 32M --hot-set 8M --hot-share 0.95 \
	--object-size 64 --op rmw --duration "${TPP_SECONDS:-25}" --pid-file /tmp/gups.pid \
	--summary "$OUT/gups-summary.csv" >"$OUT/gups.csv" 2>"$OUT/gups.err" &
g=$!
wait_for_file /tmp/gups.pid 120 "$g" || echo "gups_not_ready" >>"$OUT/problem.txt"
sleep 2
cat "/proc/$g/numa_maps" >"$OUT/numa_maps_start.txt" 2>/dev/null
sleep "${TPP_SECONDS:-25}"
cat "/proc/$g/numa_maps" >"$OUT/numa_maps_end.txt" 2>/dev/null
wait "$g"
echo "$?" >"$OUT/gups.rc"
cat /proc/vmstat >"$OUT/vmstat_after.txt"
settings_restore || echo "settings_not_restored" >>"$OUT/problem.txt"
cat /proc/sys/kernel/numa_balancing >"$OUT/numa_balancing_after.txt"
