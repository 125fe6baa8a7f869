#!/usr/bin/env bash
# Smoke test of memchar: selftest, every subcommand on tiny buffers and
# durations, CSV shape, argument errors and interruption.
# usage: smoke.sh PATH/TO/memchar        (exit 0 pass, 1 fail)
set -u

BIN=${1:?usage: smoke.sh PATH/TO/memchar}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/memchar-smoke.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
HEADER='tool,mode,metric,value,unit,op,threads,cpus,cpu_node,mem_node,target,size_bytes,buffer_bytes,delay,bandwidth_mbps,bytes_per_iter,huge_pages,flush,verified,duration_s'
NCPU=$(nproc)
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# check_csv FILE ROWS METRIC: header, 20 fields per row, ROWS rows of
# METRIC, every row verified=1 and a positive value.
check_csv() {
	local f=$1 rows=$2 metric=$3
	if [ "$(head -n1 "$f")" != "$HEADER" ]; then
		bad "$f: header"; return
	fi
	if ! awk -F, -v rows="$rows" -v metric="$metric" '
		NR == 1 { next }
		NF != 20 || $1 != "memchar" || $3 != metric || $19 != 1 ||
		!($4 > 0) { bad = 1 }
		END { exit bad || NR - 1 != rows }' "$f"; then
		bad "$f: rows"; cat "$f" >&2; return
	fi
	ok
}

# run NAME EXPECTED_RC ARGS...: stdout to $TMP/NAME.csv, stderr to .err
run() {
	local name=$1 want=$2 rc
	shift 2
	"$BIN" "$@" >"$TMP/$name.csv" 2>"$TMP/$name.err"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		bad "$name: exit $rc, want $want: $BIN $*"
		cat "$TMP/$name.err" >&2
		return 1
	fi
	ok
}

# usage_error NAME ARGS...: exit 2 and exactly one stderr line
usage_error() {
	local name=$1
	shift
	run "$name" 2 "$@" || return
	if [ "$(wc -l <"$TMP/$name.err")" -ne 1 ] ||
	   ! grep -q '^memchar: error: ' "$TMP/$name.err"; then
		bad "$name: want one 'memchar: error:' line"
		cat "$TMP/$name.err" >&2
	fi
}

D=0.05
run selftest 0 selftest
run help 0 --help && grep -q -- '--buffer-mib' "$TMP/help.csv" || bad "help text"
run help_sub 0 bandwidth --help

run lat 0 latency --buffer-mib 8 --duration $D && check_csv "$TMP/lat.csv" 1 idle_latency
run lat_off 0 latency --buffer-mib 8 --duration $D --huge off --cpus 0 &&
	check_csv "$TMP/lat_off.csv" 1 idle_latency &&
	{ grep -q ',none,' "$TMP/lat_off.csv" || bad "huge off not reported as none"; }

OPS="read write ntwrite mix1:1 mix2:1 mix3:1"
grep -qwE 'clwb|clflushopt|clflush' /proc/cpuinfo && OPS="$OPS pwrite"
for op in $OPS; do
	run "bw_$op" 0 bandwidth --op "$op" --threads 1 --buffer-mib 4 --duration $D &&
		check_csv "$TMP/bw_$op.csv" 1 bandwidth
done
if [ "$NCPU" -ge 2 ]; then
	run bw2 0 bandwidth --threads 1,2 --buffer-mib 4 --duration $D &&
		check_csv "$TMP/bw2.csv" 2 bandwidth
	run loaded 0 loaded --injectors 1 --delays 0,50 --op mix1:1 \
		--buffer-mib 8 --duration $D &&
		check_csv "$TMP/loaded.csv" 2 loaded_latency &&
		{ awk -F, 'NR == 2 && $14 != 50 { exit 1 }' "$TMP/loaded.csv" ||
		  bad "loaded: delays not largest first"; }
fi
run loaded0 0 loaded --injectors 0 --delays 0 --buffer-mib 8 --duration $D &&
	check_csv "$TMP/loaded0.csv" 1 loaded_latency

run obj_r 0 objsize --op read --sizes 64,4096 --buffer-mib 8 --duration $D &&
	check_csv "$TMP/obj_r.csv" 2 object_latency
run obj_w 0 objsize --op write --sizes 64,192 --objects 1000 --buffer-mib 8 --duration $D &&
	check_csv "$TMP/obj_w.csv" 2 object_latency
if grep -qwE 'clwb|clflushopt|clflush' /proc/cpuinfo; then
	run obj_p 0 objsize --op write --persist --sizes 256 --buffer-mib 8 --duration $D &&
		check_csv "$TMP/obj_p.csv" 1 object_latency &&
		{ grep -qE ',(clwb|clflushopt|clflush),1,' "$TMP/obj_p.csv" ||
		  bad "persist: flush column"; }
fi

# A file standing in for a DAX tier (grown by memchar); --output.
: >"$TMP/pmem.img"
run dax 0 latency --dax "$TMP/pmem.img" --buffer-mib 4 --duration $D \
	--output "$TMP/dax_out.csv" &&
	check_csv "$TMP/dax_out.csv" 1 idle_latency &&
	{ grep -q ",dax:$TMP/pmem.img," "$TMP/dax_out.csv" || bad "dax target column"; }
run dax_bw 0 bandwidth --dax "$TMP/pmem.img" --threads 1 --op write \
	--buffer-mib 4 --duration $D && check_csv "$TMP/dax_bw.csv" 1 bandwidth

usage_error e_nosub
usage_error e_sub nosuch
usage_error e_opt latency --nosuch
usage_error e_threads bandwidth --threads $((NCPU + 1)) --buffer-mib 4
grep -q "$((NCPU + 1)).*$NCPU" "$TMP/e_threads.err" || bad "threads error names both numbers"
usage_error e_inj loaded --injectors "$NCPU" --buffer-mib 4
usage_error e_node latency --mem-node 4095
usage_error e_cnode latency --cpu-node 4095
usage_error e_cpus latency --cpus 0-1,1
usage_error e_cpu latency --cpus 65000
usage_error e_dur latency --duration 0
usage_error e_op bandwidth --op copy
usage_error e_mix bandwidth --op mix2:2
usage_error e_size objsize --sizes 100
usage_error e_persist objsize --op read --persist
usage_error e_wrongmode latency --threads 1
usage_error e_excl latency --dax "$TMP/x" --mem-node 0
usage_error e_huge latency --huge maybe
usage_error e_objs objsize --objects 100000 --sizes 4096 --buffer-mib 2

# SIGINT stops a long run promptly with 130, the header already out.
"$BIN" latency --buffer-mib 8 --duration 60 >"$TMP/int.csv" 2>"$TMP/int.err" &
pid=$!
sleep 0.5
kill -INT "$pid"
wait "$pid"
rc=$?
if [ "$rc" -ne 130 ]; then bad "SIGINT: exit $rc, want 130"; else ok; fi

echo "memchar smoke ($BIN): $pass passed, $fail failed" >&2
[ "$fail" -eq 0 ]
