#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Makes one of Meridian's CMake package files from its template:
#
#   generate.sh TEMPLATE OUTPUT CMAKEDIR PREFIXVAR [LIBRARY.la] [NAME=VALUE...]
#
# CMAKEDIR is where OUTPUT is installed (LIBDIR/cmake/PACKAGE); the file
# finds the install prefix from there, so a moved installation still works:
# @CMAKE_TO_PREFIX@ becomes the relative path from CMAKEDIR to the prefix,
# and @PREFIX_LIBDIR@, @PREFIX_INCLUDEDIR@, @PREFIX_COMPONENTDIR@ the
# directories as ${PREFIXVAR}/... (absolute when outside the prefix).  From
# LIBRARY.la (libtool's description of the built library): @LIBRARY_KIND@
# (SHARED, or STATIC when only the archive is built), @LIBRARY_FILE@ and
# @LIBRARY_SONAME@.  Each NAME=VALUE replaces @NAME@; STATIC_LIBS (link
# flags, split at spaces) becomes a CMake list.  Environment: prefix,
# libdir, includedir, componentdir (make's, expanded).  Called by
# contrib/cmake/Makefile.inc.
# shellcheck disable=SC2154 # prefix, libdir, includedir: from the environment
set -eu

[ $# -ge 4 ] || {
    echo "usage: generate.sh TEMPLATE OUTPUT CMAKEDIR PREFIXVAR [LIBRARY.la] [NAME=VALUE...]" >&2
    exit 2
}
template=$1 output=$2 cmakedir=$3 var=$4
shift 4

# under_prefix DIR: ${VAR}/REST when DIR is the prefix or below it, else DIR.
under_prefix() {
    case $1 in
    "$prefix") echo "\${$var}" ;;
    "$prefix"/*) echo "\${$var}/${1#"$prefix"/}" ;;
    *) echo "$1" ;;
    esac
}

to_prefix=$(realpath -m --relative-to="$cmakedir" "$prefix")
script="s|@CMAKE_TO_PREFIX@|$to_prefix|g
s|@PREFIX_LIBDIR@|$(under_prefix "$libdir")|g
s|@PREFIX_INCLUDEDIR@|$(under_prefix "$includedir")|g
s|@PREFIX_COMPONENTDIR@|$(under_prefix "${componentdir:-$libdir}")|g"

if [ $# -gt 0 ]; then
    case $1 in
    *.la)
        la=$1
        shift
        dlname=$(sed -n "s/^dlname='\(.*\)'\$/\1/p" "$la")
        names=$(sed -n "s/^library_names='\(.*\)'\$/\1/p" "$la")
        archive=$(sed -n "s/^old_library='\(.*\)'\$/\1/p" "$la")
        if [ -n "$dlname" ]; then
            kind=SHARED file=${names%% *} soname=$dlname
        elif [ -n "$archive" ]; then
            kind=STATIC file=$archive soname=
        else
            echo "generate.sh: $la names no shared library and no archive" >&2
            exit 1
        fi
        script="$script
s|@LIBRARY_KIND@|$kind|g
s|@LIBRARY_FILE@|$file|g
s|@LIBRARY_SONAME@|$soname|g"
        ;;
    esac
fi

for assignment in "$@"; do
    name=${assignment%%=*}
    value=${assignment#*=}
    if [ "$name" = STATIC_LIBS ]; then
        # shellcheck disable=SC2086 # split into words, joined by ';'
        value=$(printf '%s\n' $value | paste -sd ';' -)
    fi
    script="$script
s|@$name@|$value|g"
done

sed "$script" "$template" >"$output.tmp"
if grep -n '@[A-Z_]*@' "$output.tmp" >&2; then
    echo "generate.sh: $output: the lines above hold a name nobody replaced" >&2
    rm -f "$output.tmp"
    exit 1
fi
mv "$output.tmp" "$output"
