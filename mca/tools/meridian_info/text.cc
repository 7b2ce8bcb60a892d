// SPDX-License-Identifier: BSD-3-Clause
// meridian_info without --parsable or --json: for people.
#include <sys/stat.h>

#include "mca/tools/meridian_info/formats.hpp"
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/mca/base/param_value.hpp>
#include <meridian/opal/util/strings.hpp>

namespace meridian::info
{

namespace
{

constexpr std::size_t text_width = 78;

// Help text wrapped at word boundaries, each line indented; a word longer
// than the line stays whole.
void append_wrapped(std::string &out, std::string_view text, std::size_t indent)
{
    const std::string margin(indent, ' ');
    for (const auto &paragraph : util::split(text, '\n')) {
        std::size_t column = 0;
        for (const auto &word : util::split(paragraph, ' ')) {
            if (word.empty()) {
                continue;
            }
            if (column != 0 && column + 1 + word.size() > text_width) {
                out += '\n';
                column = 0;
            }
            if (column == 0) {
                out += margin;
                column = indent;
            } else {
                out += ' ';
                ++column;
            }
            out += word;
            column += word.size();
        }
        out += '\n';
    }
}

std::string value_shown(const mca::Param &param)
{
    if (!param.is_set()) {
        return "(not set)";
    }
    if (param.type() == mca::ParamType::string || param.type() == mca::ParamType::list) {
        return util::quoted(param.value_text());
    }
    return param.value_text();
}

void write_param(std::string &out, const mca::Param &param, std::size_t indent)
{
    const std::string margin(indent, ' ');
    out += margin + param.full_name() + " = " + value_shown(param) + "  [" +
           param.source().describe() + "]";
    if ((param.flags() & MCA_BASE_PARAM_FLAG_DEPRECATED) != 0) {
        out += "  (deprecated)";
    }
    out += '\n';
    std::string facts =
        "level " + std::to_string(param.level()) + "; " + std::string(mca::type_name(param.type()));
    if (param.type() != mca::ParamType::string) { // "string: a string" says nothing
        facts += ": " + mca::expected_form(param.rules());
    }
    if ((param.flags() & MCA_BASE_PARAM_FLAG_NOT_IN_FILES) != 0) {
        facts += "; set only by the environment or the command line";
    }
    if ((param.flags() & MCA_BASE_PARAM_FLAG_READONLY_AFTER_OPEN) != 0) {
        facts += "; fixed once its framework is open";
    }
    append_wrapped(out, facts, indent + 4);
    if (!param.synonyms().empty()) {
        std::vector<std::string> names;
        for (const auto &synonym : param.synonyms()) {
            names.push_back(
                synonym.full_name +
                ((synonym.flags & MCA_BASE_PARAM_FLAG_DEPRECATED) != 0 ? " (deprecated)" : ""));
        }
        append_wrapped(out, "also named " + util::join(names, ", "), indent + 4);
    }
    if (!param.help().empty()) {
        append_wrapped(out, param.help(), indent + 4);
    }
}

void write_group(std::string &out, const ParamGroup &group, std::size_t indent)
{
    for (const auto *param : group.params) {
        write_param(out, *param, indent);
    }
}

bool exists(const std::string &path)
{
    struct stat info {
    };
    return ::stat(path.c_str(), &info) == 0;
}

void write_path_list(std::string &out, std::string_view label, const std::vector<std::string> &list)
{
    std::string head = "  " + std::string(label);
    head.resize(20, ' ');
    if (list.empty()) {
        out += head + "none\n";
        return;
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
        out += (i == 0 ? head : std::string(20, ' ')) + list[i] +
               (exists(list[i]) ? "" : "  (does not exist)") + "\n";
    }
}

void write_paths(std::string &out, const PathReport &paths)
{
    out += "Paths:\n";
    write_path_list(out, "prefix", {paths.prefix});
    write_path_list(out, "libdir", {paths.libdir});
    write_path_list(out, "components", {paths.pkglibdir});
    write_path_list(out, "sysconfdir", {paths.sysconfdir});
    write_path_list(out, "includedir", {paths.includedir});
    write_path_list(out, "component path", paths.component_path);
    write_path_list(out, "param files", paths.param_files);
    write_path_list(out, "override files", paths.override_files);
    out += '\n';
}

void write_framework(std::string &out, const FrameworkReport &framework)
{
    const mca_base_framework_t &fw = *framework.framework;
    out += "Framework " + framework.name + ", interface " + version_text(fw.version);
    if (fw.description != nullptr && *fw.description != '\0') {
        out += ": ";
        out += fw.description;
    }
    out += '\n';
    if (!framework.params.params.empty()) {
        out += "  base (the framework's own parameters)\n";
        write_group(out, framework.params, 4);
    }
    if (framework.component_names.empty()) {
        out += "  no components\n";
    }
    for (const auto &component : framework.components) {
        const auto &c = *component.component;
        out += "  " + component.name;
        if (!component.aliases.empty()) {
            out += " (also: " + util::join(component.aliases, ", ") + ")";
        }
        out += ": MCA " + abi_version_text(c) + ", API " + version_text(c.framework_version) +
               ", component " + version_text(c.component_version) + ", " +
               (component.path.empty() ? std::string("static") : component.path) + "\n";
        write_group(out, component.params, 4);
    }
    for (const auto &failure : framework.failures) {
        out += "  " + failure.component + " could not be loaded: " + failure.path + ": " +
               failure.reason + "\n";
    }
}

} // namespace

void write_text(const Report &report, std::string &out)
{
    out += "Meridian " + report.version + " (MCA ABI " + std::to_string(MCA_BASE_ABI_MAJOR) + "." +
           std::to_string(MCA_BASE_ABI_MINOR) + ")\n\n";
    if (report.paths) {
        write_paths(out, *report.paths);
    }
    bool first = true;
    if (report.core && !report.core->params.empty()) {
        out += "Core parameters (mca base)\n";
        write_group(out, *report.core, 4);
        first = false;
    }
    for (const auto &framework : report.frameworks) {
        // With parameters a framework takes many lines: a blank one sets it off.
        if (report.show_params && !first) {
            out += '\n';
        }
        write_framework(out, framework);
        first = false;
    }
    for (const auto &group : report.others) {
        out += "\nOther parameters (" + group.framework + " " + group.component + ")\n";
        write_group(out, group, 4);
    }
    if (report.show_failed) {
        std::size_t failed = 0;
        for (const auto &framework : report.frameworks) {
            failed += framework.failures.size();
        }
        if (failed == 0) {
            out += "\nEvery component found was loaded.\n";
        }
    }
    if (report.show_params && report.hidden_params > 0) {
        out += "\n" + std::to_string(report.hidden_params) + " parameter" +
               (report.hidden_params == 1 ? "" : "s") +
               (report.level == 0 ? " not shown: --param, --level or --all shows them"
                                  : " above level " + std::to_string(report.level) +
                                        " not shown: --level 9 or --all shows them") +
               ".\n";
    }
}

} // namespace meridian::info
