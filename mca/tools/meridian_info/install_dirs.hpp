// SPDX-License-Identifier: BSD-3-Clause
// meridian_info --path NAME: one installation directory by the name Open
// MPI's ompi_info --path gives it, or all of them.
#ifndef MERIDIAN_TOOLS_INFO_INSTALL_DIRS_HPP
#define MERIDIAN_TOOLS_INFO_INSTALL_DIRS_HPP

#include <string>
#include <vector>

#include "mca/tools/meridian_info/options.hpp"
#include <meridian/opal/util/result.hpp>

namespace meridian::info
{

// The names --path takes, in the order "all" prints them, then the synonyms
// and "all": "prefix, bindir, ..., all".
std::string install_dir_choices();

// The directory names NAME stands for: itself, or every directory for "all".
// An unknown name is an error listing the known ones.
Result<std::vector<std::string>> expand_install_dir(const std::string &name);

// "NAME: DIR" a line (text), "path:NAME:DIR" (parsable) or {"paths": {NAME:
// DIR}} (json), in the order of names, each already expanded.
void write_install_dirs(const std::vector<std::string> &names, Format format, std::string &out);

} // namespace meridian::info

#endif
