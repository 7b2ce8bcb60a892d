// What every Meridian tool's command line shares: the exit statuses, taking
// Meridian's own --mca / --tune out of argv, and the style each tool parses
// its own options with afterwards.
#ifndef MERIDIAN_TOOLS_TOOL_COMMAND_LINE_HPP
#define MERIDIAN_TOOLS_TOOL_COMMAND_LINE_HPP

#include <boost/program_options.hpp>
#include <functional>
#include <string>
#include <vector>

#include <meridian/opal/mca/base/cmdline.hpp>
#include <meridian/opal/mca/base/mca_base.h>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>

namespace meridian::tools
{

// Every tool's exit statuses: a mistake in the command line is told apart
// from a run that failed, so scripts can tell "fix the call" from "retry".
constexpr int exit_success = 0;
constexpr int exit_failure = 1; // a file, a component or the answer failed
constexpr int exit_usage = 2;   // the command line is wrong

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

// What to tell the user about a command-line error: "NAME needs WHAT" for an
// option given without its value when `needs` knows what it takes (it gives
// "" otherwise), "unknown option NAME", or Boost's own text.
inline std::string
command_line_error(const boost::program_options::error &e,
                   const std::function<std::string(const std::string &name)> &needs)
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

} // namespace meridian::tools

#endif
