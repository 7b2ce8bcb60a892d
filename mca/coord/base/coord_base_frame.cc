// The coord framework object.  Multi-select: each plane goes to the first
// module, in priority order, that places it (coord.h).
#include "mca/coord/base/coord_base_internal.hpp"
#include "mca/coord/base/static-components.h"
#include <meridian/mca/coord/coord.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/util/c_boundary.hpp>

namespace
{

// coord_base_event_range: node (default) or job.
int event_range_value = 0;
const mca_base_param_enum_value_t event_range_values[] = {
    {0, "node"},
    {1, "job"},
    {0, nullptr},
};

int coord_base_register(mca_base_framework_t *)
{
    return meridian::c_boundary("coord framework register_params", [] {
        const int index = meridian_mca_base_param_register(
            "coord", "base", "event_range",
            "Which processes of the job hear of coordinates one of them changed "
            "(MERIDIAN_NETWORK_COORDS_UPDATED, a PMIx event): node (those on its node; every "
            "PMIx server delivers it) or job (every process; needs a launcher that forwards a "
            "process's events -- Open MPI 4.1's mpirun does not, and the job hangs)",
            MCA_BASE_PARAM_TYPE_ENUM, event_range_values, MCA_BASE_INFO_TUNER_DETAIL,
            MCA_BASE_PARAM_FLAG_NONE, &event_range_value);
        return index < 0 ? index : MERIDIAN_SUCCESS;
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
datastore::Store::EventRange event_range()
{
    return event_range_value == 1 ? datastore::Store::EventRange::job
                                  : datastore::Store::EventRange::node;
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
