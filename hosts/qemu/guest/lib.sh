# Helpers for the tierbench QEMU guest (busybox ash; also runs under dash/bash,
# so tests/test_qemu_guest.py exercises the same functions on the host).
# Sourced by /init and by test scripts; defines functions only.

# --- results --------------------------------------------------------------
# result NAME PASS|FAIL|SKIP DETAIL...: one line "TEST name status detail" on
# the console, in $OUT/results.txt and on the data channel (fd 3) if open.
result() {
	_name=$1 _st=$2
	shift 2
	_line="TEST $_name $_st $*"
	echo "[$(cut -d' ' -f1 /proc/uptime 2>/dev/null)] $_line"
	[ -n "${OUT:-}" ] && echo "$_line" >>"$OUT/results.txt"
	{ echo "$_line" >&3; } 2>/dev/null
	return 0
}

# send_file PATH NAME: copy a file out over the data channel (fd 3) as base64
# between FILE/ENDFILE lines; the launcher checks size and sha256.
send_file() {
	{
		echo "FILE $2 $(wc -c <"$1")"
		base64 "$1"
		echo "ENDFILE $2 $(sha256sum <"$1" | cut -d' ' -f1)"
	} >&3
}

# --- NUMA placement from /proc/PID/numa_maps ------------------------------
# numa_largest FILE: "pages=T N0=a N1=b ..." for the mapping with the most
# pages in a numa_maps snapshot ("pages=0" when there is none).
numa_largest() {
	awk '{
		t = 0; s = ""
		for (i = 2; i <= NF; i++)
			if ($i ~ /^N[0-9]+=[0-9]+$/) {
				split($i, kv, "="); t += kv[2]; s = s " " $i
			}
		if (t > best) { best = t; line = "addr=" $1 " pages=" t s }
	} END { if (best > 0) print line; else print "pages=0" }' "$1"
}

# pages_on_node FILE NODE: "COUNT TOTAL" of the largest mapping.
pages_on_node() {
	numa_largest "$1" | awk -v key="N$2" '{
		total = 0; cnt = 0
		for (i = 1; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == "pages") total = kv[2]
			if (kv[1] == key) cnt = kv[2]
		}
		print cnt, total
	}'
}

# check_on_node FILE NODE MINFRAC [MINPAGES]: succeed only if the largest
# mapping has at least MINPAGES pages (default 1024) and at least MINFRAC of
# them on NODE. Exit codes alone never count as a migration.
check_on_node() {
	set -- "$1" "$2" "$3" "${4:-1024}" $(pages_on_node "$1" "$2")
	awk -v c="$5" -v t="$6" -v f="$3" -v m="$4" \
		'BEGIN { exit !(t >= m && c >= f * t) }'
}

# --- sysctl / sysfs save and restore (mirrors workflows/harness/settings.py) --
# The original value is journaled (same JSON object, path -> value, as
# settings.py writes) before the first change; restore goes in reverse order,
# writes only values that differ, and removes the journal when all succeeded.
SETTINGS_JOURNAL=${SETTINGS_JOURNAL:-/tmp/settings-journal.json}
_SETTINGS_SAVED=${_SETTINGS_SAVED:-/tmp/settings-saved.tsv}

# settings_read PATH: the value; for sysfs choice lists ("always [madvise]
# never") the selected choice. The resources a scenario makes are journaled the
# same way (settings.py): swap:AREA (on/off), swapfile:PATH, dir:PATH and
# cgroup:PATH (present/absent), subtree:FILE (+memory/-memory: whether a v2
# cgroup.subtree_control enables the memory controller).
settings_read() {
	case "$1" in
	subtree:*) if grep -qw memory "${1#subtree:}"; then echo +memory; else echo -memory; fi ;;
	swap:*) if tail -n +2 /proc/swaps | cut -d' ' -f1 | grep -qxF "${1#swap:}"; then echo on; else echo off; fi ;;
	swapfile:* | dir:* | cgroup:*) if [ -e "${1#*:}" ]; then echo present; else echo absent; fi ;;
	*) sed -n '1{s/^.*\[\(.*\)\].*$/\1/;p;}' "$1" ;;
	esac
}

# sysfs_write PATH VALUE: VALUE written to PATH; a write refused as busy is tried
# again, up to 20 times 0.05 s apart (DAMON's sysfs files take damon_sysfs_lock
# with mutex_trylock and return -EBUSY while a running kdamond's callback holds
# it: mm/damon/sysfs.c state_store, nr_*_store); the last error on stderr.
sysfs_write() {
	_sw_n=0
	while ! _sw_err=$( { echo "$2" >"$1"; } 2>&1 ); do
		case $_sw_err in
		*[Bb]usy*)
			if [ "$_sw_n" -lt 20 ]; then
				_sw_n=$((_sw_n + 1))
				sleep 0.05
				continue
			fi
			;;
		esac
		echo "$_sw_err" >&2
		return 1
	done
}

# _subtree_write FILE VALUE: one write to a cgroup.subtree_control (never
# retried: its EBUSY is no passing lock); the error on stderr.
_subtree_write() {
	echo "$2" >"$1"
}

# _subtree_restore FILE VALUE: "-memory" is refused (EBUSY) while a cgroup
# below still enables the controller for its own children
# (Documentation/admin-guide/cgroup-v2.rst, "Top-down Constraint"): taking it
# back would break those, so it stays on, said, and is no restore error (as
# settings.py's restore of a subtree entry). The cause is read from the
# children's subtree_control, not from the error's text, which the shells
# word differently (dash says "I/O error" for every failed write).
_subtree_restore() {
	_subtree_write "$1" "$2" 2>/dev/null && return 0
	if [ "$2" = -memory ]; then
		for _c in "$(dirname "$1")"/*/cgroup.subtree_control; do
			if [ -f "$_c" ] && grep -qw memory "$_c"; then
				echo "tierbench: $1: the memory controller stays enabled (a cgroup below it still enables it for its own children)" >&2
				return 0
			fi
		done
	fi
	_subtree_write "$1" "$2"
}

# _settings_write KEY VALUE: a value written, or a resource put back.
_settings_write() {
	case "$1" in
	swap:*) if [ "$2" = on ]; then swapon "${1#swap:}"; else swapoff "${1#swap:}"; fi ;;
	swapfile:*) rm -f "${1#swapfile:}" ;;
	subtree:*) _subtree_restore "${1#subtree:}" "$2" ;;
	dir:*) rmdir "${1#dir:}" 2>/dev/null || true ;;
	cgroup:*) cgroup_remove "${1#cgroup:}" ;;
	*) sysfs_write "$1" "$2" ;;
	esac
}

# _settings_save KEY: journal KEY's current state, once, before its first change.
_settings_save() {
	touch "$_SETTINGS_SAVED"
	if ! cut -f1 "$_SETTINGS_SAVED" | grep -qxF "$1"; then
		printf '%s\t%s\n' "$1" "$(settings_read "$1")" >>"$_SETTINGS_SAVED"
		_settings_sync_journal
	fi
}

_settings_sync_journal() {
	if [ -s "$_SETTINGS_SAVED" ]; then
		awk -F '\t' 'BEGIN { printf "{" }
			{ printf "%s\n \"%s\": \"%s\"", (NR > 1 ? "," : ""), $1, $2 }
			END { print "\n}" }' "$_SETTINGS_SAVED" >"$SETTINGS_JOURNAL.tmp" &&
			mv "$SETTINGS_JOURNAL.tmp" "$SETTINGS_JOURNAL"
	else
		rm -f "$SETTINGS_JOURNAL"
	fi
}

# settings_set PATH VALUE: returns 1 with a message when PATH is missing or
# the write fails.
settings_set() {
	if [ ! -e "$1" ]; then
		echo "setting: $1 does not exist on this kernel" >&2
		return 1
	fi
	_settings_save "$1"
	# numa_balancing's memory-tiering bit (2) is cleared before it is set again, so
	# the kernel resets its promotion threshold (settings.py: RESET_ON_SET_BIT)
	if [ "$1" = /proc/sys/kernel/numa_balancing ]; then
		_now=$(settings_read "$1")
		if [ $((_now & 2)) -ne 0 ] && [ $(($2 & 2)) -ne 0 ]; then
			echo $((_now & ~2)) >"$1" || return 1
		fi
	fi
	if ! sysfs_write "$1" "$2"; then
		echo "setting: writing '$2' to $1 failed" >&2
		return 1
	fi
}

# settings_restore: put every saved value back; 0 when all were restored.
settings_restore() {
	[ -s "$_SETTINGS_SAVED" ] || return 0
	_err=0
	# reverse order without tac: number the lines, sort descending
	awk '{ print NR "\t" $0 }' "$_SETTINGS_SAVED" | sort -rn | cut -f2- >"$_SETTINGS_SAVED.rev"
	while IFS="$(printf '\t')" read -r _p _v; do
		if [ "$(settings_read "$_p")" != "$_v" ]; then
			_settings_write "$_p" "$_v" || _err=1
		fi
	done <"$_SETTINGS_SAVED.rev"
	rm -f "$_SETTINGS_SAVED.rev"
	if [ "$_err" = 0 ]; then
		: >"$_SETTINGS_SAVED"
		_settings_sync_journal
	fi
	return "$_err"
}

# --- resources of a scenario (mirrors settings.py's swap_on and cgroup) ------

# resource_swapon TARGET SIZE_MIB: a swap area on for the point; SIZE_MIB > 0:
# a swapfile TARGET made (and its directory where missing), else a device.
resource_swapon() {
	if [ "$2" -gt 0 ]; then
		if [ -e "$1" ] || [ -L "$1" ]; then  # (before the journal: a restore would remove it)
			echo "resource_swapon: $1 exists already: not made over, and not removed" >&2
			return 1
		fi
		# every missing level journaled, the shallowest first (restored last: the deepest
		# goes first), as settings.py's swap_on
		_d=$(dirname "$1") _miss=
		while [ ! -d "$_d" ]; do
			_miss="$_d
$_miss"
			_d=$(dirname "$_d")
		done
		_oifs=$IFS
		IFS='
'
		for _d in $_miss; do
			_settings_save "dir:$_d"
		done
		IFS=$_oifs
		mkdir -p "$(dirname "$1")" || return 1
		_settings_save "swapfile:$1"
		# dd's own summary line dropped, its errors kept
		_dd=$(dd if=/dev/zero of="$1" bs=1M count="$2" 2>&1) || { echo "$_dd" >&2; return 1; }
		chmod 600 "$1" && mkswap "$1" >/dev/null || return 1
	fi
	_settings_save "swap:$1"
	# the highest priority: the kernel swaps to areas in priority order
	# (Documentation/admin-guide/mm/swap_numa.rst), as settings.py's swap_on
	swapon -p 32767 "$1"
}

# resource_cgroup NAME: a memory cgroup tierbench/NAME (v2 at $CGROUP_ROOT,
# else v1's memory controller under it), removed by settings_restore.
CGROUP_ROOT=${CGROUP_ROOT:-/sys/fs/cgroup}
# cgroup_path NAME: the directory resource_cgroup NAME makes (v2, else v1's memory controller).
cgroup_path() {
	if [ -e "$CGROUP_ROOT/cgroup.controllers" ]; then
		echo "$CGROUP_ROOT/tierbench/$1"
	else
		echo "$CGROUP_ROOT/memory/tierbench/$1"
	fi
}
resource_cgroup() {
	if [ -e "$CGROUP_ROOT/cgroup.controllers" ]; then
		_b=$CGROUP_ROOT
		# the root's children given the memory controller: a change to the host, journaled
		if ! grep -qw memory "$_b/cgroup.subtree_control"; then
			_settings_save "subtree:$_b/cgroup.subtree_control"
			echo +memory >"$_b/cgroup.subtree_control" || return 1
		fi
	elif [ -e "$CGROUP_ROOT/memory/memory.limit_in_bytes" ]; then
		_b=$CGROUP_ROOT/memory
	else
		echo "resource_cgroup: no memory cgroup controller mounted" >&2
		return 1
	fi
	_settings_save "cgroup:$_b/tierbench/$1"
	mkdir -p "$_b/tierbench" || return 1
	if [ "$_b" = "$CGROUP_ROOT" ]; then
		grep -qw memory "$_b/tierbench/cgroup.subtree_control" ||
			echo +memory >"$_b/tierbench/cgroup.subtree_control" || return 1
	fi
	mkdir "$_b/tierbench/$1"
}

# cgroup_remove PATH: every process still in it (ours) killed by pid, then the
# cgroup removed, and its tierbench parent once empty.
cgroup_remove() {
	_n=0
	# (not [ -s ]: every cgroup file has size 0, kernel/cgroup/cgroup.c cgroup_add_file())
	while [ -n "$(cat "$1/cgroup.procs" 2>/dev/null)" ] && [ "$_n" -lt 200 ]; do
		for _p in $(cat "$1/cgroup.procs"); do kill -9 "$_p" 2>/dev/null; done
		sleep 0.05
		_n=$((_n + 1))
	done
	_n=0
	until rmdir "$1" 2>/dev/null; do
		[ -d "$1" ] || break
		[ "$_n" -lt 100 ] || return 1
		sleep 0.05
		_n=$((_n + 1))
	done
	rmdir "$(dirname "$1")" 2>/dev/null || true
}

# --- processes ------------------------------------------------------------
# wait_for_file PATH SECONDS [PID]: poll (0.1 s) until PATH exists; give up early when process
# PID (if given) has exited or is a zombie.
wait_for_file() {
	_n=$(($2 * 10))
	while [ ! -e "$1" ] && [ "$_n" -gt 0 ]; do
		if [ -n "${3:-}" ] && { ! kill -0 "$3" 2>/dev/null ||
			[ "$(awk '{ print $3 }' "/proc/$3/stat" 2>/dev/null)" = Z ]; }; then
			break
		fi
		sleep 0.1
		_n=$((_n - 1))
	done
	[ -e "$1" ]
}

# wait_for_line FILE TEXT SECONDS [PID]: poll (0.1 s) until FILE has a line containing TEXT;
# give up early when process PID (if given) is gone.
wait_for_line() {
	_n=$(($3 * 10))
	while ! grep -qF -- "$2" "$1" 2>/dev/null && [ "$_n" -gt 0 ]; do
		if [ -n "${4:-}" ] && { ! kill -0 "$4" 2>/dev/null ||
			[ "$(awk '{ print $3 }' "/proc/$4/stat" 2>/dev/null)" = Z ]; }; then
			break
		fi
		sleep 0.1
		_n=$((_n - 1))
	done
	grep -qF -- "$2" "$1" 2>/dev/null
}

# stop_pid PID: SIGTERM, wait up to 10 s, then SIGKILL; returns the exit
# status (only for children of this shell).
stop_pid() {
	kill -TERM "$1" 2>/dev/null
	_n=100
	while kill -0 "$1" 2>/dev/null && [ "$_n" -gt 0 ]; do
		# a zombie child still answers kill -0; check its state
		[ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = Z ] && break
		sleep 0.1
		_n=$((_n - 1))
	done
	kill -0 "$1" 2>/dev/null && [ "$_n" -eq 0 ] && kill -KILL "$1" 2>/dev/null
	wait "$1"
}

# --- DAMON (mirrors systems/damon/kernel.py; files as in the kernel's
# Documentation/admin-guide/mm/damon/usage.rst) ---------------------------
DAMON_ADMIN=${DAMON_ADMIN:-/sys/kernel/mm/damon/admin}
DAMON_SYS=${DAMON_SYS:-/sys}

# damon_node_ranges NODE [SYSROOT (default $DAMON_SYS)]: "start end" (bytes) of NODE's physical memory, one line per run
# of contiguous memory blocks (nodeN/memoryM links; block_size_bytes is hexadecimal:
# Documentation/admin-guide/mm/memory-hotplug.rst).
damon_node_ranges() {
	_bs=$(cat "${2:-$DAMON_SYS}/devices/system/memory/block_size_bytes") || return 1
	ls "${2:-$DAMON_SYS}/devices/system/node/node$1" | sed -n 's/^memory\([0-9][0-9]*\)$/\1/p' | sort -n |
		awk -v bs="$((0x$_bs))" '
			{ s = $1 * bs; if (n && s == e) e = s + bs; else { if (n) printf "%.0f %.0f\n", b, e; b = s; e = s + bs; n = 1 } }
			END { if (n) printf "%.0f %.0f\n", b, e }'
}

# damon_set_regions DIR NODE [SYSROOT]: a target's regions directory DIR set to NODE's memory.
damon_set_regions() {
	_r=$(damon_node_ranges "$2" "${3:-$DAMON_SYS}") || return 1
	_n=$(echo "$_r" | grep -c .)
	if [ "$_n" = 0 ]; then
		echo "damon: node $2 has no memory blocks in sysfs: DAMON cannot watch it" >&2
		return 1
	fi
	echo "$_n" >"$1/nr_regions" || return 1
	_i=0
	echo "$_r" | {
		while read -r _s _e; do
			echo "$_s" >"$1/$_i/start" && echo "$_e" >"$1/$_i/end" || exit 1
			_i=$((_i + 1))
		done
	}
}

# damon_free: one line and status 1 where DAMON is in use here (systems/damon/kernel.py
# busy_why): kdamonds someone set up (writing nr_kdamonds would drop a stopped one's setup:
# mm/damon/sysfs.c damon_sysfs_kdamonds_add_dirs), or the kernel's own DAMON modules on, whose
# kdamond runs exclusive (mm/damon/core.c damon_start: -EBUSY beside it).
damon_free() {
	_n=$(cat "$DAMON_ADMIN/kdamonds/nr_kdamonds" 2>/dev/null)
	if [ -n "$_n" ] && [ "$_n" != 0 ]; then
		echo "damon: DAMON is in use already ($DAMON_ADMIN/kdamonds/nr_kdamonds = $_n): tierbench does not share it" >&2
		return 1
	fi
	for _m in "${DAMON_SYS:-/sys}"/module/damon_*/parameters/enabled; do
		if [ -f "$_m" ] && [ "$(cat "$_m")" = Y ]; then
			echo "damon: the kernel's own DAMON ($_m = Y) runs an exclusive kdamond: no sysfs kdamond can start beside it" >&2
			return 1
		fi
	done
	return 0
}

# damon_write REL VALUE: one plain write below $DAMON_ADMIN, one line on failure.
damon_write() {
	if ! sysfs_write "$DAMON_ADMIN/$1" "$2" 2>/dev/null; then
		echo "damon: writing '$2' to $DAMON_ADMIN/$1 failed" >&2
		return 1
	fi
}

# damon_stats FILE K:S...: each scheme's line "K S nr_tried sz_tried nr_applied sz_applied
# qt_exceeds effective_bytes" ('-' where unreadable) after refreshing them (state commands
# update_schemes_stats, update_schemes_effective_quotas).
damon_stats() {
	_f=$1
	shift
	for _ks in "$@"; do
		_k=${_ks%%:*}
		sysfs_write "$DAMON_ADMIN/kdamonds/$_k/state" update_schemes_stats 2>/dev/null
		sysfs_write "$DAMON_ADMIN/kdamonds/$_k/state" update_schemes_effective_quotas 2>/dev/null
	done
	: >"$_f"
	for _ks in "$@"; do
		_k=${_ks%%:*} _s=${_ks#*:}
		_d="$DAMON_ADMIN/kdamonds/$_k/contexts/0/schemes/$_s"
		_l="$_k $_s"
		for _x in stats/nr_tried stats/sz_tried stats/nr_applied stats/sz_applied stats/qt_exceeds \
			quotas/effective_bytes; do
			_v=$(cat "$_d/$_x" 2>/dev/null)
			case "$_v" in '' | *[!0-9]*) _v=- ;; esac
			_l="$_l $_v"
		done
		echo "$_l" >>"$_f"
	done
}

# damon_feed CSV PERIOD LOG GOAL...: every PERIOD seconds, the last latency_default and
# latency_alternate rows of CSV (tierd's t_s,metric,value,unit) become each GOAL's current value
# (GOAL = NAME:K:REL:SENSE; SENSE da = 10000 x L_default / L_alternate, ad = its inverse), then
# "commit_schemes_quota_goals" to kdamond K's state; "t_s name value" lines appended to LOG for
# the values committed.
# Runs until SIGTERM (its sleep ended with it).
damon_feed() {
	_csv=$1 _per=$2 _log=$3
	shift 3
	_sl=
	trap '[ -n "$_sl" ] && kill "$_sl" 2>/dev/null; exit 0' TERM INT
	while :; do
		sleep "$_per" &
		_sl=$!
		wait "$_sl"
		_sl=
		_lat=$(awk -F, '$2 == "latency_default" { d = $3 } $2 == "latency_alternate" { a = $3 }
			END { if (d > 0 && a > 0) printf "%d %d\n", 10000 * d / a + 0.5, 10000 * a / d + 0.5 }' "$_csv" 2>/dev/null)
		[ -n "$_lat" ] || continue
		_t=$(cut -d' ' -f1 /proc/uptime)
		_ks= _pend=
		for _g in "$@"; do
			_name=${_g%%:*} _rest=${_g#*:}
			_k=${_rest%%:*} _rest=${_rest#*:}
			_rel=${_rest%:*} _sense=${_rest##*:}
			if [ "$_sense" = da ]; then _v=${_lat% *}; else _v=${_lat#* }; fi
			sysfs_write "$DAMON_ADMIN/$_rel" "$_v" 2>/dev/null && _pend="$_pend$_k $_t $_name $_v
"
			case " $_ks " in *" $_k "*) ;; *) _ks="$_ks $_k" ;; esac
		done
		# a value is logged once its kdamond took it: the commit (state_store) takes
		# damon_sysfs_lock with trylock and may be refused as busy (sysfs_write tries again)
		for _k in $_ks; do
			if sysfs_write "$DAMON_ADMIN/kdamonds/$_k/state" commit_schemes_quota_goals 2>/dev/null; then
				printf '%s' "$_pend" | awk -v k="$_k" '$1 == k { print $2, $3, $4 }' >>"$_log"
			fi
		done
	done
}
