/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI and Meridian in one process, as lattice codes use them: MPI_Init,
 * QMP_init_msg_passing (which starts Meridian and loads its components), a
 * QMP_sum_double, an MPI_Allreduce, Meridian's carto map through its C API,
 * then QMP_finalize_msg_passing and MPI_Finalize.  Built with
 *   mpicc $(qmp-config --cflags) prog.c $(qmp-config --ldflags --libs)
 * (qmp_config.sh), with -DQMP_MPI as lattice codes' makefiles build for
 * QMP over MPI: then it declares QMP_get_mpi_comm itself, as QUDA does, and
 * asks for the MPI communicator.  Linked without QMP's MPI part (no --mpi),
 * it has none: QMP_NOTSUPPORTED, NULL.  With the argument "mpi-part" it was
 * linked with it (qmp-config --mpi, pkg-config qmp-mpi): the communicator's
 * rank, size and an MPI_Allreduce on it must agree with QMP's.  Each process prints "ok: ..." when
 * both sums are right and Meridian's map answered; a name clash between Open MPI's libraries and
 * Meridian's crashes in MPI_Init or gives a wrong sum. */
#include <meridian/meridian.h>
#include <mpi.h>
#include <qmp.h>
#include <stdio.h>
#include <string.h>

#ifdef QMP_MPI
#ifdef __cplusplus
extern "C" {
#endif
QMP_status_t QMP_get_mpi_comm(QMP_comm_t comm, void **mpicomm);
#ifdef __cplusplus
}
#endif
#endif

int main(int argc, char **argv)
{
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "MPI_Init failed\n");
        return 1;
    }
    int mpi_rank = -1;
    int mpi_size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);

    QMP_thread_level_t provided;
    if (QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided) != QMP_SUCCESS) {
        fprintf(stderr, "rank %d: QMP_init_msg_passing: %s\n", mpi_rank,
                QMP_get_error_string(NULL));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const int me = QMP_get_node_number();
    const int n = QMP_get_number_of_nodes();
    int bad = 0;
    if (n != mpi_size || me != mpi_rank) {
        fprintf(stderr, "rank %d: QMP says node %d of %d, MPI rank %d of %d\n", mpi_rank, me, n,
                mpi_rank, mpi_size);
        bad = 1;
    }

    /* 1 + 2 + ... + n, once through each library. */
    double qmp_sum = me + 1.0;
    if (QMP_sum_double(&qmp_sum) != QMP_SUCCESS) {
        fprintf(stderr, "rank %d: QMP_sum_double: %s\n", me, QMP_get_error_string(NULL));
        bad = 1;
    }
    double mine = mpi_rank + 1.0;
    double mpi_sum = 0.0;
    if (MPI_Allreduce(&mine, &mpi_sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: MPI_Allreduce failed\n", mpi_rank);
        bad = 1;
    }
    const double want = mpi_size * (mpi_size + 1) / 2.0;
    if (qmp_sum != want || mpi_sum != want) {
        fprintf(stderr, "rank %d: QMP_sum_double gave %g, MPI_Allreduce %g, expected %g\n",
                mpi_rank, qmp_sum, mpi_sum, want);
        bad = 1;
    }

#ifdef QMP_MPI
    void *mpicomm = &mpicomm;
    const QMP_status_t st = QMP_get_mpi_comm(QMP_comm_get_default(), &mpicomm);
    if (argc > 1 && strcmp(argv[1], "mpi-part") == 0) {
        int rank = -1;
        int size = -1;
        double sum = me + 1.0;
        if (st == QMP_SUCCESS && mpicomm != NULL) {
            MPI_Comm comm = *(MPI_Comm *)mpicomm;
            MPI_Comm_rank(comm, &rank);
            MPI_Comm_size(comm, &size);
            MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, comm);
        }
        if (st != QMP_SUCCESS || rank != me || size != n || sum != want) {
            fprintf(stderr,
                    "rank %d: QMP_get_mpi_comm gave %d (%s); on it MPI says rank %d of %d, sum "
                    "%g; QMP node %d of %d, sum %g\n",
                    mpi_rank, (int)st, QMP_get_error_string(NULL), rank, size, sum, me, n, want);
            bad = 1;
        }
    } else if (st != QMP_NOTSUPPORTED || mpicomm != NULL ||
               strstr(QMP_get_error_string(NULL), "this program did not link QMP's MPI part") ==
                   NULL) {
        fprintf(stderr, "rank %d: QMP_get_mpi_comm gave %d, %p: %s\n", mpi_rank, (int)st, mpicomm,
                QMP_get_error_string(NULL));
        bad = 1;
    }
#endif

    /* A component loaded by Meridian answers in this process too. */
    mca_carto_graph_t *graph = NULL;
    const int rc = meridian_mca_carto_base_get_host_graph(MCA_CARTO_ALL, &graph);
    const int vertices =
        rc == MERIDIAN_SUCCESS ? (int)meridian_mca_carto_graph_vertex_count(graph) : -1;
    if (rc != MERIDIAN_SUCCESS || vertices <= 0) {
        fprintf(stderr, "rank %d: carto host graph: %s, %d vertices\n", mpi_rank,
                meridian_strerror(rc), vertices);
        bad = 1;
    }
    meridian_mca_carto_graph_free(graph);

    QMP_finalize_msg_passing();
    MPI_Finalize();
    if (!bad) {
        printf("ok: rank %d of %d: QMP_sum_double = MPI_Allreduce = %g, carto %d vertices\n",
               mpi_rank, mpi_size, want, vertices);
    }
    return bad;
}
