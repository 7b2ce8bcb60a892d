// SPDX-License-Identifier: BSD-3-Clause
// meridian_info -c/--config: how this Meridian was built (configure's
// command line, compilers and flags, its choices, every dependency and
// component as configure's summary gave them) and the versions of what it
// runs with, as ompi_info -c shows Open MPI's.
#ifndef MERIDIAN_TOOLS_INFO_BUILD_REPORT_HPP
#define MERIDIAN_TOOLS_INFO_BUILD_REPORT_HPP

#include <string>

#include "mca/tools/meridian_info/options.hpp"

namespace meridian::info
{

// Text: a header per section and "  LABEL  TEXT" lines; parsable:
// "config:SECTION:LABEL:TEXT"; json: {"config": {SECTION: {LABEL: TEXT}}}.
void write_build_report(Format format, std::string &out);

} // namespace meridian::info

#endif
