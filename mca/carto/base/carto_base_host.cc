// SPDX-License-Identifier: BSD-3-Clause
// The host's map: made once per framework open by the selected component,
// kept here, and handed to every query (base.h, base.hpp).
#include <string>

#include "mca/carto/base/carto_base_internal.hpp"
#include "opal/util/no_destructor.hpp"
#include <meridian/mca/carto/base/base.h>
#include <meridian/mca/carto/base/base.hpp>
#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/util/c_boundary.hpp>
#include <meridian/opal/util/error.h>

namespace meridian::carto
{
namespace
{

struct HostMap {
    bool mapped = false;          // graph holds the map
    bool opened_here = false;     // this file opened the framework, so close undoes it
    std::optional<Error> failure; // the map could not be made (until the next open)
    mca_carto_graph graph;
    std::string component;
};

HostMap &host_map()
{
    // Never destroyed: the framework may be closed from another static's
    // destructor or after main, and the map must still be there to forget.
    static util::NoDestructor<HostMap> map;
    return map.get();
}

Result<const WeightedGraph *> make_map()
{
    HostMap &map = host_map();
    if (map.mapped) {
        return &map.graph.graph;
    }
    if (map.failure) {
        return *map.failure;
    }
    mca_base_framework_t *const framework = &meridian_carto_base_framework;
    if (meridian_mca_base_framework_is_open(framework) == 0) {
        // Opening reports its own errors (a bad selection, say).
        if (const int rc = meridian_mca_base_framework_open(framework); rc != MERIDIAN_SUCCESS) {
            return make_error(rc, std::string("the carto framework could not be opened: ") +
                                      meridian_strerror(rc));
        }
        map.opened_here = true;
    }
    mca_base_module_t *module = nullptr;
    const mca_base_component_t *component = nullptr;
    // meridian_mca_base_select reports "no carto component is available (...)".
    if (const int rc = meridian_mca_base_select(framework, &module, &component);
        rc != MERIDIAN_SUCCESS) {
        map.failure = make_error(rc, "no carto component could map the host");
        return *map.failure;
    }
    const auto *const carto = static_cast<const mca_carto_base_module_t *>(module);
    std::string name = component->component_name;
    mca_carto_graph graph;
    const int rc =
        carto->map_host != nullptr ? carto->map_host(carto, &graph) : MERIDIAN_ERR_NOT_SUPPORTED;
    if (rc != MERIDIAN_SUCCESS) {
        // The component said why; this names who and what.
        map.failure = make_error(rc, "the carto component \"" + name +
                                         "\" could not map the host: " + meridian_strerror(rc));
        return *map.failure;
    }
    meridian_mca_base_framework_verbose(
        framework, MCA_BASE_VERBOSE_INFO, "component %s mapped the host: %zu vertices, %zu edges",
        name.c_str(), graph.graph.vertex_count(), graph.graph.edge_count());
    map.graph = std::move(graph);
    map.component = std::move(name);
    map.mapped = true;
    return &map.graph.graph;
}

} // namespace

Result<const WeightedGraph *> host_graph()
{
    return make_map();
}

Result<WeightedGraph> host_graph(TypeMask types)
{
    auto graph = make_map();
    if (!graph) {
        return graph.error();
    }
    if (types == all_vertex_types) {
        return WeightedGraph(**graph);
    }
    return (*graph)->subgraph(types);
}

std::optional<std::string_view> selected_component()
{
    const HostMap &map = host_map();
    if (!map.mapped) {
        return std::nullopt;
    }
    return std::string_view(map.component);
}

void forget_host_graph()
{
    HostMap &map = host_map();
    map.mapped = false;
    map.failure.reset();
    map.graph = mca_carto_graph{};
    map.component.clear();
}

int framework_closing()
{
    forget_host_graph();
    host_map().opened_here = false;
    return MERIDIAN_SUCCESS;
}

} // namespace meridian::carto

extern "C" {

int meridian_mca_carto_base_select(void)
{
    return meridian::c_boundary(__func__, [] {
        const auto graph = meridian::carto::host_graph();
        return graph ? MERIDIAN_SUCCESS : graph.error().status;
    });
}

const char *meridian_mca_carto_base_selected_component(void)
{
    return meridian::c_boundary(__func__, meridian::CFailure<const char *>{nullptr, nullptr},
                                []() -> const char * {
                                    const auto name = meridian::carto::selected_component();
                                    // A view of a std::string kept in the map: NUL-terminated.
                                    return name ? name->data() : nullptr;
                                });
}

int meridian_mca_carto_base_get_host_graph(unsigned int types, mca_carto_graph_t **graph)
{
    if (graph == nullptr) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    *graph = nullptr;
    return meridian::c_boundary(__func__, [&] {
        if (const int rc = meridian::carto::check_type_mask(types); rc != MERIDIAN_SUCCESS) {
            return rc;
        }
        auto part = meridian::carto::host_graph(types);
        if (!part) {
            // Already reported: by the framework, or by the component.
            return part.error().status;
        }
        return meridian::carto::hand_out(std::move(*part), graph);
    });
}

} // extern "C"
