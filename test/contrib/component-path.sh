#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A third-party component installed with its own Makefile into a directory of
# its own, named by mca_base_component_path: meridian_info lists it and the
# carto framework selects it.
# shellcheck source=test/contrib/stage.sh disable=SC2154 # stage.sh and Makefile.am set them
. "$srcdir/stage.sh"
build_example

components=$stage/third-party
run_logged "$stage/example-install.log" \
    "$MAKE" -C "$stage/example" -f "$top_srcdir/contrib/example-component/Makefile" \
    install componentdir="$components"
[ -f "$components/mca_carto_example.so" ] || fail "make install did not put the DSO in $components"

export "${P}mca_base_component_path=$components"
check_example "$components/mca_carto_example.so"
echo "PASS: carto/example from mca_base_component_path=$components is listed and selected"
