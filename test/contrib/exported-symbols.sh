#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Only Meridian's names leave its libraries, so that Meridian and Open MPI
# (whose libopen-pal exports mca_base_framework_open, mca_base_close, ...) can
# share a process:
#   - libmeridian, libqmp and libqmp_mpi export C names that begin with the
#     configured symbol prefix (meridian_ by default), QMP_* (libqmp), and C++ names in
#     namespace meridian; nothing else (no mca_*, no std:: or boost::
#     template instances);
#   - a component DSO exports its component struct and nothing else;
#   - every exported C name is listed in <meridian/rename.h>, and every name
#     listed there is exported, so --with-symbol-prefix renames them all.
#
# Needs from the environment (Makefile.am): top_builddir, top_srcdir,
# symbol_prefix (MERIDIAN_SYMBOL_PREFIX).
# shellcheck disable=SC2154 # lower-case names come from the environment
set -eu

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

libs="$top_builddir/.libs/libmeridian.so $top_builddir/.libs/libqmp.so"
for lib in $libs; do
    if [ ! -e "$lib" ]; then
        echo "SKIP: $lib was not built (--disable-shared): nothing is exported dynamically"
        exit 77
    fi
done

# QMP's MPI part, when it is built, exports its table only.
if [ -e "$top_builddir/.libs/libqmp_mpi.so" ]; then
    libs="$libs $top_builddir/.libs/libqmp_mpi.so"
fi

# exported FILE: the names FILE exports (defined, dynamic), one per line.
exported() {
    nm -D --defined-only "$1" | awk 'NF == 3 { print $3 }' | sort -u
}

# C++ names are judged by their demangled form.
cxx_ok='^(meridian::|typeinfo for meridian::|typeinfo name for meridian::|vtable for meridian::|VTT for meridian::|guard variable for meridian::|(non-)?virtual thunk to meridian::)'

bad=""
c_names=""
for lib in $libs; do
    for name in $(exported "$lib"); do
        case $name in
        "$symbol_prefix"*) c_names="$c_names $name" ;;
        QMP_*)
            [ "$(basename "$lib")" = libqmp.so ] || bad="$bad
  $(basename "$lib"): $name (QMP_ names belong to libqmp)"
            ;;
        _Z*) ;; # below, demangled all at once
        *) bad="$bad
  $(basename "$lib"): $name" ;;
        esac
    done
    # One c++filt for the library's C++ names (one per name took minutes
    # under a loaded machine).
    outside=$(exported "$lib" | grep '^_Z' | c++filt | grep -Ev "$cxx_ok" || true)
    [ -z "$outside" ] || bad="$bad
$(echo "$outside" | sed "s|^|  $(basename "$lib"): |")"
done
[ -z "$bad" ] || fail "names outside Meridian's namespace are exported:$bad"
[ -n "$c_names" ] || fail "no C name beginning with $symbol_prefix is exported by libmeridian"
echo "$c_names" | tr ' ' '\n' | grep -q "^${symbol_prefix}init\$" ||
    fail "${symbol_prefix}init (meridian_init) is not exported"

# Open MPI's names in particular.
for lib in $libs; do
    clash=$(exported "$lib" | grep -E '^(mca_|opal_|ompi_|orte_)' || true)
    [ -z "$clash" ] || fail "$(basename "$lib") exports names of Open MPI's namespaces: $clash"
done

# Each component DSO: its struct, named after its file, and nothing else.
count=0
for dso in "$top_builddir"/components/*/.libs/mca_*.so; do
    [ -e "$dso" ] || continue
    want=$(basename "$dso" .so)_component
    names=$(exported "$dso" | tr '\n' ' ')
    [ "$names" = "$want " ] || fail "$(basename "$dso") exports '$names', expected only $want"
    count=$((count + 1))
done

# rename.h and the exported C names are the same list (default prefix only:
# the list is written with meridian_).
if [ "$symbol_prefix" = meridian_ ]; then
    listed=$(sed -n 's/^#define \(meridian_[a-z0-9_]*\) MERIDIAN_NAME(.*$/\1/p' \
        "$top_srcdir/include/meridian/rename.h" | sort -u)
    actual=$(echo "$c_names" | tr ' ' '\n' | sed '/^$/d' | sort -u)
    missing=$(printf '%s\n' "$actual" | grep -vxF -e "$listed" || true)
    stale=$(printf '%s\n' "$listed" | grep -vxF -e "$actual" || true)
    [ -z "$missing" ] || fail "exported but not in include/meridian/rename.h (--with-symbol-prefix would miss them): $missing"
    [ -z "$stale" ] || fail "in include/meridian/rename.h but not exported: $stale"
fi

echo "PASS: libmeridian and libqmp export $(echo "$c_names" | wc -w) C names (${symbol_prefix}*), QMP_* and namespace meridian only; $count component DSOs export their struct only"
