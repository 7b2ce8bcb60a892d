/* SPDX-License-Identifier: BSD-3-Clause */
/* How fast a job ends when one of its processes fails (run-abort-bench.sh):
 * every process starts, meets the others in a barrier, then process 1
 * fails -- QMP_abort(3) ("abort"), a SIGSEGV ("crash"), exit(3) without
 * finalizing ("exit") -- while the others wait in a barrier that never
 * completes.  The script times the launcher from start to its exit.
 *
 * Built twice from this source: against this build's libqmp, and with
 * -DBENCH_ABORT_MPI by mpicc, where the calls are the ones QMP over MPI
 * (the reference QMP) makes for the same program: MPI_Abort for
 * QMP_abort, MPI_Barrier for QMP_barrier.
 *
 *   bench_abort abort|crash|exit
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef BENCH_ABORT_MPI
#include <mpi.h>
static int start(int *argc, char ***argv)
{
    int rank = -1;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}
static void barrier(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}
static void fail_abort(void)
{
    MPI_Abort(MPI_COMM_WORLD, 3);
}
static void finish(void)
{
    MPI_Finalize();
}
#else
#include <qmp.h>
static int start(int *argc, char ***argv)
{
    QMP_thread_level_t provided;
    if (QMP_init_msg_passing(argc, argv, QMP_THREAD_SINGLE, &provided) != QMP_SUCCESS) {
        fprintf(stderr, "bench_abort: QMP_init_msg_passing: %s\n", QMP_get_error_string(NULL));
        exit(1);
    }
    return QMP_get_node_number();
}
static void barrier(void)
{
    QMP_barrier();
}
static void fail_abort(void)
{
    QMP_abort(3);
}
static void finish(void)
{
    QMP_finalize_msg_passing();
}
#endif

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "";
    if (strcmp(how, "abort") != 0 && strcmp(how, "crash") != 0 && strcmp(how, "exit") != 0) {
        fprintf(stderr, "usage: bench_abort abort|crash|exit\n");
        return 2;
    }
    const int rank = start(&argc, &argv);
    barrier(); /* everyone is up */
    if (rank == 1) {
        if (strcmp(how, "abort") == 0) {
            fail_abort();
        } else if (strcmp(how, "crash") == 0) {
            raise(SIGSEGV);
        }
        exit(3);
    }
    barrier(); /* never completes: process 1 is gone */
    finish();
    return 0;
}
