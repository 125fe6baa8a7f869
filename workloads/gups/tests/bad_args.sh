#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every bad argument: exit 2, one 'gups: error:' line, nothing on stdout.
PROG=gups
# shellcheck source=SCRIPTDIR/../../../lib/testlib.sh
. "$(dirname "$0")/../../../lib/testlib.sh"

t_bad_args() {
	local cases=(
		"--frobnicate" "--working-set" "--working-set 1X"
		"--working-set 100T" "--hot-set 2G" "--hot-share 1.5"
		"--object-size 100" "--object-size 8192" "--op write"
		"--op mix:1.2" "--threads 0" "--threads 100000" "--cpus 99999"
		"--cpus 1-0" "--mem-node 9999" "--mem-node 0 --interleave 0"
		"--duration -1" "--report-interval 0" "--huge maybe"
		"--move-hot-at 1" "--hot-set 48M --move-hot-at 1"
		"--hot-set 16M --duration 2 --move-hot-at 3" "stray"
	)
	check_bad_args "--working-set 64M" "${cases[@]}"
}

t_bad_args
pass
