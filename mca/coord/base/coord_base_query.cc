// SPDX-License-Identifier: BSD-3-Clause
// The queries on the current context (base.hpp).  Each costs O(the NICs of
// the processes asked about + the planes), never O(processes) or O(nodes):
// coordinates are looked up through the context's NIC slots and the
// fabric's cached NIC order per (node shape, package).
//
// Views: UNDEF means logical.  One plane asked for: a view its module does
// not give is MERIDIAN_ERR_NOT_SUPPORTED.  Every plane: the planes that give
// the view answer (dims: 0 for the others, shapes: empty); NOT_SUPPORTED only
// when none does.
//
// A NIC qualifier is looked up by name in O(1) (the fabric's node and NIC
// indexes); only the message for an unknown one looks further.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mca/coord/base/coord_base_internal.hpp"
#include <meridian/mca/coord/base/base.hpp>
#include <meridian/opal/class/fabric_address.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/strings.hpp>

namespace meridian::coord
{

namespace
{

meridian_coord_view_t effective(meridian_coord_view_t view)
{
    return view == MERIDIAN_COORD_VIEW_UNDEF ? MERIDIAN_COORD_LOGICAL_VIEW : view;
}

Result<const mca_coord_context *> current()
{
    const mca_coord_context *ctx = context();
    if (ctx == nullptr) {
        if (const Error *failure = placement_failure()) {
            return make_error(failure->status,
                              "no network coordinates for the job: " + failure->message);
        }
        return make_error(MERIDIAN_ERR_NOT_INITIALIZED,
                          "no network coordinates yet: no fabric and job have been placed "
                          "(coord set_context)");
    }
    return ctx;
}

std::vector<std::string> plane_names(const fabric::Fabric &fabric)
{
    std::vector<std::string> names;
    for (const auto &plane : fabric.planes()) {
        names.push_back(plane.name);
    }
    return names;
}

Result<fabric::Index> find_plane(const mca_coord_context &ctx, std::string_view plane)
{
    if (const auto index = ctx.fabric->find_plane(plane)) {
        return *index;
    }
    const auto names = plane_names(*ctx.fabric);
    return make_error(MERIDIAN_ERR_NOT_FOUND,
                      "unknown plane " + util::quoted(plane) + " (planes: " +
                          (names.empty() ? std::string("none") : util::join(names, ", ")) + ")");
}

// One plane for a query that needs one: the named one, or the only one.
Result<fabric::Index> one_plane(const mca_coord_context &ctx, std::string_view plane,
                                std::string_view key)
{
    if (!plane.empty()) {
        return find_plane(ctx, plane);
    }
    if (ctx.fabric->planes().size() == 1) {
        return fabric::Index{0};
    }
    const auto names = plane_names(*ctx.fabric);
    return make_error(
        MERIDIAN_ERR_BAD_PARAM,
        std::string(key) + " needs a plane when the fabric has " + std::to_string(names.size()) +
            " (planes: " + (names.empty() ? std::string("none") : util::join(names, ", ")) + ")");
}

Result<fabric::ProcPlacement> placement(const mca_coord_context &ctx, std::uint32_t rank)
{
    if (rank >= ctx.job->procs.size()) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          "rank " + std::to_string(rank) + " is not in job \"" + ctx.job->nspace +
                              "\" (" + std::to_string(ctx.job->procs.size()) + " processes)");
    }
    return ctx.job->procs[rank];
}

const std::vector<std::uint32_t> *shape_in(const PlaneTable &table, meridian_coord_view_t view)
{
    for (size_t v = 0; v < table.views.size(); ++v) {
        if (table.views[v] == view) {
            return &table.shapes[v];
        }
    }
    return nullptr;
}

std::string views_of(const PlaneTable &table)
{
    std::vector<std::string> names;
    for (const auto view : table.views) {
        names.push_back(view_name(view));
    }
    return util::join(names, ", ");
}

Error no_view(const mca_coord_context &ctx, fabric::Index plane, meridian_coord_view_t view)
{
    const PlaneTable &table = ctx.planes[plane];
    return make_error(MERIDIAN_ERR_NOT_SUPPORTED, "plane \"" + ctx.fabric->planes()[plane].name +
                                                      "\" has no coordinates in view " +
                                                      view_name(view) + " (coord component \"" +
                                                      table.component +
                                                      "\" gives: " + views_of(table) + ")");
}

Result<const std::vector<std::uint32_t> *>
plane_shape(const mca_coord_context &ctx, fabric::Index plane, meridian_coord_view_t view)
{
    const auto *found = shape_in(ctx.planes[plane], view);
    if (found == nullptr) {
        return no_view(ctx, plane, view);
    }
    return found;
}

std::string nic_label(const fabric::Fabric &fabric, fabric::Index nic)
{
    return nic_name(fabric, nic);
}

// The NICs a name could have meant, for the message about an unknown one:
// those of every node its node part names or nearly names, and those of the
// process's node (for a name given alone), nearest spelling first.
std::vector<std::string> close_nics(const fabric::Fabric &fab, std::string_view text,
                                    std::optional<fabric::Index> own_node)
{
    constexpr std::size_t shown = 8;
    std::set<fabric::Index> nodes;
    std::vector<std::string> node_names;
    for (std::size_t colon = text.find(':'); colon != std::string_view::npos;
         colon = text.find(':', colon + 1)) {
        const std::string_view node = text.substr(0, colon);
        if (const auto found = fab.find_node(node)) {
            nodes.insert(*found);
            continue;
        }
        if (node_names.empty()) {
            for (const auto &n : fab.nodes()) {
                node_names.push_back(n.name);
            }
        }
        if (const auto guess = util::closest_match(node, node_names)) {
            nodes.insert(*fab.find_node(*guess));
        }
    }
    if (own_node) {
        nodes.insert(*own_node);
    }
    std::vector<std::pair<std::size_t, std::string>> ranked;
    for (const fabric::Index node : nodes) {
        for (const fabric::Index nic : fab.nodes()[node].nics) {
            std::string label = nic_name(fab, nic);
            std::size_t distance = util::edit_distance(text, label);
            if (own_node && node == *own_node) {
                distance = std::min(distance, util::edit_distance(text, fab.nics()[nic].name));
            }
            ranked.emplace_back(distance, std::move(label));
        }
    }
    std::sort(ranked.begin(), ranked.end());
    std::vector<std::string> out;
    for (std::size_t i = 0; i < ranked.size() && i < shown; ++i) {
        out.push_back(std::move(ranked[i].second));
    }
    return out;
}

Result<fabric::Index> resolve_nic(const mca_coord_context &ctx, std::string_view text,
                                  std::uint32_t rank)
{
    const auto &fab = *ctx.fabric;
    // "node:nic", split at each ':' in turn: either name may hold one.
    std::vector<fabric::Index> matches;
    for (std::size_t colon = text.find(':'); colon != std::string_view::npos;
         colon = text.find(':', colon + 1)) {
        if (const auto node = fab.find_node(text.substr(0, colon))) {
            if (const auto nic = fab.find_nic(*node, text.substr(colon + 1))) {
                matches.push_back(*nic);
            }
        }
    }
    if (matches.size() > 1) {
        std::vector<std::string> readings;
        for (const fabric::Index nic : matches) {
            readings.push_back("NIC " + util::quoted(fab.nics()[nic].name) + " of node " +
                               util::quoted(fab.nodes()[fab.nics()[nic].node].name));
        }
        return make_error(MERIDIAN_ERR_BAD_PARAM, "NIC name " + util::quoted(text) +
                                                      " is ambiguous: it names " +
                                                      util::join(readings, " and "));
    }
    if (matches.size() == 1) {
        return matches.front();
    }
    // The name alone: a NIC of the process's node.
    std::optional<fabric::Index> own_node;
    if (rank < ctx.job->procs.size()) {
        own_node = ctx.job->procs[rank].node;
        if (const auto nic = fab.find_nic(*own_node, text)) {
            return *nic;
        }
    }
    const auto close = close_nics(fab, text, own_node);
    return make_error(MERIDIAN_ERR_NOT_FOUND,
                      "unknown NIC " + util::quoted(text) +
                          (close.empty() ? std::string(" (no NIC is named like it; NICs are "
                                                       "named NODE:NIC as pmix.net.nic lists them)")
                                         : " (close: " + util::join(close, ", ") + ")"));
}

// The NIC's plane checked against a plane qualifier given with it.
Status nic_on_plane(const mca_coord_context &ctx, fabric::Index nic, std::string_view plane)
{
    if (plane.empty()) {
        return success();
    }
    auto found = find_plane(ctx, plane);
    if (!found) {
        return found.error();
    }
    const fabric::Index on = ctx.fabric->nics()[nic].plane;
    if (*found == on) {
        return success();
    }
    return make_error(MERIDIAN_ERR_BAD_PARAM,
                      "NIC " + nic_name(*ctx.fabric, nic) + " is on plane " +
                          util::quoted(ctx.fabric->planes()[on].name) + ", not on plane " +
                          util::quoted(ctx.fabric->planes()[*found].name));
}

// A process's nearest NIC on each plane it has one on, as (plane, nic)
// pairs in the order the planes first appear among its NICs.
void nearest_per_plane(const mca_coord_context &ctx, const fabric::ProcPlacement &where,
                       std::vector<std::pair<fabric::Index, fabric::Index>> &out)
{
    out.clear();
    const auto &fab = *ctx.fabric;
    for (const fabric::Index nic : fab.nics_by_distance(where.node, where.package)) {
        const fabric::Index plane = fab.nics()[nic].plane;
        const bool seen = std::any_of(out.begin(), out.end(),
                                      [plane](const auto &entry) { return entry.first == plane; });
        if (!seen) {
            out.emplace_back(plane, nic);
        }
    }
}

} // namespace

Result<std::vector<Coordinate>> coordinates(std::uint32_t rank, std::string_view plane,
                                            meridian_coord_view_t view)
{
    auto ctx = current();
    if (!ctx) {
        return ctx.error();
    }
    const mca_coord_context &c = **ctx;
    auto where = placement(c, rank);
    if (!where) {
        return where.error();
    }
    view = effective(view);
    std::optional<fabric::Index> only;
    if (!plane.empty()) {
        auto found = find_plane(c, plane);
        if (!found) {
            return found.error();
        }
        only = *found;
        if (shape_in(c.planes[*only], view) == nullptr) {
            return no_view(c, *only, view);
        }
    }
    const auto &fab = *c.fabric;
    std::vector<Coordinate> out;
    bool lacking = false; // a NIC whose plane does not give the view
    for (const fabric::Index nic : fab.nics_by_distance(where->node, where->package)) {
        const fabric::Index p = fab.nics()[nic].plane;
        if (only && p != *only) {
            continue;
        }
        const auto value = nic_coordinate(c, nic, view);
        if (value.empty()) {
            lacking = true;
            continue;
        }
        const fabric::Plane &info = fab.planes()[p];
        out.push_back(Coordinate{info.type, info.name, view,
                                 std::vector<std::uint32_t>(value.begin(), value.end())});
    }
    if (out.empty() && lacking) {
        return make_error(MERIDIAN_ERR_NOT_SUPPORTED,
                          "no plane of rank " + std::to_string(rank) + " (node " +
                              fab.nodes()[where->node].name + ") has coordinates in view " +
                              view_name(view));
    }
    return out;
}

Result<std::vector<std::uint32_t>> dims(std::string_view plane, meridian_coord_view_t view)
{
    auto ctx = current();
    if (!ctx) {
        return ctx.error();
    }
    const mca_coord_context &c = **ctx;
    view = effective(view);
    if (!plane.empty()) {
        auto found = find_plane(c, plane);
        if (!found) {
            return found.error();
        }
        auto shape = plane_shape(c, *found, view);
        if (!shape) {
            return shape.error();
        }
        return std::vector<std::uint32_t>{static_cast<std::uint32_t>((*shape)->size())};
    }
    std::vector<std::uint32_t> out;
    bool any = false;
    for (const auto &table : c.planes) {
        const auto *shape = shape_in(table, view);
        out.push_back(shape == nullptr ? 0 : static_cast<std::uint32_t>(shape->size()));
        any = any || shape != nullptr;
    }
    if (!any && !c.planes.empty()) {
        return make_error(MERIDIAN_ERR_NOT_SUPPORTED,
                          "no plane has coordinates in view " + view_name(view));
    }
    return out;
}

std::vector<std::string> planes()
{
    const mca_coord_context *ctx = context();
    return ctx == nullptr ? std::vector<std::string>{} : plane_names(*ctx->fabric);
}

Result<std::vector<std::vector<std::string>>> nics(std::string_view plane)
{
    auto ctx = current();
    if (!ctx) {
        return ctx.error();
    }
    const mca_coord_context &c = **ctx;
    const auto &fab = *c.fabric;
    auto names_of = [&fab](const fabric::Plane &p, std::vector<std::string> &out) {
        for (const fabric::Index nic : p.nics) {
            out.push_back(nic_label(fab, nic));
        }
    };
    std::vector<std::vector<std::string>> out;
    if (!plane.empty()) {
        auto found = find_plane(c, plane);
        if (!found) {
            return found.error();
        }
        out.emplace_back();
        names_of(fab.planes()[*found], out.back());
        return out;
    }
    for (const auto &p : fab.planes()) {
        out.emplace_back();
        out.back().push_back(p.name);
        names_of(p, out.back());
    }
    return out;
}

std::string nic_name(const fabric::Fabric &fabric, fabric::Index nic)
{
    const fabric::Nic &n = fabric.nics()[nic];
    return fabric.nodes()[n.node].name + ":" + n.name;
}

Result<fabric::Index> find_nic(std::string_view nic, std::uint32_t rank)
{
    auto ctx = current();
    if (!ctx) {
        return ctx.error();
    }
    return resolve_nic(**ctx, nic, rank);
}

namespace
{

Result<Coordinate> coordinate_at(const mca_coord_context &c, fabric::Index nic,
                                 meridian_coord_view_t view)
{
    view = effective(view);
    const fabric::Index plane = c.fabric->nics()[nic].plane;
    const auto value = nic_coordinate(c, nic, view);
    if (value.empty()) {
        return no_view(c, plane, view);
    }
    const fabric::Plane &info = c.fabric->planes()[plane];
    return Coordinate{info.type, info.name, view,
                      std::vector<std::uint32_t>(value.begin(), value.end())};
}

// The endpoints of a process (placed at `where`) on one NIC.
Result<std::vector<std::string>> endpoints_at(const mca_coord_context &c, std::uint32_t rank,
                                              const fabric::ProcPlacement &where, fabric::Index nic)
{
    const auto &fab = *c.fabric;
    const fabric::Nic &n = fab.nics()[nic];
    const std::string name = nic_name(fab, nic);
    const std::string who = "rank " + std::to_string(rank);
    if (n.node != where.node) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          "NIC " + name + " is not on " + who + "'s node " +
                              fab.nodes()[where.node].name +
                              ": a process has endpoints only on its own node's NICs");
    }
    auto all = endpoints(rank);
    if (!all || all->empty()) {
        return all;
    }
    if (!n.address) {
        return make_error(MERIDIAN_ERR_NOT_SUPPORTED,
                          "which endpoints of " + who + " are on NIC " + name +
                              " cannot be known: endpoints are ADDRESS:PORT, and the NIC has no "
                              "address in the fabric");
    }
    std::vector<std::string> out;
    for (auto &endpoint : *all) {
        const auto colon = endpoint.rfind(':');
        const auto address = colon == std::string::npos
                                 ? std::nullopt
                                 : fabric::parse_ipv4(std::string_view(endpoint).substr(0, colon));
        if (!address) {
            return make_error(MERIDIAN_ERR_NOT_SUPPORTED,
                              "which NIC the endpoint " + util::quoted(endpoint) + " of " + who +
                                  " is on cannot be known: it is not IPV4-ADDRESS:PORT");
        }
        if (*address == *n.address) {
            out.push_back(std::move(endpoint));
        }
    }
    return out;
}

} // namespace

Result<Coordinate> coordinate_of_nic(std::string_view nic, std::uint32_t rank,
                                     meridian_coord_view_t view)
{
    auto ctx = current();
    if (!ctx) {
        return ctx.error();
    }
    auto index = resolve_nic(**ctx, nic, rank);
    if (!index) {
        return index.error();
    }
    return coordinate_at(**ctx, *index, view);
}

namespace
{
// Set by pnet when the job's network was set up by the launcher or the
// node's leader: then nobody holds every process's endpoints, and another
// process's come from what it published, without a fence.
bool endpoints_from_peers = false;

// What a process published as its endpoints: its own from this process's
// store, another's from its host (PMIx's direct modex, which holds the
// request until that process has published); nullopt when it published
// none.
// `nspace`: the placed job's (its ranks checked already), or empty for this
// process's job (the rank is checked against it).
Result<std::optional<std::vector<std::string>>> published_endpoints(std::uint32_t rank,
                                                                    const std::string &nspace)
{
    using Published = std::optional<std::vector<std::string>>;
    auto store = datastore::store();
    if (!store) {
        return store.error();
    }
    const bool own_job = nspace.empty() || nspace == (*store)->self().nspace;
    const datastore::ProcId proc{own_job ? (*store)->self().nspace : nspace, rank};
    if (nspace.empty() && rank >= (*store)->job_size()) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          "rank " + std::to_string(rank) + " is not in the job (" +
                              std::to_string((*store)->job_size()) + " processes)");
    }
    auto value = !own_job || rank == (*store)->self().rank || !endpoints_from_peers
                     ? (*store)->get(proc, key_published_endpoint)
                     : (*store)->wait_for(proc, key_published_endpoint, std::chrono::seconds(30));
    if (!value) {
        if (value.error().status == MERIDIAN_ERR_NOT_FOUND) {
            return Published();
        }
        return value.error();
    }
    if (auto *list = std::get_if<std::vector<std::string>>(&*value)) {
        return Published(std::move(*list));
    }
    return make_error(MERIDIAN_ERR_BAD_PARAM, std::string(key_published_endpoint) + " of rank " +
                                                  std::to_string(rank) + " is " +
                                                  std::string(datastore::value_type_name(*value)) +
                                                  ", expected a string array");
}
} // namespace

namespace detail
{
void endpoints_from_peers_published(bool published)
{
    endpoints_from_peers = published;
}
} // namespace detail

Result<std::vector<std::string>> endpoints(std::uint32_t rank)
{
    // Set up by the launcher or the node's leader, with the job not placed
    // yet: what the rank published answers without placing the job (which
    // reads every node's inventory).
    if (endpoints_from_peers && detail::current_context() == nullptr) {
        auto published = published_endpoints(rank, std::string());
        if (!published) {
            return published.error();
        }
        if (*published) {
            return std::move(**published);
        }
    }
    auto ctx = current();
    if (!ctx) {
        // No placed job: what the process published, if anything.
        auto published = published_endpoints(rank, std::string());
        if (!published) {
            return published.error();
        }
        if (!*published) {
            return ctx.error();
        }
        return std::move(**published);
    }
    if (auto where = placement(**ctx, rank); !where) {
        return where.error();
    }
    auto store = datastore::store();
    if (!store) {
        return store.error();
    }
    const datastore::ProcId proc{(*ctx)->job->nspace, rank};
    auto value = (*store)->get(proc, key_endpoint);
    if (!value) {
        if (value.error().status == MERIDIAN_ERR_NOT_FOUND) {
            // Not set up here (another host's process): what it published,
            // in-job after the job's fence, else read from its host; none:
            // pnet assigned it none.
            auto published = published_endpoints(rank, (*ctx)->job->nspace);
            if (!published) {
                return published.error();
            }
            return published->value_or(std::vector<std::string>{});
        }
        return value.error();
    }
    if (auto *list = std::get_if<std::vector<std::string>>(&*value)) {
        return std::move(*list);
    }
    if (auto *one = std::get_if<std::string>(&*value)) {
        return std::vector<std::string>{std::move(*one)};
    }
    return make_error(MERIDIAN_ERR_BAD_PARAM, std::string(key_endpoint) + " of rank " +
                                                  std::to_string(rank) + " is " +
                                                  std::string(datastore::value_type_name(*value)) +
                                                  ", expected a string array");
}

Result<std::vector<std::string>> endpoints_on_nic(std::uint32_t rank, std::string_view nic)
{
    auto ctx = current();
    if (!ctx) {
        return ctx.error();
    }
    const mca_coord_context &c = **ctx;
    auto where = placement(c, rank);
    if (!where) {
        return where.error();
    }
    auto index = resolve_nic(c, nic, rank);
    if (!index) {
        return index.error();
    }
    return endpoints_at(c, rank, *where, *index);
}

Result<std::vector<std::uint32_t>> shape(std::string_view plane, meridian_coord_view_t view)
{
    auto ctx = current();
    if (!ctx) {
        return ctx.error();
    }
    auto found = one_plane(**ctx, plane, key_shape);
    if (!found) {
        return found.error();
    }
    auto result = plane_shape(**ctx, *found, effective(view));
    if (!result) {
        return result.error();
    }
    return **result;
}

Result<std::vector<std::vector<std::uint32_t>>> shapes(meridian_coord_view_t view)
{
    auto ctx = current();
    if (!ctx) {
        return ctx.error();
    }
    view = effective(view);
    std::vector<std::vector<std::uint32_t>> out;
    bool any = false;
    for (const auto &table : (*ctx)->planes) {
        const auto *found = shape_in(table, view);
        out.push_back(found == nullptr ? std::vector<std::uint32_t>{} : *found);
        any = any || found != nullptr;
    }
    if (!any && !(*ctx)->planes.empty()) {
        return make_error(MERIDIAN_ERR_NOT_SUPPORTED,
                          "no plane has coordinates in view " + view_name(view));
    }
    return out;
}

Result<bool> is_grid(std::string_view plane)
{
    auto ctx = current();
    if (!ctx) {
        return ctx.error();
    }
    auto found = find_plane(**ctx, plane);
    if (!found) {
        return found.error();
    }
    return shape_in((*ctx)->planes[*found], MERIDIAN_COORD_PHYSICAL_VIEW) != nullptr;
}

Result<std::uint64_t> cost(std::uint32_t from, std::uint32_t to)
{
    auto ctx = current();
    if (!ctx) {
        return ctx.error();
    }
    const mca_coord_context &c = **ctx;
    auto a = placement(c, from);
    if (!a) {
        return a.error();
    }
    auto b = placement(c, to);
    if (!b) {
        return b.error();
    }
    if (a->node == b->node) {
        return std::uint64_t{0};
    }
    // Few planes per node: small vectors, reused by the thread.
    thread_local std::vector<std::pair<fabric::Index, fabric::Index>> near_a;
    thread_local std::vector<std::pair<fabric::Index, fabric::Index>> near_b;
    nearest_per_plane(c, *a, near_a);
    nearest_per_plane(c, *b, near_b);
    std::optional<std::uint64_t> best;
    for (const auto &[plane, nic_a] : near_a) {
        // (a copy: Clang 14 captures no structured binding)
        const auto match =
            std::find_if(near_b.begin(), near_b.end(),
                         [wanted = plane](const auto &entry) { return entry.first == wanted; });
        if (match == near_b.end()) {
            continue;
        }
        const PlaneTable &table = c.planes[plane];
        if (table.module == nullptr || table.module->nic_cost == nullptr) {
            continue;
        }
        // Two hosts' loopbacks share a plane's name, not a wire.
        const auto host_local = [&](fabric::Index nic) {
            const auto &address = c.fabric->nics()[nic].address;
            return address && fabric::is_loopback(*address);
        };
        if (host_local(nic_a) || host_local(match->second)) {
            continue;
        }
        std::uint64_t hops = 0;
        const int rc = table.module->nic_cost(table.module, &c, nic_a, match->second, &hops);
        if (rc != MERIDIAN_SUCCESS) {
            return make_error(
                rc, "the coord component \"" + table.component + "\" could not say how far apart " +
                        nic_label(*c.fabric, nic_a) + " and " +
                        nic_label(*c.fabric, match->second) + " are: " + meridian_strerror(rc));
        }
        best = best ? std::min(*best, hops) : hops;
    }
    if (!best) {
        return make_error(MERIDIAN_ERR_NOT_FOUND,
                          "ranks " + std::to_string(from) + " (node " +
                              c.fabric->nodes()[a->node].name + ") and " + std::to_string(to) +
                              " (node " + c.fabric->nodes()[b->node].name + ") share no plane");
    }
    return *best;
}

namespace
{

Result<datastore::Value> as_value(auto result)
{
    if (!result) {
        return result.error();
    }
    return datastore::Value(std::move(*result));
}

// One entry per plane, in plane order, keyed by the plane's name.
template <typename Each>
datastore::InfoList per_plane(const fabric::Fabric &fab, std::vector<Each> values)
{
    datastore::InfoList out;
    for (std::size_t i = 0; i < values.size() && i < fab.planes().size(); ++i) {
        out.push_back(datastore::Info{fab.planes()[i].name, std::move(values[i])});
    }
    return out;
}

Result<datastore::Value> nics_value(const Qualifiers &q)
{
    if (!q.plane.empty()) {
        auto lists = nics(q.plane);
        if (!lists) {
            return lists.error();
        }
        return datastore::Value(std::move(lists->front()));
    }
    auto ctx = current();
    if (!ctx) {
        return ctx.error();
    }
    auto lists = nics();
    if (!lists) {
        return lists.error();
    }
    for (auto &list : *lists) {
        list.erase(list.begin()); // the plane's name, the entry's key
    }
    return datastore::Value(per_plane(*(*ctx)->fabric, std::move(*lists)));
}

Result<datastore::Value> shape_value(const Qualifiers &q)
{
    if (!q.plane.empty()) {
        return as_value(shape(q.plane, q.view));
    }
    auto ctx = current();
    if (!ctx) {
        return ctx.error();
    }
    auto all = shapes(q.view);
    if (!all) {
        return all.error();
    }
    return datastore::Value(per_plane(*(*ctx)->fabric, std::move(*all)));
}

// query() about one NIC.
Result<datastore::Value> nic_value(std::string_view key, std::uint32_t rank, const Qualifiers &q)
{
    if (key == key_cost) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          std::string(key_cost) + " takes no NIC (" + util::quoted(q.nic) +
                              "): the cost is over each process's nearest NIC on each plane "
                              "both have one on");
    }
    auto ctx = current();
    if (!ctx) {
        return ctx.error();
    }
    const mca_coord_context &c = **ctx;
    // The query is about a process, even where the answer is the NIC's.
    auto where = placement(c, rank);
    if (!where) {
        return where.error();
    }
    auto nic = resolve_nic(c, q.nic, rank);
    if (!nic) {
        return nic.error();
    }
    if (auto on = nic_on_plane(c, *nic, q.plane); !on) {
        return on.error();
    }
    const auto view = effective(q.view);
    const fabric::Index plane = c.fabric->nics()[*nic].plane;
    if (key == key_coordinate) {
        auto coordinate = coordinate_at(c, *nic, view);
        if (!coordinate) {
            return coordinate.error();
        }
        return datastore::Value(std::vector<Coordinate>{std::move(*coordinate)});
    }
    if (key == key_view) {
        return datastore::Value(std::uint64_t{view});
    }
    if (key == key_dims || key == key_shape) {
        auto found = plane_shape(c, plane, view);
        if (!found) {
            return found.error();
        }
        if (key == key_dims) {
            return datastore::Value(
                std::vector<std::uint32_t>{static_cast<std::uint32_t>((*found)->size())});
        }
        return datastore::Value(**found);
    }
    if (key == key_plane) {
        return datastore::Value(std::vector<std::string>{c.fabric->planes()[plane].name});
    }
    if (key == key_nic) {
        return datastore::Value(std::vector<std::string>{nic_name(*c.fabric, *nic)});
    }
    return as_value(endpoints_at(c, rank, *where, *nic));
}

} // namespace

Result<datastore::Value> query(std::string_view key, std::uint32_t rank, const Qualifiers &q)
{
    const std::vector<std::string_view> keys = {key_coordinate, key_view,     key_dims,  key_plane,
                                                key_nic,        key_endpoint, key_shape, key_cost};
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
        std::vector<std::string> names(keys.begin(), keys.end());
        return make_error(MERIDIAN_ERR_NOT_FOUND, "unknown coord key " + util::quoted(key) +
                                                      " (keys: " + util::join(names, ", ") + ")");
    }
    if (!q.nic.empty()) {
        return nic_value(key, rank, q);
    }
    if (key == key_coordinate) {
        return as_value(coordinates(rank, q.plane, q.view));
    }
    if (key == key_view) {
        return datastore::Value(std::uint64_t{effective(q.view)});
    }
    if (key == key_dims) {
        return as_value(dims(q.plane, q.view));
    }
    if (key == key_plane) {
        return datastore::Value(planes());
    }
    if (key == key_nic) {
        return nics_value(q);
    }
    if (key == key_endpoint) {
        return as_value(endpoints(rank));
    }
    if (key == key_shape) {
        return shape_value(q);
    }
    return as_value(cost(rank, q.peer));
}

} // namespace meridian::coord
