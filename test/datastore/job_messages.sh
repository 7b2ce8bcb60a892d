#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# One message per job (opal/runtime/job_messages.hpp): what the processes of
# an `mpirun -np 4` job on one node say alike is printed once, with their
# ranks (and how often, when one says it again); mca_base_message_aggregate=0
# gives each process's own line; a value that cannot be used fails start-up
# with its message; a process alone names no rank.  job_messages_peer.c says
# what it is told to.  Skipped (77) without mpirun or PMIx.
# shellcheck disable=SC2154 # srcdir comes from the environment (make check)
# shellcheck source=test/support/mpi_test_lib.sh
. "$srcdir/../support/mpi_test_lib.sh"
if [ $mpi != yes ]; then
    echo "SKIP: needs mpirun and Meridian built with PMIx"
    exit 77
fi
failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# run NAME ARGS...: the job's standard error in $out, its status in $rc.
run() {
    name=$1
    shift
    echo "== $name: mpirun -np 4 job_messages_peer $*"
    out=$("$MPIRUN" -np 4 --oversubscribe "$JOB_MESSAGES_PEER" "$@" 2>&1 >/dev/null)
    rc=$?
    echo "$out"
}

# expect_lines COUNT ERE: COUNT of the job's lines match ERE.
expect_lines() {
    got=$(printf '%s\n' "$out" | grep -cE -- "$2")
    [ "$got" -eq "$1" ] || fail "$name: expected $1 line(s) matching '$2', got $got"
}

run "a typo, said by every rank" --mca carto_base_verbos 1
[ $rc -eq 0 ] || fail "$name: the job exited with $rc"
expect_lines 1 'carto_base_verbos'
expect_lines 1 '^meridian: warning: \[ranks 0-3 on [^]]+\] MCA parameter "carto_base_verbos" \(set in the command line\) is not registered'

run "every process its own" --mca carto_base_verbos 1 --mca mca_base_message_aggregate 0
[ $rc -eq 0 ] || fail "$name: the job exited with $rc"
expect_lines 4 'carto_base_verbos'
for r in 0 1 2 3; do
    expect_lines 1 "^meridian: warning: \\[rank $r on [^]]+\\] MCA parameter \"carto_base_verbos\""
done

run "a value that cannot be used" --mca carto_base_verbose loud
[ $rc -ne 0 ] || fail "$name: the job exited with 0"
expect_lines 1 'loud'
expect_lines 1 '^meridian: error: \[ranks 0-3 on [^]]+\] bad value "loud" for MCA parameter carto_base_verbose from the command line'

run "one rank's warning" --warn-rank 2 "only rank two says this"
[ $rc -eq 0 ] || fail "$name: the job exited with $rc"
expect_lines 1 '^meridian: warning: \[rank 2 on [^]]+\] only rank two says this$'

run "one rank says it twice" --warn-rank 1 "rank one repeats this" --warn-rank 1 "rank one repeats this"
[ $rc -eq 0 ] || fail "$name: the job exited with $rc"
expect_lines 1 'rank one repeats this'
expect_lines 1 '^meridian: warning: \[rank 1 on [^]]+\] rank one repeats this \(said 2 times\)$'

run "said by all after start-up" --warn-all "all of us say this" --error-all "and this"
[ $rc -eq 0 ] || fail "$name: the job exited with $rc"
expect_lines 1 '^meridian: warning: \[ranks 0-3 on [^]]+\] all of us say this$'
expect_lines 1 '^meridian: error: \[ranks 0-3 on [^]]+\] and this$'

run "a process that exits without finalizing" --warn-rank 3 "rank three leaves" --exit-without-finalize
expect_lines 1 '^meridian: warning: \[rank 3 on [^]]+\] rank three leaves$'

# A process alone: no rank, no waiting.
name="a process alone"
echo "== $name"
out=$(env -u PMIX_RANK -u PMIX_NAMESPACE "$JOB_MESSAGES_PEER" --mca carto_base_verbos 1 2>&1 >/dev/null)
rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "$name: exited with $rc"
expect_lines 1 '^meridian: warning: MCA parameter "carto_base_verbos" \(set in the command line\)'

if [ $failures -ne 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
exit 0
