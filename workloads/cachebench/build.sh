#!/bin/sh
# Build CacheLib's cachebench (workloads/cachebench/workload.py) and its dependency chain from the
# pinned archives, offline, into a prefix that is kept and reused:
#   build.sh ARCHIVE... PREFIX OUT
# ARCHIVEs: the git-archive tarballs NAME-COMMIT.tar.gz of the chain (already verified against
# their pins by the workflow); PREFIX: install prefix (sources in PREFIX/src, build trees in
# PREFIX/build, a log per step in PREFIX/logs, step stamps in PREFIX/.stamps); OUT: a link made
# to PREFIX/bin/cachebench (which finds its libraries in PREFIX/lib by RUNPATH $ORIGIN/../lib).
# env: JOBS (parallel compile jobs, default nproc), BUILD_TYPE (default Release).
#
# Steps in order, as CacheLib's contrib/build-package.sh builds them: fmt, zstd, sparse-map,
# folly, fizz, wangle, mvfst, fbthrift, cachelib. A step whose stamp exists is skipped, so a
# rerun after a failure resumes at the failed step (ninja resumes inside it); once a step is
# rebuilt, every later step is rebuilt too. A stamp names the archive, so a new pin rebuilds.
# Debian packages needed: workloads/cachebench/debian-packages.txt (`make setup-cachebench`).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
die() { echo "cachebench build: error: $*" >&2; exit 1; }
[ $# -ge 3 ] || die "usage: build.sh ARCHIVE... PREFIX OUT"

# step  archive-name  cmake-source-subdir  extra cmake flags
STEPS='fmt fmt . -DFMT_TEST=OFF -DFMT_DOC=OFF
zstd zstd build/cmake -DZSTD_BUILD_TESTS=OFF -DZSTD_BUILD_PROGRAMS=OFF
sparsemap sparse-map . -DBUILD_TESTING=OFF
folly folly . -DBUILD_TESTS=OFF -DPYTHON_EXTENSIONS=OFF
fizz fizz fizz -DBUILD_TESTS=OFF -DBUILD_EXAMPLES=OFF
wangle wangle wangle -DBUILD_TESTS=OFF -DBUILD_EXAMPLES=OFF
mvfst mvfst . -DBUILD_TESTS=OFF
fbthrift fbthrift . -Denable_tests=OFF -Dthriftpy=OFF -Dthriftpy3=OFF
cachelib cachelib cachelib -DBUILD_TESTS=OFF'

# the arguments: archives, then PREFIX and OUT
archives=
while [ $# -gt 2 ]; do archives="$archives $1"; shift; done
mkdir -p "$1"
PREFIX=$(cd "$1" && pwd)
OUT=$2
JOBS=${JOBS:-$(nproc)}
BUILD_TYPE=${BUILD_TYPE:-Release}

archive_of() {  # the archive given for NAME (NAME-<40 hex>.tar.gz)
  for a in $archives; do
    case $(basename "$a") in "$1"-????????????????????????????????????????.tar.gz) echo "$a"; return 0 ;; esac
  done
  die "no archive $1-COMMIT.tar.gz among the arguments"
}

# prerequisites: the Debian packages, and the tools
missing=
for p in $(sed 's/#.*//' "$here/debian-packages.txt"); do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] || die "missing Debian packages:$missing (make setup-cachebench, or apt-get install -y$missing)"
for t in cmake ninja tar; do command -v $t >/dev/null 2>&1 || die "$t not found"; done

# Upstream omissions that show only with BUILD_SHARED_LIBS=ON (a static build never pulls the
# missing objects): linking cachebench fails with
#   libfizz.so: undefined reference to `vtable for fizz::openssl::OpenSSLECKeyExchange'
#   libthriftcpp2.so: undefined reference to `apache::thrift::MetricCollector::requestReceived() const'
# because these .cpp files are missing from the libraries' CMake source lists.
add_src() {  # FILE AFTER NEW: list source NEW after AFTER in a CMake source list, once
  grep -q "^  $3\$" "$1" && return 0
  grep -q "^  $2\$" "$1" || die "fix: anchor '$2' not found in $1"
  sed -i "s|^  $2\$|  $2\n  $3|" "$1"
}
apply_fixes() {
  case $1 in
    fizz) add_src "$2/fizz/CMakeLists.txt" crypto/exchange/X25519.cpp \
            backend/openssl/crypto/exchange/OpenSSLKeyExchange.cpp ;;
    fbthrift) add_src "$2/thrift/lib/cpp2/CMakeLists.txt" server/ServerInstrumentation.cpp \
            server/metrics/MetricCollector.cpp ;;
  esac
}

mkdir -p "$PREFIX/src" "$PREFIX/build" "$PREFIX/logs" "$PREFIX/.stamps"
GIT_ALLOW_PROTOCOL=file; export GIT_ALLOW_PROTOCOL   # no build step may use the network
CMAKE_PREFIX_PATH="$PREFIX"; export CMAKE_PREFIX_PATH
PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig:${PKG_CONFIG_PATH:-}"; export PKG_CONFIG_PATH
LD_LIBRARY_PATH="$PREFIX/lib:${LD_LIBRARY_PATH:-}"; export LD_LIBRARY_PATH
PATH="$PREFIX/bin:$PATH"; export PATH   # fbthrift's thrift1 compiles CacheLib's IDL

t_all=$(date +%s)
rebuilt=0
echo "$STEPS" | while read -r name arname subdir extra; do
  tarball=$(archive_of "$arname")
  base=$(basename "$tarball" .tar.gz)
  stamp="$PREFIX/.stamps/$base.installed"
  if [ "$rebuilt" = 0 ] && [ -e "$stamp" ]; then
    echo "==> $name: installed earlier ($(cat "$stamp")), kept"
    continue
  fi
  rebuilt=1
  t0=$(date +%s)
  log="$PREFIX/logs/$name.log"
  srcdir="$PREFIX/src/$base"
  blddir="$PREFIX/build/$name"
  echo "==> $name: building (log: $log)"
  if [ ! -e "$PREFIX/.stamps/$base.unpacked" ]; then  # an interrupted unpack is redone
    rm -rf "$srcdir" "$blddir"
    tar -xzf "$tarball" -C "$PREFIX/src"
    [ -d "$srcdir" ] || die "$name: $tarball did not unpack to $srcdir"
    apply_fixes "$name" "$srcdir"
    touch "$PREFIX/.stamps/$base.unpacked"
  fi
  # shellcheck disable=SC2086
  if ! {
    cmake -S "$srcdir/$subdir" -B "$blddir" -G Ninja \
      -DCMAKE_BUILD_TYPE="$BUILD_TYPE" -DCMAKE_INSTALL_PREFIX="$PREFIX" -DCMAKE_PREFIX_PATH="$PREFIX" \
      -DCMAKE_INSTALL_LIBDIR=lib -DCMAKE_INSTALL_RPATH="$PREFIX/lib" -DBUILD_SHARED_LIBS=ON \
      -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DFETCHCONTENT_FULLY_DISCONNECTED=ON $extra &&
    cmake --build "$blddir" -j "$JOBS" &&
    cmake --install "$blddir"
  } >"$log" 2>&1; then
    echo "==> $name: FAILED after $(( $(date +%s) - t0 )) s; from $log:" >&2
    grep -n -m 20 -E 'error|Error|FAILED' "$log" >&2 || true
    tail -n 30 "$log" >&2
    exit 1
  fi
  dt=$(( $(date +%s) - t0 ))
  echo "${dt} s, $(date '+%F %T')" >"$stamp"
  echo "$name $dt" >>"$PREFIX/logs/timings.txt"
  echo "==> $name: done in ${dt} s"
done
echo "==> chain done in $(( $(date +%s) - t_all )) s (seconds per step: $PREFIX/logs/timings.txt)"
[ -x "$PREFIX/bin/cachebench" ] || die "$PREFIX/bin/cachebench was not installed"
# a link, not a copy: cachebench finds its libraries by RUNPATH $ORIGIN/../lib (CacheLib's CMake
# sets it), i.e. beside its real path in the prefix
mkdir -p "$(dirname "$OUT")"
ln -sfn "$(realpath --relative-to="$(dirname "$OUT")" "$PREFIX/bin/cachebench")" "$OUT"
