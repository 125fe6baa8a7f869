# The two-node tests, run by the guest's /init (busybox sh, as root).
# One line per test: "TEST name PASS|FAIL|SKIP detail". Files written to
# $OUT come back to the host. Exit status: 0 when nothing FAILed.
#
# Timings in this guest mean nothing (TCG, both nodes are the same host
# memory); only behaviour is checked: placement, migration, restore.

. /lib/tierbench/lib.sh

BIN=/opt/tierbench/bin
FAILED=0
fail() { FAILED=1; result "$@"; }

have() {
	[ -x "$BIN/$1" ] && return 0
	reason=$(grep "^$1 " /etc/tierbench/missing 2>/dev/null | cut -d' ' -f2-)
	echo "${reason:-not in the guest image}"
	return 1
}

# --- topology: node 1 is memory-only and HMAT says it is slower -------------
nodes=$(cat /sys/devices/system/node/online)
cpus1=$(cat /sys/devices/system/node/node1/cpulist 2>/dev/null)
mem0=$(awk '/MemTotal/ { print $4 }' /sys/devices/system/node/node0/meminfo)
mem1=$(awk '/MemTotal/ { print $4 }' /sys/devices/system/node/node1/meminfo 2>/dev/null)
if [ "$nodes" = 0-1 ] && [ -z "$cpus1" ] && [ "${mem1:-0}" -gt 0 ]; then
	result topology PASS "nodes=$nodes node1_cpus=none mem_kB=$mem0,$mem1"
else
	fail topology FAIL "nodes=$nodes node1_cpus='$cpus1' mem_kB=$mem0,${mem1:-0}"
fi

hmat=/sys/devices/system/node/node%d/access0/initiators/%s
lat0=$(cat "$(printf "$hmat" 0 read_latency)" 2>/dev/null)
lat1=$(cat "$(printf "$hmat" 1 read_latency)" 2>/dev/null)
bw0=$(cat "$(printf "$hmat" 0 read_bandwidth)" 2>/dev/null)
bw1=$(cat "$(printf "$hmat" 1 read_bandwidth)" 2>/dev/null)
if [ -n "$lat0" ] && [ -n "$lat1" ] && [ "$lat1" -gt "$lat0" ] && [ "$bw1" -lt "$bw0" ]; then
	result hmat PASS "read_latency_ns=$lat0,$lat1 read_bandwidth_MBps=$bw0,$bw1"
else
	fail hmat FAIL "read_latency_ns='$lat0','$lat1' read_bandwidth_MBps='$bw0','$bw1'"
fi

# --- GUPS bound to node 0; tierd moves it to node 1 and back ---------------
# Every move is checked in /proc/PID/numa_maps (and, independently, with
# move_pages status queries by tbprobe): a move that did not happen fails.
GUPS_PID=
snap() { cat "/proc/$GUPS_PID/numa_maps" >"$OUT/numa_maps.$1" 2>/dev/null; }
placed() { # NAME NODE DETAIL...: check the snapshot NAME is on NODE
	_f="$OUT/numa_maps.$1" _n=$2 _t=$3
	shift 3
	_s=$(numa_largest "$_f")
	"$BIN/tbprobe" nodes "$GUPS_PID" >"$_f.move_pages" 2>&1
	_q=$(cat "$_f.move_pages")
	if check_on_node "$_f" "$_n" 0.99 && check_on_node "$_f.move_pages" "$_n" 0.99; then
		result "$_t" PASS "$* numa_maps: $_s; move_pages: $_q"
	else
		fail "$_t" FAIL "$* numa_maps: $_s; move_pages: $_q"
	fi
}

if msg=$(have gups); then
	rm -f /tmp/gups.pid
	"$BIN/gups" --working-set 64M --threads 1 --cpus 0 --mem-node 0 --huge off \
		--duration 0 --report-interval 5 --pid-file /tmp/gups.pid \
		--summary "$OUT/gups-summary.csv" >"$OUT/gups.csv" 2>"$OUT/gups.log" &
	GUPS_JOB=$!
	if wait_for_file /tmp/gups.pid 60; then
		GUPS_PID=$(cat /tmp/gups.pid)
	else
		fail gups_start FAIL "no pid file after 60 s: $(tail -n 2 "$OUT/gups.log")"
		stop_pid "$GUPS_JOB"
	fi
fi

if [ -n "$GUPS_PID" ]; then
	snap start
	placed start 0 gups_bound_node0 "gups --mem-node 0:"

	# negative control on live data: a mover that moves nothing must be caught
	snap noop
	if check_on_node "$OUT/numa_maps.noop" 1 0.99; then
		fail noop_move_caught FAIL "a no-op move passed the node 1 check: $(numa_largest "$OUT/numa_maps.noop")"
	else
		result noop_move_caught PASS "no-op move rejected: $(numa_largest "$OUT/numa_maps.noop")"
	fi

	if msg=$(have tierd); then
		for mv in 0:1 1:0; do
			from=${mv%:*} to=${mv#*:}
			timeout 120 "$BIN/tierd" --pid "$GUPS_PID" --move-test "$mv" --min-mapping 32M \
				>"$OUT/tierd-move-$from-$to.log" 2>&1
			rc=$?
			snap "tierd-$from-$to"
			placed "tierd-$from-$to" "$to" "tierd_move_${from}_to_${to}" \
				"tierd exit=$rc ($(tail -n 1 "$OUT/tierd-move-$from-$to.log" | tr -s ' '));"
			[ "$rc" = 0 ] || fail "tierd_exit_${from}_to_${to}" FAIL "exit $rc: $(tail -n 2 "$OUT/tierd-move-$from-$to.log")"
		done
	else
		result tierd_move_0_to_1 SKIP "tierd: $msg"
		result tierd_move_1_to_0 SKIP "tierd: $msg"
	fi

	# control without tierd: the kernel's migrate_pages(2) on the same process
	for mv in 0:1 1:0; do
		from=${mv%:*} to=${mv#*:}
		out=$("$BIN/tbprobe" migrate "$GUPS_PID" "$from" "$to" 2>&1)
		snap "kernel-$from-$to"
		placed "kernel-$from-$to" "$to" "kernel_migrate_${from}_to_${to}" "tbprobe: $out;"
	done

	stop_pid "$GUPS_JOB"
	rc=$?
	if [ "$rc" = 0 ] && grep -q ',1$' "$OUT/gups-summary.csv" 2>/dev/null; then
		result gups_checksum PASS "gups exit 0 after the moves: $(tail -n 1 "$OUT/gups-summary.csv")"
	else
		fail gups_checksum FAIL "gups exit $rc: $(tail -n 1 "$OUT/gups.log")"
	fi
elif [ -n "${msg:-}" ]; then
	for t in gups_bound_node0 tierd_move_0_to_1 tierd_move_1_to_0 kernel_migrate_0_to_1; do
		fail "$t" FAIL "gups: $msg"
	done
fi

# --- gups --hot-placement: the hot set's bytes off node 0, bound to 1 and to 0 --
# (GUPS asks move_pages(2) where up to 1024 pages of its hot set are: all 16 MiB
# off node 0 when bound to node 1, none when bound to node 0)
if msg=$(have gups); then
	_got=
	for n in 1 0; do
		"$BIN/gups" --working-set 64M --hot-set 16M --threads 1 --cpus 0 --mem-node "$n" --huge off \
			--duration 1 --hot-placement 0 >"$OUT/gups-hot-$n.csv" 2>"$OUT/gups-hot-$n.log"
		_got="$_got node$n:$(tail -n +2 "$OUT/gups-hot-$n.csv" | cut -d, -f8 | sort -u | tr '\n' ' ')"
	done
	if [ "$(tail -n +2 "$OUT/gups-hot-1.csv" | cut -d, -f8 | sort -u)" = 16777216 ] &&
		[ "$(tail -n +2 "$OUT/gups-hot-0.csv" | cut -d, -f8 | sort -u)" = 0 ]; then
		result gups_hot_placement PASS "hot_off_node_bytes (off node 0):$_got"
	else
		fail gups_hot_placement FAIL "hot_off_node_bytes (off node 0):$_got $(tail -n 1 "$OUT/gups-hot-1.log")"
	fi
else
	fail gups_hot_placement FAIL "gups: $msg"
fi

# --- memchar latency rows for both nodes (memchar verifies placement) ------
for node in 0 1; do
	if ! msg=$(have memchar); then
		fail "memchar_latency_node$node" FAIL "memchar: $msg"
		continue
	fi
	csv="$OUT/memchar-latency-node$node.csv"
	timeout 120 "$BIN/memchar" latency --cpus 0 --mem-node "$node" --buffer-mib 16 \
		--huge off --duration 0.2 --output "$csv" 2>"$OUT/memchar-latency-node$node.log"
	rc=$?
	# columns by name: mem_node must be NODE and verified 1 on every data row (the clock's own
	# cost rows, timer_cost, measure no node)
	rows=$(awk -F, -v n="$node" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["metric"] == "timer_cost" { next }
		{ all++ }
		$col["mem_node"] == n && $col["verified"] == 1 && $col["value"] > 0 { ok++ }
		END { print ok + 0, all + 0 }' "$csv" 2>/dev/null)
	set -- $rows
	if [ "$rc" = 0 ] && [ "${1:-0}" -ge 1 ] && [ "$1" = "$2" ]; then
		result "memchar_latency_node$node" PASS "rows=$1 mem_node=$node verified=1 (ns values not meaningful)"
	else
		fail "memchar_latency_node$node" FAIL "exit=$rc good_rows/rows=${1:-0}/${2:-0}: $(tail -n 1 "$OUT/memchar-latency-node$node.log")"
	fi
done

# --- antagonist binding: rows, and its buffer on the node asked for --------
for node in 0 1; do
	if ! msg=$(have antagonist); then
		fail "antagonist_node$node" FAIL "antagonist: $msg"
		continue
	fi
	rm -f /tmp/ant.ready
	"$BIN/antagonist" --cpus 1 --mem-node "$node" --buffer 64M --huge off \
		--duration 2 --report-interval 0.5 --ready-file /tmp/ant.ready \
		>"$OUT/antagonist-node$node.csv" 2>"$OUT/antagonist-node$node.log" &
	pid=$!
	maps="$OUT/numa_maps.antagonist-node$node"
	if wait_for_file /tmp/ant.ready 60; then
		cat "/proc/$pid/numa_maps" >"$maps" 2>/dev/null
	fi
	wait "$pid"
	rc=$?
	rows=$(($(wc -l <"$OUT/antagonist-node$node.csv") - 1))
	if [ "$rc" = 0 ] && [ "$rows" -ge 1 ] && [ -s "$maps" ] && check_on_node "$maps" "$node" 0.99; then
		result "antagonist_node$node" PASS "rows=$rows numa_maps: $(numa_largest "$maps")"
	else
		fail "antagonist_node$node" FAIL "exit=$rc rows=$rows numa_maps: $([ -s "$maps" ] && numa_largest "$maps")"
	fi
done

# --- kernel tiering settings: save, change, restore ------------------------
export SETTINGS_JOURNAL="$OUT/settings-journal.json"
for kv in /proc/sys/kernel/numa_balancing=2 /sys/kernel/mm/numa/demotion_enabled=true \
	/proc/sys/kernel/numa_balancing_promote_rate_limit_MBps=1024; do
	path=${kv%=*} want=${kv##*=}
	name=settings_$(basename "$path")
	if [ ! -e "$path" ]; then
		fail "$name" FAIL "$path does not exist on this kernel"
		continue
	fi
	before=$(settings_read "$path")
	if ! settings_set "$path" "$want"; then
		fail "$name" FAIL "could not write $want to $path"
		settings_restore
		continue
	fi
	during=$(settings_read "$path")
	journaled=$(grep -c "\"$path\": \"$before\"" "$SETTINGS_JOURNAL" 2>/dev/null)
	cp "$SETTINGS_JOURNAL" "$OUT/settings-journal.$(basename "$path").json" 2>/dev/null
	settings_restore
	after=$(settings_read "$path")
	if [ "$during" = "$want" ] && [ "$after" = "$before" ] && [ "$journaled" = 1 ] &&
		[ ! -e "$SETTINGS_JOURNAL" ]; then
		result "$name" PASS "$path: $before -> $during -> $after (journaled, journal removed)"
	else
		fail "$name" FAIL "$path: $before -> $during -> $after journaled=$journaled"
	fi
done

exit "$FAILED"
