# SPDX-License-Identifier: MIT
# Shared helpers of the tierd tests (sourced, not run): lib/testlib.sh
# (TIERD, the binary under test, from the environment; TMP; pass, fail,
# skip) and starting gups (GUPS), CSV and NUMA helpers. Every process a test
# starts is recorded and ended by its pid at exit.
PROG=tierd
# shellcheck source=SCRIPTDIR/../../../../lib/testlib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../../../lib/testlib.sh"
TIERD=$BIN
GUPS=${GUPS:-}
PIDS=""

test_cleanup() {
	local p
	for p in $PIDS; do
		kill -TERM "$p" 2>/dev/null
	done
	for p in $PIDS; do
		# wait for our own children; give them 3 s, then SIGKILL
		for _ in $(seq 30); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
}

# start_gups [extra gups options]: start gups (256 MiB, 1 thread, until
# stopped) and wait until it runs; sets GPID
start_gups() {
	[ -x "$GUPS" ] || skip "no gups binary at $GUPS (make -C workloads/gups)"
	rm -f "$TMP/gups.pid" "$TMP/gups.ready"
	"$GUPS" --working-set 256M --threads 1 --duration 0 --report-interval 1 \
		--pid-file "$TMP/gups.pid" --ready-file "$TMP/gups.ready" "$@" \
		>"$TMP/gups.csv" 2>"$TMP/gups.err" &
	GPID=$!
	PIDS="$PIDS $GPID"
	for _ in $(seq 100); do
		[ -f "$TMP/gups.ready" ] && break
		kill -0 "$GPID" 2>/dev/null || fail "gups exited: $(cat "$TMP/gups.err")"
		sleep 0.05
	done
	[ -f "$TMP/gups.ready" ] || fail "gups did not become ready in 5 s"
	[ "$(cat "$TMP/gups.pid")" = "$GPID" ] || fail "gups pid file disagrees"
}

# stop PID: SIGTERM, wait for it (it must be our child), return its status
stop() {
	kill -TERM "$1" 2>/dev/null
	wait "$1"
}

# csv_val FILE METRIC: values of METRIC in a t_s,metric,value,unit file
csv_val() {
	awk -F, -v m="$2" '$2 == m { print $3 }' "$1"
}

# csv_sum FILE METRIC
csv_sum() {
	awk -F, -v m="$2" '$2 == m { s += $3 } END { printf "%.0f\n", s }' "$1"
}

# memory nodes, one per line
mem_nodes() {
	local f=/sys/devices/system/node/has_memory
	[ -r "$f" ] || { echo 0; return; }
	tr ',' '\n' <"$f" | while IFS=- read -r a b; do
		seq "$a" "${b:-$a}"
	done
}

# pages of PID's mappings per node from /proc/PID/numa_maps: "N0=123 N1=4"
numa_pages() {
	awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^N[0-9]+=/) {
		split(substr($i, 2), kv, "="); n[kv[1]] += kv[2] } }
		END { for (k in n) printf "N%s=%s ", k, n[k]; print "" }' "/proc/$1/numa_maps"
}
