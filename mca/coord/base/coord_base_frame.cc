// SPDX-License-Identifier: BSD-3-Clause
// The coord framework object.  Multi-select: each plane goes to the first
// module, in priority order, that places it (coord.h).
#include "mca/coord/base/coord_base_internal.hpp"
#include "mca/coord/base/static-components.h"
#include <meridian/mca/coord/coord.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/util/c_boundary.hpp>

namespace
{

// coord_base_event_range: node, job (default) or launcher.
int event_range_value = 1;
int relay_timeout_value = 10000;
const mca_base_param_enum_value_t event_range_values[] = {
    {0, "node"},
    {1, "job"},
    {2, "launcher"},
    {0, nullptr},
};

int coord_base_register(mca_base_framework_t *)
{
    return meridian::c_boundary("coord framework register_params", [] {
        const int index = meridian_mca_base_param_register(
            "coord", "base", "event_range",
            "Which processes of the job hear of coordinates one of them changed "
            "(MERIDIAN_NETWORK_COORDS_UPDATED, a PMIx event): node (those on its node, which "
            "every PMIx server delivers), job (every process: its node's through PMIx, every "
            "other node's through Meridian's relay on that node's lowest rank, a TCP listener "
            "that takes only frames proved by its key) or launcher (every process, through the "
            "launcher's PMIx servers -- for launchers that forward a process's events; Open "
            "MPI 4.1's mpirun does not, and the job hangs)",
            MCA_BASE_PARAM_TYPE_ENUM, event_range_values, MCA_BASE_INFO_TUNER_DETAIL,
            MCA_BASE_PARAM_FLAG_NONE, &event_range_value);
        if (index < 0) {
            return index;
        }
        const int patience = meridian_mca_base_param_register(
            "coord", "base", "relay_timeout",
            "Milliseconds a sender waits for another node's relay to take a coordinates-updated "
            "event, and a relay for a sender's whole frame (coord_base_event_range=job)",
            MCA_BASE_PARAM_TYPE_INT, nullptr, MCA_BASE_INFO_TUNER_DETAIL, MCA_BASE_PARAM_FLAG_NONE,
            &relay_timeout_value);
        return patience < 0 ? patience : MERIDIAN_SUCCESS;
    });
}

// The last close forgets the context: the modules that placed it may be
// unloaded, and the next open may select others.
int coord_base_close(mca_base_framework_t *)
{
    return meridian::c_boundary("coord framework close",
                                [] { return meridian::coord::detail::framework_closing(); });
}

} // namespace

namespace meridian::coord::detail
{
EventRange event_range()
{
    switch (event_range_value) {
    case 0:
        return EventRange::node;
    case 2:
        return EventRange::launcher;
    default:
        return EventRange::job;
    }
}

std::chrono::milliseconds relay_timeout()
{
    return std::chrono::milliseconds(relay_timeout_value > 0 ? relay_timeout_value : 1);
}
} // namespace meridian::coord::detail

extern "C" {

mca_base_framework_t meridian_coord_base_framework = {
    .name = "coord",
    .description = "Network coordinates, views and communication cost",
    .version = MCA_COORD_BASE_VERSION,
    .flags = MCA_BASE_FRAMEWORK_FLAG_MULTI_SELECT,
    .register_params = coord_base_register,
    .open = nullptr,
    .close = coord_base_close,
    .static_components = mca_coord_base_static_components,
    .verbose = 0,
    .internal = nullptr,
};
}
