#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Regenerate config/startup_functions.txt, the list of libmeridian's functions a
# process runs from meridian_init to its first answered query, which the
# link puts side by side at the front of the library's code.
#
# Why: the kernel maps a library's code into a process 64 KiB at a time
# around each page it touches.  Spread over libmeridian's 1.4 MB of code,
# the ~170 functions of a process's start-up touched 15 such windows: 1 MiB
# of resident size and 15 page faults in every process of a job, against
# 0.2-0.3 MiB when they sit together (about 200 KiB of code).  A name that no longer
# exists in the library is skipped by the link, so a stale list costs only
# pages, never correctness; regenerate it after changing the start-up path.
#
# How: bench-startup's launcher and leader paths at 10^3 processes, with one
# reader of each under callgrind collecting from meridian_init and
# meridian_coord_get_endpoints; every instruction address it saw in
# libmeridian names a function (nm).  Needs a built tree (build/, or
# --builddir DIR) and valgrind (Debian: apt-get install valgrind).
#   contrib/scripts/startup-order.sh [--builddir DIR]
# STARTUP_ORDER_KEEP=1 keeps the callgrind files (the path is printed).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
builddir=$top/build
if [ "${1:-}" = "--builddir" ]; then
    builddir=$(cd "$2" && pwd)
fi
command -v valgrind >/dev/null 2>&1 ||
    { echo "startup-order.sh: valgrind not found (Debian: apt-get install valgrind)" >&2; exit 1; }
library=$builddir/.libs/libmeridian.so
[ -e "$library" ] || { echo "startup-order.sh: no $library (build first)" >&2; exit 1; }
make -C "$builddir/test/bench" bench_startup bench_alloc >/dev/null

work=$(mktemp -d "${TMPDIR:-/tmp}/startup-order.XXXXXX")
trap '[ -n "${STARTUP_ORDER_KEEP:-}" ] && echo "callgrind files kept in $work" || rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
BENCH_STARTUP_WRAP="valgrind --tool=callgrind --dump-instr=yes --compress-pos=no \
--compress-strings=no --collect-atstart=no --toggle-collect=meridian_init \
--toggle-collect=meridian_coord_get_endpoints --callgrind-out-file=$work/cg.%p" \
    make -C "$builddir/test/bench" bench-startup BENCH_STARTUP_SIZES=1000 BENCH_STARTUP_RUNS=1 \
    >"$work/bench.log" 2>&1 || { cat "$work/bench.log" >&2; exit 1; }

# Instruction addresses in libmeridian (callgrind writes them relative to
# the object, in hex; here in decimal, since mawk has no strtonum).
awk 'function hex(s,    i, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
                                for (i = 1; i <= length(s); ++i) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
                                return v }
     /^ob=/ { in_lib = ($0 ~ /libmeridian\.so/); next }
     in_lib && /^0x/ { printf "%.0f\n", hex($1) }' "$work"/cg.* | sort -n -u >"$work/addresses"
[ -s "$work/addresses" ] || { echo "startup-order.sh: callgrind saw no libmeridian code" >&2; exit 1; }
# The functions holding them, every alias of each (nm's fixed-width
# decimal sorts as text).
nm -t d -S --defined-only "$(readlink -f "$library")" | awk 'NF == 4 && $3 ~ /^[tTwW]$/' | sort >"$work/symbols"
# What the link cannot place: functions libc_nonshared.a links into the
# library (atexit), from an archive built without a section per function.
nonshared=$("${CC:-cc}" -print-file-name=libc_nonshared.a 2>/dev/null || true)
: >"$work/unplaceable"
if [ -f "$nonshared" ]; then
    nm --defined-only "$nonshared" 2>/dev/null | awk '$2 ~ /^[tTwW]$/ { print $3 }' >"$work/unplaceable"
fi
echo "startup-order.sh: never-listed" >>"$work/unplaceable" # grep -f needs a line
out=$top/config/startup_functions.txt
{
    echo "# libmeridian's start-up functions (meridian_init to a first answered query),"
    echo "# put side by side at the front of its code when it is linked"
    echo "# (config/startup-layout.sh); made by contrib/scripts/startup-order.sh,"
    echo "# which says why.  One symbol per line, as the compiler names it."
    # Both lists by address, walked side by side.
    awk 'FNR == NR { start[n] = $1 + 0; end[n] = start[n] + $2; name[n++] = $4; next }
         { a = $1 + 0
           while (j < n && end[j] <= a) ++j
           for (k = j; k < n && start[k] <= a; ++k) if (a < end[k]) print name[k] }' \
        "$work/symbols" "$work/addresses" | LC_ALL=C sort -u | sed "/^$/d" |
        grep -vxF -f "$work/unplaceable"
} >"$out.new"
mv "$out.new" "$out"
echo "$out: $(grep -vc '^#' "$out") functions"
