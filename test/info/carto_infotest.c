/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * carto/infotest: a component for meridian_info's tests.  It registers one
 * parameter of nearly every type, with the features meridian_info shows
 * (named values, bounds, a deprecated synonym, a deprecated parameter, help
 * with a newline and a colon, an unset string) and an alias the selection
 * parameter takes ("infoalias"), and does nothing else.
 */
#include <stdbool.h>
#include <stddef.h>

#include <meridian/mca/carto/carto.h>
#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/util/error.h>

static int infotest_mode = 1;
static const char *infotest_label = NULL;
static int infotest_priority = 10;
static size_t infotest_buffer = 65536;
static const char *const infotest_default_hosts[] = {"alpha", "beta", NULL};
static const char *const *infotest_hosts = infotest_default_hosts;
static double infotest_ratio = 0.5;
static bool infotest_legacy = false;

static const mca_base_param_enum_value_t infotest_modes[] = {
    {0, "off"}, {1, "fast"}, {2, "exact"}, {0, NULL}};

static int infotest_register_params(const mca_base_component_t *self)
{
    int index = meridian_mca_base_component_param_register(
        self, "mode", "How the test component works", MCA_BASE_PARAM_TYPE_ENUM, infotest_modes, 1,
        MCA_BASE_PARAM_FLAG_NONE, &infotest_mode);
    if (index < 0 || meridian_mca_base_param_register_synonym(index, "carto", "infotest", "style",
                                                              MCA_BASE_PARAM_FLAG_DEPRECATED) < 0) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    if (meridian_mca_base_component_param_register(
            self, "label", "Free text for the tests.\nA second line: with a colon",
            MCA_BASE_PARAM_TYPE_STRING, NULL, 1, MCA_BASE_PARAM_FLAG_NONE, &infotest_label) < 0) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    index = meridian_mca_base_component_param_register(
        self, "priority", "Selection priority", MCA_BASE_PARAM_TYPE_INT, NULL, 3,
        MCA_BASE_PARAM_FLAG_NONE, &infotest_priority);
    if (index < 0 || meridian_mca_base_param_set_bounds(index, 0, 100) < 0) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    if (meridian_mca_base_component_param_register(
            self, "buffer", "Buffer size", MCA_BASE_PARAM_TYPE_SIZE, NULL, 9,
            MCA_BASE_PARAM_FLAG_NONE, &infotest_buffer) < 0) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    if (meridian_mca_base_component_param_register(self, "hosts", "Hosts to pretend to map",
                                                   MCA_BASE_PARAM_TYPE_LIST, NULL, 1,
                                                   MCA_BASE_PARAM_FLAG_NONE, &infotest_hosts) < 0) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    index = meridian_mca_base_component_param_register(self, "ratio", "A fraction",
                                                       MCA_BASE_PARAM_TYPE_DOUBLE, NULL, 4,
                                                       MCA_BASE_PARAM_FLAG_NONE, &infotest_ratio);
    if (index < 0 || meridian_mca_base_param_set_bounds(index, 0, 1) < 0) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    if (meridian_mca_base_component_param_register(self, "legacy", "", MCA_BASE_PARAM_TYPE_BOOL,
                                                   NULL, 9, MCA_BASE_PARAM_FLAG_DEPRECATED,
                                                   &infotest_legacy) < 0) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    return meridian_mca_base_component_alias(self, "infoalias");
}

const mca_carto_base_component_t mca_carto_infotest_component = {
    {
        MCA_BASE_COMPONENT_ABI,
        "carto",
        MCA_CARTO_BASE_VERSION,
        "infotest",
        {1, 2, 3},
        infotest_register_params,
        NULL,
        NULL,
        NULL,
    },
};
