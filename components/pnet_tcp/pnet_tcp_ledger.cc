// SPDX-License-Identifier: BSD-3-Clause
// pnet/tcp's port ledger (pnet_tcp_ledger.hpp; README.md, "Port ledger").
#include "components/pnet_tcp/pnet_tcp_ledger.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <optional>
#include <thread>

#include <meridian/opal/util/read_file.hpp>
#include <meridian/opal/util/strings.hpp>

namespace meridian::pnet_tcp::ledger
{

namespace
{

// A ledger lists the jobs of one host: far below this.
constexpr std::size_t ledger_limit = std::size_t{16} << 20;
// /proc/net/tcp of a busy server: far below this.
constexpr std::size_t proc_net_limit = std::size_t{256} << 20;

constexpr std::string_view key_names = "host, boot, expect, since, tcp, udp, procs or left";

std::size_t protocol_index(fabric::Protocol protocol)
{
    return protocol == fabric::Protocol::udp ? 1 : 0;
}

// ---------------------------------------------------------------- words

// A name as one word: bytes outside '!'..'~', and '%', as %XX.
std::string encode(std::string_view text)
{
    static constexpr char hex[] = "0123456789ABCDEF";
    std::string out;
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte <= 0x20 || byte >= 0x7f || byte == '%') {
            out += '%';
            out += hex[byte >> 4];
            out += hex[byte & 0xf];
        } else {
            out += c;
        }
    }
    return out;
}

std::optional<std::string> decode(std::string_view word)
{
    std::string out;
    for (std::size_t i = 0; i < word.size(); ++i) {
        if (word[i] != '%') {
            out += word[i];
            continue;
        }
        unsigned value = 0;
        if (i + 2 >= word.size()) {
            return std::nullopt;
        }
        const auto [end, ec] = std::from_chars(word.data() + i + 1, word.data() + i + 3, value, 16);
        if (ec != std::errc() || end != word.data() + i + 3) {
            return std::nullopt;
        }
        out += static_cast<char>(value);
        i += 2;
    }
    return out;
}

struct Word {
    std::string_view text;
    std::size_t column = 1; // 1-based
};

std::vector<Word> words_of(std::string_view line)
{
    std::vector<Word> words;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) {
            ++i;
        }
        const std::size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') {
            ++i;
        }
        if (i > start) {
            words.push_back({line.substr(start, i - start), start + 1});
        }
    }
    return words;
}

template <typename Number> std::optional<Number> whole_number(std::string_view text)
{
    Number value{};
    if (text.empty() || text.size() > 20) {
        return std::nullopt;
    }
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return value;
}

std::vector<std::uint16_t> expand(const std::vector<fabric::PortRange> &ranges)
{
    std::vector<std::uint16_t> ports;
    for (const auto &range : ranges) {
        for (std::uint32_t port = range.first; port <= range.last; ++port) {
            ports.push_back(static_cast<std::uint16_t>(port));
        }
    }
    std::sort(ports.begin(), ports.end());
    ports.erase(std::unique(ports.begin(), ports.end()), ports.end());
    return ports;
}

std::vector<fabric::PortRange> runs_of(const std::vector<std::uint16_t> &sorted)
{
    std::vector<fabric::PortRange> runs;
    for (const auto port : sorted) {
        if (!runs.empty() && static_cast<std::uint32_t>(runs.back().last) + 1 == port) {
            runs.back().last = port;
        } else {
            runs.push_back({port, port});
        }
    }
    return runs;
}

std::string process_list(const std::vector<Process> &processes)
{
    std::string text;
    for (const auto &process : processes) {
        if (!text.empty()) {
            text += ',';
        }
        text += std::to_string(process.pid) + ':' + std::to_string(process.start);
    }
    return text;
}

// ---------------------------------------------------------------- parser

class Parser
{
  public:
    Parser(std::string_view text, std::string_view where) : text_(text), where_(where) {}
    Result<std::vector<Entry>> parse();

  private:
    Error error(std::size_t column, const std::string &message) const
    {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          where_line() + ':' + std::to_string(column) + ": " + message);
    }
    std::string where_line() const { return std::string(where_) + ':' + std::to_string(line_); }

    Result<Entry> job(std::string_view line);
    Status value(Entry &entry, std::size_t key, std::string_view value, const Word &word);
    Result<std::vector<Process>> processes(std::string_view list, std::size_t column) const;

    std::string_view text_;
    std::string_view where_;
    std::size_t line_ = 0;
};

enum Key : std::size_t { host, boot, expect, since, tcp, udp, procs, left, key_count };
constexpr std::array<std::string_view, key_count> key_text = {"host", "boot", "expect", "since",
                                                              "tcp",  "udp",  "procs",  "left"};

Result<std::vector<Process>> Parser::processes(std::string_view list, std::size_t column) const
{
    std::vector<Process> found;
    std::size_t at = 0;
    for (const auto &item : util::split(list, ',')) {
        const std::size_t colon = item.find(':');
        const auto pid =
            colon == std::string::npos
                ? std::nullopt
                : util::parse_uint(std::string_view(item).substr(0, colon), 1, INT32_MAX);
        const auto start =
            colon == std::string::npos
                ? std::nullopt
                : whole_number<std::uint64_t>(std::string_view(item).substr(colon + 1));
        if (!pid || !start) {
            return error(column + at, "expected PID:START (a process id and its start time, "
                                      "e.g. 4242:1234567), found " +
                                          util::quoted(item));
        }
        found.push_back({static_cast<std::int32_t>(*pid), *start});
        at += item.size() + 1;
    }
    return found;
}

Status Parser::value(Entry &entry, std::size_t key, std::string_view value, const Word &word)
{
    const std::size_t column = word.column + key_text[key].size() + 1;
    switch (key) {
    case host: {
        auto name = decode(value);
        if (!name || name->empty()) {
            return error(column, "expected host=HOST (a host name, %XX escapes), found " +
                                     util::quoted(word.text));
        }
        entry.host = std::move(*name);
        return success();
    }
    case boot: {
        auto id = decode(value);
        if (!id || id->empty()) {
            return error(column,
                         "expected boot=BOOT_ID (or boot=-), found " + util::quoted(word.text));
        }
        entry.boot = std::move(*id);
        return success();
    }
    case expect: {
        const auto n = util::parse_uint(value, 1, UINT32_MAX);
        if (!n) {
            return error(column,
                         "expected expect=N with N 1-4294967295, found " + util::quoted(word.text));
        }
        entry.expect = *n;
        return success();
    }
    case since: {
        const auto n = whole_number<std::uint64_t>(value);
        if (!n) {
            return error(column, "expected since=SECONDS (a whole number), found " +
                                     util::quoted(word.text));
        }
        entry.since = *n;
        return success();
    }
    case tcp:
    case udp: {
        // PMIx's pool syntax reads the list ("tcp=" read as "tcp:").
        std::string pool(word.text);
        pool[key_text[key].size()] = ':';
        auto parsed = fabric::parse_static_ports(pool, where_line(), word.column);
        if (!parsed) {
            return parsed.error();
        }
        if (parsed->size() != 1 || (*parsed)[0].subnet) {
            return error(column, "expected " + std::string(key_text[key]) +
                                     "=PORTS (e.g. 32000-32003,32010), found " +
                                     util::quoted(word.text));
        }
        entry.ports[key == udp ? 1 : 0] = expand((*parsed)[0].ranges);
        return success();
    }
    case procs:
    case left: {
        auto list = processes(value, column);
        if (!list) {
            return list.error();
        }
        (key == procs ? entry.procs : entry.left) = std::move(*list);
        return success();
    }
    default:
        return success();
    }
}

Result<Entry> Parser::job(std::string_view line)
{
    const std::vector<Word> words = words_of(line);
    if (words[0].text != "job") {
        return error(words[0].column, "expected a line \"job NSPACE KEY=VALUE ...\", found " +
                                          util::quoted(words[0].text));
    }
    if (words.size() < 2) {
        return error(line.size() + 1, "expected the job's namespace after \"job\", found the "
                                      "end of the line");
    }
    Entry entry;
    auto nspace = decode(words[1].text);
    if (!nspace) {
        return error(words[1].column,
                     "expected a namespace (%XX escapes), found " + util::quoted(words[1].text));
    }
    entry.nspace = std::move(*nspace);
    std::array<bool, key_count> seen{};
    for (std::size_t i = 2; i < words.size(); ++i) {
        const Word &word = words[i];
        const std::size_t equals = word.text.find('=');
        const std::string_view name = word.text.substr(0, equals);
        const auto key = std::find(key_text.begin(), key_text.end(), name);
        if (equals == std::string_view::npos || key == key_text.end()) {
            return error(word.column, "expected KEY=VALUE with KEY " + std::string(key_names) +
                                          ", found " + util::quoted(word.text));
        }
        const auto index = static_cast<std::size_t>(key - key_text.begin());
        if (seen[index]) {
            return error(word.column, util::quoted(name) + " is given twice");
        }
        seen[index] = true;
        if (auto done = value(entry, index, word.text.substr(equals + 1), word); !done) {
            return done.error();
        }
    }
    for (const std::size_t required : {host, boot, expect, since}) {
        if (!seen[required]) {
            return error(line.size() + 1, "expected " + std::string(key_text[required]) +
                                              "=... (every job line has host, boot, expect and "
                                              "since), found the end of the line");
        }
    }
    return entry;
}

Result<std::vector<Entry>> Parser::parse()
{
    std::vector<Entry> entries;
    std::vector<std::size_t> line_of;
    bool header_seen = false;
    std::size_t at = 0;
    while (at < text_.size()) {
        const std::size_t end = std::min(text_.find('\n', at), text_.size());
        const std::string_view line = text_.substr(at, end - at);
        at = end + 1;
        ++line_;
        const std::string_view content = util::trim(line);
        if (content.empty() || content[0] == '#') {
            continue;
        }
        if (!header_seen) {
            if (content != header_line) {
                return error(static_cast<std::size_t>(content.data() - line.data()) + 1,
                             "expected \"" + std::string(header_line) +
                                 "\" (the ledger's first line), found " + util::quoted(content));
            }
            header_seen = true;
            continue;
        }
        auto entry = job(line);
        if (!entry) {
            return entry.error();
        }
        for (std::size_t i = 0; i < entries.size(); ++i) {
            if (entries[i].nspace == entry->nspace && entries[i].host == entry->host) {
                return error(1, "job " + util::quoted(entry->nspace) + " of host " +
                                    util::quoted(entry->host) + " is listed twice (first on line " +
                                    std::to_string(line_of[i]) + ")");
            }
        }
        entries.push_back(std::move(*entry));
        line_of.push_back(line_);
    }
    return entries;
}

// ---------------------------------------------------------------- rules

Entry *find(std::vector<Entry> &entries, std::string_view nspace, std::string_view host)
{
    const auto it = std::find_if(entries.begin(), entries.end(), [&](const Entry &entry) {
        return entry.nspace == nspace && entry.host == host;
    });
    return it == entries.end() ? nullptr : &*it;
}

Entry &find_or_make(std::vector<Entry> &entries, const Here &here, std::string_view nspace,
                    std::uint32_t expect)
{
    if (Entry *found = find(entries, nspace, here.host)) {
        found->boot = here.boot;
        found->expect = expect;
        return *found;
    }
    Entry made;
    made.nspace = std::string(nspace);
    made.host = here.host;
    made.boot = here.boot;
    made.expect = expect;
    entries.push_back(std::move(made));
    return entries.back();
}

void join(Entry &entry, const Process &me)
{
    std::erase(entry.left, me);
    if (std::find(entry.procs.begin(), entry.procs.end(), me) == entry.procs.end()) {
        entry.procs.push_back(me);
    }
}

bool is_over(const Entry &entry, const Here &here, const Running &running)
{
    if (entry.boot != "-" && here.boot != "-" && entry.boot != here.boot) {
        return true; // an earlier boot: nothing of it runs
    }
    if (entry.left.size() >= entry.expect) {
        return true;
    }
    if (std::any_of(entry.procs.begin(), entry.procs.end(), running)) {
        return false;
    }
    const std::size_t joined = entry.procs.size() + entry.left.size();
    return joined >= entry.expect || here.now >= entry.since + grace_seconds;
}

// ---------------------------------------------------------------- system

Result<std::string> read_proc(const std::string &path)
{
    return util::read_file(path, proc_net_limit, "/proc file");
}

// Field 3 (state) and field 22 (start time) of /proc/PID/stat.
struct Stat {
    char state = '?';
    std::uint64_t start = 0;
};

std::optional<Stat> stat_of(std::string_view text)
{
    // The command (field 2) is in parentheses and may hold anything, so the
    // fields are counted after its last ')'.
    const std::size_t close = text.rfind(')');
    if (close == std::string_view::npos) {
        return std::nullopt;
    }
    const std::vector<Word> fields = words_of(text.substr(close + 1));
    if (fields.size() < 20 || fields[0].text.empty()) {
        return std::nullopt;
    }
    const auto start = whole_number<std::uint64_t>(util::trim(fields[19].text));
    if (!start) {
        return std::nullopt;
    }
    return Stat{fields[0].text[0], *start};
}

std::string trimmed_file(const std::string &path)
{
    auto text = util::read_file(path, 4096, "/proc file");
    return text ? std::string(util::trim(*text)) : std::string();
}

std::string system_reason(int error)
{
    return std::strerror(error);
}

// FILE.lock, locked while the object lives.
class Lock
{
  public:
    Lock() = default;
    Lock(const Lock &) = delete;
    Lock &operator=(const Lock &) = delete;
    ~Lock()
    {
        if (fd_ >= 0) {
            ::close(fd_); // drops the flock
        }
    }

    Status take(const std::string &path, std::chrono::milliseconds wait)
    {
        fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd_ < 0) {
            return make_error(MERIDIAN_ERR_IO,
                              "cannot open the lock file " + path + ": " + system_reason(errno));
        }
        const auto deadline = std::chrono::steady_clock::now() + wait;
        // Polled, so a holder that hangs cannot hang every job of the host.
        while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
            if (errno != EWOULDBLOCK && errno != EINTR) {
                return make_error(MERIDIAN_ERR_IO,
                                  "cannot lock " + path + ": " + system_reason(errno));
            }
            if (std::chrono::steady_clock::now() >= deadline) {
                return make_error(MERIDIAN_ERR_TIMEOUT,
                                  "cannot lock " + path + ": another process has held it for " +
                                      std::to_string(wait.count() / 1000) + " s");
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        return success();
    }

  private:
    int fd_ = -1;
};

Status write_whole(const std::string &path, std::string_view text)
{
    const std::string temporary = path + ".tmp";
    const int fd =
        ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        return make_error(MERIDIAN_ERR_IO,
                          "cannot write " + temporary + ": " + system_reason(errno));
    }
    std::size_t done = 0;
    int failed = 0;
    while (done < text.size()) {
        const ssize_t wrote = ::write(fd, text.data() + done, text.size() - done);
        if (wrote < 0) {
            if (errno == EINTR) {
                continue;
            }
            failed = errno;
            break;
        }
        done += static_cast<std::size_t>(wrote);
    }
    if (::close(fd) != 0 && failed == 0) {
        failed = errno;
    }
    if (failed == 0 && ::rename(temporary.c_str(), path.c_str()) != 0) {
        failed = errno;
    }
    if (failed != 0) {
        ::unlink(temporary.c_str());
        return make_error(MERIDIAN_ERR_IO, "cannot write " + path + ": " + system_reason(failed));
    }
    return success();
}

std::string directory_of(const std::string &path)
{
    const std::size_t slash = path.rfind('/');
    if (slash == std::string::npos) {
        return ".";
    }
    return slash == 0 ? "/" : path.substr(0, slash);
}

} // namespace

// ---------------------------------------------------------------- the text

Result<std::vector<Entry>> parse(std::string_view text, std::string_view where)
{
    return Parser(text, where).parse();
}

std::string format(std::span<const Entry> entries)
{
    std::string text = "# Meridian's port ledger: the static ports pnet_tcp holds for the jobs on "
                       "this host\n# (components/pnet_tcp/README.md).  Changed only while its "
                       ".lock file is locked.\n";
    text += header_line;
    text += '\n';
    for (const Entry &entry : entries) {
        text += "job " + encode(entry.nspace) + " host=" + encode(entry.host) +
                " boot=" + (entry.boot.empty() ? std::string("-") : encode(entry.boot)) +
                " expect=" + std::to_string(entry.expect) + " since=" + std::to_string(entry.since);
        for (std::size_t p = 0; p < entry.ports.size(); ++p) {
            if (!entry.ports[p].empty()) {
                text += ' ';
                text += key_text[p == 0 ? tcp : udp];
                text += '=' + fabric::format_port_list(entry.ports[p]);
            }
        }
        if (!entry.procs.empty()) {
            text += " procs=" + process_list(entry.procs);
        }
        if (!entry.left.empty()) {
            text += " left=" + process_list(entry.left);
        }
        text += '\n';
    }
    return text;
}

// ---------------------------------------------------------------- the host

Here here()
{
    Here facts;
    char name[256] = {};
    facts.host = gethostname(name, sizeof name - 1) == 0 && name[0] != '\0' ? name : "localhost";
    const std::string boot = trimmed_file("/proc/sys/kernel/random/boot_id");
    facts.boot = boot.empty() ? "-" : boot;
    timespec now{};
    if (clock_gettime(CLOCK_BOOTTIME, &now) == 0) {
        facts.now = static_cast<std::uint64_t>(now.tv_sec);
    }
    return facts;
}

Process this_process()
{
    Process me;
    me.pid = static_cast<std::int32_t>(::getpid());
    if (auto text = read_proc("/proc/self/stat"); text) {
        if (const auto stat = stat_of(*text)) {
            me.start = stat->start;
        }
    }
    return me;
}

Process process_of(std::int32_t pid)
{
    Process process;
    process.pid = pid;
    if (pid > 0) {
        if (auto text = read_proc("/proc/" + std::to_string(pid) + "/stat"); text) {
            if (const auto stat = stat_of(*text)) {
                process.start = stat->start;
            }
        }
    }
    return process;
}

bool is_running(const Process &process)
{
    if (process.pid <= 0) {
        return false;
    }
    auto text = read_proc("/proc/" + std::to_string(process.pid) + "/stat");
    if (!text) {
        if (text.error().status == MERIDIAN_ERR_NOT_FOUND) {
            return false;
        }
        // /proc does not say (hidepid): the pid alone, erring on "runs".
        return ::kill(process.pid, 0) == 0 || errno == EPERM;
    }
    const auto stat = stat_of(*text);
    if (!stat) {
        return true;
    }
    if (stat->state == 'Z' || stat->state == 'X' || stat->state == 'x') {
        return false; // exited; its sockets are closed
    }
    return process.start == 0 || stat->start == process.start;
}

void add_held_ports(std::string_view proc_net_text, bool tcp, std::vector<bool> &held)
{
    bool header = true;
    for (const auto &line : util::split(proc_net_text, '\n')) {
        if (header) {
            header = false;
            continue;
        }
        // "  sl  local_address rem_address   st ...": ADDRESS:PORT in hex.
        const std::vector<Word> fields = words_of(line);
        if (fields.size() < 4) {
            continue;
        }
        const std::string_view local = fields[1].text;
        const std::size_t colon = local.rfind(':');
        unsigned port = 0;
        if (colon == std::string_view::npos ||
            std::from_chars(local.data() + colon + 1, local.data() + local.size(), port, 16).ec !=
                std::errc() ||
            port == 0 || port > 65535) {
            continue;
        }
        // TIME_WAIT (06) is a closed connection: a listener with SO_REUSEADDR
        // binds the port, so it is not held.
        if (tcp && fields[3].text == "06") {
            continue;
        }
        held[port] = true;
    }
}

HeldPorts held_ports()
{
    HeldPorts found;
    const std::array<std::pair<const char *, bool>, 4> files = {{{"/proc/net/tcp", true},
                                                                 {"/proc/net/tcp6", true},
                                                                 {"/proc/net/udp", false},
                                                                 {"/proc/net/udp6", false}}};
    for (const auto &[path, tcp] : files) {
        auto text = read_proc(path);
        if (!text) {
            found.unreadable.push_back(std::string(path) + ": " + text.error().message);
            continue;
        }
        add_held_ports(*text, tcp, found.held[tcp ? 0 : 1]);
    }
    return found;
}

// ---------------------------------------------------------------- the rules

std::size_t reclaim(std::vector<Entry> &entries, const Here &here, const Running &running)
{
    return std::erase_if(entries, [&](const Entry &entry) {
        return entry.host == here.host && is_over(entry, here, running);
    });
}

std::vector<fabric::PortPoolSpec> claim(std::vector<Entry> &entries, const Here &here,
                                        const Process &me, const ClaimRequest &request,
                                        const std::array<std::vector<bool>, 2> &held)
{
    // Ports other jobs of this host hold, and ports this claim took.
    std::array<std::vector<bool>, 2> taken{std::vector<bool>(65536), std::vector<bool>(65536)};
    for (const Entry &entry : entries) {
        if (entry.host != here.host || entry.nspace == request.nspace) {
            continue;
        }
        for (std::size_t p = 0; p < taken.size(); ++p) {
            for (const auto port : entry.ports[p]) {
                taken[p][port] = true;
            }
        }
    }
    // Pools of one protocol and subnet are one pool (as pnet_tcp allocates).
    std::vector<fabric::PortPoolSpec> pools;
    for (const auto &spec : request.pools) {
        const auto same = std::find_if(pools.begin(), pools.end(), [&](const auto &pool) {
            return pool.protocol == spec.protocol && pool.subnet == spec.subnet;
        });
        if (same == pools.end()) {
            pools.push_back(spec);
        } else {
            same->ranges.insert(same->ranges.end(), spec.ranges.begin(), spec.ranges.end());
        }
    }
    PortsByProtocol mine;
    std::vector<fabric::PortPoolSpec> claimed;
    for (const auto &pool : pools) {
        const std::size_t p = protocol_index(pool.protocol);
        const std::uint64_t need = request.need[p];
        std::vector<std::uint16_t> got;
        for (const auto port : expand(pool.ranges)) {
            if (got.size() >= need) {
                break;
            }
            if (taken[p][port] || (held[p].size() > port && held[p][port])) {
                continue;
            }
            taken[p][port] = true;
            got.push_back(port);
        }
        if (got.empty()) {
            continue;
        }
        mine[p].insert(mine[p].end(), got.begin(), got.end());
        claimed.push_back(fabric::PortPoolSpec{pool.protocol, pool.subnet, runs_of(got)});
    }
    Entry &entry = find_or_make(entries, here, request.nspace, request.expect);
    for (auto &ports : mine) {
        std::sort(ports.begin(), ports.end());
    }
    entry.ports = std::move(mine);
    entry.since = here.now;
    join(entry, me);
    return claimed;
}

void hold(std::vector<Entry> &entries, const Here &here, const Process &me, std::string_view nspace,
          std::uint32_t expect, const PortsByProtocol &assigned)
{
    Entry &entry = find_or_make(entries, here, nspace, expect);
    for (std::size_t p = 0; p < assigned.size(); ++p) {
        entry.ports[p] = assigned[p];
        std::sort(entry.ports[p].begin(), entry.ports[p].end());
        entry.ports[p].erase(std::unique(entry.ports[p].begin(), entry.ports[p].end()),
                             entry.ports[p].end());
    }
    entry.since = here.now;
    join(entry, me);
}

void leave(std::vector<Entry> &entries, const Here &here, const Process &me,
           std::string_view nspace)
{
    Entry *entry = find(entries, nspace, here.host);
    if (entry == nullptr ||
        std::find(entry->left.begin(), entry->left.end(), me) != entry->left.end()) {
        return;
    }
    std::erase(entry->procs, me);
    entry->left.push_back(me);
    entry->since = here.now;
    if (entry->left.size() >= entry->expect) {
        std::erase_if(entries, [&](const Entry &e) { return &e == entry; });
    }
}

void hand_over(std::vector<Entry> &entries, const Here &here, const Process &me,
               std::string_view nspace, std::span<const Process> heirs)
{
    Entry *entry = find(entries, nspace, here.host);
    if (entry == nullptr || heirs.empty()) {
        leave(entries, here, me, nspace);
        return;
    }
    for (const Process &heir : heirs) {
        if (heir.pid > 0 && heir != me &&
            std::find(entry->procs.begin(), entry->procs.end(), heir) == entry->procs.end() &&
            std::find(entry->left.begin(), entry->left.end(), heir) == entry->left.end()) {
            entry->procs.push_back(heir);
        }
    }
    std::erase(entry->procs, me);
    if (std::find(entry->left.begin(), entry->left.end(), me) == entry->left.end()) {
        entry->left.push_back(me);
    }
    // Every process it names has joined: it goes when none of them runs
    // (the heirs never leave it themselves).
    entry->expect = static_cast<std::uint32_t>(entry->procs.size() + entry->left.size());
    entry->since = here.now;
    if (entry->procs.empty()) {
        std::erase_if(entries, [&](const Entry &e) { return &e == entry; });
    }
}

// ---------------------------------------------------------------- the file

Status check_private_directory(const std::string &directory)
{
    if (::mkdir(directory.c_str(), 0700) != 0 && errno != EEXIST) {
        return make_error(MERIDIAN_ERR_IO,
                          "cannot make the directory " + directory + ": " + system_reason(errno));
    }
    struct stat info {
    };
    if (::lstat(directory.c_str(), &info) != 0) {
        return make_error(MERIDIAN_ERR_IO,
                          "cannot look at " + directory + ": " + system_reason(errno));
    }
    if (!S_ISDIR(info.st_mode) || info.st_uid != ::getuid() || (info.st_mode & 022) != 0) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(info.st_mode & 07777));
        return make_error(
            MERIDIAN_ERR_BAD_PARAM,
            directory + " is not a directory of this user that only it may write (" +
                (S_ISLNK(info.st_mode) ? std::string("a symbolic link")
                 : !S_ISDIR(info.st_mode)
                     ? std::string("not a directory")
                     : "owner uid " + std::to_string(info.st_uid) + ", mode " + mode) +
                "; this user is uid " + std::to_string(::getuid()) + ")");
    }
    return success();
}

Status update(const std::string &path, const Running &running,
              const std::function<void(std::vector<Entry> &, const Here &)> &change,
              std::chrono::milliseconds lock_wait)
{
    const std::string directory = directory_of(path);
    if (::mkdir(directory.c_str(), 0700) != 0 && errno != EEXIST) {
        return make_error(MERIDIAN_ERR_IO,
                          "cannot make the directory " + directory + ": " + system_reason(errno));
    }
    Lock lock;
    if (auto locked = lock.take(path + ".lock", lock_wait); !locked) {
        return locked;
    }
    std::string text;
    if (auto read = util::read_file(path, ledger_limit, "port ledger"); read) {
        text = std::move(*read);
    } else if (read.error().status != MERIDIAN_ERR_NOT_FOUND) {
        return make_error(read.error().status, "cannot read " + path + ": " + read.error().message);
    }
    auto entries = parse(text, path);
    if (!entries) {
        return entries.error();
    }
    const Here facts = here();
    reclaim(*entries, facts, running);
    change(*entries, facts);
    const std::string written = format(*entries);
    if (written == text) {
        return success();
    }
    return write_whole(path, written);
}

} // namespace meridian::pnet_tcp::ledger
