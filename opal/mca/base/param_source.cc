// SPDX-License-Identifier: BSD-3-Clause
#include <meridian/opal/mca/base/param_source.hpp>

namespace meridian::mca
{

bool SourceRef::is_file() const
{
    return kind == SourceKind::system_file || kind == SourceKind::user_file ||
           kind == SourceKind::tune_file || kind == SourceKind::override_file;
}

std::string SourceRef::describe() const
{
    const std::string location = file + ":" + std::to_string(line);
    switch (kind) {
    case SourceKind::default_value:
        return "default";
    case SourceKind::system_file:
    case SourceKind::user_file:
    case SourceKind::tune_file:
        return "file (" + location + ")";
    case SourceKind::environment:
        return "environment";
    case SourceKind::command_line:
        return "command line";
    case SourceKind::api:
        return "api";
    case SourceKind::override_file:
        return "override file (" + location + ")";
    }
    return "default";
}

std::string SourceRef::where() const
{
    const std::string location = file + ":" + std::to_string(line);
    switch (kind) {
    case SourceKind::default_value:
        return "the default";
    case SourceKind::system_file:
    case SourceKind::user_file:
        return "file " + location;
    case SourceKind::tune_file:
        return "tune file " + location;
    case SourceKind::environment:
        return "environment variable " + variable;
    case SourceKind::command_line:
        return "the command line";
    case SourceKind::api:
        return "the API";
    case SourceKind::override_file:
        return "override file " + location;
    }
    return "the default";
}

} // namespace meridian::mca
