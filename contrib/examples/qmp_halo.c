/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * qmp_halo: a 4-D lattice halo exchange on QMP, as a lattice-QCD code does
 * it, with a global sum each iteration, checked and timed.
 *
 *   mpirun -np 2 ./qmp_halo [--lattice 16x16x16x32] [--site-bytes 72]
 *                           [--iterations 500] [--warmup 20] [--inject-error]
 *
 * The lattice is divided among the processes by QMP_layout_grid.  Each
 * process holds its part of a field of --site-bytes bytes per site (doubles;
 * the default 72 B is an SU(3) matrix in single precision).  For every
 * dimension that the layout split, the faces x = 0 and x = L-1 are sent to
 * the neighbours at -1 and +1 straight from the field (strided message
 * memory), and the neighbours' faces are received into halo buffers; the
 * channels are declared once and started again every iteration.  A
 * dimension that is not split wraps around on the process itself: its halo
 * is a local copy.
 *
 * Every value is known: element c of global site g holds g * ncomp + c + t
 * in iteration t (each iteration rewrites the faces with the new t), so
 * every received value is checked exactly, and the sum of all halos over all
 * processes (QMP_sum_double) must equal a closed sum computed from the
 * lattice alone.  A wrong value, a wrong sum or a failed QMP call prints
 * what went wrong and exits with status 1 (2 for bad arguments).
 * --inject-error spoils one received value on the last process halfway
 * through, to show that the check works.
 *
 * Output comes from node 0 only (errors from the node that finds them).
 */
#include <qmp.h>

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NDIM 4

/* The run's settings and its geometry. */
struct halo {
    int lattice[NDIM]; /* global extent */
    int grid[NDIM];    /* processes along each dimension */
    int sub[NDIM];     /* local extent */
    int origin[NDIM];  /* global coordinates of local site 0 */
    int ncomp;         /* doubles per site */
    long iterations, warmup;
    int inject_error;
    int node, nodes;
    long local_sites;
    double *field;         /* local_sites * ncomp doubles, x fastest */
    double *halo[NDIM][2]; /* [mu][0]: from -mu (their x = L-1), [1]: from +mu (their x = 0) */
    long face_sites[NDIM];
    long *face_site[NDIM][2]; /* build_tables */
    double *face_base[NDIM][2], *halo_base[NDIM][2];
    /* message memory and channels of the split dimensions */
    QMP_msgmem_t send_mem[NDIM][2], recv_mem[NDIM][2];
    QMP_msghandle_t channel[4 * NDIM];
    int nchannels;
    QMP_msghandle_t exchange; /* all channels as one */
    QMP_mem_t *memory[1 + 2 * NDIM];
    int nmemory;
};

/* Exit status 2 after a bad argument, -1 (then 0) after --help. */
static int usage(int node, const char *message)
{
    if (node == 0) {
        if (message)
            fprintf(stderr, "qmp_halo: %s\n", message);
        fprintf(message ? stderr : stdout,
                "usage: qmp_halo [--lattice XxYxZxT] [--site-bytes B] [--iterations N] "
                "[--warmup N] [--inject-error]\n"
                "  defaults: --lattice 16x16x16x32 --site-bytes 72 --iterations 500 "
                "--warmup 20\n");
    }
    return message ? 2 : -1;
}

/* A whole number in [min, max], or -1. */
static long parse_long(const char *text, long min, long max)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < min || v > max)
        return -1;
    return v;
}

static int parse_lattice(const char *text, int lattice[NDIM])
{
    const char *p = text;
    for (int mu = 0; mu < NDIM; ++mu) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (errno || end == p || v < 1 || v > 4096)
            return -1;
        lattice[mu] = (int)v;
        if (mu < NDIM - 1 && *end != 'x')
            return -1;
        p = end + (mu < NDIM - 1);
        if (mu == NDIM - 1 && *end)
            return -1;
    }
    return 0;
}

static int parse_arguments(struct halo *h, int argc, char **argv)
{
    static const int default_lattice[NDIM] = {16, 16, 16, 32};
    memcpy(h->lattice, default_lattice, sizeof h->lattice);
    h->ncomp = 72 / 8;
    h->iterations = 500;
    h->warmup = 20;
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(arg, "--inject-error") == 0) {
            h->inject_error = 1;
            continue;
        }
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
            return usage(h->node, NULL);
        if (!value) {
            char message[128];
            snprintf(message, sizeof message, "unknown option or missing value: '%s'", arg);
            return usage(h->node, message);
        }
        ++i;
        if (strcmp(arg, "--lattice") == 0) {
            if (parse_lattice(value, h->lattice) != 0)
                return usage(h->node, "--lattice expects four extents in 1..4096, as 16x16x16x32");
        } else if (strcmp(arg, "--site-bytes") == 0) {
            long b = parse_long(value, 8, 8 * 1024);
            if (b < 0 || b % 8 != 0)
                return usage(h->node, "--site-bytes expects a multiple of 8 in 8..8192");
            h->ncomp = (int)(b / 8);
        } else if (strcmp(arg, "--iterations") == 0) {
            if ((h->iterations = parse_long(value, 1, 100000000)) < 0)
                return usage(h->node, "--iterations expects a whole number >= 1");
        } else if (strcmp(arg, "--warmup") == 0) {
            if ((h->warmup = parse_long(value, 0, 100000000)) < 0)
                return usage(h->node, "--warmup expects a whole number >= 0");
        } else {
            char message[128];
            snprintf(message, sizeof message, "unknown option '%s'", arg);
            return usage(h->node, message);
        }
    }
    return 0;
}

/* -------------------------------------------------------------- geometry */

/* Sites in one block of the face normal to mu (the dimensions below mu),
 * the distance between blocks and their number (the dimensions above). */
static long block_sites(const struct halo *h, int mu)
{
    long n = 1;
    for (int d = 0; d < mu; ++d)
        n *= h->sub[d];
    return n;
}
static long block_count(const struct halo *h, int mu)
{
    long n = 1;
    for (int d = mu + 1; d < NDIM; ++d)
        n *= h->sub[d];
    return n;
}

/* The global lexicographic index of a global site (x fastest). */
static double global_base(const struct halo *h, const int x[NDIM])
{
    long g = 0;
    for (int d = NDIM - 1; d >= 0; --d)
        g = g * h->lattice[d] + x[d];
    return (double)g * h->ncomp;
}

/* Local coordinates of face site k of the face normal to mu at x_mu = at:
 * the face's sites in lexicographic order of the other dimensions. */
static void face_coordinates(const struct halo *h, int mu, long k, int at, int x[NDIM])
{
    for (int d = 0; d < NDIM; ++d) {
        if (d == mu) {
            x[d] = at;
            continue;
        }
        x[d] = (int)(k % h->sub[d]);
        k /= h->sub[d];
    }
}

static long local_index(const struct halo *h, const int x[NDIM])
{
    long s = 0;
    for (int d = NDIM - 1; d >= 0; --d)
        s = s * h->sub[d] + x[d];
    return s;
}

/* ------------------------------------------------------------- the field */

/* Where each face site is in the field and the global base value of each
 * face and halo site (the value in iteration 0, element 0), computed once:
 * face_site[mu][side][k], face_base[mu][side][k], halo_base[mu][side][k]
 * (side 0: x_mu = 0, whose halo comes from -mu; side 1: x_mu = L-1). */
static int build_tables(struct halo *h)
{
    int x[NDIM], gx[NDIM];
    for (int mu = 0; mu < NDIM; ++mu) {
        for (int side = 0; side < 2; ++side) {
            size_t n = (size_t)h->face_sites[mu];
            h->face_site[mu][side] = malloc(n * sizeof(long));
            h->face_base[mu][side] = malloc(n * sizeof(double));
            h->halo_base[mu][side] = malloc(n * sizeof(double));
            if (!h->face_site[mu][side] || !h->face_base[mu][side] || !h->halo_base[mu][side])
                return -1;
            for (long k = 0; k < h->face_sites[mu]; ++k) {
                face_coordinates(h, mu, k, side ? h->sub[mu] - 1 : 0, x);
                for (int d = 0; d < NDIM; ++d)
                    gx[d] = h->origin[d] + x[d];
                h->face_site[mu][side][k] = local_index(h, x);
                h->face_base[mu][side][k] = global_base(h, gx);
                /* the halo from -mu holds the -mu neighbour's x = L-1 */
                gx[mu] = side == 0 ? h->origin[mu] - 1 : h->origin[mu] + h->sub[mu];
                gx[mu] = (gx[mu] + h->lattice[mu]) % h->lattice[mu];
                h->halo_base[mu][side][k] = global_base(h, gx);
            }
        }
    }
    return 0;
}

/* Write the field's value for iteration t on both faces of every dimension
 * (what is sent; the interior never is). */
static void update_faces(struct halo *h, long t)
{
    for (int mu = 0; mu < NDIM; ++mu) {
        for (int side = 0; side < 2; ++side) {
            const long *index = h->face_site[mu][side];
            const double *base = h->face_base[mu][side];
            for (long k = 0; k < h->face_sites[mu]; ++k) {
                double *site = h->field + index[k] * h->ncomp;
                double value = base[k] + (double)t;
                for (int c = 0; c < h->ncomp; ++c)
                    site[c] = value + c;
            }
        }
    }
}

/* A dimension that is not split: the neighbour is this process, its halos
 * are copies of its own faces (halo from -mu = face x = L-1). */
static void copy_faces(struct halo *h, int mu)
{
    long block = block_sites(h, mu) * h->ncomp;
    long stride = block * h->sub[mu];
    long count = block_count(h, mu);
    for (int side = 0; side < 2; ++side) {
        const double *face = h->field + (side == 0 ? (long)(h->sub[mu] - 1) * block : 0);
        double *halo = h->halo[mu][side];
        for (long b = 0; b < count; ++b)
            memcpy(halo + b * block, face + b * stride, (size_t)block * sizeof(double));
    }
}

/* Check every halo value of iteration t; returns the number of wrong ones
 * and describes the first in `first`. */
static long check_halos(const struct halo *h, long t, char *first, size_t first_size)
{
    long wrong = 0;
    for (int mu = 0; mu < NDIM; ++mu) {
        for (int side = 0; side < 2; ++side) {
            const double *base = h->halo_base[mu][side];
            for (long k = 0; k < h->face_sites[mu]; ++k) {
                const double *got = h->halo[mu][side] + k * h->ncomp;
                double value = base[k] + (double)t;
                for (int c = 0; c < h->ncomp; ++c) {
                    if (got[c] == value + c)
                        continue;
                    if (wrong++ == 0) {
                        int x[NDIM];
                        face_coordinates(h, mu, k, 0, x);
                        for (int d = 0; d < NDIM; ++d)
                            x[d] += h->origin[d];
                        x[mu] = side == 0 ? h->origin[mu] - 1 : h->origin[mu] + h->sub[mu];
                        x[mu] = (x[mu] + h->lattice[mu]) % h->lattice[mu];
                        snprintf(first, first_size,
                                 "dimension %d, halo from the %s neighbour, face site %ld "
                                 "(global %d,%d,%d,%d), element %d: expected %.17g, got %.17g",
                                 mu, side == 0 ? "-" : "+", k, x[0], x[1], x[2], x[3], c, value + c,
                                 got[c]);
                    }
                }
            }
        }
    }
    return wrong;
}

static double halo_sum(const struct halo *h)
{
    double sum = 0;
    for (int mu = 0; mu < NDIM; ++mu)
        for (int side = 0; side < 2; ++side)
            for (long i = 0; i < h->face_sites[mu] * h->ncomp; ++i)
                sum += h->halo[mu][side][i];
    return sum;
}

/* What halo_sum adds up to over all processes in iteration t, from the
 * lattice alone: the halos from -mu hold the global sites with
 * x_mu mod L_mu = L_mu - 1, those from +mu the sites with x_mu mod L_mu = 0.
 * `elements` receives the number of values summed. */
static double expected_sum(const struct halo *h, long t, double *elements)
{
    double sum = 0, n = 0;
    int x[NDIM];
    long sites = 1;
    for (int d = 0; d < NDIM; ++d)
        sites *= h->lattice[d];
    for (long g = 0; g < sites; ++g) {
        long r = g;
        for (int d = 0; d < NDIM; ++d) {
            x[d] = (int)(r % h->lattice[d]);
            r /= h->lattice[d];
        }
        for (int mu = 0; mu < NDIM; ++mu) {
            int in_slice = x[mu] % h->sub[mu];
            int count = (in_slice == h->sub[mu] - 1) + (in_slice == 0);
            if (count == 0)
                continue;
            /* sum over c of (base + t + c) */
            double site =
                h->ncomp * (global_base(h, x) + (double)t) + (double)h->ncomp * (h->ncomp - 1) / 2;
            sum += count * site;
            n += count * h->ncomp;
        }
    }
    *elements = n;
    return sum;
}

/* ----------------------------------------------------------- QMP set-up */

static int fail(const struct halo *h, const char *what, QMP_status_t status)
{
    fprintf(stderr, "qmp_halo: node %d: %s: %s\n", h->node, what, QMP_error_string(status));
    return 1;
}

static void *allocate(struct halo *h, size_t nbytes)
{
    QMP_mem_t *mem =
        QMP_allocate_aligned_memory(nbytes ? nbytes : 8, QMP_ALIGN_DEFAULT, QMP_MEM_DEFAULT);
    if (!mem)
        return NULL;
    h->memory[h->nmemory++] = mem;
    return QMP_get_memory_pointer(mem);
}

static int set_up(struct halo *h)
{
    QMP_status_t status = QMP_layout_grid(h->lattice, NDIM);
    if (status != QMP_SUCCESS)
        return fail(h, "QMP_layout_grid", status);
    const int *sub = QMP_get_subgrid_dimensions();
    const int *grid = QMP_get_logical_dimensions();
    const int *coords = QMP_get_logical_coordinates();
    if (!sub || !grid || !coords || QMP_get_logical_number_of_dimensions() != NDIM)
        return fail(h, "the logical topology after QMP_layout_grid", QMP_get_error_number(NULL));
    h->local_sites = 1;
    for (int mu = 0; mu < NDIM; ++mu) {
        h->sub[mu] = sub[mu];
        h->grid[mu] = grid[mu];
        h->origin[mu] = coords[mu] * sub[mu];
        h->local_sites *= sub[mu];
    }
    size_t site_bytes = (size_t)h->ncomp * sizeof(double);
    h->field = allocate(h, (size_t)h->local_sites * site_bytes);
    if (!h->field)
        return fail(h, "QMP_allocate_aligned_memory (field)", QMP_get_error_number(NULL));
    memset(h->field, 0, (size_t)h->local_sites * site_bytes);

    for (int mu = 0; mu < NDIM; ++mu) {
        h->face_sites[mu] = h->local_sites / h->sub[mu];
        for (int side = 0; side < 2; ++side) {
            h->halo[mu][side] = allocate(h, (size_t)h->face_sites[mu] * site_bytes);
            if (!h->halo[mu][side])
                return fail(h, "QMP_allocate_aligned_memory (halo)", QMP_get_error_number(NULL));
        }
        if (h->grid[mu] == 1)
            continue;
        /* The faces are sent straight from the field: blocks of the sites
         * below mu, one block per site combination above mu. */
        size_t block = (size_t)block_sites(h, mu) * site_bytes;
        ptrdiff_t stride = (ptrdiff_t)(block * (size_t)h->sub[mu]);
        int count = (int)block_count(h, mu);
        char *field = (char *)h->field;
        h->send_mem[mu][0] = QMP_declare_strided_msgmem(field, block, count, stride);
        h->send_mem[mu][1] = QMP_declare_strided_msgmem(field + (size_t)(h->sub[mu] - 1) * block,
                                                        block, count, stride);
        for (int side = 0; side < 2; ++side)
            h->recv_mem[mu][side] =
                QMP_declare_msgmem(h->halo[mu][side], (size_t)h->face_sites[mu] * site_bytes);
        if (!h->send_mem[mu][0] || !h->send_mem[mu][1] || !h->recv_mem[mu][0] ||
            !h->recv_mem[mu][1])
            return fail(h, "QMP_declare_(strided_)msgmem", QMP_get_error_number(NULL));
        /* In this order on every node: the face sent to +mu first is the
         * halo received from -mu first (with two nodes along mu both
         * neighbours are the same process). */
        QMP_msghandle_t *ch = h->channel + h->nchannels;
        ch[0] = QMP_declare_receive_relative(h->recv_mem[mu][0], mu, -1, 0);
        ch[1] = QMP_declare_send_relative(h->send_mem[mu][1], mu, +1, 0);
        ch[2] = QMP_declare_receive_relative(h->recv_mem[mu][1], mu, +1, 0);
        ch[3] = QMP_declare_send_relative(h->send_mem[mu][0], mu, -1, 0);
        for (int i = 0; i < 4; ++i)
            if (!ch[i])
                return fail(h, "QMP_declare_send/receive_relative", QMP_get_error_number(NULL));
        h->nchannels += 4;
    }
    if (build_tables(h) != 0) {
        fprintf(stderr, "qmp_halo: node %d: out of memory for the face tables\n", h->node);
        return 1;
    }
    if (h->nchannels > 0) {
        h->exchange = QMP_declare_multiple(h->channel, h->nchannels);
        if (!h->exchange)
            return fail(h, "QMP_declare_multiple", QMP_get_error_number(NULL));
    }
    return 0;
}

static void tear_down(struct halo *h)
{
    /* QMP 2.x: the multiple handle owns its members. */
    if (h->exchange)
        QMP_free_msghandle(h->exchange);
    else
        for (int i = 0; i < h->nchannels; ++i)
            if (h->channel[i])
                QMP_free_msghandle(h->channel[i]);
    for (int mu = 0; mu < NDIM; ++mu)
        for (int side = 0; side < 2; ++side) {
            if (h->send_mem[mu][side])
                QMP_free_msgmem(h->send_mem[mu][side]);
            if (h->recv_mem[mu][side])
                QMP_free_msgmem(h->recv_mem[mu][side]);
        }
    for (int i = 0; i < h->nmemory; ++i)
        QMP_free_memory(h->memory[i]);
    for (int mu = 0; mu < NDIM; ++mu)
        for (int side = 0; side < 2; ++side) {
            free(h->face_site[mu][side]);
            free(h->face_base[mu][side]);
            free(h->halo_base[mu][side]);
        }
}

/* -------------------------------------------------------------- the run */

/* Times of one run, summed over the timed iterations. */
struct times {
    double total, update, exchange, local, check, sum;
};

static int run(struct halo *h, struct times *times)
{
    /* The sum of iteration t is sum0 + t * elements (every value grows by 1). */
    double elements;
    double sum0 = expected_sum(h, 0, &elements);
    long total = h->warmup + h->iterations;
    long wrong_total = 0, bad_sums = 0;
    /* Every node runs every iteration, whatever it found: a node that
     * stopped early would leave its neighbours waiting. */
    for (long t = 0; t < total; ++t) {
        double t0 = QMP_time();
        update_faces(h, t);
        double t1 = QMP_time();
        if (h->exchange) {
            QMP_status_t st = QMP_start(h->exchange);
            if (st == QMP_SUCCESS)
                st = QMP_wait(h->exchange);
            if (st != QMP_SUCCESS)
                return fail(h, "halo exchange (QMP_start / QMP_wait)", st);
        }
        double t2 = QMP_time();
        for (int mu = 0; mu < NDIM; ++mu)
            if (h->grid[mu] == 1)
                copy_faces(h, mu);
        double t2b = QMP_time();
        if (h->inject_error && t == total / 2 && h->node == h->nodes - 1)
            h->halo[NDIM - 1][0][0] += 1.0;

        char first[256] = "";
        long wrong = check_halos(h, t, first, sizeof first);
        double sum = halo_sum(h);
        double t3 = QMP_time(); /* the check above is not counted */
        QMP_status_t st = QMP_sum_double(&sum);
        double t4 = QMP_time();
        if (st != QMP_SUCCESS)
            return fail(h, "QMP_sum_double", st);

        if (wrong && wrong_total == 0)
            fprintf(stderr, "qmp_halo: node %d, iteration %ld: %ld wrong halo values; first: %s\n",
                    h->node, t, wrong, first);
        wrong_total += wrong;
        double expected = sum0 + (double)t * elements;
        /* Every value is a whole number, and so is every partial sum: below
         * 2^53 the sum is exact whatever the order of its additions. */
        double tolerance = expected < 9007199254740992.0 ? 0.0 : expected * 1e-15;
        if (sum - expected > tolerance || expected - sum > tolerance) {
            if (h->node == 0 && bad_sums == 0)
                fprintf(stderr,
                        "qmp_halo: iteration %ld: QMP_sum_double of the halos gave %.17g, "
                        "expected %.17g (%.0f values)\n",
                        t, sum, expected, elements);
            ++bad_sums;
        }
        if (t >= h->warmup) {
            times->total += (t2b - t0) + (t4 - t3);
            times->update += t1 - t0;
            times->exchange += t2 - t1;
            times->local += t2b - t2;
            times->check += t3 - t2b;
            times->sum += t4 - t3;
        }
    }
    /* Every node returns the same verdict. */
    int failed = wrong_total > 0 || bad_sums > 0;
    QMP_status_t st = QMP_sum_int(&failed);
    if (st != QMP_SUCCESS)
        return fail(h, "QMP_sum_int", st);
    if (failed && h->node == 0)
        fprintf(stderr, "qmp_halo: %d node%s found wrong halo values or sums\n", failed,
                failed == 1 ? "" : "s");
    return failed ? 1 : 0;
}

static void report(const struct halo *h, struct times *times)
{
    double n = (double)h->iterations;
    /* The slowest node sets the pace. */
    double *all[] = {&times->total, &times->update, &times->exchange,
                     &times->local, &times->check,  &times->sum};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        QMP_max_double(all[i]);
    if (h->node != 0)
        return;
    double site_bytes = h->ncomp * 8.0;
    double sent = 0;
    int split = 0;
    for (int mu = 0; mu < NDIM; ++mu)
        if (h->grid[mu] > 1) {
            sent += 2.0 * (double)h->face_sites[mu] * site_bytes;
            ++split;
        }
    printf("qmp_halo: %d node%s, lattice %dx%dx%dx%d, node grid %dx%dx%dx%d, "
           "subgrid %dx%dx%dx%d, %.0f B/site\n",
           h->nodes, h->nodes == 1 ? "" : "s", h->lattice[0], h->lattice[1], h->lattice[2],
           h->lattice[3], h->grid[0], h->grid[1], h->grid[2], h->grid[3], h->sub[0], h->sub[1],
           h->sub[2], h->sub[3], site_bytes);
    printf("dimensions exchanged: %d (faces in both directions, sent strided from the field)\n",
           split);
    printf("iterations: %ld timed after %ld warm-up; times are the slowest node's\n", h->iterations,
           h->warmup);
    printf("(each line its own slowest node: the four parts of one node add up to its total,\n"
           " but the parts' slowest nodes may differ, so their sum may exceed the total)\n");
    printf("per iteration:    %10.2f us  (the four below)\n", 1e6 * times->total / n);
    printf("  faces update:   %10.2f us  (new values on every face)\n", 1e6 * times->update / n);
    printf("  exchange:       %10.2f us  (QMP_start + QMP_wait of the %d channels)\n",
           1e6 * times->exchange / n, h->nchannels);
    printf("  local halos:    %10.2f us  (copies for the dimensions not split)\n",
           1e6 * times->local / n);
    printf("  QMP_sum_double: %10.2f us  (the halos' checksum)\n", 1e6 * times->sum / n);
    printf("check (not counted above): %.2f us per iteration\n", 1e6 * times->check / n);
    printf("bytes moved:      %10.0f B sent and as many received per node per iteration\n", sent);
    if (sent > 0 && times->exchange > 0)
        printf("bandwidth:        %10.3f GB/s per node and direction (1 GB = 10^9 B)\n",
               sent * n / times->exchange / 1e9);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    QMP_thread_level_t provided;
    QMP_status_t status = QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided);
    if (status != QMP_SUCCESS) {
        fprintf(stderr, "qmp_halo: QMP_init_msg_passing: %s\n", QMP_error_string(status));
        return 1;
    }
    struct halo h;
    memset(&h, 0, sizeof h);
    h.node = QMP_get_node_number();
    h.nodes = QMP_get_number_of_nodes();

    int rc = parse_arguments(&h, argc, argv);
    if (rc < 0) { /* --help */
        QMP_finalize_msg_passing();
        return 0;
    }
    if (rc == 0)
        rc = set_up(&h);
    struct times times = {0, 0, 0, 0, 0, 0};
    if (rc == 0)
        rc = run(&h, &times);
    if (rc == 0) {
        report(&h, &times);
        if (h.node == 0)
            printf("check: every halo value and every global sum as expected: OK\n");
    } else if (rc == 1 && h.node == 0) {
        fprintf(stderr, "qmp_halo: FAILED\n");
    }
    tear_down(&h);
    QMP_finalize_msg_passing();
    return rc;
}
