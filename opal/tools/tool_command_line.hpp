// The command-line style every Meridian tool parses its own options with
// (after meridian_mca_base_cmdline_apply has taken --mca / --tune out of argv).
#ifndef MERIDIAN_TOOLS_TOOL_COMMAND_LINE_HPP
#define MERIDIAN_TOOLS_TOOL_COMMAND_LINE_HPP

#include <boost/program_options.hpp>
#include <functional>
#include <string>

namespace meridian::tools
{

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
