/* SPDX-License-Identifier: BSD-3-Clause */
/* A QMP application as users build it: only <qmp.h>, compiled with
 * qmp-config's or pkg-config's flags (qmp_config.sh).  A ring exchange and a
 * global sum; prints "ok: ..." when both are right. */
#include <qmp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    QMP_thread_level_t provided;
    if (QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided) != QMP_SUCCESS) {
        fprintf(stderr, "QMP_init_msg_passing: %s\n", QMP_get_error_string(NULL));
        return 1;
    }
    const int me = QMP_get_node_number();
    const int n = QMP_get_number_of_nodes();
    int out = 100 + me, in = -1;
    QMP_msgmem_t mo = QMP_declare_msgmem(&out, sizeof out);
    QMP_msgmem_t mi = QMP_declare_msgmem(&in, sizeof in);
    QMP_msghandle_t h[2] = {QMP_declare_receive_from(mi, (me + n - 1) % n, 0),
                            QMP_declare_send_to(mo, (me + 1) % n, 0)};
    int bad = h[0] == NULL || h[1] == NULL;
    if (!bad) {
        QMP_start(h[0]);
        QMP_start(h[1]);
        bad = QMP_wait_all(h, 2) != QMP_SUCCESS || in != 100 + (me + n - 1) % n;
        QMP_free_msghandle(h[0]);
        QMP_free_msghandle(h[1]);
    }
    QMP_free_msgmem(mo);
    QMP_free_msgmem(mi);
    int sum = me;
    bad = bad || QMP_sum_int(&sum) != QMP_SUCCESS || sum != n * (n - 1) / 2;
    if (bad) {
        printf("FAIL rank %d: ring got %d, sum %d\n", me, in, sum);
    } else {
        printf("ok: qmp-config program, QMP %s (rank %d of %d)\n", QMP_version_str(), me, n);
    }
    QMP_finalize_msg_passing();
    return bad;
}
