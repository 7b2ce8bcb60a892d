/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a process of a large job pays for its network setup, by where the
 * setup runs (run-startup-bench.sh prints the table):
 *
 *   launcher   the pnet plugin for libpmix set the node up in this PMIx
 *              server (its setup_local_support is "the daemon"), the
 *              process only reads
 *   leader     the node's lowest rank sets up the node, the others read
 *   in-job     every process allocates the whole job (bench_alloc gives
 *              that figure in the same run)
 *   pmix       the floor under the launcher path, without Meridian: the
 *              process makes only the PMIx calls any reader of its results
 *              makes (gets its request entry, endpoints and coordinate,
 *              puts them for other hosts' processes, commits, registers
 *              for the coordinates-updated event) on the same node set up
 *              by the same plugin
 *
 * This program is a PMIx server standing for one node of a job of SIZE
 * processes, PER_NODE of them on this node: it registers the job (PMIx's job
 * size is SIZE, the node's peers are ranks 0..PER_NODE-1), runs the
 * plugin's setup for the launcher path, and starts the node's PER_NODE
 * processes (this program again, --client).  Each process connects to
 * PMIx, then times meridian_init and its first answered query (its own
 * endpoints) and the growth of its peak memory over them.
 *
 * Usage: bench_startup [--sizes 1000,10000,...] [--per-node 10] [--start K]
 *                      [--paths launcher,leader,pmix] [--runs 3]
 * --start starts only the node's first K processes (default all of them):
 * the job still has PER_NODE processes on the node, the plugin and the
 * leader still set up all of them, and the figures are those of the K.
 * libpmix 4.2 takes each process of a job of 10^6 about as long to take in
 * the job's maps at its first gets as the server to register the job
 * (minutes on a 2-core machine, before the clock starts): K = 3 (the
 * leader and two readers) keeps such a run within an hour per path.
 * Prints one line per path and size:
 *   PATH SIZE WALL_US_MEDIAN WALL_US_MAX CPU_US_MEDIAN CPU_US_MAX KIB_MAX DAEMON_US
 *   KIB_MEDIAN ANON_KIB_MEDIAN
 * (DAEMON_US -1 for the leader path; medians over the runs; KIB the growth
 * of the peak resident size, ANON_KIB of the private memory).  The pmix
 * path's request entry is the one of id "data" (the run script's).  Needs the
 * plugin in PMIX_MCA_mca_base_component_path for the launcher path, and
 * Meridian's parameters (pnet_base_requests, pnet_tcp_*) in the
 * environment.
 *
 * BENCH_STARTUP_WAIT bounds each wait for libpmix and for the node's
 * processes (seconds, default 900); a phase that takes 10 s or more is
 * said on stderr.
 *
 * BENCH_STARTUP_WRAP, a command and its arguments split at spaces, starts the
 * node's last process (a reader in every path) under that command, e.g. a
 * profiler (contrib/scripts/startup-order.sh uses it).
 */
#include <errno.h>
#include <pmix.h>
#include <pmix_server.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <meridian/mca/coord/base/base.h>
#include <meridian/mca/runtime/meridian.h>
#include <meridian/meridian_config.h>

#define MAX_PER_NODE 64
#define MAX_RUNS 15
/* How long the server waits for an operation of libpmix's or for a
 * process, unless BENCH_STARTUP_WAIT says otherwise (seconds): libpmix 4.2
 * takes minutes to register a job of 10^6 processes on a 2-core machine, and
 * each process as long to take in the job's maps at its PMIx_Init. */
#define WAIT_SECONDS 900

static double wait_seconds(void)
{
    const char *text = getenv("BENCH_STARTUP_WAIT");
    char *end = NULL;
    const double seconds = text != NULL ? strtod(text, &end) : 0;
    return end != NULL && end != text && *end == '\0' && seconds > 0 ? seconds : WAIT_SECONDS;
}

extern char **environ;

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static double cpu_us(void)
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (double)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6 +
           (double)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

/* A size from /proc/self/status in KiB: the process's own peak resident
 * size (VmHWM; getrusage's ru_maxrss is no use here, since Linux carries it
 * over fork and exec, so a process started by a server bigger than itself
 * would report the server's peak) and its private memory (RssAnon: the
 * peak also counts the pages of shared libraries' code it ran, which every
 * process of the node shares). */
static long status_kib(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (f == NULL) {
        return -1;
    }
    char line[256];
    const size_t length = strlen(field);
    long kib = -1;
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, field, length) == 0 && line[length] == ':') {
            kib = strtol(line + length + 1, NULL, 10);
            break;
        }
    }
    fclose(f);
    return kib;
}

/* ------------------------------------------------------------ a process */

static void event_heard(size_t id, pmix_status_t status, const pmix_proc_t *source,
                        pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                        pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)status, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

static void event_registered(pmix_status_t status, size_t id, void *cbdata)
{
    (void)status, (void)id, (void)cbdata;
}

/* The pmix path: what any reader of the launcher's results pays in PMIx
 * calls, with nothing of Meridian's.  Whether each value is there is
 * checked, so the floor is not measured on an empty node. */
static int pmix_calls_only(const pmix_proc_t *me)
{
    const char *keys[] = {"data", "meridian.net.endpt", "meridian.net.coord"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; ++i) {
        pmix_value_t *value = NULL;
        const pmix_status_t rc = PMIx_Get(me, keys[i], NULL, 0, &value);
        if (rc != PMIX_SUCCESS) {
            fprintf(stderr, "bench_startup client: PMIx_Get %s: %s\n", keys[i],
                    PMIx_Error_string(rc));
            return 0;
        }
        const pmix_status_t put = PMIx_Put(PMIX_GLOBAL, keys[i], value);
        PMIX_VALUE_RELEASE(value);
        if (put != PMIX_SUCCESS) {
            fprintf(stderr, "bench_startup client: PMIx_Put %s: %s\n", keys[i],
                    PMIx_Error_string(put));
            return 0;
        }
    }
    if (PMIx_Commit() != PMIX_SUCCESS) {
        fprintf(stderr, "bench_startup client: PMIx_Commit failed\n");
        return 0;
    }
    pmix_status_t code = MERIDIAN_NETWORK_COORDS_UPDATED;
    PMIx_Register_event_handler(&code, 1, NULL, 0, event_heard, event_registered, NULL);
    return 1;
}

static int client(void)
{
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "bench_startup client: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    /* What any PMIx program pays on its first gets (libpmix unpacks the
     * job's maps) is not Meridian's: paid before the clock starts, as an MPI
     * library does at its init. */
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *value = NULL;
    if (PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &value) == PMIX_SUCCESS) {
        PMIX_VALUE_RELEASE(value);
    }
    const char *own[] = {PMIX_LOCAL_RANK, PMIX_HOSTNAME};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; ++i) {
        value = NULL;
        if (PMIx_Get(&me, own[i], NULL, 0, &value) == PMIX_SUCCESS) {
            PMIX_VALUE_RELEASE(value);
        }
    }
    const int pmix_only = getenv("BENCH_STARTUP_PMIX_ONLY") != NULL;
    const long kib_before = status_kib("VmHWM");
    const long anon_before = status_kib("RssAnon");
    const double cpu_start = cpu_us();
    const double start = now_us();
    int ok;
    char **endpoints = NULL;
    size_t count = 0;
    if (pmix_only) {
        ok = pmix_calls_only(&me);
    } else {
        ok = meridian_init(NULL, NULL) == MERIDIAN_SUCCESS;
        ok = ok && meridian_coord_get_endpoints(me.rank, &endpoints, &count) == MERIDIAN_SUCCESS &&
             count > 0;
    }
    const double took = now_us() - start;
    const double cpu = cpu_us() - cpu_start;
    const long kib = status_kib("VmHWM") - kib_before;
    const long anon = status_kib("RssAnon") - anon_before;
    for (size_t i = 0; i < count; ++i) {
        free(endpoints[i]);
    }
    free(endpoints);
    const char *out = getenv("BENCH_STARTUP_OUT");
    if (ok && out != NULL) {
        char path[4096];
        snprintf(path, sizeof path, "%s.%u", out, me.rank);
        FILE *f = fopen(path, "w");
        if (f != NULL) {
            fprintf(f, "%.1f %.1f %ld %ld\n", took, cpu, kib, anon);
            fclose(f);
        }
    }
    if (!pmix_only) {
        meridian_finalize();
    }
    PMIx_Finalize(NULL, 0);
    return ok ? 0 : 1;
}

/* ------------------------------------------------------------ the node's server */

static volatile int op_finished = 0;
static volatile pmix_status_t op_status = PMIX_SUCCESS;
static pmix_info_t *setup_info = NULL;
static size_t setup_ninfo = 0;

static void op_done(pmix_status_t status, void *cbdata)
{
    (void)cbdata;
    op_status = status;
    __atomic_store_n(&op_finished, 1, __ATOMIC_RELEASE);
}

static void setup_done(pmix_status_t status, pmix_info_t info[], size_t ninfo, void *provided,
                       pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)provided;
    if (status == PMIX_SUCCESS && ninfo > 0) {
        PMIX_INFO_CREATE(setup_info, ninfo);
        for (size_t i = 0; i < ninfo; ++i) {
            PMIX_INFO_XFER(&setup_info[i], &info[i]);
        }
        setup_ninfo = ninfo;
    }
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, cbdata);
    }
    op_done(status, NULL);
}

static pmix_status_t wait_op(pmix_status_t rc, const char *what)
{
    if (rc == PMIX_OPERATION_SUCCEEDED) {
        return PMIX_SUCCESS;
    }
    if (rc == PMIX_SUCCESS) {
        const struct timespec tick = {0, 100000};
        const double until = now_us() + wait_seconds() * 1e6;
        while (!__atomic_load_n(&op_finished, __ATOMIC_ACQUIRE) && now_us() < until) {
            nanosleep(&tick, NULL);
        }
        rc = __atomic_load_n(&op_finished, __ATOMIC_ACQUIRE) ? op_status : PMIX_ERR_TIMEOUT;
    }
    __atomic_store_n(&op_finished, 0, __ATOMIC_RELEASE);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "bench_startup: %s: %s\n", what, PMIx_Error_string(rc));
    }
    return rc;
}

/* A phase that took 10 s or more (libpmix's own work at 10^6) is said on
 * stderr, so that a long run shows where it is. */
static void report_slow(const char *nspace, const char *what, double since_us)
{
    const double seconds = (now_us() - since_us) / 1e6;
    if (seconds >= 10) {
        fprintf(stderr, "bench_startup: %s: %s after %.0f s\n", nspace, what, seconds);
    }
}

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *values, size_t count)
{
    qsort(values, count, sizeof *values, compare_doubles);
    return count == 0  ? -1
           : count % 2 ? values[count / 2]
                       : (values[count / 2 - 1] + values[count / 2]) / 2;
}

/* The job, as the launcher registers it with this node's server. */
static int register_job(const char *nspace, unsigned size, unsigned per_node, const char *host)
{
    char peers[MAX_PER_NODE * 4] = "";
    for (unsigned r = 0; r < per_node; ++r) {
        size_t used = strlen(peers);
        snprintf(peers + used, sizeof peers - used, "%s%u", r == 0 ? "" : ",", r);
    }
    /* The job's nodes (this host first, the rest made up) and which ranks
     * each runs, as every launcher gives them. */
    const unsigned nodes = (size + per_node - 1) / per_node;
    size_t length = strlen(host) + 2 + (size_t)nodes * 16;
    char *node_list = malloc(length);
    char *proc_list = malloc((size_t)size * 12 + 16);
    if (node_list == NULL || proc_list == NULL) {
        free(node_list);
        free(proc_list);
        return 0;
    }
    size_t used = (size_t)snprintf(node_list, length, "%s", host);
    for (unsigned n = 1; n < nodes; ++n) {
        used += (size_t)snprintf(node_list + used, length - used, ",bench-n%07u", n);
    }
    used = 0;
    for (unsigned r = 0; r < size; ++r) {
        used += (size_t)sprintf(proc_list + used, "%s%u",
                                r == 0 ? "" : (r % per_node == 0 ? ";" : ","), r);
    }
    char *node_map = NULL, *proc_map = NULL;
    if (PMIx_generate_regex(node_list, &node_map) != PMIX_SUCCESS ||
        PMIx_generate_ppn(proc_list, &proc_map) != PMIX_SUCCESS) {
        fprintf(stderr, "bench_startup: PMIx cannot make the job's maps\n");
        free(node_list);
        free(proc_list);
        return 0;
    }
    free(node_list);
    free(proc_list);
    const size_t ninfo = 5 + per_node;
    pmix_info_t *info;
    PMIX_INFO_CREATE(info, ninfo);
    uint32_t job_size = size, local_size = per_node;
    PMIX_INFO_LOAD(&info[0], PMIX_JOB_SIZE, &job_size, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], PMIX_LOCAL_SIZE, &local_size, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[2], PMIX_LOCAL_PEERS, peers, PMIX_STRING);
    /* The maps are PMIx's regular expressions (strings with a marker). */
    PMIX_INFO_LOAD(&info[3], PMIX_NODE_MAP, node_map, PMIX_REGEX);
    PMIX_INFO_LOAD(&info[4], PMIX_PROC_MAP, proc_map, PMIX_REGEX);
    free(node_map);
    free(proc_map);
    for (unsigned r = 0; r < per_node; ++r) {
        pmix_data_array_t *array;
        PMIX_DATA_ARRAY_CREATE(array, 3, PMIX_INFO);
        pmix_info_t *items = array->array;
        pmix_rank_t rank = r;
        uint16_t local = (uint16_t)r;
        PMIX_INFO_LOAD(&items[0], PMIX_RANK, &rank, PMIX_PROC_RANK);
        PMIX_INFO_LOAD(&items[1], PMIX_LOCAL_RANK, &local, PMIX_UINT16);
        PMIX_INFO_LOAD(&items[2], PMIX_HOSTNAME, host, PMIX_STRING);
        PMIX_LOAD_KEY(info[5 + r].key, PMIX_PROC_DATA);
        info[5 + r].value.type = PMIX_DATA_ARRAY;
        info[5 + r].value.data.darray = array;
    }
    const int ok =
        wait_op(PMIx_server_register_nspace(nspace, (int)per_node, info, ninfo, op_done, NULL),
                "PMIx_server_register_nspace") == PMIX_SUCCESS;
    PMIX_INFO_FREE(info, ninfo);
    return ok;
}

/* In a child: exec WRAP's words, then this program as a process. */
static void exec_wrapped(const char *wrap, const char *self)
{
    char *words = strdup(wrap);
    if (words == NULL) {
        return;
    }
    char *argv[64];
    size_t argc = 0;
    for (char *save = NULL, *word = strtok_r(words, " ", &save); word != NULL && argc < 61;
         word = strtok_r(NULL, " ", &save)) {
        argv[argc++] = word;
    }
    argv[argc++] = (char *)self;
    argv[argc++] = (char *)"--client";
    argv[argc] = NULL;
    execvp(argv[0], argv);
}

/* Starts the node's processes and waits for them; their figures are in
 * OUT.RANK.  Returns whether all of them ran. */
static int run_processes(const char *self, const char *nspace, unsigned start, int leader,
                         int pmix_only, const char *out)
{
    pid_t pids[MAX_PER_NODE];
    unsigned started = 0;
    int ok = 1;
    for (unsigned r = 0; r < start && ok; ++r) {
        pmix_proc_t proc;
        PMIX_LOAD_PROCID(&proc, nspace, r);
        if (wait_op(PMIx_server_register_client(&proc, getuid(), getgid(), NULL, op_done, NULL),
                    "PMIx_server_register_client") != PMIX_SUCCESS) {
            ok = 0;
            break;
        }
        size_t nenv = 0;
        while (environ[nenv] != NULL) {
            ++nenv;
        }
        char **env = calloc(nenv + 3, sizeof(char *));
        for (size_t i = 0; env != NULL && i < nenv; ++i) {
            env[i] = strdup(environ[i]);
        }
        if (env == NULL || PMIx_server_setup_fork(&proc, &env) != PMIX_SUCCESS) {
            fprintf(stderr, "bench_startup: PMIx_server_setup_fork failed\n");
            ok = 0;
            break;
        }
        const pid_t pid = fork();
        if (pid == 0) {
            setenv("BENCH_STARTUP_OUT", out, 1);
            setenv(MERIDIAN_MCA_ENV_PREFIX_STRING "pnet_base_node_leader", leader ? "yes" : "no",
                   1);
            if (pmix_only) {
                setenv("BENCH_STARTUP_PMIX_ONLY", "1", 1);
            }
            for (size_t i = 0; env[i] != NULL; ++i) {
                putenv(env[i]);
            }
            const char *wrap = getenv("BENCH_STARTUP_WRAP");
            if (wrap != NULL && *wrap != '\0' && r + 1 == start) {
                exec_wrapped(wrap, self);
            } else {
                execl(self, self, "--client", (char *)NULL);
            }
            fprintf(stderr, "bench_startup: exec %s: %s\n", self, strerror(errno));
            _exit(127);
        }
        if (pid < 0) {
            ok = 0;
            break;
        }
        for (size_t i = 0; env[i] != NULL; ++i) {
            free(env[i]);
        }
        free(env);
        pids[started++] = pid;
    }
    const double until = now_us() + wait_seconds() * 1e6;
    for (unsigned p = 0; p < started; ++p) {
        int status = 0;
        while (waitpid(pids[p], &status, WNOHANG) == 0) {
            if (now_us() > until) {
                kill(pids[p], SIGKILL);
            }
            usleep(1000);
        }
        ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    return ok && started == start;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--client") == 0) {
        return client();
    }
    char sizes_text[256] = "1000,10000,100000,1000000";
    char paths_text[64] = "launcher,leader";
    unsigned per_node = 10, runs = 3, start = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--sizes") == 0) {
            snprintf(sizes_text, sizeof sizes_text, "%s", argv[i + 1]);
        } else if (strcmp(argv[i], "--paths") == 0) {
            snprintf(paths_text, sizeof paths_text, "%s", argv[i + 1]);
        } else if (strcmp(argv[i], "--per-node") == 0) {
            per_node = (unsigned)strtoul(argv[i + 1], NULL, 10);
        } else if (strcmp(argv[i], "--start") == 0) {
            start = (unsigned)strtoul(argv[i + 1], NULL, 10);
        } else if (strcmp(argv[i], "--runs") == 0) {
            runs = (unsigned)strtoul(argv[i + 1], NULL, 10);
        } else {
            fprintf(stderr, "bench_startup: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (start == 0) {
        start = per_node;
    }
    if (per_node == 0 || per_node > MAX_PER_NODE || runs == 0 || runs > MAX_RUNS ||
        start > per_node) {
        fprintf(stderr, "bench_startup: --per-node 1-%d, --start 1-PER_NODE, --runs 1-%d\n",
                MAX_PER_NODE, MAX_RUNS);
        return 2;
    }
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    char scratch[] = "/tmp/bench-startup.XXXXXX";
    if (mkdtemp(scratch) == NULL) {
        perror("bench_startup: mkdtemp");
        return 1;
    }
    pmix_info_t info;
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_SERVER_TMPDIR, scratch, PMIX_STRING);
    pmix_server_module_t module;
    memset(&module, 0, sizeof module);
    pmix_status_t rc = PMIx_server_init(&module, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "bench_startup: PMIx_server_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    int failed = 0;
    char *paths_save = NULL;
    for (char *path = strtok_r(paths_text, ",", &paths_save); path != NULL && !failed;
         path = strtok_r(NULL, ",", &paths_save)) {
        const int leader = strcmp(path, "leader") == 0;
        const int pmix_only = strcmp(path, "pmix") == 0;
        if (!leader && !pmix_only && strcmp(path, "launcher") != 0) {
            fprintf(stderr, "bench_startup: unknown path %s (launcher, leader, pmix)\n", path);
            failed = 1;
            break;
        }
        char sizes_copy[256];
        snprintf(sizes_copy, sizeof sizes_copy, "%s", sizes_text);
        char *sizes_save = NULL;
        for (char *size_text = strtok_r(sizes_copy, ",", &sizes_save); size_text != NULL && !failed;
             size_text = strtok_r(NULL, ",", &sizes_save)) {
            const unsigned size = (unsigned)strtoul(size_text, NULL, 10);
            double medians[MAX_RUNS], maxima[MAX_RUNS], cpu_medians[MAX_RUNS], cpu_maxima[MAX_RUNS],
                daemons[MAX_RUNS];
            double kib_max = 0, kib_medians[MAX_RUNS], anon_medians[MAX_RUNS];
            for (unsigned run = 0; run < runs && !failed; ++run) {
                char nspace[PMIX_MAX_NSLEN + 1];
                snprintf(nspace, sizeof nspace, "bench-%s-%u-%u", path, size, run);
                const double registering = now_us();
                if (!register_job(nspace, size, per_node, host)) {
                    failed = 1;
                    break;
                }
                report_slow(nspace, "libpmix registered the job", registering);
                daemons[run] = -1;
                if (!leader) {
                    if (wait_op(PMIx_server_setup_application(nspace, NULL, 0, setup_done, NULL),
                                "PMIx_server_setup_application") != PMIX_SUCCESS) {
                        failed = 1;
                        break;
                    }
                    const double t0 = now_us();
                    if (wait_op(PMIx_server_setup_local_support(nspace, setup_info, setup_ninfo,
                                                                op_done, NULL),
                                "PMIx_server_setup_local_support") != PMIX_SUCCESS) {
                        failed = 1;
                        break;
                    }
                    daemons[run] = now_us() - t0;
                }
                char out[4096];
                snprintf(out, sizeof out, "%s/%s", scratch, nspace);
                const double running = now_us();
                if (!run_processes(argv[0], nspace, start, leader, pmix_only, out)) {
                    fprintf(stderr, "bench_startup: a process of %s failed\n", nspace);
                    failed = 1;
                }
                report_slow(nspace, "the node's processes ended", running);
                double times[MAX_PER_NODE], cpus[MAX_PER_NODE], kibs[MAX_PER_NODE],
                    anons[MAX_PER_NODE];
                unsigned got = 0;
                for (unsigned r = 0; r < start && !failed; ++r) {
                    char name[4200];
                    snprintf(name, sizeof name, "%s.%u", out, r);
                    FILE *f = fopen(name, "r");
                    double us = 0, cpu = 0;
                    long kib = 0, anon = 0;
                    if (f != NULL && fscanf(f, "%lf %lf %ld %ld", &us, &cpu, &kib, &anon) == 4) {
                        kibs[got] = (double)kib;
                        anons[got] = (double)anon;
                        cpus[got] = cpu;
                        times[got++] = us;
                        kib_max = kib > kib_max ? (double)kib : kib_max;
                    }
                    if (f != NULL) {
                        fclose(f);
                    }
                    unlink(name);
                }
                if (got != start) {
                    failed = 1;
                    break;
                }
                double highest = 0, cpu_highest = 0;
                for (unsigned r = 0; r < got; ++r) {
                    highest = times[r] > highest ? times[r] : highest;
                    cpu_highest = cpus[r] > cpu_highest ? cpus[r] : cpu_highest;
                }
                medians[run] = median(times, got);
                maxima[run] = highest;
                cpu_medians[run] = median(cpus, got);
                cpu_maxima[run] = cpu_highest;
                kib_medians[run] = median(kibs, got);
                anon_medians[run] = median(anons, got);
                PMIx_server_deregister_nspace(nspace, op_done, NULL);
                (void)wait_op(PMIX_SUCCESS, "PMIx_server_deregister_nspace");
                if (setup_info != NULL) {
                    PMIX_INFO_FREE(setup_info, setup_ninfo);
                    setup_info = NULL;
                    setup_ninfo = 0;
                }
            }
            if (!failed) {
                printf("%s %u %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f\n", path, size,
                       median(medians, runs), median(maxima, runs), median(cpu_medians, runs),
                       median(cpu_maxima, runs), kib_max, leader ? -1.0 : median(daemons, runs),
                       median(kib_medians, runs), median(anon_medians, runs));
                fflush(stdout);
            }
        }
    }
    PMIx_server_finalize();
    rmdir(scratch);
    return failed;
}
