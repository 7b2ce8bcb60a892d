// The coord framework object.
#include "mca/coord/coord.h"
#include "mca/coord/base/static-components.h"

extern "C" {

mca_base_framework_t meridian_coord_base_framework = {
    "coord",
    "Network coordinates, views and communication cost",
    MCA_COORD_BASE_VERSION,
    MCA_BASE_FRAMEWORK_FLAG_NONE,
    nullptr,
    nullptr,
    nullptr,
    mca_coord_base_static_components,
    0,
    nullptr,
};

}
