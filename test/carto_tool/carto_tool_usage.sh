#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# meridian_carto's command line: --help, --version, and every mistake in the
# command line -- one message that names what is wrong and the choices, exit
# status 2, nothing on standard output, and no map made (these runs would
# fail differently if a component were asked: none is given a file).
. "$TEST_LIB"

# --help, -h and the help command print the same text, whatever else is given.
run_carto --help
expect_status 0
expect_err_empty
cp "$out" "$scratch/help"
first=$(head -n 1 "$out")
[ "$first" = 'Usage: meridian_carto [--mca NAME VALUE]... [--tune FILE[,FILE]]... COMMAND [ARG]... [OPTION]...' ] ||
    fail "the first line of --help is: $first"
expect_out_line '  graph [--type T] [--format F]'
expect_out_line '  distance FROM [--type T]'
expect_out_line '  path A B'
expect_out_line '  vertices [--type T]'
expect_out_line '  -t [ --type ] T       vertex type(s), comma-separated: SLOT, MEM, ETH, IB,'
expect_out_line '  -f [ --format ] F     graph'"'"'s output: carto (default), dot or json'
expect_out_line '  --mca carto_file_path FILE   read it from a carto file (component file)'
expect_out_line "Parameters are also set in the environment (${P}NAME=VALUE) and in param"
expect_out_line 'Exit status: 0 on success; 1 when the answer cannot be given (no component'
if grep -q ' $' "$out"; then
    fail "a line of --help ends in a blank"
fi
for variant in -h help "graph --help" "distance Slot1 -h" "nosuch --help" "help me"; do
    # shellcheck disable=SC2086 # the variant is several words
    run_carto $variant
    expect_status 0
    expect_err_empty
    cmp -s "$out" "$scratch/help" || fail "the help text differs from --help's"
done

run_carto --version
expect_status 0
expect_err_empty
printf 'meridian_carto (Meridian) %s\n' "$MERIDIAN_VERSION" | expect_out
run_carto -V
expect_status 0
printf 'meridian_carto (Meridian) %s\n' "$MERIDIAN_VERSION" | expect_out

# Commands.
run_carto
expect_usage_error 'no command given: expected one of graph, distance, path, vertices (see meridian_carto --help)'

run_carto grph
expect_usage_error 'unknown command "grph" (did you mean "graph"?): expected one of graph, distance, path, vertices (see meridian_carto --help)'

run_carto frobnicate
expect_usage_error 'unknown command "frobnicate": expected one of graph, distance, path, vertices (see meridian_carto --help)'

run_carto Slot1
expect_usage_error 'unknown command "Slot1": expected one of graph, distance, path, vertices (see meridian_carto --help)'

# Arguments.
run_carto distance
expect_usage_error 'distance needs the vertex to measure from; usage: meridian_carto distance FROM [--type T] (see meridian_carto --help)'

run_carto distance --type MEM
expect_usage_error 'distance needs the vertex to measure from; usage: meridian_carto distance FROM [--type T] (see meridian_carto --help)'

run_carto distance Slot1 Slot2
expect_usage_error 'unexpected argument "Slot2" after distance; usage: meridian_carto distance FROM [--type T] (see meridian_carto --help)'

run_carto path
expect_usage_error 'path needs two vertices, found none; usage: meridian_carto path A B (see meridian_carto --help)'

run_carto path Slot1
expect_usage_error 'path needs two vertices, found one; usage: meridian_carto path A B (see meridian_carto --help)'

run_carto path Slot1 MEM0 MEM2
expect_usage_error 'unexpected argument "MEM2" after path; usage: meridian_carto path A B (see meridian_carto --help)'

run_carto graph dot
expect_usage_error 'unexpected argument "dot" after graph; usage: meridian_carto graph [--type T] [--format carto|dot|json] (see meridian_carto --help)'

run_carto vertices MEM
expect_usage_error 'unexpected argument "MEM" after vertices; usage: meridian_carto vertices [--type T] (see meridian_carto --help)'

# --type.
run_carto distance Slot1 --type MEMORY
expect_usage_error 'unknown vertex type "MEMORY" for --type: expected one of SLOT, MEM, ETH, IB, OTHER, ALL in any case, or a comma-separated list of them (see meridian_carto --help)'

run_carto graph --type mem,gpu
expect_usage_error 'unknown vertex type "gpu" for --type: expected one of SLOT, MEM, ETH, IB, OTHER, ALL in any case, or a comma-separated list of them (see meridian_carto --help)'

run_carto graph --type MEM,
expect_usage_error 'unknown vertex type "" for --type: expected one of SLOT, MEM, ETH, IB, OTHER, ALL in any case, or a comma-separated list of them (see meridian_carto --help)'

run_carto graph --type=
expect_usage_error '--type needs a vertex type: one of SLOT, MEM, ETH, IB, OTHER, ALL (see meridian_carto --help)'

run_carto graph --type ''
expect_usage_error 'unknown vertex type "" for --type: expected one of SLOT, MEM, ETH, IB, OTHER, ALL in any case, or a comma-separated list of them (see meridian_carto --help)'

run_carto distance Slot1 --type
expect_usage_error '--type needs a vertex type: one of SLOT, MEM, ETH, IB, OTHER, ALL (see meridian_carto --help)'

# (Boost names an option by its long name.)
run_carto distance Slot1 -t
expect_usage_error '--type needs a vertex type: one of SLOT, MEM, ETH, IB, OTHER, ALL (see meridian_carto --help)'

run_carto distance Slot1 --type MEM --type IB
expect_usage_error '--type is given twice ("MEM" and "IB") (see meridian_carto --help)'

run_carto path Slot1 MEM0 --type MEM
expect_usage_error '--type does not apply to path: a path is measured in the whole graph (see meridian_carto --help)'

# --format.
run_carto graph --format svg
expect_usage_error 'unknown format "svg" for --format: expected one of carto, dot, json (see meridian_carto --help)'

run_carto graph -f
expect_usage_error '--format needs a format: one of carto, dot, json (see meridian_carto --help)'

run_carto graph --format
expect_usage_error '--format needs a format: one of carto, dot, json (see meridian_carto --help)'

run_carto graph --format dot --format json
expect_usage_error '--format is given twice ("dot" and "json") (see meridian_carto --help)'

run_carto distance Slot1 --format json
expect_usage_error '--format applies to graph only, not to distance (see meridian_carto --help)'

# Options.
run_carto graph --bogus
expect_usage_error 'unknown option --bogus (see meridian_carto --help)'

# No abbreviations: what is typed is what is matched.
run_carto graph --ty MEM
expect_usage_error 'unknown option --ty (see meridian_carto --help)'

run_carto graph -x
expect_usage_error 'unknown option -x (see meridian_carto --help)'

# Meridian's own options are the library's: a bad one is its message, and a
# command-line mistake too.
run_carto --mca carto_file_path
expect_usage_error 'command line: --mca needs a parameter name and a value, found only "carto_file_path"'

run_carto graph --tune
expect_usage_error 'command line: --tune needs a file name, found end of arguments'

# A --tune file that cannot be read is a failure, not a mistake in the
# command line.
run_carto --tune "$scratch/no-such-file" graph
expect_status 1
expect_out_empty
printf 'meridian: error: cannot read param file %s: No such file or directory\n' "$scratch/no-such-file" | expect_err

finish
