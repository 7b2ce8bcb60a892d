#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Collectives (values, bit-identical results on every process, a barrier
# with a timeout), alone and under mpirun with 1, 2 and 4 processes, on the
# transport's default path and, without the shared-memory path, on
# libfabric's tcp and on the transport's own tcp path.
# shellcheck source=qmp_lib.sh
. "$QMP_TEST_SRC/qmp_lib.sh"

qmp_expect_path "default path" "sm(\+cma)?"
# 3: a group that is not a power of two (the schedules fold it).
for np in $QMP_SHAPES 3; do
    qmp_run "collectives (default), np=$np" "$np" qmp_coll_test
done
qmp_setp msg ^sm
qmp_setp msg_ofi_provider tcp
qmp_expect_path "libfabric's tcp" "ofi:tcp(;ofi_rxm)?"
for np in 2 4; do
    qmp_run "collectives (libfabric), np=$np" "$np" qmp_coll_test
done
qmp_unsetp msg_ofi_provider
qmp_expect_path "tcp path" "tcp"
for np in 2 4 3; do
    qmp_run "collectives (tcp), np=$np" "$np" qmp_coll_test
done
exit $qmp_status
