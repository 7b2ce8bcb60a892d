/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A carto component for the meridian_info benchmark, compiled once per name:
 *
 *   cc -shared -fPIC -DBENCH_NAME=bench042 -DBENCH_PARAMS=17 ... \
 *      -o mca_carto_bench042.so bench_component.c
 *
 * so that meridian_info can be timed with as many DSOs, and about as many
 * parameters, as ompi_info opens.  It registers BENCH_PARAMS parameters of
 * mixed types (like a real component's) and offers no module.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <meridian/mca/carto/carto.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/util/error.h>

#ifndef BENCH_NAME
#error "compile with -DBENCH_NAME=<component name>"
#endif
#ifndef BENCH_PARAMS
#define BENCH_PARAMS 16
#endif

#define BENCH_STR2(x) #x
#define BENCH_STR(x) BENCH_STR2(x)
#define BENCH_CAT3(a, b, c) a##b##c
#define BENCH_SYMBOL(name) BENCH_CAT3(mca_carto_, name, _component)

/* One storage slot per parameter; which member is used depends on the type. */
static struct {
    int number;
    bool flag;
    const char *text;
    size_t size;
    double ratio;
} slots[BENCH_PARAMS];

static const mca_base_param_enum_value_t modes[] = {
    {0, "off"}, {1, "auto"}, {2, "always"}, {0, NULL}};

static int bench_register_params(const mca_base_component_t *self)
{
    for (int i = 0; i < BENCH_PARAMS; ++i) {
        char name[32];
        snprintf(name, sizeof name, "param%02d", i);
        int index;
        switch (i % 6) {
        case 0:
            slots[i].number = i;
            index = meridian_mca_base_component_param_register(
                self, name, "An integer of the benchmark", MCA_BASE_PARAM_TYPE_INT, NULL, 1 + i % 9,
                MCA_BASE_PARAM_FLAG_NONE, &slots[i].number);
            if (index >= 0) {
                index = meridian_mca_base_param_set_bounds(index, 0, 1000);
            }
            break;
        case 1:
            slots[i].flag = true;
            index = meridian_mca_base_component_param_register(
                self, name, "A switch of the benchmark", MCA_BASE_PARAM_TYPE_BOOL, NULL, 1 + i % 9,
                MCA_BASE_PARAM_FLAG_NONE, &slots[i].flag);
            break;
        case 2:
            slots[i].text = "eth0,ib0";
            index = meridian_mca_base_component_param_register(
                self, name, "A string of the benchmark", MCA_BASE_PARAM_TYPE_STRING, NULL,
                1 + i % 9, MCA_BASE_PARAM_FLAG_NONE, &slots[i].text);
            break;
        case 3:
            slots[i].size = 65536;
            index = meridian_mca_base_component_param_register(
                self, name, "A size of the benchmark", MCA_BASE_PARAM_TYPE_SIZE, NULL, 1 + i % 9,
                MCA_BASE_PARAM_FLAG_NONE, &slots[i].size);
            break;
        case 4:
            slots[i].number = 1;
            index = meridian_mca_base_component_param_register(
                self, name, "A mode of the benchmark", MCA_BASE_PARAM_TYPE_ENUM, modes, 1 + i % 9,
                MCA_BASE_PARAM_FLAG_NONE, &slots[i].number);
            break;
        default:
            slots[i].ratio = 0.5;
            index = meridian_mca_base_component_param_register(
                self, name, "A ratio of the benchmark", MCA_BASE_PARAM_TYPE_DOUBLE, NULL, 1 + i % 9,
                MCA_BASE_PARAM_FLAG_NONE, &slots[i].ratio);
            break;
        }
        if (index < 0) {
            return index;
        }
    }
    return MERIDIAN_SUCCESS;
}

static int bench_query(const mca_base_component_t *self, mca_base_module_t **module, int *priority)
{
    (void)self;
    (void)module;
    (void)priority;
    return MERIDIAN_ERR_NOT_AVAILABLE;
}

__attribute__((visibility("default"))) const mca_carto_base_component_t BENCH_SYMBOL(BENCH_NAME) = {
    {
        MCA_BASE_COMPONENT_ABI,
        "carto",
        MCA_CARTO_BASE_VERSION,
        BENCH_STR(BENCH_NAME),
        {1, 0, 0},
        bench_register_params,
        NULL,
        NULL,
        bench_query,
    },
};
