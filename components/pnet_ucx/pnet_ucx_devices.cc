// SPDX-License-Identifier: BSD-3-Clause
// pnet_ucx's rules and inventory text (pnet_ucx_devices.hpp).
#include "components/pnet_ucx/pnet_ucx_devices.hpp"

#include <algorithm>
#include <charconv>
#include <memory>

#include <dlfcn.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <uct/api/uct.h>

#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>
#include <meridian/opal/util/strings.hpp>

namespace meridian::pnet_ucx
{

using util::join;

namespace
{

constexpr std::string_view inventory_header = "# pnet_ucx inventory 1";

bool is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.' || c == ':';
}

bool is_name(std::string_view text)
{
    return !text.empty() && std::all_of(text.begin(), text.end(), is_name_char);
}

// One word of a line and the column it starts at (1-based).
struct Word {
    std::string_view text;
    std::uint32_t column;
};

std::vector<Word> words_of(std::string_view line)
{
    std::vector<Word> words;
    std::size_t at = 0;
    while (at < line.size()) {
        if (line[at] == ' ' || line[at] == '\t') {
            ++at;
            continue;
        }
        const std::size_t start = at;
        while (at < line.size() && line[at] != ' ' && line[at] != '\t') {
            ++at;
        }
        words.push_back({line.substr(start, at - start), static_cast<std::uint32_t>(start + 1)});
    }
    return words;
}

class InventoryParser
{
  public:
    explicit InventoryParser(std::string_view where) : where_(where) {}

    Error error(std::uint32_t line, std::uint32_t column, std::string_view expected,
                std::string_view found) const
    {
        return make_error(MERIDIAN_ERR_BAD_PARAM, std::string(where_) + ":" + std::to_string(line) +
                                                      ":" + std::to_string(column) + ": expected " +
                                                      std::string(expected) + ", found " +
                                                      std::string(found));
    }

    // "tls=a,b,c" after its key; each name checked.
    Result<std::vector<std::string>> transports(std::uint32_t line, const Word &word) const
    {
        std::vector<std::string> names;
        const std::string_view list = word.text.substr(4);
        std::size_t at = 0;
        while (true) {
            const std::size_t end = std::min(list.find(',', at), list.size());
            const std::string_view name = list.substr(at, end - at);
            const auto column = word.column + 4 + static_cast<std::uint32_t>(at);
            if (!is_name(name) || name.find(':') != std::string_view::npos) {
                return error(line, column, "a transport name",
                             name.empty() ? std::string("nothing") : util::quoted(name));
            }
            if (std::find(names.begin(), names.end(), name) != names.end()) {
                return error(line, column, "each transport once", util::quoted(name) + " again");
            }
            names.emplace_back(name);
            if (end == list.size()) {
                return names;
            }
            at = end + 1;
        }
    }

  private:
    std::string_view where_;
};

} // namespace

std::string format_inventory(const NodeDevices &node)
{
    std::string text(inventory_header);
    text += '\n';
    for (const Device &device : node.devices) {
        text += "net " + device.name + " package=" + std::to_string(device.package) +
                " tls=" + join(device.transports, ",") + "\n";
    }
    if (!node.local_transports.empty()) {
        text += "local tls=" + join(node.local_transports, ",") + "\n";
    }
    return text;
}

Result<NodeDevices> parse_inventory(std::string_view text, std::string_view where)
{
    const InventoryParser parser(where);
    NodeDevices node;
    bool have_local = false;
    std::uint32_t line_number = 0;
    std::size_t at = 0;
    while (at <= text.size()) {
        const std::size_t newline = std::min(text.find('\n', at), text.size());
        std::string_view line = text.substr(at, newline - at);
        at = newline + 1;
        ++line_number;
        if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) {
            line = line.substr(0, hash);
        }
        const std::vector<Word> words = words_of(line);
        if (words.empty()) {
            if (newline == text.size()) {
                break;
            }
            continue;
        }
        const Word &keyword = words[0];
        if (keyword.text == "local") {
            if (have_local) {
                return parser.error(line_number, keyword.column, "one local line", "a second one");
            }
            if (words.size() < 2 || !words[1].text.starts_with("tls=")) {
                return parser.error(line_number,
                                    words.size() < 2 ? static_cast<std::uint32_t>(line.size() + 1)
                                                     : words[1].column,
                                    "tls=TL,...",
                                    words.size() < 2 ? std::string("end of line")
                                                     : util::quoted(words[1].text));
            }
            auto transports = parser.transports(line_number, words[1]);
            if (!transports) {
                return transports.error();
            }
            if (words.size() > 2) {
                return parser.error(line_number, words[2].column, "end of line",
                                    util::quoted(words[2].text));
            }
            node.local_transports = std::move(*transports);
            have_local = true;
        } else if (keyword.text == "net") {
            if (words.size() < 2 || !is_name(words[1].text)) {
                return parser.error(line_number,
                                    words.size() < 2 ? static_cast<std::uint32_t>(line.size() + 1)
                                                     : words[1].column,
                                    "a device name",
                                    words.size() < 2 ? std::string("end of line")
                                                     : util::quoted(words[1].text));
            }
            Device device;
            device.name = std::string(words[1].text);
            for (const Device &seen : node.devices) {
                if (seen.name == device.name) {
                    return parser.error(line_number, words[1].column, "each device once",
                                        util::quoted(device.name) + " again");
                }
            }
            bool have_package = false;
            bool have_tls = false;
            for (std::size_t i = 2; i < words.size(); ++i) {
                const Word &word = words[i];
                if (word.text.starts_with("package=")) {
                    if (have_package) {
                        return parser.error(line_number, word.column, "package= once",
                                            "a second one");
                    }
                    const std::string_view value = word.text.substr(8);
                    int package = 0;
                    const auto [end, ec] =
                        std::from_chars(value.data(), value.data() + value.size(), package);
                    if (ec != std::errc() || end != value.data() + value.size() || package < -1 ||
                        package > 65535) {
                        return parser.error(line_number, word.column + 8, "a package -1..65535",
                                            util::quoted(value));
                    }
                    device.package = package;
                    have_package = true;
                } else if (word.text.starts_with("tls=")) {
                    if (have_tls) {
                        return parser.error(line_number, word.column, "tls= once", "a second one");
                    }
                    auto transports = parser.transports(line_number, word);
                    if (!transports) {
                        return transports.error();
                    }
                    device.transports = std::move(*transports);
                    have_tls = true;
                } else {
                    return parser.error(line_number, word.column, "package=N or tls=TL,...",
                                        util::quoted(word.text));
                }
            }
            if (!have_tls) {
                return parser.error(line_number, static_cast<std::uint32_t>(line.size() + 1),
                                    "tls=TL,...", "end of line");
            }
            node.devices.push_back(std::move(device));
        } else {
            return parser.error(line_number, keyword.column, "net or local",
                                util::quoted(keyword.text));
        }
        if (newline == text.size()) {
            break;
        }
    }
    return node;
}

// ------------------------------------------------------------ the host

namespace
{

// UCT's calls, resolved from libuct the first time the host is queried, not
// linked: loading UCX's libraries runs their constructors (milliseconds of
// CPU, and memory hooks) in every process that loads the component, and most
// never query (a job whose launcher set the network up, a tool listing
// parameters).  Kept for the process's life: UCX is not made to be unloaded.
struct Uct {
    decltype(&::uct_query_components) query_components = nullptr;
    decltype(&::uct_release_component_list) release_component_list = nullptr;
    decltype(&::uct_component_query) component_query = nullptr;
    decltype(&::uct_md_config_read) md_config_read = nullptr;
    decltype(&::uct_md_open) md_open = nullptr;
    decltype(&::uct_md_close) md_close = nullptr;
    decltype(&::uct_config_release) config_release = nullptr;
    decltype(&::uct_md_query_tl_resources) md_query_tl_resources = nullptr;
    decltype(&::uct_release_tl_resource_list) release_tl_resource_list = nullptr;
    decltype(&::ucs_status_string) status_string = nullptr; // libucs, libuct's dependency
};

constexpr const char *uct_library = "libuct.so.0";

template <typename Fn> bool resolve(void *library, const char *name, Fn *fn)
{
    *fn = reinterpret_cast<Fn>(::dlsym(library, name));
    return *fn != nullptr;
}

Result<const Uct *> load_uct()
{
    static const Result<const Uct *> loaded = []() -> Result<const Uct *> {
        void *library = ::dlopen(uct_library, RTLD_NOW | RTLD_LOCAL);
        if (library == nullptr) {
            const char *why = ::dlerror();
            return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                              std::string("pnet_ucx: UCX's ") + uct_library +
                                  " does not load: " + (why != nullptr ? why : "(no reason)"));
        }
        static Uct uct;
        const bool all =
            resolve(library, "uct_query_components", &uct.query_components) &&
            resolve(library, "uct_release_component_list", &uct.release_component_list) &&
            resolve(library, "uct_component_query", &uct.component_query) &&
            resolve(library, "uct_md_config_read", &uct.md_config_read) &&
            resolve(library, "uct_md_open", &uct.md_open) &&
            resolve(library, "uct_md_close", &uct.md_close) &&
            resolve(library, "uct_config_release", &uct.config_release) &&
            resolve(library, "uct_md_query_tl_resources", &uct.md_query_tl_resources) &&
            resolve(library, "uct_release_tl_resource_list", &uct.release_tl_resource_list) &&
            resolve(library, "ucs_status_string", &uct.status_string);
        if (!all) {
            const char *why = ::dlerror();
            return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                              std::string("pnet_ucx: ") + uct_library +
                                  " lacks a call this component uses (another UCX than it was "
                                  "built for?): " +
                                  (why != nullptr ? why : "(no reason)"));
        }
        return &uct;
    }();
    return loaded;
}

// RAII for UCT's lists and handles.
struct ComponentList {
    const Uct &uct;
    uct_component_h *list = nullptr;
    unsigned count = 0;
    ~ComponentList()
    {
        if (list != nullptr) {
            uct.release_component_list(list);
        }
    }
};
struct MdCloser {
    const Uct *uct;
    void operator()(uct_md *md) const { uct->md_close(md); }
};
struct ConfigReleaser {
    const Uct *uct;
    void operator()(uct_md_config_t *config) const { uct->config_release(config); }
};
struct ResourceReleaser {
    const Uct *uct;
    void operator()(uct_tl_resource_desc_t *list) const { uct->release_tl_resource_list(list); }
};

ResourceKind kind_of(uct_device_type_t type)
{
    switch (type) {
    case UCT_DEVICE_TYPE_NET:
        return ResourceKind::network;
    case UCT_DEVICE_TYPE_SHM:
        return ResourceKind::local;
    case UCT_DEVICE_TYPE_SELF:
        return ResourceKind::loopback;
    default:
        return ResourceKind::accelerator;
    }
}

// The resources of one memory domain; an MD that does not open gives none.
// UCX's tcp transport also lists the loopback interface as a network
// device; it reaches only this host, so it counts as loopback here.
void add_md_resources(const Uct &uct, uct_component_h component, const char *md_name,
                      std::vector<Resource> &resources)
{
    uct_md_config_t *raw_config = nullptr;
    if (uct.md_config_read(component, nullptr, nullptr, &raw_config) != UCS_OK) {
        return;
    }
    const std::unique_ptr<uct_md_config_t, ConfigReleaser> config(raw_config, {&uct});
    uct_md_h raw_md = nullptr;
    if (uct.md_open(component, md_name, config.get(), &raw_md) != UCS_OK) {
        return;
    }
    const std::unique_ptr<uct_md, MdCloser> md(raw_md, {&uct});
    uct_tl_resource_desc_t *raw_list = nullptr;
    unsigned count = 0;
    if (uct.md_query_tl_resources(md.get(), &raw_list, &count) != UCS_OK) {
        return;
    }
    const std::unique_ptr<uct_tl_resource_desc_t, ResourceReleaser> list(raw_list, {&uct});
    for (unsigned i = 0; i < count; ++i) {
        ResourceKind kind = kind_of(raw_list[i].dev_type);
        if (kind == ResourceKind::network && is_loopback_interface(raw_list[i].dev_name)) {
            kind = ResourceKind::loopback;
        }
        resources.push_back({raw_list[i].tl_name, raw_list[i].dev_name, kind});
    }
}

} // namespace

bool is_loopback_interface(std::string_view device)
{
    ifaddrs *raw = nullptr;
    if (getifaddrs(&raw) != 0) {
        return false;
    }
    const std::unique_ptr<ifaddrs, void (*)(ifaddrs *)> list(raw, freeifaddrs);
    for (const ifaddrs *entry = raw; entry != nullptr; entry = entry->ifa_next) {
        if (entry->ifa_name != nullptr && device == entry->ifa_name) {
            return (entry->ifa_flags & IFF_LOOPBACK) != 0;
        }
    }
    return false;
}

Result<std::vector<Resource>> query_uct_resources()
{
    auto loaded = load_uct();
    if (!loaded) {
        return loaded.error();
    }
    const Uct &uct = **loaded;
    ComponentList components{uct};
    const ucs_status_t status = uct.query_components(&components.list, &components.count);
    if (status != UCS_OK) {
        return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                          std::string("pnet_ucx: UCX lists no transport components: ") +
                              uct.status_string(status));
    }
    std::vector<Resource> resources;
    for (unsigned c = 0; c < components.count; ++c) {
        uct_component_attr_t attr{};
        attr.field_mask =
            UCT_COMPONENT_ATTR_FIELD_NAME | UCT_COMPONENT_ATTR_FIELD_MD_RESOURCE_COUNT;
        if (uct.component_query(components.list[c], &attr) != UCS_OK) {
            continue;
        }
        std::vector<uct_md_resource_desc_t> mds(attr.md_resource_count);
        attr.field_mask = UCT_COMPONENT_ATTR_FIELD_MD_RESOURCES;
        attr.md_resources = mds.data();
        if (!mds.empty() && uct.component_query(components.list[c], &attr) != UCS_OK) {
            continue;
        }
        for (const uct_md_resource_desc_t &md : mds) {
            add_md_resources(uct, components.list[c], md.md_name, resources);
        }
    }
    return resources;
}

std::string_view nic_of_device(std::string_view device)
{
    return device.substr(0, device.find(':'));
}

std::int32_t package_of(const WeightedGraph &graph, std::string_view device)
{
    std::optional<VertexId> vertex = graph.find(nic_of_device(device));
    if (!vertex) {
        vertex = graph.find(device);
    }
    if (!vertex) {
        return -1;
    }
    const auto slots = graph.distance_list(*vertex, type_mask(VertexType::slot));
    if (!slots) {
        return -1;
    }
    for (const VertexDistance &entry : *slots) {
        if (!entry.distance) {
            break; // the unreachable ones come last
        }
        // "Slot<n>" in any case (carto's naming of processors).
        const std::string_view name = graph.name(entry.vertex);
        if (name.size() <= 4) {
            continue;
        }
        const std::string_view digits = name.substr(4);
        int package = -1;
        const auto [end, ec] =
            std::from_chars(digits.data(), digits.data() + digits.size(), package);
        if (ec == std::errc() && end == digits.data() + digits.size() && package >= 0) {
            return package;
        }
    }
    return -1;
}

NodeDevices devices_from_resources(std::span<const Resource> resources, const WeightedGraph *host)
{
    NodeDevices node;
    for (const Resource &resource : resources) {
        if (resource.kind == ResourceKind::local) {
            auto &local = node.local_transports;
            if (std::find(local.begin(), local.end(), resource.transport) == local.end()) {
                local.push_back(resource.transport);
            }
            continue;
        }
        if (resource.kind != ResourceKind::network) {
            continue;
        }
        auto device = std::find_if(node.devices.begin(), node.devices.end(),
                                   [&](const Device &d) { return d.name == resource.device; });
        if (device == node.devices.end()) {
            node.devices.push_back({resource.device, {}, -1, fabric::no_index});
            device = node.devices.end() - 1;
            if (host != nullptr) {
                device->package = package_of(*host, resource.device);
            }
        }
        auto &transports = device->transports;
        if (std::find(transports.begin(), transports.end(), resource.transport) ==
            transports.end()) {
            transports.push_back(resource.transport);
        }
    }
    return node;
}

// ------------------------------------------------------------ allocation

std::string transports_for(std::span<const Device *const> devices,
                           std::span<const std::string> local_transports)
{
    std::vector<std::string> shared;
    if (!devices.empty()) {
        for (const std::string &transport : devices[0]->transports) {
            const bool everywhere =
                std::all_of(devices.begin(), devices.end(), [&](const Device *d) {
                    return std::find(d->transports.begin(), d->transports.end(), transport) !=
                           d->transports.end();
                });
            if (everywhere) {
                shared.push_back(transport);
            }
        }
        if (shared.empty()) {
            // Devices with nothing in common (a tcp NIC and an IB port): UCX
            // must be allowed each one's transports or would use neither.
            for (const Device *device : devices) {
                for (const std::string &transport : device->transports) {
                    if (std::find(shared.begin(), shared.end(), transport) == shared.end()) {
                        shared.push_back(transport);
                    }
                }
            }
        }
    }
    for (const std::string &transport : local_transports) {
        if (std::find(shared.begin(), shared.end(), transport) == shared.end()) {
            shared.push_back(transport);
        }
    }
    if (std::find(shared.begin(), shared.end(), "self") == shared.end()) {
        shared.emplace_back("self");
    }
    return join(shared, ",");
}

namespace detail
{

std::string shortfall_message(const Choice &choice, std::string_view node, std::size_t count)
{
    std::string text = "request " + util::quoted(choice.request_id) + ": ENDPTS " +
                       std::to_string(choice.endpts) + " is required but " + std::string(node) +
                       " has " + std::to_string(count) +
                       (count == 1 ? " UCX device" : " UCX devices");
    if (choice.plane != fabric::no_index) {
        text += " on plane " + std::string(choice.plane_name);
    }
    return text;
}

std::string no_plane_message(const Choice &choice, std::string_view node)
{
    return "request " + util::quoted(choice.request_id) + ": PLANE " +
           std::string(choice.plane_name) + " is required but " + std::string(node) +
           " has no UCX device on it";
}

void warn_plane_fallback(const Choice &choice, std::string_view node)
{
    report_warning("request " + util::quoted(choice.request_id) + ": PLANE " +
                   std::string(choice.plane_name) + " is not available on " + std::string(node) +
                   "; using its other UCX devices");
}

void warn_shortfall(const Choice &choice, std::string_view node, std::size_t count)
{
    std::string text =
        "request " + util::quoted(choice.request_id) + ": ENDPTS " + std::to_string(choice.endpts) +
        " is not met: " + std::string(node) + " has " +
        (count == 0 ? std::string("no UCX device")
                    : std::to_string(count) + (count == 1 ? " UCX device" : " UCX devices"));
    if (choice.plane != fabric::no_index && count > 0) {
        text += " on plane " + std::string(choice.plane_name);
    }
    report_warning(text +
                   (count == 0 ? "; its processes get none" : "; processes get what there is"));
}

std::uint32_t intern(std::vector<std::string> &names, std::string_view name, NameIndex &index)
{
    const auto [entry, added] =
        index.try_emplace(std::string(name), static_cast<std::uint32_t>(names.size()));
    if (added) {
        names.emplace_back(name);
    }
    return entry->second;
}

} // namespace detail

} // namespace meridian::pnet_ucx
