/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A process that pmix_launcher starts: a plain PMIx client (it includes
 * and links only libpmix) that reads what its launcher registered for every
 * rank of its job and prints it in pmix_launcher's expectation format, one
 * line each, prefixed "<own rank>| ":
 *
 *   R request ID nettype=TYPE ports=P,P     the entry under the request's ID
 *                                           (ports: of its pmix.net.endpt)
 *   R meridian.net.endpt EP,EP              every endpoint, request order
 *   R fab.endpt UUID OSNAME ENDPT           pmix.fab.endpt, one per endpoint
 *   R meridian.net.coord VIEW:(c,c) ...     every coordinate
 *   node N fab.coord FABRIC UUID OSNAME VIEW:(c,c)
 *                          pmix.fab.coord of node N (the job's data with
 *                          PMIX_HOSTNAME), one line per device coordinate
 *
 * Arguments: the request IDs, then node=NAME for each node.  Problems are
 * "FAIL: ..." lines and exit 1.
 */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pmix_proc_t me;
static int failures = 0;

static void fail(pmix_rank_t rank, const char *what, pmix_status_t rc)
{
    printf("FAIL: rank %u reading rank %u: %s: %s\n", me.rank, rank, what, PMIx_Error_string(rc));
    ++failures;
}

/* The value of `key` for `rank`, which must be an array of `type`. */
static pmix_value_t *get_array(pmix_rank_t rank, const char *key, pmix_data_type_t type)
{
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, me.nspace, rank);
    pmix_value_t *value = NULL;
    const pmix_status_t rc = PMIx_Get(&proc, key, NULL, 0, &value);
    if (rc != PMIX_SUCCESS) {
        fail(rank, key, rc);
        return NULL;
    }
    if (value->type != PMIX_DATA_ARRAY || value->data.darray == NULL ||
        value->data.darray->type != type) {
        fail(rank, key, PMIX_ERR_TYPE_MISMATCH);
        PMIX_VALUE_RELEASE(value);
        return NULL;
    }
    return value;
}

static void print_coord(const pmix_coord_t *c)
{
    printf(" %s:(", c->view == PMIX_COORD_LOGICAL_VIEW    ? "logical"
                    : c->view == PMIX_COORD_PHYSICAL_VIEW ? "physical"
                                                          : "undef");
    for (size_t d = 0; d < c->dims; ++d) {
        printf("%s%u", d == 0 ? "" : ",", c->coord[d]);
    }
    printf(")");
}

static int compare_ports(const void *a, const void *b)
{
    const unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
    return (x > y) - (x < y);
}

static void read_request(pmix_rank_t rank, const char *id)
{
    pmix_value_t *value = get_array(rank, id, PMIX_INFO);
    if (value == NULL) {
        return;
    }
    const pmix_info_t *items = (const pmix_info_t *)value->data.darray->array;
    const char *type = "?";
    unsigned long ports[64];
    size_t nports = 0;
    for (size_t i = 0; i < value->data.darray->size; ++i) {
        const pmix_info_t *item = &items[i];
        if (PMIX_CHECK_KEY(item, "pmix.alloc.nettype") && item->value.type == PMIX_STRING) {
            type = item->value.data.string;
        } else if (PMIX_CHECK_KEY(item, "pmix.net.endpt") && item->value.type == PMIX_DATA_ARRAY &&
                   item->value.data.darray->type == PMIX_STRING) {
            char **endpoints = (char **)item->value.data.darray->array;
            for (size_t e = 0; e < item->value.data.darray->size && nports < 64; ++e) {
                const char *colon = strrchr(endpoints[e], ':');
                ports[nports++] = colon ? strtoul(colon + 1, NULL, 10) : 0;
            }
        }
    }
    qsort(ports, nports, sizeof ports[0], compare_ports);
    printf("%u| %u request %s nettype=%s ports=", me.rank, rank, id, type);
    for (size_t p = 0; p < nports; ++p) {
        /* The same port on two NICs is one port of the assignment. */
        if (p == 0 || ports[p] != ports[p - 1]) {
            printf("%s%lu", p == 0 ? "" : ",", ports[p]);
        }
    }
    printf("\n");
    PMIX_VALUE_RELEASE(value);
}

static void read_process(pmix_rank_t rank)
{
    pmix_value_t *value = get_array(rank, "meridian.net.endpt", PMIX_STRING);
    if (value != NULL) {
        char **endpoints = (char **)value->data.darray->array;
        printf("%u| %u meridian.net.endpt ", me.rank, rank);
        for (size_t e = 0; e < value->data.darray->size; ++e) {
            printf("%s%s", e == 0 ? "" : ",", endpoints[e]);
        }
        printf("\n");
        PMIX_VALUE_RELEASE(value);
    }
    value = get_array(rank, PMIX_FABRIC_ENDPT, PMIX_ENDPOINT);
    if (value != NULL) {
        const pmix_endpoint_t *endpoints = (const pmix_endpoint_t *)value->data.darray->array;
        for (size_t e = 0; e < value->data.darray->size; ++e) {
            const pmix_endpoint_t *ep = &endpoints[e];
            printf("%u| %u fab.endpt %s %s %.*s\n", me.rank, rank, ep->uuid ? ep->uuid : "(null)",
                   ep->osname ? ep->osname : "(null)", (int)ep->endpt.size, ep->endpt.bytes);
        }
        PMIX_VALUE_RELEASE(value);
    }
    value = get_array(rank, "meridian.net.coord", PMIX_COORD);
    if (value != NULL) {
        const pmix_coord_t *coords = (const pmix_coord_t *)value->data.darray->array;
        printf("%u| %u meridian.net.coord", me.rank, rank);
        for (size_t c = 0; c < value->data.darray->size; ++c) {
            print_coord(&coords[c]);
        }
        printf("\n");
        PMIX_VALUE_RELEASE(value);
    }
}

/* pmix.fab.coord of a node: the job's data, qualified by the node. */
static void read_node(const char *node)
{
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    pmix_info_t qualifier;
    PMIX_INFO_LOAD(&qualifier, PMIX_HOSTNAME, node, PMIX_STRING);
    pmix_value_t *value = NULL;
    const pmix_status_t rc = PMIx_Get(&job, PMIX_FABRIC_COORDINATES, &qualifier, 1, &value);
    PMIX_INFO_DESTRUCT(&qualifier);
    if (rc != PMIX_SUCCESS || value->type != PMIX_DATA_ARRAY ||
        value->data.darray->type != PMIX_GEOMETRY) {
        printf("FAIL: rank %u reading node %s: %s: %s\n", me.rank, node, PMIX_FABRIC_COORDINATES,
               rc != PMIX_SUCCESS ? PMIx_Error_string(rc) : "not an array of pmix_geometry_t");
        ++failures;
        if (rc == PMIX_SUCCESS) {
            PMIX_VALUE_RELEASE(value);
        }
        return;
    }
    const pmix_geometry_t *devices = (const pmix_geometry_t *)value->data.darray->array;
    for (size_t g = 0; g < value->data.darray->size; ++g) {
        for (size_t c = 0; c < devices[g].ncoords; ++c) {
            printf("%u| node %s fab.coord %zu %s %s", me.rank, node, devices[g].fabric,
                   devices[g].uuid ? devices[g].uuid : "(null)",
                   devices[g].osname ? devices[g].osname : "(null)");
            print_coord(&devices[g].coordinates[c]);
            printf("\n");
        }
    }
    PMIX_VALUE_RELEASE(value);
}

int main(int argc, char **argv)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("FAIL: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *size = NULL;
    rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &size);
    if (rc != PMIX_SUCCESS || size->type != PMIX_UINT32) {
        printf("FAIL: rank %u: PMIX_JOB_SIZE: %s\n", me.rank, PMIx_Error_string(rc));
        PMIx_Finalize(NULL, 0);
        return 1;
    }
    const uint32_t ranks = size->data.uint32;
    PMIX_VALUE_RELEASE(size);
    for (pmix_rank_t rank = 0; rank < ranks; ++rank) {
        for (int i = 1; i < argc; ++i) {
            if (strncmp(argv[i], "node=", 5) != 0) {
                read_request(rank, argv[i]);
            }
        }
        read_process(rank);
    }
    for (int i = 1; i < argc; ++i) {
        if (strncmp(argv[i], "node=", 5) == 0) {
            read_node(argv[i] + 5);
        }
    }
    fflush(stdout);
    PMIx_Finalize(NULL, 0);
    return failures == 0 ? 0 : 1;
}
