#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# loaded: one row per delay, largest delay first; no injectors.
. "$(dirname "$0")/lib/memchar.sh"

if [ "$NCPU" -ge 2 ]; then
	run loaded 0 loaded --injectors 1 --delays 0,50 --op mix1:1 \
		--buffer-mib 8 --duration $D &&
		check_csv "$TMP/loaded.csv" 2 loaded_latency &&
		{ awk -F, '$3 == "loaded_latency" { if ($14 != 50) exit 1; exit 0 }' "$TMP/loaded.csv" ||
		  bad "loaded: delays not largest first"; }
fi
run loaded0 0 loaded --injectors 0 --delays 0 --buffer-mib 8 --duration $D &&
	check_csv "$TMP/loaded0.csv" 1 loaded_latency
finish
