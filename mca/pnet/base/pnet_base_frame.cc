// SPDX-License-Identifier: BSD-3-Clause
// The pnet framework object and its pnet_base_* parameters.
#include <cstdlib>
#include <string>

#include "mca/pnet/base/pnet_base_internal.hpp"
#include "mca/pnet/base/static-components.h"
#include <meridian/mca/pnet/base/base.hpp>
#include <meridian/mca/pnet/pnet.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/util/c_boundary.hpp>
#include <meridian/opal/util/error.h>

namespace
{

// Parameter storage (initial values are the defaults).
const char *requests_text = nullptr;
const char *default_type_text = "tcp";
bool launcher_requests_value = true;
int in_job_value = static_cast<int>(meridian::pnet::InJobMode::automatic);
int node_leader_value = static_cast<int>(meridian::pnet::InJobMode::automatic);

const mca_base_param_enum_value_t in_job_values[] = {
    {static_cast<int>(meridian::pnet::InJobMode::automatic), "auto"},
    {static_cast<int>(meridian::pnet::InJobMode::yes), "yes"},
    {static_cast<int>(meridian::pnet::InJobMode::no), "no"},
    {0, nullptr},
};

int register_params()
{
    int index = meridian_mca_base_param_register(
        "pnet", "base", "requests",
        "Network allocation requests of the job, ';'-separated: "
        "id=NAME[,type=TYPE][,plane=PLANE][,endpts=N][,seckey[=BYTES]][,qos=N][,bw=RATE]"
        "[,required] (\"!\" after a value makes just that value required)",
        MCA_BASE_PARAM_TYPE_STRING, nullptr, MCA_BASE_INFO_USER_ALL, MCA_BASE_PARAM_FLAG_NONE,
        &requests_text);
    if (index < 0) {
        return index;
    }
    index = meridian_mca_base_param_register(
        "pnet", "base", "launcher_requests",
        "Honour the network allocation requests a launcher makes itself (PMIx's "
        "PMIX_ALLOC_NETWORK, read by the pnet plugin for libpmix: Open MPI 5's mpirun asks "
        "every job for \"NAMESPACE.net\" with a security key) beside pnet_base_requests",
        MCA_BASE_PARAM_TYPE_BOOL, nullptr, MCA_BASE_INFO_TUNER_DETAIL, MCA_BASE_PARAM_FLAG_NONE,
        &launcher_requests_value);
    if (index < 0) {
        return index;
    }
    index = meridian_mca_base_param_register(
        "pnet", "base", "default_type",
        "The type of a network request that names none, and of one whose type no pnet "
        "component serves when the type is not required",
        MCA_BASE_PARAM_TYPE_STRING, nullptr, MCA_BASE_INFO_TUNER_DETAIL, MCA_BASE_PARAM_FLAG_NONE,
        &default_type_text);
    if (index < 0) {
        return index;
    }
    index = meridian_mca_base_param_register(
        "pnet", "base", "node_leader",
        "Under a PMIx launcher that set the job's network up nowhere, one process per node (its "
        "lowest rank) sets up the node's share and the node's others read it, instead of every "
        "process computing the whole job: auto (under Slurm's srun, which sets nothing up), "
        "yes, no",
        MCA_BASE_PARAM_TYPE_ENUM, in_job_values, MCA_BASE_INFO_TUNER_DETAIL,
        MCA_BASE_PARAM_FLAG_NONE, &node_leader_value);
    if (index < 0) {
        return index;
    }
    index = meridian_mca_base_param_register(
        "pnet", "base", "in_job",
        "Run the pnet pipeline inside the job at meridian_init: auto (when the datastore is "
        "PMIx, or for a singleton), yes, no",
        MCA_BASE_PARAM_TYPE_ENUM, in_job_values, MCA_BASE_INFO_TUNER_DETAIL,
        MCA_BASE_PARAM_FLAG_NONE, &in_job_value);
    return index < 0 ? index : MERIDIAN_SUCCESS;
}

int pnet_base_register(mca_base_framework_t *)
{
    return meridian::c_boundary("pnet framework register_params", register_params);
}

int pnet_base_close(mca_base_framework_t *)
{
    return meridian::c_boundary("pnet framework close", [] {
        meridian::pnet::detail::framework_closing();
        return MERIDIAN_SUCCESS;
    });
}

} // namespace

namespace meridian::pnet
{

std::string default_type()
{
    return default_type_text != nullptr ? default_type_text : "";
}

InJobMode in_job_mode()
{
    return static_cast<InJobMode>(in_job_value);
}

bool node_leader_wanted()
{
    switch (static_cast<InJobMode>(node_leader_value)) {
    case InJobMode::yes:
        return true;
    case InJobMode::no:
        return false;
    case InJobMode::automatic:
        break;
    }
    // A task of a Slurm step: srun started it (Slurm's PMIx plugin sets up
    // nothing before the tasks start).
    return std::getenv("SLURM_STEP_ID") != nullptr && std::getenv("SLURM_JOB_ID") != nullptr;
}

namespace detail
{
const char *requests_parameter_text()
{
    return requests_text;
}
bool launcher_requests_wanted()
{
    return launcher_requests_value;
}
} // namespace detail

} // namespace meridian::pnet

extern "C" {

mca_base_framework_t meridian_pnet_base_framework = {
    .name = "pnet",
    .description = "Network resources assigned to processes before launch",
    .version = MCA_PNET_BASE_VERSION,
    .flags = MCA_BASE_FRAMEWORK_FLAG_MULTI_SELECT,
    .register_params = pnet_base_register,
    .open = nullptr,
    .close = pnet_base_close,
    .static_components = mca_pnet_base_static_components,
    .verbose = 0,
    .internal = nullptr,
};
}
