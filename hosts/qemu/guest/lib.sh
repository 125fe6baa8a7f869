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
# cgroup:PATH (present/absent).
settings_read() {
	case "$1" in
	swap:*) if tail -n +2 /proc/swaps | cut -d' ' -f1 | grep -qxF "${1#swap:}"; then echo on; else echo off; fi ;;
	swapfile:* | dir:* | cgroup:*) if [ -e "${1#*:}" ]; then echo present; else echo absent; fi ;;
	*) sed -n '1{s/^.*\[\(.*\)\].*$/\1/;p;}' "$1" ;;
	esac
}

# _settings_write KEY VALUE: a value written, or a resource put back.
_settings_write() {
	case "$1" in
	swap:*) if [ "$2" = on ]; then swapon "${1#swap:}"; else swapoff "${1#swap:}"; fi ;;
	swapfile:*) rm -f "${1#swapfile:}" ;;
	dir:*) rmdir "${1#dir:}" 2>/dev/null || true ;;
	cgroup:*) cgroup_remove "${1#cgroup:}" ;;
	*) echo "$2" >"$1" ;;
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
	if ! echo "$2" >"$1"; then
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
		_d=$(dirname "$1")
		if [ ! -d "$_d" ]; then
			_settings_save "dir:$_d"
			mkdir -p "$_d" || return 1
		fi
		_settings_save "swapfile:$1"
		dd if=/dev/zero of="$1" bs=1M count="$2" 2>/dev/null && chmod 600 "$1" &&
			mkswap "$1" >/dev/null || return 1
	fi
	_settings_save "swap:$1"
	swapon "$1"
}

# resource_cgroup NAME: a memory cgroup tierbench/NAME (v2 at $CGROUP_ROOT,
# else v1's memory controller under it), removed by settings_restore.
CGROUP_ROOT=${CGROUP_ROOT:-/sys/fs/cgroup}
resource_cgroup() {
	if [ -e "$CGROUP_ROOT/cgroup.controllers" ]; then
		_b=$CGROUP_ROOT
		grep -qw memory "$_b/cgroup.subtree_control" || echo +memory >"$_b/cgroup.subtree_control" || return 1
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
	while [ -s "$1/cgroup.procs" ] && [ "$_n" -lt 200 ]; do
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
