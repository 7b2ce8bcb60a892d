#!/bin/sh
# Collectives (values, bit-identical results on every process, a barrier
# with a timeout), alone and under mpirun with 1, 2 and 4 processes, on the
# transport's default path and on tcp without the shared-memory path.
# shellcheck source=qmp_lib.sh
. "$QMP_TEST_SRC/qmp_lib.sh"

qmp_expect_path "default path" "shm(\+cma)?"
# 3: a group that is not a power of two (the schedules fold it).
for np in $QMP_SHAPES 3; do
    qmp_run "collectives (default), np=$np" "$np" qmp_coll_test
done
qmp_setp msg_ofi_shm off
qmp_setp msg_ofi_provider tcp
qmp_expect_path "tcp path" "ofi:tcp;ofi_rxm"
for np in 2 4; do
    qmp_run "collectives (tcp), np=$np" "$np" qmp_coll_test
done
exit $qmp_status
