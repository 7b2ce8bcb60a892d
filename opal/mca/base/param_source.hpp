// SPDX-License-Identifier: BSD-3-Clause
// Where a parameter's value came from, and how sources rank.
#ifndef MERIDIAN_MCA_BASE_PARAM_SOURCE_HPP
#define MERIDIAN_MCA_BASE_PARAM_SOURCE_HPP

#include <meridian/opal/util/require_cxx20.hpp>

#include <string>

namespace meridian::mca
{

// In precedence order, lowest first.  The three file kinds all show as
// "file (PATH:LINE)"; their ranks keep system < user < --tune.
enum class SourceKind {
    default_value,
    system_file,
    user_file,
    tune_file,
    environment,
    command_line,
    api,
    override_file,
};

struct SourceRef {
    SourceKind kind = SourceKind::default_value;
    std::string file;     // file kinds: the path
    int line = 0;         // file kinds: 1-based line
    std::string variable; // environment: the variable's name
    int order = 0;        // among files of one kind: later files win

    bool is_file() const;

    // The parsable form: default, file (PATH:LINE), environment, command line,
    // override file (PATH:LINE), api.
    std::string describe() const;

    // For messages: "environment variable MERIDIAN_MCA_x", "file /p:3", ...
    std::string where() const;

    // Total order of precedence; equal ranks are broken by arrival (later wins).
    long rank() const { return static_cast<long>(kind) * 100000L + order; }
};

} // namespace meridian::mca

#endif
