/*
 * A program built against an installed Meridian (pkg-config meridian), the
 * way a third party's program is: initialise, open carto, select, and say
 * which component won and what its module answers.
 *
 * Output, one fact a line:
 *   selected: <component> <major>.<minor>.<release>
 *   get_graph: <meridian_strerror of the module's answer>
 */
#include <stdio.h>

#include "mca/carto/carto.h"
#include "opal/runtime/meridian.h"
#include "opal/util/error.h"

int main(int argc, char **argv)
{
    int rc = meridian_init(&argc, &argv);
    if (rc != MERIDIAN_SUCCESS) {
        fprintf(stderr, "meridian_init: %s\n", meridian_strerror(rc));
        return 1;
    }
    rc = mca_base_framework_open(&meridian_carto_base_framework);
    if (rc != MERIDIAN_SUCCESS) {
        fprintf(stderr, "open carto: %s\n", meridian_strerror(rc));
        meridian_finalize();
        return 1;
    }
    mca_base_module_t *module = NULL;
    const mca_base_component_t *component = NULL;
    rc = mca_base_select(&meridian_carto_base_framework, &module, &component);
    if (rc != MERIDIAN_SUCCESS) {
        printf("selected: none (%s)\n", meridian_strerror(rc));
    } else {
        printf("selected: %s %d.%d.%d\n", component->component_name,
               component->component_version.major, component->component_version.minor,
               component->component_version.release);
        const mca_carto_base_module_t *carto = module;
        mca_carto_graph_t *graph = NULL;
        printf("get_graph: %s\n", meridian_strerror(carto->get_graph(MCA_CARTO_ALL, &graph)));
        if (graph != NULL) {
            carto->free_graph(graph);
        }
    }
    mca_base_framework_close(&meridian_carto_base_framework);
    meridian_finalize();
    return rc == MERIDIAN_SUCCESS ? 0 : 2;
}
