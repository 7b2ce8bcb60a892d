/* SPDX-License-Identifier: BSD-3-Clause */
/* Communicators: the allocated, job and default ones (get / set), split by
 * color and key (sizes, node numbers in key order, colors, keys), the
 * collectives and channels of a split communicator (node numbers are the
 * communicator's), traffic of two communicators between the same processes
 * kept apart, a split of a split, free, and QMP_get_hidden_comm. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mca/qmp/qmp.h"
#include "qmp_check.h"

static void roles(void)
{
    const int n = QMP_comm_get_number_of_nodes(QMP_comm_get_allocated());
    const int me = QMP_comm_get_node_number(QMP_comm_get_allocated());
    QMP_comm_t allocated = QMP_comm_get_allocated();
    QMP_comm_t job = QMP_comm_get_job();
    QMP_comm_t def = QMP_comm_get_default();
    qc_true("QMP_comm_get_allocated/job/default are not NULL", allocated && job && def);
    qc_int("QMP_comm_get_number_of_nodes(job)", n, QMP_comm_get_number_of_nodes(job));
    qc_int("QMP_comm_get_number_of_nodes(default)", n, QMP_comm_get_number_of_nodes(def));
    qc_int("QMP_comm_get_node_number(job)", me, QMP_comm_get_node_number(job));
    qc_int("QMP_comm_get_node_number(default)", me, QMP_comm_get_node_number(def));
    qc_int("QMP_get_node_number()", me, QMP_get_node_number());
    qc_int("QMP_comm_get_number_of_colors(job)", 1, QMP_comm_get_number_of_colors(job));
    qc_int("QMP_comm_get_color(job)", 0, QMP_comm_get_color(job));

    void *hidden = &hidden;
    qc_status("QMP_get_hidden_comm", QMP_NOTSUPPORTED, QMP_get_hidden_comm(def, &hidden));
    qc_true("QMP_get_hidden_comm sets *hiddencomm = NULL", hidden == NULL);
}

/* Split by parity, keys in reverse rank order. */
static void split_parity(void)
{
    QMP_comm_t job = QMP_comm_get_job();
    const int n = QMP_comm_get_number_of_nodes(job);
    const int me = QMP_comm_get_node_number(job);
    const int color = me % 2;
    const int key = n - me;
    QMP_comm_t half = NULL;
    if (!qc_status("QMP_comm_split(job, rank % 2, n - rank)", QMP_SUCCESS,
                   QMP_comm_split(job, color, key, &half))) {
        return;
    }
    /* Members of my color, in decreasing rank (increasing key). */
    int members[64], size = 0;
    for (int r = n - 1; r >= 0; --r) {
        if (r % 2 == color) {
            members[size++] = r;
        }
    }
    int my_place = 0;
    while (members[my_place] != me) {
        ++my_place;
    }
    qc_int("QMP_comm_get_number_of_nodes(split)", size, QMP_comm_get_number_of_nodes(half));
    qc_int("QMP_comm_get_node_number(split) (in key order)", my_place,
           QMP_comm_get_node_number(half));
    qc_int("QMP_comm_get_number_of_colors(split)", n >= 2 ? 2 : 1,
           QMP_comm_get_number_of_colors(half));
    qc_int("QMP_comm_get_color(split)", color, QMP_comm_get_color(half));
    qc_int("QMP_comm_get_key(split)", key, QMP_comm_get_key(half));
    qc_int("QMP_comm_is_primary_node(split)", my_place == 0, QMP_comm_is_primary_node(half));

    /* Collectives over the split only. */
    int sum = me;
    qc_status("QMP_comm_sum_int(split)", QMP_SUCCESS, QMP_comm_sum_int(half, &sum));
    int want = 0;
    for (int i = 0; i < size; ++i) {
        want += members[i];
    }
    qc_int("QMP_comm_sum_int(split, rank)", want, sum);
    double mx = me;
    qc_status("QMP_comm_max_double(split)", QMP_SUCCESS, QMP_comm_max_double(half, &mx));
    qc_double("QMP_comm_max_double(split, rank)", members[0], mx);
    int root_rank = me;
    qc_status("QMP_comm_broadcast(split)", QMP_SUCCESS,
              QMP_comm_broadcast(half, &root_rank, sizeof root_rank));
    qc_int("QMP_comm_broadcast(split) comes from the split's node 0", members[0], root_rank);
    qc_status("QMP_comm_barrier(split)", QMP_SUCCESS, QMP_comm_barrier(half));
    char to_each[64], from_each[64];
    for (int i = 0; i < size; ++i) {
        to_each[i] = (char)(me * 8 + i);
    }
    if (qc_status("QMP_comm_alltoall(split, 1 byte each)", QMP_SUCCESS,
                  QMP_comm_alltoall(half, from_each, to_each, 1))) {
        for (int i = 0; i < size; ++i) {
            qc_int("QMP_comm_alltoall(split): byte from the split's node i",
                   members[i] * 8 + my_place, from_each[i]);
        }
    }
    unsigned long bits = 1UL << me;
    qc_status("QMP_comm_xor_ulong(split)", QMP_SUCCESS, QMP_comm_xor_ulong(half, &bits));
    unsigned long want_bits = 0;
    for (int i = 0; i < size; ++i) {
        want_bits |= 1UL << members[i];
    }
    qc_int("QMP_comm_xor_ulong(split, 1 << rank)", (long long)want_bits, (long long)bits);
    double arr[3] = {me, 1.0, -me};
    qc_status("QMP_comm_sum_double_array(split)", QMP_SUCCESS,
              QMP_comm_sum_double_array(half, arr, 3));
    qc_double("QMP_comm_sum_double_array(split)[0]", want, arr[0]);
    qc_double("QMP_comm_sum_double_array(split)[1]", size, arr[1]);
    qc_double("QMP_comm_sum_double_array(split)[2]", -want, arr[2]);

    /* Channels address the split's node numbers. */
    const int next = (my_place + 1) % size, prev = (my_place + size - 1) % size;
    int out = me, in = -1;
    QMP_msgmem_t mo = QMP_declare_msgmem(&out, sizeof out);
    QMP_msgmem_t mi = QMP_declare_msgmem(&in, sizeof in);
    QMP_msghandle_t h[2] = {QMP_comm_declare_receive_from(half, mi, prev, 0),
                            QMP_comm_declare_send_to(half, mo, next, 0)};
    if (qc_true("QMP_comm_declare_send_to / receive_from(split)", h[0] && h[1])) {
        QMP_start(h[0]);
        QMP_start(h[1]);
        qc_status("QMP_wait_all (split ring)", QMP_SUCCESS, QMP_wait_all(h, 2));
        qc_int("rank received from the split's previous node", members[prev], in);
        QMP_free_msghandle(h[0]);
        QMP_free_msghandle(h[1]);
    }
    QMP_free_msgmem(mo);
    QMP_free_msgmem(mi);

    /* As the default communicator, the plain calls use it. */
    qc_status("QMP_comm_set_default(split)", QMP_SUCCESS, QMP_comm_set_default(half));
    qc_true("QMP_comm_get_default() is the split", QMP_comm_get_default() == half);
    qc_int("QMP_get_number_of_nodes() with the split as default", size, QMP_get_number_of_nodes());
    qc_int("QMP_get_node_number() with the split as default", my_place, QMP_get_node_number());
    int ones = 1;
    qc_status("QMP_sum_int with the split as default", QMP_SUCCESS, QMP_sum_int(&ones));
    qc_int("QMP_sum_int(1) with the split as default", size, ones);
    qc_status("QMP_barrier with the split as default", QMP_SUCCESS, QMP_barrier());
    const int dims[1] = {size};
    qc_status("QMP_declare_logical_topology on the split default", QMP_SUCCESS,
              QMP_declare_logical_topology(dims, 1));
    qc_int("QMP_comm_logical_topology_is_declared(job) stays false", QMP_FALSE,
           QMP_comm_logical_topology_is_declared(job));
    qc_status("QMP_comm_set_default(job)", QMP_SUCCESS, QMP_comm_set_default(job));
    qc_int("QMP_logical_topology_is_declared() with the job default", QMP_FALSE,
           QMP_logical_topology_is_declared());

    /* A split of the split: everyone alone. */
    QMP_comm_t alone = NULL;
    if (qc_status("QMP_comm_split(split, node, 0)", QMP_SUCCESS,
                  QMP_comm_split(half, my_place, 0, &alone))) {
        qc_int("QMP_comm_get_number_of_nodes(split of split)", 1,
               QMP_comm_get_number_of_nodes(alone));
        qc_int("QMP_comm_get_number_of_colors(split of split)", size,
               QMP_comm_get_number_of_colors(alone));
        int v = 5;
        qc_status("QMP_comm_sum_int(alone)", QMP_SUCCESS, QMP_comm_sum_int(alone, &v));
        qc_int("QMP_comm_sum_int(alone, 5)", 5, v);
        qc_status("QMP_comm_free(split of split)", QMP_SUCCESS, QMP_comm_free(alone));
    }
    qc_status("QMP_comm_free(split)", QMP_SUCCESS, QMP_comm_free(half));
}

/* The same processes exchange on two communicators at once with the same
 * node pattern; each message must arrive on its own communicator. */
static void traffic_apart(void)
{
    QMP_comm_t job = QMP_comm_get_job();
    const int n = QMP_comm_get_number_of_nodes(job);
    const int me = QMP_comm_get_node_number(job);
    QMP_comm_t copy = NULL;
    if (!qc_status("QMP_comm_split(job, 0, rank)", QMP_SUCCESS,
                   QMP_comm_split(job, 0, me, &copy))) {
        return;
    }
    qc_int("QMP_comm_get_node_number(copy of job)", me, QMP_comm_get_node_number(copy));
    const int next = (me + 1) % n, prev = (me + n - 1) % n;
    int out[2] = {1000 + me, 2000 + me}, in[2] = {-1, -1};
    QMP_msgmem_t mo[2], mi[2];
    QMP_msghandle_t h[4];
    QMP_comm_t comms[2] = {job, copy};
    for (int c = 0; c < 2; ++c) {
        mo[c] = QMP_declare_msgmem(&out[c], sizeof out[c]);
        mi[c] = QMP_declare_msgmem(&in[c], sizeof in[c]);
    }
    /* Start the copy's send first and the job's receive first, so matching
     * by peer alone would cross them. */
    h[0] = QMP_comm_declare_send_to(comms[1], mo[1], next, 0);
    h[1] = QMP_comm_declare_send_to(comms[0], mo[0], next, 0);
    h[2] = QMP_comm_declare_receive_from(comms[0], mi[0], prev, 0);
    h[3] = QMP_comm_declare_receive_from(comms[1], mi[1], prev, 0);
    if (qc_true("declaring channels on two communicators", h[0] && h[1] && h[2] && h[3])) {
        for (int i = 0; i < 4; ++i) {
            QMP_start(h[i]);
        }
        qc_status("QMP_wait_all (two communicators)", QMP_SUCCESS, QMP_wait_all(h, 4));
        qc_int("message on the job communicator", 1000 + prev, in[0]);
        qc_int("message on its copy", 2000 + prev, in[1]);
        for (int i = 0; i < 4; ++i) {
            QMP_free_msghandle(h[i]);
        }
    }
    for (int c = 0; c < 2; ++c) {
        QMP_free_msgmem(mo[c]);
        QMP_free_msgmem(mi[c]);
    }
    /* Collectives on both, interleaved. */
    int a = 1, b = 2;
    qc_status("QMP_comm_sum_int(job)", QMP_SUCCESS, QMP_comm_sum_int(job, &a));
    qc_status("QMP_comm_sum_int(copy)", QMP_SUCCESS, QMP_comm_sum_int(copy, &b));
    qc_int("QMP_comm_sum_int(job, 1)", n, a);
    qc_int("QMP_comm_sum_int(copy, 2)", 2 * n, b);
    qc_status("QMP_comm_free(copy)", QMP_SUCCESS, QMP_comm_free(copy));
}

static void set_roles(void)
{
    QMP_comm_t allocated = QMP_comm_get_allocated();
    QMP_comm_t job = QMP_comm_get_job();
    QMP_comm_t other = NULL;
    if (!qc_status("QMP_comm_split(allocated, 0, 0)", QMP_SUCCESS,
                   QMP_comm_split(allocated, 0, 0, &other))) {
        return;
    }
    qc_status("QMP_comm_set_job(other)", QMP_SUCCESS, QMP_comm_set_job(other));
    qc_true("QMP_comm_get_job() after set", QMP_comm_get_job() == other);
    qc_status("QMP_comm_set_job(back)", QMP_SUCCESS, QMP_comm_set_job(job));
    qc_status("QMP_comm_set_allocated(other)", QMP_SUCCESS, QMP_comm_set_allocated(other));
    qc_true("QMP_comm_get_allocated() after set", QMP_comm_get_allocated() == other);
    qc_status("QMP_comm_set_allocated(back)", QMP_SUCCESS, QMP_comm_set_allocated(allocated));
    qc_status("QMP_comm_free(other)", QMP_SUCCESS, QMP_comm_free(other));
}

/* Splitting and freeing many times must not run out of anything. */
static void many_splits(void)
{
    QMP_comm_t job = QMP_comm_get_job();
    for (int i = 0; i < 50; ++i) {
        QMP_comm_t c = NULL;
        if (QMP_comm_split(job, i % 3, i, &c) != QMP_SUCCESS) {
            qc_fail("QMP_comm_split number %d failed: %s", i, QMP_get_error_string(NULL));
            return;
        }
        int v = 1;
        if (QMP_comm_sum_int(c, &v) != QMP_SUCCESS) {
            qc_fail("QMP_comm_sum_int on split number %d failed", i);
        }
        if (QMP_comm_free(c) != QMP_SUCCESS) {
            qc_fail("QMP_comm_free of split number %d failed", i);
        }
    }
}

int main(int argc, char **argv)
{
    qc_watchdog("qmp_comm_test", 60);
    QMP_thread_level_t provided;
    if (!qc_status("QMP_init_msg_passing", QMP_SUCCESS,
                   QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided))) {
        return 1;
    }
    roles();
    split_parity();
    traffic_apart();
    set_roles();
    many_splits();
    return qc_finish("qmp_comm_test", 1);
}
