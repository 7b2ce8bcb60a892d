/* SPDX-License-Identifier: BSD-3-Clause */
/* QMP started again in the same processes: app-rounds=N (2 by default)
 * times QMP_init_msg_passing -> QMP_sum_int -> a broadcast from node 0 of
 * app-bytes=B bytes (1 MiB by default: the transport's large-message path)
 * -> QMP_finalize_msg_passing.  Each process prints, per round,
 *   rank R round K sum S status T
 * (S is the sum of node number + 1 over the job, T the sum's status) and
 * FAIL lines for what went wrong; after the last round "ok: qmp_reinit_test
 * (rank R of N)" when every round of this process was right (the drivers
 * check the lines of every process and round, not only the ok).  Every
 * wait is bounded by msg_base_timeout; the watchdog ends a hang. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qmp_check.h"

static unsigned char pattern(int round, size_t i)
{
    return (unsigned char)((i * 131 + (size_t)round * 17 + (i >> 9)) & 0xff);
}

int main(int argc, char **argv)
{
    qc_watchdog("qmp_reinit_test", 120);
    const char *rounds_text = qc_arg(argc, argv, "app-rounds");
    const char *bytes_text = qc_arg(argc, argv, "app-bytes");
    const int rounds = rounds_text != NULL ? atoi(rounds_text) : 2;
    const size_t bytes = bytes_text != NULL ? (size_t)strtoull(bytes_text, NULL, 10) : 1 << 20;
    unsigned char *buf = malloc(bytes > 0 ? bytes : 1);
    if (buf == NULL) {
        qc_fail("no memory for %zu bytes", bytes);
        return 1;
    }
    int rank = -1;
    int size = 0;
    for (int round = 0; round < rounds; ++round) {
        QMP_thread_level_t provided;
        const QMP_status_t init = QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided);
        if (init != QMP_SUCCESS) {
            qc_fail("round %d: QMP_init_msg_passing: %s", round, QMP_get_error_string(NULL));
            free(buf);
            return 1;
        }
        rank = QMP_get_node_number();
        size = QMP_get_number_of_nodes();
        int value = rank + 1;
        const QMP_status_t st = QMP_sum_int(&value);
        printf("rank %d round %d sum %d status %d\n", rank, round, value, (int)st);
        fflush(stdout);
        char what[64];
        snprintf(what, sizeof what, "round %d: QMP_sum_int", round);
        qc_status(what, QMP_SUCCESS, st);
        qc_int(what, (long long)size * (size + 1) / 2, value);

        for (size_t i = 0; i < bytes; ++i) {
            buf[i] = rank == 0 ? pattern(round, i) : 0;
        }
        snprintf(what, sizeof what, "round %d: QMP_broadcast of %zu bytes", round, bytes);
        if (qc_status(what, QMP_SUCCESS, QMP_broadcast(buf, bytes))) {
            for (size_t i = 0; i < bytes; ++i) {
                if (buf[i] != pattern(round, i)) {
                    qc_fail("%s: byte %zu is %d, expected %d", what, i, buf[i], pattern(round, i));
                    break;
                }
            }
        }
        QMP_finalize_msg_passing();
        if (QMP_is_initialized() != QMP_FALSE) {
            qc_fail("round %d: QMP_is_initialized() after finalize: expected 0, got 1", round);
        }
    }
    free(buf);
    if (qc_failures() == 0) {
        printf("ok: qmp_reinit_test (rank %d of %d)\n", rank, size);
    }
    return qc_failures() == 0 ? 0 : 1;
}
