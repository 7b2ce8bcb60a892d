#!/usr/bin/env bash
# Set up everything on a fresh Debian 12 machine and run Meridian's main job.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
"$top/contrib/scripts/deps.sh"
"$top/contrib/scripts/build.sh"
make -C "$top/build" install >/dev/null
echo
echo "== meridian_info =="
"$top/build/prefix/bin/meridian_info" "$@"
