// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target for the MCA param file parser (parse_param_file,
// opal/mca/base/param_file.*).  Besides "nothing crashes", it checks what
// the parser promises for any text:
//   - an error is one line "fuzz.conf:LINE:COLUMN: expected ..., found ...",
//     at a line that exists and a column on it or just past its end;
//   - every setting has a name of letters, digits and '_' (never empty, never
//     twice in one file), comes from a line of the text, one setting a line
//     and in the order of the lines, and that line starts with the name and
//     holds the value; a value never holds a line break;
//   - line ends do not matter: the text with "\r\n" for every "\n" reads the
//     same (or fails as well), and so does the text after a byte order mark.
// Any broken promise aborts with the reason, which libFuzzer reports as a crash.
//
// fuzz-sources: opal/mca/base/param_file.cc opal/mca/base/param_registry.cc
// fuzz-sources: opal/mca/base/param_value.cc opal/mca/base/param_source.cc
// fuzz-sources: opal/util/output.cc opal/util/read_file.cc opal/util/strings.cc
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.hpp"
#include <meridian/opal/mca/base/param_file.hpp>

namespace
{

using meridian::mca::FileSetting;

constexpr std::string_view path = "fuzz.conf";
constexpr std::string_view bom = "\xef\xbb\xbf";

[[noreturn]] void broken(const std::string &promise)
{
    meridian::fuzz::broken("param_file_fuzz", promise);
}

// The lines of the text as the parser numbers them (line 1 is lines[0]).
std::vector<std::string_view> lines_of(std::string_view text)
{
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    while (true) {
        const std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) {
            lines.push_back(text.substr(start));
            return lines;
        }
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
}

bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

void check_error(const std::string &message, const std::vector<std::string_view> &lines)
{
    if (message.find('\n') != std::string::npos) {
        broken("one line per error: " + message);
    }
    if (message.rfind(std::string(path) + ":", 0) != 0) {
        broken("the error names the file: " + message);
    }
    std::size_t pos = path.size() + 1;
    const std::size_t line = meridian::fuzz::read_number(message, pos);
    if (line == 0 || pos >= message.size() || message[pos] != ':') {
        broken("the error gives a line: " + message);
    }
    ++pos;
    const std::size_t column = meridian::fuzz::read_number(message, pos);
    if (column == 0 || message.compare(pos, 11, ": expected ") != 0 ||
        message.find(", found ", pos) == std::string::npos) {
        broken("the error reads LINE:COLUMN: expected ..., found ...: " + message);
    }
    if (line > lines.size()) {
        broken("the error's line exists: " + message);
    }
    if (column > lines[line - 1].size() + 1) {
        broken("the error's column is on its line: " + message);
    }
}

void check_settings(const std::vector<FileSetting> &settings,
                    const std::vector<std::string_view> &lines)
{
    std::set<std::string> names;
    int previous_line = 0;
    for (const FileSetting &setting : settings) {
        if (setting.name.empty() ||
            !std::all_of(setting.name.begin(), setting.name.end(), name_char)) {
            broken("a name is letters, digits and '_': '" + setting.name + "'");
        }
        if (!names.insert(setting.name).second) {
            broken("each name once per file: " + setting.name);
        }
        if (setting.line <= previous_line ||
            static_cast<std::size_t>(setting.line) > lines.size()) {
            broken("settings come one a line, in order, from lines of the text: " + setting.name +
                   " on line " + std::to_string(setting.line));
        }
        previous_line = setting.line;
        if (setting.value.find('\n') != std::string::npos) {
            broken("a value holds no line break: " + setting.name);
        }
        const std::string_view line = lines[static_cast<std::size_t>(setting.line) - 1];
        std::size_t start = 0;
        while (start < line.size() &&
               (line[start] == ' ' || line[start] == '\t' || line[start] == '\v' ||
                line[start] == '\f' || line[start] == '\r')) {
            ++start;
        }
        if (line.compare(start, setting.name.size(), setting.name) != 0) {
            broken("a setting's line starts with its name: " + setting.name);
        }
        if (line.find(setting.value, start + setting.name.size()) == std::string_view::npos) {
            broken("a setting's line holds its value: " + setting.name);
        }
    }
}

bool same_settings(const std::vector<FileSetting> &a, const std::vector<FileSetting> &b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](const FileSetting &x, const FileSetting &y) {
                          return x.name == y.name && x.value == y.value && x.line == y.line;
                      });
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view input(reinterpret_cast<const char *>(data), size);
    const bool has_bom = input.substr(0, bom.size()) == bom;
    const std::vector<std::string_view> lines =
        lines_of(has_bom ? input.substr(bom.size()) : input);
    const auto parsed = meridian::mca::parse_param_file(path, input);
    if (!parsed) {
        check_error(parsed.error().message, lines);
    } else {
        check_settings(*parsed, lines);
    }

    std::string crlf;
    for (const char c : input) {
        if (c == '\n') {
            crlf += '\r';
        }
        crlf += c;
    }
    const auto again = meridian::mca::parse_param_file(path, crlf);
    if (parsed.ok() != again.ok() || (parsed && !same_settings(*parsed, *again))) {
        broken("\\r\\n line ends read as \\n ones");
    }
    if (!has_bom) {
        const auto marked = meridian::mca::parse_param_file(path, std::string(bom) + crlf);
        if (again.ok() != marked.ok() || (again && !same_settings(*again, *marked))) {
            broken("a leading byte order mark changes nothing");
        }
    }
    return 0;
}
