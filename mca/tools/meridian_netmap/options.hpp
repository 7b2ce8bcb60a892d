// SPDX-License-Identifier: BSD-3-Clause
// meridian_netmap's own command line: --fabric, --hosts, --bind, --request
// (repeatable), --format, --view, --help, --version (Meridian's --mca / --tune
// are taken out by the library before these are parsed).
#ifndef MERIDIAN_TOOLS_NETMAP_OPTIONS_HPP
#define MERIDIAN_TOOLS_NETMAP_OPTIONS_HPP

#include <string>
#include <vector>

#include <meridian/mca/pnet/base/request.hpp>
#include <meridian/opal/class/coordinate.h>
#include <meridian/opal/class/job_map.hpp>
#include <meridian/opal/util/result.hpp>

namespace meridian::netmap_tool
{

enum class Format { table, json };

struct Options {
    std::string fabric_path;
    std::string hosts;
    fabric::Binding binding = fabric::Binding::core;
    // Parsed, in the order given; ids are distinct.
    std::vector<pnet::Request> requests;
    Format format = Format::table;
    meridian_coord_view_t view = MERIDIAN_COORD_LOGICAL_VIEW;
    bool help = false;
    bool version = false;
};

// Parse argv (argv[0] is the program).  Every error is a mistake in the
// command line (the tool exits 2 for it); its message names what is wrong,
// what was expected, and, for a request, which --request and where in it.
Result<Options> parse_options(int argc, const char *const *argv);

// The --help text.
std::string usage_text();

} // namespace meridian::netmap_tool

#endif
