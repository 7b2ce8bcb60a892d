// The queries on the current context (base.hpp).  Each costs O(the NICs of
// the processes asked about + the planes), never O(processes) or O(nodes):
// coordinates are looked up through the context's NIC slots and the
// fabric's cached NIC order per (node shape, package).
//
// Views: UNDEF means logical.  One plane asked for: a view its module does
// not give is MERIDIAN_ERR_NOT_SUPPORTED.  Every plane: the planes that give
// the view answer (dims: 0 for the others); NOT_SUPPORTED only when none does.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <meridian/mca/coord/base/base.hpp>
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
    const fabric::Nic &n = fabric.nics()[nic];
    return fabric.nodes()[n.node].name + ":" + n.name;
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

Result<std::vector<std::string>> endpoints(std::uint32_t rank)
{
    auto ctx = current();
    if (!ctx) {
        return ctx.error();
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
            return std::vector<std::string>{}; // pnet assigned none
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
        const auto match = std::find_if(near_b.begin(), near_b.end(), [plane](const auto &entry) {
            return entry.first == plane;
        });
        if (match == near_b.end()) {
            continue;
        }
        const PlaneTable &table = c.planes[plane];
        if (table.module == nullptr || table.module->nic_cost == nullptr) {
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

Result<datastore::Value> query(std::string_view key, std::uint32_t rank, const Qualifiers &q)
{
    auto wrap = [](auto result) -> Result<datastore::Value> {
        if (!result) {
            return result.error();
        }
        return datastore::Value(std::move(*result));
    };
    if (key == key_coordinate) {
        return wrap(coordinates(rank, q.plane, q.view));
    }
    if (key == key_view) {
        return datastore::Value(std::uint64_t{effective(q.view)});
    }
    if (key == key_dims) {
        return wrap(dims(q.plane, q.view));
    }
    if (key == key_plane) {
        return datastore::Value(planes());
    }
    if (key == key_nic) {
        auto ctx = current();
        if (!ctx) {
            return ctx.error();
        }
        auto found = one_plane(**ctx, q.plane, key_nic);
        if (!found) {
            return found.error();
        }
        auto lists = nics((*ctx)->fabric->planes()[*found].name);
        if (!lists) {
            return lists.error();
        }
        return datastore::Value(std::move(lists->front()));
    }
    if (key == key_endpoint) {
        return wrap(endpoints(rank));
    }
    if (key == key_shape) {
        return wrap(shape(q.plane, q.view));
    }
    if (key == key_cost) {
        return wrap(cost(rank, q.peer));
    }
    return make_error(
        MERIDIAN_ERR_NOT_FOUND,
        "unknown coord key " + util::quoted(key) + " (keys: " +
            util::join({std::string(key_coordinate), std::string(key_view), std::string(key_dims),
                        std::string(key_plane), std::string(key_nic), std::string(key_endpoint),
                        std::string(key_shape), std::string(key_cost)},
                       ", ") +
            ")");
}

} // namespace meridian::coord
