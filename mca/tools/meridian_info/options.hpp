// SPDX-License-Identifier: BSD-3-Clause
// meridian_info's own command-line options (Meridian's --mca / --tune are
// taken out by the library before these are parsed).
#ifndef MERIDIAN_TOOLS_INFO_OPTIONS_HPP
#define MERIDIAN_TOOLS_INFO_OPTIONS_HPP

#include <optional>
#include <string>
#include <vector>

#include <meridian/opal/util/result.hpp>

namespace meridian::info
{

// One --param FRAMEWORK COMPONENT; "all" matches every name, component
// "base" names the framework's own parameters.
struct ParamScope {
    std::string framework;
    std::string component;
};

enum class Format { text, parsable, json };

struct Options {
    std::vector<ParamScope> scopes; // empty: every framework and component
    std::optional<int> level;       // --level, 1-9
    bool all = false;
    bool path = false;                   // the report's paths section (--all)
    std::vector<std::string> path_names; // --path NAME, "all" expanded: only these
    bool show_failed = false;
    bool config = false; // -c/--config: how Meridian was built, and nothing else
    Format format = Format::text;
    bool help = false;
    bool version = false;
};

// Parse argv (argv[0] is the program).  Every error is a mistake in the
// command line (the tool exits 2 for it); it names the option or argument at
// fault and points to --help.
Result<Options> parse_options(int argc, const char *const *argv);

// The --help text.
std::string usage_text();

} // namespace meridian::info

#endif
