/*
 * carto/example: a third-party component built out of tree.
 *
 * It shows the plumbing only: the exported component struct, parameters
 * registered in register_params, and a module offered from query.  It knows
 * nothing about the host, so every module function answers
 * MERIDIAN_ERR_NOT_SUPPORTED; a real component would build the graph there.
 *
 * The component ABI is C (mca/carto/carto.h, opal/mca/mca.h), so this file is
 * plain C; a C++ component exports the same struct with extern "C".
 */
#include <stdbool.h>
#include <stddef.h>

#include "mca/carto/carto.h"
#include "opal/mca/base/mca_base_param.h"
#include "opal/util/error.h"

/* Only the component struct leaves the DSO; the Makefile hides the rest
 * (-fvisibility=hidden), so two components never clash on a helper's name. */
#define EXAMPLE_EXPORT __attribute__((visibility("default")))

/* Parameter storage.  The initial values are the defaults; Meridian writes the
 * value resolved from files, environment and command line back here. */
static int example_priority = 5; /* low: a dropped-in example must not outrank real maps */
static bool example_enable = true;

/* ---------------------------------------------------------------- module */

static int example_get_graph(mca_carto_vertex_type_t type, mca_carto_graph_t **graph)
{
    (void) type;
    *graph = NULL;
    return MERIDIAN_ERR_NOT_SUPPORTED;
}

static void example_free_graph(mca_carto_graph_t *graph)
{
    /* get_graph never hands one out. */
    (void) graph;
}

static int example_distance_list(const char *from, mca_carto_vertex_type_t type,
                                 mca_carto_distance_t **list, size_t *count)
{
    (void) from;
    (void) type;
    *list = NULL;
    *count = 0;
    return MERIDIAN_ERR_NOT_SUPPORTED;
}

static void example_free_distance_list(mca_carto_distance_t *list, size_t count)
{
    (void) list;
    (void) count;
}

/* The module stays owned by the component (see query in opal/mca/mca.h). */
static mca_carto_base_module_t example_module = {
    example_get_graph,
    example_free_graph,
    example_distance_list,
    example_free_distance_list,
};

/* ---------------------------------------------------------------- hooks */

/* Registers carto_example_priority and carto_example_enable (the framework
 * and component names are taken from self). */
static int example_register_params(const mca_base_component_t *self)
{
    int index = mca_base_component_param_register(
        self, "priority", "Selection priority of the example carto component (higher wins)",
        MCA_BASE_PARAM_TYPE_INT, NULL, 5, MCA_BASE_PARAM_FLAG_NONE, &example_priority);
    if (index < 0) {
        return index;
    }
    if ((index = mca_base_param_set_bounds(index, 0, 100)) < 0) {
        return index;
    }
    index = mca_base_component_param_register(
        self, "enable", "Offer the example module at all (false: decline in query)",
        MCA_BASE_PARAM_TYPE_BOOL, NULL, 2, MCA_BASE_PARAM_FLAG_NONE, &example_enable);
    return index < 0 ? index : MERIDIAN_SUCCESS;
}

static int example_query(const mca_base_component_t *self, mca_base_module_t **module,
                         int *priority)
{
    (void) self;
    if (!example_enable) {
        return MERIDIAN_ERR_NOT_AVAILABLE; /* declining is not an error */
    }
    *module = &example_module;
    *priority = example_priority;
    return MERIDIAN_SUCCESS;
}

/* ---------------------------------------------------------------- component */

/* The loader looks for mca_<framework>_<component>_component in
 * mca_<framework>_<component>.so and checks the names and versions in it. */
EXAMPLE_EXPORT const mca_carto_base_component_t mca_carto_example_component = {
    {
        MCA_BASE_COMPONENT_ABI,
        "carto",
        MCA_CARTO_BASE_VERSION,
        "example",
        {1, 0, 0},
        example_register_params,
        NULL, /* open: nothing to acquire */
        NULL, /* close: nothing to release */
        example_query,
    },
};
