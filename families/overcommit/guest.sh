# The overcommit mechanism in busybox sh, for a guest without Python (the QEMU guest's cgroup v2
# kernel; tests/test_overcommit_guest.py). The same steps as workflows/harness/memcg.py's runner,
# cgroup v2 only: a swap area on for the run, a memory cgroup tierbench/NAME limited to F/R with
# swap unlimited, the program started inside it, its counters sampled, everything undone after.
#
#   . overcommit.sh
#   oc_mount                                   # cgroup2 at /sys/fs/cgroup, +memory for children
#   oc_run NAME RATIO F_BYTES SWAPDEV OUTDIR PROGRAM ARGS...
#
# OUTDIR gets: series.csv (t_s,anon,shmem,file,swap,pgfault,pgmajfault,pswpin), memory.stat
# (final), summary.txt (key=value: ratio, limit_bytes, peak_anon_shmem, peak_usage, peak_swap,
# pgfault, pgmajfault, pswpin, pswpout, workingset_refault_anon, psi_some_total_us, exit, left;
# peak_swap is memory.swap.peak where the kernel has it, else the sampled maximum).

OC_ROOT=/sys/fs/cgroup

oc_mount() {
	grep -q " $OC_ROOT cgroup2 " /proc/mounts || mount -t cgroup2 none "$OC_ROOT" || return 1
	grep -qw memory "$OC_ROOT/cgroup.controllers" || return 1
	grep -qw memory "$OC_ROOT/cgroup.subtree_control" || echo +memory >"$OC_ROOT/cgroup.subtree_control"
	mkdir -p "$OC_ROOT/tierbench"
	grep -qw memory "$OC_ROOT/tierbench/cgroup.subtree_control" || echo +memory >"$OC_ROOT/tierbench/cgroup.subtree_control"
}

# oc_stat CG KEY: one value of memory.stat (0 when absent)
oc_stat() {
	awk -v k="$2" '$1 == k { v = $2 } END { print v + 0 }' "$1/memory.stat"
}

oc_run() {
	name=$1 ratio=$2 fbytes=$3 dev=$4 dir=$5
	shift 5
	cg="$OC_ROOT/tierbench/$name"
	mkdir -p "$dir"
	swapon "$dev" || return 1
	mkdir "$cg" || { swapoff "$dev"; return 1; }
	if [ "$ratio" = 1 ]; then
		limit=max
	else  # F/R, whole pages (R given as an integer here)
		limit=$(( fbytes / ratio / 4096 * 4096 ))
	fi
	echo "$limit" >"$cg/memory.max"
	echo max >"$cg/memory.swap.max"
	echo "t_s,anon,shmem,file,swap,pgfault,pgmajfault,pswpin" >"$dir/series.csv"
	t0=$(cut -d' ' -f1 /proc/uptime)
	sh -c 'echo $$ > "$0" && exec "$@"' "$cg/cgroup.procs" "$@" >"$dir/stdout" 2>"$dir/stderr" &
	pid=$!
	peak=0 swpeak=0
	while :; do
		a=$(oc_stat "$cg" anon) s=$(oc_stat "$cg" shmem) sw=$(cat "$cg/memory.swap.current")
		[ $(( a + s )) -gt "$peak" ] && peak=$(( a + s ))
		[ "$sw" -gt "$swpeak" ] && swpeak=$sw
		echo "$(awk -v a="$(cut -d' ' -f1 /proc/uptime)" -v b="$t0" 'BEGIN { printf "%.2f", a - b }'),$a,$s,$(oc_stat "$cg" file),$sw,$(oc_stat "$cg" pgfault),$(oc_stat "$cg" pgmajfault),$(oc_stat "$cg" pswpin)" >>"$dir/series.csv"
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.2
	done
	wait "$pid"
	rc=$?
	cp "$cg/memory.stat" "$dir/memory.stat"
	{
		echo "ratio=$ratio"
		echo "limit_bytes=$limit"
		echo "limit_read=$(cat "$cg/memory.max")"
		echo "peak_anon_shmem=$peak"
		echo "peak_usage=$(cat "$cg/memory.peak" 2>/dev/null || echo NA)"
		echo "peak_swap=$(cat "$cg/memory.swap.peak" 2>/dev/null || echo "$swpeak")"  # memory.swap.peak: 6.5+
		for k in pgfault pgmajfault pswpin pswpout workingset_refault_anon; do echo "$k=$(oc_stat "$cg" "$k")"; done
		echo "psi_some_total_us=$(awk '$1 == "some" { sub("total=", "", $5); print $5 }' "$cg/memory.pressure" 2>/dev/null)"
		echo "exit=$rc"
	} >"$dir/summary.txt"
	# undo: what is left in the cgroup (ours), the cgroup, the swap area
	for p in $(cat "$cg/cgroup.procs"); do kill -9 "$p" 2>/dev/null; done
	i=0
	while ! rmdir "$cg" 2>/dev/null && [ $i -lt 50 ]; do i=$(( i + 1 )); sleep 0.1; done
	swapoff "$dev"
	left=""
	[ -d "$cg" ] && left="$left cgroup"
	grep -q "^$dev " /proc/swaps && left="$left swap"
	echo "left=$left" >>"$dir/summary.txt"
	return "$rc"
}
