#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set up everything on a fresh Debian 12 machine, build, and run every test.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
"$top/contrib/scripts/deps.sh"
"$top/contrib/scripts/build.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if ! make -C "$top/build" -j"$(nproc)" check; then
    # The suite logs hold the output of every test that failed.
    find "$top/build/test" -name test-suite.log -exec cat {} + 2>/dev/null || true
    exit 1
fi
