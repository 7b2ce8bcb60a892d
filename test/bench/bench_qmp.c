/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QMP's side of the QMP-against-Open-MPI benchmark (run-qmp-bench.sh):
 * on exactly 2 processes, ping-pong from 8 B to 4 MiB over persistent
 * channels (QMP_declare_send_to / receive_from, declared once per size),
 * two 4-D halo exchanges (QMP_declare_multiple of 4 channels, strided
 * message memory for the strided faces) and QMP_sum_double.  Prints the
 * lines bench_comm.h describes, from node 0.  Received data are checked
 * once per case: a transport that does not move the bytes fails here.
 */
#include <qmp.h>

#include "bench_comm.h"

static int node, peer;

static int fail(const char *what, QMP_status_t status)
{
    fprintf(stderr, "bench_qmp: node %d: %s: %s\n", node, what, QMP_error_string(status));
    return 1;
}

/* n round trips; node 0 sends first.  The receive is started before the
 * send, so the message can land straight in the receive buffer.  Never
 * inlined: run-instructions-bench.sh counts inside it. */
static __attribute__((noinline)) QMP_status_t pingpong(QMP_msghandle_t send, QMP_msghandle_t recv,
                                                       long n)
{
    QMP_status_t st = QMP_SUCCESS;
    for (long i = 0; i < n && st == QMP_SUCCESS; ++i) {
        if (node == 0) {
            if ((st = QMP_start(recv)) == QMP_SUCCESS && (st = QMP_start(send)) == QMP_SUCCESS &&
                (st = QMP_wait(send)) == QMP_SUCCESS)
                st = QMP_wait(recv);
        } else {
            if ((st = QMP_start(recv)) == QMP_SUCCESS && (st = QMP_wait(recv)) == QMP_SUCCESS &&
                (st = QMP_start(send)) == QMP_SUCCESS)
                st = QMP_wait(send);
        }
    }
    return st;
}

static int bench_pingpong(const struct bench_options *o, unsigned char *sendbuf,
                          unsigned char *recvbuf)
{
    for (int log2 = 3; log2 <= 22 && (1L << log2) <= o->max_size; ++log2) { /* 8 B .. 4 MiB */
        const long size = 1L << log2;
        QMP_msgmem_t sm = QMP_declare_msgmem(sendbuf, (size_t)size);
        QMP_msgmem_t rm = QMP_declare_msgmem(recvbuf, (size_t)size);
        if (!sm || !rm)
            return fail("QMP_declare_msgmem", QMP_get_error_number(NULL));
        QMP_msghandle_t send = QMP_declare_send_to(sm, peer, 0);
        QMP_msghandle_t recv = QMP_declare_receive_from(rm, peer, 0);
        if (!send || !recv)
            return fail("QMP_declare_send_to / receive_from", QMP_get_error_number(NULL));

        bench_fill(sendbuf, node, size);
        memset(recvbuf, 0, (size_t)size);
        long n = bench_iterations(size, o->scale);
        QMP_status_t st = pingpong(send, recv, n / 4 + 1);
        if (st != QMP_SUCCESS)
            return fail("ping-pong warm-up", st);
        long bad = bench_check(recvbuf, peer, size);
        if (bad >= 0) {
            fprintf(stderr, "bench_qmp: node %d: %ld-byte message wrong at byte %ld\n", node, size,
                    bad);
            return 1;
        }
        double best = 1e30;
        for (int r = 0; r < o->rounds; ++r) {
            QMP_barrier();
            double t0 = QMP_time();
            if ((st = pingpong(send, recv, n)) != QMP_SUCCESS)
                return fail("ping-pong", st);
            double t = (QMP_time() - t0) / (double)n / 2;
            if (t < best)
                best = t;
        }
        if (node == 0)
            printf("pp|%ld|%.4f\n", size, best * 1e6);
        if (o->pingpong_only)
            printf("trips|%ld|%ld\n", size, n / 4 + 1 + (long)o->rounds * n);
        fflush(stdout);
        QMP_free_msghandle(send);
        QMP_free_msghandle(recv);
        QMP_free_msgmem(sm);
        QMP_free_msgmem(rm);
    }
    return 0;
}

static QMP_msgmem_t face_msgmem(const struct bench_halo *h, unsigned char *base)
{
    if (h->blocks == 1)
        return QMP_declare_msgmem(base, (size_t)h->block);
    return QMP_declare_strided_msgmem(base, (size_t)h->block, (int)h->blocks, h->stride);
}

static int bench_halo(const struct bench_options *o, const struct bench_halo *h)
{
    long face = h->blocks * h->block;
    QMP_mem_t *mem[3];
    unsigned char *field, *halo[2];
    mem[0] = QMP_allocate_aligned_memory((size_t)h->field, QMP_ALIGN_DEFAULT, QMP_MEM_DEFAULT);
    mem[1] = QMP_allocate_aligned_memory((size_t)face, QMP_ALIGN_DEFAULT, QMP_MEM_DEFAULT);
    mem[2] = QMP_allocate_aligned_memory((size_t)face, QMP_ALIGN_DEFAULT, QMP_MEM_DEFAULT);
    if (!mem[0] || !mem[1] || !mem[2])
        return fail("QMP_allocate_aligned_memory", QMP_get_error_number(NULL));
    field = QMP_get_memory_pointer(mem[0]);
    halo[0] = QMP_get_memory_pointer(mem[1]);
    halo[1] = QMP_get_memory_pointer(mem[2]);
    bench_fill(field, node, h->field);

    /* faces: [0] at x = 0, [1] at x = L-1; with two processes the neighbour
     * at -1 and at +1 is the same one, so the order of the channels says
     * which face lands in which halo: the face sent first is received
     * first. */
    QMP_msgmem_t face_lo = face_msgmem(h, field);
    QMP_msgmem_t face_hi = face_msgmem(h, field + h->hi_offset);
    QMP_msgmem_t halo_lo = QMP_declare_msgmem(halo[0], (size_t)face);
    QMP_msgmem_t halo_hi = QMP_declare_msgmem(halo[1], (size_t)face);
    if (!face_lo || !face_hi || !halo_lo || !halo_hi)
        return fail("QMP_declare_(strided_)msgmem", QMP_get_error_number(NULL));
    QMP_msghandle_t ch[4] = {
        QMP_declare_receive_from(halo_lo, peer, 0), /* the peer's x = L-1 face */
        QMP_declare_send_to(face_hi, peer, 0),
        QMP_declare_receive_from(halo_hi, peer, 0), /* the peer's x = 0 face */
        QMP_declare_send_to(face_lo, peer, 0),
    };
    for (int i = 0; i < 4; ++i)
        if (!ch[i])
            return fail("QMP_declare_send_to / receive_from", QMP_get_error_number(NULL));
    QMP_msghandle_t all = QMP_declare_multiple(ch, 4);
    if (!all)
        return fail("QMP_declare_multiple", QMP_get_error_number(NULL));

    long n = (long)(h->iterations * o->scale);
    if (n < 1)
        n = 1;
    QMP_status_t st = QMP_SUCCESS;
    for (long i = 0; i < n / 10 + 1 && st == QMP_SUCCESS; ++i)
        if ((st = QMP_start(all)) == QMP_SUCCESS)
            st = QMP_wait(all);
    if (st != QMP_SUCCESS)
        return fail("halo warm-up", st);
    /* The halo from -1 must be the peer's face at L-1, block by block. */
    for (long b = 0; b < h->blocks; ++b)
        for (long i = 0; i < h->block; ++i) {
            long at = h->hi_offset + b * h->stride + i;
            if (halo[0][b * h->block + i] != bench_pattern(peer, h->field, at)) {
                fprintf(stderr, "bench_qmp: node %d: halo %s wrong at byte %ld\n", node, h->name,
                        b * h->block + i);
                return 1;
            }
        }
    double best = 1e30;
    for (int r = 0; r < o->rounds; ++r) {
        QMP_barrier();
        double t0 = QMP_time();
        for (long i = 0; i < n && st == QMP_SUCCESS; ++i)
            if ((st = QMP_start(all)) == QMP_SUCCESS)
                st = QMP_wait(all);
        if (st != QMP_SUCCESS)
            return fail("halo exchange", st);
        double t = (QMP_time() - t0) / (double)n;
        if (t < best)
            best = t;
    }
    if (node == 0)
        printf("halo|%s|%ld|%.4f\n", h->name, 2 * face, best * 1e6);
    fflush(stdout);
    /* QMP 2.x: the multiple handle owns its members. */
    QMP_free_msghandle(all);
    QMP_free_msgmem(face_lo);
    QMP_free_msgmem(face_hi);
    QMP_free_msgmem(halo_lo);
    QMP_free_msgmem(halo_hi);
    for (int i = 0; i < 3; ++i)
        QMP_free_memory(mem[i]);
    return 0;
}

static int bench_sum(const struct bench_options *o)
{
    long n = (long)(BENCH_SUM_ITERATIONS * o->scale);
    if (n < 1)
        n = 1;
    double x = node + 1.0;
    QMP_status_t st = QMP_sum_double(&x);
    if (st != QMP_SUCCESS)
        return fail("QMP_sum_double", st);
    if (x != 3.0) {
        fprintf(stderr, "bench_qmp: node %d: QMP_sum_double of 1 and 2 gave %.17g\n", node, x);
        return 1;
    }
    for (long i = 0; i < n / 10 && st == QMP_SUCCESS; ++i) {
        x = 1.0;
        st = QMP_sum_double(&x);
    }
    double best = 1e30;
    for (int r = 0; r < o->rounds && st == QMP_SUCCESS; ++r) {
        QMP_barrier();
        double t0 = QMP_time();
        for (long i = 0; i < n && st == QMP_SUCCESS; ++i) {
            x = 1.0;
            st = QMP_sum_double(&x);
        }
        double t = (QMP_time() - t0) / (double)n;
        if (t < best)
            best = t;
    }
    if (st != QMP_SUCCESS)
        return fail("QMP_sum_double", st);
    if (node == 0)
        printf("sum|%.4f\n", best * 1e6);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    QMP_thread_level_t provided;
    QMP_status_t st = QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided);
    if (st != QMP_SUCCESS) {
        fprintf(stderr, "bench_qmp: QMP_init_msg_passing: %s\n", QMP_error_string(st));
        return 1;
    }
    node = QMP_get_node_number();
    struct bench_options o;
    int rc = bench_parse(&o, argc, argv, "bench_qmp");
    if (rc == 0 && QMP_get_number_of_nodes() != 2) {
        if (node == 0)
            fprintf(stderr, "bench_qmp: runs on 2 processes (mpirun -np 2), not %d\n",
                    QMP_get_number_of_nodes());
        rc = 2;
    }
    peer = 1 - node;
    QMP_mem_t *mem[2] = {NULL, NULL};
    if (rc == 0) {
        for (int i = 0; i < 2; ++i)
            mem[i] = QMP_allocate_aligned_memory((size_t)BENCH_MAX_SIZE, QMP_ALIGN_DEFAULT,
                                                 QMP_MEM_DEFAULT);
        if (!mem[0] || !mem[1])
            rc = fail("QMP_allocate_aligned_memory", QMP_get_error_number(NULL));
    }
    if (rc == 0)
        rc = bench_pingpong(&o, QMP_get_memory_pointer(mem[0]), QMP_get_memory_pointer(mem[1]));
    for (size_t i = 0; rc == 0 && !o.pingpong_only && i < BENCH_NHALOS; ++i)
        rc = bench_halo(&o, &bench_halos[i]);
    if (rc == 0 && !o.pingpong_only)
        rc = bench_sum(&o);
    for (int i = 0; i < 2; ++i)
        if (mem[i])
            QMP_free_memory(mem[i]);
    QMP_finalize_msg_passing();
    return rc;
}
