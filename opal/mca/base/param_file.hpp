// SPDX-License-Identifier: BSD-3-Clause
// Param files: "name = value" lines, blank lines and whole-line "#" comments.
// A value may be wrapped in double quotes to keep leading or trailing blanks.
// A file with any malformed line is refused whole: none of its settings apply.
#ifndef MERIDIAN_MCA_BASE_PARAM_FILE_HPP
#define MERIDIAN_MCA_BASE_PARAM_FILE_HPP

#include <meridian/opal/util/require_cxx20.hpp>

#include <string>
#include <string_view>
#include <vector>

#include <meridian/opal/mca/base/param_registry.hpp>
#include <meridian/opal/util/result.hpp>

namespace meridian::mca
{

struct FileSetting {
    std::string name;
    std::string value;
    int line = 0;
};

// Parse the text of a param file; errors read "PATH:LINE:COLUMN: expected ..., found ...".
Result<std::vector<FileSetting>> parse_param_file(std::string_view path, std::string_view text);

// Read and parse a file.  A missing file gives no settings unless it is
// required; any other problem is an error whose message names the file.
Result<std::vector<FileSetting>> read_param_file(const std::string &path, bool required);

// Add settings read from path under the given kind.
void add_file_settings(ParamRegistry &registry, const std::string &path,
                       const std::vector<FileSetting> &settings, SourceKind kind, int order);

// read_param_file + add_file_settings; an error is also reported.
Status load_param_file(ParamRegistry &registry, const std::string &path, SourceKind kind, int order,
                       bool required);

// Settings from every environment variable that starts with prefix.
Status load_environment(ParamRegistry &registry, std::string_view prefix);

} // namespace meridian::mca

#endif
