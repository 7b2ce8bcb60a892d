#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# No message is lost at exit, on every transport within a node: msg_driver's
# last_words (a sender ends right after its sends of 0 B - 4 MiB and a burst
# complete, its receiver looking away) and dead_sender (four sends complete
# and the sender ends; the receive of one had started, and is waited for
# only then; the other three start only then), each
# MSG_EXIT_RUNS times (default 20) over sm (with and without CMA), tcp, ofi
# (libfabric's tcp;ofi_rxm, with and without its shared receive queue) and
# ucx (UCX's shared memory, and its tcp).  A run fails when its receiver
# misses a byte, a message or its "ok" line.  msg_exit_hosts.sh does the
# same across simulated hosts.
# shellcheck source=test/support/mpi_test_lib.sh
. "$srcdir/../support/mpi_test_lib.sh"
# shellcheck source=test/msg/msg_exit_lib.sh
. "$srcdir/msg_exit_lib.sh"
if [ $mpi != yes ]; then
    echo "SKIP: needs mpirun and Meridian built with PMIx"
    exit 77
fi
setp msg_base_timeout 60
runs=${MSG_EXIT_RUNS:-20}
status=0

# repeat NAME ENV...: both modes $runs times each with ENV set.
repeat() {
    name=$1
    shift
    exit_repeat "$name" "" "$@" -- "$MPIRUN" -np 2
}

p=$MCA_ENV_PREFIX
repeat "sm"
repeat "sm without CMA" "${p}msg_sm_cma=off"
repeat "tcp" "${p}msg=^sm"
if [ "$HAVE_LIBFABRIC" = yes ]; then
    repeat "libfabric tcp;ofi_rxm" "${p}msg=^sm" "${p}msg_ofi_provider=tcp"
    repeat "libfabric tcp;ofi_rxm without its shared receive queue" "${p}msg=^sm" \
        "${p}msg_ofi_provider=tcp" FI_OFI_RXM_USE_SRX=0
fi
if [ "$HAVE_UCX" = yes ]; then
    repeat "ucx, shared memory" "${p}msg=self,ucx"
    repeat "ucx, tcp" "${p}msg=self,ucx" UCX_TLS=tcp
fi
exit $status
