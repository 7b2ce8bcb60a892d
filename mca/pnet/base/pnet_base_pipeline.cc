// SPDX-License-Identifier: BSD-3-Clause
// The pipeline: every active module in priority order (pnet.h says which
// return codes carry on), allocation as a transaction, seckeys, coord's
// context, and the datastore entries of setup_local_network.
#include <sys/random.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "mca/pnet/base/pnet_base_internal.hpp"
#include "opal/util/no_destructor.hpp"
#include <meridian/mca/coord/base/base.hpp>
#include <meridian/mca/pnet/base/base.hpp>
#include <meridian/opal/mca/base/param_registry.hpp>
#include <meridian/opal/runtime/datastore.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>
#include <meridian/opal/util/strings.hpp>

namespace meridian::pnet
{

namespace
{

struct Active {
    std::string component;
    const mca_pnet_base_module_t *module = nullptr;
    std::vector<std::string> types;
};

struct Selection {
    bool selected = false;
    bool opened_here = false;
    std::vector<Active> modules; // best first
};

Selection &selection()
{
    // Never destroyed: the framework may close after main returns.
    static util::NoDestructor<Selection> state;
    return state.get();
}

bool carries_on(int rc)
{
    return rc == MERIDIAN_SUCCESS || rc == MERIDIAN_ERR_TAKE_NEXT_OPTION;
}

Error module_failed(const Active &active, std::string_view call, int rc)
{
    return make_error(rc, "the pnet component \"" + active.component + "\" failed in " +
                              std::string(call) + ": " + meridian_strerror(rc));
}

} // namespace

Result<std::vector<std::uint8_t>> draw_seckey(std::string_view id, std::size_t bytes)
{
    std::vector<std::uint8_t> key(bytes);
    std::size_t filled = 0;
    while (filled < bytes) {
        const ssize_t got = getrandom(key.data() + filled, bytes - filled, 0);
        if (got < 0) {
            if (errno == EINTR) {
                continue;
            }
            return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                              "request \"" + std::string(id) +
                                  "\": SEC_KEY: the OS gave no random bytes (getrandom: " +
                                  std::strerror(errno) + ")");
        }
        filled += static_cast<std::size_t>(got);
    }
    return key;
}

namespace
{

// The grants before any module sees them (base.hpp, Grant).
Status prepare_grants(Job &job)
{
    job.grants.clear();
    job.grants.reserve(job.requests.size());
    for (const auto &request : job.requests) {
        Grant grant;
        grant.id = request.id;
        grant.type = request.type ? request.type->value : default_type();
        grant.component = detail::component_serving(grant.type);
        grant.endpts_asked = request.endpts ? request.endpts->value : 1;
        if (request.seckey_bytes) {
            const std::size_t bytes = request.seckey_bytes->value;
            if (const auto given = job.seckeys.find(request.id); given != job.seckeys.end()) {
                if (given->second.size() != bytes) {
                    return make_error(MERIDIAN_ERR_BAD_PARAM,
                                      "request \"" + request.id +
                                          "\": SEC_KEY: the key given has " +
                                          std::to_string(given->second.size()) +
                                          " bytes, the request asks for " + std::to_string(bytes));
                }
                grant.seckey = given->second;
            } else {
                auto key = draw_seckey(request.id, bytes);
                if (!key) {
                    return key.error();
                }
                grant.seckey = std::move(*key);
            }
        }
        job.grants.push_back(std::move(grant));
    }
    return success();
}

// Give back what the modules in [0, count) took; every one is asked, whatever
// an earlier one answered.
Status deregister_first(mca_pnet_job &job, std::size_t count)
{
    Status result = success();
    const auto &modules = selection().modules;
    for (std::size_t i = 0; i < count && i < modules.size(); ++i) {
        const Active &active = modules[i];
        if (active.module->deregister == nullptr) {
            continue;
        }
        const int rc = active.module->deregister(active.module, &job);
        if (!carries_on(rc) && result) {
            result = module_failed(active, "deregister", rc);
        }
    }
    return result;
}

std::string resource_text(const Grant &grant, std::uint32_t rank, std::uint64_t &count)
{
    // A grant hands out ports (tcp, udp: devices then name the NIC they are
    // on) or devices (ucx): its netid lists what it hands out.
    const auto ports = grant.ports_of(rank);
    if (!grant.port_offsets.empty()) {
        count = ports.size();
        return fabric::format_port_list(ports);
    }
    const auto devices = grant.devices_of(rank);
    count = devices.size();
    std::string text;
    for (const auto device : devices) {
        if (!text.empty()) {
            text += ',';
        }
        text += grant.device_names[device];
    }
    return text;
}

datastore::InfoList grant_info(const Grant &grant, std::uint32_t rank)
{
    datastore::InfoList info;
    std::uint64_t count = 0;
    std::string resource = resource_text(grant, rank, count);
    info.push_back({std::string(key_id), std::move(resource)});
    info.push_back({std::string(key_type), grant.type});
    if (!grant.plane.empty()) {
        info.push_back({std::string(key_plane), grant.plane});
    }
    if (!grant.port_offsets.empty() || !grant.device_offsets.empty()) {
        info.push_back({std::string(key_endpts), count});
    }
    if (!grant.seckey.empty()) {
        info.push_back({std::string(key_seckey), grant.seckey});
    }
    if (grant.qos) {
        info.push_back({std::string(key_qos), static_cast<std::uint64_t>(*grant.qos)});
    }
    if (grant.bandwidth_mbps) {
        info.push_back({std::string(key_bandwidth), *grant.bandwidth_mbps});
    }
    return info;
}

} // namespace

namespace detail
{

void framework_closing()
{
    Selection &state = selection();
    state.selected = false;
    state.opened_here = false;
    state.modules.clear();
}

std::vector<std::string> served_types()
{
    std::vector<std::string> types;
    for (const auto &active : selection().modules) {
        for (const auto &type : active.types) {
            if (std::find(types.begin(), types.end(), type) == types.end()) {
                types.push_back(type);
            }
        }
    }
    return types;
}

std::string component_serving(std::string_view type)
{
    for (const auto &active : selection().modules) {
        if (std::find(active.types.begin(), active.types.end(), type) != active.types.end()) {
            return active.component;
        }
    }
    return {};
}

} // namespace detail

Status ensure_open()
{
    Selection &state = selection();
    mca_base_framework_t *const framework = &meridian_pnet_base_framework;
    if (meridian_mca_base_framework_is_open(framework) == 0) {
        state.selected = false;
        // Opening reports its own errors (a bad selection, say).
        if (const int rc = meridian_mca_base_framework_open(framework); rc != MERIDIAN_SUCCESS) {
            return make_error(rc, std::string("the pnet framework could not be opened: ") +
                                      meridian_strerror(rc));
        }
        state.opened_here = true;
    }
    if (state.selected) {
        return success();
    }
    // pnet is multi-select: every accepting module takes part.  Ask how many
    // there are first so that none is cut off.
    std::vector<mca_base_selected_t> chosen(8);
    std::size_t count = 0;
    for (;;) {
        const int rc =
            meridian_mca_base_select_all(framework, chosen.data(), chosen.size(), &count);
        if (rc != MERIDIAN_SUCCESS && rc != MERIDIAN_ERR_NOT_FOUND) {
            return make_error(rc, std::string("pnet: selecting components failed: ") +
                                      meridian_strerror(rc));
        }
        if (rc == MERIDIAN_ERR_NOT_FOUND) {
            count = 0;
        }
        if (count <= chosen.size()) {
            break;
        }
        chosen.resize(count);
    }
    state.modules.clear();
    for (std::size_t i = 0; i < count; ++i) {
        Active active;
        active.component = chosen[i].component->component_name;
        active.module = static_cast<const mca_pnet_base_module_t *>(chosen[i].module);
        if (active.module->types != nullptr) {
            for (const auto &type : util::split(active.module->types, ',')) {
                const auto trimmed = util::trim(type);
                if (!trimmed.empty()) {
                    active.types.emplace_back(trimmed);
                }
            }
        }
        state.modules.push_back(std::move(active));
    }
    state.selected = true;
    return success();
}

std::vector<std::string> active_components()
{
    std::vector<std::string> names;
    if (!ensure_open()) {
        return names;
    }
    for (const auto &active : selection().modules) {
        names.push_back(active.component);
    }
    return names;
}

Result<std::vector<std::pair<std::string, std::vector<std::uint8_t>>>> collect_inventory()
{
    if (auto opened = ensure_open(); !opened) {
        return opened.error();
    }
    std::vector<std::pair<std::string, std::vector<std::uint8_t>>> blobs;
    for (const auto &active : selection().modules) {
        if (active.module->collect_inventory == nullptr) {
            continue;
        }
        mca_pnet_blob_t blob{nullptr, 0};
        const int rc = active.module->collect_inventory(active.module, &blob);
        // The component allocated with malloc; this frees whatever it gave.
        std::unique_ptr<void, decltype(&std::free)> owned(blob.bytes, &std::free);
        if (rc == MERIDIAN_ERR_TAKE_NEXT_OPTION) {
            continue;
        }
        if (rc != MERIDIAN_SUCCESS) {
            return module_failed(active, "collect_inventory", rc);
        }
        const auto *bytes = static_cast<const std::uint8_t *>(blob.bytes);
        blobs.emplace_back(active.component,
                           std::vector<std::uint8_t>(bytes, bytes + (bytes ? blob.size : 0)));
    }
    return blobs;
}

Status deliver_inventory(std::string_view node, std::string_view component,
                         std::span<const std::uint8_t> blob, fabric::Fabric &fabric)
{
    if (auto opened = ensure_open(); !opened) {
        return opened.error();
    }
    for (const auto &active : selection().modules) {
        if (active.component != component) {
            continue;
        }
        if (active.module->deliver_inventory == nullptr) {
            return success();
        }
        const std::string node_name(node);
        const mca_pnet_blob_t c_blob{const_cast<std::uint8_t *>(blob.data()), blob.size()};
        // The C handle holds the fabric by value: move it in and back out.
        mca_pnet_fabric handle{std::move(fabric)};
        const int rc =
            active.module->deliver_inventory(active.module, node_name.c_str(), &c_blob, &handle);
        fabric = std::move(handle.fabric);
        if (!carries_on(rc)) {
            return module_failed(active, "deliver_inventory", rc);
        }
        return success();
    }
    const auto names = active_components();
    return make_error(MERIDIAN_ERR_NOT_FOUND,
                      "inventory from " + util::quoted(node) + " is for the pnet component " +
                          util::quoted(component) + ", which is not active (active: " +
                          (names.empty() ? std::string("none") : util::join(names, ", ")) + ")");
}

Status allocate(mca_pnet_job &job)
{
    if (auto opened = ensure_open(); !opened) {
        return opened.error();
    }
    if (auto prepared = prepare_grants(job.job); !prepared) {
        job.job.grants.clear();
        return prepared;
    }
    const auto &modules = selection().modules;
    for (std::size_t i = 0; i < modules.size(); ++i) {
        const Active &active = modules[i];
        if (active.module->allocate == nullptr) {
            continue;
        }
        const int rc = active.module->allocate(active.module, &job);
        if (carries_on(rc)) {
            continue;
        }
        // All or nothing: modules before this one give back what they took
        // (deregister is idempotent, so asking one that took nothing is safe).
        Error error = module_failed(active, "allocate", rc);
        (void)deregister_first(job, i);
        job.job.grants.clear();
        return error;
    }
    // Coordinates are an extra: an allocation stands without them.
    auto shared_map = std::make_shared<const fabric::JobMap>(job.job.map);
    if (auto placed = coord::set_context(job.job.fabric, std::move(shared_map)); !placed) {
        report_warning("pnet: no coordinates for this job: " + placed.error().message);
    }
    return success();
}

Status setup_local_network(mca_pnet_job &job, std::string_view node)
{
    if (auto opened = ensure_open(); !opened) {
        return opened.error();
    }
    const Job &j = job.job;
    const auto node_index = j.fabric->find_node(node);
    if (!node_index) {
        return make_error(MERIDIAN_ERR_NOT_FOUND, "setup_local_network: node " +
                                                      util::quoted(node) + " is not in the fabric");
    }
    auto store = datastore::store();
    if (!store) {
        return store.error();
    }
    // One pass over the job's processes: a node only looks at its own.
    for (std::uint32_t rank = 0; rank < j.map.procs.size(); ++rank) {
        if (j.map.procs[rank].node != *node_index) {
            continue;
        }
        const datastore::ProcId proc{j.map.nspace, rank};
        for (const auto &grant : j.grants) {
            if (auto stored = (*store)->store(proc, grant.id, grant_info(grant, rank)); !stored) {
                return stored;
            }
        }
    }
    const std::string node_name(node);
    for (const auto &active : selection().modules) {
        if (active.module->setup_local_network == nullptr) {
            continue;
        }
        const int rc = active.module->setup_local_network(active.module, &job, node_name.c_str());
        if (!carries_on(rc)) {
            return module_failed(active, "setup_local_network", rc);
        }
    }
    // The process's endpoints: those its components put in each request's
    // entry, in request order.
    for (std::uint32_t rank = 0; rank < j.map.procs.size(); ++rank) {
        if (j.map.procs[rank].node != *node_index) {
            continue;
        }
        const datastore::ProcId proc{j.map.nspace, rank};
        std::vector<std::string> endpoints;
        for (const auto &grant : j.grants) {
            auto entry = (*store)->get(proc, grant.id);
            const auto *info = entry ? std::get_if<datastore::InfoList>(&*entry) : nullptr;
            if (info == nullptr) {
                continue;
            }
            for (const auto &item : *info) {
                const auto *list = std::get_if<std::vector<std::string>>(&item.value);
                if (item.key == coord::key_endpoint && list != nullptr) {
                    endpoints.insert(endpoints.end(), list->begin(), list->end());
                }
            }
        }
        if (endpoints.empty()) {
            continue;
        }
        if (auto stored = (*store)->store(proc, coord::key_endpoint, std::move(endpoints));
            !stored) {
            return stored;
        }
    }
    return success();
}

Result<std::vector<std::pair<std::string, std::string>>> setup_fork(const mca_pnet_job &job,
                                                                    std::uint32_t rank)
{
    if (auto opened = ensure_open(); !opened) {
        return opened.error();
    }
    if (rank >= job.job.map.procs.size()) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          "setup_fork: rank " + std::to_string(rank) + " is not in the job (" +
                              std::to_string(job.job.map.procs.size()) + " processes)");
    }
    mca_pnet_env env;
    for (const auto &active : selection().modules) {
        if (active.module->setup_fork == nullptr) {
            continue;
        }
        const int rc = active.module->setup_fork(active.module, &job, rank, &env);
        if (!carries_on(rc)) {
            return module_failed(active, "setup_fork", rc);
        }
    }
    return std::move(env.variables);
}

Status deregister(mca_pnet_job &job)
{
    if (auto opened = ensure_open(); !opened) {
        return opened.error();
    }
    return deregister_first(job, selection().modules.size());
}

Result<std::vector<Request>> requests_from_params()
{
    if (auto opened = ensure_open(); !opened) {
        return opened.error();
    }
    const char *text = detail::requests_parameter_text();
    if (text == nullptr || text[0] == '\0') {
        return std::vector<Request>{};
    }
    std::string where = "pnet_base_requests";
    auto &registry = mca::ParamRegistry::instance();
    if (const auto index = registry.find(where)) {
        if (const auto *param = registry.param(*index)) {
            where += " from " + param->source().where();
        }
    }
    return parse_requests(text, where);
}

} // namespace meridian::pnet
