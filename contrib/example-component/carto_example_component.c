/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * carto/example: a third-party component built out of tree.
 *
 * It shows a whole component: the exported component struct, parameters
 * registered in register_params, a module offered from query, and map_host
 * building a graph.  The map is made up (carto_example_slots packages, each
 * with its memory node) rather than read from the machine: a real component
 * would ask the system here.  The carto base answers every query about the
 * map (distance lists, paths, per-type graphs), so a component only builds it.
 *
 * The component ABI is C (mca/carto/carto.h, opal/mca/mca.h), so this file is
 * plain C; a C++ component exports the same struct with extern "C".
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <meridian/mca/carto/carto.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/util/error.h>

/* Only the component struct leaves the DSO; the Makefile hides the rest
 * (-fvisibility=hidden), so two components never clash on a helper's name. */
#define EXAMPLE_EXPORT __attribute__((visibility("default")))

/* Parameter storage.  The initial values are the defaults; Meridian writes the
 * value resolved from files, environment and command line back here. */
static int example_priority = 5; /* low: a dropped-in example must not outrank real maps */
static bool example_enable = true;
static int example_slots = 2;

/* ---------------------------------------------------------------- module */

/* Slot<i> with its local MEM<i> (weight 10 both ways), and every pair of
 * slots linked with weight 20: from Slot0, MEM0 is at 10 and MEM1 at 30. */
static int example_map_host(const mca_carto_base_module_t *self, mca_carto_graph_t *graph)
{
    (void)self;
    char slot[32], mem[32], other[32];
    int rc;
    for (int i = 0; i < example_slots; ++i) {
        snprintf(slot, sizeof slot, "Slot%d", i);
        snprintf(mem, sizeof mem, "MEM%d", i);
        if ((rc = meridian_mca_carto_graph_add_vertex(graph, slot, MCA_CARTO_SLOT)) !=
                MERIDIAN_SUCCESS ||
            (rc = meridian_mca_carto_graph_add_vertex(graph, mem, MCA_CARTO_MEM)) !=
                MERIDIAN_SUCCESS) {
            return rc; /* the graph reported why */
        }
    }
    for (int i = 0; i < example_slots; ++i) {
        snprintf(slot, sizeof slot, "Slot%d", i);
        snprintf(mem, sizeof mem, "MEM%d", i);
        if ((rc = meridian_mca_carto_graph_add_edge(graph, slot, mem, 10)) != MERIDIAN_SUCCESS ||
            (rc = meridian_mca_carto_graph_add_edge(graph, mem, slot, 10)) != MERIDIAN_SUCCESS) {
            return rc;
        }
        for (int j = 0; j < example_slots; ++j) {
            snprintf(other, sizeof other, "Slot%d", j);
            if (j != i && (rc = meridian_mca_carto_graph_add_edge(graph, slot, other, 20)) !=
                              MERIDIAN_SUCCESS) {
                return rc;
            }
        }
    }
    return MERIDIAN_SUCCESS;
}

/* The module stays owned by the component (see query in opal/mca/mca.h). */
static mca_carto_base_module_t example_module = {
    example_map_host,
};

/* ---------------------------------------------------------------- hooks */

/* Registers carto_example_priority and carto_example_enable (the framework
 * and component names are taken from self). */
static int example_register_params(const mca_base_component_t *self)
{
    int index = meridian_mca_base_component_param_register(
        self, "priority", "Selection priority of the example carto component (higher wins)",
        MCA_BASE_PARAM_TYPE_INT, NULL, 5, MCA_BASE_PARAM_FLAG_NONE, &example_priority);
    if (index < 0) {
        return index;
    }
    if ((index = meridian_mca_base_param_set_bounds(index, 0, 100)) < 0) {
        return index;
    }
    index = meridian_mca_base_component_param_register(
        self, "enable", "Offer the example module at all (false: decline in query)",
        MCA_BASE_PARAM_TYPE_BOOL, NULL, 2, MCA_BASE_PARAM_FLAG_NONE, &example_enable);
    if (index < 0) {
        return index;
    }
    index = meridian_mca_base_component_param_register(
        self, "slots", "Number of made-up packages (Slot<n>), each with its memory node (MEM<n>)",
        MCA_BASE_PARAM_TYPE_INT, NULL, 2, MCA_BASE_PARAM_FLAG_NONE, &example_slots);
    if (index < 0) {
        return index;
    }
    index = meridian_mca_base_param_set_bounds(index, 1, 64);
    return index < 0 ? index : MERIDIAN_SUCCESS;
}

static int example_query(const mca_base_component_t *self, mca_base_module_t **module,
                         int *priority)
{
    (void)self;
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
