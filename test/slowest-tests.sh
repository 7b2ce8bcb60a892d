#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The slowest tests of the last `make check` under DIR, for keeping CI
# within its budget: a test's time runs from its log's creation to its
# result file's last change (where the file system records creation).
#   slowest-tests.sh DIR [COUNT]
dir=${1:-.}
count=${2:-15}
find "$dir" -name '*.trs' | while read -r trs; do
    log=${trs%.trs}.log
    [ -f "$log" ] || continue
    born=$(stat -c %W "$log" 2>/dev/null || echo 0)
    case $born in '' | 0 | -*) continue ;; esac
    ended=$(stat -c %Y "$trs")
    echo "$((ended - born)) ${trs%.trs}"
done | sort -rn | head -n "$count" | awk '
    NR == 1 { print "slowest tests (seconds, from the log made to the result written):" }
    { sub(/^\.\//, "", $2); printf "  %5d  %s\n", $1, $2 }'
