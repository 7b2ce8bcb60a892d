# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the QMP tests across two simulated hosts (qmp_hosts.sh: the
# drivers under mpirun; qmp_hosts_slurm.sh: under srun; qmp_halo_hosts.sh:
# the halo example on clean, lossy and broken links).  Each brings up a
# cluster of its own (contrib/cluster/cluster.sh, named after the test's
# process), so make check runs them side by side; it is torn down on exit,
# whatever happened.  Sets MPIRUN to an mpirun in h1 whose daemon reaches
# h2 through the cluster's agent, ranks dealt round-robin (--map-by node):
# ranks 0 and 1 on different hosts, so every run of two or more processes
# crosses hosts, over the tcp path, while processes on one host use shared
# memory.  mpirun's own traffic goes over the mgmt plane and QMP's over the
# data plane (FI_TCP_IFACE=eth0, UCX_NET_DEVICES=eth0), so a fault on eth0
# reaches QMP alone.
# Needs root and iproute2; $scratch is a directory of the test's own.
# shellcheck shell=sh
# shellcheck source=qmp_lib.sh
. "$QMP_TEST_SRC/qmp_lib.sh"
# shellcheck source=test/support/hosts_test_lib.sh
. "$QMP_TEST_SRC/../support/hosts_test_lib.sh"
if ! qmp_have_mpirun; then
    echo "SKIP: needs mpirun and Meridian built with PMIx"
    exit 77
fi
MERIDIAN_CLUSTER=q$$
export MERIDIAN_CLUSTER
scratch=$(mktemp -d "${TMPDIR:-/tmp}/qmp-hosts.XXXXXX")
qmp_hosts_cleanup() {
    "$CLUSTER" down
    rm -rf "$scratch" "$QMP_OUT" "$QMP_ERR"
}
trap qmp_hosts_cleanup EXIT
trap 'exit 1' INT TERM HUP
if ! "$CLUSTER" up 2 >"$scratch/up.out" 2>&1; then
    echo "FAIL: cluster.sh up 2:"
    cat "$scratch/up.out"
    exit 1
fi

# The drivers call "$MPIRUN -np N --oversubscribe ...".
cat >"$scratch/mpirun" <<END_OF_MPIRUN
#!/bin/sh
exec "$CLUSTER" exec h1 "$MPIRUN" --host h1:8,h2:8 --map-by node \\
    --mca plm_rsh_agent "$CLUSTER agent" --mca oob_tcp_if_include 10.78.0.0/24 "\$@"
END_OF_MPIRUN
chmod +x "$scratch/mpirun"
MPIRUN=$scratch/mpirun
QMP_RANK_HOSTS="h1 h2"
FI_TCP_IFACE=eth0
UCX_NET_DEVICES=eth0
export MPIRUN QMP_RANK_HOSTS FI_TCP_IFACE UCX_NET_DEVICES

# qmp_hosts_drivers SUFFIX DRIVER...: each driver (qmp_basic.sh, ...) with
# the MPIRUN in effect; SUFFIX ends the messages' "over h1 and h2".
qmp_hosts_drivers() {
    qhd_suffix=$1
    shift
    for qhd_driver in "$@"; do
        echo "==== $qhd_driver over h1 and h2$qhd_suffix"
        if ! sh "$QMP_TEST_SRC/$qhd_driver"; then
            qmp_fail "$qhd_driver over h1 and h2$qhd_suffix"
        fi
    done
}
