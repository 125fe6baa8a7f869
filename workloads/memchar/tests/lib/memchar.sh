# SPDX-License-Identifier: MIT
# Shared helpers of the memchar tests (sourced, not run): lib/testlib.sh
# (MEMCHAR, the binary under test, from the environment, as $BIN; TMP) and
# CSV checks. A test counts its checks with ok / bad and ends with finish.
PROG=memchar
# shellcheck source=SCRIPTDIR/../../../../lib/testlib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../../../lib/testlib.sh"

HEADER='tool,mode,metric,value,unit,op,threads,cpus,cpu_node,mem_node,target,size_bytes,buffer_bytes,delay,bandwidth_mbps,bytes_per_iter,huge_pages,flush,verified,duration_s,share,quantile,group_loads,access_bytes'
NCPU=$(nproc)
D=0.05
npass=0
nfail=0

ok() { npass=$((npass + 1)); }
bad() { nfail=$((nfail + 1)); echo "FAIL: $*" >&2; }

# finish: exit 0 if every check passed, 1 otherwise
finish() {
	echo "memchar $(basename "$0" .sh) ($BIN): $npass passed, $nfail failed" >&2
	[ "$nfail" -eq 0 ] && pass
	exit 1
}

# check_csv FILE ROWS METRIC: header, 24 fields per row, ROWS rows of
# METRIC, each verified=1 with a positive value (latency and loaded also
# write timer_cost and METRIC_quantile/_interrupted/_groups rows:
# tests/distribution.sh checks those).
check_csv() {
	local f=$1 rows=$2 metric=$3
	if [ "$(head -n1 "$f")" != "$HEADER" ]; then
		bad "$f: header"; return
	fi
	if ! awk -F, -v rows="$rows" -v metric="$metric" '
		NR == 1 { next }
		NF != 24 || $1 != "memchar" { bad = 1 }
		$3 != metric { next }
		$19 != 1 || !($4 > 0) { bad = 1 }
		{ n++ }
		END { exit bad || n != rows }' "$f"; then
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
