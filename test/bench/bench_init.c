/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Start-up and shut-down of a message-passing program, for the start-up
 * benchmark (run-init-bench.sh): one source, built twice,
 *
 *   bench_init_qmp   QMP_init_msg_passing + QMP_finalize_msg_passing
 *                    (this build's libqmp);
 *   bench_init_mpi   MPI_Init + MPI_Finalize (built with mpicc,
 *                    -DBENCH_INIT_MPI).
 *
 * Each process prints "init RANK INIT_MS TOTAL_MS": the time its init took,
 * and init and finalize together, from main's first line (the dynamic
 * loading of the libraries the program links is before it, and the same
 * for both; what init opens itself is inside).
 */
#include <stdio.h>
#include <time.h>

#ifdef BENCH_INIT_MPI
#include <mpi.h>
#else
#include <qmp.h>
#endif

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    const double start = now_ms();
    int rank = 0;
#ifdef BENCH_INIT_MPI
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "bench_init: MPI_Init failed\n");
        return 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const double inited = now_ms();
    MPI_Finalize();
#else
    QMP_thread_level_t provided;
    QMP_status_t rc = QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided);
    if (rc != QMP_SUCCESS) {
        fprintf(stderr, "bench_init: QMP_init_msg_passing: %s\n", QMP_error_string(rc));
        return 1;
    }
    rank = (int)QMP_get_node_number();
    const double inited = now_ms();
    QMP_finalize_msg_passing();
#endif
    const double done = now_ms();
    printf("init %d %.3f %.3f\n", rank, inited - start, done - start);
    return 0;
}
