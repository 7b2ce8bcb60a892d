#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# meridian_carto on the live machine (carto_auto, hwloc): without a carto
# file, carto_auto maps the host; its graph has a processor and a memory
# node, and its carto text read back by carto_file gives the same distances.
# Skipped (77) when carto_auto is not built.
. "$TEST_LIB"
if [ "$CARTO_AUTO_BUILT" != yes ]; then
    echo "SKIP: the carto_auto component is not built (it needs hwloc)"
    exit 77
fi
# hwloc's PCI plugin leaves libpciaccess's device list in a library hwloc
# unloads when the topology goes; LeakSanitizer then reports it as leaked
# (from "<unknown module>", which no suppression can name).  Under the
# sanitizers, map without PCI discovery: network devices are still found.
if [ -n "$SANITIZER_FLAGS" ]; then
    HWLOC_COMPONENTS=-pci
    export HWLOC_COMPONENTS
fi

run_carto vertices
expect_status 0
expect_err_empty
grep -Eq '^Slot[0-9]+ SLOT$' "$out" || fail "no processor (Slot<n> SLOT) in the live graph"
grep -Eq '^MEM[0-9]+ MEM$' "$out" || fail "no memory node (MEM<n> MEM) in the live graph"
cut -d ' ' -f 1 "$out" >"$scratch/vertices"
slot=$(grep -E '^Slot[0-9]+ SLOT$' "$out" | head -n 1 | cut -d ' ' -f 1)

run_carto graph --format json
expect_status 0
expect_err_empty
expect_out_line '  "component": "auto",'

# The carto requirements' name for it, on the command line: "autodetect"
# selects auto even when a carto file would win, "^autodetect" leaves it out.
printf 'Slot0 MEM0:1\nMEM0 Slot0:1\n' >"$scratch/tiny.carto"
run_carto --mca carto autodetect --mca carto_file_path "$scratch/tiny.carto" graph --format json
expect_status 0
expect_err_empty
expect_out_line '  "component": "auto",'
run_carto --mca carto ^autodetect --mca carto_file_path "$scratch/tiny.carto" graph --format json
expect_status 0
expect_err_empty
expect_out_line '  "component": "file",'

# Every memory node is listed from a processor, each with a distance or
# "unreachable".
run_carto distance "$slot" --type MEM
expect_status 0
expect_err_empty
[ -s "$out" ] || fail "no memory node listed from $slot"
if grep -Ev '^MEM[0-9]+ ([0-9]+|unreachable)$' "$out" >"$scratch/odd"; then
    fail "lines that are not MEM<n> DISTANCE: $(head -n 3 "$scratch/odd")"
fi

# The live map as carto text, read back by carto_file: the same distances
# from every vertex (the first 32, to stay fast on a big machine).
run_carto graph
expect_status 0
expect_err_empty
cp "$out" "$scratch/live.carto"
head -n 32 "$scratch/vertices" >"$scratch/some-vertices"
while read -r vertex; do
    run_carto distance "$vertex"
    expect_status 0
    cp "$out" "$scratch/live-distances"
    run_carto --mca carto_file_path "$scratch/live.carto" distance "$vertex"
    expect_status 0
    cmp -s "$out" "$scratch/live-distances" ||
        fail "the distances from $vertex differ once the live map went through carto text"
done <"$scratch/some-vertices"

finish
