#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Embedded builds: turn the static libmeridian (a libtool convenience
# archive) into one relocatable object whose only exported names are the
# C API's, so that a shared library of the outer project that links it
# exports nothing else of Meridian's.
#
#   config/embedded-isolate.sh LD OBJCOPY READELF AR RANLIB PREFIX ARCHIVE
#
# Meridian's own code is compiled hidden (configure.ac); what is left with
# default visibility are the standard library's and Boost's template
# instances over their own types (std::vector<std::string>, ...), which
# visibility cannot reach, and the C API.  The archive's objects are linked
# into one (ld -r), with their section groups resolved there, so that each
# instance is one ordinary definition inside; every default-visibility
# definition whose name does not begin with PREFIX is then made local.  The
# hidden ones stay global (weak where they were one per process): the outer
# project's own code still links Meridian's C++ API.
set -eu
[ $# -eq 7 ] || { echo "usage: $0 LD OBJCOPY READELF AR RANLIB PREFIX ARCHIVE" >&2; exit 2; }
ld=$1 objcopy=$2 readelf=$3 ar=$4 ranlib=$5 prefix=$6 archive=$7
work=$archive.isolate
rm -rf "$work"
mkdir "$work"
trap 'rm -rf "$work"' EXIT
# $ld holds its options too ("ld -m elf_x86_64").
# shellcheck disable=SC2086
$ld -r --force-group-allocation --whole-archive "$archive" --no-whole-archive -o "$work/meridian.o"
$readelf -sW "$work/meridian.o" |
    awk -v prefix="$prefix" '($5 == "GLOBAL" || $5 == "WEAK" || $5 == "UNIQUE") && $6 == "DEFAULT" &&
                             $7 != "UND" && index($8, prefix) != 1 { print $8 }' | sort -u >"$work/localize"
# A static of an inline function (GNU unique binding, which objcopy does not
# make local) is first made weak: out of its group, one of Meridian's own
# that stays global may meet the same one in a group of the outer project's
# code, and the two are then one object, as they must be.
$readelf -sW "$work/meridian.o" |
    awk '$5 == "UNIQUE" && $7 != "UND" { print $8 }' | sort -u >"$work/weaken"
$objcopy --weaken-symbols="$work/weaken" "$work/meridian.o"
$objcopy --localize-symbols="$work/localize" "$work/meridian.o"
# What stays visible: the prefixed C API, which must be there.
visible=$($readelf -sW "$work/meridian.o" |
    awk '($5 == "GLOBAL" || $5 == "WEAK") && $6 == "DEFAULT" && $7 != "UND"' | wc -l)
if [ "$visible" -eq 0 ]; then
    echo "$0: no name of the C API ($prefix*) is left in $archive" >&2
    exit 1
fi
rm -f "$archive"
$ar cr "$archive" "$work/meridian.o"
$ranlib "$archive"
echo "embedded-isolate: $archive is one object; $visible names of the C API visible, $(wc -l <"$work/localize") made local"
