// SPDX-License-Identifier: BSD-3-Clause
// How this libmeridian was built, for meridian_info -c/--config: what
// configure recorded (its command line, the compilers and flags, every
// choice its summary prints, each dependency and component with its
// version or why it is missing) and what the libraries it runs with say of
// themselves now.
#ifndef MERIDIAN_RUNTIME_BUILD_CONFIG_HPP
#define MERIDIAN_RUNTIME_BUILD_CONFIG_HPP

#include <meridian/opal/util/require_cxx20.hpp>

#include <string>
#include <vector>

namespace meridian::build
{

// One line of the report: its section ("build", "dependency", "component",
// "runtime"), its label ("C compiler", "hwloc", "carto/auto (carto_auto)",
// ...) and its text, as configure's summary words it.
struct Fact {
    std::string section;
    std::string label;
    std::string text;
};

// Every fact, sections in the order above.
std::vector<Fact> facts();

} // namespace meridian::build

#endif
