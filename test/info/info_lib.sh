# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the meridian_info tests: the shared checks of
# test/support/tool_test_lib.sh, with a component path holding nothing but
# what the test puts in $scratch/components.
#
#   run_info ARG...          run meridian_info (run_tool)

: "${MERIDIAN_INFO:?run me from make check}"

. "$(dirname "$TEST_LIB")/../support/tool_test_lib.sh"

run_info() { run_tool "$MERIDIAN_INFO" "$@"; }
