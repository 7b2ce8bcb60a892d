/* SPDX-License-Identifier: BSD-3-Clause */
/* Errors: QMP_error_string for every status (QMP's own strings), the last
 * error after calls that fail and return NULL or a status (bad node numbers,
 * bad axes and directions, no topology, a second topology, bad dimensions,
 * a layout that does not factor), misuse of handles, messages shorter than
 * their receive (delivered) and longer (QMP_MEMSIZE_ERR), and
 * QMP_set_error_function: the application's function is called (status,
 * message) for every failure, returned or not; the default one only for
 * errors that cannot be returned (qmp_basic.sh checks it: print and
 * abort). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mca/qmp/qmp.h"
#include "qmp_check.h"

/* QMP's strings, by status (QMP_SUCCESS, then QMP_ERROR onwards). */
static const struct {
    QMP_status_t status;
    const char *text;
} status_strings[] = {
    {QMP_SUCCESS, "successful"},
    {QMP_ERROR, "general QMP error"},
    {QMP_NOT_INITED, "message passing system is not initialized yet"},
    {QMP_RTENV_ERR, "run time environment set up error"},
    {QMP_CPUINFO_ERR, "machine CPU information retrieval error"},
    {QMP_NODEINFO_ERR, "node run time information retrieval error"},
    {QMP_NOMEM_ERR, "malloc failure"},
    {QMP_MEMSIZE_ERR, "sending memory size is larger than receiving memory size"},
    {QMP_HOSTNAME_ERR, "node hostname retrieval error"},
    {QMP_INITSVC_ERR, "initiate underlying service (gm) error"},
    {QMP_TOPOLOGY_EXISTS, "logical topology exists already"},
    {QMP_CH_TIMEOUT, "channel connection time out"},
    {QMP_NOTSUPPORTED, "not supported"},
    {QMP_SVC_BUSY, "underlying service (gm) is busy"},
    {QMP_BAD_MESSAGE, "invalid communication message"},
    {QMP_INVALID_ARG, "invalid function arguments"},
    {QMP_INVALID_TOPOLOGY, "invalid declared topology"},
    {QMP_NONEIGHBOR_INFO, "topology neighboring information error"},
    {QMP_MEMSIZE_TOOBIG, "declare memory size exceeeds the maximum allowed size"},
    {QMP_BAD_MEMORY, "invalid memory for a message handle"},
    {QMP_NO_PORTS, "no more gm ports available"},
    {QMP_NODE_OUTRANGE, "remote node number is out of range"},
    {QMP_CHDEF_ERR, "channel definition error (send/recv to/from itself)"},
    {QMP_MEMUSED_ERR, "receiving memory is already used by others"},
    {QMP_INVALID_OP, "a sending/receiving operation applied in a wrong state"},
    {QMP_TIMEOUT, "communication time out"},
};

static void strings(void)
{
    const size_t count = sizeof status_strings / sizeof status_strings[0];
    qc_int("statuses with a string (QMP_SUCCESS, QMP_ERROR .. QMP_TIMEOUT)",
           1 + (QMP_MAX_STATUS - QMP_ERROR), (long long)count);
    for (size_t i = 0; i < count; ++i) {
        char call[64];
        snprintf(call, sizeof call, "QMP_error_string(%d)", (int)status_strings[i].status);
        qc_str(call, status_strings[i].text, QMP_error_string(status_strings[i].status));
    }
    char want[64];
    snprintf(want, sizeof want, "unknown error code %d", (int)QMP_MAX_STATUS);
    qc_str("QMP_error_string(QMP_MAX_STATUS)", want, QMP_error_string(QMP_MAX_STATUS));
    qc_str("QMP_error_string(0x7fff)", "unknown error code 32767",
           QMP_error_string((QMP_status_t)0x7fff));
}

/* A call returning NULL must leave its reason in the last error. */
static void expect_null(const char *call, const void *got, QMP_status_t status, const char *message)
{
    char what[160];
    snprintf(what, sizeof what, "%s returns NULL", call);
    qc_true(what, got == NULL);
    snprintf(what, sizeof what, "QMP_get_error_number(NULL) after %s", call);
    qc_status(what, status, QMP_get_error_number(NULL));
    snprintf(what, sizeof what, "QMP_get_error_string(NULL) after %s", call);
    qc_str(what, message, QMP_get_error_string(NULL));
}

static int handler_calls = 0;
static QMP_status_t handler_status = QMP_SUCCESS;
static char handler_message[512] = "";
enum { HANDLER_RETURN = 0x1abc };

static int handler(QMP_status_t status, const char *message)
{
    ++handler_calls;
    handler_status = status;
    snprintf(handler_message, sizeof handler_message, "%s", message ? message : "(null)");
    return HANDLER_RETURN;
}

/* Errors QMP cannot return go to the error function: memory freed twice, a
 * member of a multiple handle freed alone, a second init. */
static void error_function_calls(int *argc, char ***argv)
{
    QMP_mem_t *m = QMP_allocate_memory(16);
    void *p = QMP_get_memory_pointer(m);
    QMP_free_aligned_memory(p);
    handler_calls = 0;
    QMP_free_aligned_memory(p);
    qc_int("error function calls for a second QMP_free_aligned_memory", 1, handler_calls);
    qc_status("status given to the error function (memory freed twice)", QMP_BAD_MEMORY,
              handler_status);
    qc_str_prefix("message given to the error function (memory freed twice)",
                  "QMP_free_aligned_memory: ", handler_message);

    const int me = QMP_get_node_number();
    int word = 0;
    QMP_msgmem_t mem = QMP_declare_msgmem(&word, sizeof word);
    QMP_msghandle_t parts[2] = {QMP_declare_send_to(mem, me, 0),
                                QMP_declare_receive_from(mem, me, 0)};
    QMP_msghandle_t both = QMP_declare_multiple(parts, 2);
    if (qc_true("QMP_declare_multiple(send, receive to self)", both != NULL)) {
        handler_calls = 0;
        QMP_free_msghandle(parts[0]);
        qc_int("error function calls for freeing a member of a multiple handle", 1, handler_calls);
        qc_status("status given to the error function (member freed)", QMP_INVALID_OP,
                  handler_status);
        qc_str_prefix("message given to the error function (member freed)",
                      "QMP_free_msghandle: ", handler_message);
        QMP_free_msghandle(both);
    }
    QMP_free_msgmem(mem);

    handler_calls = 0;
    QMP_thread_level_t provided;
    const QMP_status_t st = QMP_init_msg_passing(argc, argv, QMP_THREAD_SINGLE, &provided);
    qc_int("error function calls for a second QMP_init_msg_passing", 1, handler_calls);
    qc_true("a second QMP_init_msg_passing fails", st != QMP_SUCCESS);
    qc_str_prefix("message given to the error function (second init)",
                  "QMP_init_msg_passing: ", handler_message);
    qc_int("QMP_is_initialized() after a second init", QMP_TRUE, QMP_is_initialized());
    qc_status("QMP_barrier() after a second init", QMP_SUCCESS, QMP_barrier());
    handler_calls = 0;
}

static void declares(void)
{
    const int n = QMP_get_number_of_nodes();
    char word[8] = "abcdefg";
    QMP_msgmem_t mem = QMP_declare_msgmem(word, sizeof word);
    if (!qc_true("QMP_declare_msgmem", mem != NULL)) {
        return;
    }
    char want[256];
    snprintf(want, sizeof want,
             "QMP_declare_send_to: node %d is out of range: the communicator has %d nodes", n + 3,
             n);
    expect_null("QMP_declare_send_to(node = number of nodes + 3)",
                QMP_declare_send_to(mem, n + 3, 0), QMP_NODE_OUTRANGE, want);
    snprintf(want, sizeof want,
             "QMP_declare_receive_from: node %d is out of range: the communicator has %d nodes",
             n + 3, n);
    expect_null("QMP_declare_receive_from(node = number of nodes + 3)",
                QMP_declare_receive_from(mem, n + 3, 0), QMP_NODE_OUTRANGE, want);
    snprintf(want, sizeof want,
             "QMP_declare_send_to: node -1 is out of range: the communicator has %d nodes", n);
    expect_null("QMP_declare_send_to(node = -1)", QMP_declare_send_to(mem, -1, 0),
                QMP_NODE_OUTRANGE, want);
    expect_null("QMP_declare_send_relative without a logical topology",
                QMP_declare_send_relative(mem, 0, +1, 0), QMP_NONEIGHBOR_INFO,
                "QMP_declare_send_relative: no logical topology is declared on the communicator");
    expect_null(
        "QMP_declare_receive_relative without a logical topology",
        QMP_declare_receive_relative(mem, 0, -1, 0), QMP_NONEIGHBOR_INFO,
        "QMP_declare_receive_relative: no logical topology is declared on the communicator");

    /* Topologies: product must be the number of nodes, sizes >= 1, once. */
    int wrong[2] = {n + 1, 1};
    qc_status("QMP_declare_logical_topology(dims whose product is not the number of nodes)",
              QMP_INVALID_ARG, QMP_declare_logical_topology(wrong, 2));
    snprintf(want, sizeof want,
             "QMP_declare_logical_topology: expected sizes whose product is the number of nodes "
             "(%d), found %d 1",
             n, n + 1);
    qc_str("QMP_get_error_string(NULL) after a topology of the wrong size", want,
           QMP_get_error_string(NULL));
    qc_int("QMP_logical_topology_is_declared() after a refused declare", QMP_FALSE,
           QMP_logical_topology_is_declared());
    int zero[2] = {n, 0};
    qc_status("QMP_declare_logical_topology(a dimension of 0)", QMP_INVALID_ARG,
              QMP_declare_logical_topology(zero, 2));
    qc_status("QMP_declare_logical_topology(ndim = -2)", QMP_INVALID_ARG,
              QMP_declare_logical_topology(zero, -2));
    /* A layout that cannot be factored (3^4 sites on 2 or 4 processes). */
    if (n == 2 || n == 4) {
        const int odd[4] = {3, 3, 3, 3};
        qc_status("QMP_layout_grid(3x3x3x3) on 2 or 4 processes", QMP_ERROR,
                  QMP_layout_grid(odd, 4));
        snprintf(want, sizeof want,
                 "QMP_layout_grid: the lattice 3x3x3x3 has not enough prime factors for %d nodes",
                 n);
        qc_str("QMP_get_error_string(NULL) after QMP_layout_grid(3x3x3x3)", want,
               QMP_get_error_string(NULL));
        qc_int("QMP_logical_topology_is_declared() after a failed QMP_layout_grid", QMP_FALSE,
               QMP_logical_topology_is_declared());
    }
    int dims[2] = {n, 1};
    qc_status("QMP_declare_logical_topology({n,1})", QMP_SUCCESS,
              QMP_declare_logical_topology(dims, 2));
    qc_status("QMP_declare_logical_topology again", QMP_TOPOLOGY_EXISTS,
              QMP_declare_logical_topology(dims, 2));
    snprintf(want, sizeof want,
             "QMP_declare_logical_topology: the communicator already has the logical topology "
             "%dx1",
             n);
    qc_str("QMP_get_error_string(NULL) after a second topology", want, QMP_get_error_string(NULL));
    expect_null("QMP_declare_send_relative(axis = 2 of a 2-d topology)",
                QMP_declare_send_relative(mem, 2, +1, 0), QMP_INVALID_ARG,
                "QMP_declare_send_relative: axis 2, direction 1: expected an axis from 0 to 1 "
                "and a direction of +1 or -1");
    expect_null("QMP_declare_receive_relative(axis = -1)",
                QMP_declare_receive_relative(mem, -1, +1, 0), QMP_INVALID_ARG,
                "QMP_declare_receive_relative: axis -1, direction 1: expected an axis from 0 to "
                "1 and a direction of +1 or -1");
    expect_null("QMP_declare_send_relative(dir = 0)", QMP_declare_send_relative(mem, 0, 0, 0),
                QMP_INVALID_ARG,
                "QMP_declare_send_relative: axis 0, direction 0: expected an axis from 0 to 1 "
                "and a direction of +1 or -1");
    snprintf(want, sizeof want,
             "QMP_get_logical_coordinates_from: node %d is not in the communicator (nodes "
             "0..%d)",
             n + 3, n - 1);
    expect_null("QMP_get_logical_coordinates_from(number of nodes + 3)",
                QMP_get_logical_coordinates_from(n + 3), QMP_NODE_OUTRANGE, want);

    expect_null("QMP_declare_strided_msgmem(nblocks = -1)",
                QMP_declare_strided_msgmem(word, 1, -1, 2), QMP_INVALID_ARG,
                "QMP_declare_strided_msgmem: nblocks is -1, expected 0 or more");

    /* A good declare leaves its handle's error number at success. */
    QMP_msghandle_t h = QMP_declare_send_to(mem, (QMP_get_node_number() + 1) % n, 0);
    if (qc_true("QMP_declare_send_to(next node)", h != NULL)) {
        qc_status("QMP_get_error_number(handle) of a good handle", QMP_SUCCESS,
                  QMP_get_error_number(h));
        qc_str("QMP_get_error_string(handle) of a good handle", "successful",
               QMP_get_error_string(h));
        QMP_free_msghandle(h);
    }
    QMP_free_msgmem(mem);
}

/* Handles used in the wrong state: never started, started twice,
 * readdressed while started. */
static void handle_states(void)
{
    const int me = QMP_get_node_number();
    int out = 42, in = 0;
    QMP_msgmem_t mout = QMP_declare_msgmem(&out, sizeof out);
    QMP_msgmem_t min = QMP_declare_msgmem(&in, sizeof in);
    QMP_msghandle_t send = QMP_declare_send_to(mout, me, 0);
    QMP_msghandle_t recv = QMP_declare_receive_from(min, me, 0);
    if (!qc_true("QMP_declare_send_to / receive_from this process", send && recv)) {
        return;
    }
    qc_status("QMP_wait on a handle never started", QMP_SUCCESS, QMP_wait(recv));
    qc_int("QMP_is_complete on a handle never started", QMP_TRUE, QMP_is_complete(recv));
    qc_status("QMP_start(receive)", QMP_SUCCESS, QMP_start(recv));
    qc_true("QMP_start on a started handle is refused", QMP_start(recv) != QMP_SUCCESS);
    int other = 0;
    qc_true("QMP_change_address on a started handle is refused",
            QMP_change_address(recv, &other) != QMP_SUCCESS);
    qc_status("QMP_start(send)", QMP_SUCCESS, QMP_start(send));
    qc_status("QMP_wait(receive)", QMP_SUCCESS, QMP_wait(recv));
    qc_status("QMP_wait(send)", QMP_SUCCESS, QMP_wait(send));
    qc_int("value received after the refused calls", 42, in);
    qc_int("the refused QMP_change_address left the other buffer alone", 0, other);
    QMP_free_msghandle(send);
    QMP_free_msghandle(recv);
    QMP_free_msgmem(mout);
    QMP_free_msgmem(min);
}

/* A message of 16 bytes into an 8-byte receive: the receive completes with
 * QMP_MEMSIZE_ERR, the error function (ours) is called once for it, nothing
 * hangs.  Between two processes when there are two, else to self. */
static void size_mismatch(void)
{
    const int me = QMP_get_node_number();
    const int n = QMP_get_number_of_nodes();
    const int sender = 0;
    const int receiver = n > 1 ? 1 : 0;
    double out[2] = {1.5, 2.5}, in = 0;
    QMP_msgmem_t mout = QMP_declare_msgmem(out, sizeof out);
    QMP_msgmem_t min = QMP_declare_msgmem(&in, sizeof in);
    QMP_msghandle_t send = NULL, recv = NULL;
    if (me == receiver) {
        recv = QMP_declare_receive_from(min, sender, 0);
        qc_true("QMP_declare_receive_from (8 bytes)", recv != NULL);
        if (recv) {
            QMP_start(recv);
        }
    }
    if (me == sender) {
        send = QMP_declare_send_to(mout, receiver, 0);
        qc_true("QMP_declare_send_to (16 bytes)", send != NULL);
        if (send) {
            QMP_start(send);
        }
    }
    if (recv) {
        handler_calls = 0;
        const QMP_status_t st = QMP_wait(recv);
        qc_status("QMP_wait on an 8-byte receive of a 16-byte message", QMP_MEMSIZE_ERR, st);
        char want[128];
        snprintf(want, sizeof want,
                 "QMP_wait: receive from node %d: the message is larger than the receive memory",
                 sender);
        qc_str("QMP_get_error_string(receive) after a message too large", want,
               QMP_get_error_string(recv));
        qc_int("error function calls for the failed QMP_wait", 1, handler_calls);
        qc_status("status given to the error function (message too large)", QMP_MEMSIZE_ERR,
                  handler_status);
        qc_str("message given to the error function (message too large)", want, handler_message);
        QMP_free_msghandle(recv);
    }
    if (send) {
        /* The send completes: it did its part. */
        qc_status("QMP_wait on the send of the message too large", QMP_SUCCESS, QMP_wait(send));
        QMP_free_msghandle(send);
    }
    QMP_free_msgmem(mout);
    QMP_free_msgmem(min);
    QMP_barrier();
}

/* Messages shorter than their receive are delivered, as QMP over MPI does:
 * text into a fixed-size buffer, and into strided memory (blocks filled in
 * order); the bytes after the message keep their values, and no error
 * function is called. */
static void shorter_messages(void)
{
    const int me = QMP_get_node_number();
    const int n = QMP_get_number_of_nodes();
    const int sender = 0;
    const int receiver = n > 1 ? 1 : 0;
    char text[] = "hello, world"; /* 13 bytes with its '\0' */
    char buffer[50];
    memset(buffer, 'x', sizeof buffer);
    /* 20 bytes into 4 blocks of 8, 16 apart: blocks 0 and 1, half of 2;
     * and into indexed memory, 3 blocks of 2 ints at ints 0, 4 and 8. */
    unsigned char bytes[20], strided[64], indexed[64];
    for (int i = 0; i < 20; ++i) {
        bytes[i] = (unsigned char)(i + 1);
    }
    memset(strided, 0xee, sizeof strided);
    memset(indexed, 0xee, sizeof indexed);
    int blocklen[3] = {2, 2, 2}, index[3] = {0, 4, 8};
    QMP_msgmem_t mtext = QMP_declare_msgmem(text, sizeof text);
    QMP_msgmem_t mbuffer = QMP_declare_msgmem(buffer, sizeof buffer);
    QMP_msgmem_t mbytes = QMP_declare_msgmem(bytes, sizeof bytes);
    QMP_msgmem_t mstrided = QMP_declare_strided_msgmem(strided, 8, 4, 16);
    QMP_msgmem_t mindexed = QMP_declare_indexed_msgmem(indexed, blocklen, index, 4, 3);
    QMP_msghandle_t h[3] = {NULL, NULL, NULL};
    handler_calls = 0;
    if (me == receiver) {
        h[0] = QMP_declare_receive_from(mbuffer, sender, 0);
        h[1] = QMP_declare_receive_from(mstrided, sender, 0);
        h[2] = QMP_declare_receive_from(mindexed, sender, 0);
        for (int i = 0; i < 3; ++i) {
            QMP_start(h[i]);
        }
    }
    QMP_msghandle_t s[3] = {NULL, NULL, NULL};
    if (me == sender) {
        s[0] = QMP_declare_send_to(mtext, receiver, 0);
        s[1] = QMP_declare_send_to(mbytes, receiver, 0);
        s[2] = QMP_declare_send_to(mbytes, receiver, 0);
        for (int i = 0; i < 3; ++i) {
            QMP_start(s[i]);
        }
    }
    if (me == receiver) {
        qc_status("QMP_wait: 13 bytes of text into a 50-byte receive", QMP_SUCCESS, QMP_wait(h[0]));
        qc_str("the text received into the larger buffer", "hello, world", buffer);
        int rest = 1;
        for (size_t i = sizeof text; i < sizeof buffer; ++i) {
            rest = rest && buffer[i] == 'x';
        }
        qc_true("the bytes after the text keep their values", rest);
        qc_status("QMP_wait: 20 bytes into a strided receive of 4 blocks of 8", QMP_SUCCESS,
                  QMP_wait(h[1]));
        unsigned char want[64];
        memset(want, 0xee, sizeof want);
        for (int i = 0; i < 20; ++i) {
            want[(i / 8) * 16 + i % 8] = (unsigned char)(i + 1);
        }
        qc_true("the strided receive: blocks 0, 1 and half of 2 filled, the rest untouched",
                memcmp(want, strided, sizeof want) == 0);
        qc_status("QMP_wait: 20 bytes into an indexed receive of 3 blocks of 8", QMP_SUCCESS,
                  QMP_wait(h[2]));
        qc_true("the indexed receive: blocks 0, 1 and half of 2 filled, the rest untouched",
                memcmp(want, indexed, sizeof want) == 0);
        qc_int("error function calls for messages shorter than their receive", 0, handler_calls);
        for (int i = 0; i < 3; ++i) {
            QMP_free_msghandle(h[i]);
        }
    }
    if (me == sender) {
        qc_status("QMP_wait: the text's send", QMP_SUCCESS, QMP_wait(s[0]));
        qc_status("QMP_wait: the 20 bytes' send (strided)", QMP_SUCCESS, QMP_wait(s[1]));
        qc_status("QMP_wait: the 20 bytes' send (indexed)", QMP_SUCCESS, QMP_wait(s[2]));
        for (int i = 0; i < 3; ++i) {
            QMP_free_msghandle(s[i]);
        }
    }
    QMP_free_msgmem(mtext);
    QMP_free_msgmem(mbuffer);
    QMP_free_msgmem(mbytes);
    QMP_free_msgmem(mstrided);
    QMP_free_msgmem(mindexed);
    QMP_barrier();
}

/* Ours is called for an error a call returns too: a refused declaration. */
static void returned_error_calls_handler(void)
{
    const int n = QMP_get_number_of_nodes();
    char word[8] = "abcdefg";
    QMP_msgmem_t mem = QMP_declare_msgmem(word, sizeof word);
    handler_calls = 0;
    QMP_msghandle_t h = QMP_declare_send_to(mem, n + 3, 0);
    qc_true("QMP_declare_send_to a node out of range returns NULL", h == NULL);
    qc_int("error function calls for the refused declaration", 1, handler_calls);
    qc_status("status given to the error function (refused declaration)",
              QMP_get_error_number(NULL), handler_status);
    qc_str("message given to the error function (refused declaration)", QMP_get_error_string(NULL),
           handler_message);
    QMP_free_msgmem(mem);
}

int main(int argc, char **argv)
{
    qc_watchdog("qmp_error_test", 60);
    strings();
    QMP_thread_level_t provided;
    if (!qc_status("QMP_init_msg_passing", QMP_SUCCESS,
                   QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided))) {
        return 1;
    }
    /* The default error function is only for errors QMP cannot return: the
     * failing calls of these checks return theirs (it would abort). */
    declares();
    handle_states();
    shorter_messages();
    /* An error function of the application's hears of every failure. */
    ERRFUNCPTR_t previous = QMP_set_error_function(handler);
    qc_true("QMP_set_error_function returns the previous function (not ours)", previous != handler);
    returned_error_calls_handler();
    shorter_messages();
    size_mismatch();
    error_function_calls(&argc, &argv);
    qc_true("QMP_set_error_function again returns ours",
            QMP_set_error_function(previous) == handler);
    return qc_finish("qmp_error_test", 1);
}
