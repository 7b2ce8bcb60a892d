// SPDX-License-Identifier: BSD-3-Clause
// The C face of the pnet pipeline (base.h): handles over the C++ objects of
// base.hpp, each call's errors reported once, results copied into malloc'd
// memory the caller frees.
#include "config.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "mca/pnet/base/pnet_base_internal.hpp"
#include "opal/util/c_arrays.hpp"
#include <meridian/mca/pnet/base/base.h>
#include <meridian/mca/pnet/base/base.hpp>
#include <meridian/opal/util/c_boundary.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>
#include <meridian/opal/util/strings.hpp>

// The handles.  A fabric is shared with the jobs made from it; delivering
// into a fabric a job still uses copies it first, so the job keeps its own.
struct meridian_pnet_fabric {
    std::shared_ptr<meridian::fabric::Fabric> fabric;
};
struct meridian_pnet_requests {
    std::vector<meridian::pnet::Request> requests;
};
struct meridian_pnet_job {
    std::unique_ptr<mca_pnet_job> handle;
    bool allocated = false; // from a successful allocate to deregister
};

namespace
{

using namespace meridian;

// Opens made through meridian_pnet_open that no close has matched yet.
int c_opens = 0;

// Reports the error unless the step that failed reported its reason already
// (a component does before it returns an error code).
int fail(const Error &error, unsigned long errors_before)
{
    if (meridian_error_count() == errors_before) {
        report_error(!error.message.empty() ? error.message
                                            : std::string(meridian_strerror(error.status)));
    }
    return error.status;
}

int refuse(int status, const std::string &message)
{
    report_error(message);
    return status;
}

int no_memory()
{
    report_error("pnet: out of memory while handing out an answer");
    return MERIDIAN_ERR_OUT_OF_RESOURCE;
}

// Through the C reporter, which never throws: called before the guard.
int missing(const char *call, const char *argument)
{
    meridian_report(MERIDIAN_SEVERITY_ERROR, "%s: %s is NULL", call, argument);
    return MERIDIAN_ERR_BAD_PARAM;
}

char *copy_text(const std::string &text)
{
    char *copy = static_cast<char *>(std::malloc(text.size() + 1));
    if (copy != nullptr) {
        std::memcpy(copy, text.c_str(), text.size() + 1);
    }
    return copy;
}

std::string quoted_or_null(const char *text)
{
    return text == nullptr ? std::string("NULL") : util::quoted(text);
}

// ------------------------------------------------------------ requests

bool is_name(std::string_view text, std::string_view extra = {})
{
    if (text.empty()) {
        return false;
    }
    for (const char c : text) {
        const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                           (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
        if (!plain && extra.find(c) == std::string_view::npos) {
            return false;
        }
    }
    return true;
}

constexpr std::string_view attribute_keys[] = {
    pnet::key_id,     pnet::key_type, pnet::key_plane,    pnet::key_endpts,
    pnet::key_seckey, pnet::key_qos,  pnet::key_bandwidth};
constexpr std::uint32_t default_seckey_bytes = 16;

// One request from its attributes; errors name the attribute by its index.
Result<pnet::Request> request_of(const meridian_pnet_attr_t *attrs, size_t count)
{
    constexpr std::string_view call = "meridian_pnet_requests_add: ";
    // Each key at most once: more attributes than keys cannot be a request.
    if (count > std::size(attribute_keys)) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          std::string(call) + "count " + std::to_string(count) +
                              " is more attributes than a request has keys (" +
                              std::to_string(std::size(attribute_keys)) + ")");
    }
    pnet::Request request;
    bool has_id = false;
    std::unordered_map<std::string, size_t> seen;
    for (size_t i = 0; i < count; ++i) {
        const meridian_pnet_attr_t &attr = attrs[i];
        const std::string at = "attrs[" + std::to_string(i) + "]";
        if (attr.key == nullptr) {
            return make_error(MERIDIAN_ERR_BAD_PARAM, std::string(call) + at + ": the key is NULL");
        }
        const std::string_view key = attr.key;
        bool known = false;
        for (const auto name : attribute_keys) {
            known = known || key == name;
        }
        if (!known) {
            std::vector<std::string> names(std::begin(attribute_keys), std::end(attribute_keys));
            const auto close = util::closest_match(key, names);
            return make_error(MERIDIAN_ERR_BAD_PARAM,
                              std::string(call) + at + ": expected a request key (" +
                                  util::join(names, ", ") + "), found " + util::quoted(key) +
                                  (close ? " (did you mean " + *close + "?)" : std::string()));
        }
        const std::string where = std::string(call) + at + " (" + std::string(key) + "): ";
        if (const auto before = seen.find(std::string(key)); before != seen.end()) {
            return make_error(MERIDIAN_ERR_BAD_PARAM, where + "the key is given twice (attrs[" +
                                                          std::to_string(before->second) +
                                                          "] has it too)");
        }
        seen.emplace(key, i);
        const bool required = attr.required != 0;
        const std::string_view value = attr.value != nullptr ? attr.value : "";
        auto expected = [&](const std::string &what) {
            return make_error(MERIDIAN_ERR_BAD_PARAM,
                              where + "expected " + what + ", found " + quoted_or_null(attr.value));
        };
        if (key == pnet::key_id) {
            if (attr.value == nullptr || !pnet::is_request_id(value)) {
                return expected("a request ID (" + std::string(pnet::request_id_chars) + ")");
            }
            request.id = std::string(value);
            has_id = true;
        } else if (key == pnet::key_type) {
            if (attr.value == nullptr || !is_name(value)) {
                return expected("a type (a transport: tcp, udp, ucx, ...)");
            }
            request.type = pnet::Wanted<std::string>{std::string(value), required};
        } else if (key == pnet::key_plane) {
            if (attr.value == nullptr || !is_name(value, ":/")) {
                return expected("a plane's name or CIDR");
            }
            request.plane = pnet::Wanted<std::string>{std::string(value), required};
        } else if (key == pnet::key_endpts) {
            const auto number = util::parse_uint(value, 1, 65535);
            if (!number) {
                return expected("a number of endpoints 1-65535");
            }
            request.endpts = pnet::Wanted<std::uint32_t>{*number, required};
        } else if (key == pnet::key_seckey) {
            const auto bytes = value.empty() ? std::optional{default_seckey_bytes}
                                             : util::parse_uint(value, 1, 1024);
            if (!bytes) {
                return expected("a key size in bytes 1-1024 (NULL or \"\": 16)");
            }
            request.seckey_bytes = pnet::Wanted<std::uint32_t>{*bytes, required};
        } else if (key == pnet::key_qos) {
            const auto level = util::parse_uint(value, 0, 65535);
            if (!level) {
                return expected("a QoS level 0-65535");
            }
            request.qos = pnet::Wanted<std::uint32_t>{*level, required};
        } else { // bandwidth
            const auto rate = fabric::parse_rate_mbps(value);
            if (!rate || !(*rate > 0) || !std::isfinite(*rate)) {
                return expected("a rate above 0 (such as 10G, 25Gb/s or 1000 = Mbit/s)");
            }
            request.bandwidth_mbps = pnet::Wanted<double>{*rate, required};
        }
    }
    if (!has_id) {
        return make_error(MERIDIAN_ERR_BAD_PARAM, std::string(call) + "the request has no " +
                                                      std::string(pnet::key_id) +
                                                      " (its ID is required)");
    }
    return request;
}

const pnet::Request *find_request(const std::vector<pnet::Request> &requests, std::string_view id)
{
    for (const auto &request : requests) {
        if (request.id == id) {
            return &request;
        }
    }
    return nullptr;
}

std::string request_ids(const std::vector<pnet::Request> &requests)
{
    std::vector<std::string> ids;
    for (const auto &request : requests) {
        ids.push_back(request.id);
    }
    return ids.empty() ? std::string("none") : util::join(ids, ", ");
}

// ------------------------------------------------------------ the job map

Result<fabric::JobMap> job_map_of(const fabric::Fabric &fab, const char *nspace,
                                  const char *const *nodes, size_t node_count,
                                  const meridian_pnet_proc_t *procs, size_t proc_count)
{
    constexpr std::string_view call = "meridian_pnet_job_new: ";
    auto bad = [&](const std::string &message) {
        return make_error(MERIDIAN_ERR_BAD_PARAM, std::string(call) + message);
    };
    fabric::JobMap map;
    if (nspace != nullptr) {
        if (nspace[0] == '\0') {
            return bad("the namespace is empty");
        }
        map.nspace = nspace;
    }
    // The counts are checked before anything is sized by them: each node is
    // named once, and a job map holds so many processes.
    if (node_count > fab.nodes().size()) {
        return bad("node_count " + std::to_string(node_count) +
                   " is more nodes than the fabric holds (" + std::to_string(fab.nodes().size()) +
                   ")");
    }
    if (proc_count == 0) {
        return bad("the job has no processes (proc_count is 0)");
    }
    if (node_count == 0) {
        return bad("the job has no nodes (node_count is 0)");
    }
    if (proc_count > fabric::max_ranks) {
        return bad("proc_count " + std::to_string(proc_count) +
                   " is more processes than ranks can number (at most " +
                   std::to_string(fabric::max_ranks) + ")");
    }
    if (proc_count > node_count * fabric::max_procs_per_node) {
        return bad("proc_count " + std::to_string(proc_count) + " is more processes than " +
                   std::to_string(node_count) + (node_count == 1 ? " node" : " nodes") +
                   " can hold (at most " + std::to_string(fabric::max_procs_per_node) +
                   " per node)");
    }
    std::vector<fabric::Index> fabric_node(node_count);
    std::unordered_map<fabric::Index, size_t> listed;
    for (size_t i = 0; i < node_count; ++i) {
        const std::string at = "nodes[" + std::to_string(i) + "]";
        if (nodes[i] == nullptr) {
            return bad(at + " is NULL");
        }
        const auto found = fab.find_node(nodes[i]);
        if (!found) {
            return bad(at + ": unknown node " + util::quoted(nodes[i]) + " (" +
                       fabric::some_nodes(fab) + ")");
        }
        if (const auto before = listed.find(*found); before != listed.end()) {
            return bad(at + ": node " + util::quoted(nodes[i]) + " is named twice (nodes[" +
                       std::to_string(before->second) + "] too)");
        }
        listed.emplace(*found, i);
        fabric_node[i] = *found;
    }
    std::vector<char> seen(node_count, 0);
    // (node, local rank) -> rank, to refuse two processes in one place.
    std::unordered_map<std::uint64_t, std::uint32_t> placed;
    map.procs.reserve(proc_count);
    for (size_t rank = 0; rank < proc_count; ++rank) {
        const meridian_pnet_proc_t &proc = procs[rank];
        const std::string at = "procs[" + std::to_string(rank) + "]";
        if (proc.node >= node_count) {
            return bad(at + ": node index " + std::to_string(proc.node) + " is past the job's " +
                       std::to_string(node_count) + (node_count == 1 ? " node" : " nodes"));
        }
        const fabric::Node &node = fab.nodes()[fabric_node[proc.node]];
        if (proc.package < -1 ||
            (proc.package >= 0 && static_cast<std::uint32_t>(proc.package) >= node.packages)) {
            return bad(at + ": package " + std::to_string(proc.package) + " is not one of " +
                       node.name + "'s (0-" + std::to_string(node.packages - 1) +
                       ", or -1 for none)");
        }
        const std::uint64_t place = (std::uint64_t{proc.node} << 32) | proc.local_rank;
        const auto [entry, fresh] = placed.emplace(place, static_cast<std::uint32_t>(rank));
        if (!fresh) {
            return bad(at + ": local rank " + std::to_string(proc.local_rank) + " on " + node.name +
                       " is procs[" + std::to_string(entry->second) + "]'s too");
        }
        if (!seen[proc.node]) {
            seen[proc.node] = 1;
            map.nodes.push_back(fabric_node[proc.node]);
        }
        map.procs.push_back(
            fabric::ProcPlacement{fabric_node[proc.node], proc.local_rank, proc.package});
    }
    return map;
}

// The plane of one process's resources: the grant's, or when its processes
// ended up on different planes ("a,b"), the plane of the process's NIC.
std::string plane_of(const pnet::Job &job, const pnet::Grant &grant, std::uint32_t rank)
{
    if (grant.plane.find(',') == std::string::npos) {
        return grant.plane;
    }
    const auto devices = grant.devices_of(rank);
    if (!devices.empty()) {
        const auto nic =
            job.fabric->find_nic(job.map.procs[rank].node, grant.device_names[devices[0]]);
        if (nic) {
            return job.fabric->planes()[job.fabric->nics()[*nic].plane].name;
        }
    }
    return grant.plane;
}

bool fill_assignment(const pnet::Job &job, const pnet::Grant &grant, std::uint32_t rank,
                     meridian_pnet_assignment_t &out)
{
    out.id = copy_text(grant.id);
    out.type = copy_text(grant.type);
    out.plane = copy_text(plane_of(job, grant, rank));
    out.component = copy_text(grant.component);
    if (out.id == nullptr || out.type == nullptr || out.plane == nullptr ||
        out.component == nullptr) {
        return false;
    }
    const auto ports = grant.ports_of(rank);
    if (!util::to_c_array(ports.data(), ports.size(), &out.ports)) {
        return false;
    }
    out.port_count = ports.size();
    std::vector<std::string> devices;
    for (const auto device : grant.devices_of(rank)) {
        devices.push_back(grant.device_names[device]);
    }
    if (!util::to_c_strings(devices, &out.devices)) {
        return false;
    }
    out.device_count = devices.size();
    out.has_qos = grant.qos ? 1 : 0;
    out.qos = grant.qos.value_or(0);
    out.has_bandwidth = grant.bandwidth_mbps ? 1 : 0;
    out.bandwidth_mbps = grant.bandwidth_mbps.value_or(0.0);
    if (!util::to_c_array(grant.seckey.data(), grant.seckey.size(), &out.seckey)) {
        return false;
    }
    out.seckey_size = grant.seckey.size();
    return true;
}

// The job's request and grant for `id`; the message names the ones it has.
Result<const pnet::Grant *> grant_of(const meridian_pnet_job_t &job, const char *call,
                                     std::string_view id)
{
    const pnet::Job &j = job.handle->job;
    if (!job.allocated) {
        return make_error(MERIDIAN_ERR_NOT_INITIALIZED,
                          std::string(call) +
                              ": the job is not allocated (meridian_pnet_allocate)");
    }
    const pnet::Grant *grant = j.grant(id);
    if (grant == nullptr) {
        return make_error(MERIDIAN_ERR_NOT_FOUND,
                          std::string(call) + ": the job has no request " + util::quoted(id) +
                              " (requests: " + request_ids(j.requests) + ")");
    }
    return grant;
}

Error rank_outside(const char *call, std::uint32_t rank, std::size_t size)
{
    return make_error(MERIDIAN_ERR_BAD_PARAM, std::string(call) + ": rank " + std::to_string(rank) +
                                                  " is not in the job (" + std::to_string(size) +
                                                  " processes)");
}

} // namespace

extern "C" {

// ------------------------------------------------------------ the pipeline

int meridian_pnet_open(void)
{
    return c_boundary(__func__, []() -> int {
        const unsigned long before = meridian_error_count();
        mca_base_framework_t *framework = &meridian_pnet_base_framework;
        if (const int rc = meridian_mca_base_framework_open(framework); rc != MERIDIAN_SUCCESS) {
            return fail(make_error(rc, std::string("meridian_pnet_open: the pnet framework could "
                                                   "not be opened: ") +
                                           meridian_strerror(rc)),
                        before);
        }
        if (auto opened = pnet::ensure_open(); !opened) {
            meridian_mca_base_framework_close(framework);
            return fail(opened.error(), before);
        }
        ++c_opens;
        return MERIDIAN_SUCCESS;
    });
}

int meridian_pnet_close(void)
{
    return c_boundary(__func__, []() -> int {
        if (c_opens == 0) {
            return refuse(MERIDIAN_ERR_NOT_INITIALIZED,
                          "meridian_pnet_close: no meridian_pnet_open to match");
        }
        --c_opens;
        return meridian_mca_base_framework_close(&meridian_pnet_base_framework);
    });
}

int meridian_pnet_active_components(char ***names, size_t *count)
{
    if (names == nullptr || count == nullptr) {
        return missing(__func__, names == nullptr ? "names" : "count");
    }
    *names = nullptr;
    *count = 0;
    return c_boundary(__func__, [&]() -> int {
        const unsigned long before = meridian_error_count();
        if (auto opened = pnet::ensure_open(); !opened) {
            return fail(opened.error(), before);
        }
        const auto active = pnet::active_components();
        if (!util::to_c_strings(active, names)) {
            return no_memory();
        }
        *count = active.size();
        return MERIDIAN_SUCCESS;
    });
}

// ------------------------------------------------------------ inventory

int meridian_pnet_collect_inventory(meridian_pnet_inventory_t **inventory, size_t *count)
{
    if (inventory == nullptr || count == nullptr) {
        return missing(__func__, inventory == nullptr ? "inventory" : "count");
    }
    *inventory = nullptr;
    *count = 0;
    return c_boundary(__func__, [&]() -> int {
        const unsigned long before = meridian_error_count();
        auto blobs = pnet::collect_inventory();
        if (!blobs) {
            return fail(blobs.error(), before);
        }
        if (blobs->empty()) {
            return MERIDIAN_SUCCESS;
        }
        auto *array = static_cast<meridian_pnet_inventory_t *>(
            std::calloc(blobs->size(), sizeof(meridian_pnet_inventory_t)));
        if (array == nullptr) {
            return no_memory();
        }
        for (size_t i = 0; i < blobs->size(); ++i) {
            const auto &[component, bytes] = (*blobs)[i];
            array[i].component = copy_text(component);
            if (array[i].component == nullptr ||
                !util::to_c_array(bytes.data(), bytes.size(), &array[i].bytes)) {
                meridian_pnet_inventory_free(array, blobs->size());
                return no_memory();
            }
            array[i].size = bytes.size();
        }
        *inventory = array;
        *count = blobs->size();
        return MERIDIAN_SUCCESS;
    });
}

void meridian_pnet_inventory_free(meridian_pnet_inventory_t *inventory, size_t count)
{
    if (inventory == nullptr) {
        return;
    }
    for (size_t i = 0; i < count; ++i) {
        std::free(inventory[i].component);
        std::free(inventory[i].bytes);
    }
    std::free(inventory);
}

// ------------------------------------------------------------ the fabric

int meridian_pnet_fabric_new(meridian_pnet_fabric_t **fabric)
{
    if (fabric == nullptr) {
        return missing(__func__, "fabric");
    }
    *fabric = nullptr;
    return c_boundary(__func__, [&]() -> int {
        auto made = std::make_unique<meridian_pnet_fabric>();
        made->fabric = std::make_shared<fabric::Fabric>();
        *fabric = made.release();
        return MERIDIAN_SUCCESS;
    });
}

int meridian_pnet_fabric_parse(const char *text, const char *origin,
                               meridian_pnet_fabric_t **fabric)
{
    if (text == nullptr || fabric == nullptr) {
        return missing(__func__, text == nullptr ? "text" : "fabric");
    }
    *fabric = nullptr;
    return c_boundary(__func__, [&]() -> int {
        auto parsed = fabric::parse_fabric(text, origin != nullptr ? origin : "<string>");
        if (!parsed) {
            return refuse(parsed.error().status, parsed.error().message);
        }
        auto made = std::make_unique<meridian_pnet_fabric>();
        made->fabric = std::make_shared<fabric::Fabric>(std::move(*parsed));
        *fabric = made.release();
        return MERIDIAN_SUCCESS;
    });
}

int meridian_pnet_fabric_read(const char *path, meridian_pnet_fabric_t **fabric)
{
    if (path == nullptr || fabric == nullptr) {
        return missing(__func__, path == nullptr ? "path" : "fabric");
    }
    *fabric = nullptr;
    return c_boundary(__func__, [&]() -> int {
        auto read = fabric::read_fabric_file(path);
        if (!read) {
            return refuse(read.error().status, read.error().message);
        }
        auto made = std::make_unique<meridian_pnet_fabric>();
        made->fabric = std::make_shared<fabric::Fabric>(std::move(*read));
        *fabric = made.release();
        return MERIDIAN_SUCCESS;
    });
}

int meridian_pnet_fabric_deliver(meridian_pnet_fabric_t *fabric, const char *node,
                                 const char *component, const void *bytes, size_t size)
{
    if (fabric == nullptr || node == nullptr || component == nullptr ||
        (bytes == nullptr && size > 0)) {
        return missing(__func__, fabric == nullptr      ? "fabric"
                                 : node == nullptr      ? "node"
                                 : component == nullptr ? "component"
                                                        : "bytes");
    }
    return c_boundary(__func__, [&]() -> int {
        constexpr std::string_view call = "meridian_pnet_fabric_deliver: ";
        if (size > MERIDIAN_PNET_INVENTORY_MAX_SIZE) {
            return refuse(MERIDIAN_ERR_BAD_PARAM,
                          std::string(call) + "size " + std::to_string(size) +
                              " is more than an inventory may be (at most " +
                              std::to_string(MERIDIAN_PNET_INVENTORY_MAX_SIZE) + " bytes)");
        }
        // The node becomes a node of the fabric: a name no fabric can hold
        // is refused here, before a component puts it in its messages.
        const std::string_view node_name = node;
        if (node_name.size() > fabric::max_name_bytes) {
            return refuse(MERIDIAN_ERR_BAD_PARAM,
                          std::string(call) + "expected a node name of at most " +
                              std::to_string(fabric::max_name_bytes) + " bytes, found " +
                              std::to_string(node_name.size()) + " bytes");
        }
        if (!fabric::is_fabric_name(node_name)) {
            return refuse(MERIDIAN_ERR_BAD_PARAM,
                          std::string(call) +
                              "expected a node name (letters, digits and \"_-.:/\"), found " +
                              util::quoted(node_name));
        }
        const unsigned long before = meridian_error_count();
        // A fabric a job (or coord) still holds is copied first, so that the
        // job keeps what it was made from; the component's delivery itself
        // changes nothing when it fails (pnet_tcp merges into a copy).
        if (fabric->fabric.use_count() > 1) {
            fabric->fabric = std::make_shared<fabric::Fabric>(*fabric->fabric);
        }
        const std::span<const std::uint8_t> blob(static_cast<const std::uint8_t *>(bytes), size);
        if (auto delivered = pnet::deliver_inventory(node, component, blob, *fabric->fabric);
            !delivered) {
            return fail(delivered.error(), before);
        }
        return MERIDIAN_SUCCESS;
    });
}

int meridian_pnet_fabric_format(const meridian_pnet_fabric_t *fabric, char **text)
{
    if (fabric == nullptr || text == nullptr) {
        return missing(__func__, fabric == nullptr ? "fabric" : "text");
    }
    *text = nullptr;
    return c_boundary(__func__, [&]() -> int {
        *text = copy_text(fabric::format_fabric(*fabric->fabric));
        return *text != nullptr ? MERIDIAN_SUCCESS : no_memory();
    });
}

void meridian_pnet_fabric_free(meridian_pnet_fabric_t *fabric)
{
    // Destroying a shared_ptr does not throw.
    delete fabric;
}

// ------------------------------------------------------------ requests

int meridian_pnet_requests_new(meridian_pnet_requests_t **requests)
{
    if (requests == nullptr) {
        return missing(__func__, "requests");
    }
    *requests = nullptr;
    return c_boundary(__func__, [&]() -> int {
        *requests = std::make_unique<meridian_pnet_requests>().release();
        return MERIDIAN_SUCCESS;
    });
}

int meridian_pnet_requests_add(meridian_pnet_requests_t *requests,
                               const meridian_pnet_attr_t *attrs, size_t count)
{
    if (requests == nullptr || (attrs == nullptr && count > 0)) {
        return missing(__func__, requests == nullptr ? "requests" : "attrs");
    }
    return c_boundary(__func__, [&]() -> int {
        auto request = request_of(attrs, count);
        if (!request) {
            return refuse(request.error().status, request.error().message);
        }
        if (find_request(requests->requests, request->id) != nullptr) {
            return refuse(MERIDIAN_ERR_BAD_PARAM, "meridian_pnet_requests_add: request ID " +
                                                      util::quoted(request->id) +
                                                      " is in the set already");
        }
        requests->requests.push_back(std::move(*request));
        return MERIDIAN_SUCCESS;
    });
}

int meridian_pnet_requests_parse(meridian_pnet_requests_t *requests, const char *text,
                                 const char *origin)
{
    if (requests == nullptr || text == nullptr) {
        return missing(__func__, requests == nullptr ? "requests" : "text");
    }
    return c_boundary(__func__, [&]() -> int {
        const std::string where = origin != nullptr ? origin : "requests";
        auto parsed = pnet::parse_requests(text, where);
        if (!parsed) {
            return refuse(parsed.error().status, parsed.error().message);
        }
        for (const auto &request : *parsed) {
            if (find_request(requests->requests, request.id) != nullptr) {
                return refuse(MERIDIAN_ERR_BAD_PARAM, where + ": request ID " +
                                                          util::quoted(request.id) +
                                                          " is in the set already");
            }
        }
        requests->requests.insert(requests->requests.end(), parsed->begin(), parsed->end());
        return MERIDIAN_SUCCESS;
    });
}

int meridian_pnet_requests_count(const meridian_pnet_requests_t *requests, size_t *count)
{
    if (requests == nullptr || count == nullptr) {
        return missing(__func__, requests == nullptr ? "requests" : "count");
    }
    *count = requests->requests.size();
    return MERIDIAN_SUCCESS;
}

int meridian_pnet_requests_format(const meridian_pnet_requests_t *requests, char **text)
{
    if (requests == nullptr || text == nullptr) {
        return missing(__func__, requests == nullptr ? "requests" : "text");
    }
    *text = nullptr;
    return c_boundary(__func__, [&]() -> int {
        std::vector<std::string> parts;
        for (const auto &request : requests->requests) {
            parts.push_back(pnet::format_request(request));
        }
        *text = copy_text(util::join(parts, ";"));
        return *text != nullptr ? MERIDIAN_SUCCESS : no_memory();
    });
}

void meridian_pnet_requests_free(meridian_pnet_requests_t *requests)
{
    delete requests;
}

// ------------------------------------------------------------ the job

int meridian_pnet_job_new(const meridian_pnet_fabric_t *fabric, const char *nspace,
                          const char *const *nodes, size_t node_count,
                          const meridian_pnet_proc_t *procs, size_t proc_count,
                          const meridian_pnet_requests_t *requests, meridian_pnet_job_t **job)
{
    if (fabric == nullptr || job == nullptr || (nodes == nullptr && node_count > 0) ||
        (procs == nullptr && proc_count > 0)) {
        return missing(__func__, fabric == nullptr  ? "fabric"
                                 : job == nullptr   ? "job"
                                 : nodes == nullptr ? "nodes"
                                                    : "procs");
    }
    *job = nullptr;
    return c_boundary(__func__, [&]() -> int {
        auto map = job_map_of(*fabric->fabric, nspace, nodes, node_count, procs, proc_count);
        if (!map) {
            return refuse(map.error().status, map.error().message);
        }
        std::vector<pnet::Request> wanted;
        if (requests != nullptr) {
            wanted = requests->requests;
        }
        const unsigned long before = meridian_error_count();
        auto made = pnet::make_job(fabric->fabric, std::move(*map), std::move(wanted));
        if (!made) {
            return fail(made.error(), before);
        }
        auto handle = std::make_unique<meridian_pnet_job>();
        handle->handle = std::move(*made);
        *job = handle.release();
        return MERIDIAN_SUCCESS;
    });
}

int meridian_pnet_job_set_seckey(meridian_pnet_job_t *job, const char *id, const void *key,
                                 size_t size)
{
    if (job == nullptr || id == nullptr || key == nullptr) {
        return missing(__func__, job == nullptr ? "job" : id == nullptr ? "id" : "key");
    }
    return c_boundary(__func__, [&]() -> int {
        constexpr std::string_view call = "meridian_pnet_job_set_seckey: ";
        pnet::Job &j = job->handle->job;
        if (job->allocated) {
            return refuse(MERIDIAN_ERR_EXISTS,
                          std::string(call) + "the job is allocated already (deregister it first)");
        }
        const pnet::Request *request = find_request(j.requests, id);
        if (request == nullptr) {
            return refuse(MERIDIAN_ERR_NOT_FOUND,
                          std::string(call) + "the job has no request " + util::quoted(id) +
                              " (requests: " + request_ids(j.requests) + ")");
        }
        if (!request->seckey_bytes) {
            return refuse(MERIDIAN_ERR_BAD_PARAM,
                          std::string(call) + "request " + util::quoted(id) +
                              " asks for no security key (" + std::string(pnet::key_seckey) + ")");
        }
        if (size != request->seckey_bytes->value) {
            return refuse(MERIDIAN_ERR_BAD_PARAM,
                          std::string(call) + "request " + util::quoted(id) + " asks for a " +
                              std::to_string(request->seckey_bytes->value) +
                              "-byte key, the key given has " + std::to_string(size) + " bytes");
        }
        const auto *first = static_cast<const std::uint8_t *>(key);
        j.seckeys[id] = std::vector<std::uint8_t>(first, first + size);
        return MERIDIAN_SUCCESS;
    });
}

void meridian_pnet_job_free(meridian_pnet_job_t *job)
{
    if (job == nullptr) {
        return;
    }
    c_boundary_void(__func__, [job] {
        // A closed framework has given up its components, and what they held.
        if (job->allocated && meridian_mca_base_framework_is_open(&meridian_pnet_base_framework)) {
            const unsigned long before = meridian_error_count();
            if (auto given = pnet::deregister(*job->handle); !given) {
                fail(given.error(), before);
            }
        }
    });
    delete job;
}

int meridian_pnet_allocate(meridian_pnet_job_t *job)
{
    if (job == nullptr) {
        return missing(__func__, "job");
    }
    return c_boundary(__func__, [&]() -> int {
        if (job->allocated) {
            return refuse(MERIDIAN_ERR_EXISTS, "meridian_pnet_allocate: the job is allocated "
                                               "already (deregister it first)");
        }
        const unsigned long before = meridian_error_count();
        if (auto done = pnet::allocate(*job->handle); !done) {
            return fail(done.error(), before);
        }
        job->allocated = true;
        return MERIDIAN_SUCCESS;
    });
}

int meridian_pnet_setup_local_network(meridian_pnet_job_t *job, const char *node)
{
    if (job == nullptr || node == nullptr) {
        return missing(__func__, job == nullptr ? "job" : "node");
    }
    return c_boundary(__func__, [&]() -> int {
        if (!job->allocated) {
            return refuse(MERIDIAN_ERR_NOT_INITIALIZED, "meridian_pnet_setup_local_network: the "
                                                        "job is not allocated "
                                                        "(meridian_pnet_allocate)");
        }
        const unsigned long before = meridian_error_count();
        if (auto done = pnet::setup_local_network(*job->handle, node); !done) {
            return fail(done.error(), before);
        }
        return MERIDIAN_SUCCESS;
    });
}

int meridian_pnet_setup_fork(const meridian_pnet_job_t *job, uint32_t rank, char ***names,
                             char ***values, size_t *count)
{
    if (job == nullptr || names == nullptr || values == nullptr || count == nullptr) {
        return missing(__func__, job == nullptr      ? "job"
                                 : names == nullptr  ? "names"
                                 : values == nullptr ? "values"
                                                     : "count");
    }
    *names = nullptr;
    *values = nullptr;
    *count = 0;
    return c_boundary(__func__, [&]() -> int {
        if (!job->allocated) {
            return refuse(MERIDIAN_ERR_NOT_INITIALIZED, "meridian_pnet_setup_fork: the job is not "
                                                        "allocated (meridian_pnet_allocate)");
        }
        const unsigned long before = meridian_error_count();
        auto env = pnet::setup_fork(*job->handle, rank);
        if (!env) {
            return fail(env.error(), before);
        }
        std::vector<std::string> name_list;
        std::vector<std::string> value_list;
        for (const auto &[name, value] : *env) {
            name_list.push_back(name);
            value_list.push_back(value);
        }
        char **name_array = nullptr;
        char **value_array = nullptr;
        if (!util::to_c_strings(name_list, &name_array)) {
            return no_memory();
        }
        if (!util::to_c_strings(value_list, &value_array)) {
            util::free_c_strings(name_array, name_list.size());
            return no_memory();
        }
        *names = name_array;
        *values = value_array;
        *count = name_list.size();
        return MERIDIAN_SUCCESS;
    });
}

int meridian_pnet_deregister(meridian_pnet_job_t *job)
{
    if (job == nullptr) {
        return missing(__func__, "job");
    }
    return c_boundary(__func__, [&]() -> int {
        if (!job->allocated) {
            return MERIDIAN_SUCCESS;
        }
        if (meridian_mca_base_framework_is_open(&meridian_pnet_base_framework) != 0) {
            const unsigned long before = meridian_error_count();
            if (auto given = pnet::deregister(*job->handle); !given) {
                return fail(given.error(), before);
            }
        }
        job->allocated = false;
        return MERIDIAN_SUCCESS;
    });
}

// ------------------------------------------------------------ the result

int32_t meridian_pnet_package_of_locality(const char *locality)
{
    if (locality == nullptr) {
        return -1;
    }
    const int package = c_boundary(__func__, [&]() -> int {
        return pnet::detail::package_of_locality(std::string_view(locality));
    });
    return package >= 0 ? package : -1;
}

int meridian_pnet_request_ids(const meridian_pnet_job_t *job, char ***ids, size_t *count)
{
    if (job == nullptr || ids == nullptr || count == nullptr) {
        return missing(__func__, job == nullptr ? "job" : ids == nullptr ? "ids" : "count");
    }
    *ids = nullptr;
    *count = 0;
    return c_boundary(__func__, [&]() -> int {
        std::vector<std::string> list;
        for (const auto &request : job->handle->job.requests) {
            list.push_back(request.id);
        }
        if (!util::to_c_strings(list, ids)) {
            return no_memory();
        }
        *count = list.size();
        return MERIDIAN_SUCCESS;
    });
}

int meridian_pnet_get_assignment(const meridian_pnet_job_t *job, const char *id, uint32_t rank,
                                 meridian_pnet_assignment_t **assignment)
{
    if (job == nullptr || id == nullptr || assignment == nullptr) {
        return missing(__func__, job == nullptr ? "job" : id == nullptr ? "id" : "assignment");
    }
    *assignment = nullptr;
    return c_boundary(__func__, [&]() -> int {
        constexpr const char *call = "meridian_pnet_get_assignment";
        auto grant = grant_of(*job, call, id);
        if (!grant) {
            return refuse(grant.error().status, grant.error().message);
        }
        const pnet::Job &j = job->handle->job;
        if (rank >= j.map.procs.size()) {
            const Error error = rank_outside(call, rank, j.map.procs.size());
            return refuse(error.status, error.message);
        }
        auto *out = static_cast<meridian_pnet_assignment_t *>(
            std::calloc(1, sizeof(meridian_pnet_assignment_t)));
        if (out == nullptr) {
            return no_memory();
        }
        if (!fill_assignment(j, **grant, rank, *out)) {
            meridian_pnet_assignment_free(out);
            return no_memory();
        }
        *assignment = out;
        return MERIDIAN_SUCCESS;
    });
}

int meridian_pnet_launch_blob_with(const meridian_pnet_requests_t *launcher, uint8_t **bytes,
                                   size_t *size)
{
    if (bytes == nullptr || size == nullptr) {
        return missing(__func__, bytes == nullptr ? "bytes" : "size");
    }
    *bytes = nullptr;
    *size = 0;
    return c_boundary(__func__, [&]() -> int {
        const unsigned long before = meridian_error_count();
        auto blob = pnet::detail::launch_blob(
            launcher != nullptr ? std::span<const pnet::Request>(launcher->requests)
                                : std::span<const pnet::Request>());
        if (!blob) {
            return fail(blob.error(), before);
        }
        auto *out = static_cast<uint8_t *>(std::malloc(blob->size()));
        if (out == nullptr) {
            return no_memory();
        }
        std::memcpy(out, blob->data(), blob->size());
        *bytes = out;
        *size = blob->size();
        return MERIDIAN_SUCCESS;
    });
}

int meridian_pnet_launch_blob(uint8_t **bytes, size_t *size)
{
    return meridian_pnet_launch_blob_with(nullptr, bytes, size);
}

int meridian_pnet_node_job_new(const char *nspace, const char *node, const int32_t *packages,
                               size_t count, const void *blob, size_t size,
                               meridian_pnet_job_t **job)
{
    if (nspace == nullptr || node == nullptr || job == nullptr ||
        (packages == nullptr && count > 0) || (blob == nullptr && size > 0)) {
        return missing(__func__, nspace == nullptr     ? "nspace"
                                 : node == nullptr     ? "node"
                                 : job == nullptr      ? "job"
                                 : packages == nullptr ? "packages"
                                                       : "blob");
    }
    *job = nullptr;
    return c_boundary(__func__, [&]() -> int {
        const unsigned long before = meridian_error_count();
        auto made = pnet::detail::node_job(
            nspace, node, std::span<const std::int32_t>(packages, count),
            std::span<const std::uint8_t>(static_cast<const std::uint8_t *>(blob), size));
        if (!made) {
            return fail(make_error(made.error().status, std::string(__func__) + ": node " + node +
                                                            ", job " + nspace + ": " +
                                                            made.error().message),
                        before);
        }
        auto handle = std::make_unique<meridian_pnet_job>();
        handle->handle = std::move(*made);
        handle->allocated = true;
        *job = handle.release();
        return MERIDIAN_SUCCESS;
    });
}

int meridian_pnet_pmix_node_inventory(const meridian_pnet_job_t *job, struct pmix_info **info,
                                      size_t *count)
{
    if (job == nullptr || info == nullptr || count == nullptr) {
        return missing(__func__, job == nullptr ? "job" : info == nullptr ? "info" : "count");
    }
    *info = nullptr;
    *count = 0;
    return c_boundary(__func__, [&]() -> int {
#if MERIDIAN_HAVE_PMIX
        const unsigned long before = meridian_error_count();
        if (auto done = pnet::detail::pmix_node_inventory(*job->handle, info, count); !done) {
            return fail(make_error(done.error().status,
                                   std::string(__func__) + ": " + done.error().message),
                        before);
        }
        return MERIDIAN_SUCCESS;
#else
        return refuse(MERIDIAN_ERR_NOT_SUPPORTED,
                      std::string(__func__) + ": this Meridian was built without PMIx");
#endif
    });
}

int meridian_pnet_pmix_proc_data(const meridian_pnet_job_t *job, uint32_t rank,
                                 struct pmix_info **info, size_t *count)
{
    if (job == nullptr || info == nullptr || count == nullptr) {
        return missing(__func__, job == nullptr ? "job" : info == nullptr ? "info" : "count");
    }
    *info = nullptr;
    *count = 0;
    return c_boundary(__func__, [&]() -> int {
        constexpr const char *call = "meridian_pnet_pmix_proc_data";
#if MERIDIAN_HAVE_PMIX
        if (!job->allocated) {
            return refuse(MERIDIAN_ERR_NOT_INITIALIZED,
                          std::string(call) +
                              ": the job is not allocated (meridian_pnet_allocate)");
        }
        const pnet::Job &j = job->handle->job;
        if (rank >= j.map.procs.size()) {
            const Error error = rank_outside(call, rank, j.map.procs.size());
            return refuse(error.status, error.message);
        }
        const unsigned long before = meridian_error_count();
        if (auto done = pnet::detail::pmix_proc_data(*job->handle, rank, info, count); !done) {
            return fail(
                make_error(done.error().status, std::string(call) + ": " + done.error().message),
                before);
        }
        return MERIDIAN_SUCCESS;
#else
        (void)rank;
        return refuse(MERIDIAN_ERR_NOT_SUPPORTED,
                      std::string(call) + ": this Meridian was built without PMIx");
#endif
    });
}

int meridian_pnet_pmix_node_data(const meridian_pnet_job_t *job, const char *node,
                                 struct pmix_info **info, size_t *count)
{
    if (job == nullptr || node == nullptr || info == nullptr || count == nullptr) {
        return missing(__func__, job == nullptr    ? "job"
                                 : node == nullptr ? "node"
                                 : info == nullptr ? "info"
                                                   : "count");
    }
    *info = nullptr;
    *count = 0;
    return c_boundary(__func__, [&]() -> int {
        constexpr const char *call = "meridian_pnet_pmix_node_data";
#if MERIDIAN_HAVE_PMIX
        if (!job->allocated) {
            return refuse(MERIDIAN_ERR_NOT_INITIALIZED,
                          std::string(call) +
                              ": the job is not allocated (meridian_pnet_allocate)");
        }
        const unsigned long before = meridian_error_count();
        if (auto done = pnet::detail::pmix_node_data(*job->handle, node, info, count); !done) {
            return fail(
                make_error(done.error().status, std::string(call) + ": " + done.error().message),
                before);
        }
        return MERIDIAN_SUCCESS;
#else
        return refuse(MERIDIAN_ERR_NOT_SUPPORTED,
                      std::string(call) + ": this Meridian was built without PMIx");
#endif
    });
}

void meridian_pnet_assignment_free(meridian_pnet_assignment_t *assignment)
{
    if (assignment == nullptr) {
        return;
    }
    std::free(assignment->id);
    std::free(assignment->type);
    std::free(assignment->plane);
    std::free(assignment->component);
    std::free(assignment->ports);
    util::free_c_strings(assignment->devices, assignment->device_count);
    std::free(assignment->seckey);
    std::free(assignment);
}

} // extern "C"
