// The pnet framework object.
#include "mca/pnet/pnet.h"
#include "mca/pnet/base/static-components.h"

extern "C" {

mca_base_framework_t meridian_pnet_base_framework = {
    "pnet",
    "Network resources assigned to processes before launch",
    MCA_PNET_BASE_VERSION,
    MCA_BASE_FRAMEWORK_FLAG_MULTI_SELECT,
    nullptr,
    nullptr,
    nullptr,
    mca_pnet_base_static_components,
    0,
    nullptr,
};

}
