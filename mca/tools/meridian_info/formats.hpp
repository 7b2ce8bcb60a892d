// SPDX-License-Identifier: BSD-3-Clause
// The three ways meridian_info prints a report.  Each appends to a string the
// caller writes once: a single write keeps the tool fast on large outputs.
#ifndef MERIDIAN_TOOLS_INFO_FORMATS_HPP
#define MERIDIAN_TOOLS_INFO_FORMATS_HPP

#include <string>
#include <string_view>

#include "mca/tools/meridian_info/report.hpp"

namespace meridian::info
{

// For people: aligned sections, wrapped help.
void write_text(const Report &report, std::string &out);

// One fact a line:
//   meridian:version:full:V            meridian:version:mca:X.Y
//   path:KEY:VALUE                     (with --all)
//   mca:FW:base:description:TEXT       mca:FW:base:version:api:X.Y.Z
//   mca:FW:base:components:A,B|none
//   mca:FW:COMP:version:mca:X.Y        mca:FW:COMP:version:api:X.Y.Z
//   mca:FW:COMP:version:component:X.Y.Z  mca:FW:COMP:path:PATH|static
//   mca:FW:COMP:failed-path:PATH       mca:FW:COMP:failed:REASON (with --show-failed)
//   mca:FW:COMP:param:NAME:value|source|level|type|help|minimum|maximum|deprecated:...
//   mca:FW:COMP:param:NAME:enumerator:value:N:NAME
//   mca:FW:COMP:param:NAME:synonym:name:SYN  (and synonym:deprecated:SYN)
// Framework-level parameters use COMP "base"; the core's use mca:mca:base.
// The last field is free text: a backslash or control character in it is
// escaped (\\, \n, \r, \t, \xHH) so every fact stays on one line.
void write_parsable(const Report &report, std::string &out);

// The same facts as a JSON document (nlohmann::json).
void write_json(const Report &report, std::string &out);

// The escaping write_parsable applies to free text.
std::string one_line(std::string_view text);

// A parameter's status, as ompi_info's: "writeable" (set from any source at
// any time), "read-only-after-open" (set before its framework opens; the API
// cannot change it while the framework is open).
const char *param_status(const mca::Param &param);
// Whether a param file may set it ("no": only the environment, the command
// line and the API).
bool settable_in_files(const mca::Param &param);

} // namespace meridian::info

#endif
