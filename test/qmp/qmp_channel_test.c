/* SPDX-License-Identifier: BSD-3-Clause */
/* Channels: relative channels in every direction of every axis of the
 * logical topology (app-dims=AxB...; an axis of 2 has the same process both
 * ways, an axis of 1 is this process), send_to / receive_from, self
 * channels, change_address (+ _multiple), declare_multiple,
 * send_recv_pairs, clear_to_send, start / wait / wait_all / is_complete,
 * sends started before their receives, channels to one peer matched in start
 * order, many repetitions of the same channels, declare-use-free in a loop
 * (MILC's pattern), and large messages.  Every payload says who sent it, on
 * which channel and in which round, and is checked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mca/qmp/qmp.h"
#include "qmp_check.h"

enum { MAXD = 8, WORDS = 16 };

static int me, n;

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Payload: sender, a channel id, the round, then a pattern. */
static void fill(int *p, int sender, int id, int round)
{
    p[0] = sender;
    p[1] = id;
    p[2] = round;
    for (int i = 3; i < WORDS; ++i) {
        p[i] = sender * 7 + id * 13 + round * 31 + i;
    }
}

static int check_payload(const char *label, const int *p, int sender, int id, int round)
{
    int want[WORDS];
    fill(want, sender, id, round);
    if (memcmp(p, want, sizeof want) == 0) {
        return 1;
    }
    qc_fail("%s: expected sender %d channel %d round %d, got sender %d channel %d round %d "
            "(word 3: expected %d, got %d)",
            label, sender, id, round, p[0], p[1], p[2], want[3], p[3]);
    return 0;
}

static int neighbour(const int *dims, int nd, int axis, int dir)
{
    int x[MAXD];
    QMP_get_logical_coordinates_from2(x, me);
    (void)nd;
    x[axis] = (x[axis] + dir + dims[axis]) % dims[axis];
    return QMP_get_node_number_from(x);
}

/* All 2*nd sends as one multiple, all receives as another; the sends start
 * first.  `rounds` repetitions of the same handles. */
static void relative_everywhere(const int *dims, int nd, int rounds)
{
    int out[MAXD][2][WORDS] = {{{0}}}, in[MAXD][2][WORDS] = {{{0}}};
    QMP_msgmem_t mo[MAXD][2], mi[MAXD][2];
    QMP_msghandle_t sends[2 * MAXD], recvs[2 * MAXD];
    int k = 0;
    for (int a = 0; a < nd; ++a) {
        for (int s = 0; s < 2; ++s) {
            const int dir = s == 0 ? +1 : -1;
            mo[a][s] = QMP_declare_msgmem(out[a][s], sizeof out[a][s]);
            mi[a][s] = QMP_declare_msgmem(in[a][s], sizeof in[a][s]);
            sends[k] = QMP_declare_send_relative(mo[a][s], a, dir, 0);
            recvs[k] = QMP_declare_receive_relative(mi[a][s], a, dir, 0);
            if (!sends[k] || !recvs[k]) {
                qc_fail("declaring relative channels (axis %d dir %+d): %s", a, dir,
                        QMP_get_error_string(NULL));
                return;
            }
            ++k;
        }
    }
    QMP_msghandle_t all_sends = QMP_declare_multiple(sends, k);
    QMP_msghandle_t all_recvs = QMP_declare_multiple(recvs, k);
    if (!qc_true("QMP_declare_multiple (relative sends, receives)", all_sends && all_recvs)) {
        return;
    }
    int failed = 0;
    for (int round = 0; round < rounds && !failed; ++round) {
        for (int a = 0; a < nd; ++a) {
            for (int s = 0; s < 2; ++s) {
                /* Channel id: axis and the direction it was sent in. */
                fill(out[a][s], me, 10 * a + s, round);
                memset(in[a][s], 0xff, sizeof in[a][s]);
            }
        }
        QMP_status_t st = QMP_start(all_sends);
        if (st == QMP_SUCCESS) {
            st = QMP_start(all_recvs);
        }
        if (st == QMP_SUCCESS) {
            st = QMP_wait(all_recvs);
        }
        if (st == QMP_SUCCESS) {
            st = QMP_wait(all_sends);
        }
        if (!qc_status("relative channels: start / wait of the multiples", QMP_SUCCESS, st)) {
            break;
        }
        for (int a = 0; a < nd && !failed; ++a) {
            for (int s = 0; s < 2; ++s) {
                const int dir = s == 0 ? +1 : -1;
                /* From the neighbour at dir, which sent towards -dir. */
                char label[96];
                snprintf(label, sizeof label, "relative: receive from axis %d dir %+d, round %d", a,
                         dir, round);
                if (!check_payload(label, in[a][s], neighbour(dims, nd, a, dir), 10 * a + (1 - s),
                                   round)) {
                    failed = 1;
                }
            }
        }
    }
    QMP_free_msghandle(all_sends);
    QMP_free_msghandle(all_recvs);
    for (int a = 0; a < nd; ++a) {
        for (int s = 0; s < 2; ++s) {
            QMP_free_msgmem(mo[a][s]);
            QMP_free_msgmem(mi[a][s]);
        }
    }
}

/* A ring by node numbers, the same two channels `rounds` times; who starts
 * first alternates. */
static void ring(int rounds)
{
    const int next = (me + 1) % n, prev = (me + n - 1) % n;
    int out[WORDS] = {0}, in[WORDS] = {0};
    QMP_msgmem_t mo = QMP_declare_msgmem(out, sizeof out);
    QMP_msgmem_t mi = QMP_declare_msgmem(in, sizeof in);
    QMP_msghandle_t s = QMP_declare_send_to(mo, next, 0);
    QMP_msghandle_t r = QMP_declare_receive_from(mi, prev, 0);
    if (!qc_true("QMP_declare_send_to / receive_from (ring)", s && r)) {
        return;
    }
    for (int round = 0; round < rounds; ++round) {
        fill(out, me, 1, round);
        memset(in, 0, sizeof in);
        QMP_status_t st;
        if (round % 2 == 0) {
            st = QMP_start(r);
            st = st == QMP_SUCCESS ? QMP_start(s) : st;
        } else {
            st = QMP_start(s);
            st = st == QMP_SUCCESS ? QMP_start(r) : st;
        }
        st = st == QMP_SUCCESS ? QMP_wait(r) : st;
        st = st == QMP_SUCCESS ? QMP_wait(s) : st;
        char label[64];
        snprintf(label, sizeof label, "ring round %d", round);
        if (!qc_status(label, QMP_SUCCESS, st) || !check_payload(label, in, prev, 1, round)) {
            break;
        }
    }
    QMP_free_msghandle(s);
    QMP_free_msghandle(r);
    QMP_free_msgmem(mo);
    QMP_free_msgmem(mi);
}

static void self_channel(void)
{
    int out[WORDS], in[WORDS] = {0};
    fill(out, me, 2, 0);
    QMP_msgmem_t mo = QMP_declare_msgmem(out, sizeof out);
    QMP_msgmem_t mi = QMP_declare_msgmem(in, sizeof in);
    QMP_msghandle_t h[2] = {QMP_declare_send_to(mo, me, 0), QMP_declare_receive_from(mi, me, 0)};
    if (qc_true("QMP_declare_send_to / receive_from this process", h[0] && h[1])) {
        QMP_start(h[0]);
        QMP_start(h[1]);
        qc_status("QMP_wait_all (self)", QMP_SUCCESS, QMP_wait_all(h, 2));
        check_payload("self channel", in, me, 2, 0);
        QMP_free_msghandle(h[0]);
        QMP_free_msghandle(h[1]);
    }
    QMP_free_msgmem(mo);
    QMP_free_msgmem(mi);
}

/* Two buffers on each side, swapped by change_address every round; then a
 * multiple of two receives readdressed with change_address_multiple. */
static void change_addresses(void)
{
    const int next = (me + 1) % n, prev = (me + n - 1) % n;
    int out[2][WORDS] = {{0}}, in[2][WORDS] = {{0}};
    QMP_msgmem_t mo = QMP_declare_msgmem(out[0], sizeof out[0]);
    QMP_msgmem_t mi = QMP_declare_msgmem(in[0], sizeof in[0]);
    QMP_msghandle_t s = QMP_declare_send_to(mo, next, 0);
    QMP_msghandle_t r = QMP_declare_receive_from(mi, prev, 0);
    if (!qc_true("QMP_declare_send_to / receive_from (change_address)", s && r)) {
        return;
    }
    for (int round = 0; round < 50; ++round) {
        const int b = round % 2;
        fill(out[b], me, 3, round);
        fill(out[1 - b], me, 99, -1); /* must not be sent */
        memset(in, 0, sizeof in);
        qc_status("QMP_change_address(send)", QMP_SUCCESS, QMP_change_address(s, out[b]));
        qc_status("QMP_change_address(receive)", QMP_SUCCESS, QMP_change_address(r, in[1 - b]));
        QMP_start(r);
        QMP_start(s);
        QMP_wait(r);
        QMP_wait(s);
        char label[64];
        snprintf(label, sizeof label, "change_address round %d", round);
        if (!check_payload(label, in[1 - b], prev, 3, round)) {
            break;
        }
        qc_int("change_address: the other receive buffer stays untouched", 0, in[b][0]);
    }
    QMP_free_msghandle(s);
    QMP_free_msghandle(r);
    QMP_free_msgmem(mo);

    /* Multiple: two receives from prev, readdressed together. */
    int spare[2][WORDS];
    QMP_msgmem_t mo2 = QMP_declare_msgmem(out[0], sizeof out[0]);
    QMP_msghandle_t sends[2] = {QMP_declare_send_to(mo2, next, 0),
                                QMP_declare_send_to(mo2, next, 0)};
    QMP_msghandle_t recvs[2] = {QMP_declare_receive_from(mi, prev, 0),
                                QMP_declare_receive_from(mi, prev, 0)};
    QMP_msghandle_t ms = QMP_declare_multiple(sends, 2);
    QMP_msghandle_t mr = QMP_declare_multiple(recvs, 2);
    if (qc_true("QMP_declare_multiple for change_address_multiple", ms && mr)) {
        void *addrs[2] = {spare[0], spare[1]};
        memset(spare, 0, sizeof spare);
        fill(out[0], me, 4, 0);
        qc_status("QMP_change_address_multiple", QMP_SUCCESS,
                  QMP_change_address_multiple(mr, addrs, 2));
        QMP_start(mr);
        QMP_start(ms);
        qc_status("QMP_wait (multiple receive)", QMP_SUCCESS, QMP_wait(mr));
        qc_status("QMP_wait (multiple send)", QMP_SUCCESS, QMP_wait(ms));
        check_payload("change_address_multiple: first address", spare[0], prev, 4, 0);
        check_payload("change_address_multiple: second address", spare[1], prev, 4, 0);
        QMP_free_msghandle(ms);
        QMP_free_msghandle(mr);
    }
    QMP_free_msgmem(mo2);
    QMP_free_msgmem(mi);
}

/* Pairs: (send to next, receive from prev) twice, as one handle. */
static void pairs(void)
{
    const int next = (me + 1) % n, prev = (me + n - 1) % n;
    int out[2][WORDS] = {{0}}, in[2][WORDS] = {{0}};
    QMP_msgmem_t mo[2], mi[2];
    QMP_msghandle_t h[4];
    for (int p = 0; p < 2; ++p) {
        mo[p] = QMP_declare_msgmem(out[p], sizeof out[p]);
        mi[p] = QMP_declare_msgmem(in[p], sizeof in[p]);
        h[2 * p] = QMP_declare_send_to(mo[p], next, 0);
        h[2 * p + 1] = QMP_declare_receive_from(mi[p], prev, 0);
    }
    QMP_msghandle_t both = QMP_declare_send_recv_pairs(h, 4);
    if (qc_true("QMP_declare_send_recv_pairs", both != NULL)) {
        for (int round = 0; round < 20; ++round) {
            fill(out[0], me, 5, round);
            fill(out[1], me, 6, round);
            memset(in, 0, sizeof in);
            qc_status("QMP_start(pairs)", QMP_SUCCESS, QMP_start(both));
            qc_status("QMP_wait(pairs)", QMP_SUCCESS, QMP_wait(both));
            /* Same peer, same order: the first receive gets the first send. */
            if (!check_payload("send_recv_pairs, first pair", in[0], prev, 5, round) ||
                !check_payload("send_recv_pairs, second pair", in[1], prev, 6, round)) {
                break;
            }
        }
        QMP_free_msghandle(both);
    }
    for (int p = 0; p < 2; ++p) {
        QMP_free_msgmem(mo[p]);
        QMP_free_msgmem(mi[p]);
    }
}

/* Clear-to-send states on idle handles, then transfers as usual; polling
 * with QMP_is_complete. */
static void clear_to_send_and_poll(void)
{
    const int next = (me + 1) % n, prev = (me + n - 1) % n;
    int out[WORDS] = {0}, in[WORDS] = {0};
    QMP_msgmem_t mo = QMP_declare_msgmem(out, sizeof out);
    QMP_msgmem_t mi = QMP_declare_msgmem(in, sizeof in);
    QMP_msghandle_t s = QMP_declare_send_to(mo, next, 0);
    QMP_msghandle_t r = QMP_declare_receive_from(mi, prev, 0);
    if (!qc_true("QMP_declare_send_to / receive_from (clear to send)", s && r)) {
        return;
    }
    const QMP_clear_to_send_t states[3] = {QMP_CTS_READY, QMP_CTS_NOT_READY, QMP_CTS_DISABLED};
    for (int i = 0; i < 3; ++i) {
        char call[64];
        snprintf(call, sizeof call, "QMP_clear_to_send(receive, %d)", (int)states[i]);
        qc_status(call, QMP_SUCCESS, QMP_clear_to_send(r, states[i]));
        snprintf(call, sizeof call, "QMP_clear_to_send(send, %d)", (int)states[i]);
        qc_status(call, QMP_SUCCESS, QMP_clear_to_send(s, states[i]));
        fill(out, me, 7, i);
        memset(in, 0, sizeof in);
        QMP_start(r);
        QMP_start(s);
        /* Poll both to completion (bounded). */
        const double t0 = QMP_time();
        int rdone = 0, sdone = 0;
        while ((!rdone || !sdone) && QMP_time() - t0 < 20.0) {
            rdone = rdone || QMP_is_complete(r);
            sdone = sdone || QMP_is_complete(s);
        }
        qc_true("QMP_is_complete(receive) becomes true", rdone);
        qc_true("QMP_is_complete(send) becomes true", sdone);
        qc_status("QMP_wait after QMP_is_complete", QMP_SUCCESS, QMP_wait(r));
        check_payload("clear_to_send + is_complete", in, prev, 7, i);
        QMP_wait(s);
    }
    QMP_free_msghandle(s);
    QMP_free_msghandle(r);
    QMP_free_msgmem(mo);
    QMP_free_msgmem(mi);
}

/* Three sends to one peer and three receives from it: matched in the order
 * they were started (here the reverse of their declaration). */
static void start_order(void)
{
    const int next = (me + 1) % n, prev = (me + n - 1) % n;
    int out[3][WORDS] = {{0}}, in[3][WORDS] = {{0}};
    QMP_msgmem_t mo[3], mi[3];
    QMP_msghandle_t s[3], r[3];
    for (int i = 0; i < 3; ++i) {
        mo[i] = QMP_declare_msgmem(out[i], sizeof out[i]);
        mi[i] = QMP_declare_msgmem(in[i], sizeof in[i]);
        s[i] = QMP_declare_send_to(mo[i], next, 0);
        r[i] = QMP_declare_receive_from(mi[i], prev, 0);
        fill(out[i], me, 20 + i, 0);
        memset(in[i], 0, sizeof in[i]);
    }
    for (int i = 2; i >= 0; --i) {
        QMP_start(r[i]);
    }
    for (int i = 2; i >= 0; --i) {
        QMP_start(s[i]);
    }
    QMP_msghandle_t all[6] = {s[0], s[1], s[2], r[0], r[1], r[2]};
    qc_status("QMP_wait_all (start order)", QMP_SUCCESS, QMP_wait_all(all, 6));
    for (int i = 0; i < 3; ++i) {
        char label[64];
        snprintf(label, sizeof label, "receive started %d-th", 3 - i);
        check_payload(label, in[i], prev, 20 + i, 0);
        QMP_free_msghandle(s[i]);
        QMP_free_msghandle(r[i]);
        QMP_free_msgmem(mo[i]);
        QMP_free_msgmem(mi[i]);
    }
}

/* MILC: node 0 declares, uses and frees a send to every other node, round
 * after round; the others do the same with a receive. */
static void declare_use_free(int rounds)
{
    int buf[WORDS];
    for (int round = 0; round < rounds; ++round) {
        if (me == 0) {
            for (int to = 1; to < n; ++to) {
                fill(buf, 0, 30 + to, round);
                QMP_msgmem_t m = QMP_declare_msgmem(buf, sizeof buf);
                QMP_msghandle_t h = QMP_declare_send_to(m, to, 0);
                if (!h || QMP_start(h) != QMP_SUCCESS || QMP_wait(h) != QMP_SUCCESS) {
                    qc_fail("declare-use-free send round %d to %d failed", round, to);
                    return;
                }
                QMP_free_msghandle(h);
                QMP_free_msgmem(m);
            }
        } else {
            memset(buf, 0, sizeof buf);
            QMP_msgmem_t m = QMP_declare_msgmem(buf, sizeof buf);
            QMP_msghandle_t h = QMP_declare_receive_from(m, 0, 0);
            if (!h || QMP_start(h) != QMP_SUCCESS || QMP_wait(h) != QMP_SUCCESS) {
                qc_fail("declare-use-free receive round %d failed", round);
                return;
            }
            char label[64];
            snprintf(label, sizeof label, "declare-use-free round %d", round);
            if (!check_payload(label, buf, 0, 30 + me, round)) {
                return;
            }
            QMP_free_msghandle(h);
            QMP_free_msgmem(m);
        }
    }
}

/* 8 MiB around the ring, and 1 B, with the sends started first. */
static void sizes(void)
{
    const int next = (me + 1) % n, prev = (me + n - 1) % n;
    const size_t lengths[4] = {1, 4096, 65536 + 8, 8u << 20};
    for (int i = 0; i < 4; ++i) {
        const size_t len = lengths[i];
        QMP_mem_t *so = QMP_allocate_memory(len), *si = QMP_allocate_memory(len);
        unsigned char *o = QMP_get_memory_pointer(so), *in = QMP_get_memory_pointer(si);
        for (size_t k = 0; k < len; ++k) {
            o[k] = (unsigned char)(me * 37 + k * 11 + i);
        }
        memset(in, 0, len);
        QMP_msgmem_t mo = QMP_declare_msgmem(o, len), mi = QMP_declare_msgmem(in, len);
        QMP_msghandle_t s = QMP_declare_send_to(mo, next, 0);
        QMP_msghandle_t r = QMP_declare_receive_from(mi, prev, 0);
        if (qc_true("declaring channels for a size", s && r)) {
            QMP_start(s);
            QMP_start(r);
            QMP_msghandle_t both[2] = {r, s};
            qc_status("QMP_wait_all (sizes)", QMP_SUCCESS, QMP_wait_all(both, 2));
            for (size_t k = 0; k < len; ++k) {
                const unsigned char want = (unsigned char)(prev * 37 + k * 11 + i);
                if (in[k] != want) {
                    qc_fail("%zu-byte message: byte %zu: expected %u, got %u", len, k, want, in[k]);
                    break;
                }
            }
            QMP_free_msghandle(s);
            QMP_free_msghandle(r);
        }
        QMP_free_msgmem(mo);
        QMP_free_msgmem(mi);
        QMP_free_memory(so);
        QMP_free_memory(si);
    }
}

/* A send waited for before its receive is even started (the receiver is
 * late): the transport keeps small messages until the receive starts. */
static void send_completes_before_receive(void)
{
    const int next = (me + 1) % n, prev = (me + n - 1) % n;
    int out[WORDS] = {0}, in[WORDS] = {0};
    fill(out, me, 40, 0);
    memset(in, 0, sizeof in);
    QMP_msgmem_t mo = QMP_declare_msgmem(out, sizeof out);
    QMP_msgmem_t mi = QMP_declare_msgmem(in, sizeof in);
    QMP_msghandle_t s = QMP_declare_send_to(mo, next, 0);
    QMP_msghandle_t r = QMP_declare_receive_from(mi, prev, 0);
    if (qc_true("declaring channels (late receive)", s && r)) {
        qc_status("QMP_start(send) before the receive", QMP_SUCCESS, QMP_start(s));
        qc_status("QMP_wait(send) before any receive started", QMP_SUCCESS, QMP_wait(s));
        fill(out, me, 41, 0); /* the message already left */
        sleep_ms(50);
        QMP_start(r);
        qc_status("QMP_wait(late receive)", QMP_SUCCESS, QMP_wait(r));
        check_payload("late receive", in, prev, 40, 0);
        QMP_free_msghandle(s);
        QMP_free_msghandle(r);
    }
    QMP_free_msgmem(mo);
    QMP_free_msgmem(mi);
}

int main(int argc, char **argv)
{
    qc_watchdog("qmp_channel_test", 120);
    int dims[MAXD], nd = 0;
    for (int i = 1; i < argc; ++i) {
        if (strncmp(argv[i], "app-dims=", 9) == 0) {
            nd = qc_parse_dims(argv[i] + 9, dims, MAXD);
        }
    }
    QMP_thread_level_t provided;
    if (!qc_status("QMP_init_msg_passing", QMP_SUCCESS,
                   QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided))) {
        return 1;
    }
    me = QMP_get_node_number();
    n = QMP_get_number_of_nodes();
    if (nd == 0) {
        dims[0] = n;
        nd = 1;
    }
    if (qc_status("QMP_declare_logical_topology", QMP_SUCCESS,
                  QMP_declare_logical_topology(dims, nd))) {
        relative_everywhere(dims, nd, 200);
    }
    ring(1000);
    self_channel();
    change_addresses();
    pairs();
    clear_to_send_and_poll();
    start_order();
    declare_use_free(100);
    sizes();
    send_completes_before_receive();
    return qc_finish("qmp_channel_test", 1);
}
