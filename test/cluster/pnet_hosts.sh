#!/bin/sh
# pnet and coord in-job across hosts: Open MPI's mpirun starts cluster_peer
# on three simulated hosts (contrib/cluster/cluster.sh: h1 and h2 on switch
# data0, h3 on data1, all three on mgmt), two processes each, and every
# process runs the pnet pipeline at meridian_init through PMIx.  Checked from
# what the processes print:
#   - each host's inventory from its own interfaces: NICs eth0, mgmt0, lo
#     (nearest first), endpoints on the host's own data address;
#   - static ports unique on each host (hosts may repeat each other's), from
#     the pool;
#   - every process computed the same allocation (agree=yes);
#   - coord_tcp's coordinates from the real interfaces: x the NIC's index on
#     its host, y its switch (pnet_tcp_switches), z its subnet;
#   - cost 0 on one host, 2 hops between hosts on one switch, 4 across the
#     trunk: larger between switches than on one;
#   - a plain PMIx client (pmix_reader, no Meridian header) on every host
#     reads every process's results;
#   - two jobs at once on the same hosts share no static port on any host
#     (the port ledger, which keeps each host's entries apart), and the
#     ledger is empty once both are done.
# Needs root, iproute2 and mpirun with PMIx; skipped otherwise.
# shellcheck disable=SC2154 # srcdir comes from the environment (make check)
# shellcheck source=test/support/hosts_test_lib.sh
. "$srcdir/../support/hosts_test_lib.sh"
# shellcheck source=test/support/mpi_test_lib.sh
. "$srcdir/../support/mpi_test_lib.sh"
if [ $mpi != yes ]; then
    echo "SKIP: needs mpirun and Meridian built with PMIx"
    exit 77
fi
MERIDIAN_CLUSTER=p$$
export MERIDIAN_CLUSTER
C=$CLUSTER
# shellcheck source=test/cluster/hosts_checks.sh
. "$srcdir/hosts_checks.sh"
hosts_up pnet-hosts

hosts_params "$ledger"

# mpirun in h1; its daemons reach h2 and h3 through the cluster's agent.
# Every process inherits this environment (the agent keeps it).
# shellcheck disable=SC2317 # called through run_one_job and the others
cluster_mpirun() {
    timeout -s KILL 120 "$C" exec h1 "$MPIRUN" --host h1:2,h2:2,h3:2 \
        --mca plm_rsh_agent "$C agent" --mca oob_tcp_if_include 10.77.0.0/24 "$@"
}

run_one_job cluster_mpirun
run_reader cluster_mpirun -x MERIDIAN_LIBRARY
run_event cluster_mpirun

# Two jobs at once on the same hosts: no port on a host given to both.
run_two_jobs cluster_mpirun

exit $status
