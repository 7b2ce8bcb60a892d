#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Benchmark: wall time of `meridian_info --all --parsable` against Open MPI's
# `ompi_info --all --parsable`.  Goal: meridian_info takes at most 1/10 of
# ompi_info's time.  Not part of `make check`; run it with
#
#   make -C test/bench bench          (from the build directory)
#   make -C test/bench bench BENCH_RUNS=31 BENCH_DSOS=200
#
# meridian_info is measured as installed (make install DESTDIR=<temp>) with
#   1. the components of this build, as DSOs (its own component directory);
#   2. the same plus BENCH_DSOS generated carto components (default: as many
#      DSOs as ompi_info opens, with about as many parameters each), so the
#      two tools are also compared at an equal number of DSOs.
# Each command runs BENCH_WARMUP times untimed, then BENCH_RUNS times; the
# table shows the median, min and max wall times, the DSOs each run opened
# (counted with LD_DEBUG=files) and the parameters it printed.
#
# Environment (set by test/bench/Makefile.am): MAKE, CC, top_builddir,
# srcdir, libdir, bindir, pkglibdir, ompi_info (may be empty), and
# optionally BENCH_RUNS (15), BENCH_WARMUP (2), BENCH_DSOS, BENCH_PARAMS,
# BENCH_KEEP (1: keep the work directory).
# shellcheck disable=SC2154 # lower-case names come from the environment
set -eu

runs=${BENCH_RUNS:-15}
warmup=${BENCH_WARMUP:-2}

fail() {
    echo "run-info-bench: $*" >&2
    exit 1
}

work=$(mktemp -d "${TMPDIR:-/tmp}/meridian-bench.XXXXXX")
# BENCH_KEEP=1 keeps the installed tree and the generated DSOs, for profiling.
if [ "${BENCH_KEEP:-0}" = 1 ]; then
    trap 'echo "work files kept in $work"' EXIT
else
    trap 'rm -rf "$work"' EXIT
fi
unset MAKEFLAGS MFLAGS MAKELEVEL

echo "Installing this build under $work/root ..."
"$MAKE" -C "$top_builddir" install DESTDIR="$work/root" >"$work/install.log" 2>&1 ||
    { tail -n 30 "$work/install.log" >&2; fail "make install failed"; }
root=$work/root
info=$root$bindir/meridian_info
export PKG_CONFIG_SYSROOT_DIR="$root" PKG_CONFIG_PATH="$root$libdir/pkgconfig"
P=$(pkg-config --variable=envprefix meridian)

"$CC" -O2 -o "$work/bench_time" "$srcdir/bench_time.c" || fail "cannot build bench_time"

# ompi_info's DSO and parameter counts set the size of the generated set.
dso_count() { # COMMAND...: distinct mca_*.so files the dynamic loader opened
    LD_DEBUG=files "$@" 2>&1 >/dev/null |
        sed -n 's/.*file=\([^ ]*\/mca_[^ /]*\.so\) .*dynamically loaded.*/\1/p' | sort -u | wc -l
}
param_count() { # COMMAND...: parameters listed (one value line each)
    "$@" 2>/dev/null | grep -c '^mca:[^:]*:[^:]*:param:[^:]*:value:' || true
}
if [ -n "${ompi_info:-}" ] && [ -x "$ompi_info" ]; then
    ompi_dsos=$(dso_count "$ompi_info" --all --parsable)
    ompi_params=$(param_count "$ompi_info" --all --parsable)
else
    ompi_info=
    ompi_dsos=0
    ompi_params=0
fi
[ "$ompi_dsos" -gt 0 ] && default_dsos=$ompi_dsos || default_dsos=120
ndsos=${BENCH_DSOS:-$default_dsos}
[ "$ompi_dsos" -gt 0 ] && default_params=$(((ompi_params + ompi_dsos / 2) / ompi_dsos)) || default_params=16
nparams=${BENCH_PARAMS:-$default_params}

echo "Building $ndsos carto components with $nparams parameters each ..."
mkdir -p "$work/generated"
i=1
while [ "$i" -le "$ndsos" ]; do
    printf 'bench%03d\n' "$i"
    i=$((i + 1))
done >"$work/names"
# shellcheck disable=SC2046 # pkg-config's flags are meant to split
xargs -P 2 -I @ "$CC" -O2 -shared -fPIC -fvisibility=hidden \
    -DBENCH_NAME=@ -DBENCH_PARAMS="$nparams" $(pkg-config --cflags meridian) \
    -o "$work/generated/mca_carto_@.so" "$srcdir/bench_component.c" \
    $(pkg-config --libs meridian) <"$work/names" || fail "cannot build the generated components"

# meridian_info runs with its staged library, an empty HOME and no param files.
export LD_LIBRARY_PATH="$root$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export HOME="$work/home"
mkdir -p "$HOME"
export "${P}mca_base_param_files=none"
tree_path=$root$pkglibdir
all_path=$root$pkglibdir:$work/generated

# measure LABEL COMPONENT_PATH COMMAND...: one row of the table.
rows=$work/rows
: >"$rows"
measure() {
    label=$1
    path=$2
    shift 2
    if [ -n "$path" ]; then
        set -- env "${P}mca_base_component_path=$path" "$@"
    fi
    echo "Timing $label ..."
    dsos=$(dso_count "$@")
    params=$(param_count "$@")
    times=$("$work/bench_time" "$runs" "$warmup" "$@") || fail "$label did not run cleanly"
    echo "$label|$dsos|$params|$times" >>"$rows"
}

[ -z "$ompi_info" ] || measure "ompi_info --all --parsable" "" "$ompi_info" --all --parsable
measure "meridian_info --all --parsable" "$tree_path" "$info" --all --parsable
measure "meridian_info, +$ndsos generated DSOs" "$all_path" "$info" --all --parsable

echo
echo "Wall time of $runs runs after $warmup warm-up runs, in ms ($(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg))"
awk -F'|' -v goal=0.1 '
    { label[NR] = $1; dsos[NR] = $2; params[NR] = $3; split($4, t, " ");
      median[NR] = t[1]; min[NR] = t[2]; max[NR] = t[3];
      if ($1 ~ /^ompi_info/) ompi = NR }
    END {
        printf "%-40s %5s %7s %9s %9s %9s %12s\n", "command", "DSOs", "params", "median", "min", "max", "vs ompi_info"
        for (i = 1; i <= NR; ++i) {
            ratio = "-"
            if (ompi && i != ompi && median[ompi] > 0 && median[i] > 0)
                ratio = sprintf("%.3f (1/%.0f)", median[i] / median[ompi], median[ompi] / median[i])
            printf "%-40s %5d %7d %9.1f %9.1f %9.1f %12s\n", label[i], dsos[i], params[i], median[i], min[i], max[i], ratio
        }
        if (!ompi) { print "ompi_info was not found: no ratio (configure looks for it in PATH)"; exit }
        printf "goal: meridian_info at most 1/10 of ompi_info (ratio <= %.2f):", goal
        met = 1
        for (i = 1; i <= NR; ++i)
            if (i != ompi && median[i] / median[ompi] > goal) met = 0
        print met ? " met in every row" : " NOT met"
    }' "$rows"
