// SPDX-License-Identifier: BSD-3-Clause
// The pipeline split the way a launcher with a daemon on every node runs it
// (base.h, "for a launcher's daemons"): the launcher reads the job's
// requests once and draws their security keys (launch_blob); each daemon
// makes, allocates and sets up the share of its own node (node_job), from
// its node's inventory and a job map of its own processes only.  Nothing
// here grows with the job: a daemon's cost is its node's.
//
// The blob is text, one item per line, so a launcher's log shows it:
//
//   meridian-pnet-launch 1
//   requests id=data,type=tcp,endpts=2;id=ctl
//   seckey data 6f1c...      (one line per request with a key, hex)
//
// A node reads only a blob of its own version; anything else it refuses
// by name.
#include "config.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mca/pnet/base/pnet_base_internal.hpp"
#include <meridian/mca/coord/base/base.hpp>
#include <meridian/mca/pnet/base/base.hpp>
#include <meridian/opal/runtime/datastore.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/strings.hpp>

namespace meridian::pnet::detail
{

namespace
{

constexpr std::string_view blob_magic = "meridian-pnet-launch 1";
constexpr std::string_view hex_digits = "0123456789abcdef";

std::string to_hex(std::span<const std::uint8_t> bytes)
{
    std::string text;
    text.reserve(bytes.size() * 2);
    for (const std::uint8_t b : bytes) {
        text += hex_digits[b >> 4];
        text += hex_digits[b & 0xf];
    }
    return text;
}

std::optional<std::vector<std::uint8_t>> from_hex(std::string_view text)
{
    if (text.size() % 2 != 0) {
        return std::nullopt;
    }
    std::vector<std::uint8_t> bytes(text.size() / 2);
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        const auto hi = hex_digits.find(text[2 * i]);
        const auto lo = hex_digits.find(text[2 * i + 1]);
        if (hi == std::string_view::npos || lo == std::string_view::npos) {
            return std::nullopt;
        }
        bytes[i] = static_cast<std::uint8_t>(hi << 4 | lo);
    }
    return bytes;
}

struct Launch {
    std::vector<Request> requests;
    std::vector<std::pair<std::string, std::vector<std::uint8_t>>> seckeys;
};

Result<Launch> read_blob(std::span<const std::uint8_t> blob)
{
    const std::string_view text(reinterpret_cast<const char *>(blob.data()), blob.size());
    const auto bad = [](std::size_t line, const std::string &what) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          "the launcher's pnet blob, line " + std::to_string(line) + ": " + what);
    };
    Launch launch;
    std::size_t line_number = 0;
    std::size_t at = 0;
    bool seen_requests = false;
    while (at < text.size()) {
        auto end = text.find('\n', at);
        if (end == std::string_view::npos) {
            end = text.size();
        }
        const std::string_view line = text.substr(at, end - at);
        at = end + 1;
        ++line_number;
        if (line_number == 1) {
            if (line != blob_magic) {
                return bad(1, "expected \"" + std::string(blob_magic) +
                                  "\" (a launcher of this "
                                  "Meridian), found " +
                                  util::quoted(line.substr(0, 64)));
            }
            continue;
        }
        const auto space = line.find(' ');
        const std::string_view word = line.substr(0, space);
        const std::string_view rest =
            space == std::string_view::npos ? std::string_view() : line.substr(space + 1);
        if (word == "requests" && !seen_requests) {
            seen_requests = true;
            auto parsed = parse_requests(rest, "the launcher's pnet_base_requests");
            if (!parsed) {
                return parsed.error();
            }
            launch.requests = std::move(*parsed);
        } else if (word == "seckey") {
            const auto gap = rest.find(' ');
            auto key =
                gap == std::string_view::npos ? std::nullopt : from_hex(rest.substr(gap + 1));
            if (!key || key->empty()) {
                return bad(line_number,
                           "expected \"seckey ID HEX\", found " + util::quoted(line.substr(0, 64)));
            }
            launch.seckeys.emplace_back(std::string(rest.substr(0, gap)), std::move(*key));
        } else {
            return bad(line_number, "expected \"requests ...\" once or \"seckey ...\", found " +
                                        util::quoted(line.substr(0, 64)));
        }
    }
    if (line_number == 0) {
        return bad(1, "the blob is empty");
    }
    if (!seen_requests) {
        return bad(line_number, "the blob has no requests line");
    }
    return launch;
}

} // namespace

} // namespace meridian::pnet::detail

namespace meridian::pnet
{

namespace
{
thread_local const HostJob *current_host_job = nullptr;
}

const HostJob *host_job()
{
    return current_host_job;
}

HostJobScope::HostJobScope(HostJob job) : job_(std::move(job)), outer_(current_host_job)
{
    current_host_job = &job_;
}

HostJobScope::~HostJobScope()
{
    current_host_job = outer_;
}

} // namespace meridian::pnet

namespace meridian::pnet::detail
{

Result<std::vector<std::uint8_t>> launch_blob(std::span<const Request> launcher)
{
    auto requests = requests_from_params();
    if (!requests) {
        return requests.error();
    }
    if (!launcher_requests_wanted()) {
        launcher = {};
    }
    for (const Request &request : launcher) {
        for (const Request &mine : *requests) {
            if (mine.id == request.id) {
                return make_error(MERIDIAN_ERR_BAD_PARAM,
                                  "the launcher asks for network allocation " +
                                      util::quoted(request.id) +
                                      ", and pnet_base_requests has a request of that ID too");
            }
        }
        requests->push_back(request);
    }
    std::string text(blob_magic);
    text += "\nrequests ";
    for (std::size_t i = 0; i < requests->size(); ++i) {
        text += (i == 0 ? "" : ";") + format_request((*requests)[i]);
    }
    for (const auto &request : *requests) {
        if (!request.seckey_bytes) {
            continue;
        }
        auto key = draw_seckey(request.id, request.seckey_bytes->value);
        if (!key) {
            return key.error();
        }
        text += "\nseckey " + request.id + " " + to_hex(*key);
    }
    text += '\n';
    return std::vector<std::uint8_t>(text.begin(), text.end());
}

Result<std::unique_ptr<mca_pnet_job>> node_job(std::string_view nspace, std::string_view node,
                                               std::span<const std::int32_t> packages,
                                               std::span<const std::uint8_t> blob)
{
    auto launch = read_blob(blob);
    if (!launch) {
        return launch.error();
    }
    std::unordered_map<std::string, std::vector<std::uint8_t>> keys;
    for (auto &[id, key] : launch->seckeys) {
        keys.insert_or_assign(std::move(id), std::move(key));
    }
    return node_share(nspace, node, packages, std::move(launch->requests), std::move(keys));
}

Result<std::unique_ptr<mca_pnet_job>>
node_share(std::string_view nspace, std::string_view node, std::span<const std::int32_t> packages,
           std::vector<Request> requests,
           std::unordered_map<std::string, std::vector<std::uint8_t>> seckeys)
{
    if (nspace.empty() || node.empty()) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          nspace.empty() ? "the namespace is empty" : "the node name is empty");
    }
    if (packages.empty()) {
        return make_error(MERIDIAN_ERR_BAD_PARAM, "node " + std::string(node) +
                                                      " runs no process of job " +
                                                      std::string(nspace));
    }
    // The datastore the node's results go to before they are handed to the
    // launcher's server: this process's own (a daemon is no PMIx client).
    if (auto store = datastore::store(); !store) {
        return store.error();
    }
    // The node's share is this process's to hold (pnet_tcp's port ledger
    // claims for the job, with this process as its one member here).
    const HostJobScope scope(HostJob{
        std::string(nspace), std::string(node), static_cast<std::uint32_t>(packages.size()), {}});
    // This node alone: its inventory from every component, into a fabric of
    // its own (a component reading a fabric file delivers the file's nodes).
    auto inventory = collect_inventory();
    if (!inventory) {
        return inventory.error();
    }
    auto fab = std::make_shared<fabric::Fabric>();
    const std::string name(node);
    for (const auto &[component, bytes] : *inventory) {
        if (auto delivered = deliver_inventory(name, component, bytes, *fab); !delivered) {
            return delivered.error();
        }
    }
    auto found = ensure_node(*fab, name);
    if (!found) {
        return found.error();
    }
    const fabric::Index index = *found;
    fabric::JobMap map;
    map.nspace = std::string(nspace);
    map.nodes.push_back(index);
    map.procs.resize(packages.size());
    const auto node_packages = fab->nodes()[index].packages;
    for (std::size_t i = 0; i < packages.size(); ++i) {
        auto &placement = map.procs[i];
        placement.node = index;
        placement.local_rank = static_cast<std::uint32_t>(i);
        placement.package =
            packages[i] >= 0 && static_cast<std::uint32_t>(packages[i]) < node_packages
                ? packages[i]
                : -1;
    }
    auto job = make_job(std::move(fab), std::move(map), std::move(requests));
    if (!job) {
        return job.error();
    }
    (*job)->job.seckeys = std::move(seckeys);
    (*job)->inventory = std::move(*inventory);
    if (auto allocated = allocate(**job); !allocated) {
        return allocated.error();
    }
    if (auto set_up = setup_local_network(**job, name); !set_up) {
        (void)deregister(**job);
        return set_up.error();
    }
    return std::move(*job);
}

Result<datastore::InfoList> node_results(const mca_pnet_job &handle, std::uint32_t index)
{
    const Job &job = handle.job;
    auto store = datastore::store();
    if (!store) {
        return store.error();
    }
    const datastore::ProcId proc{job.map.nspace, index};
    datastore::InfoList out;
    const auto add = [&](std::string_view from, std::string_view as) -> Status {
        auto value = (*store)->get(proc, from);
        if (!value) {
            // Nothing assigned under this key (no endpoints, say).
            return value.error().status == MERIDIAN_ERR_NOT_FOUND ? success() : value.error();
        }
        out.push_back({std::string(as), std::move(*value)});
        return success();
    };
    for (const auto &grant : job.grants) {
        if (auto done = add(grant.id, grant.id); !done) {
            return done.error();
        }
    }
    if (auto done = add(coord::key_endpoint, key_published_endpoints); !done) {
        return done.error();
    }
    if (auto coordinates = coord::coordinates(index); coordinates) {
        std::erase_if(*coordinates, [](const Coordinate &c) { return c.coord.empty(); });
        if (!coordinates->empty()) {
            out.push_back({std::string(key_published_coordinates), std::move(*coordinates)});
        }
    }
    return out;
}

} // namespace meridian::pnet::detail
