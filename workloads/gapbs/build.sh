#!/bin/sh
# Build one GAPBS program from the pinned archive (workloads/gapbs/workload.py):
#   build.sh ARCHIVE WORKDIR PROGRAM OUT
# unpacks ARCHIVE (a git archive of sbeamer/gapbs) into WORKDIR, runs GAPBS's own Makefile for
# PROGRAM (pr, converter, ...) with g++ and OpenMP, and installs the binary as OUT.
set -eu
[ $# -eq 4 ] || { echo "usage: $0 ARCHIVE WORKDIR PROGRAM OUT" >&2; exit 2; }
archive=$1 work=$2 prog=$3 out=$4
command -v "${CXX:-g++}" >/dev/null || { echo "gapbs: ${CXX:-g++} not found (apt-get install g++)" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
tar -xzf "$archive" -C "$work" --strip-components=1
make -C "$work" "$prog" CXX="${CXX:-g++}"
mkdir -p "$(dirname "$out")"
install -m 0755 "$work/$prog" "$out"
