#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A third-party component installed into $HOME/.meridian/components (the
# example Makefile's install-user), with the default mca_base_component_path:
# meridian_info lists it and the carto framework selects it.
# shellcheck source=test/contrib/stage.sh disable=SC2154 # stage.sh and Makefile.am set them
. "$srcdir/stage.sh"
build_example

run_logged "$stage/example-install.log" \
    "$MAKE" -C "$stage/example" -f "$top_srcdir/contrib/example-component/Makefile" install-user
so=$HOME/.meridian/components/mca_carto_example.so
[ -f "$so" ] || fail "make install-user did not put the DSO in $HOME/.meridian/components"

check_example "$so"
echo "PASS: carto/example from \$HOME/.meridian/components is listed and selected"
