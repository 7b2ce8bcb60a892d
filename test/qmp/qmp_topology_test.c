/* SPDX-License-Identifier: BSD-3-Clause */
/* Logical topologies and QMP_layout_grid.
 *   - before a declaration nothing is declared;
 *   - QMP_declare_logical_topology: dimensions, this node's coordinates, the
 *     coordinates of every node (_from, _from2) and back (node_number_from),
 *     in QMP's order (dimension 0 fastest, or -qmp-logic-map's order), and
 *     the neighbours along every axis, checked by exchanging node numbers;
 *   - QMP_comm_declare_logical_topology_map on a split communicator;
 *   - QMP_layout_grid's factorisations (QMP 2.5's rule: largest prime first,
 *     onto the largest divisible lattice dimension) for several lattices,
 *     each on a fresh default communicator; with a declared topology; the
 *     lattices that cannot be laid out;
 *   - with -qmp-geom and -qmp-job (a MESH with a job grid) the layout takes
 *     the job's geometry.
 * Arguments: app-np=N  app-dims=AxB (default: N)  app-lmap=1,0  app-jobgrid=AxB */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mca/qmp/qmp.h"
#include "qmp_check.h"

enum { MAXD = 8 };

static void coords_of(int node, const int *dims, const int *map, int nd, int *x)
{
    for (int i = 0; i < nd; ++i) {
        const int k = map != NULL ? map[i] : i;
        x[k] = node % dims[k];
        node /= dims[k];
    }
}

static void check_declared(QMP_comm_t comm, const char *label, const int *dims, int nd,
                           const int *map)
{
    char call[160];
    const int me = QMP_comm_get_node_number(comm);
    const int n = QMP_comm_get_number_of_nodes(comm);
    snprintf(call, sizeof call, "%s: QMP_comm_logical_topology_is_declared", label);
    qc_int(call, QMP_TRUE, QMP_comm_logical_topology_is_declared(comm));
    snprintf(call, sizeof call, "%s: QMP_comm_get_logical_number_of_dimensions", label);
    if (!qc_int(call, nd, QMP_comm_get_logical_number_of_dimensions(comm))) {
        return;
    }
    snprintf(call, sizeof call, "%s: QMP_comm_get_logical_dimensions", label);
    qc_ints(call, dims, QMP_comm_get_logical_dimensions(comm), nd);
    int want[MAXD];
    coords_of(me, dims, map, nd, want);
    snprintf(call, sizeof call, "%s: QMP_comm_get_logical_coordinates (node %d)", label, me);
    qc_ints(call, want, QMP_comm_get_logical_coordinates(comm), nd);
    for (int node = 0; node < n; ++node) {
        coords_of(node, dims, map, nd, want);
        int *got = QMP_comm_get_logical_coordinates_from(comm, node);
        snprintf(call, sizeof call, "%s: QMP_comm_get_logical_coordinates_from(%d)", label, node);
        qc_ints(call, want, got, nd);
        free(got);
        int got2[MAXD] = {-1, -1, -1, -1, -1, -1, -1, -1};
        QMP_comm_get_logical_coordinates_from2(comm, got2, node);
        snprintf(call, sizeof call, "%s: QMP_comm_get_logical_coordinates_from2(%d)", label, node);
        qc_ints(call, want, got2, nd);
        snprintf(call, sizeof call, "%s: QMP_comm_get_node_number_from(coordinates of %d)", label,
                 node);
        qc_int(call, node, QMP_comm_get_node_number_from(comm, want));
    }
}

/* Each process sends its node number along every axis both ways and checks
 * that what arrives comes from the neighbour its coordinates say. */
static void check_neighbours(QMP_comm_t comm, const char *label, const int *dims, int nd)
{
    const int me = QMP_comm_get_node_number(comm);
    const int *c = QMP_comm_get_logical_coordinates(comm);
    if (c == NULL) {
        return;
    }
    int out = me;
    int in[MAXD][2];
    QMP_msgmem_t mout = QMP_declare_msgmem(&out, sizeof out);
    QMP_msgmem_t min[MAXD][2];
    QMP_msghandle_t h[4 * MAXD];
    int nh = 0;
    for (int a = 0; a < nd; ++a) {
        for (int s = 0; s < 2; ++s) {
            const int dir = s == 0 ? +1 : -1;
            in[a][s] = -1;
            min[a][s] = QMP_declare_msgmem(&in[a][s], sizeof in[a][s]);
            h[nh++] = QMP_comm_declare_receive_relative(comm, min[a][s], a, dir, 0);
            h[nh++] = QMP_comm_declare_send_relative(comm, mout, a, -dir, 0);
        }
    }
    for (int i = 0; i < nh; ++i) {
        if (h[i] == NULL) {
            qc_fail("%s: declaring relative channels failed: %s", label,
                    QMP_get_error_string(NULL));
            return;
        }
        QMP_start(h[i]);
    }
    qc_status("QMP_wait_all on the relative channels", QMP_SUCCESS, QMP_wait_all(h, nh));
    for (int a = 0; a < nd; ++a) {
        for (int s = 0; s < 2; ++s) {
            const int dir = s == 0 ? +1 : -1;
            int x[MAXD];
            memcpy(x, c, (size_t)nd * sizeof(int));
            x[a] = (x[a] + dir + dims[a]) % dims[a];
            char call[160];
            snprintf(call, sizeof call,
                     "%s: node number received from the neighbour at axis %d dir %+d", label, a,
                     dir);
            qc_int(call, QMP_comm_get_node_number_from(comm, x), in[a][s]);
        }
    }
    for (int i = 0; i < nh; ++i) {
        QMP_free_msghandle(h[i]);
    }
    for (int a = 0; a < nd; ++a) {
        QMP_free_msgmem(min[a][0]);
        QMP_free_msgmem(min[a][1]);
    }
    QMP_free_msgmem(mout);
}

/* Layouts on 2 and 4 processes (1 process: everything stays whole).
 * Expected values worked out by hand from QMP 2.5's rule. */
static const struct layout_case {
    int nd;
    int lattice[4];
    int logical2[4], subgrid2[4]; /* logical2[0] == 0: fails on 2 */
    int logical4[4], subgrid4[4]; /* logical4[0] == 0: fails on 4 */
} layouts[] = {
    {4, {4, 4, 4, 8}, {1, 1, 1, 2}, {4, 4, 4, 4}, {1, 1, 1, 4}, {4, 4, 4, 2}},
    {4, {8, 8, 8, 8}, {1, 1, 1, 2}, {8, 8, 8, 4}, {1, 1, 2, 2}, {8, 8, 4, 4}},
    {4, {4, 6, 5, 2}, {1, 2, 1, 1}, {4, 3, 5, 2}, {2, 2, 1, 1}, {2, 3, 5, 2}},
    {4, {2, 2, 2, 2}, {1, 1, 1, 2}, {2, 2, 2, 1}, {1, 1, 2, 2}, {2, 2, 1, 1}},
    {4, {1, 1, 1, 4}, {1, 1, 1, 2}, {1, 1, 1, 2}, {1, 1, 1, 4}, {1, 1, 1, 1}},
    {2, {8, 4}, {2, 1}, {4, 4}, {4, 1}, {2, 4}},
    {2, {10, 6}, {2, 1}, {5, 6}, {2, 2}, {5, 3}},
    {3, {6, 4, 2}, {2, 1, 1}, {3, 4, 2}, {2, 2, 1}, {3, 2, 2}},
    {1, {12}, {2}, {6}, {4}, {3}},
    {2, {2, 1}, {2, 1}, {1, 1}, {0}, {0}},
    {4, {3, 3, 3, 3}, {0}, {0}, {0}, {0}},
};

/* A fresh default communicator (the job's members in order) for one layout;
 * returns it so the caller frees it after restoring the default. */
static QMP_comm_t fresh_default(QMP_comm_t job)
{
    QMP_comm_t c = NULL;
    if (!qc_status("QMP_comm_split(job, 0, rank)", QMP_SUCCESS,
                   QMP_comm_split(job, 0, QMP_comm_get_node_number(job), &c))) {
        return NULL;
    }
    qc_status("QMP_comm_set_default(split)", QMP_SUCCESS, QMP_comm_set_default(c));
    return c;
}

static void done_default(QMP_comm_t job, QMP_comm_t c)
{
    qc_status("QMP_comm_set_default(back)", QMP_SUCCESS, QMP_comm_set_default(job));
    qc_status("QMP_comm_free(split)", QMP_SUCCESS, QMP_comm_free(c));
}

static void check_layout(const char *label, const int *lattice, int nd, const int *logical,
                         const int *subgrid)
{
    char call[200];
    char lat[64];
    qc_format_ints(lat, sizeof lat, lattice, nd);
    snprintf(call, sizeof call, "%s: QMP_layout_grid({%s}): QMP_get_logical_dimensions()", label,
             lat);
    if (qc_int(call, nd, QMP_get_logical_number_of_dimensions())) {
        qc_ints(call, logical, QMP_get_logical_dimensions(), nd);
    }
    snprintf(call, sizeof call, "%s: QMP_layout_grid({%s}): QMP_get_subgrid_dimensions()", label,
             lat);
    qc_ints(call, subgrid, QMP_get_subgrid_dimensions(), nd);
    int sites = 1;
    for (int i = 0; i < nd; ++i) {
        sites *= subgrid[i];
    }
    snprintf(call, sizeof call, "%s: QMP_layout_grid({%s}): QMP_get_number_of_subgrid_sites()",
             label, lat);
    qc_int(call, sites, QMP_get_number_of_subgrid_sites());
    int want[MAXD];
    coords_of(QMP_get_node_number(), logical, NULL, nd, want);
    snprintf(call, sizeof call, "%s: QMP_layout_grid({%s}): QMP_get_logical_coordinates()", label,
             lat);
    qc_ints(call, want, QMP_get_logical_coordinates(), nd);
    /* The subgrids cover the lattice. */
    int total = QMP_get_number_of_subgrid_sites();
    QMP_sum_int(&total);
    int volume = 1;
    for (int i = 0; i < nd; ++i) {
        volume *= lattice[i];
    }
    snprintf(call, sizeof call, "%s: QMP_layout_grid({%s}): sites summed over the nodes", label,
             lat);
    qc_int(call, volume, total);
}

static void layouts_factorised(QMP_comm_t job)
{
    const int n = QMP_get_number_of_nodes();
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; ++i) {
        const struct layout_case *lc = &layouts[i];
        const int *logical = n == 2 ? lc->logical2 : n == 4 ? lc->logical4 : NULL;
        const int *subgrid = n == 2 ? lc->subgrid2 : n == 4 ? lc->subgrid4 : lc->lattice;
        int ones[4] = {1, 1, 1, 1};
        if (n == 1) {
            logical = ones;
        } else if (logical == NULL) {
            return; /* only 1, 2 and 4 processes are worked out */
        }
        QMP_comm_t c = fresh_default(job);
        if (c == NULL) {
            return;
        }
        const QMP_status_t st = QMP_layout_grid(lc->lattice, lc->nd);
        char lat[64], call[160];
        qc_format_ints(lat, sizeof lat, lc->lattice, lc->nd);
        if (logical[0] == 0) {
            snprintf(call, sizeof call, "QMP_layout_grid({%s}) on %d nodes fails", lat, n);
            qc_true(call, st != QMP_SUCCESS);
            snprintf(call, sizeof call,
                     "QMP_logical_topology_is_declared() after QMP_layout_grid({%s}) failed", lat);
            qc_int(call, QMP_FALSE, QMP_logical_topology_is_declared());
        } else {
            snprintf(call, sizeof call, "QMP_layout_grid({%s}) on %d nodes", lat, n);
            if (qc_status(call, QMP_SUCCESS, st)) {
                check_layout("factorised", lc->lattice, lc->nd, logical, subgrid);
            }
        }
        done_default(job, c);
    }
}

/* A topology declared first fixes the layout: subgrid = lattice / logical
 * (padded with 1s); a lattice that does not fit, or with fewer dimensions
 * than the topology, fails. */
static void layouts_declared(QMP_comm_t job)
{
    const int n = QMP_get_number_of_nodes();
    {
        QMP_comm_t c = fresh_default(job);
        const int topo[1] = {n};
        qc_status("QMP_declare_logical_topology({n})", QMP_SUCCESS,
                  QMP_declare_logical_topology(topo, 1));
        const int lattice[4] = {8, 4, 4, 2};
        const int logical[4] = {n, 1, 1, 1};
        const int subgrid[4] = {8 / n, 4, 4, 2};
        qc_status("QMP_layout_grid({8,4,4,2}) on a declared {n}", QMP_SUCCESS,
                  QMP_layout_grid(lattice, 4));
        /* The logical topology stays the declared one (1-d). */
        qc_int("QMP_get_logical_number_of_dimensions() after layout on a declared topology", 1,
               QMP_get_logical_number_of_dimensions());
        qc_ints("QMP_get_subgrid_dimensions() on a declared {n}", subgrid,
                QMP_get_subgrid_dimensions(), 4);
        qc_int("QMP_get_number_of_subgrid_sites() on a declared {n}", 8 / n * 32,
               QMP_get_number_of_subgrid_sites());
        (void)logical;
        done_default(job, c);
    }
    if (n > 1) {
        QMP_comm_t c = fresh_default(job);
        const int topo[4] = {1, 1, 1, n};
        QMP_declare_logical_topology(topo, 4);
        const int odd[4] = {4, 4, 4, 3};
        qc_true("QMP_layout_grid({4,4,4,3}) on a declared {1,1,1,n} fails",
                QMP_layout_grid(odd, 4) != QMP_SUCCESS);
        const int small[2] = {4, 4};
        qc_true("QMP_layout_grid of 2 dimensions on a declared 4-d topology fails",
                QMP_layout_grid(small, 2) != QMP_SUCCESS);
        done_default(job, c);
    }
}

/* On a MESH with a job grid (-qmp-geom with -qmp-job), the layout takes the
 * job's geometry as its logical topology. */
static void layouts_job_grid(QMP_comm_t job, const int *grid, int ngrid)
{
    QMP_comm_t c = fresh_default(job);
    if (c == NULL) {
        return;
    }
    const int lattice[4] = {4, 4, 4, 8};
    int logical[4] = {1, 1, 1, 1}, subgrid[4];
    for (int i = 0; i < ngrid && i < 4; ++i) {
        logical[i] = grid[i];
    }
    for (int i = 0; i < 4; ++i) {
        subgrid[i] = lattice[i] / logical[i];
    }
    const QMP_status_t st = QMP_layout_grid(lattice, 4);
    if (qc_status("QMP_layout_grid({4,4,4,8}) on a MESH with a job grid", QMP_SUCCESS, st)) {
        qc_int("QMP_get_logical_number_of_dimensions() (the job grid's)", ngrid,
               QMP_get_logical_number_of_dimensions());
        qc_ints("QMP_get_logical_dimensions() (the job grid)", logical,
                QMP_get_logical_dimensions(), ngrid);
        qc_ints("QMP_get_subgrid_dimensions() (lattice / job grid)", subgrid,
                QMP_get_subgrid_dimensions(), 4);
    }
    done_default(job, c);
}

int main(int argc, char **argv)
{
    qc_watchdog("qmp_topology_test", 60);
    int dims[MAXD], nd = 0, lmap[MAXD], nlmap = 0, grid[MAXD], ngrid = 0;
    for (int i = 1; i < argc; ++i) {
        if (strncmp(argv[i], "app-dims=", 9) == 0) {
            nd = qc_parse_dims(argv[i] + 9, dims, MAXD);
        } else if (strncmp(argv[i], "app-lmap=", 9) == 0) {
            nlmap = qc_parse_ints(argv[i] + 9, lmap, MAXD, 0);
        } else if (strncmp(argv[i], "app-jobgrid=", 12) == 0) {
            ngrid = qc_parse_dims(argv[i] + 12, grid, MAXD);
        }
    }
    QMP_thread_level_t provided;
    if (!qc_status("QMP_init_msg_passing", QMP_SUCCESS,
                   QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided))) {
        printf("  %s\n", QMP_get_error_string(NULL));
        return 1;
    }
    const int n = QMP_get_number_of_nodes();
    if (nd == 0) {
        dims[0] = n;
        nd = 1;
    }
    QMP_comm_t job = QMP_comm_get_default();

    qc_int("QMP_logical_topology_is_declared() before a declaration", QMP_FALSE,
           QMP_logical_topology_is_declared());
    qc_int("QMP_get_logical_number_of_dimensions() before a declaration", 0,
           QMP_get_logical_number_of_dimensions());
    qc_true("QMP_get_logical_dimensions() before a declaration is NULL",
            QMP_get_logical_dimensions() == NULL);

    /* Layouts first: they need the default communicator without a grid
     * (each uses a fresh one).  -qmp-logic-map applies to every topology the
     * default communicator declares, with its own number of dimensions, so
     * the layouts are not run with it. */
    if (ngrid > 0) {
        layouts_job_grid(job, grid, ngrid);
    } else if (nlmap == 0) {
        layouts_factorised(job);
        layouts_declared(job);
    }

    /* The default communicator's topology, declared by the application. */
    if (qc_status("QMP_declare_logical_topology", QMP_SUCCESS,
                  QMP_declare_logical_topology(dims, nd))) {
        qc_int("QMP_logical_topology_is_declared()", QMP_TRUE, QMP_logical_topology_is_declared());
        qc_int("QMP_get_logical_number_of_dimensions()", nd,
               QMP_get_logical_number_of_dimensions());
        qc_ints("QMP_get_logical_dimensions()", dims, QMP_get_logical_dimensions(), nd);
        int want[MAXD];
        coords_of(QMP_get_node_number(), dims, nlmap > 0 ? lmap : NULL, nd, want);
        qc_ints("QMP_get_logical_coordinates()", want, QMP_get_logical_coordinates(), nd);
        for (int node = 0; node < n; ++node) {
            coords_of(node, dims, nlmap > 0 ? lmap : NULL, nd, want);
            int *got = QMP_get_logical_coordinates_from(node);
            char call[96];
            snprintf(call, sizeof call, "QMP_get_logical_coordinates_from(%d)", node);
            qc_ints(call, want, got, nd);
            free(got);
            int got2[MAXD] = {0};
            QMP_get_logical_coordinates_from2(got2, node);
            snprintf(call, sizeof call, "QMP_get_logical_coordinates_from2(%d)", node);
            qc_ints(call, want, got2, nd);
            snprintf(call, sizeof call, "QMP_get_node_number_from(coordinates of %d)", node);
            qc_int(call, node, QMP_get_node_number_from(want));
        }
        check_declared(job, "default communicator", dims, nd, nlmap > 0 ? lmap : NULL);
        check_neighbours(job, "default communicator", dims, nd);
    }

    /* A split communicator with a map: {n} reversed is trivial, so a 2-d
     * grid {1, n} with map {1, 0} (dimension 1 fastest). */
    QMP_comm_t split = NULL;
    if (qc_status("QMP_comm_split(job, 0, rank)", QMP_SUCCESS,
                  QMP_comm_split(job, 0, QMP_get_node_number(), &split))) {
        qc_int("QMP_comm_logical_topology_is_declared(new split)", QMP_FALSE,
               QMP_comm_logical_topology_is_declared(split));
        const int sdims[2] = {1, n};
        const int smap[2] = {1, 0};
        if (qc_status("QMP_comm_declare_logical_topology_map(split, {1,n}, {1,0})", QMP_SUCCESS,
                      QMP_comm_declare_logical_topology_map(split, sdims, 2, smap, 2))) {
            check_declared(split, "split with map {1,0}", sdims, 2, smap);
            check_neighbours(split, "split with map {1,0}", sdims, 2);
        }
        QMP_comm_free(split);
    }
    if (n >= 4 && n % 2 == 0 &&
        qc_status("QMP_comm_split(job, 0, rank)", QMP_SUCCESS,
                  QMP_comm_split(job, 0, QMP_get_node_number(), &split))) {
        const int sdims[3] = {2, n / 2, 1};
        const int smap[3] = {2, 1, 0};
        if (qc_status("QMP_comm_declare_logical_topology_map(split, {2,n/2,1}, {2,1,0})",
                      QMP_SUCCESS,
                      QMP_comm_declare_logical_topology_map(split, sdims, 3, smap, 3))) {
            check_declared(split, "split with map {2,1,0}", sdims, 3, smap);
            check_neighbours(split, "split with map {2,1,0}", sdims, 3);
        }
        QMP_comm_free(split);
    }
    if (qc_status("QMP_comm_split(job, 0, rank)", QMP_SUCCESS,
                  QMP_comm_split(job, 0, QMP_get_node_number(), &split))) {
        const int sdims[4] = {1, n, 1, 1};
        if (qc_status("QMP_comm_declare_logical_topology(split, {1,n,1,1})", QMP_SUCCESS,
                      QMP_comm_declare_logical_topology(split, sdims, 4))) {
            check_declared(split, "split {1,n,1,1}", sdims, 4, NULL);
            check_neighbours(split, "split {1,n,1,1}", sdims, 4);
        }
        QMP_comm_free(split);
    }
    return qc_finish("qmp_topology_test", 1);
}
