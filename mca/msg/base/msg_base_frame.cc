// SPDX-License-Identifier: BSD-3-Clause
// The msg framework object and the base's parameters: the limits every
// transport's channels share.  Their names before the transports were
// components (msg_ofi_*) still work, with a warning naming the new one.

#include "mca/msg/base/msg_layer.hpp"
#include "mca/msg/base/static-components.h"
#include <meridian/mca/msg/msg.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/util/c_boundary.hpp>

namespace
{

// Parameter storage: the initial values are the defaults; Meridian writes
// the value resolved from every source back here.
int base_timeout = 300;                        // seconds
int base_liveness = 5;                         // ms
std::size_t base_unexpected_limit = 256 << 20; // bytes
int base_launcher_loss = 3;                    // seconds

struct ParamSpec {
    const char *name;
    const char *help;
    mca_base_param_type_t type;
    mca_base_param_info_level_t level;
    void *storage;
    double min, max;
    // The component whose name the parameter had when one component held
    // every transport (a deprecated synonym msg_<it>_<name>), or none.
    const char *old_component;
};
const ParamSpec param_specs[] = {
    {"timeout",
     "Seconds a wait without a limit of its own lasts before it fails with a timeout "
     "(0: no limit; a dead process of this node is detected anyway, and so is one whose "
     "transport says it is gone)",
     MCA_BASE_PARAM_TYPE_INT, MCA_BASE_INFO_USER_ALL, &base_timeout, 0, 1e7, "ofi"},
    {"unexpected_limit",
     "Bytes of messages that arrived before their receive, held at most (by the transports "
     "that hand their messages to the base: sm's rings, tcp): a message that would pass it "
     "stays in its ring or connection (its sender's send waits, and so does all that sender "
     "sends after it) until its receive is started",
     MCA_BASE_PARAM_TYPE_SIZE, MCA_BASE_INFO_TUNER_DETAIL, &base_unexpected_limit, 0, 1e15, "ofi"},
    {"liveness",
     "Milliseconds between checks, while waiting, that the peers on this node still live",
     MCA_BASE_PARAM_TYPE_INT, MCA_BASE_INFO_DEV_DETAIL, &base_liveness, 1, 60000, "ofi"},
    {"launcher_loss",
     "Seconds a process lives on once its launcher is gone (the PMIx server of mpirun's "
     "daemon, prterun or the Slurm step: killed, or its node lost): its waits fail at once "
     "with the reason, and after this many seconds the process ends (0: at once; -1: it "
     "runs on, as an orphan)",
     MCA_BASE_PARAM_TYPE_INT, MCA_BASE_INFO_USER_DETAIL, &base_launcher_loss, -1, 86400, nullptr},
};

int register_params(mca_base_framework_t *)
{
    return meridian::c_boundary("msg register_params", [&]() -> int {
        for (const ParamSpec &spec : param_specs) {
            const int index = meridian_mca_base_param_register(
                "msg", "base", spec.name, spec.help, spec.type, nullptr, spec.level,
                MCA_BASE_PARAM_FLAG_READONLY_AFTER_OPEN, spec.storage);
            if (index < 0) {
                return index;
            }
            if (const int rc = meridian_mca_base_param_set_bounds(index, spec.min, spec.max);
                rc < 0) {
                return rc;
            }
            if (spec.old_component == nullptr) {
                continue;
            }
            if (const int rc = meridian_mca_base_param_register_synonym(
                    index, "msg", spec.old_component, spec.name, MCA_BASE_PARAM_FLAG_DEPRECATED);
                rc < 0) {
                return rc;
            }
        }
        return MERIDIAN_SUCCESS;
    });
}

} // namespace

namespace meridian::msg
{

Params current_params()
{
    Params params;
    params.timeout_s = base_timeout;
    params.liveness_ms = base_liveness;
    params.unexpected_limit = base_unexpected_limit;
    params.launcher_loss_s = base_launcher_loss;
    return params;
}

} // namespace meridian::msg

extern "C" {

mca_base_framework_t meridian_msg_base_framework = {
    .name = "msg",
    .description = "Message transports under the QMP API, chosen per peer",
    .version = MCA_MSG_BASE_VERSION,
    .flags = MCA_BASE_FRAMEWORK_FLAG_MULTI_SELECT,
    .register_params = register_params,
    .open = nullptr,
    .close = nullptr,
    .static_components = mca_msg_base_static_components,
    .verbose = 0,
    .internal = nullptr,
};
}
