/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pnet plugin for libpmix (pmix_plugin/README.md): Meridian's network
 * setup inside a launcher's PMIx server, before the processes start.
 *
 *   launcher (mpirun)     allocate: the job's requests and their security
 *                         keys, drawn once (meridian_pnet_launch_blob),
 *                         go to every node in the launch message
 *   each daemon (orted)   setup_local_network: its node's share of the job
 *                         (meridian_pnet_node_job_new: inventory, its own
 *                         processes, allocate, setup), stored per process
 *                         in the server's datastore before they start
 *   job end               deregister_nspace: the ports go back
 *
 * libpmix loads this file in every PMIx process, clients too.  There it
 * declines at query, before it reads anything of libpmix's private
 * structures: a client pays for loading this small file and nothing else.
 * libmeridian is opened (dlopen) only when a server first takes part in a
 * job.  The plugin is built against one libpmix's private headers; against
 * any other it refuses to take part, says so once, and the job starts
 * without it (its processes then run the pipeline themselves).
 *
 * Nothing here may take the launcher down: every failure is a status to
 * libpmix with Meridian's message on the launcher's standard error.
 */
#include "src/include/pmix_config.h"

#include "pmix_common.h"

#include "src/include/pmix_globals.h"
#include "src/mca/gds/gds.h"
#include "src/mca/pnet/base/base.h"
#include "src/mca/pnet/pnet.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmix_plugin/pnet_meridian.h"
/* libmeridian's C API, for its types and keys: the calls themselves are
 * found with dlsym when a server first needs them. */
#include <meridian/mca/pnet/base/base.h>

/* ------------------------------------------------------------ messages */

/* A line on the launcher's standard error in one write(2): glibc 2.37 and
 * later write an unbuffered stream's fprintf 128 bytes at a time, and the
 * launcher's threads print its processes' output meanwhile. */
static void print_line(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void print_line(const char *format, ...)
{
    char line[2048];
    va_list args;
    va_start(args, format);
    int n = vsnprintf(line, sizeof line, format, args);
    va_end(args);
    if (n < 0) {
        return;
    }
    size_t left = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    if ((size_t)n >= sizeof line) {
        line[sizeof line - 2] = '\n'; /* cut, but whole lines still */
    }
    const char *at = line;
    fflush(stderr);
    while (left > 0) {
        const ssize_t wrote = write(STDERR_FILENO, at, left);
        if (wrote < 0 && EINTR == errno) {
            continue;
        }
        if (wrote <= 0) {
            return;
        }
        at += wrote;
        left -= (size_t)wrote;
    }
}

static void say(const char *severity, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static void say(const char *severity, const char *format, ...)
{
    char text[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    print_line("meridian: %s: pnet plugin for libpmix (%s): %s\n", severity,
               NULL != pmix_globals.hostname ? pmix_globals.hostname : "?", text);
}

/* ------------------------------------------------------------ libmeridian */

/* The calls the plugin makes, found in libmeridian when a server first
 * needs them. */
/* Meridian's messages, as libmeridian prints them (meridian_report's
 * severities: 1 error, 2 warning, 3 notice, 4 verbose), on the launcher's
 * standard error; the first error since reset_reason() is kept as the
 * reason a job failed, for its processes to say. */
static char reason[1024];

static void reset_reason(void)
{
    reason[0] = '\0';
}

static void keep_message(int severity, const char *text, void *context)
{
    (void)context;
    const char *prefix = 1 == severity   ? "meridian: error: "
                         : 2 == severity ? "meridian: warning: "
                         : 3 == severity ? "meridian: notice: "
                                         : "meridian: ";
    print_line("%s%s\n", prefix, text);
    if (1 == severity && '\0' == reason[0]) {
        snprintf(reason, sizeof reason, "%s", text);
    }
}

typedef struct {
    void *handle;
    int (*init)(int *, char ***);
    void *(*set_message_sink)(void (*)(int, const char *, void *), void *);
    int (*finalize)(void);
    int (*launch_blob_with)(const meridian_pnet_requests_t *, uint8_t **, size_t *);
    int (*requests_new)(meridian_pnet_requests_t **);
    int (*requests_add)(meridian_pnet_requests_t *, const meridian_pnet_attr_t *, size_t);
    void (*requests_free)(meridian_pnet_requests_t *);
    int (*node_job_new)(const char *, const char *, const int32_t *, size_t, const void *, size_t,
                        void **);
    int (*proc_data)(const void *, uint32_t, pmix_info_t **, size_t *);
    int (*node_data)(const void *, const char *, pmix_info_t **, size_t *);
    void (*job_free)(void *);
    int (*request_ids)(const void *, char ***, size_t *);
    int32_t (*package_of_locality)(const char *);
    int (*node_inventory)(const void *, pmix_info_t **, size_t *);
} meridian_calls_t;

static meridian_calls_t meridian;
static int meridian_state = 0; /* 0 not tried, 1 open, -1 failed */
/* Why libmeridian could not be opened (said once, kept for every job). */
static char open_failure[sizeof reason];
static const char *library_path = MERIDIAN_PMIX_PLUGIN_LIBRARY;

static void *find(const char *name)
{
    void *symbol = dlsym(meridian.handle, name);
    if (NULL == symbol && '\0' == open_failure[0]) {
        snprintf(open_failure, sizeof open_failure,
                 "%s has no %s: a libmeridian of another version than this plugin's", library_path,
                 name);
    }
    return symbol;
}

/* Opens libmeridian and meridian_init()s it, once; on failure
 * open_failure says why. */
static int open_meridian(void)
{
    if (0 != meridian_state) {
        return 1 == meridian_state;
    }
    meridian_state = -1;
    const char *path = getenv("PMIX_MCA_pnet_meridian_library");
    if (NULL != path && '\0' != path[0]) {
        library_path = path;
    }
    /* Its own namespace: nothing of libmeridian's may stand in for the
     * launcher's symbols. */
    meridian.handle = dlopen(library_path, RTLD_NOW | RTLD_LOCAL);
    if (NULL == meridian.handle) {
        snprintf(open_failure, sizeof open_failure, "cannot load libmeridian: %s", dlerror());
        say("error", "%s", open_failure);
        return 0;
    }
    *(void **)&meridian.init = find(MERIDIAN_PMIX_PLUGIN_SYMBOL(init));
    *(void **)&meridian.set_message_sink = find(MERIDIAN_PMIX_PLUGIN_SYMBOL(set_message_sink));
    *(void **)&meridian.finalize = find(MERIDIAN_PMIX_PLUGIN_SYMBOL(finalize));
    *(void **)&meridian.launch_blob_with = find(MERIDIAN_PMIX_PLUGIN_SYMBOL(pnet_launch_blob_with));
    *(void **)&meridian.requests_new = find(MERIDIAN_PMIX_PLUGIN_SYMBOL(pnet_requests_new));
    *(void **)&meridian.requests_add = find(MERIDIAN_PMIX_PLUGIN_SYMBOL(pnet_requests_add));
    *(void **)&meridian.requests_free = find(MERIDIAN_PMIX_PLUGIN_SYMBOL(pnet_requests_free));
    *(void **)&meridian.node_job_new = find(MERIDIAN_PMIX_PLUGIN_SYMBOL(pnet_node_job_new));
    *(void **)&meridian.proc_data = find(MERIDIAN_PMIX_PLUGIN_SYMBOL(pnet_pmix_proc_data));
    *(void **)&meridian.node_data = find(MERIDIAN_PMIX_PLUGIN_SYMBOL(pnet_pmix_node_data));
    *(void **)&meridian.job_free = find(MERIDIAN_PMIX_PLUGIN_SYMBOL(pnet_job_free));
    *(void **)&meridian.request_ids = find(MERIDIAN_PMIX_PLUGIN_SYMBOL(pnet_request_ids));
    *(void **)&meridian.package_of_locality =
        find(MERIDIAN_PMIX_PLUGIN_SYMBOL(pnet_package_of_locality));
    *(void **)&meridian.node_inventory =
        find(MERIDIAN_PMIX_PLUGIN_SYMBOL(pnet_pmix_node_inventory));
    if ('\0' != open_failure[0]) {
        say("error", "%s", open_failure);
        dlclose(meridian.handle);
        meridian.handle = NULL;
        return 0;
    }
    meridian.set_message_sink(keep_message, NULL);
    /* Meridian's parameters come from this process's environment and
     * Meridian's parameter files, as in any Meridian process. */
    reset_reason();
    if (0 != meridian.init(NULL, NULL)) {
        /* (the reason shortened to fit after the words before it) */
        snprintf(open_failure, sizeof open_failure, "meridian_init failed: %.990s",
                 '\0' != reason[0] ? reason : "(no reason given)");
        return 0;
    }
    meridian_state = 1;
    return 1;
}

/* ------------------------------------------------------------ jobs */

/* The jobs this server set up, until their namespace goes. */
typedef struct job_entry {
    struct job_entry *next;
    char nspace[PMIX_MAX_NSLEN + 1];
    void *job;
} job_entry_t;

static job_entry_t *jobs = NULL;

static void forget_job(const char *nspace)
{
    for (job_entry_t **at = &jobs; NULL != *at; at = &(*at)->next) {
        if (0 == strncmp((*at)->nspace, nspace, PMIX_MAX_NSLEN)) {
            job_entry_t *gone = *at;
            *at = gone->next;
            meridian.job_free(gone->job);
            free(gone);
            return;
        }
    }
}

/* ------------------------------------------------------------ the module */

static pmix_status_t plugin_init(void)
{
    return PMIX_SUCCESS;
}

static void plugin_finalize(void)
{
    while (NULL != jobs) {
        forget_job(jobs->nspace);
    }
    if (1 == meridian_state) {
        meridian.finalize();
        /* libmeridian stays mapped: its C++ runtime may still hold exit
         * handlers, and unmapping under them would crash the launcher at
         * exit. */
    }
    meridian_state = 0;
}

/* ------------------------------------------------------------ the launcher's requests */

/* What a request of the launcher's may say, as Meridian's attribute keys
 * (base.h); PMIx names them alike (PMIX_ALLOC_NETWORK_*, 5.0's
 * PMIX_ALLOC_FABRIC_*). */
static const char *const request_keys[] = {
    MERIDIAN_PNET_ALLOC_NETWORK_ID,      MERIDIAN_PNET_ALLOC_NETWORK_TYPE,
    MERIDIAN_PNET_ALLOC_NETWORK_PLANE,   MERIDIAN_PNET_ALLOC_NETWORK_ENDPTS,
    MERIDIAN_PNET_ALLOC_NETWORK_SEC_KEY, MERIDIAN_PNET_ALLOC_NETWORK_QOS,
    MERIDIAN_PNET_ALLOC_BANDWIDTH,
};
#define REQUEST_KEYS (sizeof request_keys / sizeof request_keys[0])

/* A number of any of PMIx's integer types as text; 0 when it is none. */
static int integer_text(const pmix_value_t *v, char *text, size_t size)
{
    long long s = 0;
    unsigned long long u = 0;
    int is_signed = 1;
    switch (v->type) {
    case PMIX_INT:
        s = v->data.integer;
        break;
    case PMIX_INT8:
        s = v->data.int8;
        break;
    case PMIX_INT16:
        s = v->data.int16;
        break;
    case PMIX_INT32:
        s = v->data.int32;
        break;
    case PMIX_INT64:
        s = v->data.int64;
        break;
    case PMIX_UINT:
        is_signed = 0;
        u = v->data.uint;
        break;
    case PMIX_UINT8:
        is_signed = 0;
        u = v->data.uint8;
        break;
    case PMIX_UINT16:
        is_signed = 0;
        u = v->data.uint16;
        break;
    case PMIX_UINT32:
        is_signed = 0;
        u = v->data.uint32;
        break;
    case PMIX_UINT64:
        is_signed = 0;
        u = v->data.uint64;
        break;
    case PMIX_SIZE:
        is_signed = 0;
        u = v->data.size;
        break;
    default:
        return 0;
    }
    if (is_signed) {
        snprintf(text, size, "%lld", s);
    } else {
        snprintf(text, size, "%llu", u);
    }
    return 1;
}

/* One entry of a request as Meridian's attribute, its value written into
 * `text`.  Returns 1 (use it), 0 (leave it out: a security key not asked
 * for) or -1 (why says what is wrong). */
static int request_attr(const pmix_info_t *entry, const char *key, meridian_pnet_attr_t *attr,
                        char *text, size_t size, char *why, size_t why_size)
{
    const pmix_value_t *v = &entry->value;
    attr->key = key;
    attr->value = text;
    attr->required = 0 != (entry->flags & PMIX_INFO_REQD);
    if (0 == strcmp(key, MERIDIAN_PNET_ALLOC_NETWORK_SEC_KEY)) {
        /* A flag asks for a key of Meridian's default size; a byte object
         * is a key of the launcher's, whose size Meridian draws anew. */
        if (PMIX_BOOL == v->type) {
            attr->value = NULL;
            return v->data.flag ? 1 : 0;
        }
        if (PMIX_BYTE_OBJECT == v->type && v->data.bo.size > 0) {
            snprintf(text, size, "%zu", v->data.bo.size);
            say("warning",
                "the launcher gives a security key of %zu bytes for a network request: Meridian "
                "draws a key of that size itself",
                v->data.bo.size);
            return 1;
        }
    } else if (PMIX_STRING == v->type && NULL != v->data.string) {
        if ((size_t)snprintf(text, size, "%s", v->data.string) >= size) {
            snprintf(why, why_size,
                     "a network request of the launcher's: its %s is longer than %zu characters",
                     key, size - 1);
            return -1;
        }
        return 1;
    } else if (integer_text(v, text, size)) {
        return 1;
    } else if (PMIX_FLOAT == v->type || PMIX_DOUBLE == v->type) {
        snprintf(text, size, "%.17g", PMIX_FLOAT == v->type ? (double)v->data.fval : v->data.dval);
        return 1;
    }
    snprintf(why, why_size,
             "a network request of the launcher's: its %s is a %s, which Meridian does not read",
             key, PMIx_Data_type_string(v->type));
    return -1;
}

/* The launcher's PMIX_ALLOC_NETWORK requests (each an array of pmix_info_t)
 * into a request set of libmeridian's; *set stays NULL when there is none.
 * An entry Meridian does not know is left out with a warning, or refused
 * when the launcher marked it required.  0, or -1 with the reason in `why`. */
static int launcher_requests(const pmix_info_t info[], size_t ninfo, meridian_pnet_requests_t **set,
                             char *why, size_t size)
{
    *set = NULL;
    for (size_t n = 0; NULL != info && n < ninfo; ++n) {
        if (!PMIX_CHECK_KEY(&info[n], MERIDIAN_PNET_ALLOC_NETWORK)) {
            continue;
        }
        const pmix_data_array_t *array = info[n].value.data.darray;
        if (PMIX_DATA_ARRAY != info[n].value.type || NULL == array || PMIX_INFO != array->type) {
            snprintf(why, size, "the launcher's %s is not an array of pmix_info_t",
                     MERIDIAN_PNET_ALLOC_NETWORK);
            return -1;
        }
        const pmix_info_t *entries = (const pmix_info_t *)array->array;
        meridian_pnet_attr_t attrs[REQUEST_KEYS];
        char texts[REQUEST_KEYS][PMIX_MAX_KEYLEN + 1];
        size_t count = 0;
        for (size_t e = 0; e < array->size; ++e) {
            const char *key = NULL;
            for (size_t k = 0; k < REQUEST_KEYS && NULL == key; ++k) {
                if (PMIX_CHECK_KEY(&entries[e], request_keys[k])) {
                    key = request_keys[k];
                }
            }
            if (NULL == key) {
                if (0 != (entries[e].flags & PMIX_INFO_REQD)) {
                    snprintf(why, size,
                             "the launcher requires %.*s of a network allocation, which Meridian "
                             "does not provide",
                             (int)PMIX_MAX_KEYLEN, entries[e].key);
                    return -1;
                }
                say("warning",
                    "the launcher asks for %.*s of a network allocation: Meridian "
                    "does not provide it, and leaves it out",
                    (int)PMIX_MAX_KEYLEN, entries[e].key);
                continue;
            }
            if (count == REQUEST_KEYS) {
                snprintf(why, size, "a network request of the launcher's names %s twice", key);
                return -1;
            }
            const int used = request_attr(&entries[e], key, &attrs[count], texts[count],
                                          sizeof texts[count], why, size);
            if (used < 0) {
                return -1;
            }
            count += (size_t)used;
        }
        if (NULL == *set && 0 != meridian.requests_new(set)) {
            snprintf(why, size, "no memory for the launcher's network requests");
            return -1;
        }
        reset_reason();
        if (0 != meridian.requests_add(*set, attrs, count)) {
            snprintf(why, size, "a network request of the launcher's: %.900s",
                     '\0' != reason[0] ? reason : "refused");
            return -1;
        }
    }
    return 0;
}

/* In the launcher, once per job: the blob every node's setup reads.  It is
 * never empty, so that the launcher hands it on. */
static pmix_status_t plugin_allocate(pmix_namespace_t *nptr, pmix_info_t info[], size_t ninfo,
                                     pmix_list_t *ilist)
{
    uint8_t *bytes = NULL;
    size_t size = 0;
    meridian_pnet_requests_t *requests = NULL;
    char why[sizeof reason];
    reset_reason();
    if (!open_meridian()) {
        snprintf(reason, sizeof reason, "%s", open_failure);
    } else if (0 != launcher_requests(info, ninfo, &requests, why, sizeof why)) {
        say("error", "job %s: %s", nptr->nspace, why);
        snprintf(reason, sizeof reason, "%s", why);
    } else {
        reset_reason();
        if (0 != meridian.launch_blob_with(requests, &bytes, &size)) {
            bytes = NULL;
        }
    }
    if (NULL != requests) {
        meridian.requests_free(requests);
    }
    if (NULL == bytes) {
        /* The launcher starts the job whatever this returns (Open MPI 4.1
         * does): the nodes get the failure instead, and the job's processes
         * end with its reason rather than set their network up anyway. */
        say("error", "job %s cannot start: Meridian cannot read its network requests",
            nptr->nspace);
        char text[sizeof reason + 128];
        const int n =
            snprintf(text, sizeof text, "%s\nfailed %s\n", MERIDIAN_PMIX_PLUGIN_BLOB_MAGIC,
                     '\0' != reason[0] ? reason
                                       : "the launcher could not read the job's "
                                         "network requests");
        bytes = (uint8_t *)strdup(text);
        if (NULL == bytes) {
            return PMIX_ERR_NOMEM;
        }
        size = (size_t)n < sizeof text ? (size_t)n : sizeof text - 1;
    }
    pmix_kval_t *kv = PMIX_NEW(pmix_kval_t);
    if (NULL == kv) {
        free(bytes);
        return PMIX_ERR_NOMEM;
    }
    kv->key = strdup(MERIDIAN_PMIX_PLUGIN_BLOB_KEY);
    kv->value = (pmix_value_t *)calloc(1, sizeof(pmix_value_t));
    if (NULL == kv->key || NULL == kv->value) {
        free(bytes);
        PMIX_RELEASE(kv);
        return PMIX_ERR_NOMEM;
    }
    kv->value->type = PMIX_BYTE_OBJECT;
    kv->value->data.bo.bytes = (char *)bytes;
    kv->value->data.bo.size = size;
    pmix_list_append(ilist, &kv->super);
    return PMIX_SUCCESS;
}

/* A string the server holds for process `rank` of the job (or for the job:
 * PMIX_RANK_WILDCARD), copied into *text (free()); PMIX_ERR_NOT_FOUND when
 * it holds none, or no string. */
static pmix_status_t server_string(const char *nspace, pmix_rank_t rank, const char *key,
                                   char **text)
{
    pmix_cb_t cb;
    pmix_proc_t proc;
    pmix_status_t rc;

    *text = NULL;
    PMIX_LOAD_PROCID(&proc, nspace, rank);
    PMIX_CONSTRUCT(&cb, pmix_cb_t);
    cb.proc = &proc;
    cb.scope = PMIX_INTERNAL;
    cb.key = (char *)key;
    cb.copy = true;
    PMIX_GDS_FETCH_KV(rc, pmix_globals.mypeer, &cb);
    if (PMIX_SUCCESS == rc) {
        const pmix_kval_t *kv = (const pmix_kval_t *)pmix_list_get_first(&cb.kvs);
        if (kv == (const pmix_kval_t *)pmix_list_get_end(&cb.kvs) || NULL == kv->value ||
            PMIX_STRING != kv->value->type || NULL == kv->value->data.string) {
            rc = PMIX_ERR_NOT_FOUND;
        } else if (NULL == (*text = strdup(kv->value->data.string))) {
            rc = PMIX_ERR_NOMEM;
        }
    }
    PMIX_DESTRUCT(&cb);
    return rc;
}

/* This node's ranks of the job, ascending (local rank order), from the
 * job's PMIX_LOCAL_PEERS the server holds. */
static pmix_status_t local_ranks(const char *nspace, uint32_t **ranks, size_t *count)
{
    char *peers = NULL;
    pmix_status_t rc;

    *ranks = NULL;
    *count = 0;
    rc = server_string(nspace, PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS, &peers);
    if (PMIX_SUCCESS != rc) {
        return rc;
    }
    size_t n = 1;
    for (const char *c = peers; '\0' != *c; ++c) {
        n += ',' == *c;
    }
    *ranks = (uint32_t *)calloc(n, sizeof(uint32_t));
    if (NULL == *ranks) {
        rc = PMIX_ERR_NOMEM;
    } else {
        const char *at = peers;
        while ('\0' != *at && *count < n) {
            char *end = NULL;
            unsigned long rank = strtoul(at, &end, 10);
            if (end == at || rank > UINT32_MAX || (',' != *end && '\0' != *end)) {
                rc = PMIX_ERR_BAD_PARAM;
                break;
            }
            (*ranks)[(*count)++] = (uint32_t)rank;
            at = ',' == *end ? end + 1 : end;
        }
    }
    free(peers);
    if (PMIX_SUCCESS != rc) {
        free(*ranks);
        *ranks = NULL;
        *count = 0;
    }
    return rc;
}

/* Where the launcher bound local process `rank`: its package, from the
 * PMIX_LOCALITY_STRING the server holds for it (Open MPI's daemons give it
 * for bound processes), read as Meridian reads it; -1 when it has none. */
static int32_t bound_package(const char *nspace, uint32_t rank)
{
    char *locality = NULL;
    if (PMIX_SUCCESS != server_string(nspace, rank, PMIX_LOCALITY_STRING, &locality)) {
        return -1;
    }
    const int32_t package = meridian.package_of_locality(locality);
    free(locality);
    return package;
}

static int compare_ranks(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a;
    const uint32_t y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* One process's results as the server stores them: a PMIX_PROC_INFO_ARRAY
 * of its rank and Meridian's entries (moved out of `entries`). */
static void load_proc(pmix_info_t *out, uint32_t rank, pmix_info_t *entries, size_t count)
{
    pmix_data_array_t *array;
    PMIX_DATA_ARRAY_CREATE(array, count + 1, PMIX_INFO);
    pmix_info_t *items = (pmix_info_t *)array->array;
    pmix_rank_t r = rank;
    PMIX_INFO_LOAD(&items[0], PMIX_RANK, &r, PMIX_PROC_RANK);
    for (size_t i = 0; i < count; ++i) {
        /* a shallow move: `entries` is freed without its values */
        items[i + 1] = entries[i];
    }
    PMIX_LOAD_KEY(out->key, PMIX_PROC_INFO_ARRAY);
    out->value.type = PMIX_DATA_ARRAY;
    out->value.data.darray = array;
}

/* The node's share, stored in the server before the processes start. */
static pmix_status_t store_node(pmix_nspace_env_cache_t *nptr, void *job, const uint32_t *ranks,
                                size_t count)
{
    const char *node = pmix_globals.hostname;
    /* each process, the node's data, the path's marker, the request IDs and
     * the node's inventory */
    pmix_info_t *all;
    PMIX_INFO_CREATE(all, count + 4);
    if (NULL == all) {
        return PMIX_ERR_NOMEM;
    }
    size_t used = 0;
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; i < count; ++i) {
        pmix_info_t *entries = NULL;
        size_t n = 0;
        if (0 != meridian.proc_data(job, (uint32_t)i, &entries, &n)) {
            rc = PMIX_ERROR;
            break;
        }
        load_proc(&all[used++], ranks[i], entries, n);
        free(entries);
    }
    if (PMIX_SUCCESS == rc) {
        pmix_info_t *entries = NULL;
        size_t n = 0;
        if (0 != meridian.node_data(job, node, &entries, &n)) {
            rc = PMIX_ERROR;
        } else if (n > 0) {
            pmix_data_array_t *array;
            PMIX_DATA_ARRAY_CREATE(array, n + 1, PMIX_INFO);
            pmix_info_t *items = (pmix_info_t *)array->array;
            PMIX_INFO_LOAD(&items[0], PMIX_HOSTNAME, node, PMIX_STRING);
            for (size_t i = 0; i < n; ++i) {
                items[i + 1] = entries[i];
            }
            free(entries);
            PMIX_LOAD_KEY(all[used].key, PMIX_NODE_INFO_ARRAY);
            all[used].value.type = PMIX_DATA_ARRAY;
            all[used].value.data.darray = array;
            ++used;
        }
    }
    char **ids = NULL;
    size_t nids = 0;
    if (PMIX_SUCCESS == rc && 0 != meridian.request_ids(job, &ids, &nids)) {
        rc = PMIX_ERROR;
    }
    if (PMIX_SUCCESS == rc) {
        /* "data,ctl": the requests' IDs, which name each process's entries */
        size_t length = 1;
        for (size_t i = 0; i < nids; ++i) {
            length += strlen(ids[i]) + 1;
        }
        char *text = (char *)calloc(1, length);
        for (size_t i = 0; NULL != text && i < nids; ++i) {
            strcat(strcat(text, 0 == i ? "" : ","), ids[i]);
        }
        if (NULL == text) {
            rc = PMIX_ERR_NOMEM;
        } else {
            PMIX_INFO_LOAD(&all[used], MERIDIAN_PMIX_PLUGIN_IDS_KEY, text, PMIX_STRING);
            ++used;
            free(text);
        }
    }
    for (size_t i = 0; i < nids; ++i) {
        free(ids[i]);
    }
    free(ids);
    if (PMIX_SUCCESS == rc) {
        /* the node's inventory: job data of this node's server, which the
         * node's lowest rank publishes for the other nodes */
        pmix_info_t *entries = NULL;
        size_t n = 0;
        if (0 != meridian.node_inventory(job, &entries, &n)) {
            rc = PMIX_ERROR;
        } else {
            for (size_t i = 0; i < n && i < 1; ++i) {
                all[used++] = entries[i];
            }
            free(entries);
        }
    }
    if (PMIX_SUCCESS == rc) {
        PMIX_INFO_LOAD(&all[used], MERIDIAN_PMIX_PLUGIN_PATH_KEY, "launcher", PMIX_STRING);
        ++used;
        PMIX_GDS_CACHE_JOB_INFO(rc, pmix_globals.mypeer, nptr->ns, all, used);
        if (PMIX_SUCCESS != rc) {
            say("error", "job %s: libpmix did not store the results (%s)", nptr->ns->nspace,
                PMIx_Error_string(rc));
        }
    }
    PMIX_INFO_FREE(all, count + 4);
    return rc;
}

/* The job cannot start on this node: its processes find why instead of
 * results, and end with it (meridian_init fails) rather than set their
 * network up themselves. */
static pmix_status_t store_failure(pmix_nspace_env_cache_t *nptr, const char *why)
{
    char text[sizeof reason + 256];
    snprintf(text, sizeof text, "the launcher could not set up the job's network on node %s: %s",
             NULL != pmix_globals.hostname ? pmix_globals.hostname : "?", why);
    pmix_info_t *marks;
    PMIX_INFO_CREATE(marks, 2);
    if (NULL == marks) {
        return PMIX_ERR_NOMEM;
    }
    PMIX_INFO_LOAD(&marks[0], MERIDIAN_PMIX_PLUGIN_PATH_KEY, "failed", PMIX_STRING);
    PMIX_INFO_LOAD(&marks[1], MERIDIAN_PMIX_PLUGIN_ERROR_KEY, text, PMIX_STRING);
    pmix_status_t rc;
    PMIX_GDS_CACHE_JOB_INFO(rc, pmix_globals.mypeer, nptr->ns, marks, 2);
    PMIX_INFO_FREE(marks, 2);
    return rc;
}

/* "failed REASON" as the blob's second line: the launcher could not
 * allocate (the reason, NUL-terminated, into `out`). */
static int blob_failure(const pmix_byte_object_t *blob, char *out, size_t size)
{
    const size_t magic = strlen(MERIDIAN_PMIX_PLUGIN_BLOB_MAGIC);
    static const char word[] = "\nfailed ";
    if (NULL == blob->bytes || blob->size < magic + sizeof word - 1 ||
        0 != memcmp(blob->bytes, MERIDIAN_PMIX_PLUGIN_BLOB_MAGIC, magic) ||
        0 != memcmp(blob->bytes + magic, word, sizeof word - 1)) {
        return 0;
    }
    const char *from = blob->bytes + magic + sizeof word - 1;
    size_t n = blob->size - (size_t)(from - blob->bytes);
    while (n > 0 && ('\n' == from[n - 1] || '\0' == from[n - 1])) {
        --n;
    }
    if (n >= size) {
        n = size - 1;
    }
    memcpy(out, from, n);
    out[n] = '\0';
    return 1;
}

/* One variable in the environment of each of the node's processes of the
 * job (libpmix's setup_fork adds it). */
static pmix_status_t add_envar(pmix_nspace_env_cache_t *nptr, const char *name, const char *value)
{
    pmix_envar_list_item_t *item = PMIX_NEW(pmix_envar_list_item_t);
    if (NULL == item) {
        return PMIX_ERR_NOMEM;
    }
    /* (5.0 declares the strings it copies without const) */
    PMIX_ENVAR_LOAD(&item->envar, (char *)name, (char *)value, ':');
    if (NULL == item->envar.envar || NULL == item->envar.value) {
        PMIX_RELEASE(item);
        return PMIX_ERR_NOMEM;
    }
    pmix_list_append(&nptr->envars, &item->super);
    return PMIX_SUCCESS;
}

/* Each of the node's processes of the job is told that this plugin took
 * the job on: its meridian_init reads the path key then, and only then.
 *
 * From OpenPMIx 5 on, a client maps the job's data from the server's shared
 * memory (gds shmem2, later shmem3) when it can, and there a key outside
 * PMIx's dictionary that the server stored for a process -- each request's
 * ID, Meridian's keys -- is read under the server's index for another key
 * (5.0.7: a get of "meridian.net.endpt" returns "meridian.pnet.results").
 * Through libpmix's own table (gds hash, what 4.2 always uses) every key
 * reads back as stored; the processes are pointed there, unless the
 * launcher's environment chose a gds itself. */
static pmix_status_t mark_processes(pmix_nspace_env_cache_t *nptr)
{
    pmix_status_t rc = add_envar(nptr, MERIDIAN_PMIX_PLUGIN_ENV, nptr->ns->nspace);
    if (PMIX_SUCCESS == rc && MERIDIAN_PMIX_PLUGIN_SHARED_JOB_DATA &&
        NULL == getenv("PMIX_MCA_gds")) {
        rc = add_envar(nptr, "PMIX_MCA_gds", "hash");
    }
    return rc;
}

/* On each node, once per job, before its processes start. */
static pmix_status_t plugin_setup_local_network(pmix_nspace_env_cache_t *nptr, pmix_info_t info[],
                                                size_t ninfo)
{
    const pmix_info_t *blob = NULL;
    for (size_t n = 0; NULL != info && n < ninfo; ++n) {
        if (PMIX_CHECK_KEY(&info[n], MERIDIAN_PMIX_PLUGIN_BLOB_KEY)) {
            blob = &info[n];
        }
    }
    if (NULL == blob) {
        /* A launcher without the plugin allocated this job: its processes
         * set up the network themselves. */
        return PMIX_SUCCESS;
    }
    const char *nspace = nptr->ns->nspace;
    char why[sizeof reason];
    /* From here the path key is stored whatever happens ("launcher" or
     * "failed"). */
    if (PMIX_SUCCESS != mark_processes(nptr)) {
        return PMIX_ERR_NOMEM;
    }
    if (PMIX_BYTE_OBJECT != blob->value.type) {
        snprintf(why, sizeof why, "the launcher's %s is a %s, not bytes",
                 MERIDIAN_PMIX_PLUGIN_BLOB_KEY, PMIx_Data_type_string(blob->value.type));
        say("error", "job %s: %s", nspace, why);
        (void)store_failure(nptr, why);
        return PMIX_ERR_BAD_PARAM;
    }
    if (blob_failure(&blob->value.data.bo, why, sizeof why)) {
        (void)store_failure(nptr, why);
        return PMIX_ERR_NOT_AVAILABLE;
    }
    if (!open_meridian()) {
        (void)store_failure(nptr, open_failure);
        return PMIX_ERR_NOT_AVAILABLE;
    }
    uint32_t *ranks = NULL;
    size_t count = 0;
    pmix_status_t rc = local_ranks(nspace, &ranks, &count);
    if (PMIX_SUCCESS != rc) {
        snprintf(why, sizeof why, "its processes are not known (PMIX_LOCAL_PEERS: %s)",
                 PMIx_Error_string(rc));
        say("error", "job %s: %s", nspace, why);
        (void)store_failure(nptr, why);
        return rc;
    }
    qsort(ranks, count, sizeof *ranks, compare_ranks);
    int32_t *packages = (int32_t *)malloc((count > 0 ? count : 1) * sizeof(int32_t));
    if (NULL == packages) {
        free(ranks);
        return PMIX_ERR_NOMEM;
    }
    /* NICs by each process's package where the launcher bound it to one,
     * by the node's distances otherwise. */
    for (size_t i = 0; i < count; ++i) {
        packages[i] = bound_package(nspace, ranks[i]);
    }
    void *job = NULL;
    reset_reason();
    if (0 != meridian.node_job_new(nspace, pmix_globals.hostname, packages, count,
                                   blob->value.data.bo.bytes, blob->value.data.bo.size, &job)) {
        say("error", "job %s cannot start: Meridian could not set up this node's network", nspace);
        (void)store_failure(nptr, '\0' != reason[0] ? reason : "the launcher's output says why");
        free(packages);
        free(ranks);
        return PMIX_ERR_NOT_AVAILABLE;
    }
    free(packages);
    rc = store_node(nptr, job, ranks, count);
    free(ranks);
    if (PMIX_SUCCESS != rc) {
        meridian.job_free(job);
        (void)store_failure(nptr, "libpmix did not store the results");
        return rc;
    }
    job_entry_t *entry = (job_entry_t *)calloc(1, sizeof *entry);
    if (NULL == entry) {
        meridian.job_free(job);
        return PMIX_ERR_NOMEM;
    }
    PMIX_LOAD_NSPACE(entry->nspace, nspace);
    entry->job = job;
    entry->next = jobs;
    jobs = entry;
    return PMIX_SUCCESS;
}

static void plugin_deregister_nspace(pmix_namespace_t *nptr)
{
    if (1 == meridian_state && NULL != nptr && NULL != nptr->nspace) {
        forget_job(nptr->nspace);
    }
}

static pmix_pnet_module_t plugin_module = {
    .name = "meridian",
    .init = plugin_init,
    .finalize = plugin_finalize,
    .allocate = plugin_allocate,
    .setup_local_network = plugin_setup_local_network,
    .deregister_nspace = plugin_deregister_nspace,
};

/* ------------------------------------------------------------ the component */

/* "OpenPMIx 4.2.2, repo rev: ..." -> 4, 2, 2 */
static int running_version(int *major, int *minor, int *release)
{
    const char *text = PMIx_Get_version();
    if (NULL == text) {
        return 0;
    }
    const char *at = text;
    while ('\0' != *at && (*at < '0' || *at > '9')) {
        ++at;
    }
    return 3 == sscanf(at, "%d.%d.%d", major, minor, release);
}

static int plugin_query(pmix_mca_base_module_t **module, int *priority)
{
    *module = NULL;
    *priority = 0;
    /* A client (the launcher gave it its name): nothing to do here, and
     * nothing of libpmix's private structures is read. */
    if (NULL != getenv("PMIX_RANK") && NULL != getenv("PMIX_NAMESPACE")) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    int major = 0, minor = 0, release = 0;
    if (!running_version(&major, &minor, &release) || major != MERIDIAN_PMIX_PLUGIN_BUILT_MAJOR ||
        minor != MERIDIAN_PMIX_PLUGIN_BUILT_MINOR ||
        release != MERIDIAN_PMIX_PLUGIN_BUILT_RELEASE) {
        /* Said on the launcher's standard error, without the host name:
         * pmix_globals may be laid out otherwise in this libpmix. */
        print_line("meridian: warning: the pnet plugin for libpmix (%s) was built for OpenPMIx "
                   "%d.%d.%d and this process runs %s: it takes no part (rebuild Meridian against "
                   "this libpmix); the job's processes set up the network themselves\n",
                   MERIDIAN_PMIX_PLUGIN_NAME, MERIDIAN_PMIX_PLUGIN_BUILT_MAJOR,
                   MERIDIAN_PMIX_PLUGIN_BUILT_MINOR, MERIDIAN_PMIX_PLUGIN_BUILT_RELEASE,
                   NULL != PMIx_Get_version() ? PMIx_Get_version() : "an unknown version");
        return PMIX_ERR_NOT_SUPPORTED;
    }
    if (!PMIX_PEER_IS_SERVER(pmix_globals.mypeer)) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    *module = (pmix_mca_base_module_t *)&plugin_module;
    *priority = MERIDIAN_PMIX_PLUGIN_PRIORITY;
    return PMIX_SUCCESS;
}

/* The component libpmix looks for: its MCA base, which 4.2 wraps with a
 * checkpoint flag that means nothing here (pnet_meridian.h). */
#define MERIDIAN_PMIX_PLUGIN_BASE                                                                  \
    PMIX_PNET_BASE_VERSION_1_0_0,                                                                  \
        .pmix_mca_component_name = "meridian",                                                     \
        PMIX_MCA_BASE_MAKE_VERSION(component, MERIDIAN_PMIX_PLUGIN_MAJOR,                          \
                                   MERIDIAN_PMIX_PLUGIN_MINOR, MERIDIAN_PMIX_PLUGIN_RELEASE),      \
        .pmix_mca_query_component = plugin_query

#if MERIDIAN_PMIX_PLUGIN_COMPONENT_WRAPPED
PMIX_EXPORT pmix_pnet_base_component_t pmix_mca_pnet_meridian_component = {
    .base = {MERIDIAN_PMIX_PLUGIN_BASE},
    .data = {.param_field = 0},
};
#else
PMIX_EXPORT pmix_pnet_base_component_t pmix_mca_pnet_meridian_component = {
    MERIDIAN_PMIX_PLUGIN_BASE};
#endif
