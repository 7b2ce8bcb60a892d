#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tcp_attack.sh's strangers across simulated hosts (contrib/cluster/cluster.sh,
# three hosts): the attacked job's rank 0 on h1 and rank 1 on h2, started by
# Open MPI's mpirun in h1 (its daemon reaching h2 through the cluster's
# agent, its own traffic on the mgmt plane), the tcp path between them on the
# data plane (FI_TCP_IFACE=eth0).  The stranger runs on h3, its wrong source
# address h3's data address; the replay comes from h2, rank 1's host.  h3's
# mgmt link is down, so the stranger reaches the job on the data plane alone:
# a listener anywhere else fails every case ("cannot connect").  The hosts go
# on exit, whatever happened.  Needs root and iproute2.
# shellcheck disable=SC2154 # srcdir comes from the environment (make check)
# shellcheck source=test/support/hosts_test_lib.sh
. "$srcdir/../support/hosts_test_lib.sh"
# shellcheck source=test/support/mpi_test_lib.sh
. "$srcdir/../support/mpi_test_lib.sh"
# Without them tcp_attack.sh says why it skips, before any host is up.
if [ $mpi != yes ] || [ "$HAVE_LIBFABRIC" != yes ]; then
    exec sh "$srcdir/tcp_attack.sh"
fi
MERIDIAN_CLUSTER=a$$
export MERIDIAN_CLUSTER
# shellcheck source=test/cluster/hosts_checks.sh
. "$srcdir/../cluster/hosts_checks.sh"
hosts_up tcp-attack-hosts
# The jobs' scratch files go with the hosts.
TMPDIR=$scratch
export TMPDIR
if ! out=$("$CLUSTER" link h3 mgmt0 down 2>&1); then
    echo "FAIL: cluster.sh link h3 mgmt0 down: $out"
    exit 1
fi

# tcp_attack.sh splits ATTACK_JOB into words, so the agent, one word with
# its space, comes through the environment (the agent keeps it for h2):
# Open MPI 4.1's name, and PRRTE's (Open MPI 5).
OMPI_MCA_plm_rsh_agent="$CLUSTER agent"
PRTE_MCA_plm_ssh_agent="$CLUSTER agent"
FI_TCP_IFACE=eth0
ATTACK_JOB="$CLUSTER exec h1 $MPIRUN -np 2 --host h1,h2 --map-by node --mca oob_tcp_if_include 10.78.0.0/24"
ATTACK_STRANGER="$CLUSTER exec h3"
ATTACK_RANK1_HOST="$CLUSTER exec h2"
ATTACK_WRONG_SOURCE=10.77.0.3
export OMPI_MCA_plm_rsh_agent PRTE_MCA_plm_ssh_agent FI_TCP_IFACE ATTACK_JOB ATTACK_STRANGER ATTACK_RANK1_HOST \
    ATTACK_WRONG_SOURCE
sh "$srcdir/tcp_attack.sh"
