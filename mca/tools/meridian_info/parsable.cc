// SPDX-License-Identifier: BSD-3-Clause
// meridian_info --parsable.
#include <cstdio>

#include "mca/tools/meridian_info/formats.hpp"
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/mca/base/param_value.hpp>
#include <meridian/opal/util/strings.hpp>

namespace meridian::info
{

std::string one_line(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        switch (c) {
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
                char escaped[8];
                std::snprintf(escaped, sizeof escaped, "\\x%02x", static_cast<unsigned char>(c));
                out += escaped;
            } else {
                out += c;
            }
        }
    }
    return out;
}

const char *param_status(const mca::Param &param)
{
    return (param.flags() & MCA_BASE_PARAM_FLAG_READONLY_AFTER_OPEN) != 0 ? "read-only-after-open"
                                                                          : "writeable";
}

bool settable_in_files(const mca::Param &param)
{
    return (param.flags() & MCA_BASE_PARAM_FLAG_NOT_IN_FILES) == 0;
}

namespace
{

// Appends "PREFIX" + fields joined by ':' + '\n'; the prefix is built once per
// component or parameter, not once per line.
class Lines
{
  public:
    explicit Lines(std::string &out) : out_(out) {}

    void fact(std::string_view prefix, std::string_view key, std::string_view text)
    {
        out_ += prefix;
        out_ += key;
        out_ += ':';
        out_ += one_line(text);
        out_ += '\n';
    }

  private:
    std::string &out_;
};

void write_param(Lines &lines, const std::string &group_prefix, const mca::Param &param)
{
    const std::string prefix = group_prefix + "param:" + param.full_name() + ":";
    lines.fact(prefix, "value", param.value_text());
    lines.fact(prefix, "source", param.source().describe());
    lines.fact(prefix, "level", std::to_string(param.level()));
    lines.fact(prefix, "type", mca::type_name(param.type()));
    if (!param.help().empty()) {
        lines.fact(prefix, "help", param.help());
    }
    for (const auto &e : param.rules().enumerators) {
        lines.fact(prefix, "enumerator:value", std::to_string(e.value) + ":" + e.name);
    }
    if (param.rules().min) {
        lines.fact(prefix, "minimum", bound_text(param, *param.rules().min));
    }
    if (param.rules().max) {
        lines.fact(prefix, "maximum", bound_text(param, *param.rules().max));
    }
    const bool deprecated = (param.flags() & MCA_BASE_PARAM_FLAG_DEPRECATED) != 0;
    lines.fact(prefix, "deprecated", deprecated ? "yes" : "no");
    lines.fact(prefix, "status", param_status(param));
    lines.fact(prefix, "settable-in-files", settable_in_files(param) ? "yes" : "no");
    for (const auto &synonym : param.synonyms()) {
        lines.fact(prefix, "synonym:name", synonym.full_name);
        if ((synonym.flags & MCA_BASE_PARAM_FLAG_DEPRECATED) != 0) {
            lines.fact(prefix, "synonym:deprecated", synonym.full_name);
        }
    }
}

void write_group(Lines &lines, const ParamGroup &group)
{
    const std::string prefix = "mca:" + group.framework + ":" + group.component + ":";
    for (const auto *param : group.params) {
        write_param(lines, prefix, *param);
    }
}

void write_paths(Lines &lines, const PathReport &paths)
{
    lines.fact("path:", "prefix", paths.prefix);
    lines.fact("path:", "libdir", paths.libdir);
    lines.fact("path:", "pkglibdir", paths.pkglibdir);
    lines.fact("path:", "sysconfdir", paths.sysconfdir);
    lines.fact("path:", "includedir", paths.includedir);
    for (const auto &dir : paths.component_path) {
        lines.fact("path:", "component_path", dir);
    }
    for (const auto &file : paths.param_files) {
        lines.fact("path:", "param_file", file);
    }
    for (const auto &file : paths.override_files) {
        lines.fact("path:", "override_param_file", file);
    }
}

void write_framework(Lines &lines, const FrameworkReport &framework)
{
    const mca_base_framework_t &fw = *framework.framework;
    const std::string base_prefix = "mca:" + framework.name + ":base:";
    lines.fact(base_prefix, "description", fw.description != nullptr ? fw.description : "");
    lines.fact(base_prefix, "version:api", version_text(fw.version));
    std::string names;
    for (const auto &name : framework.component_names) {
        names += names.empty() ? "" : ",";
        names += name;
    }
    lines.fact(base_prefix, "components", names.empty() ? "none" : names);
    write_group(lines, framework.params);
    for (const auto &component : framework.components) {
        const std::string prefix = "mca:" + framework.name + ":" + component.name + ":";
        lines.fact(prefix, "version:mca", abi_version_text(*component.component));
        lines.fact(prefix, "version:api", version_text(component.component->framework_version));
        lines.fact(prefix, "version:component",
                   version_text(component.component->component_version));
        lines.fact(prefix, "path", component.path.empty() ? "static" : component.path);
        if (!component.aliases.empty()) {
            lines.fact(prefix, "aliases", util::join(component.aliases, ","));
        }
        write_group(lines, component.params);
    }
    for (const auto &failure : framework.failures) {
        const std::string prefix = "mca:" + framework.name + ":" + failure.component + ":";
        lines.fact(prefix, "failed-path", failure.path);
        lines.fact(prefix, "failed", failure.reason);
    }
}

} // namespace

void write_parsable(const Report &report, std::string &out)
{
    Lines lines(out);
    lines.fact("meridian:version:", "full", report.version);
    lines.fact("meridian:version:", "mca",
               std::to_string(MCA_BASE_ABI_MAJOR) + "." + std::to_string(MCA_BASE_ABI_MINOR));
    if (report.paths) {
        write_paths(lines, *report.paths);
    }
    if (report.core) {
        write_group(lines, *report.core);
    }
    for (const auto &framework : report.frameworks) {
        write_framework(lines, framework);
    }
    for (const auto &group : report.others) {
        write_group(lines, group);
    }
}

} // namespace meridian::info
