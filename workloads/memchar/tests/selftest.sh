#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# selftest: chain construction and every kernel check themselves.
. "$(dirname "$0")/lib/memchar.sh"

run selftest 0 selftest
finish
