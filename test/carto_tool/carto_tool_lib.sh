# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the meridian_carto tests: the shared checks of
# test/support/tool_test_lib.sh, with the build tree's carto components on the
# component path (in a --disable-dlopen build they are in libmeridian and the
# path finds nothing, which is fine).
#
#   run_carto ARG...          run meridian_carto (run_tool)
#   need_carto_file           skip the test (77) when carto_file is not built

: "${MERIDIAN_CARTO:?run me from make check}"
: "${CARTO_EXAMPLES:?run me from make check}"

TOOL_COMPONENT_PATH=$BUILD_COMPONENT_PATH
. "$(dirname "$TEST_LIB")/../support/tool_test_lib.sh"

figure3=$CARTO_EXAMPLES/figure3.carto
ompi13=$CARTO_EXAMPLES/ompi13.carto

run_carto() { run_tool "$MERIDIAN_CARTO" "$@"; }

need_carto_file()
{
    if [ "$CARTO_FILE_BUILT" != yes ]; then
        echo "SKIP: the carto_file component is not built"
        exit 77
    fi
}
