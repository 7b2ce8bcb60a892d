// SPDX-License-Identifier: BSD-3-Clause
#include "components/carto_file/carto_parser.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <utility>

#include <meridian/mca/carto/base/base.h>
#include <meridian/mca/carto/base/base.hpp>
#include <meridian/opal/util/read_file.hpp>
#include <meridian/opal/util/strings.hpp>

namespace meridian::carto
{

namespace
{

constexpr std::array<std::string_view, 3> reserved_words{"EDGE", "BRANCH", "BRANCH_BI_DIR"};
constexpr std::string_view open_mpi_types_text =
    "Memory, slot, Socket, Infiniband, Ethernet or Other";

// Plain ASCII tests: names are ASCII whatever the locale says.
bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}
bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}
bool is_letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_name_char(char c)
{
    return is_letter(c) || is_digit(c) || c == '_' || c == '-' || c == '.';
}
char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// The base's naming rule, in the C type the description keeps (the two
// enums share their values).
mca_carto_vertex_type_t type_from_name(std::string_view name)
{
    return static_cast<mca_carto_vertex_type_t>(vertex_type_from_name(name));
}

bool all_digits(std::string_view text)
{
    for (const char c : text) {
        if (!is_digit(c)) {
            return false;
        }
    }
    return !text.empty();
}

bool same_ignoring_case(std::string_view a, std::string_view b)
{
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (lower(a[i]) != lower(b[i])) {
            return false;
        }
    }
    return true;
}

bool is_reserved(std::string_view word)
{
    for (const auto reserved : reserved_words) {
        if (word == reserved) {
            return true;
        }
    }
    return false;
}

bool valid_name(std::string_view name)
{
    if (name.empty() || is_reserved(name)) {
        return false;
    }
    for (const char c : name) {
        if (!is_name_char(c)) {
            return false;
        }
    }
    return true;
}

// Input as a message shows it: quoted, every byte outside printable ASCII
// escaped (the input may be any bytes), long pieces cut short.
std::string shown(std::string_view text)
{
    constexpr std::size_t limit = 32;
    std::string out = "\"";
    for (const char c : text.substr(0, limit)) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (byte < 0x20 || byte >= 0x7f) {
            static constexpr char hex[] = "0123456789abcdef";
            out += "\\x";
            out += hex[byte >> 4];
            out += hex[byte & 0xf];
        } else {
            out += c;
        }
    }
    out += '"';
    if (text.size() > limit) {
        out += "...";
    }
    return out;
}

std::string position(std::size_t line, std::size_t column)
{
    return std::to_string(line) + ":" + std::to_string(column);
}

// An edge as the ordered pair of its vertices' names (views into text that
// outlives the key), to find one given twice.
using EdgeKey = std::pair<std::string_view, std::string_view>;
struct EdgeKeyHash {
    std::size_t operator()(const EdgeKey &key) const
    {
        const std::size_t from = std::hash<std::string_view>{}(key.first);
        return from ^ (std::hash<std::string_view>{}(key.second) + 0x9e3779b97f4a7c15u +
                       (from << 6) + (from >> 2));
    }
};

// ---------------------------------------------------------------- scanner

enum class TokenKind { word, colon, comma, line_end, end, unterminated_comment };

struct Token {
    TokenKind kind = TokenKind::end;
    std::string_view text; // word tokens only
    std::size_t line = 1;
    std::size_t column = 1;
};

std::string found(const Token &token)
{
    switch (token.kind) {
    case TokenKind::word:
        return shown(token.text);
    case TokenKind::colon:
        return "':'";
    case TokenKind::comma:
        return "','";
    case TokenKind::line_end:
    case TokenKind::end:
        return "end of line";
    case TokenKind::unterminated_comment:
        return "an unterminated comment";
    }
    return "?";
}

// Words (runs of anything but blanks, line ends, ':', ',' and comments),
// ':' and ',', one line_end per line, skipping '#' comments -- and '//' and
// '/* */' ones in Open MPI's format.  Words are checked by the parser, which
// knows whether it wants a name, a type or a weight.
class Scanner
{
  public:
    Scanner(std::string_view text, bool c_comments) : text_(text), c_comments_(c_comments) {}

    Token next()
    {
        while (pos_ < text_.size()) {
            const char c = text_[pos_];
            if (is_blank(c)) {
                ++pos_;
            } else if (c == '\n') {
                const Token token = line_end();
                new_line(++pos_);
                return token;
            } else if (c == '#' || (opens_comment(pos_) && text_[pos_ + 1] == '/')) {
                saw_c_comment_ = saw_c_comment_ || c == '/';
                pos_ = std::min(text_.find('\n', pos_), text_.size());
            } else if (opens_comment(pos_)) {
                saw_c_comment_ = true;
                const std::size_t close = text_.find("*/", pos_ + 2);
                if (close == std::string_view::npos) {
                    const Token token = make(TokenKind::unterminated_comment, pos_);
                    pos_ = text_.size();
                    return token;
                }
                // A comment over several lines ends the line it starts on.
                const Token token = line_end();
                bool crossed = false;
                for (std::size_t i = pos_; i < close; ++i) {
                    if (text_[i] == '\n') {
                        crossed = true;
                        new_line(i + 1);
                    }
                }
                pos_ = close + 2;
                if (crossed) {
                    return token;
                }
            } else if (c == ':' || c == ',') {
                content_end_ = ++pos_;
                return make(c == ':' ? TokenKind::colon : TokenKind::comma, pos_ - 1);
            } else {
                const std::size_t start = pos_;
                while (pos_ < text_.size() && !ends_word(pos_)) {
                    ++pos_;
                }
                content_end_ = pos_;
                return make(TokenKind::word, start, text_.substr(start, pos_ - start));
            }
        }
        Token token = line_end();
        token.kind = TokenKind::end;
        return token;
    }

    // Whether a '//' or '/*' comment was skipped so far.
    bool saw_c_comment() const { return saw_c_comment_; }

  private:
    Token make(TokenKind kind, std::size_t at, std::string_view word = {}) const
    {
        return Token{kind, word, line_, at - line_start_ + 1};
    }

    // A line end is placed just after the last token of its line: that is
    // where whatever is missing was expected.
    Token line_end() const
    {
        return Token{TokenKind::line_end, {}, line_, content_end_ - line_start_ + 1};
    }

    void new_line(std::size_t start)
    {
        ++line_;
        line_start_ = start;
        content_end_ = start;
    }

    bool opens_comment(std::size_t at) const
    {
        return c_comments_ && text_[at] == '/' && at + 1 < text_.size() &&
               (text_[at + 1] == '/' || text_[at + 1] == '*');
    }

    bool ends_word(std::size_t at) const
    {
        const char c = text_[at];
        return is_blank(c) || c == '\n' || c == ':' || c == ',' || c == '#' || opens_comment(at);
    }

    std::string_view text_;
    bool c_comments_;
    bool saw_c_comment_ = false;
    std::size_t pos_ = 0;
    std::size_t line_ = 1;
    std::size_t line_start_ = 0;
    std::size_t content_end_ = 0;
};

bool ends_line(const Token &token)
{
    return token.kind == TokenKind::line_end || token.kind == TokenKind::end;
}

// ---------------------------------------------------------------- parser

class Parser
{
  public:
    Parser(std::string_view path, std::string_view text, CartoFormat format)
        : path_(path), text_(text), scanner_(text, format == CartoFormat::open_mpi)
    {
        result_.format = format;
    }

    Result<CartoDescription> run()
    {
        const Status parsed =
            result_.format == CartoFormat::adjacency ? parse_adjacency() : parse_open_mpi();
        if (!parsed) {
            return parsed.error();
        }
        if (result_.vertices.empty() && uses_.empty()) {
            return error_at(1, 1,
                            std::string("expected at least one vertex, found ") +
                                (util::trim(text_).empty()
                                     ? "an empty file"
                                     : "no vertices (only blank lines and comments)"));
        }
        if (const Status resolved = resolve(); !resolved) {
            return resolved.error();
        }
        return std::move(result_);
    }

  private:
    // A name used where a vertex is meant, checked once the whole file has
    // declared its vertices.
    struct Use {
        std::string_view name;
        std::size_t line;
        std::size_t column;
    };

    Error error_at(std::size_t line, std::size_t column, const std::string &what) const
    {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          std::string(path_) + ":" + position(line, column) + ": " + what);
    }
    Error error_at(const Token &token, const std::string &what) const
    {
        return error_at(token.line, token.column, what);
    }

    Result<Token> next()
    {
        const Token token = scanner_.next();
        if (token.kind == TokenKind::unterminated_comment) {
            return error_at(token,
                            "expected '*/' to close the comment opened here, found end of file");
        }
        return token;
    }

    Status check_name(const Token &token) const
    {
        if (token.kind != TokenKind::word) {
            return error_at(token, "expected a vertex name, found " + found(token));
        }
        if (token.text.size() > max_vertex_name_bytes) {
            return error_at(token, "expected a vertex name of at most " +
                                       std::to_string(max_vertex_name_bytes) + " bytes, found " +
                                       std::to_string(token.text.size()) + " bytes");
        }
        if (is_reserved(token.text)) {
            return error_at(token, "expected a vertex name (EDGE, BRANCH and BRANCH_BI_DIR are "
                                   "reserved), found " +
                                       shown(token.text));
        }
        if (!valid_name(token.text)) {
            return error_at(token,
                            "expected a vertex name (letters, digits, '_', '-', '.'), found " +
                                shown(token.text));
        }
        return success();
    }

    Status declare(const Token &name, mca_carto_vertex_type_t type)
    {
        if (const auto it = declared_.find(name.text); it != declared_.end()) {
            const CartoVertex &first = result_.vertices[it->second];
            return error_at(name, "expected each vertex declared once, found " + shown(name.text) +
                                      " again (first declared at " +
                                      position(first.line, first.column) + ")");
        }
        declared_.emplace(name.text, result_.vertices.size());
        result_.vertices.push_back(
            CartoVertex{std::string(name.text), type, name.line, name.column});
        return success();
    }

    Result<std::uint64_t> parse_weight(const Token &token) const
    {
        const std::string_view text = token.text;
        const bool negative = !text.empty() && text.front() == '-';
        const std::string_view digits = negative ? text.substr(1) : text;
        if (!all_digits(digits)) {
            return error_at(token, "expected a weight (a whole number), found " + shown(text));
        }
        if (negative) {
            return error_at(token, "expected a weight of 0 or more, found " + shown(text));
        }
        std::uint64_t value = 0;
        constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
        for (const char c : digits) {
            const auto digit = static_cast<std::uint64_t>(c - '0');
            if (value > (max - digit) / 10) {
                return error_at(token, "expected a weight of at most " + std::to_string(max) +
                                           ", found " + shown(text));
            }
            value = value * 10 + digit;
        }
        return value;
    }

    Status add_edge(std::string_view from, const Token &to, std::uint64_t weight)
    {
        const EdgeKey key{from, to.text};
        if (const auto it = edge_at_.find(key); it != edge_at_.end()) {
            const CartoEdge &first = result_.edges[it->second];
            return error_at(to, "expected one edge from " + std::string(from) + " to " +
                                    std::string(to.text) +
                                    ", found a second one (the first is at " +
                                    position(first.line, first.column) + ")");
        }
        edge_at_.emplace(key, result_.edges.size());
        result_.edges.push_back(
            CartoEdge{std::string(from), std::string(to.text), weight, to.line, to.column});
        return success();
    }

    // Entries NAME:WEIGHT from `token` to the end of the line.
    Status parse_entries(Token token, std::string_view from, bool both_ways)
    {
        while (!ends_line(token)) {
            if (token.kind != TokenKind::word) {
                return error_at(token, "expected an entry NAME:WEIGHT, found " + found(token));
            }
            const Token to = token;
            if (const Status named = check_name(to); !named) {
                return named;
            }
            const Result<Token> colon = next();
            if (!colon) {
                return colon.error();
            }
            if (colon->kind != TokenKind::colon) {
                return error_at(*colon, "expected ':' and a weight after " + std::string(to.text) +
                                            ", found " + found(*colon));
            }
            const Result<Token> weight_token = next();
            if (!weight_token) {
                return weight_token.error();
            }
            if (weight_token->kind != TokenKind::word) {
                return error_at(*weight_token, "expected a weight after " + std::string(to.text) +
                                                   ":, found " + found(*weight_token));
            }
            const Result<std::uint64_t> weight = parse_weight(*weight_token);
            if (!weight) {
                return weight.error();
            }
            uses_.push_back(Use{to.text, to.line, to.column});
            if (const Status added = add_edge(from, to, *weight); !added) {
                return added;
            }
            // A self-loop both ways is one edge.
            if (both_ways && from != to.text) {
                const Token back{TokenKind::word, from, to.line, to.column};
                if (const Status added = add_edge(to.text, back, *weight); !added) {
                    return added;
                }
            }

            Result<Token> after = next();
            if (!after) {
                return after.error();
            }
            if (after->kind == TokenKind::comma) {
                after = next();
                if (!after) {
                    return after.error();
                }
                if (after->kind == TokenKind::comma) {
                    return error_at(*after, "expected an entry NAME:WEIGHT after ',', found ','");
                }
            } else if (after->kind == TokenKind::colon) {
                return error_at(*after, "expected ',', a blank or the end of the line after " +
                                            std::string(to.text) + ":" +
                                            std::string(weight_token->text) + ", found ':'");
            }
            token = *after;
        }
        return success();
    }

    Status parse_adjacency()
    {
        // The vertex whose list an indented line continues.
        std::optional<std::string_view> current;
        while (true) {
            const Result<Token> first = next();
            if (!first) {
                return first.error();
            }
            if (first->kind == TokenKind::end) {
                return success();
            }
            if (first->kind == TokenKind::line_end) {
                continue;
            }
            if (first->column != 1) {
                if (!current) {
                    return error_at(*first, "expected a vertex name in column 1 (an indented line "
                                            "continues the list of the vertex above it, and there "
                                            "is none), found " +
                                                found(*first));
                }
                if (const Status entries = parse_entries(*first, *current, false); !entries) {
                    return entries;
                }
                continue;
            }
            if (first->kind != TokenKind::word) {
                return error_at(*first, "expected a vertex name at the start of the line, found " +
                                            found(*first));
            }
            if (const Status named = check_name(*first); !named) {
                return named;
            }
            const Result<Token> after = next();
            if (!after) {
                return after.error();
            }
            if (after->kind == TokenKind::colon) {
                return error_at(*first, "expected a vertex name in column 1 (indent the lines "
                                        "that continue a list), found the entry " +
                                            shown(std::string(first->text) + ":"));
            }
            if (const Status declared = declare(*first, type_from_name(first->text)); !declared) {
                return declared;
            }
            current = first->text;
            if (const Status entries = parse_entries(*after, *current, false); !entries) {
                return entries;
            }
        }
    }

    Status parse_edge_statement()
    {
        const Result<Token> type_word = next();
        if (!type_word) {
            return type_word.error();
        }
        if (type_word->kind != TokenKind::word) {
            return error_at(*type_word, "expected a vertex type after EDGE (" +
                                            std::string(open_mpi_types_text) + "), found " +
                                            found(*type_word));
        }
        const auto type = open_mpi_vertex_type(type_word->text);
        if (!type) {
            return error_at(*type_word, "expected a vertex type (" +
                                            std::string(open_mpi_types_text) + "), found " +
                                            shown(type_word->text));
        }
        const Result<Token> name = next();
        if (!name) {
            return name.error();
        }
        if (name->kind != TokenKind::word) {
            return error_at(*name, "expected a vertex name after EDGE " +
                                       std::string(type_word->text) + ", found " + found(*name));
        }
        if (const Status named = check_name(*name); !named) {
            return named;
        }
        if (const Status declared = declare(*name, *type); !declared) {
            return declared;
        }
        const Result<Token> end = next();
        if (!end) {
            return end.error();
        }
        if (!ends_line(*end)) {
            return error_at(*end, "expected the end of the line after EDGE " +
                                      std::string(type_word->text) + " " + std::string(name->text) +
                                      ", found " + found(*end));
        }
        return success();
    }

    Status parse_branch_statement(std::string_view keyword, bool both_ways)
    {
        const Result<Token> from = next();
        if (!from) {
            return from.error();
        }
        if (from->kind != TokenKind::word) {
            return error_at(*from, "expected a vertex name after " + std::string(keyword) +
                                       ", found " + found(*from));
        }
        if (const Status named = check_name(*from); !named) {
            return named;
        }
        uses_.push_back(Use{from->text, from->line, from->column});
        const Result<Token> first = next();
        if (!first) {
            return first.error();
        }
        if (first->kind != TokenKind::word) {
            return error_at(*first, "expected an entry NAME:WEIGHT after " + std::string(keyword) +
                                        " " + std::string(from->text) + ", found " + found(*first));
        }
        return parse_entries(*first, from->text, both_ways);
    }

    Status parse_open_mpi()
    {
        while (true) {
            const Result<Token> keyword = next();
            if (!keyword) {
                return keyword.error();
            }
            if (keyword->kind == TokenKind::end) {
                return success();
            }
            if (keyword->kind == TokenKind::line_end) {
                continue;
            }
            Status statement = success();
            if (keyword->kind == TokenKind::word && keyword->text == "EDGE") {
                statement = parse_edge_statement();
            } else if (keyword->kind == TokenKind::word && keyword->text == "BRANCH") {
                statement = parse_branch_statement(keyword->text, false);
            } else if (keyword->kind == TokenKind::word && keyword->text == "BRANCH_BI_DIR") {
                statement = parse_branch_statement(keyword->text, true);
            } else {
                statement = error_at(*keyword, "expected EDGE, BRANCH or BRANCH_BI_DIR, found " +
                                                   found(*keyword));
            }
            if (!statement) {
                return statement;
            }
        }
    }

    Status resolve() const
    {
        for (const Use &use : uses_) {
            if (declared_.contains(use.name)) {
                continue;
            }
            return error_at(use.line, use.column,
                            "expected a declared vertex, found " + shown(use.name) +
                                hint(use.name));
        }
        return success();
    }

    // Why a name is unknown, with the declared name it may be a misspelling of.
    std::string hint(std::string_view name) const
    {
        if (result_.vertices.empty()) {
            return " (no vertex is declared in this file)";
        }
        // Suggestions cost length x length per candidate: only for sensible
        // names, against candidates of a similar length.
        constexpr std::size_t longest = 64;
        if (name.size() <= longest) {
            const std::size_t slack = std::max<std::size_t>(2, name.size() / 3);
            std::vector<std::string> candidates;
            for (const CartoVertex &vertex : result_.vertices) {
                const std::size_t size = vertex.name.size();
                if (size <= name.size() + slack && size + slack >= name.size()) {
                    candidates.push_back(vertex.name);
                }
            }
            if (const auto match = util::closest_match(name, candidates)) {
                return " (no line declares it; did you mean " + *match + "?)";
            }
        }
        return " (no line declares it)";
    }

    std::string_view path_;
    std::string_view text_;
    Scanner scanner_;
    CartoDescription result_;
    std::unordered_map<std::string_view, std::size_t> declared_;    // name -> index in vertices
    std::unordered_map<EdgeKey, std::size_t, EdgeKeyHash> edge_at_; // -> index in edges
    std::vector<Use> uses_;
};

} // namespace

namespace
{

// The format of a text whose byte order mark, if any, is already skipped.
CartoFormat detect_format(std::string_view text)
{
    Scanner scanner(text, true);
    Token token = scanner.next();
    while (token.kind == TokenKind::line_end) {
        token = scanner.next();
    }
    if (scanner.saw_c_comment() || token.kind == TokenKind::unterminated_comment ||
        (token.kind == TokenKind::word && is_reserved(token.text))) {
        return CartoFormat::open_mpi;
    }
    return CartoFormat::adjacency;
}

} // namespace

CartoFormat detect_carto_format(std::string_view text)
{
    return detect_format(util::skip_utf8_bom(text));
}

std::optional<mca_carto_vertex_type_t> open_mpi_vertex_type(std::string_view word)
{
    static constexpr std::pair<std::string_view, mca_carto_vertex_type_t> types[] = {
        {"Memory", MCA_CARTO_MEM},    {"slot", MCA_CARTO_SLOT},    {"Socket", MCA_CARTO_SLOT},
        {"Infiniband", MCA_CARTO_IB}, {"Ethernet", MCA_CARTO_ETH}, {"Other", MCA_CARTO_OTHER},
    };
    for (const auto &[spelling, type] : types) {
        if (same_ignoring_case(word, spelling)) {
            return type;
        }
    }
    return std::nullopt;
}

std::string_view vertex_type_name(mca_carto_vertex_type_t type)
{
    // One spelling of the names for the whole project: the C API's.
    const char *const name = meridian_mca_carto_type_name(type);
    return name != nullptr ? name : "?";
}

Result<CartoDescription> parse_carto(std::string_view path, std::string_view text)
{
    text = util::skip_utf8_bom(text);
    return Parser(path, text, detect_format(text)).run();
}

Result<CartoDescription> read_carto_file(const std::string &path)
{
    auto text = util::read_file(path, util::kCartoFileLimit, "carto file");
    if (!text) {
        return make_error(MERIDIAN_ERR_IO, path + ": " + text.error().message);
    }
    return parse_carto(path, *text);
}

} // namespace meridian::carto
