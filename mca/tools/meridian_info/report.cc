// SPDX-License-Identifier: BSD-3-Clause
#include "mca/tools/meridian_info/report.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <unordered_map>
#include <utility>

#include "opal/mca/base/base_params.hpp"
#include "opal/util/paths.hpp"
#include <meridian/mca/runtime/meridian.h>
#include <meridian/opal/mca/base/cmdline.hpp>
#include <meridian/opal/mca/base/framework.hpp>
#include <meridian/opal/mca/base/param_file.hpp>
#include <meridian/opal/util/strings.hpp>

namespace meridian::info
{

namespace
{

constexpr std::string_view all = "all";
constexpr std::string_view base = "base";
constexpr std::string_view core_framework = "mca";

// The component a parameter is listed under: framework-level ones (the
// selection parameter has no component) under "base".
std::string component_label(const mca::Param &param)
{
    return param.component().empty() ? std::string(base) : param.component();
}

bool matches(std::string_view pattern, std::string_view name)
{
    return pattern == all || pattern == name;
}

class Scope
{
  public:
    explicit Scope(const std::vector<ParamScope> &scopes) : scopes_(scopes)
    {
        if (scopes_.empty()) {
            scopes_.push_back(ParamScope{std::string(all), std::string(all)});
        }
    }

    bool framework(std::string_view framework) const
    {
        for (const auto &s : scopes_) {
            if (matches(s.framework, framework)) {
                return true;
            }
        }
        return false;
    }

    bool component(std::string_view framework, std::string_view component) const
    {
        for (const auto &s : scopes_) {
            if (matches(s.framework, framework) && matches(s.component, component)) {
                return true;
            }
        }
        return false;
    }

  private:
    std::vector<ParamScope> scopes_;
};

// A ':'-separated list of files as the core reads it ("none": no files).
std::vector<std::string> file_list(std::string_view value)
{
    std::vector<std::string> files;
    if (util::trim(value) == "none") {
        return files;
    }
    for (const auto &item : util::split(value, ':')) {
        if (!util::trim(item).empty()) {
            files.push_back(paths::expand_home(std::string(util::trim(item))));
        }
    }
    return files;
}

std::string param_text(std::string_view full_name)
{
    const auto &registry = mca::ParamRegistry::instance();
    const auto index = registry.find(full_name);
    return index ? registry.param(*index)->value_text() : std::string();
}

PathReport gather_paths()
{
    PathReport paths;
    paths.prefix = paths::prefix_dir();
    paths.libdir = paths::lib_dir();
    paths.pkglibdir = paths::component_dir();
    paths.sysconfdir = paths::sysconf_dir();
    paths.includedir = paths::include_dir();
    paths.component_path = mca::component_directories();
    paths.param_files = file_list(param_text("mca_base_param_files"));
    paths.override_files = file_list(param_text("mca_base_override_param_file"));
    return paths;
}

std::string names_list(const std::vector<std::string> &names)
{
    return util::join(names, ", ");
}

std::string did_you_mean(std::string_view word, const std::vector<std::string> &candidates)
{
    const auto closest = util::closest_match(word, candidates);
    return closest ? " (did you mean " + *closest + "?)" : std::string();
}

} // namespace

std::set<std::string> names_set_on_command_line(int argc, const char *const *argv)
{
    std::set<std::string> names;
    std::vector<std::string> args;
    for (int i = 1; i < argc; ++i) {
        args.emplace_back(argv[i]);
    }
    // A command line the library refuses is reported when it is applied.
    auto parsed = mca::parse_command_line(args);
    if (!parsed) {
        return names;
    }
    for (const auto &setting : parsed->mca) {
        names.insert(setting.first);
    }
    for (const auto &file : parsed->tune_files) {
        if (auto settings = mca::read_param_file(file, true)) {
            for (const auto &setting : *settings) {
                names.insert(setting.name);
            }
        }
    }
    return names;
}

Status check_scopes(const std::vector<ParamScope> &scopes, mca_base_framework_t *const *frameworks)
{
    std::vector<std::string> framework_names = {std::string(all), std::string(core_framework)};
    std::map<std::string, std::vector<std::string>, std::less<>> components;
    components[std::string(core_framework)] = {std::string(all), std::string(base)};
    std::set<std::string> component_names; // one name may serve several frameworks
    for (auto *const *fw = frameworks; *fw != nullptr; ++fw) {
        framework_names.emplace_back((*fw)->name);
        auto &names = components[(*fw)->name];
        names = {std::string(all), std::string(base)};
        for (const auto &view : mca::framework_components(**fw)) {
            names.emplace_back(view.component->component_name);
            component_names.insert(view.component->component_name);
        }
    }
    std::vector<std::string> every_component = {std::string(all), std::string(base)};
    every_component.insert(every_component.end(), component_names.begin(), component_names.end());
    for (const auto &scope : scopes) {
        const std::string option = "--param " + scope.framework + " " + scope.component;
        if (scope.framework == all) {
            if (std::find(every_component.begin(), every_component.end(), scope.component) ==
                every_component.end()) {
                return make_error(MERIDIAN_ERR_NOT_FOUND,
                                  option + ": no framework has a component named " +
                                      util::quoted(scope.component) +
                                      did_you_mean(scope.component, every_component) +
                                      "; the components are: " + names_list(every_component));
            }
            continue;
        }
        const auto it = components.find(scope.framework);
        if (it == components.end()) {
            return make_error(MERIDIAN_ERR_NOT_FOUND,
                              option + ": there is no framework named " +
                                  util::quoted(scope.framework) +
                                  did_you_mean(scope.framework, framework_names) +
                                  "; the frameworks are: " + names_list(framework_names));
        }
        const auto &names = it->second;
        if (std::find(names.begin(), names.end(), scope.component) == names.end()) {
            return make_error(MERIDIAN_ERR_NOT_FOUND,
                              option + ": framework " + scope.framework +
                                  " has no component named " + util::quoted(scope.component) +
                                  did_you_mean(scope.component, names) +
                                  "; its components are: " + names_list(names));
        }
    }
    return success();
}

Report build_report(const Options &options, mca_base_framework_t *const *frameworks,
                    const std::set<std::string> &set_here)
{
    Report report;
    report.version = meridian_version();
    report.show_params =
        !options.scopes.empty() || options.level.has_value() || options.all || !set_here.empty();
    // Without --param, --level or --all only what this command line set is shown.
    const bool asked_for_params = !options.scopes.empty() || options.level || options.all;
    report.level = options.level ? *options.level : options.all ? 9 : asked_for_params ? 1 : 0;
    report.show_failed = options.show_failed;
    if (options.path) {
        report.paths = gather_paths();
    }
    const Scope scope(options.scopes);

    // Frameworks and their components; the index finds a parameter's place in
    // one lookup, so grouping stays linear in the number of parameters.
    std::unordered_map<std::string, std::size_t> framework_at;
    std::map<std::pair<std::string, std::string>, std::size_t> component_at;
    for (auto *const *fw = frameworks; *fw != nullptr; ++fw) {
        FrameworkReport framework;
        framework.framework = *fw;
        framework.name = (*fw)->name;
        framework.params = ParamGroup{framework.name, std::string(base), {}};
        for (auto &view : mca::framework_components(**fw)) {
            const std::string name = view.component->component_name;
            framework.component_names.push_back(name);
            if (!scope.component(framework.name, name)) {
                continue;
            }
            component_at[{framework.name, name}] = framework.components.size();
            framework.components.push_back(
                ComponentReport{view.component, name, std::move(view.path),
                                ParamGroup{framework.name, name, {}}, std::move(view.aliases)});
        }
        if (report.show_failed) {
            for (auto &failure : mca::framework_failures(**fw)) {
                if (scope.component(framework.name, failure.component)) {
                    framework.failures.push_back(std::move(failure));
                }
            }
        }
        if (scope.framework(framework.name)) {
            framework_at[framework.name] = report.frameworks.size();
            report.frameworks.push_back(std::move(framework));
        }
    }
    if (!report.show_params) {
        return report;
    }

    if (scope.component(core_framework, base)) {
        report.core = ParamGroup{std::string(core_framework), std::string(base), {}};
    }
    const auto chosen = [&](const mca::Param &param) {
        if (param.level() <= report.level || set_here.count(param.full_name()) != 0) {
            return true;
        }
        for (const auto &synonym : param.synonyms()) {
            if (set_here.count(synonym.full_name) != 0) {
                return true;
            }
        }
        return false;
    };
    std::map<std::pair<std::string, std::string>, ParamGroup> others;
    for (const mca::Param *param : mca::ParamRegistry::instance().params()) {
        const std::string &framework = param->framework();
        const std::string component = component_label(*param);
        if (!scope.component(framework, component)) {
            continue;
        }
        if (!chosen(*param)) {
            ++report.hidden_params;
            continue;
        }
        ParamGroup *group = nullptr;
        if (framework == core_framework && component == base && report.core) {
            group = &*report.core;
        } else if (const auto fw = framework_at.find(framework); fw != framework_at.end()) {
            auto &owner = report.frameworks[fw->second];
            if (component == base) {
                group = &owner.params;
            } else if (const auto c = component_at.find({framework, component});
                       c != component_at.end()) {
                group = &owner.components[c->second].params;
            }
        }
        if (group == nullptr) {
            auto &other = others[{framework, component}];
            other.framework = framework;
            other.component = component;
            group = &other;
        }
        group->params.push_back(param);
    }
    for (auto &entry : others) {
        report.others.push_back(std::move(entry.second));
    }
    return report;
}

std::string abi_version_text(const mca_base_component_t &component)
{
    return std::to_string(component.mca_abi_major) + "." + std::to_string(component.mca_abi_minor);
}

std::string version_text(const mca_base_version_t &version)
{
    return std::to_string(version.major) + "." + std::to_string(version.minor) + "." +
           std::to_string(version.release);
}

std::string bound_text(const mca::Param &param, double bound)
{
    const bool integral = param.type() != mca::ParamType::real && std::nearbyint(bound) == bound &&
                          std::fabs(bound) < 9.0e18;
    if (integral) {
        return std::to_string(static_cast<long long>(bound));
    }
    // The shortest text that reads back as the same double.
    char buffer[64];
    const auto end = std::to_chars(buffer, buffer + sizeof buffer, bound).ptr;
    return std::string(buffer, end);
}

} // namespace meridian::info
