// SPDX-License-Identifier: BSD-3-Clause
// Placing a fabric: every plane is offered to the selected coord modules in
// priority order until one places it (coord.h), the tables they fill are
// checked here, and the finished context replaces the current one.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mca/coord/base/coord_base_internal.hpp"
#include "opal/util/no_destructor.hpp"
#include <meridian/mca/coord/base/base.hpp>
#include <meridian/mca/coord/coord.h>
#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/util/c_boundary.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>
#include <meridian/opal/util/strings.hpp>

namespace meridian::coord
{

namespace
{

struct State {
    std::shared_ptr<mca_coord_context> current;
    bool opened_here = false;     // set_context opened the framework, forget_context closes it
    void (*provider)() = nullptr; // makes the context on the first query that finds none
    std::optional<Error> failure; // why the last set_context failed, until one works
};

State &state()
{
    // Never destroyed: the framework may be closed after main, and the
    // context (whose modules live in DSOs) must still be there to forget.
    static util::NoDestructor<State> instance;
    return instance.get();
}

// The plane being placed: which NICs the module has set in each view, so
// that a module that leaves one out is caught before anybody queries it.
struct Progress {
    const mca_coord_context *context = nullptr;
    std::string component;
    std::vector<std::vector<bool>> filled; // per view of the plane, per NIC slot
};

Progress &progress()
{
    static util::NoDestructor<Progress> instance;
    return instance.get();
}

std::string nic_label(const fabric::Fabric &fabric, std::uint32_t nic)
{
    const fabric::Nic &n = fabric.nics()[nic];
    return fabric.nodes()[n.node].name + ":" + n.name;
}

std::string shape_text(const std::uint32_t *values, size_t count)
{
    std::string text;
    for (size_t i = 0; i < count; ++i) {
        text += (i > 0 ? "x" : "") + std::to_string(values[i]);
    }
    return text;
}

// "the coord component "tcp"" while a plane is placed, else a neutral name
// (a caller filling a context of its own).
std::string who(const mca_coord_context *context)
{
    const Progress &p = progress();
    if (p.context == context && !p.component.empty()) {
        return "the coord component \"" + p.component + "\"";
    }
    return "coord";
}

int refuse(const std::string &text)
{
    report_error(text);
    return MERIDIAN_ERR_BAD_PARAM;
}

// Index of view in the table, or -1.
int find_view(const PlaneTable &table, meridian_coord_view_t view)
{
    for (size_t v = 0; v < table.views.size(); ++v) {
        if (table.views[v] == view) {
            return static_cast<int>(v);
        }
    }
    return -1;
}

int set_shape(mca_coord_context *context, uint32_t plane, meridian_coord_view_t view,
              const uint32_t *shape, size_t dims)
{
    if (context == nullptr || context->fabric == nullptr) {
        return refuse("meridian_mca_coord_context_set_shape: no context");
    }
    const fabric::Fabric &fabric = *context->fabric;
    if (plane >= fabric.planes().size() || plane != context->placing ||
        context->planes.size() != fabric.planes().size()) {
        return refuse(who(context) + " set the shape of plane index " + std::to_string(plane) +
                      ", which is not the plane being placed");
    }
    const std::string &name = fabric.planes()[plane].name;
    if (dims == 0 || shape == nullptr) {
        return refuse(who(context) + " gave plane \"" + name + "\" a shape with no dimensions (" +
                      view_name(view) + " view)");
    }
    for (size_t i = 0; i < dims; ++i) {
        if (shape[i] == 0) {
            return refuse(who(context) + " gave plane \"" + name + "\" the " + view_name(view) +
                          " shape " + shape_text(shape, dims) + ", with an empty dimension " +
                          std::to_string(i + 1));
        }
    }
    PlaneTable &table = context->planes[plane];
    const size_t slots = fabric.planes()[plane].nics.size();
    Progress &p = progress();
    const bool tracked = p.context == context;
    int v = find_view(table, view);
    if (v < 0) {
        table.views.push_back(view);
        table.shapes.emplace_back();
        table.coords.emplace_back();
        if (tracked) {
            p.filled.emplace_back();
        }
        v = static_cast<int>(table.views.size() - 1);
    }
    auto &known = table.shapes[static_cast<size_t>(v)];
    // A shape given again with other dims drops the coordinates set so far:
    // they no longer fit it.
    if (known.size() != dims || table.coords[static_cast<size_t>(v)].size() != slots * dims) {
        table.coords[static_cast<size_t>(v)].assign(slots * dims, 0);
        if (tracked) {
            p.filled[static_cast<size_t>(v)].assign(slots, false);
        }
    }
    known.assign(shape, shape + dims);
    return MERIDIAN_SUCCESS;
}

int set_nic(mca_coord_context *context, uint32_t nic, meridian_coord_view_t view,
            const uint32_t *coord, size_t dims)
{
    if (context == nullptr || context->fabric == nullptr) {
        return refuse("meridian_mca_coord_context_set_nic: no context");
    }
    const fabric::Fabric &fabric = *context->fabric;
    if (nic >= fabric.nics().size()) {
        return refuse(who(context) + " set a coordinate of NIC index " + std::to_string(nic) +
                      ", but the fabric has " + std::to_string(fabric.nics().size()) + " NICs");
    }
    const std::uint32_t plane = fabric.nics()[nic].plane;
    if (plane != context->placing || plane >= context->planes.size() ||
        nic >= context->nic_slot.size()) {
        const std::string placing = context->placing < fabric.planes().size()
                                        ? "\"" + fabric.planes()[context->placing].name + "\""
                                        : std::string("(none)");
        return refuse(who(context) + " set a coordinate of NIC " + nic_label(fabric, nic) +
                      ", which is on plane \"" + fabric.planes()[plane].name +
                      "\", not on the plane being placed " + placing);
    }
    PlaneTable &table = context->planes[plane];
    const std::string &name = fabric.planes()[plane].name;
    const int v = find_view(table, view);
    if (v < 0) {
        return refuse(who(context) + " set a " + view_name(view) + " coordinate of NIC " +
                      nic_label(fabric, nic) + " before the " + view_name(view) +
                      " shape of plane \"" + name + "\"");
    }
    const auto &shape = table.shapes[static_cast<size_t>(v)];
    if (dims != shape.size() || (dims > 0 && coord == nullptr)) {
        return refuse(who(context) + " gave NIC " + nic_label(fabric, nic) + " " +
                      std::to_string(dims) + " " + view_name(view) + " coordinates, but plane \"" +
                      name + "\" has " + std::to_string(shape.size()) + " dimensions (shape " +
                      shape_text(shape.data(), shape.size()) + ")");
    }
    for (size_t i = 0; i < dims; ++i) {
        if (coord[i] >= shape[i]) {
            std::vector<std::uint32_t> value(coord, coord + dims);
            return refuse(who(context) + " put NIC " + nic_label(fabric, nic) + " at " +
                          view_name(view) + " " + format_coord(value) + ", outside the shape " +
                          shape_text(shape.data(), shape.size()) + " of plane \"" + name + "\"");
        }
    }
    const std::uint32_t slot = context->nic_slot[nic];
    std::copy(coord, coord + dims,
              table.coords[static_cast<size_t>(v)].begin() +
                  static_cast<std::ptrdiff_t>(slot * dims));
    Progress &p = progress();
    if (p.context == context && static_cast<size_t>(v) < p.filled.size()) {
        p.filled[static_cast<size_t>(v)][slot] = true;
    }
    return MERIDIAN_SUCCESS;
}

// After a module said it placed a plane: it gave at least one view, and
// every NIC of the plane a coordinate in each.
Status check_placed(const mca_coord_context &context, std::uint32_t plane)
{
    const fabric::Fabric &fabric = *context.fabric;
    const PlaneTable &table = context.planes[plane];
    const fabric::Plane &p = fabric.planes()[plane];
    const std::string component = "the coord component \"" + table.component + "\"";
    if (table.views.empty()) {
        return make_error(MERIDIAN_ERR_BAD_PARAM, component + " placed plane \"" + p.name +
                                                      "\" without giving it any coordinates");
    }
    const Progress &progress_ = progress();
    for (size_t v = 0; v < table.views.size(); ++v) {
        const auto &filled = progress_.filled[v];
        for (size_t k = 0; k < p.nics.size(); ++k) {
            if (!filled[k]) {
                return make_error(MERIDIAN_ERR_BAD_PARAM,
                                  component + " placed plane \"" + p.name + "\" but gave NIC " +
                                      nic_label(fabric, p.nics[k]) + " no " +
                                      view_name(table.views[v]) + " coordinate");
            }
        }
    }
    return success();
}

std::vector<std::string> component_names(const std::vector<mca_base_selected_t> &selected)
{
    std::vector<std::string> names;
    for (const auto &s : selected) {
        names.emplace_back(s.component->component_name);
    }
    return names;
}

// Plane name -> its table and NIC names, to compare an old context with a new one.
bool same_plane(const mca_coord_context &a, std::uint32_t pa, const mca_coord_context &b,
                std::uint32_t pb)
{
    const PlaneTable &ta = a.planes[pa];
    const PlaneTable &tb = b.planes[pb];
    if (ta.component != tb.component || ta.views != tb.views || ta.shapes != tb.shapes ||
        ta.coords != tb.coords) {
        return false;
    }
    const auto &na = a.fabric->planes()[pa].nics;
    const auto &nb = b.fabric->planes()[pb].nics;
    if (na.size() != nb.size()) {
        return false;
    }
    // Same coordinates for other NICs are still a change for their processes.
    for (size_t k = 0; k < na.size(); ++k) {
        const fabric::Nic &x = a.fabric->nics()[na[k]];
        const fabric::Nic &y = b.fabric->nics()[nb[k]];
        if (x.name != y.name || a.fabric->nodes()[x.node].name != b.fabric->nodes()[y.node].name) {
            return false;
        }
    }
    return true;
}

// The planes (by name) whose coordinates or shapes differ, including planes
// that came or went; CIDR texts alongside for registrations by CIDR.
void changed_planes(const mca_coord_context &old_context, const mca_coord_context &new_context,
                    std::vector<std::string> &names, std::vector<std::string> &cidrs)
{
    auto cidr_of = [](const fabric::Plane &plane) {
        return plane.cidr ? plane.cidr->text() : std::string();
    };
    std::unordered_map<std::string, std::uint32_t> old_index;
    const auto old_planes = old_context.fabric->planes();
    for (std::uint32_t p = 0; p < old_planes.size(); ++p) {
        old_index.emplace(old_planes[p].name, p);
    }
    const auto new_planes = new_context.fabric->planes();
    for (std::uint32_t p = 0; p < new_planes.size(); ++p) {
        const auto found = old_index.find(new_planes[p].name);
        if (found == old_index.end() || !same_plane(old_context, found->second, new_context, p)) {
            names.push_back(new_planes[p].name);
            cidrs.push_back(cidr_of(new_planes[p]));
        }
        if (found != old_index.end()) {
            old_index.erase(found);
        }
    }
    // Gone: in the old order.
    for (std::uint32_t p = 0; p < old_planes.size(); ++p) {
        if (old_index.count(old_planes[p].name) != 0) {
            names.push_back(old_planes[p].name);
            cidrs.push_back(cidr_of(old_planes[p]));
        }
    }
}

Status check_job(const fabric::Fabric &fabric, const fabric::JobMap &job)
{
    const size_t nodes = fabric.nodes().size();
    for (size_t rank = 0; rank < job.procs.size(); ++rank) {
        if (job.procs[rank].node >= nodes) {
            return make_error(MERIDIAN_ERR_BAD_PARAM,
                              "the job map puts rank " + std::to_string(rank) + " on node index " +
                                  std::to_string(job.procs[rank].node) + ", but the fabric has " +
                                  std::to_string(nodes) + " nodes");
        }
    }
    for (const auto node : job.nodes) {
        if (node >= nodes) {
            return make_error(MERIDIAN_ERR_BAD_PARAM,
                              "the job map lists node index " + std::to_string(node) +
                                  ", but the fabric has " + std::to_string(nodes) + " nodes");
        }
    }
    return success();
}

// A NIC's coord= is a position on a mesh or torus: on a plane without a
// shape= it is used only by a component that places such a plane in the
// physical view from its own settings.  Said once per plane
// rather than ignored in silence.
void warn_unused_nic_coords(const mca_coord_context &context, std::uint32_t plane)
{
    const fabric::Fabric &fab = *context.fabric;
    const fabric::Plane &info = fab.planes()[plane];
    const PlaneTable &table = context.planes[plane];
    if (!info.shape.empty() || std::find(table.views.begin(), table.views.end(),
                                         MERIDIAN_COORD_PHYSICAL_VIEW) != table.views.end()) {
        return;
    }
    std::vector<fabric::Index> given;
    for (const fabric::Index nic : info.nics) {
        if (!fab.nics()[nic].coord.empty()) {
            given.push_back(nic);
        }
    }
    if (given.empty()) {
        return;
    }
    const fabric::Nic &first = fab.nics()[given.front()];
    std::string text = "coord: plane " + util::quoted(info.name) +
                       " has no shape=, and component \"" + table.component +
                       "\" placed it without a physical view: the coord= of NIC " +
                       fab.nodes()[first.node].name + ":" + first.name;
    if (given.size() > 1) {
        text += " (and of " + std::to_string(given.size() - 1) + " more)";
    }
    report_warning(text + " is not used (give the plane a shape=, or select a coord component "
                          "that gives it one)");
}

Status place(std::shared_ptr<const fabric::Fabric> fabric,
             std::shared_ptr<const fabric::JobMap> job)
{
    if (fabric == nullptr) {
        return make_error(MERIDIAN_ERR_BAD_PARAM, "coord: no fabric to place");
    }
    if (job == nullptr) {
        job = std::make_shared<const fabric::JobMap>();
    }
    if (Status ok = check_job(*fabric, *job); !ok) {
        return ok;
    }
    State &s = state();
    mca_base_framework_t *const framework = &meridian_coord_base_framework;
    if (meridian_mca_base_framework_is_open(framework) == 0) {
        // Opening reports its own errors (a bad selection, say).
        if (const int rc = meridian_mca_base_framework_open(framework); rc != MERIDIAN_SUCCESS) {
            return make_error(rc, std::string("the coord framework could not be opened: ") +
                                      meridian_strerror(rc));
        }
        s.opened_here = true;
    }
    size_t count = 0;
    if (const int rc = meridian_mca_base_select_all(framework, nullptr, 0, &count);
        rc != MERIDIAN_SUCCESS) {
        return make_error(rc, std::string("coord: selecting components failed: ") +
                                  meridian_strerror(rc));
    }
    std::vector<mca_base_selected_t> selected(count);
    if (count > 0) {
        if (const int rc = meridian_mca_base_select_all(framework, selected.data(), count, &count);
            rc != MERIDIAN_SUCCESS) {
            return make_error(rc, std::string("coord: selecting components failed: ") +
                                      meridian_strerror(rc));
        }
        selected.resize(std::min(count, selected.size()));
    }

    auto context = std::make_shared<mca_coord_context>();
    context->fabric = fabric;
    context->job = job;
    const auto planes = fabric->planes();
    context->planes.resize(planes.size());
    context->nic_slot.assign(fabric->nics().size(), UINT32_MAX);
    for (const auto &plane : planes) {
        for (std::uint32_t k = 0; k < plane.nics.size(); ++k) {
            context->nic_slot[plane.nics[k]] = k;
        }
    }

    Progress &p = progress();
    // Whatever happens below, the progress record must not outlive the call.
    struct ProgressReset {
        Progress &p;
        ~ProgressReset()
        {
            p.context = nullptr;
            p.component.clear();
            p.filled.clear();
        }
    } reset{p};

    for (std::uint32_t plane = 0; plane < planes.size(); ++plane) {
        bool placed = false;
        for (const auto &choice : selected) {
            const auto *module = static_cast<const mca_coord_base_module_t *>(choice.module);
            if (module == nullptr || module->compute_plane == nullptr) {
                continue;
            }
            PlaneTable &table = context->planes[plane];
            table = PlaneTable{};
            p.context = context.get();
            p.component = choice.component->component_name;
            p.filled.clear();
            context->placing = plane;
            const int rc = module->compute_plane(module, context.get(), plane);
            context->placing = UINT32_MAX;
            if (rc == MERIDIAN_ERR_TAKE_NEXT_OPTION) {
                table = PlaneTable{};
                continue;
            }
            if (rc != MERIDIAN_SUCCESS) {
                // The module reported why; this says who and where.
                return make_error(rc, "the coord component \"" + p.component +
                                          "\" could not place plane \"" + planes[plane].name +
                                          "\": " + meridian_strerror(rc));
            }
            table.component = p.component;
            table.module = module;
            if (Status ok = check_placed(*context, plane); !ok) {
                return ok;
            }
            warn_unused_nic_coords(*context, plane);
            meridian_mca_base_framework_verbose(framework, MCA_BASE_VERBOSE_INFO,
                                                "plane %s placed by component %s",
                                                planes[plane].name.c_str(), p.component.c_str());
            placed = true;
            break;
        }
        if (!placed) {
            const auto names = component_names(selected);
            return make_error(
                MERIDIAN_ERR_NOT_FOUND,
                "no coord component places plane \"" + planes[plane].name + "\" (active: " +
                    (names.empty() ? std::string("none") : util::join(names, ", ")) + ")");
        }
    }

    std::vector<std::string> names;
    std::vector<std::string> cidrs;
    if (s.current != nullptr) {
        changed_planes(*s.current, *context, names, cidrs);
    }
    // Refresh first: a callback that queries sees the new coordinates.
    s.current = std::move(context);
    if (!names.empty()) {
        detail::fire_updated(names, cidrs);
        detail::broadcast_updated(*s.current, names);
    }
    return success();
}

} // namespace

Status set_context(std::shared_ptr<const fabric::Fabric> fabric,
                   std::shared_ptr<const fabric::JobMap> job)
{
    State &s = state();
    // A placement asked for is the answer, even when it fails: a query must
    // not then place this host's own network instead (the in-job provider).
    s.provider = nullptr;
    Status placed = place(std::move(fabric), std::move(job));
    if (placed) {
        s.failure.reset();
    } else {
        s.failure = placed.error();
    }
    return placed;
}

const Error *placement_failure()
{
    const State &s = state();
    return s.current == nullptr && s.failure ? &*s.failure : nullptr;
}

namespace detail
{
const mca_coord_context *current_context()
{
    return state().current.get();
}
} // namespace detail

const mca_coord_context *context()
{
    // What another process of the job changed, first.
    detail::apply_pending();
    State &s = state();
    if (!s.current && s.provider != nullptr) {
        // Once: the provider sets the context (or reports why it could not).
        std::exchange(s.provider, nullptr)();
    }
    return s.current.get();
}

void set_context_provider(void (*provider)())
{
    state().provider = provider;
}

void forget_context()
{
    stop_sharing();
    State &s = state();
    s.current.reset();
    s.failure.reset();
    if (s.opened_here) {
        s.opened_here = false;
        // Our reference only: whoever else opened the framework keeps it.
        meridian_mca_base_framework_close(&meridian_coord_base_framework);
    }
}

std::span<const std::uint32_t> nic_coordinate(const mca_coord_context &context, std::uint32_t nic,
                                              meridian_coord_view_t view)
{
    if (context.fabric == nullptr || nic >= context.fabric->nics().size() ||
        nic >= context.nic_slot.size()) {
        return {};
    }
    const std::uint32_t plane = context.fabric->nics()[nic].plane;
    if (plane >= context.planes.size()) {
        return {};
    }
    const PlaneTable &table = context.planes[plane];
    const int v =
        find_view(table, view == MERIDIAN_COORD_VIEW_UNDEF ? MERIDIAN_COORD_LOGICAL_VIEW : view);
    if (v < 0) {
        return {};
    }
    const size_t dims = table.shapes[static_cast<size_t>(v)].size();
    const auto &coords = table.coords[static_cast<size_t>(v)];
    const size_t start = static_cast<size_t>(context.nic_slot[nic]) * dims;
    if (start + dims > coords.size()) {
        return {};
    }
    return std::span<const std::uint32_t>(coords.data() + start, dims);
}

namespace detail
{

int framework_closing()
{
    // The modules the context points at may be unloaded now.
    stop_sharing();
    State &s = state();
    s.current.reset();
    s.opened_here = false;
    return MERIDIAN_SUCCESS;
}

} // namespace detail

} // namespace meridian::coord

extern "C" {

int meridian_mca_coord_context_set_shape(mca_coord_context_t *context, uint32_t plane,
                                         meridian_coord_view_t view, const uint32_t *shape,
                                         size_t dims)
{
    return meridian::c_boundary(
        __func__, [&] { return meridian::coord::set_shape(context, plane, view, shape, dims); });
}

int meridian_mca_coord_context_set_nic(mca_coord_context_t *context, uint32_t nic,
                                       meridian_coord_view_t view, const uint32_t *coord,
                                       size_t dims)
{
    return meridian::c_boundary(
        __func__, [&] { return meridian::coord::set_nic(context, nic, view, coord, dims); });
}

} // extern "C"
