/* SPDX-License-Identifier: BSD-3-Clause */
/* QMP's MPI part as a GPU solver library uses it: the MPI communicator
 * under a QMP one, from QMP_get_mpi_comm, then MPI on it unchecked (as QUDA
 * does: MPI_Comm_rank, MPI_Comm_size, MPI_Allreduce, MPI_Comm_split), each
 * answer compared with QMP's own on the same communicator -- the default
 * one, the allocated one, and communicators from QMP_comm_split (by parity
 * with reversed keys, so QMP's order is not MPI_COMM_WORLD's; and one where
 * the last process takes no part).  Linked with libqmp_mpi and MPI.
 *
 *   qmp_mpi_comm_test qmp-starts   QMP_init_msg_passing starts MPI (and its
 *                                  finalize ends it)
 *   qmp_mpi_comm_test mpi-first    the program calls MPI_Init_thread first
 *                                  (and MPI_Finalize after QMP's finalize)
 *
 * Prints "ok: ..." per process; "FAIL rank R: ..." for each wrong answer. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "qmp_check.h"

/* Everything the program asks MPI on the communicator under comm, against
 * QMP's answers on comm. */
static void check_comm(QMP_comm_t comm, const char *name)
{
    void *handle = NULL;
    if (QMP_get_mpi_comm(comm, &handle) != QMP_SUCCESS || handle == NULL) {
        qc_fail("QMP_get_mpi_comm(%s): %s", name, QMP_get_error_string(NULL));
        return;
    }
    char call[128];
    MPI_Comm mpi = *(MPI_Comm *)handle;
    const int rank = QMP_comm_get_node_number(comm);
    const int size = QMP_comm_get_number_of_nodes(comm);
    int mpi_rank = -1;
    int mpi_size = -1;
    MPI_Comm_rank(mpi, &mpi_rank);
    MPI_Comm_size(mpi, &mpi_size);
    snprintf(call, sizeof call, "%s: MPI_Comm_rank = QMP's rank", name);
    qc_int(call, rank, mpi_rank);
    snprintf(call, sizeof call, "%s: MPI_Comm_size = QMP's size", name);
    qc_int(call, size, mpi_size);

    /* A reduction both ways: rank-dependent terms whose sum is exact. */
    double mpi_sum = 1.0 + rank;
    double qmp_sum = mpi_sum;
    MPI_Allreduce(MPI_IN_PLACE, &mpi_sum, 1, MPI_DOUBLE, MPI_SUM, mpi);
    snprintf(call, sizeof call, "%s: QMP_comm_sum_double", name);
    qc_status(call, QMP_SUCCESS, QMP_comm_sum_double(comm, &qmp_sum));
    snprintf(call, sizeof call, "%s: MPI_Allreduce = QMP_comm_sum_double", name);
    qc_double(call, qmp_sum, mpi_sum);
    snprintf(call, sizeof call, "%s: MPI_Allreduce = 1 + ... + size", name);
    qc_double(call, size * (size + 1) / 2.0, mpi_sum);

    /* Who is who: every process's QMP rank, gathered by MPI in MPI's rank
     * order, is the identity. */
    int ranks[64];
    if (size <= 64) {
        MPI_Allgather(&rank, 1, MPI_INT, ranks, 1, MPI_INT, mpi);
        for (int r = 0; r < size; ++r) {
            if (ranks[r] != r) {
                qc_fail("%s: MPI rank %d is QMP rank %d", name, r, ranks[r]);
            }
        }
    }

    /* A split made by MPI on QMP's communicator, as a solver library makes
     * its own (by halves). */
    MPI_Comm half = MPI_COMM_NULL;
    MPI_Comm_split(mpi, rank < size / 2 ? 0 : 1, rank, &half);
    int half_size = -1;
    MPI_Comm_size(half, &half_size);
    snprintf(call, sizeof call, "%s: MPI_Comm_split's size", name);
    qc_int(call, rank < size / 2 ? size / 2 : size - size / 2, half_size);
    MPI_Comm_free(&half);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "qmp-starts";
    const int mpi_first = strcmp(mode, "mpi-first") == 0;
    if (!mpi_first && strcmp(mode, "qmp-starts") != 0) {
        fprintf(stderr, "usage: %s [qmp-starts | mpi-first]\n", argv[0]);
        return 2;
    }
    int initialized = 0;
    if (mpi_first) {
        int level = 0;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &level);
    }
    QMP_thread_level_t provided;
    qc_watchdog("qmp_mpi_comm_test", 120);
    if (QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided) != QMP_SUCCESS) {
        qc_fail("QMP_init_msg_passing: %s", QMP_get_error_string(NULL));
        return 1;
    }
    MPI_Initialized(&initialized);
    qc_int("MPI_Initialized after QMP_init_msg_passing", 1, initialized);
    const int me = QMP_get_node_number();
    const int n = QMP_get_number_of_nodes();

    check_comm(QMP_comm_get_default(), "default");
    check_comm(QMP_comm_get_allocated(), "allocated");

    /* By parity, keys reversed: QMP orders the members by key. */
    QMP_comm_t parity = NULL;
    if (QMP_comm_split(QMP_comm_get_default(), me % 2, n - me, &parity) != QMP_SUCCESS) {
        qc_fail("QMP_comm_split(parity): %s", QMP_get_error_string(NULL));
    } else {
        check_comm(parity, "parity");
        /* A split of a split. */
        QMP_comm_t inner = NULL;
        const int inner_rank = QMP_comm_get_node_number(parity);
        if (QMP_comm_split(parity, inner_rank % 2, inner_rank, &inner) != QMP_SUCCESS) {
            qc_fail("QMP_comm_split(parity, inner): %s", QMP_get_error_string(NULL));
        } else {
            check_comm(inner, "parity/inner");
            QMP_comm_free(inner);
        }
        QMP_comm_free(parity);
    }
    /* The last process in no communicator (a negative color): it takes
     * part in the split and gets none. */
    QMP_comm_t most = NULL;
    if (QMP_comm_split(QMP_comm_get_default(), me == n - 1 && n > 1 ? -1 : 0, me, &most) !=
        QMP_SUCCESS) {
        qc_fail("QMP_comm_split(all but the last): %s", QMP_get_error_string(NULL));
    } else if (me == n - 1 && n > 1) {
        if (most != NULL) {
            qc_fail("QMP_comm_split with a negative color gave a communicator");
        }
    } else {
        check_comm(most, "all but the last");
        QMP_comm_free(most);
    }
    /* The default communicator set to a split one: its MPI communicator
     * follows. */
    QMP_comm_t halves = NULL;
    if (QMP_comm_split(QMP_comm_get_allocated(), me < n / 2, me, &halves) == QMP_SUCCESS) {
        QMP_comm_set_default(halves);
        check_comm(QMP_comm_get_default(), "default set to a half");
    }

    const int status =
        qc_finish(mpi_first ? "qmp_mpi_comm_test mpi-first" : "qmp_mpi_comm_test", 0);
    QMP_finalize_msg_passing();
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized != (mpi_first ? 0 : 1)) {
        qc_fail("MPI_Finalized after QMP_finalize_msg_passing: expected %d, got %d",
                mpi_first ? 0 : 1, finalized);
    }
    if (mpi_first) {
        MPI_Finalize();
    }
    return status != 0 || qc_failures() != 0;
}
