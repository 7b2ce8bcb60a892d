// The coord framework object.  Multi-select: each plane goes to the first
// module, in priority order, that places it (coord.h).
#include "mca/coord/base/coord_base_internal.hpp"
#include "mca/coord/base/static-components.h"
#include <meridian/mca/coord/coord.h>
#include <meridian/opal/util/c_boundary.hpp>

namespace
{

// The last close forgets the context: the modules that placed it may be
// unloaded, and the next open may select others.
int coord_base_close(mca_base_framework_t *)
{
    return meridian::c_boundary("coord framework close",
                                [] { return meridian::coord::detail::framework_closing(); });
}

} // namespace

extern "C" {

mca_base_framework_t meridian_coord_base_framework = {
    .name = "coord",
    .description = "Network coordinates, views and communication cost",
    .version = MCA_COORD_BASE_VERSION,
    .flags = MCA_BASE_FRAMEWORK_FLAG_MULTI_SELECT,
    .register_params = nullptr,
    .open = nullptr,
    .close = coord_base_close,
    .static_components = mca_coord_base_static_components,
    .verbose = 0,
    .internal = nullptr,
};
}
