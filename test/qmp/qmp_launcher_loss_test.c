/* SPDX-License-Identifier: BSD-3-Clause */
/* A job whose launcher dies ends (msg_base_launcher_loss):
 *   qmp_launcher_loss_test MODE DIR LIMIT
 *   MODE compute  every node computes without calling QMP
 *        wait     node 0 computes; the others wait for it in QMP_barrier,
 *                 which must fail first, saying why, and then compute too
 * Each node writes "PID" to DIR/ready.RANK once it runs (the driver kills
 * the launcher when all have), its stderr to DIR/stderr.RANK (the launcher
 * that forwarded it is what the driver kills), the barrier's answer to
 * DIR/barrier.RANK, and
 * "still running" to DIR/late.RANK if it is still there after LIMIT seconds
 * (it then exits 3: the driver fails on that file). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mca/qmp/qmp.h"

static void write_file(const char *dir, const char *name, int rank, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%d", dir, name, rank);
    char temp[4200];
    snprintf(temp, sizeof temp, "%s.tmp", path);
    FILE *f = fopen(temp, "w");
    if (f == NULL) {
        perror(temp);
        exit(2);
    }
    fprintf(f, "%s\n", text);
    if (fclose(f) != 0 || rename(temp, path) != 0) {
        perror(path);
        exit(2);
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Work that calls nothing of QMP, until LIMIT seconds have passed. */
static void compute(const char *dir, int rank, double until)
{
    volatile double x = 1.0;
    while (now() < until) {
        for (int i = 0; i < 100000; ++i) {
            x = x * 1.0000001 + 1e-9;
        }
    }
    write_file(dir, "late", rank, "still running");
    exit(3);
}

int main(int argc, char **argv)
{
    QMP_thread_level_t provided;
    if (QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided) != QMP_SUCCESS) {
        fprintf(stderr, "qmp_launcher_loss_test: QMP_init_msg_passing failed\n");
        return 2;
    }
    if (argc != 4 || (strcmp(argv[1], "compute") != 0 && strcmp(argv[1], "wait") != 0)) {
        fprintf(stderr, "usage: qmp_launcher_loss_test compute|wait DIR LIMIT\n");
        return 2;
    }
    const char *mode = argv[1];
    const char *dir = argv[2];
    const double until = now() + atof(argv[3]);
    const int rank = QMP_get_node_number();
    /* Its messages to a file: the launcher that forwarded stderr is what
     * the test kills. */
    char path[4096];
    snprintf(path, sizeof path, "%s/stderr.%d", dir, rank);
    if (freopen(path, "w", stderr) == NULL) {
        perror(path);
        return 2;
    }
    setvbuf(stderr, NULL, _IONBF, 0);
    char text[256];
    snprintf(text, sizeof text, "%ld", (long)getpid());
    write_file(dir, "ready", rank, text);
    if (strcmp(mode, "wait") == 0 && rank != 0) {
        const QMP_status_t status = QMP_barrier();
        snprintf(text, sizeof text, "rank %d: QMP_barrier returned %d: %s", rank, (int)status,
                 QMP_get_error_string(NULL));
        write_file(dir, "barrier", rank, text);
    }
    compute(dir, rank, until);
    return 0;
}
