/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What opening connections costs, for the connection benchmark
 * (run-connect-bench.sh): one source, built twice,
 *
 *   bench_connect_qmp   QMP channels (this build's libqmp), one
 *                       QMP_declare_multiple of a send to and a receive
 *                       from every other process, QMP_start / QMP_wait;
 *   bench_connect_mpi   the same with MPI persistent requests
 *                       (MPI_Send_init / MPI_Recv_init, MPI_Startall /
 *                       MPI_Waitall; built with mpicc, -DBENCH_CONNECT_MPI).
 *
 * Every process sends 8 bytes to and receives 8 bytes from every other, all
 * started together: the job's first such exchange opens a connection
 * between every pair (both transports connect at a pair's first message),
 * the second finds them open.  Node 0 prints
 *
 *   connect|PROCESSES|FIRST_US|SECOND_US
 *
 * each the slowest process's time.  The processes line up before the
 * first exchange through the file given with --sync (they are on one node):
 * the library's own barrier would open connections itself -- at 2
 * processes, the only one there is.  --api-barrier uses it anyway, to see
 * that.  Received bytes are checked.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_comm.h"

#ifdef BENCH_CONNECT_MPI
#include <mpi.h>
#define API "MPI"
#else
#include <qmp.h>
#define API "QMP"
#endif

#define MESSAGE 8L

static int rank, size;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Appends one byte to PATH (an empty file made for the run), then waits
 * until every process has: a barrier that sends nothing over the network. */
static int file_barrier(const char *path)
{
    int fd = open(path, O_WRONLY | O_APPEND);
    if (fd < 0 || write(fd, "", 1) != 1 || close(fd) != 0) {
        fprintf(stderr, "bench_connect: rank %d: %s: %s\n", rank, path, strerror(errno));
        return 1;
    }
    const double give_up = now_us() + 600e6;
    struct stat st = {0};
    while (stat(path, &st) == 0 && st.st_size < size && now_us() < give_up)
        sched_yield();
    if (st.st_size != size) {
        fprintf(stderr, "bench_connect: rank %d: %s has %ld bytes, not %d (one per process)\n",
                rank, path, (long)st.st_size, size);
        return 1;
    }
    return 0;
}

#ifdef BENCH_CONNECT_MPI
static int api_init(int *argc, char ***argv)
{
    if (MPI_Init(argc, argv) != MPI_SUCCESS)
        return 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return 0;
}
static void api_barrier(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}
static double api_max(double x)
{
    double max = x;
    MPI_Allreduce(&x, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return max;
}
static void api_finalize(void)
{
    MPI_Finalize();
}
static void api_abort(int code)
{
    MPI_Abort(MPI_COMM_WORLD, code);
}

static MPI_Request *requests;

/* Requests to and from every other process: receives first. */
static int exchange_declare(unsigned char *sendbuf, unsigned char *recvbuf)
{
    requests = calloc(2 * (size_t)size, sizeof *requests);
    if (!requests)
        return 1;
    int n = 0;
    for (int i = 1; i < size; ++i) {
        int from = (rank - i + size) % size;
        MPI_Recv_init(recvbuf + from * MESSAGE, MESSAGE, MPI_BYTE, from, 0, MPI_COMM_WORLD,
                      &requests[n++]);
    }
    for (int i = 1; i < size; ++i) {
        int to = (rank + i) % size;
        MPI_Send_init(sendbuf, MESSAGE, MPI_BYTE, to, 0, MPI_COMM_WORLD, &requests[n++]);
    }
    return 0;
}
static int exchange(void)
{
    int n = 2 * (size - 1);
    if (MPI_Startall(n, requests) != MPI_SUCCESS ||
        MPI_Waitall(n, requests, MPI_STATUSES_IGNORE) != MPI_SUCCESS) {
        fprintf(stderr, "bench_connect: rank %d: MPI_Startall / MPI_Waitall failed\n", rank);
        return 1;
    }
    return 0;
}
static void exchange_free(void)
{
    for (int i = 0; i < 2 * (size - 1); ++i)
        MPI_Request_free(&requests[i]);
    free(requests);
}
#else
static int api_init(int *argc, char ***argv)
{
    QMP_thread_level_t provided;
    QMP_status_t st = QMP_init_msg_passing(argc, argv, QMP_THREAD_SINGLE, &provided);
    if (st != QMP_SUCCESS) {
        fprintf(stderr, "bench_connect: QMP_init_msg_passing: %s\n", QMP_error_string(st));
        return 1;
    }
    rank = (int)QMP_get_node_number();
    size = (int)QMP_get_number_of_nodes();
    return 0;
}
static void api_barrier(void)
{
    QMP_barrier();
}
static double api_max(double x)
{
    QMP_max_double(&x);
    return x;
}
static void api_finalize(void)
{
    QMP_finalize_msg_passing();
}
static void api_abort(int code)
{
    QMP_abort(code);
}

static QMP_msgmem_t *mems;
static QMP_msghandle_t all;

/* Channels to and from every other process, one multiple: receives first.
 * QMP 2.x: the multiple owns its members. */
static int exchange_declare(unsigned char *sendbuf, unsigned char *recvbuf)
{
    QMP_msghandle_t *handles = calloc(2 * (size_t)size, sizeof *handles);
    mems = calloc((size_t)size + 1, sizeof *mems);
    if (!handles || !mems)
        return 1;
    int n = 0;
    for (int i = 1; i < size; ++i) {
        int from = (rank - i + size) % size;
        mems[from] = QMP_declare_msgmem(recvbuf + from * MESSAGE, MESSAGE);
        handles[n++] = mems[from] ? QMP_declare_receive_from(mems[from], from, 0) : NULL;
    }
    mems[size] = QMP_declare_msgmem(sendbuf, MESSAGE);
    for (int i = 1; i < size; ++i)
        handles[n++] = mems[size] ? QMP_declare_send_to(mems[size], (rank + i) % size, 0) : NULL;
    for (int i = 0; i < n; ++i)
        if (!handles[i]) {
            fprintf(stderr, "bench_connect: rank %d: declaring channels: %s\n", rank,
                    QMP_error_string(QMP_get_error_number(NULL)));
            return 1;
        }
    all = QMP_declare_multiple(handles, n);
    free(handles);
    if (!all) {
        fprintf(stderr, "bench_connect: rank %d: QMP_declare_multiple: %s\n", rank,
                QMP_error_string(QMP_get_error_number(NULL)));
        return 1;
    }
    return 0;
}
static int exchange(void)
{
    QMP_status_t st = QMP_start(all);
    if (st == QMP_SUCCESS)
        st = QMP_wait(all);
    if (st != QMP_SUCCESS) {
        fprintf(stderr, "bench_connect: rank %d: exchange: %s\n", rank, QMP_error_string(st));
        return 1;
    }
    return 0;
}
static void exchange_free(void)
{
    QMP_free_msghandle(all);
    for (int i = 0; i <= size; ++i)
        if (mems[i])
            QMP_free_msgmem(mems[i]);
    free(mems);
}
#endif

/* Every received message must be its sender's pattern. */
static int check(const unsigned char *recvbuf)
{
    for (int from = 0; from < size; ++from)
        if (from != rank && bench_check(recvbuf + from * MESSAGE, from, MESSAGE) >= 0) {
            fprintf(stderr, "bench_connect: rank %d: the message from %d is wrong\n", rank, from);
            return 1;
        }
    return 0;
}

/* One timed exchange: the slowest process's time, in us. */
static int timed_exchange(double *us)
{
    double t0 = now_us();
    if (exchange())
        return 1;
    *us = now_us() - t0;
    return 0;
}

int main(int argc, char **argv)
{
    if (api_init(&argc, &argv)) {
        fprintf(stderr, "bench_connect: %s init failed\n", API);
        return 1;
    }
    const char *sync = NULL;
    if (argc == 3 && strcmp(argv[1], "--sync") == 0) {
        sync = argv[2];
    } else if (argc != 2 || strcmp(argv[1], "--api-barrier") != 0) {
        if (rank == 0)
            fprintf(stderr, "usage: bench_connect --sync FILE (an empty file on this node) | "
                            "--api-barrier\n");
        api_finalize();
        return 2;
    }
    if (size < 2) {
        fprintf(stderr, "bench_connect: runs on 2 or more processes, not %d\n", size);
        api_finalize();
        return 2;
    }
    /* From here a failing process ends the job: the others would wait for it. */
    unsigned char *sendbuf = malloc(MESSAGE), *recvbuf = calloc((size_t)size, MESSAGE);
    if (!sendbuf || !recvbuf)
        api_abort(1);
    bench_fill(sendbuf, rank, MESSAGE);
    if (exchange_declare(sendbuf, recvbuf))
        api_abort(1);
    if (!sync)
        api_barrier();
    else if (file_barrier(sync))
        api_abort(1);
    double first = 0, second = 0;
    if (timed_exchange(&first) || check(recvbuf))
        api_abort(1);
    memset(recvbuf, 0, (size_t)size * MESSAGE);
    api_barrier(); /* every pair is connected now */
    if (timed_exchange(&second) || check(recvbuf))
        api_abort(1);
    first = api_max(first);
    second = api_max(second);
    if (rank == 0)
        printf("connect|%d|%.1f|%.1f\n", size, first, second);
    exchange_free();
    free(sendbuf);
    free(recvbuf);
    api_finalize();
    return 0;
}
