#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# meridian_netmap's command line: --help, --version, and every mistake in the
# command line -- one message that names what is wrong and the choices, exit
# status 2, nothing on standard output, nothing read or allocated (the
# fabric file named does not exist, so a run that got further would fail
# differently).
. "$TEST_LIB"

# --help and -h print the same text, whatever else is given.
run_netmap --help
expect_status 0
expect_err_empty
cp "$out" "$scratch/help"
first=$(head -n 1 "$out")
[ "$first" = 'Usage: meridian_netmap [--mca NAME VALUE]... [--tune FILE[,FILE]]... --fabric FILE' ] ||
    fail "the first line of --help is: $first"
expect_out_line '  --fabric FILE         the fabric file (required; format:'
expect_out_line '  --bind B              what each process is bound to: core (default), package'
expect_out_line '  id=NAME       the allocation'"'"'s name (required)'
expect_out_line '  required      every value given must be met, or nothing is allocated;'
expect_out_line '  --mca pnet_tcp_static_ports '"'"'tcp:32000-32999;udp:40000-40099'"'"
expect_out_line "Parameters are also set in the environment (${P}NAME=VALUE) and in param"
expect_out_line 'Exit status: 0 on success; 1 when the allocation cannot be made (a fabric file'
if grep -q ' $' "$out"; then
    fail "a line of --help ends in a blank"
fi
for variant in -h "--fabric nosuch --help" "--bind sideways -h" "stray --help"; do
    # shellcheck disable=SC2086 # the variant is several words
    run_netmap $variant
    expect_status 0
    expect_err_empty
    cmp -s "$out" "$scratch/help" || fail "the help text differs from --help's"
done

run_netmap --version
expect_status 0
expect_err_empty
printf 'meridian_netmap (Meridian) %s\n' "$MERIDIAN_VERSION" | expect_out

# What is required.
run_netmap
expect_usage_error 'no fabric given: --fabric FILE is required (see meridian_netmap --help)'
run_netmap --fabric nosuch.fabric
expect_usage_error 'no hosts given: --hosts NODE[:N],... is required (see meridian_netmap --help)'
run_netmap --fabric nosuch.fabric --hosts node01:4 extra
expect_usage_error 'unexpected argument "extra": every input is given by an option (see meridian_netmap --help)'
run_netmap --fabric
expect_usage_error '--fabric needs a fabric file (see meridian_netmap --help)'
run_netmap --fabric nosuch.fabric --hosts node01:4 --request
expect_usage_error '--request needs a request such as id=NAME,type=tcp,endpts=2 (see meridian_netmap --help)'
run_netmap --fabric nosuch.fabric --hosts node01:4 --frobnicate
expect_usage_error 'unknown option --frobnicate (see meridian_netmap --help)'
run_netmap --fabric a.fabric --hosts node01:4 --fabric b.fabric
expect_usage_error '--fabric is given twice ("a.fabric" and "b.fabric") (see meridian_netmap --help)'

# Choices.
run_netmap --fabric nosuch.fabric --hosts node01:4 --bind socket
expect_usage_error 'unknown binding "socket" for --bind: expected one of core, package, none (see meridian_netmap --help)'
run_netmap --fabric nosuch.fabric --hosts node01:4 --bind
expect_usage_error '--bind needs a binding: one of core, package, none (see meridian_netmap --help)'
run_netmap --fabric nosuch.fabric --hosts node01:4 --format xml
expect_usage_error 'unknown format "xml" for --format: expected one of table, json (see meridian_netmap --help)'
run_netmap --fabric nosuch.fabric --hosts node01:4 --view sideways
expect_usage_error 'unknown view "sideways" for --view: expected one of logical, physical (see meridian_netmap --help)'

# Requests: which --request, and where in it.
run_netmap --fabric nosuch.fabric --hosts node01:4 --request "$bulk" --request id=ctl,endpt=2
expect_usage_error '--request #2:8: expected a request key (id, type, plane, endpts, seckey, qos, bw, required), found "endpt" (see meridian_netmap --help)'
run_netmap --fabric nosuch.fabric --hosts node01:4 --request id=x,endpts=0
expect_usage_error '--request #1:13: expected endpts=N with N 1-65535, found "0" (see meridian_netmap --help)'
run_netmap --fabric nosuch.fabric --hosts node01:4 --request type=tcp,endpts=2
expect_usage_error '--request #1:1: the request has no id (id=NAME is required) (see meridian_netmap --help)'
run_netmap --fabric nosuch.fabric --hosts node01:4 --request "$bulk" --request "$ctl" --request id=bulk
expect_usage_error '--request #3:1: request id "bulk" is used twice (also by --request #1) (see meridian_netmap --help)'

# Meridian's own options: a badly written one is a mistake in the command
# line; a --tune file that cannot be read is a failure.
run_netmap --fabric nosuch.fabric --hosts node01:4 --mca pnet_base_verbose
expect_usage_error 'command line: --mca needs a parameter name and a value, found only "pnet_base_verbose"'
run_netmap --fabric nosuch.fabric --hosts node01:4 --tune
expect_usage_error 'command line: --tune needs a file name, found end of arguments'
run_netmap --tune "$scratch/no-such.conf" --fabric "$example" --hosts node01:4
expect_failure "cannot read param file $scratch/no-such.conf: No such file or directory"

finish
