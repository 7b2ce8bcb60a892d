#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# meridian_carto graph on the seed's figure 3 (contrib/carto/figure3.carto,
# read by carto_file): the carto text and the JSON exactly, the DOT read back
# line by line (and by Graphviz when it is installed), and the graph of one
# interconnect (--type).
. "$TEST_LIB"
need_carto_file

file="--mca carto_file_path $figure3"

# shellcheck disable=SC2086 # $file is two words
run_carto $file graph
expect_status 0
expect_err_empty
expect_out <<'EOF'
# carto graph, adjacency format: a vertex in column 1, then its edges as
# NAME:WEIGHT entries; an indented line continues the list above it.
MEM0 Slot0:0
Eth0 Slot0:1
MTHCA0 Slot0:1
Slot0 Eth0:1, MTHCA0:1, MEM0:0, Slot2:1, Slot1:1
Slot1 MEM1:0, Slot0:1, Slot3:1
MEM1 Slot1:0
Slot2 MEM2:0, Slot0:1, Slot3:1
MEM2 Slot2:0
Slot3 Eth1:1, MEM3:0, MTHCA1:1, Slot1:1, Slot2:1
Eth1 Slot3:1
MEM3 Slot3:0
MTHCA1 Slot3:1
EOF
cp "$out" "$scratch/carto"

# The default format is carto, and so is ALL the whole graph; names of
# formats and types are taken in any case.
for variant in "--format carto" "-f CARTO" "--format=Carto" "--type ALL" "-t all" "--type slot,mem,eth,ib,other"; do
    # shellcheck disable=SC2086
    run_carto $file graph $variant
    expect_status 0
    cmp -s "$out" "$scratch/carto" || fail "not the output of graph alone"
done

# shellcheck disable=SC2086
run_carto $file graph --format json
expect_status 0
expect_err_empty
expect_out <<'EOF'
{
  "component": "file",
  "vertices": [
    {"name":"MEM0","type":"MEM"},
    {"name":"Eth0","type":"ETH"},
    {"name":"MTHCA0","type":"IB"},
    {"name":"Slot0","type":"SLOT"},
    {"name":"Slot1","type":"SLOT"},
    {"name":"MEM1","type":"MEM"},
    {"name":"Slot2","type":"SLOT"},
    {"name":"MEM2","type":"MEM"},
    {"name":"Slot3","type":"SLOT"},
    {"name":"Eth1","type":"ETH"},
    {"name":"MEM3","type":"MEM"},
    {"name":"MTHCA1","type":"IB"}
  ],
  "edges": [
    {"from":"MEM0","to":"Slot0","weight":0},
    {"from":"Eth0","to":"Slot0","weight":1},
    {"from":"MTHCA0","to":"Slot0","weight":1},
    {"from":"Slot0","to":"Eth0","weight":1},
    {"from":"Slot0","to":"MTHCA0","weight":1},
    {"from":"Slot0","to":"MEM0","weight":0},
    {"from":"Slot0","to":"Slot2","weight":1},
    {"from":"Slot0","to":"Slot1","weight":1},
    {"from":"Slot1","to":"MEM1","weight":0},
    {"from":"Slot1","to":"Slot0","weight":1},
    {"from":"Slot1","to":"Slot3","weight":1},
    {"from":"MEM1","to":"Slot1","weight":0},
    {"from":"Slot2","to":"MEM2","weight":0},
    {"from":"Slot2","to":"Slot0","weight":1},
    {"from":"Slot2","to":"Slot3","weight":1},
    {"from":"MEM2","to":"Slot2","weight":0},
    {"from":"Slot3","to":"Eth1","weight":1},
    {"from":"Slot3","to":"MEM3","weight":0},
    {"from":"Slot3","to":"MTHCA1","weight":1},
    {"from":"Slot3","to":"Slot1","weight":1},
    {"from":"Slot3","to":"Slot2","weight":1},
    {"from":"Eth1","to":"Slot3","weight":1},
    {"from":"MEM3","to":"Slot3","weight":0},
    {"from":"MTHCA1","to":"Slot3","weight":1}
  ]
}
EOF
# "FROM TO WEIGHT", one directed edge a line, sorted.
sed -n 's/^    {"from":"\([^"]*\)","to":"\([^"]*\)","weight":\([0-9]*\)},*$/\1 \2 \3/p' "$out" |
    LC_ALL=C sort >"$scratch/json-edges"
[ "$(wc -l <"$scratch/json-edges")" -eq 24 ] || fail "24 edges expected in the JSON"
if command -v jq >/dev/null 2>&1; then
    jq -e '.component == "file" and (.vertices | length) == 12 and (.edges | length) == 24' \
        "$out" >/dev/null || fail "jq does not read the JSON as expected"
fi

# DOT: every line is the header, a package's frame, a node, the legend or
# an edge; a node per vertex, in its package's frame, in order, shaped by
# type; each pair of edges of equal weight drawn once, two-headed, so the
# edges read back (both ways for dir=both) are the JSON's.
# shellcheck disable=SC2086
run_carto $file graph --format dot
expect_status 0
expect_err_empty
cp "$out" "$scratch/figure3.dot"
head -n 6 "$out" >"$scratch/dot-head"
tail -n 1 "$out" >"$scratch/dot-tail"
diff - "$scratch/dot-head" >"$scratch/diff" <<'EOF' || fail "the DOT header differs: $(cat "$scratch/diff")"
// The host's carto graph, mapped by the carto component "file".
// Draw it with Graphviz: dot -Tsvg -o carto.svg
digraph carto {
    graph [fontname="Helvetica"];
    node [style=filled, fontname="Helvetica"];
    edge [fontname="Helvetica", fontsize=10];
EOF
[ "$(cat "$scratch/dot-tail")" = "}" ] || fail "the DOT does not end with }"
node_re='^ \{4,8\}"\([^"%]*\)" \[label="\([^"]*\)", shape=\([a-z]*\), fillcolor="#[0-9a-f]\{6\}"\];$'
edge_re='^    "\([^"]*\)" -> "\([^"]*\)" \[label="\([0-9]*\)"\(, dir=both\)\{0,1\}\];$'
frame_re='^    subgraph "cluster_%package[0-9]*" {$\|^        label="package [^"]*"; style=rounded; color="#7f7f7f";$\|^    }$'
# The legend: a frame of its own, one entry per kind of the map, stacked.
sed -n '/^    subgraph "cluster_%legend" {$/,/^    }$/p' "$out" >"$scratch/dot-legend"
diff - "$scratch/dot-legend" >"$scratch/diff" <<'EOF' || fail "the DOT legend differs: $(cat "$scratch/diff")"
    subgraph "cluster_%legend" {
        label="legend"; style="rounded,dashed"; color="#999999";
        "%legend-slot" [label="processor package (Slot)", shape=box, fillcolor="#a6cee3"];
        "%legend-mem" [label="memory node (MEM)", shape=cylinder, fillcolor="#fdbf6f"];
        "%legend-slot" -> "%legend-mem" [style=invis];
        "%legend-eth" [label="Ethernet port (ETH)", shape=ellipse, fillcolor="#b2df8a"];
        "%legend-mem" -> "%legend-eth" [style=invis];
        "%legend-ib" [label="InfiniBand port (IB)", shape=hexagon, fillcolor="#cab2d6"];
        "%legend-eth" -> "%legend-ib" [style=invis];
        "%legend-notes" [shape=plaintext, style="", label="edge label: distance (smaller is nearer)\lframe: a processor package\land what is nearest to it\l"];
        "%legend-ib" -> "%legend-notes" [style=invis];
    }
EOF
sed '1,6d;$d' "$out" | sed '/^    subgraph "cluster_%legend" {$/,/^    }$/d' |
    grep -v -e "$node_re" -e "$edge_re" -e "$frame_re" >"$scratch/other-lines"
[ ! -s "$scratch/other-lines" ] ||
    fail "lines neither frame, node, legend nor edge: $(head -n 3 "$scratch/other-lines")"
# Each vertex with the package whose frame holds it: in figure 3 every
# device hangs off one processor.
awk '/^    subgraph "cluster_%package/ { inside = 1; next }
     inside && /^        label=/ { split($0, part, "\""); package = part[2]; next }
     /^    }$/ { inside = 0; next }
     inside { split($0, part, "\""); print part[2] " in " package }' "$out" >"$scratch/dot-frames"
diff - "$scratch/dot-frames" >"$scratch/diff" <<'EOF' || fail "the DOT packages differ: $(cat "$scratch/diff")"
MEM0 in package Slot0
Eth0 in package Slot0
MTHCA0 in package Slot0
Slot0 in package Slot0
Slot1 in package Slot1
MEM1 in package Slot1
Slot2 in package Slot2
MEM2 in package Slot2
Slot3 in package Slot3
Eth1 in package Slot3
MEM3 in package Slot3
MTHCA1 in package Slot3
EOF
sed -n "s/$node_re/\\1 \\2 \\3/p" "$out" >"$scratch/dot-nodes"
diff - "$scratch/dot-nodes" >"$scratch/diff" <<'EOF' || fail "the DOT nodes differ: $(cat "$scratch/diff")"
MEM0 MEM0 cylinder
Eth0 Eth0 ellipse
MTHCA0 MTHCA0 hexagon
Slot0 Slot0 box
Slot1 Slot1 box
MEM1 MEM1 cylinder
Slot2 Slot2 box
MEM2 MEM2 cylinder
Slot3 Slot3 box
Eth1 Eth1 ellipse
MEM3 MEM3 cylinder
MTHCA1 MTHCA1 hexagon
EOF
[ "$(grep -c -e "$edge_re" "$out")" -eq 12 ] || fail "12 two-headed edges expected in the DOT"
[ "$(grep -c -e 'dir=both' "$out")" -eq 12 ] || fail "every DOT edge of figure 3 is two-headed"
{
    sed -n "s/$edge_re/\\1 \\2 \\3/p" "$out"
    sed -n "s/$edge_re/\\2 \\1 \\3 \\4/p" "$out" | sed -n 's/ , dir=both$//p'
} | LC_ALL=C sort >"$scratch/dot-edges"
diff "$scratch/json-edges" "$scratch/dot-edges" >"$scratch/diff" ||
    fail "the DOT's edges are not the JSON's: $(cat "$scratch/diff")"

# Graphviz, when it is here, reads it: the map's 12 nodes and 12 edges (the
# legend's, which Graphviz names <%N> or "%N", aside), 4 package frames and the
# legend's.
if command -v dot >/dev/null 2>&1; then
    if dot -Tplain "$scratch/figure3.dot" >"$scratch/plain" 2>"$scratch/dot-err"; then
        [ "$(grep '^node ' "$scratch/plain" | grep -vc '^node [<"]%')" -eq 12 ] || fail "dot -Tplain: not 12 nodes"
        [ "$(grep '^edge ' "$scratch/plain" | grep -vc ' invis ')" -eq 12 ] || fail "dot -Tplain: not 12 edges"
        [ ! -s "$scratch/dot-err" ] || fail "dot complained: $(cat "$scratch/dot-err")"
        dot -Tcanon "$scratch/figure3.dot" >"$scratch/canon" 2>>"$scratch/dot-err"
        [ "$(grep -c '^	subgraph "cluster_%' "$scratch/canon")" -eq 5 ] ||
            fail "dot -Tcanon: not 4 packages and a legend: $(grep subgraph "$scratch/canon")"
    else
        fail "dot refused the output: $(cat "$scratch/dot-err")"
    fi
else
    echo "dot (Graphviz) is not installed: the DOT was not drawn"
fi

# The graph of one interconnect: the type's vertices plus every processor,
# and the edges among them, in the map's order.
# shellcheck disable=SC2086
run_carto $file graph --type IB
expect_status 0
expect_err_empty
expect_out <<'EOF'
# carto graph, adjacency format: a vertex in column 1, then its edges as
# NAME:WEIGHT entries; an indented line continues the list above it.
MTHCA0 Slot0:1
Slot0 MTHCA0:1, Slot2:1, Slot1:1
Slot1 Slot0:1, Slot3:1
Slot2 Slot0:1, Slot3:1
Slot3 MTHCA1:1, Slot1:1, Slot2:1
MTHCA1 Slot3:1
EOF

# shellcheck disable=SC2086
run_carto $file graph --type mem,Eth --format json
expect_status 0
expect_err_empty
expect_out <<'EOF'
{
  "component": "file",
  "vertices": [
    {"name":"MEM0","type":"MEM"},
    {"name":"Eth0","type":"ETH"},
    {"name":"Slot0","type":"SLOT"},
    {"name":"Slot1","type":"SLOT"},
    {"name":"MEM1","type":"MEM"},
    {"name":"Slot2","type":"SLOT"},
    {"name":"MEM2","type":"MEM"},
    {"name":"Slot3","type":"SLOT"},
    {"name":"Eth1","type":"ETH"},
    {"name":"MEM3","type":"MEM"}
  ],
  "edges": [
    {"from":"MEM0","to":"Slot0","weight":0},
    {"from":"Eth0","to":"Slot0","weight":1},
    {"from":"Slot0","to":"Eth0","weight":1},
    {"from":"Slot0","to":"MEM0","weight":0},
    {"from":"Slot0","to":"Slot2","weight":1},
    {"from":"Slot0","to":"Slot1","weight":1},
    {"from":"Slot1","to":"MEM1","weight":0},
    {"from":"Slot1","to":"Slot0","weight":1},
    {"from":"Slot1","to":"Slot3","weight":1},
    {"from":"MEM1","to":"Slot1","weight":0},
    {"from":"Slot2","to":"MEM2","weight":0},
    {"from":"Slot2","to":"Slot0","weight":1},
    {"from":"Slot2","to":"Slot3","weight":1},
    {"from":"MEM2","to":"Slot2","weight":0},
    {"from":"Slot3","to":"Eth1","weight":1},
    {"from":"Slot3","to":"MEM3","weight":0},
    {"from":"Slot3","to":"Slot1","weight":1},
    {"from":"Slot3","to":"Slot2","weight":1},
    {"from":"Eth1","to":"Slot3","weight":1},
    {"from":"MEM3","to":"Slot3","weight":0}
  ]
}
EOF

# SLOT alone: the processors.  OTHER: no such vertex, so the processors too.
# shellcheck disable=SC2086
run_carto $file graph --type SLOT --format dot
expect_status 0
[ "$(grep -c -e "$node_re" "$out")" -eq 4 ] || fail "4 nodes expected"
[ "$(grep -c -e "$edge_re" "$out")" -eq 4 ] || fail "4 edges expected"
expect_out_line '    "Slot0" -> "Slot2" [label="1", dir=both];'
# shellcheck disable=SC2086
run_carto $file graph --type other
expect_status 0
expect_out <<'EOF'
# carto graph, adjacency format: a vertex in column 1, then its edges as
# NAME:WEIGHT entries; an indented line continues the list above it.
Slot0 Slot2:1, Slot1:1
Slot1 Slot0:1, Slot3:1
Slot2 Slot0:1, Slot3:1
Slot3 Slot1:1, Slot2:1
EOF

# Open MPI 1.3's format gives the same graph, in its own vertex order.
run_carto --mca carto_file_path "$ompi13" graph
expect_status 0
expect_err_empty
expect_out <<'EOF'
# carto graph, adjacency format: a vertex in column 1, then its edges as
# NAME:WEIGHT entries; an indented line continues the list above it.
Slot0 MEM0:0, Eth0:1, MTHCA0:1, Slot1:1, Slot2:1
Slot1 MEM1:0, Slot0:1, Slot3:1
Slot2 MEM2:0, Slot0:1, Slot3:1
Slot3 MEM3:0, Eth1:1, MTHCA1:1, Slot1:1, Slot2:1
MEM0 Slot0:0
MEM1 Slot1:0
MEM2 Slot2:0
MEM3 Slot3:0
Eth0 Slot0:1
Eth1 Slot3:1
MTHCA0 Slot0:1
MTHCA1 Slot3:1
EOF
run_carto --mca carto_file_path "$ompi13" graph --format json
sed -n 's/^    {"from":"\([^"]*\)","to":"\([^"]*\)","weight":\([0-9]*\)},*$/\1 \2 \3/p' "$out" |
    LC_ALL=C sort | diff "$scratch/json-edges" - >"$scratch/diff" ||
    fail "ompi13.carto's edges are not figure3.carto's: $(cat "$scratch/diff")"

finish
