/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A process of a job whose launcher ran the pnet plugin for libpmix: it
 * includes only <pmix.h> and links only libpmix, as an MPI library or a
 * user's program would, and reads its own results with plain PMIx_Get,
 * without a fence:
 *
 *   meridian.pnet.path   (job)  "launcher"
 *   ID                   its request's entry: pmix.alloc.nettype and the
 *                        request's pmix.net.endpt
 *   meridian.net.endpt   every endpoint, an array of strings
 *   pmix.fab.endpt       the same as pmix_endpoint_t
 *
 * It also checks that loading the plugin cost it nothing: libmeridian is not
 * in its address space.  Then it prints "rank R ports P,P,..." (the ports
 * of its endpoints), "rank R endpoints A:P,..." and, when WAIT_FILE is set, waits for that file to
 * exist (at most 60 s) before it ends, so that two jobs can be held side by side.
 *
 * Argument: ID:TYPE:ENDPTS of the one request (data:tcp:2).  Prints
 * "rank R: ok ..." or "FAIL: ..." lines; exit 0 or 1.
 */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pmix_proc_t me;
static int failures = 0;

static void fail(const char *what, const char *detail)
{
    printf("FAIL: rank %u: %s%s%s\n", me.rank, what, detail != NULL ? ": " : "",
           detail != NULL ? detail : "");
    ++failures;
}

static pmix_value_t *get(uint32_t rank, const char *key)
{
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, me.nspace, rank);
    /* Only what the server holds already: nothing is fenced here. */
    pmix_info_t info;
    PMIX_INFO_CONSTRUCT(&info);
    int optional = 1;
    PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &optional, PMIX_BOOL);
    pmix_value_t *value = NULL;
    const pmix_status_t rc = PMIx_Get(&proc, key, &info, 1, &value);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) {
        char text[128];
        snprintf(text, sizeof text, "PMIx_Get(%s): %s", key, PMIx_Error_string(rc));
        fail(text, NULL);
        return NULL;
    }
    return value;
}

static int libmeridian_is_mapped(void)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    if (maps == NULL) {
        return -1;
    }
    char line[1024];
    int found = 0;
    while (fgets(line, sizeof line, maps) != NULL) {
        found |= strstr(line, "libmeridian") != NULL;
    }
    fclose(maps);
    return found;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: plugin_peer ID:TYPE:ENDPTS[:seckey]\n");
        return 2;
    }
    char id[PMIX_MAX_KEYLEN + 1], type[16], extra[16] = "";
    unsigned endpts = 0;
    const int fields = sscanf(argv[1], "%63[^:]:%15[^:]:%u:%15s", id, type, &endpts, extra);
    if (fields < 3 || endpts == 0 || (fields == 4 && strcmp(extra, "seckey") != 0)) {
        fprintf(stderr, "plugin_peer: expected ID:TYPE:ENDPTS[:seckey], found \"%s\"\n", argv[1]);
        return 2;
    }
    const int want_seckey = fields == 4;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("FAIL: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    /* "@net": the request Open MPI 5's mpirun makes for every job,
     * "<namespace>.net". */
    if (strcmp(id, "@net") == 0) {
        snprintf(id, sizeof id, "%s.net", me.nspace);
    }

    pmix_value_t *path = get(PMIX_RANK_WILDCARD, "meridian.pnet.path");
    if (path != NULL && (path->type != PMIX_STRING || strcmp(path->data.string, "launcher") != 0)) {
        fail("meridian.pnet.path is not \"launcher\"",
             path->type == PMIX_STRING ? path->data.string : "(not a string)");
    }

    char types[64] = "";
    char seckey[2 * 64 + 1] = "";
    pmix_value_t *entry = get(me.rank, id);
    if (entry != NULL) {
        if (entry->type != PMIX_DATA_ARRAY || entry->data.darray->type != PMIX_INFO) {
            fail("the request's entry is not an array of pmix_info_t", id);
        } else {
            const pmix_info_t *items = entry->data.darray->array;
            for (size_t i = 0; i < entry->data.darray->size; ++i) {
                if (PMIX_CHECK_KEY(&items[i], PMIX_ALLOC_NETWORK_TYPE) &&
                    items[i].value.type == PMIX_STRING) {
                    snprintf(types, sizeof types, "%s", items[i].value.data.string);
                }
                /* the key as hex, for the test to compare across ranks */
                if (PMIX_CHECK_KEY(&items[i], PMIX_ALLOC_NETWORK_SEC_KEY) &&
                    items[i].value.type == PMIX_BYTE_OBJECT &&
                    items[i].value.data.bo.size <= sizeof seckey / 2) {
                    const pmix_byte_object_t *bo = &items[i].value.data.bo;
                    for (size_t b = 0; b < bo->size; ++b) {
                        snprintf(seckey + 2 * b, 3, "%02x", (unsigned char)bo->bytes[b]);
                    }
                }
            }
            if (strcmp(types, type) != 0) {
                fail("pmix.alloc.nettype is not the type asked for", types);
            }
            if (want_seckey && seckey[0] == '\0') {
                fail("the request's entry holds no security key (pmix.alloc.nsec as bytes)", id);
            }
        }
    }

    char ports[256] = "";
    char all[1024] = "";
    pmix_value_t *endpoints = get(me.rank, "meridian.net.endpt");
    if (endpoints != NULL) {
        if (endpoints->type != PMIX_DATA_ARRAY || endpoints->data.darray->type != PMIX_STRING ||
            endpoints->data.darray->size != endpts) {
            fail("meridian.net.endpt is not an array of one string per endpoint", NULL);
        } else {
            char **text = endpoints->data.darray->array;
            for (size_t i = 0; i < endpoints->data.darray->size; ++i) {
                const char *colon = strrchr(text[i], ':');
                if (colon == NULL) {
                    fail("an endpoint is not ADDRESS:PORT", text[i]);
                    continue;
                }
                size_t used = strlen(ports);
                snprintf(ports + used, sizeof ports - used, "%s%s", used > 0 ? "," : "", colon + 1);
                used = strlen(all);
                snprintf(all + used, sizeof all - used, "%s%s", used > 0 ? "," : "", text[i]);
            }
        }
    }
    pmix_value_t *fabric = get(me.rank, PMIX_FABRIC_ENDPT);
    if (fabric != NULL &&
        (fabric->type != PMIX_DATA_ARRAY || fabric->data.darray->type != PMIX_ENDPOINT ||
         fabric->data.darray->size != endpts)) {
        fail("pmix.fab.endpt is not an array of one pmix_endpoint_t per endpoint", NULL);
    }

    const int mapped = libmeridian_is_mapped();
    if (mapped != 0) {
        fail(mapped < 0 ? "cannot read /proc/self/maps"
                        : "libmeridian is in this process, which never asked for it",
             NULL);
    }

    if (failures == 0) {
        printf("rank %u: ok (%s %s, no libmeridian here)\n", me.rank, id, types);
        printf("rank %u ports %s\n", me.rank, ports);
        printf("rank %u endpoints %s\n", me.rank, all);
        if (want_seckey) {
            printf("rank %u seckey %s\n", me.rank, seckey);
        }
    }
    fflush(stdout);

    const char *wait_file = getenv("WAIT_FILE");
    if (wait_file != NULL) {
        const time_t until = time(NULL) + 60;
        while (access(wait_file, F_OK) != 0 && time(NULL) < until) {
            usleep(20000);
        }
    }
    if (path != NULL) {
        PMIX_VALUE_RELEASE(path);
    }
    if (entry != NULL) {
        PMIX_VALUE_RELEASE(entry);
    }
    if (endpoints != NULL) {
        PMIX_VALUE_RELEASE(endpoints);
    }
    if (fabric != NULL) {
        PMIX_VALUE_RELEASE(fabric);
    }
    PMIx_Finalize(NULL, 0);
    return failures == 0 ? 0 : 1;
}
