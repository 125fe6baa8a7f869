#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --unbind-after-touch: the buffer is bound to --mem-node while it is touched,
# and has the default policy (numa_maps "default", not "bind:0") once the pid
# file is written; without the flag it stays bound.
PROG=gups
# shellcheck source=SCRIPTDIR/../../../lib/testlib.sh
. "$(dirname "$0")/../../../lib/testlib.sh"

PID=
test_cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null; }

# policy_of [FLAG]: the policy numa_maps shows for the 64 MiB buffer
policy_of() {
	local pid
	rm -f "$TMP/pid"
	"$BIN" --working-set 64M --hot-set 16M --mem-node 0 "$@" --duration 30 \
		--pid-file "$TMP/pid" >/dev/null 2>"$TMP/err" &
	PID=$!
	wait_for "$TMP/pid" || fail "no pid file: $(cat "$TMP/err")"
	# numa_maps: "ADDR POLICY anon=PAGES ..."; the buffer is the mapping with >= 16384 4K pages (or 32 2M ones)
	awk '/anon=/ { for (i = 3; i <= NF; i++) if ($i ~ /^anon=/) { n = substr($i, 6) + 0 }
		if ($0 ~ /kernelpagesize_kB=2048/) n *= 512; if (n >= 16384) print $2 }' "/proc/$PID/numa_maps"
	kill "$PID"; wait "$PID" 2>/dev/null; PID=
}

t_unbind() {
	local bound unbound
	if [ ! -r /proc/self/numa_maps ]; then skip "no /proc/PID/numa_maps (kernel without NUMA)"; return; fi
	bound=$(policy_of)
	unbound=$(policy_of --unbind-after-touch)
	[ "$bound" = "bind:0" ] || fail "without --unbind-after-touch: policy '$bound', not bind:0"
	[ "$unbound" = "default" ] || fail "with --unbind-after-touch: policy '$unbound', not default"
	pass
}

t_unbind
