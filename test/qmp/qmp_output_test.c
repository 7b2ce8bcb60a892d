/* SPDX-License-Identifier: BSD-3-Clause */
/* Output, timing and version, and QMP_abort.
 *
 *   app-mode=print         QMP_printf / QMP_fprintf / QMP_info / QMP_error lines
 *                          (qmp_basic.sh checks their text, stream and
 *                          count), return values, QMP_verbose, QMP_profcontrol,
 *                          QMP_time, the version
 *   app-mode=abort         the last process calls QMP_abort(7), the others wait
 *   app-mode=abort-string  QMP_abort_string(3, "giving up")
 *   app-mode=default-error memory freed twice with QMP's default error
 *                          function: it prints the error and aborts */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mca/qmp/qmp.h"
#include "qmp_check.h"

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void print_lines(void)
{
    const int me = QMP_get_node_number();
    char text[64];
    snprintf(text, sizeof text, "printf line %d", me);
    /* QMP returns the length of the message it formatted. */
    qc_int("QMP_printf return value", (long long)strlen(text), QMP_printf("printf line %d", me));
    fflush(stdout);
    snprintf(text, sizeof text, "info line %d", me);
    qc_int("QMP_info return value", (long long)strlen(text), QMP_info("info line %d", me));
    fflush(stdout);
    snprintf(text, sizeof text, "error line %d", me);
    qc_int("QMP_error return value", (long long)strlen(text), QMP_error("error line %d", me));
    snprintf(text, sizeof text, "fprintf stderr line %d", me);
    qc_int("QMP_fprintf(stderr) return value", (long long)strlen(text),
           QMP_fprintf(stderr, "fprintf stderr line %d", me));
    snprintf(text, sizeof text, "fprintf stdout line %d", me);
    qc_int("QMP_fprintf(stdout) return value", (long long)strlen(text),
           QMP_fprintf(stdout, "fprintf stdout line %d", me));
    fflush(stdout);
    fflush(stderr);
}

static void timing(void)
{
    double prev = QMP_time();
    int backwards = 0;
    for (int i = 0; i < 100000; ++i) {
        const double now = QMP_time();
        if (now < prev) {
            ++backwards;
        }
        prev = now;
    }
    qc_int("QMP_time() going backwards in 100000 calls", 0, backwards);
    const double t0 = QMP_time();
    sleep_ms(200);
    const double elapsed = QMP_time() - t0;
    if (elapsed < 0.19 || elapsed > 2.0) {
        qc_fail("QMP_time() across a 200 ms sleep: expected 0.2 s, got %.6f s", elapsed);
    }
    QMP_reset_total_qmp_time();
    const double total = QMP_get_total_qmp_time();
    if (total < 0.0 || total > 0.5) {
        qc_fail("QMP_get_total_qmp_time() right after QMP_reset_total_qmp_time(): expected about "
                "0, got %g",
                total);
    }
}

static void verbosity(void)
{
    qc_int("QMP_verbose(3) returns the old level", 0, QMP_verbose(3));
    qc_int("QMP_verbose(0) returns the old level", 3, QMP_verbose(0));
    qc_int("QMP_profcontrol(2) returns the old level", 0, QMP_profcontrol(2));
    qc_int("QMP_profcontrol(0) returns the old level", 2, QMP_profcontrol(0));
}

static void version(void)
{
    const char *text = QMP_version_str();
    int major = -1, minor = -1, bug = -1;
    if (!qc_true("QMP_version_str() is \"MAJOR.MINOR.BUG\"",
                 text != NULL && sscanf(text, "%d.%d.%d", &major, &minor, &bug) == 3)) {
        return;
    }
    qc_int("QMP_version_str() major version", 2, major);
    qc_true("QMP_version_str() minor version >= 5 (QMP 2.5's API)", minor >= 5);
    qc_int("QMP_version_int() (= (MAJOR*1000 + MINOR)*1000 + BUG of QMP_version_str())",
           (major * 1000 + minor) * 1000 + bug, QMP_version_int());
    if (QMP_get_node_number() == 0) {
        printf("version: %s\n", text);
    }
}

int main(int argc, char **argv)
{
    qc_watchdog("qmp_output_test", 60);
    const char *mode = "print";
    for (int i = 1; i < argc; ++i) {
        if (strncmp(argv[i], "app-mode=", 9) == 0) {
            mode = argv[i] + 9;
        }
    }
    QMP_thread_level_t provided;
    if (!qc_status("QMP_init_msg_passing", QMP_SUCCESS,
                   QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided))) {
        return 1;
    }
    const int me = QMP_get_node_number();
    const int n = QMP_get_number_of_nodes();
    if (strcmp(mode, "abort") == 0) {
        QMP_barrier();
        if (me == n - 1) {
            QMP_abort(7);
            qc_fail("QMP_abort(7) returned");
        } else {
            /* The launcher ends this process when the other aborts. */
            sleep(30);
            qc_fail("still running 30 s after another process called QMP_abort");
        }
        return 1;
    }
    if (strcmp(mode, "abort-string") == 0) {
        char message[] = "giving up";
        QMP_abort_string(3, message);
        qc_fail("QMP_abort_string(3, ...) returned");
        return 1;
    }
    if (strcmp(mode, "default-error") == 0) {
        QMP_mem_t *m = QMP_allocate_memory(16);
        void *p = QMP_get_memory_pointer(m);
        QMP_free_aligned_memory(p);
        QMP_free_aligned_memory(p);
        qc_fail("QMP's default error function returned");
        return 1;
    }
    print_lines();
    verbosity();
    timing();
    version();
    return qc_finish("qmp_output_test", 1);
}
