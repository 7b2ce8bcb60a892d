// SPDX-License-Identifier: BSD-3-Clause
#include "opal/util/paths.hpp"

#include <cstdlib>

#ifndef MERIDIAN_PREFIX
#error "build with -DMERIDIAN_PREFIX=... (set by Makefile.am)"
#endif

namespace meridian::paths
{

std::string prefix_dir()
{
    return MERIDIAN_PREFIX;
}
std::string lib_dir()
{
    return MERIDIAN_LIBDIR;
}
std::string component_dir()
{
    return MERIDIAN_PKGLIBDIR;
}
std::string sysconf_dir()
{
    return MERIDIAN_SYSCONFDIR;
}
std::string include_dir()
{
    return MERIDIAN_INCLUDEDIR;
}

std::string expand_home(std::string path)
{
    const char *home = std::getenv("HOME");
    if (home == nullptr) {
        return path;
    }
    if (path == "~" || path.rfind("~/", 0) == 0) {
        path.replace(0, 1, home);
    }
    for (std::size_t at = path.find("$HOME"); at != std::string::npos;
         at = path.find("$HOME", at)) {
        path.replace(at, 5, home);
        at += std::string(home).size();
    }
    return path;
}

} // namespace meridian::paths
