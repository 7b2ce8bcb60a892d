// SPDX-License-Identifier: BSD-3-Clause
// What meridian_info shows, gathered once from the registered frameworks and
// the parameter registry and already filtered by the options, so the three
// output formats print the same facts and never decide anything themselves.
#ifndef MERIDIAN_TOOLS_INFO_REPORT_HPP
#define MERIDIAN_TOOLS_INFO_REPORT_HPP

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mca/tools/meridian_info/options.hpp"
#include <meridian/opal/mca/base/component_repository.hpp>
#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/mca/base/param_registry.hpp>
#include <meridian/opal/util/result.hpp>

namespace meridian::info
{

// Parameters of one framework/component pair as the parsable form names it:
// framework-level parameters use component "base", the core's "mca"/"base".
struct ParamGroup {
    std::string framework;
    std::string component;
    std::vector<const mca::Param *> params;
};

struct ComponentReport {
    const mca_base_component_t *component = nullptr;
    std::string name;
    std::string path; // empty: built into the library
    ParamGroup params;
    std::vector<std::string> aliases; // other names its framework's selection takes
};

struct FrameworkReport {
    const mca_base_framework_t *framework = nullptr;
    std::string name;
    std::vector<std::string> component_names; // every component, even out of scope
    ParamGroup params;                        // framework-level parameters
    std::vector<ComponentReport> components;  // in scope
    std::vector<mca::LoadFailure> failures;   // in scope, with --show-failed
};

struct PathReport {
    std::string prefix, libdir, pkglibdir, sysconfdir, includedir;
    std::vector<std::string> component_path; // effective, expanded
    std::vector<std::string> param_files;    // effective, expanded; empty for "none"
    std::vector<std::string> override_files;
};

struct Report {
    std::string version;
    std::optional<PathReport> paths;
    bool show_params = false;
    bool show_failed = false;
    int level = 0;                  // parameters up to this level (when show_params)
    std::optional<ParamGroup> core; // the core's parameters, when in scope
    std::vector<FrameworkReport> frameworks;
    std::vector<ParamGroup> others; // registered under names no framework here owns
    std::size_t hidden_params = 0;  // in scope but above the level
};

// Parameter names that --mca and --tune files name in argv (before the
// library takes those options out); they are shown whatever their level.
std::set<std::string> names_set_on_command_line(int argc, const char *const *argv);

// Check the --param scopes against what is registered; the error lists the
// valid names.
Status check_scopes(const std::vector<ParamScope> &scopes, mca_base_framework_t *const *frameworks);

// Build the report for registered frameworks (NULL-terminated list).
Report build_report(const Options &options, mca_base_framework_t *const *frameworks,
                    const std::set<std::string> &set_here);

// MCA versions as shown: "1.0" for the ABI, "x.y.z" for the others.
std::string abi_version_text(const mca_base_component_t &component);
std::string version_text(const mca_base_version_t &version);

// A bound of a numeric parameter as text (integers without a fraction).
std::string bound_text(const mca::Param &param, double bound);

} // namespace meridian::info

#endif
