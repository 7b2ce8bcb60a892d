// SPDX-License-Identifier: BSD-3-Clause
#include "components/carto_auto/carto_auto_topology.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <optional>

#include <meridian/opal/util/error.h>
#include <meridian/opal/util/strings.hpp>

namespace meridian::carto_auto
{
namespace
{

// What hwloc says about a file it cannot use depends on which of its XML
// importers runs (libxml2 or its own), and is only ever "invalid"; its
// parser's messages go to stderr, and only when asked for.
constexpr std::string_view invalid_xml = "hwloc rejected it: not a valid hwloc XML topology "
                                         "(HWLOC_XML_VERBOSE=1 shows hwloc's own messages)";

std::string reason(int error)
{
    return error != 0 ? std::strerror(error) : "unknown error";
}

// Why hwloc refused a readable file.  It says EINVAL, or nothing at all
// (a topology without a NUMA node, after it printed so itself).
std::string rejected(int error)
{
    return error == EINVAL || error == 0 ? std::string(invalid_xml)
                                         : "hwloc rejected it: " + reason(error);
}

Error xml_error(int status, const std::string &xml_path, std::string_view what)
{
    return make_error(status,
                      "carto_auto: " + describe_source(xml_path) + ": " + std::string(what));
}

// The system's reason why the file cannot be read, if it cannot: hwloc
// would call a missing file or a directory "invalid" too.
std::optional<std::string> unreadable(const std::string &path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return reason(errno);
    }
    char byte = 0;
    const ssize_t got = ::read(fd, &byte, 1);
    const int error = errno;
    ::close(fd);
    if (got < 0) {
        return reason(error);
    }
    return std::nullopt;
}

// Discovery components of hwloc the map does not need.  GPU and coprocessor
// discovery: the map has no vertex for them, and probing them can take long
// (OpenCL, CUDA).  On Linux, PCI discovery through libpciaccess ("pci"):
// hwloc's Linux component reads the PCI devices from sysfs itself, and
// libpciaccess leaves memory behind on every load.
constexpr std::array unused_components = {
    "gl",  "opencl", "cuda", "nvml", "rsmi", "levelzero",
#ifdef __linux__
    "pci",
#endif
};

} // namespace

std::string describe_source(std::string_view xml_path)
{
    if (xml_path.empty()) {
        return "this machine's topology (hwloc)";
    }
    return "the hwloc XML topology " + util::quoted(xml_path) + " (carto_auto_xml)";
}

Result<Topology> load_topology(const std::string &xml_path)
{
    hwloc_topology_t raw = nullptr;
    if (hwloc_topology_init(&raw) != 0) {
        return make_error(MERIDIAN_ERR_OUT_OF_RESOURCE,
                          "carto_auto: hwloc cannot make a topology: " + reason(errno));
    }
    Topology topology(raw);
    // Network and OpenFabrics devices are OS devices below PCI devices and
    // bridges, all of which hwloc drops unless asked to keep them; keeping
    // all of them also keeps everything an XML file describes.
    hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_ALL);
#if HWLOC_API_VERSION >= 0x00020100
    for (const char *name : unused_components) {
        // A component this hwloc does not have is no error: nothing to skip.
        hwloc_topology_set_components(raw, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, name);
    }
#endif

    if (!xml_path.empty()) {
        if (const auto why = unreadable(xml_path)) {
            return xml_error(MERIDIAN_ERR_IO, xml_path, "cannot read it: " + *why);
        }
        errno = 0;
        if (hwloc_topology_set_xml(raw, xml_path.c_str()) != 0) {
            // Loading now would silently map this machine instead: stop here.
            return xml_error(MERIDIAN_ERR_BAD_PARAM, xml_path, rejected(errno));
        }
    }

    errno = 0;
    if (hwloc_topology_load(raw) != 0) {
        const int error = errno;
        if (xml_path.empty()) {
            return make_error(MERIDIAN_ERROR,
                              "carto_auto: hwloc cannot discover this machine's topology: " +
                                  reason(error));
        }
        return xml_error(MERIDIAN_ERR_BAD_PARAM, xml_path, rejected(error));
    }

    // hwloc 2 refuses such topologies itself; this keeps the promise of
    // MEM vertices should another version accept one.
    if (hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_NUMANODE) <= 0) {
        return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                          "carto_auto: " + describe_source(xml_path) + " has no NUMA node");
    }
    return topology;
}

} // namespace meridian::carto_auto
