#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A file standing in for a DAX tier (grown by memchar); --output.
. "$(dirname "$0")/lib/memchar.sh"

: >"$TMP/pmem.img"
run dax 0 latency --dax "$TMP/pmem.img" --buffer-mib 4 --duration $D \
	--output "$TMP/dax_out.csv" &&
	check_csv "$TMP/dax_out.csv" 1 idle_latency &&
	{ grep -q ",dax:$TMP/pmem.img," "$TMP/dax_out.csv" || bad "dax target column"; }
run dax_bw 0 bandwidth --dax "$TMP/pmem.img" --threads 1 --op write \
	--buffer-mib 4 --duration $D && check_csv "$TMP/dax_bw.csv" 1 bandwidth
finish
