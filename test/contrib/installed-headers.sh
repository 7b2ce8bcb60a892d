#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# What `make install` gives third parties is enough to build against Meridian:
# meridian.pc describes this build, every installed header compiles on its own
# as <meridian/...> with pkg-config's flags (.h as C11 and C++20, .hpp as
# C++20), also with Open MPI's include directories (which hold opal/ headers
# of the same paths) searched first; a C++ header under C++17 stops with
# Meridian's own message; a program built with pkg-config's flags runs
# against the installed library.
# shellcheck source=test/contrib/stage.sh disable=SC2154 # stage.sh and Makefile.am set them
. "$srcdir/stage.sh"

version=$($PKG_CONFIG --modversion meridian)
[ "$version" = "$PACKAGE_VERSION" ] ||
    fail "meridian.pc has version $version, this build is $PACKAGE_VERSION"
# pkgconf puts PKG_CONFIG_SYSROOT_DIR in front of paths; pkg-config does not.
componentdir=$($PKG_CONFIG --variable=componentdir meridian)
[ "$componentdir" = "$pkglibdir" ] || [ "$componentdir" = "$root$pkglibdir" ] ||
    fail "meridian.pc has componentdir=$componentdir, components install in $pkglibdir"

incdir=$root$includedir/meridian
headers=$(cd "$incdir" && find . -name '*.h' -o -name '*.hpp' | sed 's|^\./||' | sort)
# What a component and a program that starts Meridian include.
for needed in meridian.h meridian.hpp rename.h meridian_config.h opal/mca/mca.h opal/mca/base/mca_base_param.h opal/mca/base/mca_base_framework.h \
    opal/mca/base/mca_base.h opal/util/error.h mca/runtime/meridian.h mca/carto/carto.h \
    mca/pnet/pnet.h mca/coord/coord.h mca/msg/msg.h; do
    echo "$headers" | grep -qxF "$needed" || fail "$needed is not installed in $incdir"
done

cflags=$($PKG_CONFIG --cflags meridian)
case " $cflags " in
*"/meridian "*) fail "pkg-config --cflags meridian points into include/meridian ($cflags): headers are included as <meridian/...>" ;;
esac
# Open MPI's development headers include opal/util/error.h, opal/mca/mca.h ...
# of the same relative paths: searched first, they must not be picked up.
ompi_dirs=""
for d in /usr/lib/x86_64-linux-gnu/openmpi/include/openmpi /usr/lib/x86_64-linux-gnu/openmpi/include \
    /usr/include/openmpi; do
    [ -d "$d" ] && ompi_dirs="$ompi_dirs -I$d"
done
cflags="$ompi_dirs $cflags"
count=0
for header in $headers; do
    # (a declaration, for the headers that only define macros: C forbids an empty unit)
    printf '#include <meridian/%s>\ntypedef int header_check_t;\n' "$header" >"$stage/header.c"
    cp "$stage/header.c" "$stage/header.cc"
    # shellcheck disable=SC2086 # the flags are meant to split
    case $header in
    *.h)
        $CC -std=c11 -Wall -Wextra -pedantic -Werror -fsyntax-only $cflags "$stage/header.c" \
            >"$stage/header.log" 2>&1 ||
            { cat "$stage/header.log" >&2; fail "$header does not compile alone as C11"; }
        ;;
    esac
    # shellcheck disable=SC2086
    $CXX -std=c++20 -Wall -Wextra -Werror -fsyntax-only $cflags "$stage/header.cc" \
        >"$stage/header.log" 2>&1 ||
        { cat "$stage/header.log" >&2; fail "$header does not compile alone as C++20"; }
    count=$((count + 1))
done

# A C++ header under an older standard: one clear line, not an error deep
# inside <span>.
printf '#include <meridian/meridian.hpp>\n' >"$stage/cxx17.cc"
# shellcheck disable=SC2086
if $CXX -std=c++17 -fsyntax-only $cflags "$stage/cxx17.cc" >"$stage/cxx17.log" 2>&1; then
    fail "<meridian/meridian.hpp> compiled under -std=c++17"
fi
grep -q "Meridian's C++ headers need C++20: compile with -std=c++20" "$stage/cxx17.log" || {
    cat "$stage/cxx17.log" >&2
    fail "under -std=c++17 the first error is not Meridian's 'need C++20' message"
}
grep -m1 'error:' "$stage/cxx17.log" | grep -q 'need C++20' ||
    fail "the C++20 message is not the first error under -std=c++17: $(grep -m1 'error:' "$stage/cxx17.log")"

build_program "$stage/meridian_version" "$srcdir/meridian_version.c"
found=$("$stage/meridian_version") || fail "$stage/meridian_version failed"
[ "$found" = "$PACKAGE_VERSION" ] ||
    fail "the installed library says version $found, expected $PACKAGE_VERSION"
echo "PASS: meridian.pc and the $count installed headers build against the installed library"
