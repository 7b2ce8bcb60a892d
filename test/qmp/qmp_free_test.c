/* SPDX-License-Identifier: BSD-3-Clause */
/* Handles freed while started (QMP_start, then QMP_free_msghandle without a
 * wait), as QMP over MPI defines them (MPI_Request_free): the transfer
 * completes anyway, and the messages after it on that peer and tag are
 * never shifted.  Processes pair up (0 with 1, 2 with 3, ...; an odd last
 * one only joins the barriers); the lower of a pair sends, the higher
 * receives, at each size of app-sizes=A,B,... (default 8,10000,20000,40000,
 * 1048576: with the default parameters one ring slot, ring fragments,
 * CMA, CMA split copy, CMA split copy of 1 MiB):
 *
 *   freed send     the sender starts a send of message 1 and frees it, then
 *                  sends message 2 on a new handle; the receiver's two
 *                  receives get messages 1 and 2, with QMP_SUCCESS;
 *   freed receive  the receiver starts a receive and frees it, then starts
 *                  two more; the sender sends messages 1, 2 and 3: the
 *                  freed receive takes message 1 (into its memory), the
 *                  others 2 and 3.
 *
 * Each in two orders: the freeing side first (the freed send or receive is
 * there before its peer's receive or message), and its peer first (the
 * receive waits, or the message has arrived, when the handle is started
 * and freed).  Every byte of every message is checked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mca/qmp/qmp.h"
#include "qmp_check.h"

static int me, n, partner;

static unsigned char pattern(size_t size, int message, size_t i)
{
    return (unsigned char)((i * 131 + (i >> 8) + (size_t)message * 37 + size) & 0xff);
}

static void fill(unsigned char *buf, size_t size, int message)
{
    for (size_t i = 0; i < size; ++i) {
        buf[i] = pattern(size, message, i);
    }
}

/* The buffer holds message `message`; else says which byte differs and
 * which message it would belong to. */
static void check_message(const char *what, const unsigned char *buf, size_t size, int message)
{
    for (size_t i = 0; i < size; ++i) {
        if (buf[i] != pattern(size, message, i)) {
            int other = 0;
            for (int m = 1; m <= 3; ++m) {
                if (m != message && buf[i] == pattern(size, m, i)) {
                    other = m;
                }
            }
            if (other != 0) {
                qc_fail("%s: expected message %d, byte %zu is message %d's", what, message, i,
                        other);
            } else {
                qc_fail("%s: expected message %d, byte %zu is %d, expected %d", what, message, i,
                        buf[i], pattern(size, message, i));
            }
            return;
        }
    }
}

struct side {
    unsigned char *buf;
    QMP_msgmem_t mem;
};

static void make(struct side *s, size_t size)
{
    s->buf = malloc(size);
    memset(s->buf, 0xee, size);
    s->mem = QMP_declare_msgmem(s->buf, size);
}

static void drop(struct side *s)
{
    QMP_free_msgmem(s->mem);
    free(s->buf);
}

static void status(const char *what, QMP_status_t st)
{
    qc_status(what, QMP_SUCCESS, st);
}

/* The sender starts message 1 and frees its handle; message 2 follows on
 * another.  freeing_first: the free happens before the receiver starts. */
static void freed_send(size_t size, int freeing_first)
{
    char what[160];
    snprintf(what, sizeof what, "freed send of %zu bytes (%s first)", size,
             freeing_first ? "sender" : "receiver");
    if (partner < 0) {
        QMP_barrier();
        QMP_barrier();
        return;
    }
    if (me < partner) {
        struct side a, b;
        make(&a, size);
        make(&b, size);
        fill(a.buf, size, 1);
        fill(b.buf, size, 2);
        QMP_msghandle_t ha = QMP_declare_send_to(a.mem, partner, 0);
        QMP_msghandle_t hb = QMP_declare_send_to(b.mem, partner, 0);
        if (!freeing_first) {
            QMP_barrier(); /* the receiver waits already */
        }
        status(what, QMP_start(ha));
        QMP_free_msghandle(ha);
        if (freeing_first) {
            QMP_barrier();
        }
        status(what, QMP_start(hb));
        status(what, QMP_wait(hb));
        QMP_free_msghandle(hb);
        QMP_barrier(); /* the receiver has both: the memory may go */
        drop(&a);
        drop(&b);
    } else {
        struct side r1, r2;
        make(&r1, size);
        make(&r2, size);
        QMP_msghandle_t h1 = QMP_declare_receive_from(r1.mem, partner, 0);
        QMP_msghandle_t h2 = QMP_declare_receive_from(r2.mem, partner, 0);
        if (freeing_first) {
            QMP_barrier(); /* the send was started and freed */
        }
        status(what, QMP_start(h1));
        if (!freeing_first) {
            QMP_barrier();
        }
        status(what, QMP_wait(h1));
        status(what, QMP_start(h2));
        status(what, QMP_wait(h2));
        char which[200];
        snprintf(which, sizeof which, "%s: the first receive", what);
        check_message(which, r1.buf, size, 1);
        snprintf(which, sizeof which, "%s: the second receive", what);
        check_message(which, r2.buf, size, 2);
        QMP_free_msghandle(h1);
        QMP_free_msghandle(h2);
        QMP_barrier();
        drop(&r1);
        drop(&r2);
    }
}

/* The receiver starts a receive and frees it, then receives twice more;
 * the sender sends messages 1, 2 and 3.  freeing_first: the free happens
 * before message 1 is sent. */
static void freed_receive(size_t size, int freeing_first)
{
    char what[160];
    snprintf(what, sizeof what, "freed receive of %zu bytes (%s first)", size,
             freeing_first ? "receiver" : "sender");
    if (partner < 0) {
        QMP_barrier();
        QMP_barrier();
        return;
    }
    if (me < partner) {
        struct side s;
        make(&s, size);
        QMP_msghandle_t h = QMP_declare_send_to(s.mem, partner, 0);
        fill(s.buf, size, 1);
        if (freeing_first) {
            QMP_barrier(); /* the freed receive is there */
        }
        status(what, QMP_start(h));
        if (!freeing_first) {
            QMP_barrier(); /* message 1 is under way */
        }
        status(what, QMP_wait(h));
        for (int m = 2; m <= 3; ++m) {
            fill(s.buf, size, m);
            status(what, QMP_start(h));
            status(what, QMP_wait(h));
        }
        QMP_free_msghandle(h);
        QMP_barrier();
        drop(&s);
    } else {
        struct side r0, r1, r2;
        make(&r0, size);
        make(&r1, size);
        make(&r2, size);
        QMP_msghandle_t h0 = QMP_declare_receive_from(r0.mem, partner, 0);
        QMP_msghandle_t h1 = QMP_declare_receive_from(r1.mem, partner, 0);
        QMP_msghandle_t h2 = QMP_declare_receive_from(r2.mem, partner, 0);
        if (!freeing_first) {
            QMP_barrier(); /* message 1 is under way */
        }
        status(what, QMP_start(h0));
        QMP_free_msghandle(h0);
        if (freeing_first) {
            QMP_barrier();
        }
        status(what, QMP_start(h1));
        status(what, QMP_wait(h1));
        status(what, QMP_start(h2));
        status(what, QMP_wait(h2));
        char which[200];
        snprintf(which, sizeof which, "%s: the receive after the freed one", what);
        check_message(which, r1.buf, size, 2);
        snprintf(which, sizeof which, "%s: the receive after that", what);
        check_message(which, r2.buf, size, 3);
        QMP_free_msghandle(h1);
        QMP_free_msghandle(h2);
        QMP_barrier();
        snprintf(which, sizeof which, "%s: the freed receive's memory", what);
        check_message(which, r0.buf, size, 1);
        drop(&r0);
        drop(&r1);
        drop(&r2);
    }
}

int main(int argc, char **argv)
{
    qc_watchdog("qmp_free_test", 120);
    QMP_thread_level_t provided;
    if (!qc_status("QMP_init_msg_passing", QMP_SUCCESS,
                   QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided))) {
        return 1;
    }
    me = QMP_get_node_number();
    n = QMP_get_number_of_nodes();
    partner = (me ^ 1) < n ? me ^ 1 : -1;
    const char *sizes_text = qc_arg(argc, argv, "app-sizes");
    int sizes[16];
    const int count = qc_parse_ints(sizes_text != NULL ? sizes_text : "8,10000,20000,40000,1048576",
                                    sizes, 16, 1);
    qc_true("app-sizes", count > 0);
    for (int k = 0; k < count; ++k) {
        for (int first = 1; first >= 0; --first) {
            freed_send((size_t)sizes[k], first);
            freed_receive((size_t)sizes[k], first);
        }
    }
    return qc_finish("qmp_free_test", 1);
}
