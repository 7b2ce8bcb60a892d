/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Open MPI's side of the QMP-against-Open-MPI benchmark (run-qmp-bench.sh
 * builds it with mpicc; make does not): the same cases as bench_qmp.c,
 * measured the same way (bench_comm.h) on exactly 2 processes --
 *   ping-pong with MPI_Send / MPI_Recv, and with persistent requests
 *   (MPI_Send_init / MPI_Recv_init, MPI_Start / MPI_Wait);
 *   the two halo exchanges with 4 persistent requests, MPI_Startall /
 *   MPI_Waitall, strided faces as an MPI vector type;
 *   MPI_Allreduce of one double (MPI_SUM).
 */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include <mpi.h>

#include "bench_comm.h"

static int rank, peer;

static int fail(const char *what, int rc)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    fprintf(stderr, "bench_mpi: rank %d: %s: %s\n", rank, what, text);
    return 1;
}

/* Never inlined: run-instructions-bench.sh counts inside it. */
static __attribute__((noinline)) int pingpong_blocking(unsigned char *sendbuf,
                                                       unsigned char *recvbuf, long size, long n)
{
    int rc = MPI_SUCCESS;
    for (long i = 0; i < n && rc == MPI_SUCCESS; ++i) {
        if (rank == 0) {
            rc = MPI_Send(sendbuf, (int)size, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
            if (rc == MPI_SUCCESS)
                rc = MPI_Recv(recvbuf, (int)size, MPI_BYTE, peer, 0, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE);
        } else {
            rc = MPI_Recv(recvbuf, (int)size, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                rc = MPI_Send(sendbuf, (int)size, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
        }
    }
    return rc;
}

/* req[0] receives, req[1] sends; as bench_qmp.c: the receive starts first. */
static int pingpong_persistent(MPI_Request req[2], long n)
{
    int rc = MPI_SUCCESS;
    for (long i = 0; i < n && rc == MPI_SUCCESS; ++i) {
        if (rank == 0) {
            rc = MPI_Startall(2, req);
            if (rc == MPI_SUCCESS)
                rc = MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        } else {
            if ((rc = MPI_Start(&req[0])) == MPI_SUCCESS &&
                (rc = MPI_Wait(&req[0], MPI_STATUS_IGNORE)) == MPI_SUCCESS &&
                (rc = MPI_Start(&req[1])) == MPI_SUCCESS)
                rc = MPI_Wait(&req[1], MPI_STATUS_IGNORE);
        }
    }
    return rc;
}

static int bench_pingpong(const struct bench_options *o, unsigned char *sendbuf,
                          unsigned char *recvbuf)
{
    for (int log2 = 3; log2 <= 22 && (1L << log2) <= o->max_size; ++log2) { /* 8 B .. 4 MiB */
        const long size = 1L << log2;
        long n = bench_iterations(size, o->scale);
        for (int persistent = 0; persistent < (o->pingpong_only ? 1 : 2); ++persistent) {
            MPI_Request req[2];
            int rc = MPI_SUCCESS;
            if (persistent) {
                rc = MPI_Recv_init(recvbuf, (int)size, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &req[0]);
                if (rc == MPI_SUCCESS)
                    rc = MPI_Send_init(sendbuf, (int)size, MPI_BYTE, peer, 0, MPI_COMM_WORLD,
                                       &req[1]);
                if (rc != MPI_SUCCESS)
                    return fail("MPI_Send_init / MPI_Recv_init", rc);
            }
            bench_fill(sendbuf, rank, size);
            memset(recvbuf, 0, (size_t)size);
            rc = persistent ? pingpong_persistent(req, n / 4 + 1)
                            : pingpong_blocking(sendbuf, recvbuf, size, n / 4 + 1);
            if (rc != MPI_SUCCESS)
                return fail("ping-pong warm-up", rc);
            long bad = bench_check(recvbuf, peer, size);
            if (bad >= 0) {
                fprintf(stderr, "bench_mpi: rank %d: %ld-byte message wrong at byte %ld\n", rank,
                        size, bad);
                return 1;
            }
            double best = 1e30;
            for (int r = 0; r < o->rounds; ++r) {
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                rc = persistent ? pingpong_persistent(req, n)
                                : pingpong_blocking(sendbuf, recvbuf, size, n);
                if (rc != MPI_SUCCESS)
                    return fail("ping-pong", rc);
                double t = (MPI_Wtime() - t0) / (double)n / 2;
                if (t < best)
                    best = t;
            }
            if (rank == 0)
                printf("%s|%ld|%.4f\n", persistent ? "pp-persistent" : "pp", size, best * 1e6);
            if (o->pingpong_only)
                printf("trips|%ld|%ld\n", size, n / 4 + 1 + (long)o->rounds * n);
            fflush(stdout);
            if (persistent) {
                MPI_Request_free(&req[0]);
                MPI_Request_free(&req[1]);
            }
        }
    }
    return 0;
}

static int bench_halo(const struct bench_options *o, const struct bench_halo *h)
{
    long face = h->blocks * h->block;
    unsigned char *field = malloc((size_t)h->field);
    unsigned char *halo[2] = {malloc((size_t)face), malloc((size_t)face)};
    if (!field || !halo[0] || !halo[1]) {
        fprintf(stderr, "bench_mpi: out of memory\n");
        return 1;
    }
    bench_fill(field, rank, h->field);

    MPI_Datatype face_type;
    int face_count;
    if (h->blocks == 1) {
        face_type = MPI_BYTE;
        face_count = (int)face;
    } else {
        MPI_Type_create_hvector((int)h->blocks, (int)h->block, (MPI_Aint)h->stride, MPI_BYTE,
                                &face_type);
        MPI_Type_commit(&face_type);
        face_count = 1;
    }
    /* The same order as bench_qmp.c: the face sent first is received first. */
    MPI_Request req[4];
    MPI_Recv_init(halo[0], (int)face, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Send_init(field + h->hi_offset, face_count, face_type, peer, 0, MPI_COMM_WORLD, &req[1]);
    MPI_Recv_init(halo[1], (int)face, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &req[2]);
    MPI_Send_init(field, face_count, face_type, peer, 0, MPI_COMM_WORLD, &req[3]);

    long n = (long)(h->iterations * o->scale);
    if (n < 1)
        n = 1;
    int rc = MPI_SUCCESS;
    for (long i = 0; i < n / 10 + 1 && rc == MPI_SUCCESS; ++i)
        if ((rc = MPI_Startall(4, req)) == MPI_SUCCESS)
            rc = MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS)
        return fail("halo warm-up", rc);
    for (long b = 0; b < h->blocks; ++b)
        for (long i = 0; i < h->block; ++i) {
            long at = h->hi_offset + b * h->stride + i;
            if (halo[0][b * h->block + i] != bench_pattern(peer, h->field, at)) {
                fprintf(stderr, "bench_mpi: rank %d: halo %s wrong at byte %ld\n", rank, h->name,
                        b * h->block + i);
                return 1;
            }
        }
    double best = 1e30;
    for (int r = 0; r < o->rounds; ++r) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (long i = 0; i < n && rc == MPI_SUCCESS; ++i)
            if ((rc = MPI_Startall(4, req)) == MPI_SUCCESS)
                rc = MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS)
            return fail("halo exchange", rc);
        double t = (MPI_Wtime() - t0) / (double)n;
        if (t < best)
            best = t;
    }
    if (rank == 0)
        printf("halo|%s|%ld|%.4f\n", h->name, 2 * face, best * 1e6);
    fflush(stdout);
    for (int i = 0; i < 4; ++i)
        MPI_Request_free(&req[i]);
    if (face_type != MPI_BYTE)
        MPI_Type_free(&face_type);
    free(field);
    free(halo[0]);
    free(halo[1]);
    return 0;
}

static int bench_sum(const struct bench_options *o)
{
    long n = (long)(BENCH_SUM_ITERATIONS * o->scale);
    if (n < 1)
        n = 1;
    double x = rank + 1.0;
    int rc = MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS)
        return fail("MPI_Allreduce", rc);
    if (x != 3.0) {
        fprintf(stderr, "bench_mpi: rank %d: MPI_Allreduce of 1 and 2 gave %.17g\n", rank, x);
        return 1;
    }
    for (long i = 0; i < n / 10 && rc == MPI_SUCCESS; ++i) {
        x = 1.0;
        rc = MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    double best = 1e30;
    for (int r = 0; r < o->rounds && rc == MPI_SUCCESS; ++r) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (long i = 0; i < n && rc == MPI_SUCCESS; ++i) {
            x = 1.0;
            rc = MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
        double t = (MPI_Wtime() - t0) / (double)n;
        if (t < best)
            best = t;
    }
    if (rc != MPI_SUCCESS)
        return fail("MPI_Allreduce", rc);
    if (rank == 0)
        printf("sum|%.4f\n", best * 1e6);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    struct bench_options o;
    int rc = bench_parse(&o, argc, argv, "bench_mpi");
    if (rc == 0 && size != 2) {
        if (rank == 0)
            fprintf(stderr, "bench_mpi: runs on 2 processes (mpirun -np 2), not %d\n", size);
        rc = 2;
    }
    peer = 1 - rank;
    unsigned char *buf[2] = {NULL, NULL};
    if (rc == 0) {
        for (int i = 0; i < 2; ++i)
            if (posix_memalign((void **)&buf[i], 64, (size_t)BENCH_MAX_SIZE) != 0)
                buf[i] = NULL;
        if (!buf[0] || !buf[1]) {
            fprintf(stderr, "bench_mpi: out of memory\n");
            rc = 1;
        }
    }
    if (rc == 0)
        rc = bench_pingpong(&o, buf[0], buf[1]);
    for (size_t i = 0; rc == 0 && !o.pingpong_only && i < BENCH_NHALOS; ++i)
        rc = bench_halo(&o, &bench_halos[i]);
    if (rc == 0 && !o.pingpong_only)
        rc = bench_sum(&o);
    free(buf[0]);
    free(buf[1]);
    MPI_Finalize();
    return rc;
}
