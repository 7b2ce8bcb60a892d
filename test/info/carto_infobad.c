/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * carto/infobad: built for a carto interface this library does not have;
 * the loader must refuse it and meridian_info --show-failed say why.
 */
#include <stddef.h>

#include <meridian/mca/carto/carto.h>

const mca_carto_base_component_t mca_carto_infobad_component = {
    {
        MCA_BASE_COMPONENT_ABI,
        "carto",
        {9, 0, 0}, /* no carto interface 9 exists */
        "infobad",
        {1, 0, 0},
        NULL,
        NULL,
        NULL,
        NULL,
    },
};
