#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Bad arguments and unusable hosts: exit 2, one 'tierd: error:' line on
# stderr, nothing on stdout, the target untouched.
. "$(dirname "$0")/lib/tierd.sh"

start_gups --working-set 128M

# check ARGS...: tierd must refuse with exit 2 and one line
check() {
	local rc
	timeout 20 "$TIERD" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 2 ] || fail "'$*': exit $rc, want 2 ($(head -c 300 "$TMP/err"))"
	[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "'$*': stderr has $(wc -l <"$TMP/err") lines"
	grep -q '^tierd: error: ' "$TMP/err" || fail "'$*': stderr is not 'tierd: error: ...'"
	[ -s "$TMP/out" ] && fail "'$*': wrote to stdout"
	echo "  refused: $* -> $(cat "$TMP/err")"
}

P=$GPID
nomem=$(( $(mem_nodes | sort -n | tail -1) + 1 ))
check --frobnicate
check --pid "$P"
check --pid "$P" --policy hemem
check --pid 0 --move-test 0:0
check --pid 2147483647 --move-test 0:0
check --pid "$P" --policy nosuch --tiers 0,0
check --pid "$P" --policy hemem --tiers 0
check --pid "$P" --policy hemem --tiers "0,$nomem" --observe none
check --pid "$P" --move-test "0:$nomem"
check --pid "$P" --move-test 0-0
check --pid "$P" --policy hemem --tiers 0,0 --colloid maybe
check --pid "$P" --policy hemem --tiers 0,0 --region-size 1M
check --pid "$P" --policy hemem --tiers 0,0 --param no_such_param=1 --observe none
check --pid "$P" --policy hemem --tiers 0,0 --param delta=-1 --observe none
check --pid "$P" --policy hemem --tiers 0,0 --observe sometimes
check --pid "$P" --policy hemem --tiers 0,0 --latency guess
check --pid "$P" --policy hemem --tiers 0,0 --quantum-ms 0
check --pid "$P" --policy hemem --tiers 0,0 --min-mapping 1T --observe none
check --pid "$P" --move-test 0:0 stray

# forced sources: refused only where the host lacks them
for src in perf damon; do
	timeout 20 "$TIERD" --pid "$P" --policy hemem --tiers 0,0 --observe $src \
		--duration 0.2 >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ $rc -eq 2 ]; then
		check --pid "$P" --policy hemem --tiers 0,0 --observe $src
	elif [ $rc -ne 0 ]; then
		fail "--observe $src: exit $rc: $(cat "$TMP/err")"
	fi
done

# no permission: an unprivileged user may not move root's pages
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	timeout 20 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TIERD" --pid "$P" --move-test 0:0 >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 2 ] || fail "unprivileged move-test: exit $rc, want 2"
	grep -q '^tierd: error: no permission' "$TMP/err" || fail "unprivileged: $(cat "$TMP/err")"
	echo "  refused (uid 65534): $(cat "$TMP/err")"
else
	echo "  (permission case not run: needs root and setpriv)"
fi
kill -0 "$P" || fail "gups died"
echo ok
