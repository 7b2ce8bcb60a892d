/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pnet/infoquiet: a component with no parameters at all; meridian_info must
 * still list it.
 */
#include <stddef.h>

#include <meridian/mca/pnet/pnet.h>

const mca_pnet_base_component_t mca_pnet_infoquiet_component = {
    {
        MCA_BASE_COMPONENT_ABI,
        "pnet",
        MCA_PNET_BASE_VERSION,
        "infoquiet",
        {0, 9, 1},
        NULL,
        NULL,
        NULL,
        NULL,
    },
};
