// The msg framework object.
#include "mca/msg/base/static-components.h"
#include <meridian/mca/msg/msg.h>

extern "C" {

mca_base_framework_t meridian_msg_base_framework = {
    .name = "msg",
    .description = "Message transports under the QMP API",
    .version = MCA_MSG_BASE_VERSION,
    .flags = MCA_BASE_FRAMEWORK_FLAG_NONE,
    .register_params = nullptr,
    .open = nullptr,
    .close = nullptr,
    .static_components = mca_msg_base_static_components,
    .verbose = 0,
    .internal = nullptr,
};
}
