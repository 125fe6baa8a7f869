#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --help, and a subcommand's --help, exit 0.
. "$(dirname "$0")/lib/memchar.sh"

run help 0 --help && grep -q -- '--buffer-mib' "$TMP/help.csv" || bad "help text"
run help_sub 0 bandwidth --help
grep -q -- '--shares' "$TMP/help.csv" || bad "help text names share's --shares"
finish
