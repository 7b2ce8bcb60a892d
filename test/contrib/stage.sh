# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the contrib tests.  Installs the built Meridian under a temporary
# root (make install DESTDIR=...), then builds, through pkg-config only, the
# example component (contrib/example-component) and a small program that
# selects a carto component, as a third party would against an installed
# Meridian.
#
# Needs from the environment (test/contrib/Makefile.am): MAKE, CC, PKG_CONFIG,
# top_builddir, top_srcdir, srcdir, libdir, bindir, sanitizer_flags
# (MERIDIAN_SANFLAGS) and configured_env_prefix (MERIDIAN_MCA_ENV_PREFIX):
# names that cannot be taken for MCA settings.  Sets stage, root, P (the MCA
# environment prefix) and info, and defines fail, run_logged, expect_line,
# build_example, build_program and check_example.
# shellcheck disable=SC2154 # lower-case names come from the environment

set -eu

# fail, run_logged
# shellcheck source=test/support/build_test_lib.sh
. "$srcdir/../support/build_test_lib.sh"

stage=$(mktemp -d "${TMPDIR:-/tmp}/meridian-contrib.XXXXXX")
# Kept when the test fails, so its logs can be read.
trap 'rc=$?; if [ $rc -eq 0 ]; then rm -rf "$stage"; else echo "work files kept in $stage" >&2; fi' EXIT
root=$stage/root

# expect_line FILE LINE: FILE holds exactly this line.
expect_line() {
    grep -qxF -- "$2" "$1" || {
        echo "--- $1:" >&2
        cat "$1" >&2
        fail "expected the line '$2' in $1"
    }
}

# MAKEFLAGS of the make running the tests would hand its jobserver to these
# nested makes; they need none.
unset MAKEFLAGS MFLAGS MAKELEVEL

run_logged "$stage/install.log" "$MAKE" -C "$top_builddir" install DESTDIR="$root"
if [ ! -e "$root$libdir/libmeridian.so" ]; then
    echo "SKIP: no shared libmeridian installed (--disable-shared): out-of-tree DSOs need it"
    exit 77
fi

export PKG_CONFIG_SYSROOT_DIR="$root"
export PKG_CONFIG_PATH="$root$libdir/pkgconfig"
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
P=$($PKG_CONFIG --variable=envprefix meridian)
[ "$P" = "$configured_env_prefix" ] ||
    fail "meridian.pc says envprefix=$P, configure chose $configured_env_prefix"

# build_example: builds the example with its own Makefile (sources read from
# the maybe read-only source tree, output in the stage) and the program that
# selects a carto component; sets example_so and driver.
build_example() {
    mkdir -p "$stage/example"
    run_logged "$stage/example-build.log" \
        "$MAKE" -C "$stage/example" -f "$top_srcdir/contrib/example-component/Makefile" CC="$CC"
    example_so=$stage/example/mca_carto_example.so
    [ -f "$example_so" ] || fail "the example's Makefile did not produce $example_so"
    driver=$stage/select_carto
    build_program "$driver" "$srcdir/select_carto.c"
}

# build_program OUTPUT SOURCE.c: a C program built with pkg-config's flags.  A
# program linked to a sanitized libmeridian must load the sanitizer runtime
# first, so it gets the same sanitizer flags.
build_program() {
    # shellcheck disable=SC2046,SC2086 # the flags are meant to split
    run_logged "$1-build.log" $CC $sanitizer_flags $($PKG_CONFIG --cflags meridian) \
        -o "$1" "$2" $($PKG_CONFIG --libs meridian)
}

info=$root$bindir/meridian_info

# Everything below runs the installed programs: their libmeridian is the
# staged one, HOME is empty and no param file is read.
export LD_LIBRARY_PATH="$root$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export HOME="$stage/home"
mkdir -p "$HOME"
export "${P}mca_base_param_files=none"

# check_example SO: the carto framework selects the example loaded from SO,
# and meridian_info lists it with its parameters and their sources.
check_example() {
    so=$1
    # Selected by name, its priority parameter set in the environment and
    # seen by its query hook, its module called.
    out=$stage/select.out
    err=$stage/select.err
    env "${P}carto=example" "${P}carto_base_verbose=info" "${P}carto_example_priority=77" \
        "${P}carto_example_slots=3" "$driver" >"$out" 2>"$err" || fail "$driver failed: $(cat "$err")"
    expect_line "$out" "selected: example"
    expect_line "$out" "vertices: 6"
    expect_line "$out" "Slot0 to MEM: MEM0:10 MEM1:30 MEM2:30"
    expect_line "$err" "meridian: carto: component example offers a module with priority 77"
    expect_line "$err" "meridian: carto: component example mapped the host: 6 vertices, 12 edges"

    # Its enable parameter makes query decline: nothing is left to select.
    rc=0
    env "${P}carto=example" "${P}carto_example_enable=false" "$driver" >"$out" 2>"$err" || rc=$?
    [ $rc -eq 2 ] || fail "with carto_example_enable=false, $driver exited $rc, expected 2"
    expect_line "$out" "selected: none (not found)"
    # (The components installed beside it are not selected: named after it.)
    grep -qE '^meridian: error: no carto component is available: example declined \(not available\)(; not selected: [a-z_, ]+)?$' "$err" ||
        fail "with carto_example_enable=false, no error saying example declined in $err"

    out=$stage/info.out
    err=$stage/info.err

    "$info" --all --parsable >"$out" 2>"$err" || fail "meridian_info --all --parsable failed: $(cat "$err")"
    [ ! -s "$err" ] || fail "meridian_info complained: $(cat "$err")"
    expect_line "$out" "mca:carto:example:path:$so"
    expect_line "$out" "mca:carto:example:version:mca:1.0"
    expect_line "$out" "mca:carto:example:version:api:2.0.0"
    expect_line "$out" "mca:carto:example:version:component:1.0.0"
    expect_line "$out" "mca:carto:example:param:carto_example_priority:value:5"
    expect_line "$out" "mca:carto:example:param:carto_example_priority:source:default"
    expect_line "$out" "mca:carto:example:param:carto_example_priority:type:int"
    expect_line "$out" "mca:carto:example:param:carto_example_enable:value:true"
    expect_line "$out" "mca:carto:example:param:carto_example_enable:type:bool"

    "$info" --all --parsable --mca carto_example_priority 77 >"$out" 2>"$err" ||
        fail "meridian_info --mca carto_example_priority 77 failed: $(cat "$err")"
    expect_line "$out" "mca:carto:example:param:carto_example_priority:value:77"
    expect_line "$out" "mca:carto:example:param:carto_example_priority:source:command line"
}
