#!/usr/bin/env bash
# Generate, configure and build Meridian out of tree.
#   contrib/scripts/build.sh [--builddir DIR] [configure options...]
# Default build dir: build/ at the top of the tree, installing into build/prefix.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
builddir="$top/build"
if [ "${1:-}" = "--builddir" ]; then
    builddir=$2
    shift 2
fi
case "$builddir" in /*) ;; *) builddir="$top/$builddir" ;; esac

cd "$top"
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ ! -f config/meridian_components.m4 ]; then
    ./autogen.sh
fi
mkdir -p "$builddir"
cd "$builddir"
if [ ! -f config.status ] || [ "$top/configure" -nt config.status ]; then
    "$top/configure" --prefix="$builddir/prefix" --enable-werror "$@"
fi
make -j"$(nproc)"
