/* SPDX-License-Identifier: BSD-3-Clause */
/* The C view of in-job mode (injob.sh runs it under mpirun, and alone with
 * pnet_base_in_job auto -- its first coord query runs the pipeline -- and
 * yes): after meridian_init a C program asks coord for its
 * coordinates (x,y,z, logical), its endpoints (two, "ADDRESS:PORT" with a
 * port from the pool) and its cost to itself (0).  The rank comes from the
 * launcher's environment (PMIX_RANK), 0 when alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meridian/mca/coord/base/base.h>
#include <meridian/mca/runtime/meridian.h>
#include <meridian/opal/class/coordinate.h>
#include <meridian/opal/util/error.h>

static int failures = 0;

static void check(int ok, const char *what, unsigned long value)
{
    if (!ok) {
        ++failures;
        printf("FAIL: %s (%lu)\n", what, value);
    }
}

int main(int argc, char **argv)
{
    const char *rank_text = getenv("PMIX_RANK");
    const uint32_t rank = rank_text != NULL ? (uint32_t)strtoul(rank_text, NULL, 10) : 0;
    int rc = meridian_init(&argc, &argv);
    if (rc != MERIDIAN_SUCCESS) {
        printf("FAIL: meridian_init: %s\n", meridian_strerror(rc));
        return 1;
    }

    meridian_coord_t *coords = NULL;
    size_t count = 0;
    rc = meridian_coord_get_coordinates(rank, NULL, MERIDIAN_COORD_LOGICAL_VIEW, &coords, &count);
    check(rc == MERIDIAN_SUCCESS, "meridian_coord_get_coordinates", (unsigned long)-rc);
    check(count >= 1, "coordinates", count);
    for (size_t i = 0; i < count; ++i) {
        check(coords[i].dims == 3, "dims", coords[i].dims);
        check(coords[i].view == MERIDIAN_COORD_LOGICAL_VIEW, "view", coords[i].view);
    }
    meridian_coord_free(coords, count);

    char **endpoints = NULL;
    count = 0;
    rc = meridian_coord_get_endpoints(rank, &endpoints, &count);
    check(rc == MERIDIAN_SUCCESS, "meridian_coord_get_endpoints", (unsigned long)-rc);
    check(count == 2, "endpoints", count);
    for (size_t i = 0; i < count; ++i) {
        const char *colon = strrchr(endpoints[i], ':');
        const unsigned long port = colon != NULL ? strtoul(colon + 1, NULL, 10) : 0;
        check(port >= 32000 && port <= 32099, "endpoint port", port);
        free(endpoints[i]);
    }
    free(endpoints);

    uint64_t cost = 1;
    rc = meridian_coord_get_cost(rank, rank, &cost);
    check(rc == MERIDIAN_SUCCESS && cost == 0, "cost to itself", (unsigned long)cost);

    check(meridian_finalize() == MERIDIAN_SUCCESS, "meridian_finalize", 0);
    if (failures == 0) {
        printf("c rank %u: ok\n", (unsigned)rank);
    }
    return failures == 0 ? 0 : 1;
}
