/* SPDX-License-Identifier: BSD-3-Clause */
/* Collectives: barrier; broadcast (1 B to 1 MiB, from node 0); the sums
 * (int, uint64 beyond 2^53, float, double, long double beyond double's
 * precision, double_extended whose exact sum double summation gets wrong,
 * float / double / long double arrays of 0, 1, 1000 and 100000 elements),
 * max / min, xor (ulong and the 2002 long), alltoall, binary_reduction with
 * a non-commutative function; every floating-point result is compared byte
 * for byte across the processes; QMP_wait_for_barrier with one process late
 * (QMP_TIMEOUT within the limit, then the barrier completes). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mca/qmp/qmp.h"
#include "qmp_check.h"

static int me, n;
static QMP_comm_t comm;

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void barriers(void)
{
    for (int i = 0; i < 100; ++i) {
        if (QMP_barrier() != QMP_SUCCESS) {
            qc_fail("QMP_barrier number %d failed", i);
            return;
        }
    }
    qc_status("QMP_comm_barrier(allocated)", QMP_SUCCESS,
              QMP_comm_barrier(QMP_comm_get_allocated()));
    qc_status("QMP_wait_for_barrier(10000) with everyone on time", QMP_SUCCESS,
              QMP_wait_for_barrier(10000));
}

static void broadcasts(void)
{
    const size_t sizes[6] = {1, 7, 4096, 65536 + 3, 1u << 20, 0};
    for (int i = 0; i < 6; ++i) {
        const size_t len = sizes[i];
        unsigned char *buf = malloc(len + 1);
        for (size_t k = 0; k < len; ++k) {
            buf[k] = me == 0 ? (unsigned char)(k * 7 + i) : (unsigned char)0xee;
        }
        buf[len] = 0x5a;
        char call[64];
        snprintf(call, sizeof call, "QMP_broadcast(%zu bytes)", len);
        if (qc_status(call, QMP_SUCCESS, QMP_broadcast(buf, len))) {
            for (size_t k = 0; k < len; ++k) {
                if (buf[k] != (unsigned char)(k * 7 + i)) {
                    qc_fail("%s: byte %zu: expected %u, got %u", call, k,
                            (unsigned)(unsigned char)(k * 7 + i), buf[k]);
                    break;
                }
            }
            qc_int("QMP_broadcast leaves the byte after the buffer", 0x5a, buf[len]);
        }
        free(buf);
    }
}

static void scalar_sums(void)
{
    int i = me + 1;
    qc_status("QMP_sum_int", QMP_SUCCESS, QMP_sum_int(&i));
    qc_int("QMP_sum_int(rank + 1)", n * (n + 1) / 2, i);
    i = -3 * me;
    QMP_sum_int(&i);
    qc_int("QMP_sum_int(-3 * rank)", -3 * n * (n - 1) / 2, i);

    /* Above 2^53: exact only if summed as integers. */
    uint64_t u = (UINT64_C(1) << 60) + (uint64_t)me * 3 + 1;
    qc_status("QMP_sum_uint64_t", QMP_SUCCESS, QMP_sum_uint64_t(&u));
    uint64_t want = 0;
    for (int r = 0; r < n; ++r) {
        want += (UINT64_C(1) << 60) + (uint64_t)r * 3 + 1;
    }
    if (u != want) {
        qc_fail("QMP_sum_uint64_t(2^60 + 3 rank + 1): expected %llu, got %llu",
                (unsigned long long)want, (unsigned long long)u);
    }

    float f = 0.5f * (float)(me + 1);
    qc_status("QMP_sum_float", QMP_SUCCESS, QMP_sum_float(&f));
    qc_double("QMP_sum_float(0.5 (rank + 1))", 0.25 * n * (n + 1), f);
    qc_same_everywhere(comm, "QMP_sum_float result", &f, sizeof f);

    double d = 1.0 / (me + 3);
    qc_status("QMP_sum_double", QMP_SUCCESS, QMP_sum_double(&d));
    double dwant = 0;
    for (int r = 0; r < n; ++r) {
        dwant += 1.0 / (r + 3);
    }
    if (fabs(d - dwant) > 1e-15) {
        qc_fail("QMP_sum_double(1 / (rank + 3)): expected %.17g, got %.17g", dwant, d);
    }
    qc_same_everywhere(comm, "QMP_sum_double result", &d, sizeof d);

    /* 2^62 + 1 needs long double's 64-bit mantissa. */
    long double ld = me == 0 ? ldexpl(1.0L, 62) : 1.0L;
    qc_status("QMP_sum_long_double", QMP_SUCCESS, QMP_sum_long_double(&ld));
    const long double ldwant = ldexpl(1.0L, 62) + (long double)(n - 1);
    if (ld != ldwant) {
        qc_fail("QMP_sum_long_double(2^62 on node 0, 1 elsewhere): expected %.21Lg, got %.21Lg",
                ldwant, ld);
    }
    qc_same_everywhere(comm, "QMP_sum_long_double result", &ld, 10);

    /* 2^54, 1, -2^54, 1: exactly 2; summed in double it is 1 or 0 or 2
     * depending on the order, so only extended precision is sure. */
    if (n == 4) {
        const double terms[4] = {ldexp(1.0, 54), 1.0, -ldexp(1.0, 54), 1.0};
        double x = terms[me];
        qc_status("QMP_sum_double_extended", QMP_SUCCESS, QMP_sum_double_extended(&x));
        qc_double("QMP_sum_double_extended(2^54, 1, -2^54, 1)", 2.0, x);
    } else {
        double x = 0.25 * (me + 1);
        qc_status("QMP_sum_double_extended", QMP_SUCCESS, QMP_sum_double_extended(&x));
        qc_double("QMP_sum_double_extended(0.25 (rank + 1))", 0.125 * n * (n + 1), x);
    }
}

static void array_sums(void)
{
    const int lengths[4] = {0, 1, 1000, 100000};
    for (int li = 0; li < 4; ++li) {
        const int len = lengths[li];
        double *d = malloc(((size_t)len + 1) * sizeof(double));
        float *f = malloc(((size_t)len + 1) * sizeof(float));
        long double *ld = malloc(((size_t)len + 1) * sizeof(long double));
        for (int k = 0; k <= len; ++k) {
            /* Values that make the order of summation visible. */
            d[k] = 1.0 / (1 + k + me * 7) + (me == 0 ? 1e8 : 0);
            f[k] = (float)(k % 100) * 0.25f + (float)me;
            ld[k] = (long double)k + 0.5L * me;
        }
        const double guard = d[len];
        char call[96];
        snprintf(call, sizeof call, "QMP_sum_double_array(length %d)", len);
        if (qc_status(call, QMP_SUCCESS, QMP_sum_double_array(d, len))) {
            for (int k = 0; k < len; ++k) {
                double want = 1e8;
                for (int r = 0; r < n; ++r) {
                    want += 1.0 / (1 + k + r * 7);
                }
                if (fabs(d[k] - want) > 1e-6) {
                    qc_fail("%s: element %d: expected %.17g, got %.17g", call, k, want, d[k]);
                    break;
                }
            }
            qc_double("QMP_sum_double_array leaves the element after the array", guard, d[len]);
            qc_same_everywhere(comm, call, d, (size_t)len * sizeof(double));
        }
        snprintf(call, sizeof call, "QMP_sum_float_array(length %d)", len);
        if (qc_status(call, QMP_SUCCESS, QMP_sum_float_array(f, len))) {
            for (int k = 0; k < len; ++k) {
                const float want = (float)n * (float)(k % 100) * 0.25f + (float)(n * (n - 1) / 2);
                if (f[k] != want) {
                    qc_fail("%s: element %d: expected %.9g, got %.9g", call, k, want, f[k]);
                    break;
                }
            }
            qc_same_everywhere(comm, call, f, (size_t)len * sizeof(float));
        }
        snprintf(call, sizeof call, "QMP_sum_long_double_array(length %d)", len);
        if (qc_status(call, QMP_SUCCESS, QMP_sum_long_double_array(ld, len))) {
            for (int k = 0; k < len; ++k) {
                const long double want = (long double)n * k + 0.25L * n * (n - 1);
                if (ld[k] != want) {
                    qc_fail("%s: element %d: expected %.21Lg, got %.21Lg", call, k, want, ld[k]);
                    break;
                }
            }
        }
        free(d);
        free(f);
        free(ld);
    }
}

static void extremes(void)
{
    double d = me == n - 1 ? -1e300 : (double)me * 1.5;
    qc_status("QMP_max_double", QMP_SUCCESS, QMP_max_double(&d));
    qc_double("QMP_max_double", n == 1 ? -1e300 : 1.5 * (n - 2), d);
    d = me == n - 1 ? -1e300 : (double)me * 1.5;
    qc_status("QMP_min_double", QMP_SUCCESS, QMP_min_double(&d));
    qc_double("QMP_min_double", -1e300, d);
    float f = (float)(me * me) - 2.5f;
    qc_status("QMP_max_float", QMP_SUCCESS, QMP_max_float(&f));
    qc_double("QMP_max_float", (float)((n - 1) * (n - 1)) - 2.5f, f);
    f = (float)(me * me) - 2.5f;
    qc_status("QMP_min_float", QMP_SUCCESS, QMP_min_float(&f));
    qc_double("QMP_min_float", -2.5f, f);

    unsigned long x = 1UL << (me * 5) | 0x8000000000000000UL;
    qc_status("QMP_xor_ulong", QMP_SUCCESS, QMP_xor_ulong(&x));
    unsigned long want = 0;
    for (int r = 0; r < n; ++r) {
        want ^= 1UL << (r * 5) | 0x8000000000000000UL;
    }
    qc_int("QMP_xor_ulong (bits as a number)", (long long)want, (long long)x);
    long l = -1L ^ (long)me;
    qc_status("QMP_global_xor", QMP_SUCCESS, QMP_global_xor(&l));
    long lwant = 0;
    for (int r = 0; r < n; ++r) {
        lwant ^= -1L ^ (long)r;
    }
    qc_int("QMP_global_xor", lwant, l);
}

static void alltoall(void)
{
    const int count = 5;
    char *send = malloc((size_t)(n * count));
    char *recv = malloc((size_t)(n * count) + 1);
    for (int to = 0; to < n; ++to) {
        for (int k = 0; k < count; ++k) {
            send[to * count + k] = (char)(me * 16 + to * 4 + k);
        }
    }
    memset(recv, 0, (size_t)(n * count) + 1);
    recv[n * count] = 0x5a;
    if (qc_status("QMP_comm_alltoall(5 bytes each)", QMP_SUCCESS,
                  QMP_comm_alltoall(comm, recv, send, count))) {
        for (int from = 0; from < n; ++from) {
            for (int k = 0; k < count; ++k) {
                char call[64];
                snprintf(call, sizeof call, "QMP_comm_alltoall: byte %d from %d", k, from);
                qc_int(call, (char)(from * 16 + me * 4 + k), recv[from * count + k]);
            }
        }
        qc_int("QMP_comm_alltoall leaves the byte after", 0x5a, recv[n * count]);
    }
    free(send);
    free(recv);
}

/* A non-commutative reduction: the list of contributors in order, and a
 * product of 2x2 matrices (associative, not commutative).  Every process
 * must get the same bytes, with every contributor exactly once. */
struct chain {
    int count;
    int who[16];
    double m[4];
};

static void chain_op(void *inout, void *in)
{
    struct chain *a = inout;
    const struct chain *b = in;
    for (int i = 0; i < b->count && a->count < 16; ++i) {
        a->who[a->count++] = b->who[i];
    }
    const double r[4] = {
        a->m[0] * b->m[0] + a->m[1] * b->m[2], a->m[0] * b->m[1] + a->m[1] * b->m[3],
        a->m[2] * b->m[0] + a->m[3] * b->m[2], a->m[2] * b->m[1] + a->m[3] * b->m[3]};
    memcpy(a->m, r, sizeof r);
}

static void binary_reduction(void)
{
    struct chain c;
    memset(&c, 0, sizeof c);
    c.count = 1;
    c.who[0] = me;
    c.m[0] = 1;
    c.m[1] = me + 1;
    c.m[2] = 0.5 * me;
    c.m[3] = 1;
    if (!qc_status("QMP_binary_reduction", QMP_SUCCESS,
                   QMP_binary_reduction(&c, sizeof c, chain_op))) {
        return;
    }
    qc_int("QMP_binary_reduction: contributors", n, c.count);
    int seen[16] = {0};
    for (int i = 0; i < c.count && i < 16; ++i) {
        if (c.who[i] < 0 || c.who[i] >= n || seen[c.who[i]]++) {
            qc_fail("QMP_binary_reduction: contributor list is not each node once (entry %d is "
                    "%d)",
                    i, c.who[i]);
            break;
        }
    }
    qc_same_everywhere(comm, "QMP_binary_reduction result", &c, sizeof c);
    if (me == 0) {
        char order[64];
        printf("binary reduction order: %s\n", qc_format_ints(order, sizeof order, c.who, c.count));
    }
}

/* Bit-identical sums: values whose floating-point sum depends on the order
 * of the terms; every process must get the very same bytes. */
static void identical_sums(void)
{
    enum { LEN = 4096 };
    double *v = malloc(LEN * sizeof(double));
    for (int rep = 0; rep < 5; ++rep) {
        for (int k = 0; k < LEN; ++k) {
            v[k] = sin(1.0 + k * 0.37 + me * 1.91 + rep) * pow(10.0, (k + me) % 17 - 8);
        }
        QMP_sum_double_array(v, LEN);
        qc_same_everywhere(comm, "QMP_sum_double_array of order-sensitive values", v,
                           LEN * sizeof(double));
        double s = sin(me * 2.3 + rep) * pow(10.0, me % 5 * 4 - 8);
        QMP_sum_double(&s);
        qc_same_everywhere(comm, "QMP_sum_double of order-sensitive values", &s, sizeof s);
    }
    free(v);
}

/* The last process arrives late (1.5 s): the others' QMP_wait_for_barrier
 * (300 ms) times out within about its limit, then a retry completes the
 * barrier; afterwards collectives work as before. */
static void barrier_timeout(void)
{
    if (n < 2) {
        const double t0 = QMP_time();
        qc_status("QMP_wait_for_barrier(300) alone", QMP_SUCCESS, QMP_wait_for_barrier(300));
        qc_true("QMP_wait_for_barrier alone returns at once", QMP_time() - t0 < 1.0);
        return;
    }
    if (me == n - 1) {
        sleep_ms(1500);
        qc_status("QMP_wait_for_barrier(20000) by the late process", QMP_SUCCESS,
                  QMP_wait_for_barrier(20000));
    } else {
        const double t0 = QMP_time();
        const QMP_status_t st = QMP_wait_for_barrier(300);
        const double took = QMP_time() - t0;
        qc_status("QMP_wait_for_barrier(300) with a process 1.5 s late", QMP_TIMEOUT, st);
        if (took < 0.29 || took > 1.5) {
            qc_fail("QMP_wait_for_barrier(300) returned after %.3f s (expected about 0.3 s)", took);
        }
        QMP_status_t retry = st;
        int tries = 0;
        while (retry == QMP_TIMEOUT && tries++ < 100) {
            retry = QMP_wait_for_barrier(300);
        }
        qc_status("QMP_wait_for_barrier(300) retried until the late process came", QMP_SUCCESS,
                  retry);
        const double total = QMP_time() - t0;
        if (total < 1.2 || total > 10.0) {
            qc_fail("the retried barrier completed after %.3f s (the late process came after "
                    "1.5 s)",
                    total);
        }
    }
    int one = 1;
    qc_status("QMP_sum_int after the timed-out barrier", QMP_SUCCESS, QMP_sum_int(&one));
    qc_int("QMP_sum_int(1) after the timed-out barrier", n, one);
    qc_status("QMP_barrier after the timed-out barrier", QMP_SUCCESS, QMP_barrier());
}

int main(int argc, char **argv)
{
    qc_watchdog("qmp_coll_test", 120);
    QMP_thread_level_t provided;
    if (!qc_status("QMP_init_msg_passing", QMP_SUCCESS,
                   QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided))) {
        return 1;
    }
    me = QMP_get_node_number();
    n = QMP_get_number_of_nodes();
    comm = QMP_comm_get_default();
    barriers();
    broadcasts();
    scalar_sums();
    array_sums();
    extremes();
    alltoall();
    binary_reduction();
    identical_sums();
    barrier_timeout();
    return qc_finish("qmp_coll_test", 1);
}
