// SPDX-License-Identifier: BSD-3-Clause
// Network allocation requests in their text form, and back.
#include <meridian/mca/pnet/base/request.hpp>

#include <charconv>
#include <cmath>
#include <limits>

#include <meridian/opal/class/fabric.hpp>
#include <meridian/opal/util/strings.hpp>

namespace meridian::pnet
{

namespace
{

constexpr std::string_view keys_text = "id, type, plane, endpts, seckey, qos, bw, required";
constexpr std::uint32_t default_seckey_bytes = 16;

bool is_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
}
bool is_word(std::string_view text, std::string_view extra = {})
{
    if (text.empty()) {
        return false;
    }
    for (const char c : text) {
        if (!is_word_char(c) && extra.find(c) == std::string_view::npos) {
            return false;
        }
    }
    return true;
}

using util::Piece;
using util::split_pieces;

struct Parsed {
    Request request;
    std::size_t id_offset = 0; // where the id's value starts
};

class RequestParser
{
  public:
    RequestParser(std::string_view text, std::string_view where, std::uint32_t column)
        : text_(text), where_(where), column_(column)
    {
    }

    Error error_at(std::size_t offset, const std::string &message) const
    {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          std::string(where_) + ':' +
                              std::to_string(static_cast<std::uint64_t>(column_) + offset) + ": " +
                              message);
    }

    // One request in text_[piece].
    Result<Parsed> request(Piece piece) const;

  private:
    std::string_view text_;
    std::string_view where_;
    std::uint32_t column_;
};

Result<Parsed> RequestParser::request(Piece piece) const
{
    Parsed parsed;
    Request &request = parsed.request;
    bool has_id = false;
    bool all_required = false;
    std::vector<std::string_view> seen;
    for (const Piece &raw : split_pieces(piece, ',')) {
        const Piece item = util::trim(raw);
        const std::size_t equals = item.text.find('=');
        const bool has_value = equals != std::string_view::npos;
        Piece key =
            util::trim({item.text.substr(0, has_value ? equals : item.text.size()), item.offset});
        Piece value = has_value
                          ? util::trim({item.text.substr(equals + 1), item.offset + equals + 1})
                          : Piece{{}, item.offset + item.text.size()};
        // "!" after a value (or after a key without one) requires just that value.
        bool bang = false;
        if (has_value && !value.text.empty() && value.text.back() == '!') {
            bang = true;
            value = util::trim({value.text.substr(0, value.text.size() - 1), value.offset});
        } else if (!has_value && !key.text.empty() && key.text.back() == '!') {
            bang = true;
            key = util::trim({key.text.substr(0, key.text.size() - 1), key.offset});
        }
        static constexpr std::string_view known[] = {"id",     "type", "plane", "endpts",
                                                     "seckey", "qos",  "bw",    "required"};
        bool is_known = false;
        for (const std::string_view name : known) {
            is_known = is_known || key.text == name;
        }
        if (!is_known) {
            const Piece shown = util::trim(
                {item.text.substr(0, has_value ? equals : item.text.size()), item.offset});
            return error_at(shown.offset, "expected a request key (" + std::string(keys_text) +
                                              "), found " + util::found(text_, shown));
        }
        for (const std::string_view before : seen) {
            if (before == key.text) {
                return error_at(key.offset, util::quoted(key.text) + " is given twice");
            }
        }
        seen.push_back(key.text);
        // What to show when the value is wrong: the value, or the item when it has none.
        const Piece shown = has_value ? value : item;

        if (key.text == "id") {
            if (bang || !has_value || !is_request_id(value.text)) {
                const Piece bad =
                    bang && has_value
                        ? util::trim({item.text.substr(equals + 1), item.offset + equals + 1})
                        : shown;
                return error_at(bad.offset, "expected id=NAME (" + std::string(request_id_chars) +
                                                "), found " + util::found(text_, bad));
            }
            request.id = std::string(value.text);
            parsed.id_offset = value.offset;
            has_id = true;
        } else if (key.text == "type") {
            if (!has_value || !is_word(value.text)) {
                return error_at(shown.offset,
                                "expected type=TYPE (a transport: tcp, udp, ucx, ...), found " +
                                    util::found(text_, shown));
            }
            request.type = Wanted<std::string>{std::string(value.text), bang};
        } else if (key.text == "plane") {
            if (!has_value || !is_word(value.text, ":/")) {
                return error_at(shown.offset, "expected plane=NAME or plane=CIDR, found " +
                                                  util::found(text_, shown));
            }
            request.plane = Wanted<std::string>{std::string(value.text), bang};
        } else if (key.text == "endpts") {
            const auto number = has_value ? util::parse_uint(value.text, 1, 65535) : std::nullopt;
            if (!number) {
                return error_at(shown.offset, "expected endpts=N with N 1-65535, found " +
                                                  util::found(text_, shown));
            }
            request.endpts = Wanted<std::uint32_t>{*number, bang};
        } else if (key.text == "seckey") {
            const auto number = has_value ? util::parse_uint(value.text, 1, 1024)
                                          : std::optional{default_seckey_bytes};
            if (!number) {
                return error_at(shown.offset,
                                "expected seckey or seckey=BYTES with BYTES 1-1024, found " +
                                    util::found(text_, shown));
            }
            request.seckey_bytes = Wanted<std::uint32_t>{*number, bang};
        } else if (key.text == "qos") {
            const auto number = has_value ? util::parse_uint(value.text, 0, 65535) : std::nullopt;
            if (!number) {
                return error_at(shown.offset, "expected qos=N with N 0-65535, found " +
                                                  util::found(text_, shown));
            }
            request.qos = Wanted<std::uint32_t>{*number, bang};
        } else if (key.text == "bw") {
            const auto rate =
                has_value ? fabric::parse_rate_mbps(value.text) : std::optional<double>{};
            if (!rate || !(*rate > 0)) {
                return error_at(shown.offset, "expected bw=RATE above 0 (such as 10G, 25Gb/s or "
                                              "1000 = Mbit/s), found " +
                                                  util::found(text_, shown));
            }
            request.bandwidth_mbps = Wanted<double>{*rate, bang};
        } else { // required
            if (has_value || bang) {
                return error_at(item.offset, "expected \"required\" without a value, found " +
                                                 util::found(text_, item));
            }
            all_required = true;
        }
    }
    if (!has_id) {
        return error_at(util::trim(piece).offset, "the request has no id (id=NAME is required)");
    }
    if (all_required) {
        auto require = [](auto &wanted) {
            if (wanted) {
                wanted->required = true;
            }
        };
        require(request.type);
        require(request.plane);
        require(request.endpts);
        require(request.seckey_bytes);
        require(request.qos);
        require(request.bandwidth_mbps);
    }
    return parsed;
}

// The shortest text that reads back to exactly this double.
std::string exact_number(double value)
{
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

} // namespace

bool is_request_id(std::string_view text)
{
    return is_word(text, "@");
}

Result<Request> parse_request(std::string_view text, std::string_view where, std::uint32_t column)
{
    const RequestParser parser(text, where, column);
    auto parsed = parser.request({text, 0});
    if (!parsed) {
        return parsed.error();
    }
    return std::move(parsed->request);
}

Result<std::vector<Request>> parse_requests(std::string_view text, std::string_view where,
                                            std::uint32_t column)
{
    std::vector<Request> requests;
    if (util::trim({text, 0}).text.empty()) {
        return requests;
    }
    const RequestParser parser(text, where, column);
    for (const Piece &piece : split_pieces({text, 0}, ';')) {
        auto parsed = parser.request(piece);
        if (!parsed) {
            return parsed.error();
        }
        for (const Request &before : requests) {
            if (before.id == parsed->request.id) {
                return parser.error_at(parsed->id_offset,
                                       "request id " + util::quoted(before.id) + " is used twice");
            }
        }
        requests.push_back(std::move(parsed->request));
    }
    return requests;
}

std::string format_request(const Request &request)
{
    std::string text = "id=" + request.id;
    // ",required" when every value given is required, else a "!" per value.
    bool any = false;
    bool all = true;
    auto look = [&](const auto &wanted) {
        if (wanted) {
            any = true;
            all = all && wanted->required;
        }
    };
    look(request.type);
    look(request.plane);
    look(request.endpts);
    look(request.seckey_bytes);
    look(request.qos);
    look(request.bandwidth_mbps);
    const bool one_flag = any && all;
    auto add = [&](std::string_view key, const auto &wanted, const std::string &value) {
        if (!wanted) {
            return;
        }
        text += ',';
        text += key;
        text += '=';
        text += value;
        if (wanted->required && !one_flag) {
            text += '!';
        }
    };
    if (request.type) {
        add("type", request.type, request.type->value);
    }
    if (request.plane) {
        add("plane", request.plane, request.plane->value);
    }
    if (request.endpts) {
        add("endpts", request.endpts, std::to_string(request.endpts->value));
    }
    if (request.seckey_bytes) {
        add("seckey", request.seckey_bytes, std::to_string(request.seckey_bytes->value));
    }
    if (request.qos) {
        add("qos", request.qos, std::to_string(request.qos->value));
    }
    if (request.bandwidth_mbps) {
        add("bw", request.bandwidth_mbps, exact_number(request.bandwidth_mbps->value));
    }
    if (one_flag) {
        text += ",required";
    }
    return text;
}

} // namespace meridian::pnet
