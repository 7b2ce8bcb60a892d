#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# What a process pays to start libmeridian depends on how it was linked
# (configure.ac, config/startup-layout.sh):
#   - with -Bsymbolic-functions, libmeridian's calls to its own exported
#     functions are bound at link time: none of them has a PLT slot, which
#     the dynamic linker would resolve on the first call in every process;
#   - with the start-up layout, the functions listed in
#     config/startup_functions.txt come first in .text, before every other
#     function, so a process's start-up maps a few 64 KiB windows of code,
#     not most of the library.  The list names the entry points a process
#     starts with, or it is stale.
#
# Needs from the environment (Makefile.am): top_builddir, top_srcdir,
# startup_order and bsymbolic (configure's yes/no).
# shellcheck disable=SC2154 # lower-case names come from the environment
set -eu

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

lib=$top_builddir/.libs/libmeridian.so
if [ ! -e "$lib" ]; then
    echo "SKIP: $lib was not built (--disable-shared or embedded)"
    exit 77
fi
if [ "$startup_order" != yes ] && [ "$bsymbolic" != yes ]; then
    echo "SKIP: configure chose neither layout (--disable-startup-layout, or the linker cannot)"
    exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/startup-layout.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ "$bsymbolic" = yes ]; then
    nm -D --defined-only "$lib" | awk '$2 ~ /^[TW]$/ { print $3 }' | sort -u >"$work/own"
    readelf -rW "$lib" | awk '$3 ~ /JUMP_SLOT/ { sub(/@.*/, "", $5); print $5 }' | sort -u >"$work/plt"
    [ -s "$work/own" ] || fail "nm found no function exported by $lib"
    slots=$(comm -12 "$work/own" "$work/plt")
    [ -z "$slots" ] || fail "-Bsymbolic-functions: libmeridian calls $(echo "$slots" | wc -l) of its own functions through the PLT, e.g. $(echo "$slots" | head -3 | tr '\n' ' ')"
    echo "ok: none of the $(wc -l <"$work/own") functions libmeridian exports has a PLT slot in it"
fi

if [ "$startup_order" = yes ]; then
    list=$top_srcdir/config/startup_functions.txt
    for entry in meridian_init meridian_mca_base_open meridian_coord_get_endpoints; do
        grep -qx "$entry" "$list" ||
            fail "$list lacks $entry: regenerate it with contrib/scripts/startup-order.sh"
    done
    sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$list" | sort -u >"$work/listed"
    # Every function in .text, listed or not, by address (mawk has no strtonum).
    text=$(readelf -SW "$lib" | sed -n 's/^ *\[ *[0-9]*\] *\.text  *PROGBITS  *\([0-9a-f]*\)  *[0-9a-f]*  *\([0-9a-f]*\).*/\1 \2/p')
    [ -n "$text" ] || fail "readelf found no .text in $lib"
    nm -S --defined-only "$lib" | awk 'NF == 4 && $3 ~ /^[tTwW]$/ { print $1, $2, $4 }' >"$work/functions"
    verdict=$(awk -v text="$text" '
        function hex(s,    i, v) { v = 0; s = tolower(s)
                                   for (i = 1; i <= length(s); ++i) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
                                   return v }
        BEGIN { split(text, t, " "); lo = hex(t[1]); hi = lo + hex(t[2]) }
        FNR == 1 { ++pass }
        # (the base-object constructor or destructor of a listed complete
        # one goes with it: config/startup-layout.sh)
        pass == 1 { listed[$1] = 1; base = $1
                    if (sub(/C1E/, "C2E", base) || sub(/D1E/, "D2E", base)) listed[base] = 1
                    next }
        pass == 2 { ++seen[$3]; next }
        # A local name several objects define (a clone of the same inline
        # function, hot in one, cold in another) says nothing either way.
        seen[$3] > 1 { next }
        # NAME.localalias (-fno-semantic-interposition: the name the
        # library calls its own NAME by) is NAME, at the same address.
        { a = hex($1); if (a < lo || a >= hi) next
          name = $3; alias = sub(/\.localalias$/, "", name)
          if (name in listed) { if (!alias) ++nl; if (a + hex($2) > last_listed) last_listed = a + hex($2) }
          else if (first_other == 0 || a < first_other) { first_other = a; other = $3 } }
        END { if (nl < 3) { print "only " nl " listed functions are in .text"; exit }
              if (last_listed > first_other) { printf "%s at 0x%x comes before the end of the listed functions (0x%x)\n", other, first_other, last_listed; exit }
              printf "ok %d %d\n", nl, last_listed - lo }' "$work/listed" "$work/functions" "$work/functions")
    case $verdict in
    ok\ *)
        set -- $verdict
        echo "ok: the $2 listed functions take the first $(($3 / 1024)) KiB of .text, before every other function"
        ;;
    *) fail "start-up layout: $verdict" ;;
    esac
fi
