#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every bad argument: exit 2 and one 'memchar: error:' line.
. "$(dirname "$0")/lib/memchar.sh"

usage_error e_nosub
usage_error e_sub nosuch
usage_error e_opt latency --nosuch
usage_error e_threads bandwidth --threads $((NCPU + 1)) --buffer-mib 4
grep -q "$((NCPU + 1)).*$NCPU" "$TMP/e_threads.err" || bad "threads error names both numbers"
usage_error e_inj loaded --injectors "$NCPU" --buffer-mib 4
usage_error e_node latency --mem-node 4095
usage_error e_cnode latency --cpu-node 4095
usage_error e_cpus latency --cpus 0-1,1
usage_error e_cpu latency --cpus 65000
usage_error e_dur latency --duration 0
usage_error e_op bandwidth --op copy
usage_error e_mix bandwidth --op mix2:2
usage_error e_size objsize --sizes 100
usage_error e_persist objsize --op read --persist
usage_error e_wrongmode latency --threads 1
usage_error e_excl latency --dax "$TMP/x" --mem-node 0
usage_error e_huge latency --huge maybe
usage_error e_objs objsize --objects 100000 --sizes 4096 --buffer-mib 2
usage_error e_share_b share --shares 0.5
usage_error e_share_range share --mem-node-b 0 --shares 0,1.5
usage_error e_share_neg share --mem-node-b 0 --shares -0.25
usage_error e_share_list share --mem-node-b 0 --shares 0,,1
usage_error e_share_node share --mem-node-b 4095
grep -q -- '--mem-node-b 4095' "$TMP/e_share_node.err" || bad "share node error names the option"
usage_error e_share_excl share --mem-node-b 0 --dax-b "$TMP/x"
usage_error e_share_thr share --mem-node-b 0 --threads $((NCPU + 1))
usage_error e_share_thrs share --mem-node-b 0 --threads 1,2
usage_error e_share_opt bandwidth --shares 0.5
usage_error e_share_optb latency --mem-node-b 0
finish
