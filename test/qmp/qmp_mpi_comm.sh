#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# QMP's MPI part (libqmp_mpi): a program that takes the MPI communicator
# under QMP's default, allocated and split communicators and calls MPI on
# it gets MPI ranks equal to QMP's and sums equal to QMP's
# (qmp_mpi_comm_test), alone and under the launcher with 1, 2 and 4
# processes: with QMP starting MPI (and ending it at its finalize), and with
# the program starting MPI first; then with Meridian's datastore over MPI
# (the MPI bootstrap), pnet's in-job setup over it too.  qmp_hosts.sh runs
# it again across two simulated hosts, qmp_hosts_slurm.sh under srun.
# Skipped when libqmp_mpi is not built (configure found no mpicc).
# shellcheck source=qmp_lib.sh
. "$QMP_TEST_SRC/qmp_lib.sh"

if [ "${HAVE_QMP_MPI:-no}" != yes ]; then
    echo "SKIP: QMP's MPI part (libqmp_mpi) is not built: configure found no MPI compiler wrapper"
    exit 77
fi
# Open MPI 4.1 leaves allocations at MPI_Finalize, many from components it
# has unloaded by then (no module to suppress them by); Meridian's leaks are
# checked by every other QMP test.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
# Under srun (qmp_hosts_slurm.sh) a process started alone is no job of
# Slurm's: the shapes there are the launcher's.
shapes=$QMP_SHAPES
[ -n "${QMP_MPI_COMM_SHAPES:-}" ] && shapes=$QMP_MPI_COMM_SHAPES
for np in $shapes; do
    qmp_run "MPI communicators, QMP starts MPI, np=$np" "$np" qmp_mpi_comm_test qmp-starts
done
for np in $shapes; do
    qmp_run "MPI communicators, the program starts MPI, np=$np" "$np" qmp_mpi_comm_test mpi-first
done
# The MPI bootstrap: Meridian's datastore over the program's MPI
# (mca_base_datastore=mpi: one allgather per fence on a duplicate of
# MPI_COMM_WORLD), what runs where the launcher is one Meridian cannot join.
qmp_setp mca_base_datastore mpi
for np in $shapes; do
    [ "$np" -ge 2 ] || continue
    qmp_run "MPI communicators, the MPI bootstrap, np=$np" "$np" qmp_mpi_comm_test qmp-starts
done
# pnet's in-job setup over it (values cross at the setup's fences).
qmp_setp pnet_base_in_job yes
qmp_run "MPI communicators, the MPI bootstrap, pnet in-job, np=2" 2 qmp_mpi_comm_test qmp-starts
qmp_unsetp pnet_base_in_job
# ... and it is what ran.
if qmp_have_mpirun; then
    qmp_setp msg_base_verbose info
    qmp_launch 2 qmp_mpi_comm_test mpi-first
    if ! grep -q "processes on .*, through the mpi datastore" "$QMP_ERR"; then
        qmp_fail "the MPI bootstrap: msg_base_verbose=info names another datastore:"
        qmp_show_output
    fi
    qmp_unsetp msg_base_verbose
fi
qmp_unsetp mca_base_datastore
exit $qmp_status
