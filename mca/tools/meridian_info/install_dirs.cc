// SPDX-License-Identifier: BSD-3-Clause
#include "mca/tools/meridian_info/install_dirs.hpp"

#include <array>
#include <nlohmann/json.hpp>
#include <string_view>

#include "mca/tools/meridian_info/formats.hpp"
#include "opal/util/paths.hpp"
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/strings.hpp>

// The directories the library does not need itself are the tool's alone
// (mca/tools/meridian_info/Makefile.inc sets them).
#if !defined(MERIDIAN_BINDIR) || !defined(MERIDIAN_DATADIR) || !defined(MERIDIAN_MANDIR)
#error                                                                                             \
    "build with -DMERIDIAN_BINDIR=... -DMERIDIAN_DATADIR=... -DMERIDIAN_MANDIR=... (set by mca/tools/meridian_info/Makefile.inc)"
#endif

namespace meridian::info
{

namespace
{

struct InstallDir {
    std::string_view name;
    std::string (*value)();
};

std::string bin_dir()
{
    return MERIDIAN_BINDIR;
}
std::string data_dir()
{
    return MERIDIAN_DATADIR;
}
std::string man_dir()
{
    return MERIDIAN_MANDIR;
}

// The configured directories: what the library and the tools were built to
// use.  The component directory is the one the library looks in first.
constexpr std::array<InstallDir, 8> install_dirs = {{
    {"prefix", paths::prefix_dir},
    {"bindir", bin_dir},
    {"libdir", paths::lib_dir},
    {"incdir", paths::include_dir},
    {"pkglibdir", paths::component_dir},
    {"sysconfdir", paths::sysconf_dir},
    {"datadir", data_dir},
    {"mandir", man_dir},
}};

// Another name for pkglibdir, the one pkg-config's meridian.pc uses.
constexpr std::string_view component_dir_name = "componentdir";
constexpr std::string_view all_name = "all";

const InstallDir *find_install_dir(std::string_view name)
{
    if (name == component_dir_name) {
        name = "pkglibdir";
    }
    for (const auto &dir : install_dirs) {
        if (dir.name == name) {
            return &dir;
        }
    }
    return nullptr;
}

std::vector<std::string> known_names()
{
    std::vector<std::string> names;
    for (const auto &dir : install_dirs) {
        names.emplace_back(dir.name);
    }
    names.emplace_back(component_dir_name);
    names.emplace_back(all_name);
    return names;
}

} // namespace

std::string install_dir_choices()
{
    return util::join(known_names(), ", ");
}

Result<std::vector<std::string>> expand_install_dir(const std::string &name)
{
    if (name == all_name) {
        std::vector<std::string> names;
        for (const auto &dir : install_dirs) {
            names.emplace_back(dir.name);
        }
        return names;
    }
    if (find_install_dir(name) != nullptr) {
        return std::vector<std::string>{name};
    }
    std::string what = "--path expects a directory name, found " + util::quoted(name);
    if (const auto suggestion = util::closest_match(name, known_names())) {
        what += " (did you mean " + *suggestion + "?)";
    }
    return make_error(MERIDIAN_ERR_BAD_PARAM, what + "; the names are: " + install_dir_choices());
}

void write_install_dirs(const std::vector<std::string> &names, Format format, std::string &out)
{
    nlohmann::ordered_json dirs = nlohmann::ordered_json::object();
    for (const auto &name : names) {
        const InstallDir *dir = find_install_dir(name);
        if (dir == nullptr) {
            continue; // parse_options lets only known names through
        }
        const std::string value = dir->value();
        switch (format) {
        case Format::text:
            out += name + ": " + value + "\n";
            break;
        case Format::parsable:
            out += "path:" + name + ":" + one_line(value) + "\n";
            break;
        case Format::json:
            dirs[name] = value;
            break;
        }
    }
    if (format == Format::json) {
        out += nlohmann::ordered_json{{"paths", dirs}}.dump(
                   2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) +
               "\n";
    }
}

} // namespace meridian::info
