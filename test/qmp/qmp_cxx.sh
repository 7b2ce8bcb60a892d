#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The C++ binding (qmp.hpp), alone and under mpirun with 2 and 4 processes.
# shellcheck source=qmp_lib.sh
. "$QMP_TEST_SRC/qmp_lib.sh"

for np in 0 2 4; do
    qmp_run "C++ binding, np=$np" "$np" qmp_cxx_test
done
exit $qmp_status
