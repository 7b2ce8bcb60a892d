#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The license line every source file carries (LICENSE: BSD-3-Clause), in the
# comment syntax of the file's kind, as its first line, or its second after
# a "#!" line.
#
#   contrib/scripts/license-lines.sh           adds the line where it is missing
#   contrib/scripts/license-lines.sh --check   lists the files without it; exit 1 if any
#
# Source files: what git tracks with a known kind below; test data (corpora,
# fabric and carto files, expected outputs) and prose (Markdown) carry none.
set -eu
cd "$(dirname "$0")/../.."
tag="SPDX-License-Identifier: BSD-3-Clause"
check=no
[ "${1:-}" = --check ] && check=yes

# The comment form for FILE, or nothing for a file that is not source.
comment_for() {
    case "$1" in
    *.cc | *.hpp) echo "// $tag" ;;
    *.c | *.h | *.h.in | *.map.in) echo "/* $tag */" ;;
    *.m4 | *.ac) echo "dnl $tag" ;;
    *.sh | *.am | *.inc | *.py | *.cmake.in | *.pc.in | */CMakeLists.txt | */Makefile | \
        .ci/run | contrib/qmp/qmp-config.in) echo "# $tag" ;;
    esac
}

missing=0
for file in $(git ls-files); do
    [ -f "$file" ] && [ ! -L "$file" ] || continue
    line=$(comment_for "$file")
    [ -n "$line" ] || continue
    if head -n 2 "$file" | grep -qF "$tag"; then
        continue
    fi
    if [ "$check" = yes ]; then
        echo "$file: no license line (\"$line\")"
        missing=$((missing + 1))
        continue
    fi
    tmp=$file.license.$$
    if head -n 1 "$file" | grep -q '^#!'; then
        { head -n 1 "$file"; echo "$line"; tail -n +2 "$file"; } >"$tmp"
    else
        { echo "$line"; cat "$file"; } >"$tmp"
    fi
    chmod --reference="$file" "$tmp"
    mv "$tmp" "$file"
done
if [ "$check" = yes ] && [ "$missing" -gt 0 ]; then
    echo "license-lines.sh: $missing source files without the license line" >&2
    exit 1
fi
exit 0
