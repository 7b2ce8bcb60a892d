/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A program built against an installed Meridian (pkg-config meridian), the
 * way a third party's program is: initialise, ask the carto framework for the
 * host's map, and say which component made it and what it holds.
 *
 * Output, one fact a line:
 *   selected: <component>
 *   vertices: <count>
 *   Slot0 to MEM: <name>:<distance> ...
 * or, when no component maps the host:
 *   selected: none (<meridian_strerror>)
 */
#include <stdio.h>

#include <meridian/mca/carto/base/base.h>
#include <meridian/mca/runtime/meridian.h>
#include <meridian/opal/util/error.h>

int main(int argc, char **argv)
{
    int rc = meridian_init(&argc, &argv);
    if (rc != MERIDIAN_SUCCESS) {
        fprintf(stderr, "meridian_init: %s\n", meridian_strerror(rc));
        return 1;
    }
    mca_carto_graph_t *graph = NULL;
    rc = meridian_mca_carto_base_get_host_graph(MCA_CARTO_ALL, &graph);
    if (rc != MERIDIAN_SUCCESS) {
        printf("selected: none (%s)\n", meridian_strerror(rc));
        meridian_finalize();
        return 2;
    }
    printf("selected: %s\n", meridian_mca_carto_base_selected_component());
    printf("vertices: %zu\n", meridian_mca_carto_graph_vertex_count(graph));
    mca_carto_distance_t *list = NULL;
    size_t count = 0;
    rc = meridian_mca_carto_graph_distance_list(graph, "Slot0", MCA_CARTO_MEM, &list, &count);
    if (rc == MERIDIAN_SUCCESS) {
        printf("Slot0 to MEM:");
        for (size_t i = 0; i < count; ++i) {
            printf(" %s:%llu", list[i].vertex, (unsigned long long)list[i].distance);
        }
        printf("\n");
        meridian_mca_carto_distance_list_free(list, count);
    }
    meridian_mca_carto_graph_free(graph);
    meridian_finalize();
    return rc == MERIDIAN_SUCCESS ? 0 : 1;
}
