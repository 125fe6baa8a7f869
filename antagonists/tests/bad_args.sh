#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every bad argument: exit 2, one 'antagonist: error:' line, nothing on stdout.
PROG=antagonist
# shellcheck source=SCRIPTDIR/../../lib/testlib.sh
. "$(dirname "$0")/../../lib/testlib.sh"

t_bad_args() {
	local cases=(
		"--frobnicate" "--cpus" "--cpus 99999" "--cpus 0-x"
		"--cpus 0,0" "--mem-node 9999" "--mem-node 0,1" "--buffer 1K"
		"--buffer 100T" "--write-fraction 25" "--access-size 32"
		"--rate -5" "--duty 0" "--duty 1.5" "--period-ms 0"
		"--duration abc" "--report-interval 0" "--huge yes"
		"stray"
	)
	check_bad_args "--duration 0.1" "${cases[@]}"
}

t_bad_args
pass
