#!/bin/sh
# Build Silo's dbtest for tierbench.
# usage: build.sh SILO_TARBALL MASSTREE_TARBALL WORKDIR OUT_BINARY
# Unpacks both tarballs into WORKDIR (removed first), puts masstree where Silo
# expects its submodule, applies ./patches/*.patch in name order, builds
# dbtest (MYSQL=0, no network) and copies it to OUT_BINARY.
set -eu

die() { echo "build.sh: error: $*" >&2; exit 1; }
abspath() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }

[ $# -eq 4 ] || die "usage: $0 SILO_TARBALL MASSTREE_TARBALL WORKDIR OUT_BINARY"
SILO_TGZ=$(abspath "$1"); MT_TGZ=$(abspath "$2")
WORKDIR=$(abspath "$3"); OUT=$(abspath "$4")
HERE=$(cd "$(dirname "$0")" && pwd)
[ -f "$SILO_TGZ" ] || die "Silo tarball not found: $SILO_TGZ"
[ -f "$MT_TGZ" ] || die "masstree tarball not found: $MT_TGZ"
case $WORKDIR in /|"$HOME"|"$HERE") die "refusing to use $WORKDIR as WORKDIR" ;; esac

# Debian packages Silo needs (headers/libraries/tools).
PKGS="g++ make patch libnuma-dev libjemalloc-dev libdb5.3++-dev libaio-dev libssl-dev zlib1g-dev autoconf automake libtool"
command -v dpkg-query >/dev/null || die "dpkg-query not found: this script expects Debian 12"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
[ -z "$missing" ] || die "missing Debian packages:$missing
  install them with: apt-get install -y --no-install-recommends$missing"

rm -rf "$WORKDIR"
mkdir -p "$WORKDIR"
tar -xzf "$SILO_TGZ" -C "$WORKDIR" || die "cannot unpack $SILO_TGZ"
tar -xzf "$MT_TGZ" -C "$WORKDIR" || die "cannot unpack $MT_TGZ"
SRC=$(echo "$WORKDIR"/silo-*); MT=$(echo "$WORKDIR"/masstree-beta-*)
[ -f "$SRC/Makefile" ] || die "no silo-*/Makefile in $SILO_TGZ"
[ -f "$MT/configure.ac" ] || die "no masstree-beta-*/configure.ac in $MT_TGZ"
rm -rf "$SRC/masstree"
mv "$MT" "$SRC/masstree"

for p in "$HERE"/patches/*.patch; do
  [ -f "$p" ] || continue
  echo "build.sh: applying $(basename "$p")"
  patch -d "$SRC" -p1 --batch --forward --fuzz=0 < "$p" ||
    die "patch $(basename "$p") does not apply to $SRC"
done

JOBS=$(nproc)
# through ccache where it works (lib/ccache.sh): a rebuild of these pinned sources takes seconds
. "$HERE/../../lib/ccache.sh"
# No debug information unless SILO_DEBUG_INFO asks for it (e.g. -g): the same machine code in
# ~20 % less build time (patches/0003-debug-info-knob.patch says how that was checked).
DEBUG_INFO=${SILO_DEBUG_INFO:-}
echo "build.sh: make -j$JOBS dbtest in $SRC${DEBUG_INFO:+ (debug info: $DEBUG_INFO)}${CCACHE:+ (with ccache)}"
# Pin every build knob on the command line so the environment cannot change it (the compilers: the
# environment's CXX and CC, else make's defaults g++ and cc; masstree's configure, run by
# this make, gets them too).
(cd "$SRC" && make -j"$JOBS" CXX="$CCACHE${CXX:-g++}" CC="$CCACHE${CC:-cc}" MYSQL=0 MODE=perf DEBUG=0 CHECK_INVARIANTS=0 \
    EVENT_COUNTERS=0 USE_MALLOC_MODE=1 MASSTREE=1 DEBUG_INFO="$DEBUG_INFO" dbtest) ||
  die "make dbtest failed (see the compiler output above)"

BIN="$SRC/out-perf.masstree/benchmarks/dbtest"
[ -x "$BIN" ] || die "build finished but $BIN is missing"
mkdir -p "$(dirname "$OUT")"
cp "$BIN" "$OUT"
echo "build.sh: built $OUT"
