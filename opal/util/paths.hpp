// SPDX-License-Identifier: BSD-3-Clause
// Installation directories and path helpers.
#ifndef MERIDIAN_UTIL_PATHS_HPP
#define MERIDIAN_UTIL_PATHS_HPP

#include <string>

namespace meridian::paths
{

std::string prefix_dir();    // --prefix
std::string lib_dir();       // $libdir
std::string component_dir(); // $libdir/meridian: where components are installed
std::string sysconf_dir();   // $sysconfdir
std::string include_dir();   // $includedir

// Replace a leading "~" and every "$HOME" with the home directory (left as is
// when HOME is unset).
std::string expand_home(std::string path);

} // namespace meridian::paths

#endif
