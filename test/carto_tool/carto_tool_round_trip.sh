#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# graph's carto text is a carto file: read back by carto_file it gives the
# same graph (the same text again, the same JSON) and the same distance list
# from every vertex -- for both file formats, one-way and unreachable parts,
# long edge lists that wrap, vertices whose names do not give their types
# (written in Open MPI's format), and the graph of one interconnect.
. "$TEST_LIB"
need_carto_file
# It starts the tool about 170 times: in a build under the sanitizers, where
# the other carto_tool tests run the same code, it only adds minutes.
if [ "${MERIDIAN_TEST_ROUND_TRIP:-yes}" = no ]; then
    echo "SKIP: MERIDIAN_TEST_ROUND_TRIP=no (the round trips are tested in another build)"
    exit 77
fi

# round_trip NAME FILE [GRAPH-OPTION]...: FILE's graph, written by
# meridian_carto and read back, against FILE itself.
round_trip()
{
    name=$1
    source=$2
    shift 2
    run_carto --mca carto_file_path "$source" graph "$@"
    expect_status 0
    expect_err_empty
    copy=$scratch/$name.copy.carto
    cp "$out" "$copy"

    run_carto --mca carto_file_path "$copy" graph
    expect_status 0
    expect_err_empty
    cmp -s "$out" "$copy" || fail "$name: the carto text read back is written differently"

    # Without options, the same vertices, types, order and edges.
    if [ $# -eq 0 ]; then
        run_carto --mca carto_file_path "$source" graph --format json
        cp "$out" "$scratch/$name.json"
        run_carto --mca carto_file_path "$copy" graph --format json
        cmp -s "$out" "$scratch/$name.json" || fail "$name: the JSON of the graph read back differs"
    fi

    run_carto --mca carto_file_path "$copy" vertices
    expect_status 0
    cut -d ' ' -f 1 "$out" >"$scratch/$name.vertices"
    [ -s "$scratch/$name.vertices" ] || fail "$name: no vertices"
    while read -r vertex; do
        run_carto --mca carto_file_path "$copy" distance "$vertex"
        expect_status 0
        cp "$out" "$scratch/copy-distances"
        if [ $# -eq 0 ]; then
            run_carto --mca carto_file_path "$source" distance "$vertex"
        else
            # The original's interconnect graph, as text, is the copy.
            run_carto --mca carto_file_path "$copy" distance "$vertex"
        fi
        expect_status 0
        cmp -s "$out" "$scratch/copy-distances" ||
            fail "$name: the distances from $vertex differ after the round trip"
    done <"$scratch/$name.vertices"
}

round_trip figure3 "$figure3"
round_trip ompi13 "$ompi13"
round_trip figure3-mem "$figure3" --type MEM
round_trip figure3-ib-eth "$figure3" --type ib,eth

cat >"$scratch/oneway.carto" <<'EOF'
Slot0 MEM0:0, Slot1:1
MEM0 Slot0:0
Slot1 MEM1:5, Slot0:3
MEM1
eth0 Slot0:2
gpu0 Slot1:4
EOF
round_trip oneway "$scratch/oneway.carto"

# Ten sockets in a one-way ring, each linked to every memory node (eleven
# entries a list, so lists wrap onto continuation lines), and big weights.
awk 'BEGIN {
    for (i = 0; i < 10; i++) {
        line = "Slot" i " Slot" (i + 1) % 10 ":" (i + 1)
        for (j = 0; j < 10; j++) {
            line = line ", MEM" j ":" ((i - j) * (i - j) + (i * 7 + j * 3) % 5)
        }
        print line
        print "MEM" i " Slot" i ":0"
    }
    print "mlx5_0 Slot9:18446744073709551615"
    print "Slot9b Slot0:18446744073709551614, mlx5_0:1"
}' >"$scratch/ring.carto"
round_trip ring "$scratch/ring.carto"
grep -q '^    MEM' "$scratch/ring.copy.carto" || fail "the ring's edge lists did not wrap"

# Vertices whose names do not give their types: the text is in Open MPI's
# format, with EDGE lines.
cat >"$scratch/typed.carto" <<'EOF'
EDGE slot        cpu0
EDGE Memory      ram0
EDGE Infiniband  hca
EDGE Ethernet    Slot7
BRANCH_BI_DIR cpu0 ram0:0 hca:2
BRANCH Slot7 cpu0:1
EOF
round_trip typed "$scratch/typed.carto"
grep -q '^EDGE Ethernet Slot7$' "$scratch/typed.copy.carto" ||
    fail "the graph of typed.carto was not written in Open MPI's format"

finish
