#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# In-job mode: meridian_init runs the pnet pipeline inside a job that Open
# MPI's mpirun started (2 and 4 processes), and in a process started alone.
# injob_peer (C++) and injob_peer_c (C) check each process's allocation.
# shellcheck source=test/support/mpi_test_lib.sh
. "$srcdir/../support/mpi_test_lib.sh"
setp pnet_base_requests "id=data,type=tcp,endpts=2,seckey=24"
setp pnet_tcp_static_ports "tcp:32000-32099"

status=0
# run NAME EXPECTED-OK-LINES COMMAND...: every process must report ok.
run() {
    name=$1 want=$2
    shift 2
    out=$("$@" 2>&1)
    rc=$?
    oks=$(echo "$out" | grep -c ': ok')
    if [ $rc -ne 0 ] || [ "$oks" -ne "$want" ]; then
        echo "FAIL: $name (exit $rc, $oks of $want processes ok):"
        echo "$out"
        status=1
    else
        echo "ok: $name"
        echo "$out" | sed 's/^/  /'
    fi
}

# Alone: the C++ program asks in_job(), which runs the pipeline then; the C
# program's first coord query runs it; with pnet_base_in_job=yes
# meridian_init runs it.
run "singleton (C++, auto)" 1 "$PEER"
run "singleton (C, auto: the first coord query)" 1 "$PEER_C"
setp pnet_base_in_job yes
run "singleton (C, in_job=yes)" 1 "$PEER_C"
unsetp pnet_base_in_job

if [ $mpi = yes ]; then
    run "mpirun -np 2 (C++)" 2 "$MPIRUN" -np 2 --oversubscribe "$PEER"
    run "mpirun -np 4 (C++)" 4 "$MPIRUN" -np 4 --oversubscribe "$PEER"
    run "mpirun -np 2 (C)" 2 "$MPIRUN" -np 2 --oversubscribe "$PEER_C"

    # Any PMIx client reads the results: a program that includes and links
    # only libpmix (Meridian loaded with dlopen) reads every rank's entries
    # under the request IDs, meridian.net.endpt and meridian.net.coord after a
    # fence.
    setp pnet_base_requests "id=data,type=tcp,endpts=2;id=ctl,type=udp,endpts=1"
    setp pnet_tcp_static_ports "tcp:32000-32099;udp:33000-33099"
    run "mpirun -np 2, read by a PMIx-only client" 2 \
        "$MPIRUN" -np 2 --oversubscribe -x MERIDIAN_LIBRARY "$PMIX_READER" data:tcp:2 ctl:udp:1
    run "mpirun -np 4, read by a PMIx-only client" 4 \
        "$MPIRUN" -np 4 --oversubscribe -x MERIDIAN_LIBRARY "$PMIX_READER" data:tcp:2 ctl:udp:1
    setp pnet_base_requests "id=data,type=tcp,endpts=2,seckey=24"
    setp pnet_tcp_static_ports "tcp:32000-32099"

    # Rank 0 changes the fabric during the job: every process hears the
    # coordinates-updated event through PMIx and through its Meridian
    # callback, and sees the new shape.
    run "mpirun -np 3, coordinates changed by rank 0" 3 \
        "$MPIRUN" -np 3 --oversubscribe "$EVENT_PEER"

    # A required request that cannot be met: meridian_init fails in every
    # process, saying why.  Its own range: ledger.sh, which make runs beside
    # this test, takes ports of 32000-32099, and the count of free ports the
    # message gives must not depend on it.
    setp pnet_base_requests "id=data,type=tcp,endpts=80,required"
    setp pnet_tcp_static_ports "tcp:32300-32399"
    out=$(INJOB_EXPECT_INIT_FAILURE=1 "$MPIRUN" -np 2 --oversubscribe -x INJOB_EXPECT_INIT_FAILURE "$PEER" 2>&1)
    fails=$(echo "$out" | grep -c 'FAIL: meridian_init')
    # The reason both give is printed once, with both ranks; where each
    # failed is each one's own.
    why=$(echo "$out" | grep -c 'meridian: error: \[ranks 0-1 on [^]]*\] request "data": ENDPTS 80 is required but .* has 100 free tcp ports for 2 processes$')
    where=$(echo "$out" | grep -c 'meridian: error: \[rank [01] on [^]]*\] in-job network setup (process .*:[01], node .*): the pnet component "tcp" failed in allocate')
    if [ "$fails" -ne 2 ] || [ "$why" -ne 1 ] || [ "$where" -ne 2 ]; then
        echo "FAIL: an unmet required request must fail meridian_init in both processes, with the reason:"
        echo "$out"
        status=1
    else
        echo "ok: unmet required request"
        echo "$out" | grep 'meridian: error' | sed 's/^/  /'
    fi
else
    echo "SKIP: the mpirun cases (no mpirun, or Meridian built without PMIx)"
fi
exit $status
