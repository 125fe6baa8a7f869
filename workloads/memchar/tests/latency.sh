#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# latency: one idle_latency row; --huge off is reported as no huge pages.
. "$(dirname "$0")/lib/memchar.sh"

run lat 0 latency --buffer-mib 8 --duration $D && check_csv "$TMP/lat.csv" 1 idle_latency
run lat_off 0 latency --buffer-mib 8 --duration $D --huge off --cpus 0 &&
	check_csv "$TMP/lat_off.csv" 1 idle_latency &&
	{ grep -q ',none,' "$TMP/lat_off.csv" || bad "huge off not reported as none"; }
finish
