// The carto framework object.
#include "mca/carto/carto.h"
#include "mca/carto/base/static-components.h"

extern "C" {

mca_base_framework_t meridian_carto_base_framework = {
    "carto",
    "The host's map: processors, memory and ports as a weighted graph",
    MCA_CARTO_BASE_VERSION,
    MCA_BASE_FRAMEWORK_FLAG_NONE,
    nullptr,
    nullptr,
    nullptr,
    mca_carto_base_static_components,
    0,
    nullptr,
};

}
