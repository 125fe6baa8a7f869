#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# objsize: reads and writes per object size; --persist flushes each line.
. "$(dirname "$0")/lib/memchar.sh"

run obj_r 0 objsize --op read --sizes 64,4096 --buffer-mib 8 --duration $D &&
	check_csv "$TMP/obj_r.csv" 2 object_latency
run obj_w 0 objsize --op write --sizes 64,192 --objects 1000 --buffer-mib 8 --duration $D &&
	check_csv "$TMP/obj_w.csv" 2 object_latency
if grep -qwE 'clwb|clflushopt|clflush' /proc/cpuinfo; then
	run obj_p 0 objsize --op write --persist --sizes 256 --buffer-mib 8 --duration $D &&
		check_csv "$TMP/obj_p.csv" 1 object_latency &&
		{ grep -qE ',(clwb|clflushopt|clflush),1,' "$TMP/obj_p.csv" ||
		  bad "persist: flush column"; }
fi
finish
