#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# configure's options for dependencies and components, as HPC libraries have
# them, are honoured and reported in its summary; bad values are refused with
# a message that says what was expected:
#   --without-ucx / --without-hwloc     the components that need them are not built;
#   --with-hwloc=DIR                    DIR's pkg-config file, or DIR/include
#                                       and DIR/lib checked by hand;
#   --enable-mca-no-build=LIST          those components are not built;
#   --with-symbol-prefix, --with-component-dir, --enable-embedded-mode.
# Only configure runs (no build), each in a scratch directory.
#
# Needs from the environment (Makefile.am): top_srcdir.
# shellcheck disable=SC2154 # lower-case names come from the environment
set -eu

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

work=$(mktemp -d "${TMPDIR:-/tmp}/meridian-configure.XXXXXX")
trap 'rc=$?; if [ $rc -eq 0 ]; then rm -rf "$work"; else echo "work files kept in $work" >&2; fi' EXIT
unset MAKEFLAGS MFLAGS MAKELEVEL

# The options do not depend on how this tree was configured, so CI runs this
# in one build only and sets MERIDIAN_TEST_CONFIGURE=no in the others.
if [ "${MERIDIAN_TEST_CONFIGURE:-yes}" = no ]; then
    echo "SKIP: MERIDIAN_TEST_CONFIGURE=no (configure's options are tested in another build)"
    exit 77
fi

# run_configure NAME ARGS...: configure in $work/NAME; output in $work/NAME.log.
# The runs share a cache of the compiler's answers (not those of the
# --with-hwloc=DIR runs, whose header and library checks must be their own).
run_configure() {
    name=$1
    shift
    mkdir -p "$work/$name"
    case $name in
    dirpc | hand | empty) cache=/dev/null ;;
    *) cache=$work/config.cache ;;
    esac
    (cd "$work/$name" && "$top_srcdir/configure" --cache-file="$cache" --disable-dependency-tracking \
        --enable-werror "$@") >"$work/$name.log" 2>&1
}

# expect LOG PATTERN WHAT: LOG holds a line matching PATTERN (grep -E).
expect() {
    grep -Eq -- "$2" "$1" || {
        tail -n 40 "$1" >&2
        fail "$3: no line matching '$2' in $1"
    }
}

# refused NAME MESSAGE ARGS...: configure fails, saying MESSAGE (grep -F).
refused() {
    name=$1
    message=$2
    shift 2
    if run_configure "$name" "$@"; then
        fail "configure $* succeeded; expected it to refuse with '$message'"
    fi
    grep -qF -- "$message" "$work/$name.log" || {
        tail -n 5 "$work/$name.log" >&2
        fail "configure $* did not say '$message'"
    }
    echo "ok: configure $* is refused: $(grep -F -- "$message" "$work/$name.log" | head -n 1)"
}

# Dependencies and components switched off.
run_configure off --without-ucx --without-hwloc --enable-mca-no-build=coord-torus,carto_file \
    --disable-startup-layout ||
    fail "configure --without-ucx --without-hwloc --enable-mca-no-build=... --disable-startup-layout failed (see $work/off.log)"
log=$work/off.log
expect "$log" '^  UCX +no \(--without-ucx\)$' "--without-ucx in the summary"
expect "$log" '^  hwloc +no \(--without-hwloc\)$' "--without-hwloc in the summary"
expect "$log" '^  pnet/ucx \(pnet_ucx\) +no: configure was run --without-ucx$' "pnet_ucx not built"
expect "$log" '^  carto/auto \(carto_auto\) +no: configure was run --without-hwloc$' "carto_auto not built"
expect "$log" '^  coord/torus \(coord_torus\) +no: excluded by --enable-mca-no-build$' "coord_torus not built"
expect "$log" '^  carto/file \(carto_file\) +no: excluded by --enable-mca-no-build$' "carto_file not built (by directory name)"
expect "$log" '^  pnet/tcp \(pnet_tcp\) +yes' "pnet_tcp still built"
expect "$log" '^  components not built +coord_torus carto_file \(--enable-mca-no-build\)$' "the no-build list in the summary"
# And in what make builds.
grep -q '^S\["MCA_BUILD_pnet_ucx_TRUE"\]="#"' "$work/off/config.status" ||
    fail "--without-ucx: the Makefile still builds pnet_ucx"
grep -q '^S\["MCA_BUILD_pnet_tcp_TRUE"\]=""' "$work/off/config.status" ||
    fail "the Makefile no longer builds pnet_tcp"
grep -q '^HWLOC_LIBS = $' "$work/off/Makefile" || fail "--without-hwloc: HWLOC_LIBS is not empty"
expect "$log" '^  start-up layout +no ordering, own calls bound on use \(--disable-startup-layout\)$' \
    "--disable-startup-layout in the summary"
grep -q '^S\["MERIDIAN_STARTUP_ORDER_TRUE"\]="#"' "$work/off/config.status" ||
    fail "--disable-startup-layout: libmeridian is still linked with its start-up functions first"
echo "ok: --without-ucx, --without-hwloc, --enable-mca-no-build and --disable-startup-layout are honoured and reported"

# --with-hwloc=DIR: a prefix with a pkg-config file, and one without (headers
# and library checked by hand).
hwloc_pc=$(pkg-config --variable=pcfiledir hwloc 2>/dev/null || true)
hwloc_lib=$(pkg-config --variable=libdir hwloc 2>/dev/null || true)
hwloc_inc=$(pkg-config --variable=includedir hwloc 2>/dev/null || true)
if [ -n "$hwloc_pc" ] && [ -f "$hwloc_inc/hwloc.h" ] && [ -e "$hwloc_lib/libhwloc.so" ]; then
    withpc=$work/prefix-pc
    mkdir -p "$withpc/lib/pkgconfig"
    sed "s|^prefix=.*|prefix=$withpc|" "$hwloc_pc/hwloc.pc" >"$withpc/lib/pkgconfig/hwloc.pc"
    run_configure dirpc --with-hwloc="$withpc" --without-ucx ||
        fail "configure --with-hwloc=$withpc failed (see $work/dirpc.log)"
    expect "$work/dirpc.log" "^  hwloc +yes \\([0-9.]+, from $withpc\\)\$" "--with-hwloc=DIR with a pkg-config file"

    byhand=$work/prefix-hand
    mkdir -p "$byhand/include" "$byhand/lib"
    ln -s "$hwloc_inc/hwloc.h" "$byhand/include/hwloc.h"
    ln -s "$hwloc_inc/hwloc" "$byhand/include/hwloc"
    ln -s "$hwloc_lib/libhwloc.so" "$byhand/lib/libhwloc.so"
    run_configure hand --with-hwloc="$byhand" --without-ucx ||
        fail "configure --with-hwloc=$byhand failed (see $work/hand.log)"
    expect "$work/hand.log" "^  hwloc +yes \\(from $byhand\\)\$" "--with-hwloc=DIR without a pkg-config file"
    grep -q "^HWLOC_LIBS = -L$byhand/lib .*-lhwloc\$" "$work/hand/Makefile" ||
        fail "--with-hwloc=$byhand: HWLOC_LIBS does not point into $byhand/lib"
    echo "ok: --with-hwloc=DIR takes DIR's pkg-config file, or DIR/include and DIR/lib"
    mkdir -p "$work/prefix-empty/include"
    refused empty "--with-hwloc=$work/prefix-empty: $work/prefix-empty/include/hwloc.h was not found" \
        --with-hwloc="$work/prefix-empty"
else
    echo "SKIP part: --with-hwloc=DIR (hwloc's pkg-config file, header or library not found here)"
fi

# Bad values: one message each, saying what was expected.
refused nodir "--with-ucx=/nonexistent/ucx: no such directory" --with-ucx=/nonexistent/ucx
refused nobuild "--enable-mca-no-build: 'pnet-nosuch' names no framework or component; known:" \
    --enable-mca-no-build=pnet-nosuch
refused prefix "--with-symbol-prefix=9bad: a C identifier is expected" --with-symbol-prefix=9bad
refused compdir "--with-component-dir needs a directory" --with-component-dir
refused embedded "--enable-embedded-mode=maybe: expected yes or no" --enable-embedded-mode=maybe

echo "PASS: configure's dependency and component options are honoured, reported, and checked"
