#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# What goes wrong once the command line is right: an unknown vertex (the
# closest name and the valid ones, capped for big graphs), a bad carto file
# (carto_file's file:line:column message, then the base's), no component,
# a graph no carto text can hold.  Exit status 1, nothing on standard output.
. "$TEST_LIB"
need_carto_file

file="--mca carto_file_path $figure3"
figure3_vertices='Eth0, Eth1, MEM0, MEM1, MEM2, MEM3, MTHCA0, MTHCA1, Slot0, Slot1, Slot2, Slot3'

expect_failure()
{
    expect_status 1
    expect_out_empty
    expect_err
}

# Unknown vertices: a suggestion when one is close, the vertices in name order.
# shellcheck disable=SC2086 # $file is two words
run_carto $file distance Slot9
expect_failure <<EOF
meridian: error: unknown vertex "Slot9" (did you mean "Slot0"?); the vertices are: $figure3_vertices
EOF

# shellcheck disable=SC2086
run_carto $file distance slot1 --type MEM
expect_failure <<EOF
meridian: error: unknown vertex "slot1" (did you mean "Slot1"?); the vertices are: $figure3_vertices
EOF

# shellcheck disable=SC2086
run_carto $file distance gpu
expect_failure <<EOF
meridian: error: unknown vertex "gpu"; the vertices are: $figure3_vertices
EOF

# Either end of a path.
# shellcheck disable=SC2086
run_carto $file path MEM7 Slot1
expect_failure <<EOF
meridian: error: unknown vertex "MEM7" (did you mean "MEM0"?); the vertices are: $figure3_vertices
EOF

# shellcheck disable=SC2086
run_carto $file path Slot1 Eth2
expect_failure <<EOF
meridian: error: unknown vertex "Eth2" (did you mean "Eth0"?); the vertices are: $figure3_vertices
EOF

# A big graph: the first 20 names, then how many more.
awk 'BEGIN { for (i = 0; i < 25; i++) print "Slot" i " MEM" i ":0"; for (i = 0; i < 25; i++) print "MEM" i }' \
    >"$scratch/big.carto"
run_carto --mca carto_file_path "$scratch/big.carto" path Slot0 Slot25
expect_failure <<'EOF'
meridian: error: unknown vertex "Slot25" (did you mean "Slot15"?); the vertices are: MEM0, MEM1, MEM2, MEM3, MEM4, MEM5, MEM6, MEM7, MEM8, MEM9, MEM10, MEM11, MEM12, MEM13, MEM14, MEM15, MEM16, MEM17, MEM18, MEM19, ... (30 more; meridian_carto vertices lists them all)
EOF

# A bad carto file: carto_file says where and what, the base who.
printf 'Slot0 MEM0:1\nMEM0 Slot0:x\n' >"$scratch/weight.carto"
run_carto --mca carto_file_path "$scratch/weight.carto" graph
expect_failure <<EOF
meridian: error: carto_file: $scratch/weight.carto:2:12: expected a weight (a whole number), found "x"
meridian: error: the carto component "file" could not map the host: bad parameter
EOF

printf '# no colon\nSlot0 MEM0 1\nMEM0\n' >"$scratch/colon.carto"
run_carto --mca carto_file_path "$scratch/colon.carto" distance Slot0
expect_failure <<EOF
meridian: error: carto_file: $scratch/colon.carto:2:12: expected ':' and a weight after MEM0, found "1"
meridian: error: the carto component "file" could not map the host: bad parameter
EOF

printf 'Slot0 MEM0:1\n' >"$scratch/undeclared.carto"
run_carto --mca carto_file_path "$scratch/undeclared.carto" path Slot0 MEM0
expect_failure <<EOF
meridian: error: carto_file: $scratch/undeclared.carto:1:7: expected a declared vertex, found "MEM0" (no line declares it)
meridian: error: the carto component "file" could not map the host: bad parameter
EOF

: >"$scratch/empty.carto"
run_carto --mca carto_file_path "$scratch/empty.carto" vertices
expect_failure <<EOF
meridian: error: carto_file: $scratch/empty.carto:1:1: expected at least one vertex, found an empty file
meridian: error: the carto component "file" could not map the host: bad parameter
EOF

run_carto --mca carto_file_path "$scratch/no-such.carto" graph --format json
expect_failure <<EOF
meridian: error: carto_file: $scratch/no-such.carto: No such file or directory
meridian: error: the carto component "file" could not map the host: input/output error
EOF

# No component: carto_file declines without a file, and is the only one
# allowed; the error says why each component offers nothing.
not_selected=
[ "$CARTO_AUTO_BUILT" = yes ] && not_selected='; not selected: auto'
run_carto --mca carto file graph
expect_failure <<EOF
meridian: error: no carto component is available: file declined (not available)$not_selected
meridian: error: no carto component could map the host
EOF

# A selection naming a component that does not exist.
if [ "$CARTO_AUTO_BUILT" = yes ]; then
    available='auto (also: autodetect), file'
else
    available=file
fi
run_carto --mca carto nosuch distance Slot0
expect_failure <<EOF
meridian: error: MCA parameter carto (from the command line) names component "nosuch", which is not available; available carto components: $available
meridian: error: the carto framework could not be opened: not found
EOF

# The graph of an interconnect with no vertex at all has no carto text (but
# has a JSON and a DOT form).
printf 'MEM0\n' >"$scratch/mem.carto"
run_carto --mca carto_file_path "$scratch/mem.carto" graph --type ETH
expect_failure <<'EOF'
meridian: error: cannot write the carto graph as carto text: it has no vertices (a carto file needs at least one)
EOF

run_carto --mca carto_file_path "$scratch/mem.carto" graph --type ETH --format json
expect_status 0
expect_err_empty
expect_out <<'EOF'
{
  "component": "file",
  "vertices": [],
  "edges": []
}
EOF

run_carto --mca carto_file_path "$scratch/mem.carto" distance mem0
expect_failure <<'EOF'
meridian: error: unknown vertex "mem0" (did you mean "MEM0"?); the vertices are: MEM0
EOF

finish
