// SPDX-License-Identifier: BSD-3-Clause
// carto/auto: the host's map from hwloc, of this machine or of an hwloc XML
// topology (carto_auto_xml).  Accepts whenever hwloc is usable, at a
// priority below carto_file's, so a carto file wins when one is given and
// this maps the host otherwise.  The vertices, edges and weights are those
// of carto_auto_map.hpp (README.md explains them).
#include <dlfcn.h>
#include <hwloc.h>

#include <string>

#include "components/carto_auto/carto_auto_map.hpp"
#include "components/carto_auto/carto_auto_topology.hpp"
#include <meridian/mca/carto/carto.h>
#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/util/c_boundary.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.h>

namespace
{

using namespace meridian::carto_auto;

// Parameter storage: the defaults, then whatever the sources resolve.
int auto_priority = 20;
const char *auto_xml = nullptr; // empty or unset: this machine

int auto_register_params(const mca_base_component_t *self)
{
    return meridian::c_boundary("carto_auto register_params", [&]() -> int {
        int index = meridian_mca_base_component_param_register(
            self, "priority",
            "Selection priority of carto_auto (higher wins; carto_file offers 50 when "
            "carto_file_path "
            "is set)",
            MCA_BASE_PARAM_TYPE_INT, nullptr, MCA_BASE_INFO_DEV_ALL, MCA_BASE_PARAM_FLAG_NONE,
            &auto_priority);
        if (index < 0) {
            return index;
        }
        if ((index = meridian_mca_base_param_set_bounds(index, 0, 100)) < 0) {
            return index;
        }
        index = meridian_mca_base_component_param_register(
            self, "xml",
            "An hwloc XML topology (lstopo --of xml, hwloc-gather-topology) to map instead of this "
            "machine; empty: this machine",
            MCA_BASE_PARAM_TYPE_STRING, nullptr, MCA_BASE_INFO_USER_ALL, MCA_BASE_PARAM_FLAG_NONE,
            &auto_xml);
        if (index < 0) {
            return index;
        }
        // The carto requirements call this component "auto-detect" and select
        // it with "carto autodetect".  A refusal is reported by the base and
        // leaves the component selectable as "auto".
        (void)meridian_mca_base_component_alias(self, "autodetect");
        return MERIDIAN_SUCCESS;
    });
}

// hwloc loads plugins (its libxml2 XML importer; PCI discovery off Linux)
// that take hwloc's own symbols from the global scope.  A component is
// loaded with RTLD_LOCAL, and so is the libhwloc it brings: the plugins
// would fail to load, silently, and XML files would go to hwloc's minimal
// importer, which takes little more than what hwloc itself writes, unlike
// hwloc's tools and a --disable-dlopen build.  While carto_auto is open, the
// libhwloc already loaded is made global.
void *hwloc_global_handle = nullptr;

int auto_open(const mca_base_component_t *)
{
    return meridian::c_boundary("carto_auto open", [&]() -> int {
        Dl_info info{};
        // The address of a function of libhwloc tells which file it came from.
        if (dladdr(reinterpret_cast<void *>(&hwloc_topology_init), &info) != 0 &&
            info.dli_fname != nullptr) {
            hwloc_global_handle = dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
        }
        return MERIDIAN_SUCCESS; // without it hwloc still works, with fewer plugins
    });
}

int auto_close(const mca_base_component_t *)
{
    return meridian::c_boundary("carto_auto close", [&]() -> int {
        if (hwloc_global_handle != nullptr) {
            dlclose(hwloc_global_handle);
            hwloc_global_handle = nullptr;
        }
        return MERIDIAN_SUCCESS;
    });
}

void verbose(int level, const std::string &text)
{
    meridian_mca_base_framework_verbose(&meridian_carto_base_framework, level, "%s", text.c_str());
}

int auto_map_host(const mca_carto_base_module_t *, mca_carto_graph_t *graph)
{
    return meridian::c_boundary("carto_auto map_host", [&]() -> int {
        const std::string xml = auto_xml != nullptr ? auto_xml : "";
        const std::string source = describe_source(xml);
        auto topology = load_topology(xml);
        if (!topology) {
            meridian_report(MERIDIAN_SEVERITY_ERROR, "%s", topology.error().message.c_str());
            return topology.error().status;
        }
        auto map = map_topology(topology->get(), source);
        if (!map) {
            meridian_report(MERIDIAN_SEVERITY_ERROR, "%s", map.error().message.c_str());
            return map.error().status;
        }
        for (const HostVertex &vertex : map->vertices) {
            // The graph reports its own errors (a name it refuses, say).
            const int rc = meridian_mca_carto_graph_add_vertex(
                graph, vertex.name.c_str(), static_cast<mca_carto_vertex_type_t>(vertex.type));
            if (rc != MERIDIAN_SUCCESS) {
                return rc;
            }
            verbose(MCA_BASE_VERBOSE_DEBUG,
                    "carto_auto: " + vertex.name + " (" +
                        std::string(meridian::vertex_type_name(vertex.type)) +
                        "): " + vertex.origin);
        }
        for (const HostEdge &edge : map->edges) {
            const int rc =
                meridian_mca_carto_graph_add_edge(graph, map->vertices[edge.from].name.c_str(),
                                                  map->vertices[edge.to].name.c_str(), edge.weight);
            if (rc != MERIDIAN_SUCCESS) {
                return rc;
            }
        }
        verbose(MCA_BASE_VERBOSE_INFO,
                "carto_auto: mapped " + source + ": " + std::to_string(map->vertices.size()) +
                    " vertices, " + std::to_string(map->edges.size()) + " edges, " + map->weights);
        return MERIDIAN_SUCCESS;
    });
}

const mca_carto_base_module_t auto_module = {
    .map_host = auto_map_host,
};

int auto_query(const mca_base_component_t *, mca_base_module_t **module, int *priority)
{
    return meridian::c_boundary("carto_auto query", [&]() -> int {
        // hwloc changes its ABI only between major versions: a library of
        // another major than the headers cannot be called safely.
        const unsigned runtime = hwloc_get_api_version();
        if ((runtime >> 16) != (HWLOC_API_VERSION >> 16)) {
            meridian_report(
                MERIDIAN_SEVERITY_WARNING,
                "carto_auto: the hwloc library has API version 0x%x, but carto_auto was built "
                "against 0x%x; it declines to map the host",
                runtime, static_cast<unsigned>(HWLOC_API_VERSION));
            return MERIDIAN_ERR_NOT_AVAILABLE;
        }
        // The module is const data; the base never writes through the pointer.
        *module = const_cast<mca_carto_base_module_t *>(&auto_module);
        *priority = auto_priority;
        return MERIDIAN_SUCCESS;
    });
}

} // namespace

extern "C" {

// The only symbol the component exports (-fvisibility=hidden hides the rest).
// Not const: configure's table of built-in components declares it so.
__attribute__((visibility("default"))) mca_carto_base_component_t mca_carto_auto_component = {
    .base =
        {
            .mca_abi_major = MCA_BASE_ABI_MAJOR,
            .mca_abi_minor = MCA_BASE_ABI_MINOR,
            .framework_name = "carto",
            .framework_version = MCA_CARTO_BASE_VERSION,
            .component_name = "auto",
            .component_version = {1, 0, 0},
            .register_params = auto_register_params,
            .open = auto_open,
            .close = auto_close,
            .query = auto_query,
        },
};
}
