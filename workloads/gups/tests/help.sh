#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --help exits 0 and names every option.
PROG=gups
# shellcheck source=SCRIPTDIR/../../../lib/testlib.sh
. "$(dirname "$0")/../../../lib/testlib.sh"

t_help() {
	check_help working-set hot-set hot-share object-size op threads cpus \
		mem-node interleave duration move-hot-at seed report-interval \
		output pid-file ready-file summary huge self-test unbind-after-touch hot-placement help
}

t_help
pass
