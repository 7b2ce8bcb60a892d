/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A small launcher that is a PMIx server, as a resource manager would be:
 * it runs the pnet pipeline through the C API (fabric, requests, job,
 * allocate, setup_local_network on every node), registers the job's
 * namespace with each process's meridian_pnet_pmix_proc_data in its
 * PMIX_PROC_DATA, and starts every process as a plain PMIx client
 * (pmix_launched, which links only libpmix) on this host.
 *
 * Before it starts them it prints what each process must read, found
 * through other calls than meridian_pnet_pmix_proc_data (the assignments
 * and coord's C API), in pmix_launched's format (see there), to the file
 * EXPECTED; pmix_launched prints what PMIx_Get gave.  pmix_launcher.sh
 * compares them.
 *
 * Usage: pmix_launcher FABRIC-FILE REQUESTS HOSTS EXPECTED TMPDIR CLIENT
 *   HOSTS: node names, each with two processes ("node01,node02").
 * Exit 0 when every step worked and every client exited 0; "FAIL: ..."
 * lines otherwise.
 */
#include <errno.h>
#include <pmix.h>
#include <pmix_server.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <meridian/mca/coord/base/base.h>
#include <meridian/mca/pnet/base/base.h>
#include <meridian/mca/runtime/meridian.h>
#include <meridian/opal/util/output.h>

#define PROCS_PER_NODE 2
#define MAX_NODES 4
#define MAX_PROCS (PROCS_PER_NODE * MAX_NODES)
#define WAIT_SECONDS 60

extern char **environ;

static int check(int rc, const char *what)
{
    if (rc != MERIDIAN_SUCCESS) {
        printf("FAIL: %s: %s\n", what, meridian_strerror(rc));
    }
    return rc == MERIDIAN_SUCCESS;
}

/* ------------------------------------------------------------ expected */

static void print_coord(FILE *out, const meridian_coord_t *c)
{
    fprintf(out, " %s:(",
            c->view == MERIDIAN_COORD_LOGICAL_VIEW    ? "logical"
            : c->view == MERIDIAN_COORD_PHYSICAL_VIEW ? "physical"
                                                      : "undef");
    for (size_t d = 0; d < c->dims; ++d) {
        fprintf(out, "%s%u", d == 0 ? "" : ",", c->coord[d]);
    }
    fprintf(out, ")");
}

static void free_strings(char **strings, size_t count)
{
    for (size_t i = 0; i < count; ++i) {
        free(strings[i]);
    }
    free(strings);
}

/* What rank `rank` on `node` must read, from the assignments and coord. */
static int expect(FILE *out, const meridian_pnet_job_t *job, uint32_t rank, const char *node)
{
    char **ids = NULL;
    size_t nids = 0;
    if (!check(meridian_pnet_request_ids(job, &ids, &nids), "meridian_pnet_request_ids")) {
        return 0;
    }
    for (size_t i = 0; i < nids; ++i) {
        meridian_pnet_assignment_t *a = NULL;
        if (!check(meridian_pnet_get_assignment(job, ids[i], rank, &a),
                   "meridian_pnet_get_assignment")) {
            free_strings(ids, nids);
            return 0;
        }
        fprintf(out, "%u request %s nettype=%s ports=", rank, ids[i], a->type);
        for (size_t p = 0; p < a->port_count; ++p) {
            fprintf(out, "%s%u", p == 0 ? "" : ",", a->ports[p]);
        }
        fprintf(out, "\n");
        meridian_pnet_assignment_free(a);
    }
    free_strings(ids, nids);

    char **endpoints = NULL;
    size_t nendpoints = 0;
    if (!check(meridian_coord_get_endpoints(rank, &endpoints, &nendpoints),
               "meridian_coord_get_endpoints")) {
        return 0;
    }
    if (nendpoints > 0) {
        fprintf(out, "%u meridian.net.endpt ", rank);
        for (size_t e = 0; e < nendpoints; ++e) {
            fprintf(out, "%s%s", e == 0 ? "" : ",", endpoints[e]);
        }
        fprintf(out, "\n");
    }
    free_strings(endpoints, nendpoints);

    meridian_coord_t *coords = NULL;
    size_t ncoords = 0;
    if (!check(meridian_coord_get_coordinates(rank, NULL, MERIDIAN_COORD_LOGICAL_VIEW, &coords,
                                              &ncoords),
               "meridian_coord_get_coordinates")) {
        return 0;
    }
    fprintf(out, "%u meridian.net.coord", rank);
    for (size_t c = 0; c < ncoords; ++c) {
        print_coord(out, &coords[c]);
    }
    fprintf(out, "\n");
    meridian_coord_free(coords, ncoords);

    /* The process's endpoints on each NIC of its node, plane by plane. */
    meridian_coord_plane_nics_t *planes = NULL;
    size_t nplanes = 0;
    if (!check(meridian_coord_get_plane_nics(&planes, &nplanes), "meridian_coord_get_plane_nics")) {
        return 0;
    }
    const size_t prefix = strlen(node);
    int ok = 1;
    for (size_t p = 0; p < nplanes && ok; ++p) {
        for (size_t n = 0; n < planes[p].count && ok; ++n) {
            const char *nic = planes[p].nics[n];
            if (strncmp(nic, node, prefix) != 0 || nic[prefix] != ':') {
                continue;
            }
            char **on_nic = NULL;
            size_t non_nic = 0;
            ok = check(meridian_coord_get_nic_endpoints(rank, nic, &on_nic, &non_nic),
                       "meridian_coord_get_nic_endpoints");
            for (size_t e = 0; e < non_nic; ++e) {
                fprintf(out, "%u fab.endpt %s %s %s\n", rank, nic, nic + prefix + 1, on_nic[e]);
            }
            free_strings(on_nic, non_nic);
        }
    }
    meridian_coord_plane_nics_free(planes, nplanes);
    return ok;
}

static void quiet(meridian_severity_t severity, const char *text, void *context)
{
    (void)severity;
    (void)text;
    (void)context;
}

/* What every process must read of `node` (where process `rank` runs): its
 * NICs' coordinates in every view their plane gives. */
static int expect_node(FILE *out, const char *node, uint32_t rank)
{
    meridian_coord_plane_nics_t *planes = NULL;
    size_t nplanes = 0;
    if (!check(meridian_coord_get_plane_nics(&planes, &nplanes), "meridian_coord_get_plane_nics")) {
        return 0;
    }
    const meridian_coord_view_t views[] = {MERIDIAN_COORD_LOGICAL_VIEW,
                                           MERIDIAN_COORD_PHYSICAL_VIEW};
    uint32_t *dims[2] = {NULL, NULL};
    size_t ndims[2] = {0, 0};
    int ok = check(meridian_coord_get_dims(NULL, views[0], &dims[0], &ndims[0]),
                   "meridian_coord_get_dims");
    /* No plane in the physical view is an answer here, not an error. */
    meridian_message_sink_fn sink = meridian_set_message_sink(quiet, NULL);
    const int rc = meridian_coord_get_dims(NULL, views[1], &dims[1], &ndims[1]);
    meridian_set_message_sink(sink, NULL);
    ok = ok && (rc == MERIDIAN_ERR_NOT_SUPPORTED || check(rc, "meridian_coord_get_dims"));
    const size_t prefix = strlen(node);
    for (size_t p = 0; p < nplanes && ok; ++p) {
        for (size_t n = 0; n < planes[p].count && ok; ++n) {
            const char *nic = planes[p].nics[n];
            if (strncmp(nic, node, prefix) != 0 || nic[prefix] != ':') {
                continue;
            }
            for (size_t v = 0; v < 2 && ok; ++v) {
                if (p >= ndims[v] || dims[v][p] == 0) {
                    continue; /* the plane has no such view */
                }
                meridian_coord_t *coord = NULL;
                ok = check(meridian_coord_get_nic_coordinate(rank, nic, views[v], &coord),
                           "meridian_coord_get_nic_coordinate");
                if (ok) {
                    fprintf(out, "node %s fab.coord %zu %s %s", node, p, nic, nic + prefix + 1);
                    print_coord(out, coord);
                    fprintf(out, "\n");
                }
                meridian_coord_free(coord, 1);
            }
        }
    }
    free(dims[0]);
    free(dims[1]);
    meridian_coord_plane_nics_free(planes, nplanes);
    return ok;
}

/* ------------------------------------------------------------ PMIx */

static volatile int callbacks_done = 0;
static volatile pmix_status_t callback_status = PMIX_SUCCESS;

static void op_done(pmix_status_t status, void *cbdata)
{
    (void)cbdata;
    callback_status = status;
    __atomic_store_n(&callbacks_done, 1, __ATOMIC_RELEASE);
}

/* Waits (bounded) for op_done. */
static pmix_status_t wait_op(pmix_status_t rc, const char *what)
{
    if (rc == PMIX_OPERATION_SUCCEEDED) {
        return PMIX_SUCCESS;
    }
    if (rc == PMIX_SUCCESS) {
        struct timespec tick = {0, 1000000};
        for (int i = 0;
             i < WAIT_SECONDS * 1000 && !__atomic_load_n(&callbacks_done, __ATOMIC_ACQUIRE); ++i) {
            nanosleep(&tick, NULL);
        }
        rc =
            __atomic_load_n(&callbacks_done, __ATOMIC_ACQUIRE) ? callback_status : PMIX_ERR_TIMEOUT;
    }
    __atomic_store_n(&callbacks_done, 0, __ATOMIC_RELEASE);
    if (rc != PMIX_SUCCESS) {
        printf("FAIL: %s: %s\n", what, PMIx_Error_string(rc));
    }
    return rc;
}

/* `key` as a data array of pmix_info_t: `first`, then `results` (moved,
 * not copied). */
static void load_array(pmix_info_t *slot, const char *key, const pmix_info_t *first,
                       struct pmix_info *results, size_t nresults)
{
    pmix_data_array_t *data;
    PMIX_DATA_ARRAY_CREATE(data, nresults + 1, PMIX_INFO);
    pmix_info_t *items = (pmix_info_t *)data->array;
    PMIX_INFO_XFER(&items[0], first);
    if (nresults > 0) {
        memcpy(&items[1], results, nresults * sizeof(pmix_info_t));
    }
    free(results);
    PMIX_LOAD_KEY(slot->key, key);
    slot->value.type = PMIX_DATA_ARRAY;
    slot->value.data.darray = data;
}

/* The job's namespace: its size, each node's data and each process's. */
static int register_job(const char *nspace, const meridian_pnet_job_t *job, const char **nodes,
                        size_t nnodes, uint32_t nprocs)
{
    pmix_info_t *info;
    const size_t ninfo = 2 + nnodes + nprocs;
    PMIX_INFO_CREATE(info, ninfo);
    PMIX_INFO_LOAD(&info[0], PMIX_JOB_SIZE, &nprocs, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], PMIX_LOCAL_SIZE, &nprocs, PMIX_UINT32);
    int ok = 1;
    for (size_t n = 0; n < nnodes && ok; ++n) {
        struct pmix_info *results = NULL;
        size_t nresults = 0;
        ok = check(meridian_pnet_pmix_node_data(job, nodes[n], &results, &nresults),
                   "meridian_pnet_pmix_node_data");
        if (ok) {
            pmix_info_t host;
            PMIX_INFO_LOAD(&host, PMIX_HOSTNAME, nodes[n], PMIX_STRING);
            load_array(&info[2 + n], PMIX_NODE_INFO_ARRAY, &host, results, nresults);
            PMIX_INFO_DESTRUCT(&host);
        }
    }
    for (uint32_t rank = 0; rank < nprocs && ok; ++rank) {
        struct pmix_info *results = NULL;
        size_t nresults = 0;
        ok = check(meridian_pnet_pmix_proc_data(job, rank, &results, &nresults),
                   "meridian_pnet_pmix_proc_data");
        if (ok) {
            pmix_info_t r;
            pmix_rank_t value = rank;
            PMIX_INFO_LOAD(&r, PMIX_RANK, &value, PMIX_PROC_RANK);
            load_array(&info[2 + nnodes + rank], PMIX_PROC_DATA, &r, results, nresults);
        }
    }
    if (ok) {
        ok = wait_op(PMIx_server_register_nspace(nspace, (int)nprocs, info, ninfo, op_done, NULL),
                     "PMIx_server_register_nspace") == PMIX_SUCCESS;
    }
    PMIX_INFO_FREE(info, ninfo);
    return ok;
}

/* An environment as PMIx_server_setup_fork leaves it (NULL-terminated). */
static void free_env(char **env)
{
    for (size_t i = 0; env[i] != NULL; ++i) {
        free(env[i]);
    }
    free(env);
}

/* Starts every process; waits for all, bounded.  Returns how many failed. */
static int launch(const char *nspace, uint32_t nprocs, const char *client, char **ids, size_t nids,
                  const char **nodes, size_t nnodes)
{
    pid_t pids[MAX_PROCS];
    uint32_t started = 0;
    int failed = 0;
    for (uint32_t rank = 0; rank < nprocs; ++rank) {
        pmix_proc_t proc;
        PMIX_LOAD_PROCID(&proc, nspace, rank);
        if (wait_op(PMIx_server_register_client(&proc, getuid(), getgid(), NULL, op_done, NULL),
                    "PMIx_server_register_client") != PMIX_SUCCESS) {
            ++failed;
            break;
        }
        size_t nenv = 0;
        while (environ[nenv] != NULL) {
            ++nenv;
        }
        char **env = calloc(nenv + 1, sizeof(char *));
        if (env == NULL) {
            printf("FAIL: out of memory\n");
            ++failed;
            break;
        }
        for (size_t i = 0; i < nenv; ++i) {
            env[i] = strdup(environ[i]);
        }
        const pmix_status_t rc = PMIx_server_setup_fork(&proc, &env);
        if (rc != PMIX_SUCCESS) {
            printf("FAIL: PMIx_server_setup_fork: %s\n", PMIx_Error_string(rc));
            free_env(env);
            ++failed;
            break;
        }
        /* pmix_launched ID... node=NODE... */
        char *argv[2 + MAX_NODES + 8] = {(char *)client};
        size_t argc = 1;
        for (size_t i = 0; i < nids && i < 8; ++i) {
            argv[argc++] = ids[i];
        }
        char node_args[MAX_NODES][80];
        for (size_t n = 0; n < nnodes; ++n) {
            snprintf(node_args[n], sizeof node_args[n], "node=%s", nodes[n]);
            argv[argc++] = node_args[n];
        }
        fflush(stdout);
        const pid_t pid = fork();
        if (pid == 0) {
            execve(client, argv, env);
            printf("FAIL: exec %s: %s\n", client, strerror(errno));
            _exit(127);
        }
        free_env(env);
        if (pid < 0) {
            printf("FAIL: fork: %s\n", strerror(errno));
            ++failed;
            break;
        }
        pids[started++] = pid;
    }
    /* Bounded wait; whatever is left after it is killed. */
    uint32_t running = started;
    struct timespec tick = {0, 10000000};
    for (int i = 0; i < WAIT_SECONDS * 100 && running > 0; ++i) {
        for (uint32_t p = 0; p < started; ++p) {
            int status;
            if (pids[p] > 0 && waitpid(pids[p], &status, WNOHANG) == pids[p]) {
                if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                    printf("FAIL: process %u ended with status %d\n", p, status);
                    ++failed;
                }
                pids[p] = 0;
                --running;
            }
        }
        nanosleep(&tick, NULL);
    }
    for (uint32_t p = 0; p < started; ++p) {
        if (pids[p] > 0) {
            printf("FAIL: process %u still running after %d s; killed\n", p, WAIT_SECONDS);
            kill(pids[p], SIGKILL);
            waitpid(pids[p], NULL, 0);
            ++failed;
        }
    }
    return failed;
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        printf("FAIL: usage: %s FABRIC-FILE REQUESTS HOSTS EXPECTED TMPDIR CLIENT\n", argv[0]);
        return 2;
    }
    const char *fabric_file = argv[1], *request_text = argv[2], *expected = argv[4];
    const char *tmpdir = argv[5], *client = argv[6];
    const char *nodes[MAX_NODES];
    size_t nnodes = 0;
    char *hosts = strdup(argv[3]);
    for (char *save = NULL, *node = strtok_r(hosts, ",", &save); node != NULL && nnodes < MAX_NODES;
         node = strtok_r(NULL, ",", &save)) {
        nodes[nnodes++] = node;
    }
    const uint32_t nprocs = (uint32_t)(nnodes * PROCS_PER_NODE);
    meridian_pnet_proc_t procs[MAX_PROCS];
    for (uint32_t rank = 0; rank < nprocs; ++rank) {
        /* local rank i on package i (two packages per node) */
        procs[rank] = (meridian_pnet_proc_t){rank / PROCS_PER_NODE, rank % PROCS_PER_NODE,
                                             (int32_t)(rank % PROCS_PER_NODE)};
    }
    pmix_nspace_t nspace;
    PMIX_LOAD_NSPACE(nspace, "meridian-launched");

    int ok = check(meridian_init(NULL, NULL), "meridian_init");
    meridian_pnet_fabric_t *fabric = NULL;
    meridian_pnet_requests_t *requests = NULL;
    meridian_pnet_job_t *job = NULL;
    ok = ok && check(meridian_pnet_fabric_read(fabric_file, &fabric), "meridian_pnet_fabric_read");
    ok = ok && check(meridian_pnet_requests_new(&requests), "meridian_pnet_requests_new");
    ok = ok && check(meridian_pnet_requests_parse(requests, request_text, "requests"),
                     "meridian_pnet_requests_parse");
    ok = ok &&
         check(meridian_pnet_job_new(fabric, nspace, nodes, nnodes, procs, nprocs, requests, &job),
               "meridian_pnet_job_new");
    ok = ok && check(meridian_pnet_allocate(job), "meridian_pnet_allocate");
    for (size_t n = 0; n < nnodes && ok; ++n) {
        ok = check(meridian_pnet_setup_local_network(job, nodes[n]),
                   "meridian_pnet_setup_local_network");
    }
    FILE *out = ok ? fopen(expected, "w") : NULL;
    if (ok && out == NULL) {
        printf("FAIL: %s: %s\n", expected, strerror(errno));
        ok = 0;
    }
    for (uint32_t rank = 0; rank < nprocs && ok; ++rank) {
        ok = expect(out, job, rank, nodes[procs[rank].node]);
    }
    for (size_t n = 0; n < nnodes && ok; ++n) {
        ok = expect_node(out, nodes[n], (uint32_t)(n * PROCS_PER_NODE));
    }
    if (out != NULL) {
        fclose(out);
    }

    int server = 0;
    if (ok) {
        pmix_server_module_t module;
        memset(&module, 0, sizeof module);
        pmix_info_t info[2];
        PMIX_INFO_CONSTRUCT(&info[0]);
        PMIX_INFO_CONSTRUCT(&info[1]);
        PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
        PMIX_INFO_LOAD(&info[1], PMIX_SYSTEM_TMPDIR, tmpdir, PMIX_STRING);
        const pmix_status_t rc = PMIx_server_init(&module, info, 2);
        PMIX_INFO_DESTRUCT(&info[0]);
        PMIX_INFO_DESTRUCT(&info[1]);
        if (rc != PMIX_SUCCESS) {
            printf("FAIL: PMIx_server_init: %s\n", PMIx_Error_string(rc));
            ok = 0;
        } else {
            server = 1;
        }
    }
    ok = ok && register_job(nspace, job, nodes, nnodes, nprocs);
    char **ids = NULL;
    size_t nids = 0;
    ok = ok && check(meridian_pnet_request_ids(job, &ids, &nids), "meridian_pnet_request_ids");
    ok = ok && launch(nspace, nprocs, client, ids, nids, nodes, nnodes) == 0;
    free_strings(ids, nids);
    if (server) {
        PMIx_server_finalize();
    }
    meridian_pnet_job_free(job);
    meridian_pnet_requests_free(requests);
    meridian_pnet_fabric_free(fabric);
    meridian_finalize();
    free(hosts);
    return ok ? 0 : 1;
}
