#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# clang-format (Debian 12's, version 14) over every C and C++ source git
# tracks, with the .clang-format at the top of the tree.
#   contrib/scripts/format.sh           rewrite the files in place
#   contrib/scripts/format.sh --check   change nothing; list every file that
#                                       deviates, with its diff, and exit 1
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
formatter=${CLANG_FORMAT:-}
if [ -z "$formatter" ]; then
    for candidate in clang-format-14 clang-format; do
        if command -v "$candidate" >/dev/null 2>&1; then
            formatter=$candidate
            break
        fi
    done
fi
if [ -z "$formatter" ]; then
    echo "format.sh: no clang-format found (Debian: apt-get install clang-format)" >&2
    exit 1
fi
mode=${1:-}
case $mode in
'' | --check) ;;
*)
    echo "usage: contrib/scripts/format.sh [--check]" >&2
    exit 2
    ;;
esac

mapfile -t files < <(git ls-files '*.c' '*.cc' '*.h' '*.hpp')
if [ "$mode" != --check ]; then
    "$formatter" -i "${files[@]}"
    exit 0
fi
diff=$(mktemp)
trap 'rm -f "$diff"' EXIT
deviating=0
for file in "${files[@]}"; do
    if ! "$formatter" "$file" | diff -u --label "$file" --label "$file (clang-format)" "$file" - >"$diff"; then
        cat "$diff"
        deviating=$((deviating + 1))
    fi
done
if [ "$deviating" -gt 0 ]; then
    echo "format.sh: $deviating of ${#files[@]} files deviate from .clang-format; run contrib/scripts/format.sh" >&2
    exit 1
fi
echo "format.sh: all ${#files[@]} files follow .clang-format"
