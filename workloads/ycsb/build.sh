#!/bin/sh
# Build tierbench's YCSB driver (pom.xml: YCSB's core 0.17.0 from Maven Central + our bindings and
# runner) with Maven and write its launcher.
# usage: build.sh WORKDIR OUT_LAUNCHER
# The Maven repository is one per user, kept with what setup keeps for the next clones
# (${XDG_CACHE_HOME:-~/.cache}/tierbench/m2; TIERBENCH_MAVEN_REPO=DIR names another; build/m2 where
# that cannot be made): the first build fetches the pinned artifacts from Maven Central (23-31 s of
# a fresh clone's quick run here), later builds, from any clone, run offline (-o; 4 s) once its
# .tierbench-complete exists (and go online once if the offline build fails: a pin was added or
# changed). Builds that share it take turns (flock): Maven 3.8's local repository is not safe for
# two builds fetching at once (MNG-2802). Output: build/ycsb/target/tierbench-kv.jar and
# build/ycsb/target/lib/*.jar; OUT_LAUNCHER runs the runner with them (options before the runner's:
# -J<jvm option>).
set -eu

die() { echo "build.sh: error: $*" >&2; exit 1; }
abspath() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }

[ $# -eq 2 ] || die "usage: $0 WORKDIR OUT_LAUNCHER"
WORKDIR=$(abspath "$1"); OUT=$(abspath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(dirname "$WORKDIR")/..   # build/src/ycsb -> build
BUILD=$(cd "$BUILD" && pwd)
command -v java >/dev/null || die "java not found: install a JDK 17 (apt-get install default-jdk-headless)"
command -v mvn >/dev/null || die "mvn not found: install Maven (apt-get install maven)"

REPO=${TIERBENCH_MAVEN_REPO:-${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/tierbench/m2}
mkdir -p "$REPO" 2>/dev/null && [ -w "$REPO" ] || REPO="$BUILD/m2"
REPO=$(abspath "$REPO")
TARGET="$BUILD/ycsb/target"
OFFLINE=""
[ -f "$REPO/.tierbench-complete" ] && OFFLINE="-o"
mkdir -p "$WORKDIR" "$REPO"
rm -rf "$TARGET/lib"
echo "build.sh: mvn $OFFLINE package (repository $REPO)"
in_turn() { if command -v flock >/dev/null; then flock "$REPO/.tierbench-lock" "$@"; else "$@"; fi; }
build() { in_turn mvn -B -q "$@" -f "$HERE/pom.xml" -Dmaven.repo.local="$REPO" -Dkv.builddir="$TARGET" package; }
if ! build $OFFLINE; then
  [ -n "$OFFLINE" ] || die "mvn package failed (first build: Maven Central must be reachable; see the output above)"
  echo "build.sh: the offline build failed; fetching what is missing from Maven Central"
  build || die "mvn package failed (see the output above)"
fi
touch "$REPO/.tierbench-complete"
[ -f "$TARGET/tierbench-kv.jar" ] || die "build finished but $TARGET/tierbench-kv.jar is missing"

mkdir -p "$(dirname "$OUT")"
cat > "$OUT.tmp" <<'LAUNCHER'
#!/bin/sh
# tierbench's YCSB runner (workloads/ycsb): build/bin/ycsb [-J<jvm option>]... --db ... --output FILE
HERE=$(cd "$(dirname "$0")" && pwd)
T="$HERE/../ycsb/target"
JOPTS="-XX:+UseParallelGC -XX:-UsePerfData -Xss512k"
while [ $# -gt 0 ]; do
  case $1 in -J*) JOPTS="$JOPTS ${1#-J}"; shift ;; *) break ;; esac
done
exec java $JOPTS -cp "$T/tierbench-kv.jar:$T/lib/*" tierbench.kv.Runner "$@"
LAUNCHER
chmod +x "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "build.sh: built $OUT"
