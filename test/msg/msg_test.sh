#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The msg transports: msg_driver (see its header) under Open MPI's mpirun
# with 1, 2 and 4 processes, over sm (the default within a node; with and
# without CMA), ofi (--mca msg ^sm, msg_ofi_provider=tcp: libfabric 1.x's
# tcp;ofi_rxm, 2.x's tcp), tcp
# (--mca msg ^sm: Meridian's own sockets, over loopback) and ucx (--mca msg
# self,ucx: UCX's shared memory, and UCX_TLS=tcp); a killed peer, a timeout
# and early messages over each; processes whose choices of transport
# disagree; the old parameter names.  (msg_exit.sh: senders that end first.)
# Each check reads the processes' output, not only mpirun's exit code.
# shellcheck source=test/support/mpi_test_lib.sh
. "$srcdir/../support/mpi_test_lib.sh"
# Every wait of the suite is short; a hang fails within a minute.
setp msg_base_timeout 60
# libfabric's tcp provider, as a pattern: 1.x gives rxm over tcp's message
# endpoints, 2.x (Debian 13) tcp's own reliable endpoints.
ofi_tcp='tcp\(;ofi_rxm\)\{0,1\}'

status=0
fail() {
    echo "FAIL: $1"
    echo "$out" | sed 's/^/  | /'
    status=1
}
# expect NAME COUNT PATTERN: the last output has COUNT lines matching PATTERN.
expect() {
    got=$(echo "$out" | untag | grep -c -e "$3")
    if [ "$got" -ne "$2" ]; then
        fail "$1: $got lines match '$3', expected $2"
        return 1
    fi
    return 0
}

# expect_each NAME NP PATTERN: each of the NP processes that fail at their
# start says PATTERN once -- those that got as far: Open MPI 5's mpirun ends
# the others as soon as the first has failed (4.1 lets each say it).
expect_each() {
    got=$(echo "$out" | untag | grep -c -e "$3")
    if [ "$got" -gt "$2" ] || [ "$got" -lt 1 ] ||
        { [ "${ompi_major:-4}" -lt 5 ] && [ "$got" -ne "$2" ]; }; then
        fail "$1: $got lines match '$3', expected $2 (Open MPI ${ompi_major:-?})"
        return 1
    fi
    return 0
}

# suite NAME NP PATH-PATTERN [mpirun...]: every process reports ok, with the
# path to its ring neighbour, and the transport's messages for the bad input.
suite() {
    name=$1 np=$2 path=$3
    shift 3
    out=$("$@" "$DRIVER" suite 2>&1)
    rc=$?
    if [ $rc -ne 0 ]; then
        fail "$name (exit $rc)"
        return
    fi
    expect "$name" "$np" "^rank [0-9]*: ok ($np processes, path to rank [0-9]*: $path)\$" || return
    # libfabric is loaded only when ofi carries peers, or to check a
    # provider named in msg_ofi_provider.
    provider=$(eval "echo \${${MCA_ENV_PREFIX}msg_ofi_provider:-}")
    case $path/$provider in
    ofi:*/* | */?*) loaded=loaded ;;
    *) loaded="not loaded" ;;
    esac
    expect "$name" "$np" "^rank [0-9]*: libfabric $loaded\$" || return
    # UCX likewise, only when ucx carries peers.
    case $path in
    ucx:*) loaded=loaded ;;
    *) loaded="not loaded" ;;
    esac
    expect "$name" "$np" "^rank [0-9]*: UCX $loaded\$" || return
    expect "$name" "$np" "^meridian: error: msg: a channel to rank $np, but the job has ranks 0-$((np - 1))\$" || return
    expect "$name" "$np" "^meridian: error: msg: a channel's blocks hold 1 bytes, its size says 2\$" || return
    # A message longer than its receive fails it, with both sizes; a shorter
    # one is delivered quietly.
    # (libfabric reports it only as truncated; UCX gives the size when the
    # message came before its receive.)
    case $path in
    ofi:*) b16="libfabric reported a truncation" b100000=$b16 b35=$b16 ;;
    ucx:*)
        t="UCX reported a truncation"
        b16="\(16 bytes\|$t\)" b100000="\(100000 bytes\|$t\)" b35="\(35 bytes\|$t\)"
        ;;
    *) b16="16 bytes" b100000="100000 bytes" b35="35 bytes" ;;
    esac
    longer="^meridian: error: msg: rank [0-9]*: the receive from rank [0-9]* (node .*, path $path) with tag 0xd"
    expect "$name" "$np" "$longer holds 8 bytes, the message is longer: $b16\$" || return
    expect "$name" "$np" "$longer holds 50000 bytes, the message is longer: $b100000\$" || return
    expect "$name" "$np" "$longer holds 30 bytes, the message is longer: $b35\$" || return
    expect "$name" "$((3 * np))" "$longer holds" || return
    expect "$name" "$np" "^meridian: error: msg: the send to rank [0-9]* (node .*, path self) with tag 0x13 is started already\$" || return
    expect "$name" 0 "FAIL" || return
    echo "ok: $name"
}

# Listing the components and their parameters does not load libfabric (its
# providers' libraries probe for hardware as they load: ~170 ms).
name="meridian_info without libfabric"
out=$(LD_DEBUG=files "$MERIDIAN_INFO" --all --parsable 2>&1)
if expect "$name" 1 "^mca:msg:ofi:param:msg_ofi_provider:value:auto\$" &&
    expect "$name" 0 "file=libfabric"; then
    echo "ok: $name"
fi
if [ "$HAVE_UCX" = yes ]; then
    name="meridian_info without UCX"
    if expect "$name" 1 "^mca:msg:ucx:param:msg_ucx_priority:value:50\$" &&
        expect "$name" 0 "file=libuc[pst]"; then
        echo "ok: $name"
    fi
fi

suite "one process" 1 self
setp msg ^sm
suite "one process, msg ^sm" 1 self
unsetp msg

# A provider libfabric does not offer is refused though no peer needs
# libfabric (one process, or all on this node): the setting must not work on
# one node and fail on two.
bogus_provider() {
    name=$1
    shift
    out=$("$@" "$DRIVER" suite 2>&1)
    rc=$?
    [ $rc -ne 0 ] || { fail "$name: exit 0"; return; }
    # The providers that would do are named (tcp, at least, on every host).
    expect_each "$name" "$NP" "^meridian: error: msg ofi: no libfabric provider offers reliable tagged messages with msg_ofi_provider=bogus.* (fi_getinfo: [^)]*); offered here: .*tcp.*\$" || return
    expect "$name" 0 "^rank [0-9]*: ok" || return
    echo "ok: $name"
}
setp msg_ofi_provider bogus
NP=1 bogus_provider "msg_ofi_provider=bogus, one process"
unsetp msg_ofi_provider

if [ $mpi = yes ]; then
    for np in 2 4; do
        suite "sm, $np processes" $np "sm\(+cma\)\{0,1\}" "$MPIRUN" -np $np --oversubscribe
    done
    setp msg_sm_cma off
    suite "sm without CMA, 2 processes" 2 sm "$MPIRUN" -np 2 --oversubscribe
    unsetp msg_sm_cma
    setp msg_ofi_provider bogus
    NP=2 bogus_provider "msg_ofi_provider=bogus, 2 processes on sm" "$MPIRUN" -np 2
    unsetp msg_ofi_provider

    # Ring sizes the rings cannot take are changed to fit, and each process
    # says so once: tiny rings (4 slots of 256 bytes) still carry every size.
    setp msg_sm_slots 3
    setp msg_sm_slot_size 200
    suite "sm with 3 slots of 200 bytes asked, 2 processes" 2 "sm\(+cma\)\{0,1\}" "$MPIRUN" -np 2 --oversubscribe
    expect "rounded ring sizes" 2 "^meridian: warning: msg_sm_slots is 3, not a power of two of at least 2: each ring has 4 slots\$"
    expect "rounded ring sizes" 2 "^meridian: warning: msg_sm_slot_size is 200, not a multiple of 64: each slot has 256 bytes\$"
    unsetp msg_slots
    unsetp msg_slot_size
    if [ "$HAVE_LIBFABRIC" = yes ]; then
        setp msg ^sm
        setp msg_ofi_provider tcp
        for np in 2 4; do
            suite "libfabric tcp, $np processes" $np "ofi:$ofi_tcp" "$MPIRUN" -np $np --oversubscribe
        done
        unsetp msg_ofi_provider
        # tcp: one connection per pair, opened by the first to send (both at
        # once in the suite's exchanges: the lower rank's stays).  libfabric
        # stays closed.
        for np in 2 4 6; do
            suite "tcp, $np processes" $np "tcp" "$MPIRUN" -np $np --oversubscribe
        done
        # Processes that choose differently (here one names a provider, so
        # its ofi offers more than tcp) are refused, each saying why.
        name="msg_ofi_provider=tcp in one process only"
        out=$(mpmd -np 1 "$DRIVER" suite : -np 1 env "${MCA_ENV_PREFIX}msg_ofi_provider=tcp" "$DRIVER" suite 2>&1)
        if expect "$name" 1 "^meridian: error: msg: rank 1 reaches rank 0 through ofi, rank 0 reaches it through tcp (set msg and the msg_\*_priority parameters alike everywhere; transports and offers of rank 1: ofi:0,40,40;self:100,0,0;tcp:0,20,20\(;ucx:5,5,10\)\{0,1\})\$" &&
            expect "$name" 1 "^meridian: error: msg: rank 0 reaches rank 1 through tcp, rank 1 reaches it through ofi (.*)\$" &&
            expect "$name" 0 "ok ("; then
            echo "ok: $name"
        fi
        unsetp msg
    fi

    # ucx: UCX's shared memory within the node (self and sm left out), then
    # its tcp over loopback.
    if [ "$HAVE_UCX" = yes ]; then
        setp msg self,ucx
        for np in 2 4; do
            suite "ucx, $np processes" $np "ucx:[a-z_,]*" "$MPIRUN" -np $np --oversubscribe
        done
        UCX_TLS=tcp
        export UCX_TLS
        suite "ucx with UCX_TLS=tcp, 2 processes" 2 "ucx:tcp" "$MPIRUN" -np 2
        unset UCX_TLS
        unsetp msg
    fi

    # The names the parameters had when one component held every transport
    # still work, each saying its new name.
    setp msg_ofi_shm off
    unsetp msg_base_timeout
    setp msg_ofi_timeout 61
    name="msg_ofi_shm=off and msg_ofi_timeout, 2 processes"
    out=$("$MPIRUN" -np 2 "$DRIVER" suite 2>&1)
    if expect "$name" 2 "^rank [01]: ok (2 processes, path to rank [01]: tcp)\$" &&
        expect "$name" 2 "^meridian: warning: msg_ofi_shm=off is deprecated: the sm transport is left out; say --mca msg ^sm instead\$" &&
        expect "$name" 2 "^meridian: warning: MCA parameter msg_ofi_timeout (set in environment variable [A-Z_]*msg_ofi_timeout) is deprecated; use msg_base_timeout instead\$"; then
        echo "ok: $name"
    fi
    unsetp msg_ofi_shm
    unsetp msg_ofi_timeout
    setp msg_base_timeout 60

    # The pnet assignment's endpoint (pnet tcp with a static port pool): the
    # libfabric endpoint listens on the address and port pnet gave.
    if [ "$HAVE_LIBFABRIC" = yes ]; then
        saved_path=$(eval "echo \$${MCA_ENV_PREFIX}mca_base_component_path")
        setp mca_base_component_path "$saved_path:$COMPONENTS/pnet_tcp/.libs:$COMPONENTS/coord_tcp/.libs:$COMPONENTS/carto_auto/.libs"
        setp pnet tcp
        setp coord tcp
        setp pnet_base_requests "id=data,type=tcp,endpts=1"
        setp pnet_tcp_static_ports "tcp:32100-32199"
        setp msg ^sm
        setp msg_ofi_provider tcp
        setp msg_base_verbose info
        name="libfabric tcp on the pnet endpoint"
        out=$("$MPIRUN" -np 2 "$DRIVER" suite 2>&1)
        if expect "$name" 2 "^rank [01]: ok (2 processes, path to rank [01]: ofi:$ofi_tcp)\$" &&
            expect "$name" 2 "^meridian: msg: msg ofi: libfabric provider $ofi_tcp, .*, bound to the pnet endpoint [0-9.]*:321[0-9][0-9]\$"; then
            echo "ok: $name"
            echo "$out" | grep 'bound to' | sed 's/^/  /'
        fi
        # tcp listens there too.
        unsetp msg_ofi_provider
        name="tcp on the pnet endpoint"
        out=$("$MPIRUN" -np 2 "$DRIVER" suite 2>&1)
        if expect "$name" 2 "^rank [01]: ok (2 processes, path to rank [01]: tcp)\$" &&
            expect "$name" 2 "^meridian: msg: msg tcp: rank [01] listening on [0-9.]*:321[0-9][0-9] (the pnet endpoint)\$"; then
            echo "ok: $name"
            echo "$out" | grep 'listening on' | sed 's/^/  /'
        fi
        for p in pnet coord pnet_base_requests pnet_tcp_static_ports msg msg_ofi_provider msg_base_verbose; do
            unsetp $p
        done
        setp mca_base_component_path "$saved_path"
    fi

    # Another job's live segment under the name this job's ring segment had
    # before names were unique (its namespace sanitised, its rank; "a-b" and
    # "a_b" gave the same): the transport neither takes it over nor
    # removes it.
    for np in 2 4; do
        name="a segment of another job under this job's old name, $np processes"
        out=$("$MPIRUN" -np $np --oversubscribe "$DRIVER" planted 2>&1)
        rc=$?
        if [ $rc -ne 0 ]; then
            fail "$name (exit $rc)"
        elif expect "$name" $np "^rank [0-9]*: planted segment intact: ok\$" &&
            expect "$name" 0 "FAIL"; then
            echo "ok: $name"
        fi
    done

    # A killed peer: rank 1 SIGKILLs itself while rank 0 waits on it.  mpirun
    # then SIGTERMs rank 0 (which ignores it) and SIGKILLs it 2 s later; rank
    # 0 must have said what its wait returned by then.
    kill_case() {
        name=$1 path=$2
        out=$("$MPIRUN" -np 2 --mca odls_base_sigkill_timeout 2 "$DRIVER" kill 2>&1)
        expect "$name" 1 "^rank 0: unreach after [0-9]* ms: ok\$" || return
        expect "$name" 1 "^meridian: error: msg: rank 0 on node .*: peer rank 1 (node .*, path $path) died: process [0-9]* \(exited\|was killed or exited (it is a zombie)\)\$" || return
        expect "$name" 0 "FAIL" || return
        echo "ok: $name"
        echo "$out" | grep -e '^rank 0' -e 'died' | sed 's/^/  /'
    }
    kill_case "killed peer, sm" "sm\(+cma\)\{0,1\}"
    if [ "$HAVE_LIBFABRIC" = yes ]; then
        setp msg ^sm
        setp msg_ofi_provider tcp
        kill_case "killed peer, libfabric tcp" "ofi:$ofi_tcp"
        unsetp msg_ofi_provider
        # Over tcp the closed connection tells first, or the pid.
        name="killed peer, tcp"
        out=$("$MPIRUN" -np 2 --mca odls_base_sigkill_timeout 2 "$DRIVER" kill 2>&1)
        if expect "$name" 1 "^rank 0: unreach after [0-9]* ms: ok\$" &&
            expect "$name" 1 "^meridian: error: msg: rank 0 on node .*: peer rank 1 (node .*, path tcp) \(closed its connection\|died: process [0-9]* .*\)\$" &&
            expect "$name" 0 "FAIL"; then
            echo "ok: $name"
            echo "$out" | grep -e '^rank 0' -e 'peer rank 1' | sed 's/^/  /'
        fi
        unsetp msg
    fi
    if [ "$HAVE_UCX" = yes ]; then
        setp msg self,ucx
        kill_case "killed peer, ucx" "ucx:[a-z_,]*"
        unsetp msg
    fi

    setp msg_sm_cma off
    # Early messages past msg_base_unexpected_limit wait in their ring or
    # connection, their sender's sends with them, until the receives start.
    # early_case NAME [PATTERN]: and PATTERN, when given, is printed once.
    early_case() {
        name=$1
        setp msg_base_unexpected_limit 1048576
        out=$("$MPIRUN" -np 2 "$DRIVER" early 2>&1)
        rc=$?
        unsetp msg_base_unexpected_limit
        [ $rc -eq 0 ] || { fail "$name (exit $rc)"; return; }
        expect "$name" 1 "^rank 0: three early messages right: ok\$" || return
        expect "$name" 1 "^rank 1: sends waited [0-9]* ms: ok\$" || return
        [ -z "${2:-}" ] || expect "$name" 1 "$2" || return
        expect "$name" 0 "FAIL" || return
        echo "ok: $name"
        echo "$out" | grep -e 'waited' | sed 's/^/  /'
    }
    early_case "early messages past msg_base_unexpected_limit, sm without CMA"
    unsetp msg_sm_cma
    if [ "$HAVE_LIBFABRIC" = yes ]; then
        setp msg ^sm
        setp msg_ofi_provider tcp
        unsetp msg_ofi_provider
        setp msg_base_verbose debug
        early_case "early messages past msg_base_unexpected_limit, tcp" \
            "^meridian: msg: msg tcp: rank 0: a message of 16777216 bytes with tag 0xea0 from rank 1 (node .*, path tcp) waits in its connection for its receive (msg_base_unexpected_limit)\$"
        unsetp msg_base_verbose
        unsetp msg
    fi

    # A peer that never sends: msg_base_timeout=1 ends rank 0's wait, with a
    # message naming the channel.
    timeout_case() {
        name=$1 path=$2
        out=$("$MPIRUN" -np 2 "$DRIVER" timeout 2>&1)
        rc=$?
        [ $rc -eq 0 ] || { fail "$name (exit $rc)"; return; }
        expect "$name" 1 "^rank 0: timeout after [0-9]* ms: ok\$" || return
        expect "$name" 1 "^meridian: error: msg: rank 0: a wait timed out after 1 s (msg_base_timeout) with 1 of 1 channels incomplete: the receive from rank 1 (node .*, path $path) with tag 0x19\$" || return
        expect "$name" 0 "FAIL" || return
        echo "ok: $name"
    }
    setp msg_base_timeout 1
    timeout_case "timeout, sm" "sm\(+cma\)\{0,1\}"
    if [ "$HAVE_LIBFABRIC" = yes ]; then
        setp msg ^sm
        setp msg_ofi_provider tcp
        timeout_case "timeout, libfabric tcp" "ofi:$ofi_tcp"
        unsetp msg_ofi_provider
        timeout_case "timeout, tcp" "tcp"
        unsetp msg
    fi
    if [ "$HAVE_UCX" = yes ]; then
        setp msg self,ucx
        timeout_case "timeout, ucx" "ucx:[a-z_,]*"
        unsetp msg
    fi
    setp msg_base_timeout 60
else
    echo "SKIP: the mpirun cases (no mpirun, or Meridian built without PMIx)"
fi
exit $status
