// The carto framework object.
#include "mca/carto/base/carto_base_internal.hpp"
#include <meridian/mca/carto/carto.h>
#include "mca/carto/base/static-components.h"

namespace {

// The last close forgets the host's map: the component that made it may be
// unloaded, and the next open may select another.
int carto_base_close(mca_base_framework_t *)
{
    return meridian::carto::framework_closing();
}

} // namespace

extern "C" {

mca_base_framework_t meridian_carto_base_framework = {
    "carto",
    "The host's map: processors, memory and ports as a weighted graph",
    MCA_CARTO_BASE_VERSION,
    MCA_BASE_FRAMEWORK_FLAG_NONE,
    nullptr,
    nullptr,
    carto_base_close,
    mca_carto_base_static_components,
    0,
    nullptr,
};

}
