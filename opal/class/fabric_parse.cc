// SPDX-License-Identifier: BSD-3-Clause
// The fabric file (format in fabric.hpp): a line-by-line reader that checks
// every statement where it stands, and the writer that reads back the same.

#include <cmath>
#include <cstring>

#include <meridian/opal/class/fabric.hpp>
#include <meridian/opal/util/read_file.hpp>
#include <meridian/opal/util/strings.hpp>

namespace meridian::fabric
{

namespace
{

constexpr std::uint32_t max_packages = 256;
constexpr std::uint32_t max_cores = 1048576;
constexpr std::uint32_t max_qos_levels = 65535;
constexpr std::size_t max_dims = 16;
constexpr std::uint32_t max_shape_size = 1000000;
constexpr double max_speed_mbps = 1e15;

bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}
bool is_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
}
bool has_name_chars(std::string_view text)
{
    if (text.empty()) {
        return false;
    }
    for (const char c : text) {
        if (!is_word_char(c) && c != ':' && c != '/') {
            return false;
        }
    }
    return true;
}
bool is_word(std::string_view text)
{
    if (text.empty()) {
        return false;
    }
    for (const char c : text) {
        if (!is_word_char(c)) {
            return false;
        }
    }
    return true;
}

// "1,0,2": 1 to max_dims whole numbers.
std::optional<std::vector<std::uint32_t>> parse_list(std::string_view text, char separator,
                                                     std::uint64_t low, std::uint64_t high)
{
    std::vector<std::uint32_t> values;
    std::size_t start = 0;
    while (true) {
        const std::size_t end = std::min(text.find(separator, start), text.size());
        const auto value = util::parse_uint(text.substr(start, end - start), low, high);
        if (!value || values.size() == max_dims) {
            return std::nullopt;
        }
        values.push_back(*value);
        if (end == text.size()) {
            return values;
        }
        start = end + 1;
    }
}

struct Word {
    std::string_view text;
    std::size_t column = 0; // 1-based
};

// KEY=VALUE attributes of one statement, checked against its known keys.
struct Attribute {
    Word key;
    Word value;
    bool present = false;
};

class FabricParser
{
  public:
    FabricParser(std::string_view text, std::string_view origin) : text_(text), origin_(origin) {}

    Result<Fabric> parse();

  private:
    Error error_at(std::size_t column, const std::string &message) const
    {
        return make_error(MERIDIAN_ERR_BAD_PARAM, std::string(origin_) + ':' +
                                                      std::to_string(line_) + ':' +
                                                      std::to_string(column) + ": " + message);
    }
    // The column just past the line's last word, where "end of line" stands.
    std::size_t end_column() const
    {
        return words_.empty() ? 1 : words_.back().column + words_.back().text.size();
    }
    std::string found(std::size_t index) const
    {
        return index < words_.size() ? util::quoted(words_[index].text) : "end of line";
    }
    std::size_t column_of(std::size_t index) const
    {
        return index < words_.size() ? words_[index].column : end_column();
    }
    // A required NAME at words_[index].
    Result<std::string_view> name_at(std::size_t index, std::string_view what) const;
    // A name longer than max_name_bytes, refused without echoing it.
    Error too_long(std::size_t column, std::string_view what, std::size_t bytes) const
    {
        return error_at(column, "expected " + std::string(what) + " at most " +
                                    std::to_string(max_name_bytes) + " bytes, found " +
                                    std::to_string(bytes) + " bytes");
    }
    // words_[first...] as attributes; `attributes` holds one entry per known key.
    Status attributes(std::size_t first, std::string_view statement,
                      std::span<const std::string_view> keys,
                      std::vector<Attribute> &attributes) const;
    Error unknown(std::string_view kind, const Word &word, const std::string &defined) const
    {
        return error_at(word.column, "unknown " + std::string(kind) + " " +
                                         util::quoted(word.text) + " (defined: " + defined + ")");
    }
    std::string defined_planes() const;
    Result<Index> plane_named(const Attribute &plane, std::string_view statement) const;

    Status statement();
    Status fabric_statement();
    Status plane_statement();
    Status subnet_statement();
    Status switch_statement();
    Status node_statement();
    Status nic_statement();

    std::string_view text_;
    std::string_view origin_;
    std::size_t line_ = 0;
    std::vector<Word> words_;
    Fabric fabric_;
    std::size_t fabric_line_ = 0;
    std::vector<std::size_t> plane_lines_;
    std::vector<std::size_t> switch_lines_;
    std::vector<std::size_t> node_lines_;
    std::vector<std::size_t> nic_lines_;
};

Result<std::string_view> FabricParser::name_at(std::size_t index, std::string_view what) const
{
    if (index >= words_.size()) {
        return error_at(end_column(), "expected " + std::string(what) + ", found end of line");
    }
    if (words_[index].text.size() > max_name_bytes) {
        return too_long(words_[index].column, std::string(what) + " of", words_[index].text.size());
    }
    if (!has_name_chars(words_[index].text)) {
        return error_at(words_[index].column, "expected " + std::string(what) +
                                                  " (letters, digits and \"_-.:/\"), found " +
                                                  found(index));
    }
    return words_[index].text;
}

Status FabricParser::attributes(std::size_t first, std::string_view statement,
                                std::span<const std::string_view> keys,
                                std::vector<Attribute> &attributes) const
{
    attributes.assign(keys.size(), Attribute{});
    for (std::size_t i = first; i < words_.size(); ++i) {
        const Word &word = words_[i];
        const std::size_t equals = word.text.find('=');
        const std::string_view key = word.text.substr(0, equals);
        std::size_t which = keys.size();
        for (std::size_t k = 0; k < keys.size(); ++k) {
            if (keys[k] == key) {
                which = k;
            }
        }
        if (equals == std::string_view::npos || which == keys.size()) {
            std::string list;
            for (std::size_t k = 0; k < keys.size(); ++k) {
                list += (k > 0 ? ", " : "") + std::string(keys[k]);
            }
            return error_at(word.column,
                            "expected an attribute KEY=VALUE of " + std::string(statement) + " (" +
                                list + "), found " +
                                util::quoted(equals == std::string_view::npos ? word.text : key));
        }
        if (attributes[which].present) {
            return error_at(word.column, "expected each attribute at most once, found a second " +
                                             util::quoted(key));
        }
        attributes[which] = Attribute{
            {key, word.column}, {word.text.substr(equals + 1), word.column + equals + 1}, true};
    }
    return success();
}

std::string FabricParser::defined_planes() const
{
    std::string list;
    for (const Plane &plane : fabric_.planes()) {
        list += (list.empty() ? "" : ", ") + plane.name;
    }
    return list.empty() ? "none" : list;
}

Result<Index> FabricParser::plane_named(const Attribute &plane, std::string_view statement) const
{
    if (!plane.present) {
        return error_at(end_column(), "expected plane=NAME for the " + std::string(statement) +
                                          ", found end of line");
    }
    if (plane.value.text.size() > max_name_bytes) {
        return too_long(plane.value.column, "plane=NAME with NAME", plane.value.text.size());
    }
    const auto index = fabric_.find_plane(plane.value.text);
    if (!index) {
        return unknown("plane", plane.value, defined_planes());
    }
    return *index;
}

Status FabricParser::fabric_statement()
{
    if (fabric_line_ != 0) {
        return error_at(words_[0].column,
                        "expected at most one fabric statement, found a second one (the first "
                        "is at line " +
                            std::to_string(fabric_line_) + ")");
    }
    if (!fabric_.planes().empty()) {
        return error_at(words_[0].column,
                        "expected the fabric statement before any plane, found it after plane " +
                            util::quoted(fabric_.planes()[0].name) + " (line " +
                            std::to_string(plane_lines_[0]) + ")");
    }
    auto name = name_at(1, "the fabric's name");
    if (!name) {
        return name.error();
    }
    if (words_.size() > 2) {
        return error_at(words_[2].column,
                        "expected end of line after the fabric's name, found " + found(2));
    }
    fabric_.name = std::string(*name);
    fabric_line_ = line_;
    return success();
}

Status FabricParser::plane_statement()
{
    auto name = name_at(1, "a plane name");
    if (!name) {
        return name.error();
    }
    if (const auto before = fabric_.find_plane(*name)) {
        const Plane &other = fabric_.planes()[*before];
        return error_at(words_[1].column,
                        "expected a new plane name, found " + util::quoted(*name) +
                            (other.name == *name
                                 ? " (defined at line "
                                 : " (the cidr of plane " + util::quoted(other.name) + ", line ") +
                            std::to_string(plane_lines_[*before]) + ")");
    }
    static constexpr std::string_view keys[] = {"type", "cidr", "qos", "shape", "periodic"};
    std::vector<Attribute> attrs;
    if (auto ok = attributes(2, "plane", keys, attrs); !ok) {
        return ok.error();
    }
    Plane plane;
    plane.name = std::string(*name);
    if (attrs[0].present) {
        if (attrs[0].value.text.size() > max_name_bytes) {
            return too_long(attrs[0].value.column, "type=TYPE with TYPE",
                            attrs[0].value.text.size());
        }
        if (!is_word(attrs[0].value.text)) {
            return error_at(attrs[0].value.column,
                            "expected type=TYPE (a word such as ethernet or infiniband), found " +
                                util::quoted(attrs[0].value.text));
        }
        plane.type = std::string(attrs[0].value.text);
    }
    if (attrs[1].present) {
        const auto cidr = parse_cidr(attrs[1].value.text);
        if (!cidr) {
            return error_at(attrs[1].value.column,
                            "expected cidr=A.B.C.D/N (host bits zero), found " +
                                util::quoted(attrs[1].value.text));
        }
        const auto other = fabric_.find_plane(cidr->text());
        if (other && cidr->text() != plane.name) {
            return error_at(attrs[1].value.column,
                            "expected a cidr no other plane has, found " +
                                util::quoted(attrs[1].value.text) + " (plane " +
                                util::quoted(fabric_.planes()[*other].name) + ", line " +
                                std::to_string(plane_lines_[*other]) + ")");
        }
        plane.cidr = *cidr;
    }
    if (attrs[2].present) {
        const auto levels = util::parse_uint(attrs[2].value.text, 1, max_qos_levels);
        if (!levels) {
            return error_at(attrs[2].value.column,
                            "expected qos=LEVELS with LEVELS 1-65535, found " +
                                util::quoted(attrs[2].value.text));
        }
        plane.qos_levels = *levels;
    }
    if (attrs[3].present) {
        const auto shape = parse_list(attrs[3].value.text, 'x', 1, max_shape_size);
        if (!shape) {
            return error_at(attrs[3].value.column,
                            "expected shape=DxDx... (1 to 16 sizes, each 1-1000000), found " +
                                util::quoted(attrs[3].value.text));
        }
        plane.shape = *shape;
        plane.periodic.assign(shape->size(), true);
    }
    if (attrs[4].present) {
        if (plane.shape.empty()) {
            return error_at(attrs[4].key.column,
                            "expected periodic only with shape=DxDx..., found periodic on a plane "
                            "without a shape");
        }
        const std::string_view value = attrs[4].value.text;
        if (value == "yes" || value == "no") {
            plane.periodic.assign(plane.shape.size(), value == "yes");
        } else {
            const auto flags = parse_list(value, ',', 0, 1);
            if (!flags || flags->size() != plane.shape.size()) {
                return error_at(attrs[4].value.column,
                                "expected periodic=yes, no or one 1/0 per dimension of shape " +
                                    util::join_numbers(plane.shape, "x") + " (" +
                                    std::to_string(plane.shape.size()) + "), found " +
                                    util::quoted(value));
            }
            for (std::size_t i = 0; i < flags->size(); ++i) {
                plane.periodic[i] = (*flags)[i] == 1;
            }
        }
    }
    auto added = fabric_.add_plane(std::move(plane));
    if (!added) {
        return error_at(words_[1].column, added.error().message);
    }
    plane_lines_.push_back(line_);
    return success();
}

Status FabricParser::subnet_statement()
{
    if (words_.size() < 2) {
        return error_at(end_column(), "expected a subnet A.B.C.D/N, found end of line");
    }
    const auto cidr = parse_cidr(words_[1].text);
    if (!cidr) {
        return error_at(words_[1].column,
                        "expected a subnet A.B.C.D/N (host bits zero), found " + found(1));
    }
    static constexpr std::string_view keys[] = {"plane"};
    std::vector<Attribute> attrs;
    if (auto ok = attributes(2, "subnet", keys, attrs); !ok) {
        return ok.error();
    }
    auto plane = plane_named(attrs[0], "subnet");
    if (!plane) {
        return plane.error();
    }
    if (auto added = fabric_.add_subnet(*cidr, *plane); !added) {
        return error_at(words_[1].column, added.error().message);
    }
    return success();
}

Status FabricParser::switch_statement()
{
    auto name = name_at(1, "a switch name");
    if (!name) {
        return name.error();
    }
    if (const auto before = fabric_.find_switch(*name)) {
        return error_at(words_[1].column, "expected a new switch name, found " +
                                              util::quoted(*name) + " (defined at line " +
                                              std::to_string(switch_lines_[*before]) + ")");
    }
    static constexpr std::string_view keys[] = {"plane"};
    std::vector<Attribute> attrs;
    if (auto ok = attributes(2, "switch", keys, attrs); !ok) {
        return ok.error();
    }
    auto plane = plane_named(attrs[0], "switch");
    if (!plane) {
        return plane.error();
    }
    if (auto added = fabric_.add_switch(std::string(*name), *plane); !added) {
        return error_at(words_[1].column, added.error().message);
    }
    switch_lines_.push_back(line_);
    return success();
}

Status FabricParser::node_statement()
{
    auto name = name_at(1, "a node name");
    if (!name) {
        return name.error();
    }
    if (const auto before = fabric_.find_node(*name)) {
        return error_at(words_[1].column, "expected a new node name, found " + util::quoted(*name) +
                                              " (defined at line " +
                                              std::to_string(node_lines_[*before]) + ")");
    }
    static constexpr std::string_view keys[] = {"packages", "cores", "ports", "coord"};
    std::vector<Attribute> attrs;
    if (auto ok = attributes(2, "node", keys, attrs); !ok) {
        return ok.error();
    }
    Node node;
    node.name = std::string(*name);
    if (attrs[0].present) {
        const auto packages = util::parse_uint(attrs[0].value.text, 1, max_packages);
        if (!packages) {
            return error_at(attrs[0].value.column, "expected packages=N with N 1-256, found " +
                                                       util::quoted(attrs[0].value.text));
        }
        node.packages = *packages;
    }
    node.cores = node.packages;
    if (attrs[1].present) {
        const auto cores = util::parse_uint(attrs[1].value.text, 1, max_cores);
        if (!cores) {
            return error_at(attrs[1].value.column, "expected cores=N with N 1-1048576, found " +
                                                       util::quoted(attrs[1].value.text));
        }
        if (*cores < node.packages) {
            return error_at(attrs[1].value.column, "expected cores=N with N at least packages (" +
                                                       std::to_string(node.packages) + "), found " +
                                                       util::quoted(attrs[1].value.text));
        }
        node.cores = *cores;
    }
    if (attrs[2].present) {
        auto pools = parse_static_ports(attrs[2].value.text,
                                        std::string(origin_) + ':' + std::to_string(line_),
                                        static_cast<std::uint32_t>(attrs[2].value.column));
        if (!pools) {
            return pools.error();
        }
        node.ports = std::move(*pools);
    }
    if (attrs[3].present) {
        const auto coord = parse_list(attrs[3].value.text, ',', 0, UINT32_MAX);
        if (!coord) {
            return error_at(attrs[3].value.column,
                            "expected coord=C,C,... (1 to 16 whole numbers), found " +
                                util::quoted(attrs[3].value.text));
        }
        node.coord = *coord;
    }
    if (auto added = fabric_.add_node(std::move(node)); !added) {
        return error_at(words_[1].column, added.error().message);
    }
    node_lines_.push_back(line_);
    return success();
}

Status FabricParser::nic_statement()
{
    auto node_name = name_at(1, "a node name");
    if (!node_name) {
        return node_name.error();
    }
    const auto node = fabric_.find_node(*node_name);
    if (!node) {
        std::string list;
        const auto nodes = fabric_.nodes();
        for (std::size_t i = 0; i < nodes.size() && i < 8; ++i) {
            list += (i > 0 ? ", " : "") + nodes[i].name;
        }
        if (nodes.size() > 8) {
            list += ", ... (" + std::to_string(nodes.size()) + " nodes)";
        }
        return unknown("node", words_[1], list.empty() ? "none" : list);
    }
    const Node &host = fabric_.nodes()[*node];
    auto name = name_at(2, "a NIC name");
    if (!name) {
        return name.error();
    }
    if (const auto before = fabric_.find_nic(*node, *name)) {
        return error_at(words_[2].column, "expected a new NIC name on node " +
                                              util::quoted(host.name) + ", found " +
                                              util::quoted(*name) + " (defined at line " +
                                              std::to_string(nic_lines_[*before]) + ")");
    }
    static constexpr std::string_view keys[] = {"plane", "address", "switch",
                                                "speed", "package", "coord"};
    std::vector<Attribute> attrs;
    if (auto ok = attributes(3, "nic", keys, attrs); !ok) {
        return ok.error();
    }
    auto plane = plane_named(attrs[0], "nic");
    if (!plane) {
        return plane.error();
    }
    Nic nic;
    nic.name = std::string(*name);
    nic.node = *node;
    nic.plane = *plane;
    if (attrs[1].present) {
        nic.address = parse_ipv4(attrs[1].value.text);
        if (!nic.address) {
            return error_at(attrs[1].value.column,
                            "expected address=A.B.C.D, found " + util::quoted(attrs[1].value.text));
        }
    }
    if (attrs[2].present) {
        if (attrs[2].value.text.size() > max_name_bytes) {
            return too_long(attrs[2].value.column, "switch=NAME with NAME",
                            attrs[2].value.text.size());
        }
        const auto sw = fabric_.find_switch(attrs[2].value.text);
        if (!sw) {
            std::string list;
            for (const Index s : fabric_.planes()[*plane].switches) {
                list += (list.empty() ? "" : ", ") + fabric_.switches()[s].name;
            }
            return error_at(attrs[2].value.column,
                            "unknown switch " + util::quoted(attrs[2].value.text) + " on plane " +
                                util::quoted(fabric_.planes()[*plane].name) +
                                " (defined: " + (list.empty() ? "none" : list) + ")");
        }
        nic.sw = *sw;
    }
    if (attrs[3].present) {
        const auto rate = parse_rate_mbps(attrs[3].value.text);
        if (!rate || !(*rate >= 0.5) || *rate > max_speed_mbps) {
            return error_at(attrs[3].value.column,
                            "expected speed=RATE of 1 Mbit/s or more (such as 10G, 25Gb/s or "
                            "100000 = Mbit/s), found " +
                                util::quoted(attrs[3].value.text));
        }
        nic.speed_mbps = static_cast<std::uint64_t>(std::llround(*rate));
    }
    if (attrs[4].present) {
        const auto package = util::parse_uint(attrs[4].value.text, 0, host.packages - 1);
        if (!package) {
            return error_at(attrs[4].value.column,
                            "expected package=N with N 0-" + std::to_string(host.packages - 1) +
                                " (the packages of node " + util::quoted(host.name) + "), found " +
                                util::quoted(attrs[4].value.text));
        }
        nic.package = static_cast<std::int32_t>(*package);
    }
    if (attrs[5].present) {
        const auto coord = parse_list(attrs[5].value.text, ',', 0, UINT32_MAX);
        if (!coord) {
            return error_at(attrs[5].value.column,
                            "expected coord=C,C,... (1 to 16 whole numbers), found " +
                                util::quoted(attrs[5].value.text));
        }
        nic.coord = *coord;
    }
    auto added = fabric_.add_nic(std::move(nic));
    if (!added) {
        // Place the message at the value it is about.
        const std::string &message = added.error().message;
        std::size_t column = words_[2].column;
        if (util::starts_with(message, "expected an address")) {
            column = attrs[1].value.column;
        } else if (util::starts_with(message, "expected a switch")) {
            column = attrs[2].value.column;
        } else if (util::starts_with(message, "expected a coordinate")) {
            column = attrs[5].present ? attrs[5].value.column : attrs[0].value.column;
        }
        return error_at(column, message);
    }
    nic_lines_.push_back(line_);
    return success();
}

Status FabricParser::statement()
{
    const std::string_view keyword = words_[0].text;
    if (keyword == "fabric") {
        return fabric_statement();
    }
    if (keyword == "plane") {
        return plane_statement();
    }
    if (keyword == "subnet") {
        return subnet_statement();
    }
    if (keyword == "switch") {
        return switch_statement();
    }
    if (keyword == "node") {
        return node_statement();
    }
    if (keyword == "nic") {
        return nic_statement();
    }
    return error_at(words_[0].column,
                    "expected a statement (fabric, plane, subnet, switch, node, nic), found " +
                        found(0));
}

Result<Fabric> FabricParser::parse()
{
    std::size_t start = 0;
    while (start < text_.size()) {
        std::size_t end = text_.find('\n', start);
        if (end == std::string_view::npos) {
            end = text_.size();
        }
        std::string_view line = text_.substr(start, end - start);
        ++line_;
        if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) {
            line = line.substr(0, hash);
        }
        words_.clear();
        std::size_t i = 0;
        while (i < line.size()) {
            while (i < line.size() && is_blank(line[i])) {
                ++i;
            }
            const std::size_t word_start = i;
            while (i < line.size() && !is_blank(line[i])) {
                ++i;
            }
            if (i > word_start) {
                words_.push_back({line.substr(word_start, i - word_start), word_start + 1});
            }
        }
        if (!words_.empty()) {
            if (auto ok = statement(); !ok) {
                return ok.error();
            }
        }
        start = end + 1;
    }
    return std::move(fabric_);
}

// Speeds in the largest unit that keeps them whole.
std::string speed_text(std::uint64_t mbps)
{
    if (mbps % 1000000 == 0) {
        return std::to_string(mbps / 1000000) + "T";
    }
    if (mbps % 1000 == 0) {
        return std::to_string(mbps / 1000) + "G";
    }
    return std::to_string(mbps);
}

} // namespace

bool is_fabric_name(std::string_view text)
{
    return text.size() <= max_name_bytes && has_name_chars(text);
}

Result<Fabric> parse_fabric(std::string_view text, std::string_view origin)
{
    return FabricParser(util::skip_utf8_bom(text), origin).parse();
}

Result<Fabric> read_fabric_file(const std::string &path)
{
    auto text = util::read_file(path, util::kFabricFileLimit, "fabric file");
    if (!text) {
        return make_error(MERIDIAN_ERR_IO,
                          "cannot read the fabric file " + path + ": " + text.error().message);
    }
    return parse_fabric(*text, path);
}

std::string format_fabric(const Fabric &fabric)
{
    std::string text = "fabric " + fabric.name + "\n";
    for (const Plane &plane : fabric.planes()) {
        text += "plane " + plane.name + " type=" + plane.type;
        if (plane.cidr) {
            text += " cidr=" + plane.cidr->text();
        }
        if (plane.qos_levels != 1) {
            text += " qos=" + std::to_string(plane.qos_levels);
        }
        if (!plane.shape.empty()) {
            text += " shape=" + util::join_numbers(plane.shape, "x");
            bool all = true;
            bool none = true;
            for (const bool wraps : plane.periodic) {
                all = all && wraps;
                none = none && !wraps;
            }
            if (none) {
                text += " periodic=no";
            } else if (!all) {
                text += " periodic=";
                for (std::size_t i = 0; i < plane.periodic.size(); ++i) {
                    text += (i > 0 ? "," : "");
                    text += plane.periodic[i] ? '1' : '0';
                }
            }
        }
        text += '\n';
    }
    for (const Subnet &subnet : fabric.subnets()) {
        text +=
            "subnet " + subnet.cidr.text() + " plane=" + fabric.planes()[subnet.plane].name + '\n';
    }
    for (const Switch &sw : fabric.switches()) {
        text += "switch " + sw.name + " plane=" + fabric.planes()[sw.plane].name + '\n';
    }
    for (const Node &node : fabric.nodes()) {
        text += "node " + node.name + " packages=" + std::to_string(node.packages) +
                " cores=" + std::to_string(node.cores);
        if (!node.ports.empty()) {
            text += " ports=" + format_static_ports(node.ports);
        }
        if (!node.coord.empty()) {
            text += " coord=" + util::join_numbers(node.coord, ",");
        }
        text += '\n';
    }
    // NICs after every node, in their order of definition, so that every
    // index reads back the same.
    for (const Nic &nic : fabric.nics()) {
        text += "nic " + fabric.nodes()[nic.node].name + ' ' + nic.name +
                " plane=" + fabric.planes()[nic.plane].name;
        if (nic.address) {
            text += " address=" + format_ipv4(*nic.address);
        }
        if (nic.sw != no_index) {
            text += " switch=" + fabric.switches()[nic.sw].name;
        }
        if (nic.speed_mbps != 0) {
            text += " speed=" + speed_text(nic.speed_mbps);
        }
        if (nic.package >= 0) {
            text += " package=" + std::to_string(nic.package);
        }
        if (!nic.coord.empty()) {
            text += " coord=" + util::join_numbers(nic.coord, ",");
        }
        text += '\n';
    }
    return text;
}

} // namespace meridian::fabric
