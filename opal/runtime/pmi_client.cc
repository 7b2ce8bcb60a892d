// SPDX-License-Identifier: BSD-3-Clause
// PMI-1's and PMI-2's simple wire protocols, the client side
// (pmi_client.hpp).
#include "opal/runtime/pmi_client.hpp"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <meridian/opal/util/strings.hpp>

namespace meridian::pmi
{

namespace
{

// A command's line: hydra and the MPICH client read at most 1024 bytes.
constexpr std::size_t line_max = 1024;
// PMI-2's limits (MPICH's pmi2.h: PMI2_MAX_KEYLEN, PMI2_MAX_VALLEN), which
// hydra and Slurm keep; it has no get_maxes.
constexpr std::size_t v2_keylen_max = 64;
constexpr std::size_t v2_vallen_max = 1024;
// A PMI-2 message's length field: six decimal digits, space-padded.
constexpr std::size_t v2_length_field = 6;
// The longest answer taken: a get_result with a value of vallen_max, and
// some room; beyond it, the launcher is not speaking PMI.
constexpr std::size_t answer_max = 64 * 1024;
// What Meridian's keys and pieces need at least.
constexpr std::size_t keylen_least = 24;
constexpr std::size_t vallen_least = 32;

std::string errno_text(int error)
{
    return std::strerror(error);
}

std::size_t limit(const Answer &maxes, std::string_view name, std::size_t otherwise)
{
    const auto text = maxes[name];
    const auto n = text ? parse_count(*text) : std::nullopt;
    return n && *n > 0 ? *n : otherwise;
}

// "cmd=put" of "cmd=put kvsname=...", "cmd=kvs-put" of "cmd=kvs-put;key=...".
std::string first_word(const std::string &command)
{
    return command.substr(0, command.find_first_of(" ;"));
}

// What a refusal says besides its rc, where the launcher said why: as it
// stands where it is plain text, quoted (its control bytes escaped) where not,
// so that the message stays one printable line.
std::string why(const Answer &answer)
{
    for (const char *name : {"errmsg", "msg"}) {
        if (const auto text = answer[name]; text && !text->empty()) {
            const std::string plain(*text);
            const std::string escaped = util::quoted(plain);
            return ": " + (escaped == '"' + plain + '"' ? plain : escaped);
        }
    }
    return std::string();
}

Error lost(const std::string &doing, int error)
{
    return make_error(MERIDIAN_ERR_UNREACH,
                      "datastore: the PMI launcher's connection closed while " + doing +
                          (error != 0 ? " (" + errno_text(error) + ")" : std::string()) +
                          ": the launcher (mpiexec, srun, flux) has ended");
}

// base64's alphabet with '-' and '_' (RFC 4648's URL-safe one), no padding:
// nothing a PMI server's parser splits on (space, '=', newline).
constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

bool plain_key(std::string_view key)
{
    return std::all_of(key.begin(), key.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '.' || c == '_' || c == '-' || c == ':';
    });
}

std::string hex64(std::uint64_t n)
{
    char buf[17];
    for (int i = 15; i >= 0; --i) {
        buf[i] = "0123456789abcdef"[n & 15];
        n >>= 4;
    }
    return std::string(buf, 16);
}

} // namespace

// ---------------------------------------------------------------- text

std::optional<std::uint32_t> parse_count(std::string_view text)
{
    std::uint32_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
        return std::nullopt;
    }
    return n;
}

std::string to_text(std::span<const std::uint8_t> bytes)
{
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        const std::uint32_t n =
            (std::uint32_t{bytes[i]} << 16) | (std::uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
        out += alphabet[(n >> 18) & 63];
        out += alphabet[(n >> 12) & 63];
        out += alphabet[(n >> 6) & 63];
        out += alphabet[n & 63];
    }
    if (const std::size_t left = bytes.size() - i; left > 0) {
        std::uint32_t n = std::uint32_t{bytes[i]} << 16;
        if (left == 2) {
            n |= std::uint32_t{bytes[i + 1]} << 8;
        }
        out += alphabet[(n >> 18) & 63];
        out += alphabet[(n >> 12) & 63];
        if (left == 2) {
            out += alphabet[(n >> 6) & 63];
        }
    }
    return out;
}

std::optional<Bytes> from_text(std::string_view text)
{
    static const auto digits = [] {
        std::array<std::int8_t, 256> table{};
        table.fill(-1);
        for (int i = 0; i < 64; ++i) {
            table[static_cast<unsigned char>(alphabet[i])] = static_cast<std::int8_t>(i);
        }
        return table;
    }();
    if (text.size() % 4 == 1) {
        return std::nullopt;
    }
    Bytes out;
    out.reserve(text.size() / 4 * 3 + 2);
    std::uint32_t n = 0;
    int held = 0;
    for (const char c : text) {
        const int digit = digits[static_cast<unsigned char>(c)];
        if (digit < 0) {
            return std::nullopt;
        }
        n = (n << 6) | static_cast<std::uint32_t>(digit);
        if (++held == 4) {
            out.push_back(static_cast<std::uint8_t>(n >> 16));
            out.push_back(static_cast<std::uint8_t>(n >> 8));
            out.push_back(static_cast<std::uint8_t>(n));
            n = 0;
            held = 0;
        }
    }
    if (held == 2) {
        out.push_back(static_cast<std::uint8_t>(n >> 4));
    } else if (held == 3) {
        out.push_back(static_cast<std::uint8_t>(n >> 10));
        out.push_back(static_cast<std::uint8_t>(n >> 2));
    }
    return out;
}

std::optional<std::vector<std::uint32_t>> parse_mapping(std::string_view text,
                                                        std::uint32_t job_size)
{
    constexpr std::string_view head = "(vector,";
    if (text.substr(0, head.size()) != head || text.empty() || text.back() != ')') {
        return std::nullopt;
    }
    text.remove_prefix(head.size());
    text.remove_suffix(1);
    std::vector<std::uint32_t> round; // one pass through the list
    while (!text.empty()) {
        if (text.front() == ',') {
            text.remove_prefix(1);
            continue;
        }
        if (text.front() != '(') {
            return std::nullopt;
        }
        const std::size_t close = text.find(')');
        if (close == std::string_view::npos) {
            return std::nullopt;
        }
        std::string_view block = text.substr(1, close - 1);
        text.remove_prefix(close + 1);
        std::uint32_t numbers[3];
        for (int i = 0; i < 3; ++i) {
            const std::size_t comma = std::min(block.find(','), block.size());
            auto n = parse_count(block.substr(0, comma));
            if (!n) {
                return std::nullopt;
            }
            numbers[i] = *n;
            block.remove_prefix(std::min(comma + 1, block.size()));
        }
        if (!block.empty()) {
            return std::nullopt; // more than three numbers
        }
        const auto [start, nodes, count] = numbers;
        if (static_cast<std::uint64_t>(nodes) * count > job_size || nodes == 0 || count == 0) {
            return std::nullopt;
        }
        for (std::uint32_t node = 0; node < nodes; ++node) {
            round.insert(round.end(), count, start + node);
        }
        if (round.size() > job_size) {
            return std::nullopt;
        }
    }
    if (round.empty()) {
        return std::nullopt;
    }
    std::vector<std::uint32_t> node_of;
    node_of.reserve(job_size);
    while (node_of.size() < job_size) {
        for (const auto node : round) {
            if (node_of.size() == job_size) {
                break;
            }
            node_of.push_back(node);
        }
    }
    return node_of;
}

// ---------------------------------------------------------------- answers

Answer::Answer(std::string line, char separator) : line_(std::move(line))
{
    std::string_view rest(line_);
    while (!rest.empty()) {
        const std::size_t end = std::min(rest.find(separator), rest.size());
        const std::string_view word = rest.substr(0, end);
        rest.remove_prefix(std::min(end + 1, rest.size()));
        if (const std::size_t eq = word.find('='); eq != std::string_view::npos) {
            words_.emplace_back(std::string(word.substr(0, eq)), std::string(word.substr(eq + 1)));
        }
    }
}

std::optional<std::string_view> Answer::operator[](std::string_view name) const
{
    for (const auto &[n, v] : words_) {
        if (n == name) {
            return std::string_view(v);
        }
    }
    return std::nullopt;
}

bool Answer::ok() const
{
    const auto rc = (*this)["rc"];
    return !rc || *rc == "0";
}

// ---------------------------------------------------------------- the connection

Client::Client(int fd, std::chrono::milliseconds answer_limit)
    : fd_(fd), answer_limit_(answer_limit)
{
}

Client::~Client()
{
    if (fd_ >= 0) {
        ::close(fd_);
    }
}

Status Client::send(const std::string &command)
{
    std::string line;
    if (framed_) {
        if (command.size() > 999999) {
            return make_error(MERIDIAN_ERR_BAD_PARAM,
                              "datastore: a PMI-2 command of " + std::to_string(command.size()) +
                                  " bytes does not fit its six-digit length");
        }
        char length[v2_length_field + 1];
        std::snprintf(length, sizeof length, "%6zu", command.size());
        line = length + command;
    } else {
        line = command + "\n";
    }
    std::size_t sent = 0;
    while (sent < line.size()) {
        ssize_t n = ::send(fd_, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == ENOTSOCK) {
            // A pipe the launcher handed over; SIGPIPE is the program's
            // there.
            n = ::write(fd_, line.data() + sent, line.size() - sent);
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return lost("sending " + first_word(command), n < 0 ? errno : 0);
        }
        sent += static_cast<std::size_t>(n);
    }
    return success();
}

Result<Answer> Client::receive(std::string_view waiting_for, bool unbounded)
{
    const auto until = std::chrono::steady_clock::now() + answer_limit_;
    for (;;) {
        if (framed_) {
            // (A newline after a message is not PMI-2's; one is passed
            // over, as MPICH's own client would.)
            const std::size_t start = std::min(buffer_.find_first_not_of("\r\n"), buffer_.size());
            buffer_.erase(0, start);
            if (buffer_.size() >= v2_length_field) {
                // (Space-padded on either side: hydra right-aligns the
                // number, Slurm left-aligns it.)
                const std::string field = buffer_.substr(0, v2_length_field);
                const std::size_t first = std::min(field.find_first_not_of(' '), field.size());
                const std::size_t last = field.find_last_not_of(' ');
                const auto length = parse_count(std::string_view(field).substr(
                    first, last == std::string::npos ? 0 : last + 1 - first));
                if (!length || *length > answer_max) {
                    return make_error(MERIDIAN_ERROR, "datastore: the PMI launcher's answer to " +
                                                          std::string(waiting_for) +
                                                          " begins with " + util::quoted(field) +
                                                          ", not a PMI-2 message's length (up to " +
                                                          std::to_string(answer_max) + " bytes)");
                }
                if (buffer_.size() >= v2_length_field + *length) {
                    std::string body = buffer_.substr(v2_length_field, *length);
                    buffer_.erase(0, v2_length_field + *length);
                    return Answer(std::move(body), ';');
                }
            }
        } else if (const std::size_t nl = buffer_.find('\n'); nl != std::string::npos) {
            std::string line = buffer_.substr(0, nl);
            buffer_.erase(0, nl + 1);
            return Answer(std::move(line));
        }
        if (buffer_.size() > answer_max + v2_length_field) {
            return make_error(MERIDIAN_ERROR, "datastore: the PMI launcher's answer to " +
                                                  std::string(waiting_for) + " is longer than " +
                                                  std::to_string(answer_max) + " bytes: not PMI");
        }
        if (!unbounded) {
            const auto left = std::chrono::ceil<std::chrono::milliseconds>(
                until - std::chrono::steady_clock::now());
            pollfd p{fd_, POLLIN, 0};
            const int ready =
                left.count() > 0
                    ? ::poll(&p, 1,
                             static_cast<int>(std::min<std::int64_t>(left.count(), INT32_MAX)))
                    : 0;
            if (ready < 0 && errno == EINTR) {
                continue;
            }
            if (ready == 0) {
                return make_error(MERIDIAN_ERR_TIMEOUT,
                                  "datastore: the PMI launcher did not answer " +
                                      std::string(waiting_for) + " within " +
                                      std::to_string(answer_limit_.count()) +
                                      " ms: it is not serving PMI (hung?)");
            }
        }
        char chunk[4096];
        const ssize_t n = ::read(fd_, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return lost("waiting for the answer to " + std::string(waiting_for) +
                            (buffer_.empty() ? std::string()
                             : framed_       ? std::string(" (a message cut short)")
                                             : std::string(" (a line cut short)")),
                        n < 0 ? errno : 0);
        }
        buffer_.append(chunk, static_cast<std::size_t>(n));
    }
}

Result<Answer> Client::ask(const std::string &command, std::string_view expected, bool unbounded)
{
    if (auto sent = send(command); !sent) {
        return sent.error();
    }
    auto answer = receive(first_word(command), unbounded);
    if (!answer) {
        return answer.error();
    }
    if (answer->cmd() != expected) {
        return make_error(MERIDIAN_ERROR, "datastore: the PMI launcher answered " +
                                              first_word(command) + " with " +
                                              util::quoted(answer->line()) +
                                              " (expected cmd=" + std::string(expected) + ")");
    }
    return answer;
}

Result<Client::Placed> Client::by_port(const std::string &where, const std::string &id,
                                       std::chrono::milliseconds answer_limit)
{
    const std::size_t colon = where.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == where.size()) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          "datastore: PMI_PORT " + util::quoted(where) + " is not host:port");
    }
    std::string host = where.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
        host = host.substr(1, host.size() - 2);
    }
    const std::string port = where.substr(colon + 1);
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo *found = nullptr;
    if (const int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0) {
        return make_error(MERIDIAN_ERR_UNREACH,
                          "datastore: PMI_PORT " + util::quoted(where) + ": " + ::gai_strerror(rc));
    }
    int fd = -1;
    int error = 0;
    for (addrinfo *a = found; a != nullptr && fd < 0; a = a->ai_next) {
        fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd >= 0 && ::connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
            error = errno;
            ::close(fd);
            fd = -1;
        }
    }
    ::freeaddrinfo(found);
    if (fd < 0) {
        return make_error(MERIDIAN_ERR_UNREACH, "datastore: connecting to the PMI launcher at " +
                                                    where + ": " + errno_text(error));
    }
    Placed placed;
    placed.client = std::make_unique<Client>(fd, answer_limit);
    Client &c = *placed.client;
    auto ack = c.ask("cmd=initack pmiid=" + id, "initack");
    if (!ack) {
        return ack.error();
    }
    if (!ack->ok()) {
        return make_error(MERIDIAN_ERROR, "datastore: the PMI launcher at " + where +
                                              " refused PMI_ID " + util::quoted(id) + ": " +
                                              util::quoted(ack->line()));
    }
    // Then "cmd=set size=N", "cmd=set rank=R", "cmd=set debug=D".
    bool have_rank = false;
    bool have_size = false;
    for (int i = 0; i < 3; ++i) {
        auto set = c.receive("initack");
        if (!set) {
            return set.error();
        }
        if (set->cmd() != "set") {
            return make_error(MERIDIAN_ERROR, "datastore: the PMI launcher at " + where + " sent " +
                                                  util::quoted(set->line()) +
                                                  " after initack (expected cmd=set)");
        }
        if (auto n = (*set)["size"]; n && parse_count(*n)) {
            placed.size = *parse_count(*n);
            have_size = true;
        }
        if (auto n = (*set)["rank"]; n && parse_count(*n)) {
            placed.rank = *parse_count(*n);
            have_rank = true;
        }
    }
    if (!have_rank || !have_size || placed.size == 0 || placed.rank >= placed.size) {
        return make_error(MERIDIAN_ERROR, "datastore: the PMI launcher at " + where +
                                              " gave no rank below a size after initack");
    }
    return placed;
}

// ---------------------------------------------------------------- commands

Status Client::init(Ask ask, std::uint32_t rank, std::string_view jobid)
{
    if (ask == Ask::v1) {
        auto init = this->ask("cmd=init pmi_version=1 pmi_subversion=1", "response_to_init");
        if (!init) {
            return init.error();
        }
        if (!init->ok()) {
            return make_error(MERIDIAN_ERR_VERSION_MISMATCH,
                              "datastore: the PMI launcher refused PMI version 1.1: " +
                                  util::quoted(init->line()));
        }
        return init_v1();
    }
    auto init = this->ask("cmd=init pmi_version=2 pmi_subversion=0", "response_to_init");
    if (!init) {
        return init.error();
    }
    const auto major = (*init)["pmi_version"];
    if (init->ok() && major == "2") {
        return init_v2(rank, jobid);
    }
    if (ask == Ask::v2_or_v1 && init->ok() && major == "1") {
        // Flux's way: it speaks 1.1 and says so.
        return init_v1();
    }
    if (ask == Ask::v2_or_v1 && !init->ok()) {
        // Another launcher refuses 2.0 and keeps the connection for a
        // second init; one that does not is taken as lost.
        auto again = this->ask("cmd=init pmi_version=1 pmi_subversion=1", "response_to_init");
        if (!again) {
            return again.error();
        }
        if (again->ok()) {
            return init_v1();
        }
        return make_error(MERIDIAN_ERR_VERSION_MISMATCH,
                          "datastore: the PMI launcher refused PMI versions 2.0 and 1.1: " +
                              util::quoted(init->line()) + ", then " + util::quoted(again->line()));
    }
    return make_error(MERIDIAN_ERR_VERSION_MISMATCH,
                      "datastore: the PMI launcher does not serve PMI version 2.0 (it answered " +
                          util::quoted(init->line()) +
                          "); choose PMI-1 with mca_base_datastore=pmi1");
}

Status Client::init_v1()
{
    initialized_ = true;
    version_ = 1;
    auto maxes = ask("cmd=get_maxes", "maxes");
    if (!maxes) {
        return maxes.error();
    }
    keylen_max_ = limit(*maxes, "keylen_max", 64);
    vallen_max_ = limit(*maxes, "vallen_max", 1024);
    const std::size_t kvsname_max = limit(*maxes, "kvsname_max", 256);
    if (keylen_max_ < keylen_least || vallen_max_ < vallen_least) {
        return make_error(
            MERIDIAN_ERR_NOT_SUPPORTED,
            "datastore: the PMI launcher takes keys of " + std::to_string(keylen_max_) +
                " and values of " + std::to_string(vallen_max_) +
                " bytes at most, too few for Meridian (" + std::to_string(keylen_least) + " and " +
                std::to_string(vallen_least) + ")");
    }
    auto kvs = ask("cmd=get_my_kvsname", "my_kvsname");
    if (!kvs) {
        return kvs.error();
    }
    const auto name = (*kvs)["kvsname"];
    if (!name || name->empty() || name->size() >= kvsname_max ||
        name->find_first_of("=;") != std::string_view::npos) {
        return make_error(MERIDIAN_ERROR, "datastore: the PMI launcher gave no key space: " +
                                              util::quoted(kvs->line()));
    }
    kvsname_ = std::string(*name);
    return success();
}

Status Client::init_v2(std::uint32_t rank, std::string_view jobid)
{
    framed_ = true;
    initialized_ = true;
    version_ = 2;
    keylen_max_ = v2_keylen_max;
    vallen_max_ = v2_vallen_max;
    // Slurm refuses a fullinit without all three; hydra reads the rank.
    auto full = ask("cmd=fullinit;pmijobid=" + std::string(jobid.empty() ? "0" : jobid) +
                        ";pmirank=" + std::to_string(rank) + ";threaded=FALSE;",
                    "fullinit-response");
    if (!full) {
        return full.error();
    }
    if (!full->ok()) {
        return make_error(MERIDIAN_ERROR, "datastore: the PMI launcher refused fullinit" +
                                              why(*full) + " (" + util::quoted(full->line()) + ")");
    }
    const auto given_rank = (*full)["rank"];
    const auto given_size = (*full)["size"];
    const auto r = given_rank ? parse_count(*given_rank) : std::nullopt;
    const auto n = given_size ? parse_count(*given_size) : std::nullopt;
    if (!r || !n || *n == 0 || *r >= *n) {
        return make_error(MERIDIAN_ERROR,
                          "datastore: the PMI launcher's fullinit answer gives no rank below a "
                          "size: " +
                              util::quoted(full->line()));
    }
    given_rank_ = *r;
    given_size_ = *n;
    auto id = ask("cmd=job-getid;", "job-getid-response");
    if (!id) {
        return id.error();
    }
    const auto name = (*id)["jobid"];
    if (!id->ok() || !name || name->empty() || name->size() > 256 ||
        name->find_first_of("=; ") != std::string_view::npos) {
        return make_error(MERIDIAN_ERROR, "datastore: the PMI launcher gave no job id: " +
                                              util::quoted(id->line()));
    }
    kvsname_ = std::string(*name);
    return success();
}

Status Client::put(const std::string &key, const std::string &text)
{
    auto result =
        version_ == 2
            ? ask("cmd=kvs-put;key=" + key + ";value=" + text + ";", "kvs-put-response")
            : ask("cmd=put kvsname=" + kvsname_ + " key=" + key + " value=" + text, "put_result");
    if (!result) {
        return result.error();
    }
    if (!result->ok()) {
        return make_error(MERIDIAN_ERROR, "datastore: the PMI launcher refused the key " + key +
                                              ": " + util::quoted(result->line()));
    }
    return success();
}

Result<std::string> Client::get(const std::string &key)
{
    auto result = version_ == 2
                      ? ask("cmd=kvs-get;jobid=" + kvsname_ + ";srcid=-1;key=" + key + ";",
                            "kvs-get-response")
                      : ask("cmd=get kvsname=" + kvsname_ + " key=" + key, "get_result");
    if (!result) {
        return result.error();
    }
    const auto value = (*result)["value"];
    const bool found = version_ == 2 ? (*result)["found"] == "TRUE" : true;
    if (!result->ok() || !found || !value) {
        return make_error(MERIDIAN_ERR_NOT_FOUND, "datastore: the PMI launcher has no " + key);
    }
    // (PMI-1's vallen_max counts the terminating NUL of MPICH's buffers;
    // PMI-2's counts characters.)
    if (value->size() > (version_ == 2 ? vallen_max_ : vallen_max_ - 1)) {
        return make_error(MERIDIAN_ERROR,
                          "datastore: the PMI launcher answered get of " + key +
                              " with a value of " + std::to_string(value->size()) +
                              " bytes, past " +
                              (version_ == 2 ? "PMI-2's limit of " : "its own vallen_max of ") +
                              std::to_string(vallen_max_));
    }
    return std::string(*value);
}

Result<std::string> Client::job_attribute(const std::string &name)
{
    if (version_ != 2) {
        return get(name);
    }
    auto result = ask("cmd=info-getjobattr;key=" + name + ";", "info-getjobattr-response");
    if (!result) {
        return result.error();
    }
    const auto value = (*result)["value"];
    if (!result->ok() || (*result)["found"] != "TRUE" || !value) {
        return make_error(MERIDIAN_ERR_NOT_FOUND, "datastore: the PMI launcher has no " + name);
    }
    return std::string(*value);
}

Status Client::barrier()
{
    auto out = version_ == 2 ? ask("cmd=kvs-fence;", "kvs-fence-response", true)
                             : ask("cmd=barrier_in", "barrier_out", true);
    if (!out) {
        return out.error();
    }
    if (!out->ok()) {
        return make_error(MERIDIAN_ERROR, "datastore: the PMI launcher's barrier failed" +
                                              why(*out) + " (" + util::quoted(out->line()) + ")");
    }
    if (version_ == 2) {
        // Hydra's kvs-fence returns at once (MPICH 4.0-4.2): what it makes
        // sure of is that a kvs-get of a key no process has put is held
        // until every process has reached its fence.  Such a get makes the
        // fence a barrier there; Slurm's fence is one already, and answers
        // it from the node's own copy.
        auto all = ask("cmd=kvs-get;jobid=" + kvsname_ + ";srcid=-1;key=meridian.fence;",
                       "kvs-get-response", true);
        if (!all) {
            return all.error();
        }
    }
    return success();
}

Status Client::abort(int code)
{
    return send(version_ == 2 ? "cmd=abort;isworld=TRUE;exitcode=" + std::to_string(code) + ";"
                              : "cmd=abort exitcode=" + std::to_string(code));
}

void Client::finalize(std::chrono::milliseconds wait)
{
    if (!send(version_ == 2 ? "cmd=finalize;" : "cmd=finalize")) {
        return;
    }
    const auto limit = answer_limit_;
    answer_limit_ = wait;
    (void)receive("finalize");
    answer_limit_ = limit;
}

// ---------------------------------------------------------------- values

std::string Client::key_for(std::uint32_t rank, std::string_view key) const
{
    const std::string suffix = "@" + std::to_string(rank);
    constexpr std::size_t piece_room = 8; // "#" and up to 7 digits
    if (!key.empty() && plain_key(key) && key.size() + suffix.size() + piece_room < keylen_max_) {
        return std::string(key) + suffix;
    }
    std::uint64_t h = 1469598103934665603ULL; // FNV-1a
    for (const char c : key) {
        h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    }
    return "h" + hex64(h) + suffix;
}

std::size_t Client::room(const std::string &key) const
{
    if (version_ == 2) {
        // A framed message has no line limit: vallen_max alone.
        return vallen_max_;
    }
    const std::size_t line = std::string_view("cmd=put kvsname= key=#9999999 value=\n").size() +
                             kvsname_.size() + key.size();
    const std::size_t by_line = line_max > line + 1 ? line_max - line - 1 : 0;
    return std::max<std::size_t>(2, std::min(vallen_max_ - 1, by_line));
}

// "V<text>" for a value in one piece; "C<text>" under KEY#1..KEY#N and
// "N<count>" under KEY for one in N.
Status Client::put_value(const std::string &key, std::span<const std::uint8_t> bytes)
{
    const std::string text = to_text(bytes);
    const std::size_t fits = room(key);
    if (text.size() + 1 <= fits) {
        return put(key, "V" + text);
    }
    const std::size_t chunk = fits - 1;
    const std::size_t count = (text.size() + chunk - 1) / chunk;
    if (count > 9999999) {
        return make_error(MERIDIAN_ERR_BAD_PARAM, "datastore: a value of " +
                                                      std::to_string(bytes.size()) +
                                                      " bytes is too long for a PMI launcher");
    }
    for (std::size_t i = 0; i < count; ++i) {
        if (auto done = put(key + "#" + std::to_string(i + 1), "C" + text.substr(i * chunk, chunk));
            !done) {
            return done;
        }
    }
    return put(key, "N" + std::to_string(count));
}

Result<Bytes> Client::get_value(const std::string &key)
{
    auto head = get(key);
    if (!head) {
        return head.error();
    }
    auto damaged = [&key](const std::string &why) {
        return make_error(MERIDIAN_ERROR, "datastore: what the PMI launcher has under " + key +
                                              " is not a value Meridian wrote: " + why);
    };
    std::string text;
    if (!head->empty() && head->front() == 'V') {
        text = head->substr(1);
    } else if (!head->empty() && head->front() == 'N') {
        const auto count = parse_count(std::string_view(*head).substr(1));
        if (!count || *count == 0 || *count > 9999999) {
            return damaged("its head " + util::quoted(*head) + " counts no pieces");
        }
        for (std::uint32_t i = 1; i <= *count; ++i) {
            auto piece = get(key + "#" + std::to_string(i));
            if (!piece && piece.error().status != MERIDIAN_ERR_NOT_FOUND) {
                return piece.error();
            }
            if (!piece || piece->empty() || piece->front() != 'C') {
                return damaged("piece " + std::to_string(i) + " of " + std::to_string(*count) +
                               " is missing");
            }
            text.append(*piece, 1);
        }
    } else {
        return damaged("it begins with neither V nor N");
    }
    auto bytes = from_text(text);
    if (!bytes) {
        return damaged("it is not in base64's URL alphabet");
    }
    return std::move(*bytes);
}

} // namespace meridian::pmi
