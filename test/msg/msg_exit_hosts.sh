#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# msg_exit.sh's cases across two simulated hosts (contrib/cluster/cluster.sh):
# the sender (rank 1) on h2, its receiver on h1, over tcp, ofi (libfabric's
# tcp;ofi_rxm) and ucx (UCX's tcp), MSG_EXIT_HOSTS_RUNS times each (default
# 10), on a clean link and on one where h2's data link delays 5 ms, so a
# sender's last bytes are still on their way (unacknowledged, in its host's
# queues) when its sends complete and it ends.  mpirun's own traffic goes
# over the mgmt plane.  The hosts go on exit, whatever happened.  Needs
# root and iproute2.
# shellcheck source=test/support/hosts_test_lib.sh
. "$srcdir/../support/hosts_test_lib.sh"
# shellcheck source=test/support/mpi_test_lib.sh
. "$srcdir/../support/mpi_test_lib.sh"
# shellcheck source=test/msg/msg_exit_lib.sh
. "$srcdir/msg_exit_lib.sh"
if [ $mpi != yes ]; then
    echo "SKIP: needs mpirun and Meridian built with PMIx"
    exit 77
fi
MERIDIAN_CLUSTER=x$$
export MERIDIAN_CLUSTER
scratch=$(mktemp -d "${TMPDIR:-/tmp}/msg-exit-hosts.XXXXXX")
cleanup() {
    "$CLUSTER" down
    rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
if ! "$CLUSTER" up 2 >"$scratch/up.out" 2>&1; then
    echo "FAIL: cluster.sh up 2:"
    cat "$scratch/up.out"
    exit 1
fi
TMPDIR=$scratch
export TMPDIR

setp msg_base_timeout 60
# The data plane for every transport (tcp listens on the interface the
# job's processes reach each other through: eth0 here).
setp msg_tcp_if_include eth0
FI_TCP_IFACE=eth0
UCX_NET_DEVICES=eth0
export FI_TCP_IFACE UCX_NET_DEVICES
runs=${MSG_EXIT_HOSTS_RUNS:-10}
status=0

# repeat NAME ENV...: both modes $runs times each, ranks 0 on h1 and 1 on h2.
repeat() {
    name=$1
    shift
    exit_repeat "$name" " across h1 and h2" "$@" -- "$CLUSTER" exec h1 "$MPIRUN" -np 2 \
        --host h1,h2 --map-by node --mca plm_rsh_agent "$CLUSTER agent" \
        --mca oob_tcp_if_include 10.78.0.0/24
}

p=$MCA_ENV_PREFIX
transports() {
    link=$1
    repeat "tcp, $link" "${p}msg=^sm"
    if [ "$HAVE_LIBFABRIC" = yes ]; then
        repeat "libfabric tcp;ofi_rxm, $link" "${p}msg=^sm" "${p}msg_ofi_provider=tcp"
    fi
    if [ "$HAVE_UCX" = yes ]; then
        repeat "ucx tcp, $link" "${p}msg=self,ucx" UCX_TLS=tcp,self
    fi
}
transports "clean link"
if ! out=$("$CLUSTER" fault h2 eth0 delay 5ms 2>&1); then
    echo "FAIL: cluster.sh fault h2 eth0 delay 5ms: $out"
    exit 1
fi
transports "h2's link 5 ms late"
exit $status
