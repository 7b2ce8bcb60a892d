/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A PMIx client that knows nothing of Meridian: it includes only <pmix.h>
 * and links only libpmix.  It loads libmeridian with dlopen (the path in
 * MERIDIAN_LIBRARY), calls its init by name (in-job mode publishes each
 * process's results), fences, and then reads every rank's results with
 * plain PMIx_Get, as an MPI library or a user's program would:
 *
 *   REQUEST-ID        an array of pmix_info_t: pmix.alloc.netid (the ports,
 *                     "32000-32001"), pmix.alloc.nettype, pmix.alloc.endpts,
 *                     pmix.net.endpt (that request's endpoints)
 *   meridian.net.endpt  an array of strings: every request's endpoints, in
 *                     request order (the process's pmix.net.endpt: PMIx keeps
 *                     "pmix*" keys for the launcher, a client cannot put them)
 *   meridian.net.coord  an array of pmix_coord_t: at least one coordinate,
 *                     the logical view, at least one dimension
 *
 * Arguments: the request IDs, each as ID:TYPE:ENDPTS (e.g. data:tcp:2).
 * Prints "rank R: ok (...)" or "FAIL: ..." lines; exit 0 or 1.
 */
#include <dlfcn.h>
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REQUESTS 4

#ifndef MERIDIAN_INIT_SYMBOL
#define MERIDIAN_INIT_SYMBOL "meridian_init"
#endif
#ifndef MERIDIAN_FINALIZE_SYMBOL
#define MERIDIAN_FINALIZE_SYMBOL "meridian_finalize"
#endif

struct expected {
    char id[64];
    char type[16];
    unsigned endpts;
};

static int failures = 0;
static pmix_proc_t me;

static void fail(const char *what, unsigned rank, const char *detail)
{
    printf("FAIL: rank %u reading rank %u: %s%s%s\n", me.rank, rank, what, detail ? ": " : "",
           detail ? detail : "");
    ++failures;
}

static const pmix_info_t *find_info(const pmix_data_array_t *array, const char *key)
{
    const pmix_info_t *items = (const pmix_info_t *)array->array;
    for (size_t i = 0; i < array->size; ++i) {
        if (PMIX_CHECK_KEY(&items[i], key)) {
            return &items[i];
        }
    }
    return NULL;
}

/* "ADDR:PORT" whose port is in the netid's list ("32000-32001,32005"). */
static int port_in(const char *endpoint, const char *netid)
{
    const char *colon = strrchr(endpoint, ':');
    if (colon == NULL) {
        return 0;
    }
    const long port = strtol(colon + 1, NULL, 10);
    const char *at = netid;
    for (;;) {
        char *end = NULL;
        const long low = strtol(at, &end, 10);
        long high = low;
        if (end == at) {
            return 0;
        }
        if (*end == '-') {
            high = strtol(end + 1, &end, 10);
        }
        if (port >= low && port <= high) {
            return 1;
        }
        if (*end != ',') {
            return 0;
        }
        at = end + 1;
    }
}

static pmix_value_t *get(unsigned rank, const char *key)
{
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, me.nspace, rank);
    pmix_value_t *value = NULL;
    const pmix_status_t rc = PMIx_Get(&proc, key, NULL, 0, &value);
    if (rc != PMIX_SUCCESS) {
        char why[160];
        snprintf(why, sizeof why, "PMIx_Get(\"%s\"): %s", key, PMIx_Error_string(rc));
        fail(why, rank, NULL);
        return NULL;
    }
    return value;
}

static void release(pmix_value_t *value)
{
    if (value != NULL) {
        PMIx_Value_destruct(value);
        free(value);
    }
}

static int is_array_of(const pmix_value_t *value, pmix_data_type_t type)
{
    return value->type == PMIX_DATA_ARRAY && value->data.darray != NULL &&
           value->data.darray->type == type;
}

/* One request's entry; adds its endpoints to all[]. */
static void check_request(unsigned rank, const struct expected *want, char **all, size_t *count)
{
    pmix_value_t *entry = get(rank, want->id);
    if (entry == NULL) {
        return;
    }
    if (!is_array_of(entry, PMIX_INFO)) {
        fail("the request's entry is not an array of pmix_info_t", rank, want->id);
        release(entry);
        return;
    }
    const pmix_data_array_t *info = entry->data.darray;
    const pmix_info_t *netid = find_info(info, "pmix.alloc.netid");
    const pmix_info_t *type = find_info(info, "pmix.alloc.nettype");
    const pmix_info_t *endpts = find_info(info, "pmix.alloc.endpts");
    const pmix_info_t *endpt = find_info(info, "pmix.net.endpt");
    if (netid == NULL || netid->value.type != PMIX_STRING || type == NULL ||
        type->value.type != PMIX_STRING || strcmp(type->value.data.string, want->type) != 0) {
        fail("no pmix.alloc.netid string or wrong pmix.alloc.nettype", rank, want->id);
    } else if (endpts == NULL || endpts->value.type != PMIX_UINT64 ||
               endpts->value.data.uint64 != want->endpts) {
        fail("pmix.alloc.endpts is not the count asked for", rank, want->id);
    } else if (endpt == NULL || !is_array_of(&endpt->value, PMIX_STRING) ||
               endpt->value.data.darray->size != want->endpts) {
        fail("the request's pmix.net.endpt is not an array of ENDPTS strings", rank, want->id);
    } else {
        char **items = (char **)endpt->value.data.darray->array;
        for (size_t i = 0; i < endpt->value.data.darray->size; ++i) {
            if (!port_in(items[i], netid->value.data.string)) {
                fail("an endpoint is not on a port of the netid", rank, items[i]);
            }
            if (*count < 16) {
                all[(*count)++] = strdup(items[i]);
            }
        }
    }
    release(entry);
}

int main(int argc, char **argv)
{
    struct expected wanted[MAX_REQUESTS];
    int requests = 0;
    for (int i = 1; i < argc && requests < MAX_REQUESTS; ++i) {
        struct expected *w = &wanted[requests++];
        unsigned endpts = 0;
        if (sscanf(argv[i], "%63[^:]:%15[^:]:%u", w->id, w->type, &endpts) != 3) {
            fprintf(stderr, "pmix_reader: expected ID:TYPE:ENDPTS, found \"%s\"\n", argv[i]);
            return 2;
        }
        w->endpts = endpts;
    }
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) {
        printf("FAIL: PMIx_Init\n");
        return 1;
    }
    const char *path = getenv("MERIDIAN_LIBRARY");
    void *library = path != NULL ? dlopen(path, RTLD_NOW | RTLD_GLOBAL) : NULL;
    int (*init)(int *, char ***) = NULL;
    int (*finalize)(void) = NULL;
    if (library != NULL) {
        *(void **)&init = dlsym(library, MERIDIAN_INIT_SYMBOL);
        *(void **)&finalize = dlsym(library, MERIDIAN_FINALIZE_SYMBOL);
    }
    if (init == NULL || finalize == NULL) {
        printf("FAIL: rank %u: cannot load Meridian from MERIDIAN_LIBRARY=%s: %s\n", me.rank,
               path != NULL ? path : "(unset)", dlerror());
        PMIx_Finalize(NULL, 0);
        return 1;
    }
    if (init(NULL, NULL) != 0) {
        printf("FAIL: rank %u: Meridian's init failed\n", me.rank);
        PMIx_Finalize(NULL, 0);
        return 1;
    }

    /* The job's fence: what every process committed reaches every process. */
    pmix_info_t collect;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, NULL, PMIX_BOOL);
    if (PMIx_Fence(NULL, 0, &collect, 1) != PMIX_SUCCESS) {
        printf("FAIL: rank %u: PMIx_Fence\n", me.rank);
        return 1;
    }
    PMIX_INFO_DESTRUCT(&collect);

    pmix_value_t *size_value = NULL;
    pmix_proc_t wildcard;
    PMIX_LOAD_PROCID(&wildcard, me.nspace, PMIX_RANK_WILDCARD);
    unsigned size = 0;
    if (PMIx_Get(&wildcard, PMIX_JOB_SIZE, NULL, 0, &size_value) == PMIX_SUCCESS) {
        size = size_value->data.uint32;
        release(size_value);
    }
    if (size == 0) {
        printf("FAIL: rank %u: no job size\n", me.rank);
        return 1;
    }

    char summary[256] = "";
    for (unsigned rank = 0; rank < size; ++rank) {
        char *all[16];
        size_t count = 0;
        for (int r = 0; r < requests; ++r) {
            check_request(rank, &wanted[r], all, &count);
        }
        /* meridian.net.endpt: the requests' endpoints, in request order. */
        pmix_value_t *endpt = get(rank, "meridian.net.endpt");
        if (endpt != NULL) {
            if (!is_array_of(endpt, PMIX_STRING) || endpt->data.darray->size != count) {
                fail("meridian.net.endpt is not the array of every request's endpoints", rank,
                     NULL);
            } else {
                char **items = (char **)endpt->data.darray->array;
                for (size_t i = 0; i < count; ++i) {
                    if (strcmp(items[i], all[i]) != 0) {
                        fail("meridian.net.endpt differs from the requests' endpoints", rank,
                             items[i]);
                    }
                }
                if (rank == me.rank && count > 0) {
                    snprintf(summary, sizeof summary, "endpoints %s..%s", items[0],
                             items[count - 1]);
                }
            }
            release(endpt);
        }
        for (size_t i = 0; i < count; ++i) {
            free(all[i]);
        }
        /* meridian.net.coord: pmix_coord_t values, logical view. */
        pmix_value_t *coord = get(rank, "meridian.net.coord");
        if (coord != NULL) {
            if (!is_array_of(coord, PMIX_COORD) || coord->data.darray->size == 0) {
                fail("meridian.net.coord is not an array of pmix_coord_t", rank, NULL);
            } else {
                const pmix_coord_t *c = (const pmix_coord_t *)coord->data.darray->array;
                if (c[0].view != PMIX_COORD_LOGICAL_VIEW || c[0].dims == 0 || c[0].coord == NULL) {
                    fail("the nearest coordinate is not a logical one with dimensions", rank, NULL);
                }
            }
            release(coord);
        }
    }

    finalize();
    PMIx_Finalize(NULL, 0);
    if (failures == 0) {
        printf("rank %u: ok (read %u ranks; %s)\n", me.rank, size, summary);
    }
    return failures == 0 ? 0 : 1;
}
