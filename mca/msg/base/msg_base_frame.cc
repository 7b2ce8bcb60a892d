// The msg framework object.
#include <meridian/mca/msg/msg.h>
#include "mca/msg/base/static-components.h"

extern "C" {

mca_base_framework_t meridian_msg_base_framework = {
    "msg",
    "Message transports under the QMP API",
    MCA_MSG_BASE_VERSION,
    MCA_BASE_FRAMEWORK_FLAG_NONE,
    nullptr,
    nullptr,
    nullptr,
    mca_msg_base_static_components,
    0,
    nullptr,
};

}
