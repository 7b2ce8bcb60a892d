// SPDX-License-Identifier: BSD-3-Clause
// What every Meridian tool's command line shares: the exit statuses, taking
// Meridian's own --mca / --tune out of argv, the style each tool parses its
// own options with afterwards, and the words its mistakes and --help use.
#ifndef MERIDIAN_TOOLS_TOOL_COMMAND_LINE_HPP
#define MERIDIAN_TOOLS_TOOL_COMMAND_LINE_HPP

#include <boost/program_options.hpp>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <meridian/opal/mca/base/cmdline.hpp>
#include <meridian/opal/mca/base/mca_base.h>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>
#include <meridian/opal/util/result.hpp>
#include <meridian/opal/util/strings.hpp>

namespace meridian::tools
{

// Every tool's exit statuses: a mistake in the command line is told apart
// from a run that failed, so scripts can tell "fix the call" from "retry".
constexpr int exit_success = 0;
constexpr int exit_failure = 1; // a file, a component or the answer failed
constexpr int exit_usage = 2;   // the command line is wrong

// A mistake in `tool`'s command line: what is wrong, then where to look.
inline Error usage_error(std::string_view tool, const std::string &what)
{
    return make_error(MERIDIAN_ERR_BAD_PARAM, what + " (see " + std::string(tool) + " --help)");
}

// An option that may be given once, given again.
inline Error given_twice(std::string_view tool, const std::string &key, const std::string &first,
                         const std::string &second)
{
    return usage_error(tool, "--" + key + " is given twice (" + util::quoted(first) + " and " +
                                 util::quoted(second) + ")");
}

// Take Meridian's --mca / --tune out of argv and apply them.  Returns
// exit_success, exit_usage when they are badly written (the parser's
// message is reported here), or exit_failure when a --tune file cannot be
// read or is refused (the library reports why).
inline int apply_meridian_options(int &argc, char **&argv)
{
    // Judged first on its own: the library's apply answers both kinds of
    // mistake with one status, and only the parse is the caller's fault.
    std::vector<std::string> args;
    for (int i = 1; i < argc; ++i) {
        args.emplace_back(argv[i]);
    }
    if (auto parsed = mca::parse_command_line(args); !parsed) {
        report_error(parsed.error().message);
        return exit_usage;
    }
    return meridian_mca_base_cmdline_apply(&argc, &argv) == MERIDIAN_SUCCESS ? exit_success
                                                                             : exit_failure;
}

// Parse argv against options, with every non-option argument going to the
// positional catch-all.  Abbreviations are never guessed: what is typed is
// what is matched.  Throws boost::program_options::error on bad input.
inline boost::program_options::parsed_options
parse_tool_command_line(int argc, const char *const *argv,
                        const boost::program_options::options_description &options,
                        const boost::program_options::positional_options_description &positional)
{
    namespace po = boost::program_options;
    const int style =
        po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
    return po::command_line_parser(argc, argv)
        .options(options)
        .positional(positional)
        .style(style)
        .run();
}

// Boost pads wrapped option descriptions with a trailing blank: the usage
// text without them.
inline std::string without_trailing_blanks(std::string text)
{
    for (auto at = text.find(" \n"); at != std::string::npos; at = text.find(" \n", at)) {
        text.erase(at, 1);
        at = at > 0 ? at - 1 : 0;
    }
    return text;
}

// What an option (NAME as typed: "--type", "-t") takes, for the message when
// it is given without its value; "" when there is nothing better to say.
using OptionNeeds = std::function<std::string(const std::string &name)>;

// What to tell the user about a command-line error: "NAME needs WHAT" for an
// option given without its value when `needs` knows what it takes, "unknown
// option NAME", or Boost's own text.
inline std::string command_line_error(const boost::program_options::error &e,
                                      const OptionNeeds &needs)
{
    namespace po = boost::program_options;
    if (const auto *syntax = dynamic_cast<const po::invalid_command_line_syntax *>(&e);
        syntax != nullptr && (syntax->kind() == po::invalid_syntax::missing_parameter ||
                              syntax->kind() == po::invalid_syntax::empty_adjacent_parameter)) {
        const std::string name = syntax->get_option_name();
        if (const std::string what = needs(name); !what.empty()) {
            return name + " needs " + what;
        }
    }
    if (const auto *unknown = dynamic_cast<const po::unknown_option *>(&e); unknown != nullptr) {
        return "unknown option " + unknown->get_option_name();
    }
    return e.what();
}

// A tool's own options, parsed: `options` are every option it takes, and
// every argument that is not an option goes, in order, to the hidden option
// named `arguments`, added here.  Each occurrence is kept apart, so a tool
// can notice a repeated option; a mistake is `tool`'s usage error.
inline Result<std::vector<boost::program_options::option>>
parse_own_options(int argc, const char *const *argv, std::string_view tool,
                  const boost::program_options::options_description &options, const char *arguments,
                  const OptionNeeds &needs)
{
    namespace po = boost::program_options;
    po::options_description every;
    every.add(options).add_options()(arguments, po::value<std::vector<std::string>>(), "");
    po::positional_options_description positional;
    positional.add(arguments, -1);
    try {
        return parse_tool_command_line(argc, argv, every, positional).options;
    } catch (const po::error &e) {
        return usage_error(tool, command_line_error(e, needs));
    }
}

// The --help lines for Meridian's own options, the same in every tool.
inline std::string meridian_options_usage()
{
    return "Meridian options (understood by every Meridian program):\n"
           "  --mca NAME VALUE      set an MCA parameter (repeatable)\n"
           "  --tune FILE[,FILE]    read MCA parameters from these param files\n";
}

// Where else parameters are set, for the --help of a tool that does not
// list them itself (meridian_info does).
inline std::string parameter_sources_usage()
{
    return std::string("Parameters are also set in the environment (") +
           meridian_mca_base_env_prefix() +
           "NAME=VALUE) and in param\n"
           "files (meridian_info --all lists those read).\n";
}

} // namespace meridian::tools

#endif
