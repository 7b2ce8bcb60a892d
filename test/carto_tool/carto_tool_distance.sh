#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# meridian_carto distance, path and vertices: the seed's example on figure 3,
# type filtering, unreachable vertices, and paths that do not exist.
. "$TEST_LIB"
need_carto_file

file="--mca carto_file_path $figure3"

# The seed's own example (2.3.4): from Slot1 to the memory nodes.
# shellcheck disable=SC2086 # $file is two words
run_carto $file distance Slot1 --type MEM
expect_status 0
expect_err_empty
expect_out <<'EOF'
MEM1 0
MEM0 1
MEM3 1
MEM2 2
EOF

# Type names in any case, and their spellings on the command line.
for variant in "--type mem" "-t Mem" "--type=MEM" "-tmem"; do
    # shellcheck disable=SC2086
    run_carto $file distance Slot1 $variant
    expect_status 0
    printf 'MEM1 0\nMEM0 1\nMEM3 1\nMEM2 2\n' | expect_out
done

# Every vertex (the default is ALL), nearest first, equal distances by name;
# the source itself at 0.
# shellcheck disable=SC2086
run_carto $file distance Slot1
expect_status 0
expect_err_empty
expect_out <<'EOF'
MEM1 0
Slot1 0
MEM0 1
MEM3 1
Slot0 1
Slot3 1
Eth0 2
Eth1 2
MEM2 2
MTHCA0 2
MTHCA1 2
Slot2 2
EOF

# Several types; the source is listed only when its type is asked for.
# shellcheck disable=SC2086
run_carto $file distance MTHCA0 --type eth,ib
expect_status 0
expect_out <<'EOF'
MTHCA0 0
Eth0 2
Eth1 4
MTHCA1 4
EOF

# Distances are measured in the whole graph, whatever is listed: from MEM1,
# every other vertex is reached through Slot1.
# shellcheck disable=SC2086
run_carto $file distance MEM1 --type SLOT
expect_status 0
expect_out <<'EOF'
Slot1 0
Slot0 1
Slot3 1
Slot2 2
EOF

# shellcheck disable=SC2086
run_carto $file distance Slot2 --type OTHER
expect_status 0
expect_err_empty
expect_out_empty

# Paths.
# shellcheck disable=SC2086
run_carto $file path Slot1 MTHCA0
expect_status 0
expect_err_empty
expect_out <<'EOF'
Slot1 -> Slot0 -> MTHCA0
length 2
EOF

# shellcheck disable=SC2086
run_carto $file path Slot1 MEM1
expect_status 0
printf 'Slot1 -> MEM1\nlength 0\n' | expect_out

# shellcheck disable=SC2086
run_carto $file path Slot2 Slot2
expect_status 0
printf 'Slot2\nlength 0\n' | expect_out

# Two shortest paths: either is right, and its length is 4.
# shellcheck disable=SC2086
run_carto $file path Eth0 MTHCA1
expect_status 0
expect_err_empty
if ! printf 'Eth0 -> Slot0 -> Slot1 -> Slot3 -> MTHCA1\nlength 4\n' | cmp -s - "$out" &&
    ! printf 'Eth0 -> Slot0 -> Slot2 -> Slot3 -> MTHCA1\nlength 4\n' | cmp -s - "$out"; then
    fail "not a shortest path from Eth0 to MTHCA1"
fi

# A map with one-way edges, weights that differ each way, a vertex nothing
# reaches and one that reaches nothing.
cat >"$scratch/oneway.carto" <<'EOF'
# two sockets, asymmetric links, a one-way port, an accelerator
Slot0 MEM0:0, Slot1:1
MEM0 Slot0:0
Slot1 MEM1:5, Slot0:3
MEM1
eth0 Slot0:2
gpu0 Slot1:4
EOF
oneway="--mca carto_file_path $scratch/oneway.carto"

# shellcheck disable=SC2086
run_carto $oneway distance Slot0
expect_status 0
expect_err_empty
expect_out <<'EOF'
MEM0 0
Slot0 0
Slot1 1
MEM1 6
eth0 unreachable
gpu0 unreachable
EOF

# From MEM1, nothing can be reached: every other vertex is unreachable, by name.
# shellcheck disable=SC2086
run_carto $oneway distance MEM1
expect_status 0
expect_out <<'EOF'
MEM1 0
MEM0 unreachable
Slot0 unreachable
Slot1 unreachable
eth0 unreachable
gpu0 unreachable
EOF

# shellcheck disable=SC2086
run_carto $oneway distance Slot1 --type MEM
expect_status 0
printf 'MEM0 3\nMEM1 5\n' | expect_out

# shellcheck disable=SC2086
run_carto $oneway distance eth0 --type MEM,SLOT
expect_status 0
printf 'MEM0 2\nSlot0 2\nSlot1 3\nMEM1 8\n' | expect_out

# shellcheck disable=SC2086
run_carto $oneway path eth0 MEM1
expect_status 0
printf 'eth0 -> Slot0 -> Slot1 -> MEM1\nlength 8\n' | expect_out

# Back to Slot0 over the heavier edge of the pair.
# shellcheck disable=SC2086
run_carto $oneway path Slot1 MEM0
expect_status 0
printf 'Slot1 -> Slot0 -> MEM0\nlength 3\n' | expect_out

# No path: the answer on standard output, exit status 1, no error.
# shellcheck disable=SC2086
run_carto $oneway path MEM1 Slot0
expect_status 1
expect_err_empty
printf 'no path from MEM1 to Slot0\n' | expect_out

# shellcheck disable=SC2086
run_carto $oneway path Slot0 gpu0
expect_status 1
expect_err_empty
printf 'no path from Slot0 to gpu0\n' | expect_out

# Weights up to 2^64 - 1 add up exactly past it (no cap at 18446744073709551615),
# and the list is in the order of the true lengths.
cat >"$scratch/far.carto" <<'EOF'
Slot0 MEM0:18446744073709551614, MEM1:18446744073709551615
MEM0 MEM2:3
MEM1
MEM2
EOF
far="--mca carto_file_path $scratch/far.carto"

# shellcheck disable=SC2086
run_carto $far distance Slot0 --type MEM
expect_status 0
expect_err_empty
printf 'MEM0 18446744073709551614\nMEM1 18446744073709551615\nMEM2 18446744073709551617\n' |
    expect_out

# shellcheck disable=SC2086
run_carto $far path Slot0 MEM2
expect_status 0
printf 'Slot0 -> MEM0 -> MEM2\nlength 18446744073709551617\n' | expect_out

# vertices: the map's order, with types; --type picks.
# shellcheck disable=SC2086
run_carto $oneway vertices
expect_status 0
expect_err_empty
expect_out <<'EOF'
Slot0 SLOT
MEM0 MEM
Slot1 SLOT
MEM1 MEM
eth0 ETH
gpu0 OTHER
EOF

# shellcheck disable=SC2086
run_carto $oneway vertices --type other,ETH
expect_status 0
printf 'eth0 ETH\ngpu0 OTHER\n' | expect_out

# shellcheck disable=SC2086
run_carto $file vertices -t ib
expect_status 0
printf 'MTHCA0 IB\nMTHCA1 IB\n' | expect_out

# After --, a name that starts with '-' is a vertex, not an option.
printf -- '-x Slot0:1\nSlot0\n' >"$scratch/dash.carto"
run_carto --mca carto_file_path "$scratch/dash.carto" distance --type slot -- -x
expect_status 0
expect_err_empty
printf 'Slot0 1\n' | expect_out
run_carto --mca carto_file_path "$scratch/dash.carto" path -- -x Slot0
expect_status 0
printf -- '-x -> Slot0\nlength 1\n' | expect_out

# The graph of one interconnect keeps one-way edges as they are.
# shellcheck disable=SC2086
run_carto $oneway graph --type ETH
expect_status 0
expect_err_empty
expect_out <<'EOF'
# carto graph, adjacency format: a vertex in column 1, then its edges as
# NAME:WEIGHT entries; an indented line continues the list above it.
Slot0 Slot1:1
Slot1 Slot0:3
eth0 Slot0:2
EOF

# In DOT, the pair of equal weights is one two-headed edge, the others are
# drawn one way each; each device is framed with the package of its
# lightest edge, whichever way it runs (MEM1 and gpu0 with Slot1).
# shellcheck disable=SC2086
run_carto $oneway graph --format dot
expect_status 0
expect_err_empty
expect_out <<'EOF'
// The host's carto graph, mapped by the carto component "file".
// Draw it with Graphviz: dot -Tsvg -o carto.svg
digraph carto {
    graph [fontname="Helvetica"];
    node [style=filled, fontname="Helvetica"];
    edge [fontname="Helvetica", fontsize=10];
    subgraph "cluster_%package0" {
        label="package Slot0"; style=rounded; color="#7f7f7f";
        "Slot0" [label="Slot0", shape=box, fillcolor="#a6cee3"];
        "MEM0" [label="MEM0", shape=cylinder, fillcolor="#fdbf6f"];
        "eth0" [label="eth0", shape=ellipse, fillcolor="#b2df8a"];
    }
    subgraph "cluster_%package1" {
        label="package Slot1"; style=rounded; color="#7f7f7f";
        "Slot1" [label="Slot1", shape=box, fillcolor="#a6cee3"];
        "MEM1" [label="MEM1", shape=cylinder, fillcolor="#fdbf6f"];
        "gpu0" [label="gpu0", shape=octagon, fillcolor="#d9d9d9"];
    }
    subgraph "cluster_%legend" {
        label="legend"; style="rounded,dashed"; color="#999999";
        "%legend-slot" [label="processor package (Slot)", shape=box, fillcolor="#a6cee3"];
        "%legend-mem" [label="memory node (MEM)", shape=cylinder, fillcolor="#fdbf6f"];
        "%legend-slot" -> "%legend-mem" [style=invis];
        "%legend-eth" [label="Ethernet port (ETH)", shape=ellipse, fillcolor="#b2df8a"];
        "%legend-mem" -> "%legend-eth" [style=invis];
        "%legend-other" [label="other device", shape=octagon, fillcolor="#d9d9d9"];
        "%legend-eth" -> "%legend-other" [style=invis];
        "%legend-notes" [shape=plaintext, style="", label="edge label: distance (smaller is nearer)\lframe: a processor package\land what is nearest to it\l"];
        "%legend-other" -> "%legend-notes" [style=invis];
    }
    "Slot0" -> "MEM0" [label="0", dir=both];
    "Slot0" -> "Slot1" [label="1"];
    "Slot1" -> "MEM1" [label="5"];
    "Slot1" -> "Slot0" [label="3"];
    "eth0" -> "Slot0" [label="2"];
    "gpu0" -> "Slot1" [label="4"];
}
EOF
if command -v dot >/dev/null 2>&1; then
    dot -Tplain "$out" >"$scratch/plain" 2>&1 || fail "dot refused the output: $(cat "$scratch/plain")"
fi

finish
