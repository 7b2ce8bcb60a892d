// The command-line style every Meridian tool parses its own options with
// (after mca_base_cmdline_apply has taken --mca / --tune out of argv).
#ifndef MERIDIAN_TOOLS_TOOL_COMMAND_LINE_HPP
#define MERIDIAN_TOOLS_TOOL_COMMAND_LINE_HPP

#include <boost/program_options.hpp>

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
    const int style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
    return po::command_line_parser(argc, argv).options(options).positional(positional).style(style).run();
}

} // namespace meridian::tools

#endif
