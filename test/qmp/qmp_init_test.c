/* SPDX-License-Identifier: BSD-3-Clause */
/* Init and finalize: calls before init fail with QMP_NOT_INITED (and say so),
 * the thread level granted is the one required, QMP's and Meridian's options
 * leave argv (what remains is exactly the application's own arguments, in
 * order), QMP_is_initialized follows init and finalize.
 *
 * The application's arguments are the ones starting with "app" (the driver
 * mixes them with -qmp-geom, --mca, ...); they also say what to expect:
 *   app-level=single|funneled|serialized|multiple   thread level to ask for
 *   app-np=N                                         processes in the job
 * At QMP_THREAD_MULTIPLE two threads move messages at the same time. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mca/qmp/qmp.h"
#include "qmp_check.h"

static const char *level_names[] = {"single", "funneled", "serialized", "multiple"};

/* Every call that needs QMP fails before init with QMP_NOT_INITED, and the
 * last error says which call and why. */
static void before_init(void)
{
    qc_int("QMP_is_initialized() before init", QMP_FALSE, QMP_is_initialized());
    qc_status("QMP_barrier() before init", QMP_NOT_INITED, QMP_barrier());
    qc_status("QMP_get_error_number(NULL) after QMP_barrier before init", QMP_NOT_INITED,
              QMP_get_error_number(NULL));
    qc_str("QMP_get_error_string(NULL) after QMP_barrier before init",
           "QMP_barrier: QMP is not initialized", QMP_get_error_string(NULL));
    int value = 1;
    qc_status("QMP_sum_int() before init", QMP_NOT_INITED, QMP_sum_int(&value));
    qc_int("QMP_sum_int() before init leaves the value", 1, value);
    double x = 2.0;
    qc_status("QMP_sum_double() before init", QMP_NOT_INITED, QMP_sum_double(&x));
    char buf[4] = {0};
    qc_status("QMP_broadcast() before init", QMP_NOT_INITED, QMP_broadcast(buf, sizeof buf));
    const int dims[1] = {1};
    qc_status("QMP_declare_logical_topology() before init", QMP_NOT_INITED,
              QMP_declare_logical_topology(dims, 1));
    qc_status("QMP_get_error_number(NULL) after QMP_declare_logical_topology before init",
              QMP_NOT_INITED, QMP_get_error_number(NULL));
    qc_str("QMP_get_error_string(NULL) after QMP_declare_logical_topology before init",
           "QMP_declare_logical_topology: QMP is not initialized", QMP_get_error_string(NULL));
    const int lattice[1] = {4};
    qc_status("QMP_layout_grid() before init", QMP_NOT_INITED, QMP_layout_grid(lattice, 1));
    QMP_comm_t split = NULL;
    qc_status("QMP_comm_split() before init", QMP_NOT_INITED,
              QMP_comm_split(QMP_comm_get_allocated(), 0, 0, &split));
    qc_status("QMP_wait_for_barrier() before init", QMP_NOT_INITED, QMP_wait_for_barrier(10));
    qc_str("QMP_error_string(QMP_NOT_INITED)", "message passing system is not initialized yet",
           QMP_error_string(QMP_NOT_INITED));
}

/* Two threads, each with its own pair of channels to the next process (self
 * when alone), at the same time: QMP_THREAD_MULTIPLE is granted, so this
 * must work without the application serialising. */
enum { THREAD_ROUNDS = 200, THREAD_WORDS = 64 };
struct thread_work {
    int id;
    QMP_msghandle_t send, recv;
    int *out, *in;
    int from; /* who sends to us */
    int errors;
    char first_error[256];
};

static void *thread_main(void *arg)
{
    struct thread_work *w = arg;
    for (int round = 0; round < THREAD_ROUNDS; ++round) {
        for (int i = 0; i < THREAD_WORDS; ++i) {
            w->out[i] = (qc_rank() * 1000 + round) * 10 + w->id;
            w->in[i] = -1;
        }
        QMP_status_t st = QMP_start(w->recv);
        if (st == QMP_SUCCESS) {
            st = QMP_start(w->send);
        }
        if (st == QMP_SUCCESS) {
            st = QMP_wait(w->recv);
        }
        if (st == QMP_SUCCESS) {
            st = QMP_wait(w->send);
        }
        const int want = (w->from * 1000 + round) * 10 + w->id;
        if (st != QMP_SUCCESS || w->in[THREAD_WORDS - 1] != want || w->in[0] != want) {
            if (w->errors++ == 0) {
                snprintf(w->first_error, sizeof w->first_error,
                         "thread %d round %d: status %d (%s), expected %d, got %d", w->id, round,
                         (int)st, QMP_error_string(st), want, w->in[0]);
            }
        }
    }
    return NULL;
}

/* Thread t's buffers, message memory and channels to the next process and
 * from the previous one, on comm (NULL: the default communicator, through
 * the calls without a communicator).  0 (after a failure) when not made. */
static int thread_channels(struct thread_work *w, int t, int buffers[2][THREAD_WORDS],
                           QMP_msgmem_t mems[2], QMP_comm_t comm)
{
    const int n = QMP_get_number_of_nodes();
    const int me = QMP_get_node_number();
    memset(w, 0, sizeof *w);
    w->id = t;
    w->out = buffers[0];
    w->in = buffers[1];
    w->from = (me + n - 1) % n;
    mems[0] = QMP_declare_msgmem(w->out, sizeof buffers[0]);
    mems[1] = QMP_declare_msgmem(w->in, sizeof buffers[1]);
    if (comm == NULL) {
        w->send = QMP_declare_send_to(mems[0], (me + 1) % n, 0);
        w->recv = QMP_declare_receive_from(mems[1], w->from, 0);
    } else {
        w->send = QMP_comm_declare_send_to(comm, mems[0], (me + 1) % n, 0);
        w->recv = QMP_comm_declare_receive_from(comm, mems[1], w->from, 0);
    }
    return qc_true(comm == NULL ? "QMP_declare_send_to / receive_from for a thread"
                                : "QMP_comm_declare_send_to / receive_from for a thread",
                   w->send != NULL && w->recv != NULL);
}

static void threads_at_once(void)
{
    struct thread_work work[2];
    int buffers[2][2][THREAD_WORDS];
    QMP_msgmem_t mems[2][2];
    for (int t = 0; t < 2; ++t) {
        if (!thread_channels(&work[t], t, buffers[t], mems[t], NULL)) {
            return;
        }
    }
    /* The two threads' channels have the same peers: they match in start
     * order, and each thread's own rounds are ordered, so thread t's message
     * must reach thread t only if the channels are kept apart.  Run them in
     * turn first (that ordering is certain), then at once. */
    pthread_t threads[2];
    for (int t = 0; t < 2; ++t) {
        if (pthread_create(&threads[t], NULL, thread_main, &work[t]) != 0) {
            qc_fail("pthread_create failed");
            return;
        }
        pthread_join(threads[t], NULL);
        QMP_barrier();
    }
    for (int t = 0; t < 2; ++t) {
        if (work[t].errors != 0) {
            qc_fail("QMP_THREAD_MULTIPLE, threads in turn: %d failed rounds, first: %s",
                    work[t].errors, work[t].first_error);
        }
    }
    QMP_free_msghandle(work[0].send);
    QMP_free_msghandle(work[0].recv);
    QMP_free_msghandle(work[1].send);
    QMP_free_msghandle(work[1].recv);
    for (int t = 0; t < 2; ++t) {
        QMP_free_msgmem(mems[t][0]);
        QMP_free_msgmem(mems[t][1]);
    }
    QMP_barrier();
}

/* Concurrent calls on distinct handles: each thread has channels to and
 * from different processes (or distinct tags are not available in QMP, so
 * distinct communicators), so matching does not depend on thread timing. */
static void threads_concurrently(void)
{
    const int me = QMP_get_node_number();
    QMP_comm_t comms[2] = {NULL, NULL};
    for (int t = 0; t < 2; ++t) {
        if (!qc_status("QMP_comm_split for a thread's communicator", QMP_SUCCESS,
                       QMP_comm_split(QMP_comm_get_job(), 0, me, &comms[t]))) {
            return;
        }
    }
    struct thread_work work[2];
    int buffers[2][2][THREAD_WORDS];
    QMP_msgmem_t mems[2][2];
    for (int t = 0; t < 2; ++t) {
        if (!thread_channels(&work[t], t, buffers[t], mems[t], comms[t])) {
            return;
        }
    }
    pthread_t threads[2];
    int started = 0;
    for (int t = 0; t < 2; ++t) {
        if (pthread_create(&threads[t], NULL, thread_main, &work[t]) == 0) {
            ++started;
        } else {
            qc_fail("pthread_create failed");
        }
    }
    for (int t = 0; t < started; ++t) {
        pthread_join(threads[t], NULL);
    }
    for (int t = 0; t < 2; ++t) {
        if (work[t].errors != 0) {
            qc_fail("QMP_THREAD_MULTIPLE, threads at once: %d failed rounds, first: %s",
                    work[t].errors, work[t].first_error);
        }
        QMP_free_msghandle(work[t].send);
        QMP_free_msghandle(work[t].recv);
        QMP_free_msgmem(mems[t][0]);
        QMP_free_msgmem(mems[t][1]);
        QMP_comm_free(comms[t]);
    }
}

int main(int argc, char **argv)
{
    qc_watchdog("qmp_init_test", 60);
    before_init();

    const char *level_text = qc_arg(argc, argv, "app-level");
    QMP_thread_level_t required = QMP_THREAD_SINGLE;
    for (int l = 0; level_text != NULL && l < 4; ++l) {
        if (strcmp(level_text, level_names[l]) == 0) {
            required = (QMP_thread_level_t)l;
        }
    }
    const char *np_text = qc_arg(argc, argv, "app-np");
    const int np = np_text != NULL ? atoi(np_text) : 1;

    /* What must remain: the program name and the "app" arguments, in order. */
    char **expected = calloc((size_t)argc + 1, sizeof(char *));
    int expected_count = 0;
    for (int i = 0; i < argc; ++i) {
        if (i == 0 || strncmp(argv[i], "app", 3) == 0) {
            expected[expected_count++] = strdup(argv[i]);
        }
    }

    QMP_thread_level_t provided = (QMP_thread_level_t)-1;
    const QMP_status_t st = QMP_init_msg_passing(&argc, &argv, required, &provided);
    if (!qc_status("QMP_init_msg_passing", QMP_SUCCESS, st)) {
        printf("FAIL rank %d: QMP_get_error_string(NULL): %s\n", qc_rank(),
               QMP_get_error_string(NULL));
        return 1;
    }
    qc_int("QMP_is_initialized() after init", QMP_TRUE, QMP_is_initialized());
    qc_int("provided thread level", required, provided);

    if (qc_int("argc after QMP_init_msg_passing", expected_count, argc)) {
        for (int i = 0; i < argc; ++i) {
            char call[64];
            snprintf(call, sizeof call, "argv[%d] after QMP_init_msg_passing", i);
            qc_str(call, expected[i], argv[i]);
        }
    } else {
        for (int i = 0; i < argc; ++i) {
            printf("  argv[%d] = \"%s\"\n", i, argv[i]);
        }
    }
    qc_true("argv[argc] == NULL after QMP_init_msg_passing", argv[argc] == NULL);
    for (int i = 0; i < expected_count; ++i) {
        free(expected[i]);
    }
    free(expected);

    qc_int("QMP_get_number_of_nodes()", np, QMP_get_number_of_nodes());
    int ranks[64] = {0};
    if (np <= 64 && qc_gather_int(QMP_comm_get_job(), QMP_get_node_number(), ranks)) {
        for (int r = 0; r < np; ++r) {
            qc_int("QMP_get_node_number() of each process, by rank", r, ranks[r]);
        }
    }
    if (required == QMP_THREAD_MULTIPLE && provided == QMP_THREAD_MULTIPLE) {
        threads_at_once();
        threads_concurrently();
    }

    const int status = qc_finish("qmp_init_test", 1);
    /* After finalize, only this process's own checks can be reported. */
    int late = 0;
    if (QMP_is_initialized() != QMP_FALSE) {
        printf("FAIL rank %d: QMP_is_initialized() after finalize: expected 0, got 1\n",
               QMP_get_node_number());
        late = 1;
    }
    const QMP_status_t after = QMP_barrier();
    if (after != QMP_NOT_INITED) {
        printf("FAIL: QMP_barrier() after finalize: expected %d, got %d (%s)\n", QMP_NOT_INITED,
               (int)after, QMP_error_string(after));
        late = 1;
    }
    return status != 0 || late ? 1 : 0;
}
