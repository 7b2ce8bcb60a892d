// SPDX-License-Identifier: BSD-3-Clause
// The job handle: Grant/Job accessors, the environment setup_fork builds, and
// make_job (resolving each request's type against the active modules).
#include <algorithm>
#include <cstring>
#include <string>

#include "mca/pnet/base/pnet_base_internal.hpp"
#include <meridian/mca/pnet/base/base.hpp>
#include <meridian/opal/util/c_boundary.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>
#include <meridian/opal/util/strings.hpp>

namespace meridian::pnet
{

namespace
{

template <typename T>
std::span<const T> slice(const std::vector<std::uint32_t> &offsets, const std::vector<T> &items,
                         std::uint32_t rank)
{
    // No offsets: nothing of this kind was assigned to anybody.
    if (static_cast<std::size_t>(rank) + 1 >= offsets.size()) {
        return {};
    }
    const std::uint32_t begin = offsets[rank];
    const std::uint32_t end = offsets[rank + 1];
    return std::span<const T>(items).subspan(begin, end - begin);
}

} // namespace

std::span<const std::uint16_t> Grant::ports_of(std::uint32_t rank) const
{
    return slice(port_offsets, ports, rank);
}

std::span<const std::uint32_t> Grant::devices_of(std::uint32_t rank) const
{
    return slice(device_offsets, devices, rank);
}

std::span<const fabric::Index> Job::nics_of(std::uint32_t rank) const
{
    if (fabric == nullptr || rank >= map.procs.size()) {
        return {};
    }
    const auto &proc = map.procs[rank];
    return fabric->nics_by_distance(proc.node, proc.package);
}

Grant *Job::grant(std::string_view id)
{
    const auto it = std::find_if(grants.begin(), grants.end(),
                                 [&](const Grant &grant) { return grant.id == id; });
    return it == grants.end() ? nullptr : &*it;
}

const Grant *Job::grant(std::string_view id) const
{
    const auto it = std::find_if(grants.begin(), grants.end(),
                                 [&](const Grant &grant) { return grant.id == id; });
    return it == grants.end() ? nullptr : &*it;
}

Result<std::unique_ptr<mca_pnet_job>> make_job(std::shared_ptr<const fabric::Fabric> fabric,
                                               fabric::JobMap map, std::vector<Request> requests)
{
    if (fabric == nullptr) {
        return make_error(MERIDIAN_ERR_BAD_PARAM, "a pnet job needs a fabric");
    }
    if (auto opened = ensure_open(); !opened) {
        return opened.error();
    }
    const std::vector<std::string> served = detail::served_types();
    const std::string served_list = served.empty() ? "none" : util::join(served, ", ");
    const std::string fallback = default_type();
    for (auto &request : requests) {
        if (request.type && !detail::component_serving(request.type->value).empty()) {
            continue;
        }
        if (request.type && request.type->required) {
            return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                              "request \"" + request.id + "\": TYPE " + request.type->value +
                                  " is required but no pnet component serves it (" + served_list +
                                  ")");
        }
        if (detail::component_serving(fallback).empty()) {
            return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                              "request \"" + request.id + "\": " +
                                  (request.type ? "TYPE " + request.type->value +
                                                      " is not served and the default type "
                                                : std::string("the default type ")) +
                                  fallback + " (pnet_base_default_type) is not served either (" +
                                  served_list + ")");
        }
        if (request.type) {
            // Best effort: say so, since the process will see another type.
            report_warning("request \"" + request.id + "\": no pnet component serves TYPE " +
                           request.type->value + " (" + served_list + "); using " + fallback);
        }
        request.type = Wanted<std::string>{fallback, false};
    }
    auto job = std::make_unique<mca_pnet_job>();
    job->job.fabric = std::move(fabric);
    job->job.map = std::move(map);
    job->job.requests = std::move(requests);
    return job;
}

} // namespace meridian::pnet

extern "C" int meridian_mca_pnet_env_set(mca_pnet_env_t *env, const char *name, const char *value)
{
    if (env == nullptr || name == nullptr || name[0] == '\0' || std::strchr(name, '=') != nullptr ||
        value == nullptr) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    return meridian::c_boundary(__func__, [&] {
        for (auto &variable : env->variables) {
            if (variable.first == name) {
                variable.second = value;
                return MERIDIAN_SUCCESS;
            }
        }
        env->variables.emplace_back(name, value);
        return MERIDIAN_SUCCESS;
    });
}
