# SPDX-License-Identifier: MIT
# ccache.sh - whether to compile through ccache: sourced by lib/build.mk (every C component of
# tierbench) and by the build scripts of upstream C/C++ workloads (workloads/silo/build.sh; not
# GAPBS's, whose one g++ call compiles and links, which ccache does not cache). Sets CCACHE to
# "ccache " where ccache (Debian's ccache, which `make setup` installs) is there and its cache
# directory can be written, else to "": a build then compiles with "${CCACHE}cc". A rebuild of the
# same sources with the same compiler and flags (a second clone, `make clean`, a kept CI machine)
# takes its objects from the cache. A cached object is the one the compiler made: ccache hashes the
# compiler, its arguments, the source and every file it includes, and a miss compiles as without
# it (ccache(1), "HOW CCACHE WORKS"). Silo's dbtest on the development VM: the same bytes, 52-56 s
# to build cold, 8.1-8.5 s from the cache in another directory (the misses: its configure's test
# programs). TIERBENCH_CCACHE=0 builds without it.
CCACHE=""
if [ "${TIERBENCH_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null 2>&1; then
  _ccache_dir=$(ccache --get-config cache_dir 2>/dev/null) &&
    mkdir -p "$_ccache_dir" 2>/dev/null && [ -w "$_ccache_dir" ] && CCACHE="ccache "
  unset _ccache_dir
fi
