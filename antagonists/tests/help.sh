#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --help exits 0 and names every option.
PROG=antagonist
# shellcheck source=SCRIPTDIR/../../lib/testlib.sh
. "$(dirname "$0")/../../lib/testlib.sh"

t_help() {
	check_help cpus mem-node buffer write-fraction access-size rate huge \
		duration report-interval output ready-file help
}

t_help
pass
