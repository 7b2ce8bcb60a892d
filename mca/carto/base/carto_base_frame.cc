// SPDX-License-Identifier: BSD-3-Clause
// The carto framework object.
#include "mca/carto/base/carto_base_internal.hpp"
#include "mca/carto/base/static-components.h"
#include <meridian/mca/carto/carto.h>
#include <meridian/opal/util/c_boundary.hpp>

namespace
{

// The last close forgets the host's map: the component that made it may be
// unloaded, and the next open may select another.
int carto_base_close(mca_base_framework_t *)
{
    return meridian::c_boundary("carto framework close",
                                [] { return meridian::carto::framework_closing(); });
}

} // namespace

extern "C" {

mca_base_framework_t meridian_carto_base_framework = {
    .name = "carto",
    .description = "The host's map: processors, memory and ports as a weighted graph",
    .version = MCA_CARTO_BASE_VERSION,
    .flags = MCA_BASE_FRAMEWORK_FLAG_NONE,
    .register_params = nullptr,
    .open = nullptr,
    .close = carto_base_close,
    .static_components = mca_carto_base_static_components,
    .verbose = 0,
    .internal = nullptr,
};
}
