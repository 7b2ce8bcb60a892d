/* SPDX-License-Identifier: BSD-3-Clause */
/* The allocated machine as QMP 2.5 reports it, and the jobs:
 *   SWITCH (a plain run): no allocated dimensions (0, NULL, NULL -- the
 *     allocated communicator has no grid);
 *   MESH with -qmp-geom: the grid given, each process at the coordinates
 *     of its rank (dimension 0 fastest, or in -qmp-alloc-map's order);
 *   MESH from coord's torus placement: the nodes' box on the torus plane,
 *     then the processes of a node as one more dimension (all processes
 *     run on this host: {1,..,1,N}), each process once;
 *   -qmp-job: the allocated processes split into jobs (by their allocated
 *     coordinates on a MESH, by rank otherwise); the default communicator is
 *     the job's, with the job's geometry on a MESH;
 *   node numbers, SMP count (every process of a test runs on this host), I/O
 *   nodes, primary node.
 * The application arguments say what to expect:
 *   app-np=N  app-geom=AxB  app-amap=1,0  app-job=AxB  app-torus=AxB  app-smp=K */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mca/qmp/qmp.h"
#include "qmp_check.h"

enum { MAXD = 8 };

struct expect {
    int np, smp;
    int geom[MAXD], ngeom;
    int amap[MAXD], namap;
    int job[MAXD], njob;
    int torus[MAXD], ntorus;
};

static void parse(int argc, char **argv, struct expect *e)
{
    memset(e, 0, sizeof *e);
    e->np = 1;
    e->smp = -1;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (strncmp(a, "app-np=", 7) == 0) {
            e->np = atoi(a + 7);
        } else if (strncmp(a, "app-smp=", 8) == 0) {
            e->smp = atoi(a + 8);
        } else if (strncmp(a, "app-geom=", 9) == 0) {
            e->ngeom = qc_parse_dims(a + 9, e->geom, MAXD);
        } else if (strncmp(a, "app-amap=", 9) == 0) {
            e->namap = qc_parse_ints(a + 9, e->amap, MAXD, 0);
        } else if (strncmp(a, "app-job=", 8) == 0) {
            e->njob = qc_parse_dims(a + 8, e->job, MAXD);
        } else if (strncmp(a, "app-torus=", 10) == 0) {
            e->ntorus = qc_parse_dims(a + 10, e->torus, MAXD);
        }
    }
    if (e->smp < 0) {
        /* The processes on this host, as the launcher counts them (mpirun
         * over several hosts puts fewer than np here). */
        const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
        e->smp = local != NULL ? atoi(local) : e->np;
    }
}

/* QMP's node -> coordinates rule: the first mapped dimension varies
 * fastest (map NULL: dimension 0 first). */
static void coords_of(int node, const int *dims, const int *map, int nd, int *x)
{
    for (int i = 0; i < nd; ++i) {
        const int k = map != NULL ? map[i] : i;
        x[k] = node % dims[k];
        node /= dims[k];
    }
}

static int lex(const int *x, const int *size, int nd)
{
    int r = x[nd - 1];
    for (int d = nd - 2; d >= 0; --d) {
        r = r * size[d] + x[d];
    }
    return r;
}

int main(int argc, char **argv)
{
    qc_watchdog("qmp_machine_test", 60);
    struct expect e;
    parse(argc, argv, &e);
    QMP_thread_level_t provided;
    if (!qc_status("QMP_init_msg_passing", QMP_SUCCESS,
                   QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided))) {
        printf("  %s\n", QMP_get_error_string(NULL));
        return 1;
    }
    QMP_comm_t allocated = QMP_comm_get_allocated();
    const int rank = QMP_comm_get_node_number(allocated);
    const int np = e.np;
    char buf[128];

    qc_int("QMP_comm_get_number_of_nodes(allocated)", np, QMP_comm_get_number_of_nodes(allocated));
    const char *pmix_rank = getenv("PMIX_RANK");
    if (pmix_rank == NULL) {
        pmix_rank = getenv("PMI_RANK"); /* a PMI-1 launcher */
    }
    qc_int("QMP_comm_get_node_number(allocated) (the launcher's rank)",
           pmix_rank != NULL ? atoi(pmix_rank) : 0, rank);
    qc_int("QMP_comm_is_primary_node(allocated)", rank == 0, QMP_comm_is_primary_node(allocated));
    qc_int("QMP_get_SMP_count()", e.smp, (long long)QMP_get_SMP_count());
    for (int k = 0; k < np; ++k) {
        snprintf(buf, sizeof buf, "QMP_io_node(%d)", k);
        qc_int(buf, k, QMP_io_node(k));
    }
    qc_int("QMP_master_io_node()", 0, QMP_master_io_node());

    /* The allocated machine. */
    const int mesh = e.ngeom > 0 || e.ntorus > 0;
    qc_int("QMP_get_msg_passing_type()", mesh ? QMP_MESH : QMP_SWITCH, QMP_get_msg_passing_type());
    const int nd = QMP_get_allocated_number_of_dimensions();
    const int *ad = QMP_get_allocated_dimensions();
    const int *ac = QMP_get_allocated_coordinates();
    int want_coords[MAXD] = {0};
    if (!mesh) {
        qc_int("QMP_get_allocated_number_of_dimensions() of a switched machine", 0, nd);
        qc_true("QMP_get_allocated_dimensions() of a switched machine is NULL", ad == NULL);
        qc_true("QMP_get_allocated_coordinates() of a switched machine is NULL", ac == NULL);
    } else if (e.ngeom > 0) {
        qc_int("QMP_get_allocated_number_of_dimensions() with -qmp-geom", e.ngeom, nd);
        if (qc_true("QMP_get_allocated_dimensions() with -qmp-geom", ad != NULL) && nd == e.ngeom) {
            qc_ints("QMP_get_allocated_dimensions() with -qmp-geom", e.geom, ad, nd);
        }
        coords_of(rank, e.geom, e.namap > 0 ? e.amap : NULL, e.ngeom, want_coords);
        if (qc_true("QMP_get_allocated_coordinates() with -qmp-geom", ac != NULL) &&
            nd == e.ngeom) {
            qc_ints("QMP_get_allocated_coordinates() with -qmp-geom (and -qmp-alloc-map)",
                    want_coords, ac, nd);
        }
    } else {
        qc_int("QMP_get_allocated_number_of_dimensions() from coord's torus", e.ntorus, nd);
        if (qc_true("QMP_get_allocated_dimensions() from coord's torus", ad != NULL) &&
            nd == e.ntorus) {
            qc_ints("QMP_get_allocated_dimensions() from coord's torus", e.torus, ad, nd);
        }
        /* Every process at its own position of the grid. */
        int positions[64] = {0};
        if (qc_true("QMP_get_allocated_coordinates() from coord's torus", ac != NULL) &&
            nd == e.ntorus && np <= 64) {
            int inside = 1;
            for (int i = 0; i < nd; ++i) {
                inside = inside && ac[i] >= 0 && ac[i] < e.torus[i];
            }
            qc_true("allocated coordinates inside the torus", inside);
            /* On one host: the node's place (all 0) and then the local rank,
             * which is the rank: the grid in rank order. */
            coords_of(rank, e.torus, NULL, e.ntorus, want_coords);
            qc_ints("QMP_get_allocated_coordinates() from coord's torus (one host: rank order)",
                    want_coords, ac, nd);
            qc_gather_int(allocated, inside ? lex(ac, e.torus, nd) : -1, positions);
            for (int a = 0; a < np; ++a) {
                for (int b = a + 1; b < np; ++b) {
                    if (positions[a] == positions[b]) {
                        qc_fail("ranks %d and %d have the same allocated coordinates (position "
                                "%d)",
                                a, b, positions[a]);
                    }
                }
            }
        }
    }

    /* Jobs: -qmp-job splits the allocated processes. */
    int njobs = 1, job = 0;
    if (e.njob > 0) {
        njobs = 1;
        for (int i = 0; i < e.njob; ++i) {
            njobs *= e.job[i];
        }
        if (e.ngeom > 0 && e.njob == e.ngeom) {
            int jc[MAXD];
            for (int i = 0; i < e.njob; ++i) {
                jc[i] = want_coords[i] * e.job[i] / e.geom[i];
            }
            job = lex(jc, e.job, e.njob);
        } else {
            job = rank * e.job[0] / np;
        }
    }
    qc_int("QMP_get_number_of_jobs()", njobs, QMP_get_number_of_jobs());
    qc_int("QMP_get_job_number()", job, QMP_get_job_number());
    /* Job members in rank order; this process's place among them. */
    int jobs_of[64] = {0};
    int job_size = 0, job_rank = 0;
    if (np <= 64 && qc_gather_int(allocated, job, jobs_of)) {
        for (int r = 0; r < np; ++r) {
            if (jobs_of[r] == job) {
                if (r < rank) {
                    ++job_rank;
                }
                ++job_size;
            }
        }
    }
    qc_int("QMP_comm_get_number_of_nodes(job)", job_size,
           QMP_comm_get_number_of_nodes(QMP_comm_get_job()));
    qc_int("QMP_get_number_of_nodes() (the job's)", job_size, QMP_get_number_of_nodes());
    qc_int("QMP_get_node_number() (in the job)", job_rank, QMP_get_node_number());
    qc_int("QMP_is_primary_node()", job_rank == 0, QMP_is_primary_node());
    if (e.njob > 0 && mesh && e.ngeom > 0) {
        int jg[MAXD];
        for (int i = 0; i < e.njob; ++i) {
            jg[i] = e.geom[i] / e.job[i];
        }
        qc_int("QMP_get_number_of_job_geometry_dimensions()", e.njob,
               QMP_get_number_of_job_geometry_dimensions());
        const int *g = QMP_get_job_geometry();
        if (qc_true("QMP_get_job_geometry() on a MESH with -qmp-job", g != NULL) &&
            QMP_get_number_of_job_geometry_dimensions() == e.njob) {
            qc_ints("QMP_get_job_geometry() (allocated dims / -qmp-job)", jg, g, e.njob);
        }
    } else {
        qc_int("QMP_get_number_of_job_geometry_dimensions() without a job grid", 0,
               QMP_get_number_of_job_geometry_dimensions());
        qc_true("QMP_get_job_geometry() without a job grid is NULL",
                QMP_get_job_geometry() == NULL);
    }
    /* The default communicator is the job's: a sum covers the job only. */
    int one = 1;
    qc_status("QMP_sum_int(1) over the default communicator", QMP_SUCCESS, QMP_sum_int(&one));
    qc_int("QMP_sum_int(1) over the default communicator (the job)", job_size, one);
    one = 1;
    qc_status("QMP_comm_sum_int(allocated, 1)", QMP_SUCCESS, QMP_comm_sum_int(allocated, &one));
    qc_int("QMP_comm_sum_int(allocated, 1)", np, one);

    if (rank == 0) {
        printf("machine: %s, %d allocated dimensions {%s}, %d jobs, SMP count %u\n",
               QMP_get_msg_passing_type() == QMP_MESH ? "MESH" : "SWITCH", nd,
               qc_format_ints(buf, sizeof buf, ad, nd), QMP_get_number_of_jobs(),
               (unsigned)QMP_get_SMP_count());
    }
    return qc_finish("qmp_machine_test", 1);
}
