// SPDX-License-Identifier: BSD-3-Clause
#include <meridian/opal/mca/base/param_file.hpp>

#include <algorithm>
#include <cctype>
#include <map>

#include <meridian/opal/util/output.hpp>
#include <meridian/opal/util/read_file.hpp>
#include <meridian/opal/util/strings.hpp>

extern char **environ;

namespace meridian::mca
{

namespace
{

bool name_char(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

std::string found_text(std::string_view rest)
{
    if (rest.empty()) {
        return "end of line";
    }
    const auto shown = rest.substr(0, 20);
    return util::quoted(shown) + (rest.size() > shown.size() ? "..." : "");
}

} // namespace

Result<std::vector<FileSetting>> parse_param_file(std::string_view path, std::string_view text)
{
    text = util::skip_utf8_bom(text);
    std::vector<FileSetting> settings;
    std::map<std::string, int, std::less<>> first_line;
    int line_number = 0;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) {
            end = text.size();
        }
        std::string_view line = text.substr(start, end - start);
        start = end + 1;
        ++line_number;
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        const auto where = [&](std::size_t column) {
            return std::string(path) + ":" + std::to_string(line_number) + ":" +
                   std::to_string(column + 1) + ": ";
        };
        const auto fail = [&](std::size_t column, const std::string &what) {
            return make_error(MERIDIAN_ERR_BAD_PARAM, where(column) + what);
        };

        std::size_t pos = 0;
        while (pos < line.size() && std::isspace(static_cast<unsigned char>(line[pos]))) {
            ++pos;
        }
        if (pos == line.size() || line[pos] == '#') {
            continue;
        }
        const std::size_t name_start = pos;
        while (pos < line.size() && name_char(line[pos])) {
            ++pos;
        }
        if (pos == name_start) {
            return fail(pos, "expected a parameter name (letters, digits, '_'), found " +
                                 found_text(line.substr(pos)));
        }
        const std::string name(line.substr(name_start, pos - name_start));
        if (pos < line.size() && line[pos] != ' ' && line[pos] != '\t' && line[pos] != '=') {
            return fail(pos, "expected letters, digits or '_' in parameter name " + name +
                                 ", found " + found_text(line.substr(pos)));
        }
        while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) {
            ++pos;
        }
        if (pos == line.size() || line[pos] != '=') {
            return fail(pos, "expected '=' after parameter name " + name + ", found " +
                                 found_text(line.substr(pos)));
        }
        ++pos;
        std::string_view value = util::trim(line.substr(pos));
        if (!value.empty() && value.front() == '"') {
            const std::size_t closing = value.find('"', 1);
            if (closing == std::string_view::npos) {
                return fail(line.size(), "expected a closing '\"' for the value of " + name +
                                             ", found end of line");
            }
            const std::string_view after = util::trim(value.substr(closing + 1));
            if (!after.empty() && after.front() != '#') {
                return fail(static_cast<std::size_t>(after.data() - line.data()),
                            "expected the end of the line or a '#' comment after the quoted "
                            "value of " +
                                name + ", found " + found_text(after));
            }
            value = value.substr(1, closing - 1);
        } else {
            // A '#' after a blank starts a comment, as in a shell; a value
            // that holds " #" is quoted.
            for (std::size_t at = 1; at < value.size(); ++at) {
                if (value[at] == '#' && (value[at - 1] == ' ' || value[at - 1] == '\t')) {
                    value = util::trim(value.substr(0, at));
                    break;
                }
            }
        }
        if (const auto it = first_line.find(name); it != first_line.end()) {
            return fail(name_start, "expected each parameter once per file, found " + name +
                                        " again (first set on line " + std::to_string(it->second) +
                                        ")");
        }
        first_line.emplace(name, line_number);
        settings.push_back(FileSetting{name, std::string(value), line_number});
    }
    return settings;
}

Result<std::vector<FileSetting>> read_param_file(const std::string &path, bool required)
{
    const auto fail = [&](const std::string &why) {
        return make_error(MERIDIAN_ERR_IO, "cannot read param file " + path + ": " + why);
    };
    auto contents = util::read_file(path, util::kParamFileLimit, "param file");
    if (!contents) {
        if (contents.error().status == MERIDIAN_ERR_NOT_FOUND && !required) {
            return std::vector<FileSetting>{};
        }
        return fail(contents.error().message);
    }
    auto parsed = parse_param_file(path, *contents);
    if (!parsed) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          parsed.error().message + " (the file is ignored)");
    }
    return parsed;
}

void add_file_settings(ParamRegistry &registry, const std::string &path,
                       const std::vector<FileSetting> &settings, SourceKind kind, int order)
{
    for (const auto &setting : settings) {
        SourceRef source;
        source.kind = kind;
        source.file = path;
        source.line = setting.line;
        source.order = order;
        registry.add_setting(setting.name, setting.value, source);
    }
}

Status load_param_file(ParamRegistry &registry, const std::string &path, SourceKind kind, int order,
                       bool required)
{
    const auto settings = read_param_file(path, required);
    if (!settings) {
        report_error(settings.error().message);
        return settings.error();
    }
    add_file_settings(registry, path, *settings, kind, order);
    return success();
}

Status load_environment(ParamRegistry &registry, std::string_view prefix)
{
    registry.remove_settings(SourceKind::environment);
    Status status = success();
    for (char **entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
        const std::string_view variable(*entry);
        if (!util::starts_with(variable, prefix)) {
            continue;
        }
        const std::size_t equals = variable.find('=');
        if (equals == std::string_view::npos) {
            continue;
        }
        const std::string variable_name(variable.substr(0, equals));
        const std::string name(variable.substr(prefix.size(), equals - prefix.size()));
        if (name.empty() || !std::all_of(name.begin(), name.end(), name_char)) {
            const std::string message = "environment variable " + variable_name +
                                        " does not name an MCA parameter (expected " +
                                        std::string(prefix) +
                                        "<name> with letters, digits and '_')";
            report_error(message);
            status = make_error(MERIDIAN_ERR_BAD_PARAM, message);
            continue;
        }
        SourceRef source;
        source.kind = SourceKind::environment;
        source.variable = variable_name;
        registry.add_setting(name, std::string(variable.substr(equals + 1)), source);
    }
    return status;
}

} // namespace meridian::mca
