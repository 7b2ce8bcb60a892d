#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Message memory (halo exchanges of every kind) and channels, alone and under
# mpirun with 1, 2 and 4 processes, in several logical shapes (an axis of 2
# has the same neighbour both ways, an axis of 1 is the process itself), and
# handles freed while started, on the default path (sm, also without CMA)
# and, without sm, on libfabric's tcp, on the tcp transport and on ucx (UCX's
# shared memory).
# shellcheck source=qmp_lib.sh
. "$QMP_TEST_SRC/qmp_lib.sh"

paths="default tcp"
[ "$HAVE_LIBFABRIC" = yes ] && paths="$paths libfabric"
[ "$HAVE_UCX" = yes ] && paths="$paths ucx"
for path in $paths; do
    if [ "$path" = ucx ]; then
        qmp_setp msg self,ucx
        qmp_unsetp msg_ofi_provider
        mem_shapes="2 4"
        channel_cases="2:2x1 4:2x2"
        qmp_expect_path "ucx" "ucx:[a-z_,]*"
    elif [ "$path" = libfabric ]; then
        qmp_setp msg ^sm
        qmp_setp msg_ofi_provider tcp
        mem_shapes="2 4"
        channel_cases="2:2x1 4:2x2"
        qmp_expect_path "libfabric's tcp" "ofi:tcp(;ofi_rxm)?"
    elif [ "$path" = tcp ]; then
        qmp_setp msg ^sm
        qmp_unsetp msg_ofi_provider
        mem_shapes="2 4"
        channel_cases="2:2x1 4:2x2"
        qmp_expect_path "tcp path" "tcp"
    else
        mem_shapes=$QMP_SHAPES
        channel_cases="0:1 1:1x1x1x1 2:2 2:2x1 3:3 4:4 4:2x2 4:1x4x1"
        qmp_expect_path "default path" "sm(\+cma)?"
    fi
    for np in $mem_shapes; do
        qmp_run "message memory ($path), np=$np" "$np" qmp_mem_test
    done
    for case in $channel_cases; do
        np=${case%%:*}
        dims=${case#*:}
        qmp_run "channels ($path), np=$np, topology $dims" "$np" qmp_channel_test app-dims="$dims"
    done
    # Handles freed while started, at every size the path handles apart
    # (qmp_free_test: one slot, ring fragments, CMA, CMA split copy).
    qmp_run "handles freed while started ($path), np=2" 2 qmp_free_test
    qmp_run "handles freed while started ($path), np=4" 4 qmp_free_test
    if [ "$path" = default ]; then
        qmp_setp msg_sm_cma off
        qmp_run "handles freed while started (default, msg_sm_cma=off), np=2" 2 qmp_free_test
        qmp_unsetp msg_sm_cma
    fi
done
exit $qmp_status
