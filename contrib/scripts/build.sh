#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Generate, configure and build Meridian out of tree.
#   contrib/scripts/build.sh [--builddir DIR] [--quiet] [--no-tests] [configure options...]
# Default build dir: build/ at the top of the tree, installing into build/prefix.
#   --quiet     the tools' output goes to DIR/build.log; the terminal gets one
#               progress line (updated in place on a terminal), and the log's
#               last lines when a step fails
#   --no-tests  build what is installed, not the test tree's support library
# Warnings are errors where the compilers are known (CI=true, as CI runs it,
# or MERIDIAN_WERROR=yes); elsewhere a compiler newer than CI's may warn
# about what it did not, and the build goes on.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
builddir="$top/build"
quiet=no
subdirs=()
while [ $# -gt 0 ]; do
    case "$1" in
    --builddir)
        builddir=$2
        shift 2
        ;;
    --quiet)
        quiet=yes
        shift
        ;;
    --no-tests)
        subdirs=(SUBDIRS=.)
        shift
        ;;
    *) break ;;
    esac
done
case "$builddir" in /*) ;; *) builddir="$top/$builddir" ;; esac
mkdir -p "$builddir"
log=$builddir/build.log

# A step, with its output in the log when quiet.
step() {
    if [ "$quiet" = no ]; then
        "$@"
        return
    fi
    if ! "$@" >>"$log" 2>&1; then
        printf '\n' >&2
        echo "build: '$*' failed; the end of $log:" >&2
        tail -n 40 "$log" >&2
        exit 1
    fi
}

# While make runs quietly: how many files it has compiled and linked.
progress() {
    local pid=$1 done=0 last=-1
    while kill -0 "$pid" 2>/dev/null; do
        done=$(grep -cE '^  (CC|CXX|CCLD|CXXLD|GEN) ' "$log" || true)
        if [ -t 1 ]; then
            printf '\rbuilding Meridian: %d files compiled or linked (log: %s)' "$done" "$log"
        elif [ $((done / 100)) -ne $((last / 100)) ]; then
            echo "building Meridian: $done files compiled or linked"
        fi
        last=$done
        sleep 1
    done
}

if [ "$quiet" = yes ]; then
    : >"$log"
    echo "building Meridian in $builddir (the full log: $log)"
fi
cd "$top"
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ ! -f config/meridian_components.m4 ]; then
    step ./autogen.sh
fi
cd "$builddir"
if [ ! -f config.status ] || [ "$top/configure" -nt config.status ]; then
    werror=()
    if [ "${CI:-}" = true ] || [ "${MERIDIAN_WERROR:-no}" = yes ]; then
        werror=(--enable-werror)
    fi
    step "$top/configure" --prefix="$builddir/prefix" "${werror[@]}" "$@"
fi
if [ "$quiet" = yes ]; then
    make -j"$(nproc)" "${subdirs[@]}" >>"$log" 2>&1 &
    make_pid=$!
    progress "$make_pid"
    if ! wait "$make_pid"; then
        printf '\n' >&2
        echo "build: make failed; the end of $log:" >&2
        tail -n 40 "$log" >&2
        exit 1
    fi
    [ -t 1 ] && printf '\n'
    echo "built: $(grep -cE '^  (CC|CXX|CCLD|CXXLD|GEN) ' "$log" || true) files compiled or linked"
else
    make -j"$(nproc)" "${subdirs[@]}"
fi
