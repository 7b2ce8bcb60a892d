// SPDX-License-Identifier: BSD-3-Clause
// Meridian's own command-line options, taken out of a program's arguments:
//   --mca NAME VALUE   (repeatable; also -mca, as Open MPI spells it)
//   --tune FILE[,FILE] (also --tune=FILE[,FILE]); param files ranked above
//                      the user's file and below the environment
// Everything else, and everything after "--", is left for the program, in order.
#ifndef MERIDIAN_MCA_BASE_CMDLINE_HPP
#define MERIDIAN_MCA_BASE_CMDLINE_HPP

#include <meridian/opal/util/require_cxx20.hpp>

#include <string>
#include <utility>
#include <vector>

#include <meridian/opal/util/result.hpp>

namespace meridian::mca
{

struct CommandLineSettings {
    std::vector<std::pair<std::string, std::string>> mca; // in order given
    std::vector<std::string> tune_files;
    std::vector<std::string> remaining;       // the program's own arguments (argv[0] excluded)
    std::vector<std::size_t> remaining_index; // their positions in the parsed list
};

// Parse (argv[0] excluded).  Errors: a missing name or value, an empty tune
// file name, the same parameter twice.
Result<CommandLineSettings> parse_command_line(const std::vector<std::string> &args);

// Add the settings to the registry (source "command line") and read the tune
// files.  Nothing is applied unless everything can be.
Status apply_command_line(const CommandLineSettings &settings);

} // namespace meridian::mca

#endif
