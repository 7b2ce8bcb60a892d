# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the meridian_netmap tests: the shared checks of
# test/support/tool_test_lib.sh, with the build tree's pnet and coord
# components on the component path (in a --disable-dlopen build they are in
# libmeridian and the path finds nothing, which is fine).
#
#   run_netmap ARG...         run meridian_netmap (run_tool)
#   expect_failure TEXT       exit status 1, nothing on standard output, and
#                             standard error is the one line "meridian: error: TEXT"
#
# $example is contrib/fabric/example.fabric; $bulk and $ctl are the two
# requests the output tests use (the help text's example).

: "${MERIDIAN_NETMAP:?run me from make check}"
: "${FABRIC_EXAMPLES:?run me from make check}"

TOOL_COMPONENT_PATH=$BUILD_COMPONENT_PATH
. "$(dirname "$TEST_LIB")/../support/tool_test_lib.sh"

example=$FABRIC_EXAMPLES/example.fabric
bulk='id=bulk,type=tcp,plane=data,endpts=2,qos=2'
ctl='id=ctl,type=tcp,plane=mgmt,seckey'

run_netmap() { run_tool "$MERIDIAN_NETMAP" "$@"; }

expect_failure()
{
    expect_status 1
    expect_out_empty
    printf 'meridian: error: %s\n' "$1" | expect_err
}
