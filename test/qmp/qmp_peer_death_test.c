/* SPDX-License-Identifier: BSD-3-Clause */
/* A peer that dies or stays silent gives an error, not a hang (2 processes).
 *   app-mode=kill     node 1 SIGKILLs itself while node 0 waits on a receive
 *                     from it; node 0's QMP_wait must fail within
 *                     msg_base_timeout (app-limit=S seconds) and say why
 *   app-mode=kill-sum the same while node 0 is in QMP_sum_double
 *   app-mode=silent   node 1 never sends; node 0's QMP_wait fails with
 *                     QMP_TIMEOUT after msg_base_timeout (app-limit=S), then
 *                     both meet in a barrier
 *   app-handler=yes   node 0 installs an error function first: it must be
 *                     called once for the failed wait (or sum), with its
 *                     status and QMP_get_error_string's text, and the call
 *                     still returns its own status; without it QMP's
 *                     default applies (not called: the error is returned)
 * Node 0 ignores SIGTERM (Open MPI's mpirun terminates the job when a process
 * dies; the driver gives it a long kill timeout) and writes its verdict to
 * stdout and to app-report=FILE. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mca/qmp/qmp.h"
#include "qmp_check.h"

static int handler_calls = 0;
static QMP_status_t handler_status = QMP_SUCCESS;
static char handler_message[512] = "";
enum { HANDLER_RETURN = 0x1ace };

static int handler(QMP_status_t status, const char *message)
{
    ++handler_calls;
    handler_status = status;
    snprintf(handler_message, sizeof handler_message, "%s", message ? message : "(null)");
    return HANDLER_RETURN;
}

static const char *report_path = NULL;

static void report(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void report(const char *format, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, format);
    vsnprintf(text, sizeof text, format, ap);
    va_end(ap);
    printf("%s\n", text);
    fflush(stdout);
    if (report_path != NULL) {
        FILE *f = fopen(report_path, "a");
        if (f != NULL) {
            fprintf(f, "%s\n", text);
            fclose(f);
        }
    }
}

int main(int argc, char **argv)
{
    const char *mode = "kill";
    int use_handler = 0;
    double limit = 10;
    for (int i = 1; i < argc; ++i) {
        if (strncmp(argv[i], "app-mode=", 9) == 0) {
            mode = argv[i] + 9;
        } else if (strcmp(argv[i], "app-handler=yes") == 0) {
            use_handler = 1;
        } else if (strncmp(argv[i], "app-limit=", 10) == 0) {
            limit = atof(argv[i] + 10);
        } else if (strncmp(argv[i], "app-report=", 11) == 0) {
            report_path = argv[i] + 11;
        }
    }
    qc_watchdog("qmp_peer_death_test", (unsigned)limit + 30);
    QMP_thread_level_t provided;
    if (QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided) != QMP_SUCCESS) {
        report("FAIL rank %d: QMP_init_msg_passing: %s", qc_rank(), QMP_get_error_string(NULL));
        return 1;
    }
    const int me = QMP_get_node_number();
    if (QMP_get_number_of_nodes() != 2) {
        report("FAIL rank %d: needs 2 processes, has %d", me, QMP_get_number_of_nodes());
        return 1;
    }
    const int sum_mode = strcmp(mode, "kill-sum") == 0;
    const int kill_mode = strncmp(mode, "kill", 4) == 0;
    if (me == 1) {
        QMP_barrier();
        if (kill_mode) {
            struct timespec ts = {0, 300 * 1000000L};
            nanosleep(&ts, NULL);
            raise(SIGKILL);
        }
        /* Silent: never send; meet node 0 after its wait failed. */
        const QMP_status_t st = QMP_wait_for_barrier((int)(limit + 20) * 1000);
        if (st != QMP_SUCCESS) {
            report("FAIL rank 1: barrier after node 0's timeout: %s", QMP_error_string(st));
            return 1;
        }
        QMP_finalize_msg_passing();
        return 0;
    }

    signal(SIGTERM, SIG_IGN);
    if (use_handler) {
        QMP_set_error_function(handler);
    }
    if (sum_mode) {
        /* Node 1 dies while node 0 is in a global sum. */
        QMP_barrier();
        double x = 1.0;
        const double t0 = QMP_time();
        const QMP_status_t st = QMP_sum_double(&x);
        const double took = QMP_time() - t0;
        report("peer killed: QMP_sum_double returned %d (%s) after %.2f s; error: %s", (int)st,
               QMP_error_string(st), took, QMP_get_error_string(NULL));
        int failed = 0;
        if (st == QMP_SUCCESS) {
            report("FAIL rank 0: QMP_sum_double with a dead peer succeeded");
            failed = 1;
        }
        if (strstr(QMP_get_error_string(NULL), "node 1") == NULL) {
            report("FAIL rank 0: QMP_get_error_string(NULL) does not name the dead node 1");
            failed = 1;
        }
        if (took > limit) {
            report("FAIL rank 0: QMP_sum_double took %.2f s, more than the limit %.0f s", took,
                   limit);
            failed = 1;
        }
        if (!failed) {
            report("ok: qmp_peer_death_test %s (rank 0)", mode);
        }
        QMP_finalize_msg_passing();
        report("rank 0 finalized");
        return failed;
    }
    double value = 0;
    QMP_msgmem_t m = QMP_declare_msgmem(&value, sizeof value);
    QMP_msghandle_t h = QMP_declare_receive_from(m, 1, 0);
    if (h == NULL || QMP_start(h) != QMP_SUCCESS) {
        report("FAIL rank 0: declaring / starting the receive: %s", QMP_get_error_string(NULL));
        return 1;
    }
    QMP_barrier();
    const double t0 = QMP_time();
    const QMP_status_t st = QMP_wait(h);
    const double took = QMP_time() - t0;
    report("peer %s: QMP_wait returned %d (%s) after %.2f s; handle error: %s; error function "
           "called %d times%s%s",
           kill_mode ? "killed" : "silent", (int)st, QMP_error_string(st), took,
           QMP_get_error_string(h), handler_calls, handler_calls ? ": " : "", handler_message);
    int failed = 0;
    if (st == QMP_SUCCESS) {
        report("FAIL rank 0: QMP_wait on a receive from a %s peer succeeded",
               kill_mode ? "dead" : "silent");
        failed = 1;
    }
    if (kill_mode && strstr(QMP_get_error_string(h), "node 1") == NULL) {
        report("FAIL rank 0: QMP_get_error_string(handle) does not name the dead node 1: %s",
               QMP_get_error_string(h));
        failed = 1;
    }
    if (took > limit) {
        report("FAIL rank 0: QMP_wait took %.2f s, more than the limit %.0f s", took, limit);
        failed = 1;
    }
    if (!kill_mode) {
        if (took < limit * 0.5) {
            report("FAIL rank 0: QMP_wait gave up after %.2f s, before msg_base_timeout (%.0f s)",
                   took, limit);
            failed = 1;
        }
        if (st != QMP_TIMEOUT) {
            report("FAIL rank 0: QMP_wait on a silent peer: expected %d, got %d", (int)QMP_TIMEOUT,
                   (int)st);
            failed = 1;
        }
    }
    if (handler_calls != (use_handler ? 1 : 0)) {
        report("FAIL rank 0: the error function was called %d times for the failed call, "
               "expected %d",
               handler_calls, use_handler ? 1 : 0);
        failed = 1;
    }
    if (handler_calls && handler_status != st) {
        report("FAIL rank 0: the error function was called with status %d, the call returned %d",
               (int)handler_status, (int)st);
        failed = 1;
    }
    if (handler_calls && strcmp(handler_message, QMP_get_error_string(NULL)) != 0) {
        report("FAIL rank 0: the error function was given \"%s\", QMP_get_error_string(NULL) "
               "says \"%s\"",
               handler_message, QMP_get_error_string(NULL));
        failed = 1;
    }
    if (!failed) {
        report("ok: qmp_peer_death_test %s (rank 0)", mode);
    }
    QMP_free_msghandle(h);
    QMP_free_msgmem(m);
    if (!kill_mode) {
        const QMP_status_t bst = QMP_wait_for_barrier((int)(limit + 20) * 1000);
        if (bst != QMP_SUCCESS) {
            report("FAIL rank 0: barrier after the timeout: %s", QMP_error_string(bst));
            failed = 1;
        }
    }
    QMP_finalize_msg_passing();
    report("rank 0 finalized");
    return failed;
}
