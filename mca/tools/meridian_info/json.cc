// SPDX-License-Identifier: BSD-3-Clause
// meridian_info --json: the facts of --parsable as one JSON document.
#include <nlohmann/json.hpp>

#include "mca/tools/meridian_info/formats.hpp"
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/mca/base/param_value.hpp>

namespace meridian::info
{

namespace
{

// Keys keep the order they are written in, so the document reads like the
// other formats.
using Json = nlohmann::ordered_json;

Json bound_json(const mca::Param &param, double bound)
{
    const std::string text = bound_text(param, bound);
    if (text.find_first_of(".eEn") == std::string::npos) {
        return std::stoll(text);
    }
    return bound;
}

Json param_json(const mca::Param &param)
{
    Json out;
    out["name"] = param.full_name();
    // null, not "", for a string nothing sets: JSON can say what text cannot.
    out["value"] = param.is_set() ? Json(param.value_text()) : Json(nullptr);
    out["source"] = param.source().describe();
    out["level"] = param.level();
    out["type"] = std::string(mca::type_name(param.type()));
    out["help"] = param.help();
    if (!param.rules().enumerators.empty()) {
        Json enumerators = Json::array();
        for (const auto &e : param.rules().enumerators) {
            enumerators.push_back(Json{{"value", e.value}, {"name", e.name}});
        }
        out["enumerators"] = std::move(enumerators);
    }
    if (param.rules().min) {
        out["minimum"] = bound_json(param, *param.rules().min);
    }
    if (param.rules().max) {
        out["maximum"] = bound_json(param, *param.rules().max);
    }
    out["deprecated"] = (param.flags() & MCA_BASE_PARAM_FLAG_DEPRECATED) != 0;
    out["status"] = param_status(param);
    out["settable_in_files"] = settable_in_files(param);
    if (!param.synonyms().empty()) {
        Json synonyms = Json::array();
        for (const auto &synonym : param.synonyms()) {
            synonyms.push_back(
                Json{{"name", synonym.full_name},
                     {"deprecated", (synonym.flags & MCA_BASE_PARAM_FLAG_DEPRECATED) != 0}});
        }
        out["synonyms"] = std::move(synonyms);
    }
    return out;
}

Json params_json(const ParamGroup &group)
{
    Json params = Json::array();
    for (const auto *param : group.params) {
        params.push_back(param_json(*param));
    }
    return params;
}

Json paths_json(const PathReport &paths)
{
    return Json{{"prefix", paths.prefix},           {"libdir", paths.libdir},
                {"pkglibdir", paths.pkglibdir},     {"sysconfdir", paths.sysconfdir},
                {"includedir", paths.includedir},   {"component_path", paths.component_path},
                {"param_files", paths.param_files}, {"override_param_files", paths.override_files}};
}

Json framework_json(const Report &report, const FrameworkReport &framework)
{
    const mca_base_framework_t &fw = *framework.framework;
    Json out;
    out["name"] = framework.name;
    out["description"] = fw.description != nullptr ? fw.description : "";
    out["api_version"] = version_text(fw.version);
    out["component_names"] = framework.component_names;
    if (report.show_params) {
        out["params"] = params_json(framework.params);
    }
    Json components = Json::array();
    for (const auto &component : framework.components) {
        Json c;
        c["name"] = component.name;
        c["mca_version"] = abi_version_text(*component.component);
        c["api_version"] = version_text(component.component->framework_version);
        c["version"] = version_text(component.component->component_version);
        c["path"] = component.path.empty() ? std::string("static") : component.path;
        if (!component.aliases.empty()) {
            c["aliases"] = component.aliases;
        }
        if (report.show_params) {
            c["params"] = params_json(component.params);
        }
        components.push_back(std::move(c));
    }
    out["components"] = std::move(components);
    if (report.show_failed) {
        Json failed = Json::array();
        for (const auto &failure : framework.failures) {
            failed.push_back(Json{{"component", failure.component},
                                  {"path", failure.path},
                                  {"reason", failure.reason}});
        }
        out["failed"] = std::move(failed);
    }
    return out;
}

} // namespace

void write_json(const Report &report, std::string &out)
{
    Json doc;
    doc["version"] = report.version;
    doc["mca_abi"] = std::to_string(MCA_BASE_ABI_MAJOR) + "." + std::to_string(MCA_BASE_ABI_MINOR);
    if (report.paths) {
        doc["paths"] = paths_json(*report.paths);
    }
    if (report.show_params) {
        doc["level"] = report.level;
        doc["hidden_params"] = report.hidden_params;
    }
    if (report.core) {
        doc["core"] = Json{{"framework", report.core->framework},
                           {"component", report.core->component},
                           {"params", params_json(*report.core)}};
    }
    Json frameworks = Json::array();
    for (const auto &framework : report.frameworks) {
        frameworks.push_back(framework_json(report, framework));
    }
    doc["frameworks"] = std::move(frameworks);
    if (!report.others.empty()) {
        Json others = Json::array();
        for (const auto &group : report.others) {
            others.push_back(Json{{"framework", group.framework},
                                  {"component", group.component},
                                  {"params", params_json(group)}});
        }
        doc["other_params"] = std::move(others);
    }
    // Values come from the environment and files and need not be UTF-8;
    // replacing bad bytes beats refusing to print.
    out += doc.dump(2, ' ', false, Json::error_handler_t::replace);
    out += '\n';
}

} // namespace meridian::info
