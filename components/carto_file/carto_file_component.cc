// SPDX-License-Identifier: BSD-3-Clause
// carto/file: the host's map read from a carto file, in the seed's adjacency
// format or Open MPI 1.3's (carto_parser.hpp).  Selected when carto_file_path
// names a file; the file is read when the base first asks for the map
// (map_host), not in query, so that selection stays cheap and a bad file is
// reported once, by the query that needed it.
#include <string>

#include "components/carto_file/carto_graph_build.hpp"
#include "components/carto_file/carto_parser.hpp"
#include <meridian/mca/carto/base/base.hpp>
#include <meridian/mca/carto/carto.h>
#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/util/c_boundary.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>

namespace
{

// Parameter storage: the initial values are the defaults; Meridian writes the
// value resolved from every source back here.
const char *carto_file_path = nullptr; // owned by Meridian
int carto_file_priority = 50;

int register_params_now(const mca_base_component_t *self)
{
    int index = meridian_mca_base_component_param_register(
        self, "path",
        "The carto file that describes this host's map (processors, memory nodes, ports and "
        "the weights between them).  Both carto formats are accepted: the adjacency format "
        "(a vertex, then NAME:WEIGHT entries; types from names: MEM<n>, Slot<n>, eth*/en* "
        "Ethernet, ib*/mthca*/mlx*/hfi* InfiniBand) and Open MPI 1.3's "
        "(EDGE/BRANCH/BRANCH_BI_DIR).  Empty: the component declines",
        MCA_BASE_PARAM_TYPE_STRING, nullptr, MCA_BASE_INFO_USER_BASIC,
        MCA_BASE_PARAM_FLAG_READONLY_AFTER_OPEN, &carto_file_path);
    if (index < 0) {
        return index;
    }
    index = meridian_mca_base_component_param_register(
        self, "priority",
        "Selection priority of the file carto component when carto_file_path is set "
        "(higher wins)",
        MCA_BASE_PARAM_TYPE_INT, nullptr, MCA_BASE_INFO_TUNER_ALL,
        MCA_BASE_PARAM_FLAG_READONLY_AFTER_OPEN, &carto_file_priority);
    if (index < 0) {
        return index;
    }
    const int bounded = meridian_mca_base_param_set_bounds(index, 0, 100);
    return bounded < 0 ? bounded : MERIDIAN_SUCCESS;
}

int register_params(const mca_base_component_t *self)
{
    return meridian::c_boundary("carto_file register_params",
                                [self] { return register_params_now(self); });
}

bool path_is_set()
{
    return carto_file_path != nullptr && carto_file_path[0] != '\0';
}

// The base hands an empty graph; on error it discards what was added.
int map_host(const mca_carto_base_module_t *, mca_carto_graph_t *graph)
{
    // The base asks only after query accepted; anyone else gets an error, not a crash.
    if (graph == nullptr) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    if (!path_is_set()) {
        meridian_report(MERIDIAN_SEVERITY_ERROR,
                        "carto_file: carto_file_path is not set: there is no carto file to read");
        return MERIDIAN_ERR_NOT_AVAILABLE;
    }
    return meridian::c_boundary("carto_file map_host", [graph]() -> int {
        const std::string path = carto_file_path;
        const auto description = meridian::carto::read_carto_file(path);
        if (!description) {
            // The parser's message is "PATH:LINE:COLUMN: expected ..., found ..."
            // (or "PATH: <strerror>"); the prefix says which component read it.
            meridian::report_error("carto_file: " + description.error().message);
            return description.error().status;
        }
        const meridian::Status built =
            meridian::carto::add_to_graph(*description, path, graph->graph);
        if (!built) {
            meridian::report_error("carto_file: " + built.error().message);
            return built.error().status;
        }
        meridian_mca_base_framework_verbose(
            &meridian_carto_base_framework, MCA_BASE_VERBOSE_DEBUG,
            "carto_file: read %s (%s format): %zu vertices, %zu edges", path.c_str(),
            description->format == meridian::carto::CartoFormat::adjacency ? "adjacency"
                                                                           : "Open MPI 1.3",
            description->vertices.size(), description->edges.size());
        return MERIDIAN_SUCCESS;
    });
}

const mca_carto_base_module_t module = {.map_host = map_host};

int offer(mca_base_module_t **selected, int *priority)
{
    if (!path_is_set()) {
        meridian_mca_base_framework_verbose(
            &meridian_carto_base_framework, MCA_BASE_VERBOSE_INFO,
            "carto_file: declining: carto_file_path is not set, so there "
            "is no carto file to read");
        return MERIDIAN_ERR_NOT_AVAILABLE;
    }
    // The module is read-only; the ABI's void * only carries it to the base.
    *selected = const_cast<mca_carto_base_module_t *>(&module);
    *priority = carto_file_priority;
    return MERIDIAN_SUCCESS;
}

int query(const mca_base_component_t *, mca_base_module_t **selected, int *priority)
{
    return meridian::c_boundary("carto_file query", [=] { return offer(selected, priority); });
}

} // namespace

// The one symbol the component exports (the rest is hidden, see component.am).
extern "C" {

__attribute__((visibility("default"))) mca_carto_base_component_t mca_carto_file_component = {
    .base =
        {
            .mca_abi_major = MCA_BASE_ABI_MAJOR,
            .mca_abi_minor = MCA_BASE_ABI_MINOR,
            .framework_name = "carto",
            .framework_version = MCA_CARTO_BASE_VERSION,
            .component_name = "file",
            .component_version = {1, 0, 0},
            .register_params = register_params,
            .open = nullptr,  // nothing to acquire until the map is asked for
            .close = nullptr, // nothing held
            .query = query,
        },
};

} // extern "C"
