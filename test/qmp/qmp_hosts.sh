#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# QMP over two hosts, started by Open MPI's mpirun (qmp_hosts_lib.sh: ranks
# dealt round-robin to h1 and h2): which path each pair takes (shared memory
# within a host, the tcp path between; with ucx given the other host, ucx
# between, and the QMP programs of message memory, channels and collectives
# over that mix), then the QMP drivers again (init, output, errors, abort,
# machine, topology, communicators, message memory, channels, freed handles,
# collectives, the C++ binding, re-init, a killed or silent peer, a lost
# launcher, MPI communicators under QMP's), every run of two or more
# processes crossing hosts.
# qmp_hosts_slurm.sh runs them under srun, qmp_halo_hosts.sh the halo
# example on faulty links.  Needs root and iproute2.
# shellcheck source=qmp_hosts_lib.sh
. "$QMP_TEST_SRC/qmp_hosts_lib.sh"

# The paths: shared memory within a host, the tcp path between.
qmp_setp msg_base_verbose info
qmp_launch 4 qmp_init_test app-np=4
qmp_unsetp msg_base_verbose
for pair in "0 -> rank 2: sm(\+cma)?" "1 -> rank 3: sm(\+cma)?" "0 -> rank 1: tcp" \
    "3 -> rank 0: tcp"; do
    if ! grep -Eq "rank $pair\$" "$QMP_OUT" "$QMP_ERR"; then
        qmp_fail "np=4 on h1 and h2: expected the path rank $pair; the transport said:"
        grep -h -- '->' "$QMP_OUT" "$QMP_ERR" | sed 's/^/  | /'
    fi
done
# shellcheck disable=SC2154 # qmp_lib.sh sets it
[ "$qmp_status" -eq 0 ] && echo "ok: shared memory within each host, the tcp path between them"


# A job of two transports over ucx: sm within each host, UCX's tcp between
# them (msg_ucx_tcp_priority over tcp's 20), every value checked.
if [ "$HAVE_UCX" = yes ]; then
    qmp_setp msg_ucx_tcp_priority 30
    qmp_setp msg_base_verbose info
    qmp_launch 4 qmp_init_test app-np=4
    qmp_unsetp msg_base_verbose
    for pair in "0 -> rank 2: sm(\+cma)?" "3 -> rank 1: sm(\+cma)?" "0 -> rank 1: ucx:tcp" \
        "3 -> rank 0: ucx:tcp"; do
        if ! grep -Eq "rank $pair\$" "$QMP_OUT" "$QMP_ERR"; then
            qmp_fail "np=4 on h1 and h2, ucx between: expected the path rank $pair; the transport said:"
            grep -h -- '->' "$QMP_OUT" "$QMP_ERR" | sed 's/^/  | /'
        fi
    done
    [ "$qmp_status" -eq 0 ] && echo "ok: shared memory within each host, ucx between them"
    qmp_run "message memory (sm within, ucx between), np=4" 4 qmp_mem_test
    qmp_run "channels (sm within, ucx between), np=4, topology 2x2" 4 qmp_channel_test app-dims=2x2
    qmp_run "collectives (sm within, ucx between), np=4" 4 qmp_coll_test
    qmp_run "handles freed while started (sm within, ucx between), np=4" 4 qmp_free_test
    qmp_unsetp msg_ucx_tcp_priority
fi

qmp_hosts_drivers "" qmp_basic.sh qmp_machine.sh qmp_p2p.sh qmp_coll.sh qmp_cxx.sh \
    qmp_reinit.sh qmp_peer_death.sh qmp_launcher_loss.sh qmp_mpi_comm.sh
exit "$qmp_status"
