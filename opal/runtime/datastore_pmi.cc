// SPDX-License-Identifier: BSD-3-Clause
// The PMI-1 datastore backend: the "simple" wire protocol that MPICH's and
// Intel MPI's mpiexec (hydra), srun --mpi=pmi2 and flux run (pmi=simple)
// serve to the processes they start.
//
// The launcher hands each process a connection: a file descriptor in PMI_FD
// (with PMI_RANK and PMI_SIZE), or a TCP address in PMI_PORT with PMI_ID,
// which the process presents and gets its rank and size back.  Over it go
// lines of "key=value" words, one command and one answer each:
//
//   init (version 1.1) -> response_to_init   get_maxes -> maxes
//   get_my_kvsname -> my_kvsname              put -> put_result
//   barrier_in -> barrier_out                 get -> get_result
//   abort (no answer)                         finalize -> finalize_ack
//
// The job's processes share one key space (the kvsname), published values
// become visible to the others at the next barrier, and a value is text of
// at most vallen_max bytes (1024 in hydra, Slurm and Flux) without spaces.
// So a Meridian value is encoded (datastore::encode), written in a
// base64 alphabet without '=', and split over several keys when it is
// longer than one; a key carries the publisher's rank.  Which ranks share
// a node comes from the launcher's PMI_process_mapping.  PMI has no events:
// notify and on_event say so, and the job's messages are each process's
// own.  The launcher's end is seen as the connection's (on_launcher_lost).
#include <meridian/opal/runtime/datastore.hpp>

#include <fcntl.h>
#include <netdb.h>
#include <linux/sockios.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <meridian/opal/util/strings.hpp>

namespace meridian::datastore
{

namespace
{

// What the protocol's servers take when get_maxes does not say (MPICH's
// PMI-1 header).
constexpr std::size_t default_keylen_max = 64;
constexpr std::size_t default_vallen_max = 1024;
// A command's line: hydra and the MPICH client read at most 1024 bytes.
constexpr std::size_t line_max = 1024;
// The longest answer this client takes: a get_result with a value of
// vallen_max, and some room; beyond it, the launcher is not speaking PMI.
constexpr std::size_t answer_max = 64 * 1024;

std::string errno_text(int error)
{
    return std::strerror(error);
}

// ---------------------------------------------------------------- values as PMI text

// base64's alphabet with '-' and '_' (RFC 4648's URL-safe one), no padding:
// nothing a PMI server's parser splits on (space, '=', newline).
constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string to_text(std::span<const std::uint8_t> bytes)
{
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        const std::uint32_t n = (std::uint32_t{bytes[i]} << 16) |
                                (std::uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
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

// ---------------------------------------------------------------- answers

// An answer's words: "cmd=get_result rc=0 value=..." (a value may hold
// '='; the first one ends the word's name).  Its own copies: an answer is
// moved about.
class Answer
{
  public:
    explicit Answer(std::string line) : line_(std::move(line))
    {
        std::string_view rest(line_);
        while (!rest.empty()) {
            const std::size_t end = std::min(rest.find(' '), rest.size());
            const std::string_view word = rest.substr(0, end);
            rest.remove_prefix(std::min(end + 1, rest.size()));
            if (const std::size_t eq = word.find('='); eq != std::string_view::npos) {
                words_.emplace_back(std::string(word.substr(0, eq)),
                                    std::string(word.substr(eq + 1)));
            }
        }
    }
    std::optional<std::string_view> operator[](std::string_view name) const
    {
        for (const auto &[n, v] : words_) {
            if (n == name) {
                return std::string_view(v);
            }
        }
        return std::nullopt;
    }
    std::string_view cmd() const { return (*this)["cmd"].value_or(""); }
    // rc=0, or no rc at all (hydra leaves it out of some answers).
    bool ok() const
    {
        const auto rc = (*this)["rc"];
        return !rc || *rc == "0";
    }
    const std::string &line() const { return line_; }

  private:
    std::string line_;
    std::vector<std::pair<std::string, std::string>> words_;
};

std::optional<std::uint32_t> to_count(std::string_view text)
{
    std::uint32_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
        return std::nullopt;
    }
    return n;
}

// ---------------------------------------------------------------- the connection

// One process's connection to its launcher's PMI server.  Not thread-safe:
// the store serializes.
class Connection
{
  public:
    explicit Connection(int fd) : fd_(fd) {}
    Connection(const Connection &) = delete;
    Connection &operator=(const Connection &) = delete;
    ~Connection()
    {
        if (fd_ >= 0) {
            ::close(fd_);
        }
    }
    int fd() const { return fd_; }

    // Send one command (a line, '\n' added).
    Status send(const std::string &command)
    {
        std::string line = command + "\n";
        std::size_t sent = 0;
        while (sent < line.size()) {
            const ssize_t n = ::send(fd_, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n < 0 && errno == ENOTSOCK) {
                // A pipe the launcher handed over; SIGPIPE is the
                // program's to handle there.
                const ssize_t w = ::write(fd_, line.data() + sent, line.size() - sent);
                if (w < 0 && errno == EINTR) {
                    continue;
                }
                if (w <= 0) {
                    return lost("sending " + first_word(command), errno);
                }
                sent += static_cast<std::size_t>(w);
                continue;
            }
            if (n <= 0) {
                return lost("sending " + first_word(command), errno);
            }
            sent += static_cast<std::size_t>(n);
        }
        return success();
    }

    // The next answer line; `timeout` < 0 waits for as long as it takes
    // (a barrier waits for the slowest process).
    Result<Answer> receive(std::string_view waiting_for, int timeout_ms = -1)
    {
        for (;;) {
            if (const std::size_t nl = buffer_.find('\n'); nl != std::string::npos) {
                std::string line = buffer_.substr(0, nl);
                buffer_.erase(0, nl + 1);
                return Answer(std::move(line));
            }
            if (buffer_.size() > answer_max) {
                return make_error(MERIDIAN_ERROR,
                                  "datastore: the PMI launcher's answer to " +
                                      std::string(waiting_for) + " is longer than " +
                                      std::to_string(answer_max) + " bytes: not PMI");
            }
            if (timeout_ms >= 0) {
                pollfd p{fd_, POLLIN, 0};
                const int ready = ::poll(&p, 1, timeout_ms);
                if (ready < 0 && errno == EINTR) {
                    continue;
                }
                if (ready == 0) {
                    return make_error(MERIDIAN_ERR_TIMEOUT,
                                      "datastore: the PMI launcher did not answer " +
                                          std::string(waiting_for) + " within " +
                                          std::to_string(timeout_ms) + " ms");
                }
            }
            char chunk[4096];
            const ssize_t n = ::read(fd_, chunk, sizeof chunk);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                return lost("waiting for the answer to " + std::string(waiting_for),
                            n == 0 ? 0 : errno);
            }
            buffer_.append(chunk, static_cast<std::size_t>(n));
        }
    }

    // Send and take the answer, which must be `expected`.
    Result<Answer> ask(const std::string &command, std::string_view expected)
    {
        if (auto sent = send(command); !sent) {
            return sent.error();
        }
        auto answer = receive(first_word(command));
        if (!answer) {
            return answer.error();
        }
        if (answer->cmd() != expected) {
            return make_error(MERIDIAN_ERROR,
                              "datastore: the PMI launcher answered " + first_word(command) +
                                  " with " + util::quoted(answer->line()) + " (expected cmd=" +
                                  std::string(expected) + ")");
        }
        return answer;
    }

  private:
    static std::string first_word(const std::string &command)
    {
        return command.substr(0, command.find(' '));
    }
    static Error lost(const std::string &doing, int error)
    {
        return make_error(MERIDIAN_ERR_UNREACH,
                          "datastore: the PMI launcher's connection closed while " + doing +
                              (error != 0 ? " (" + errno_text(error) + ")" : std::string()) +
                              ": the launcher (mpiexec, srun, flux) has ended");
    }

    int fd_;
    std::string buffer_;
};

// A connection by PMI_PORT ("host:port") and PMI_ID: the server learns who
// this is from the id and answers with the rank and size.
Result<std::unique_ptr<Connection>> connect_port(const std::string &where, const std::string &id,
                                                 std::uint32_t &rank, std::uint32_t &size)
{
    const std::size_t colon = where.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == where.size()) {
        return make_error(MERIDIAN_ERR_BAD_PARAM, "datastore: PMI_PORT " + util::quoted(where) +
                                                      " is not host:port");
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
        return make_error(MERIDIAN_ERR_UNREACH, "datastore: PMI_PORT " + util::quoted(where) +
                                                    ": " + ::gai_strerror(rc));
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
    auto connection = std::make_unique<Connection>(fd);
    if (auto sent = connection->send("cmd=initack pmiid=" + id); !sent) {
        return sent.error();
    }
    auto ack = connection->receive("initack");
    if (!ack) {
        return ack.error();
    }
    if (ack->cmd() != "initack" || !ack->ok()) {
        return make_error(MERIDIAN_ERROR, "datastore: the PMI launcher at " + where +
                                              " refused PMI_ID " + util::quoted(id) + ": " +
                                              util::quoted(ack->line()));
    }
    // Then "cmd=set size=N", "cmd=set rank=R", "cmd=set debug=D".
    bool have_rank = false;
    bool have_size = false;
    for (int i = 0; i < 3; ++i) {
        auto set = connection->receive("initack");
        if (!set) {
            return set.error();
        }
        if (set->cmd() != "set") {
            return make_error(MERIDIAN_ERROR, "datastore: the PMI launcher at " + where +
                                                  " sent " + util::quoted(set->line()) +
                                                  " after initack (expected cmd=set)");
        }
        if (auto n = (*set)["size"]; n && to_count(*n)) {
            size = *to_count(*n);
            have_size = true;
        }
        if (auto n = (*set)["rank"]; n && to_count(*n)) {
            rank = *to_count(*n);
            have_rank = true;
        }
    }
    if (!have_rank || !have_size) {
        return make_error(MERIDIAN_ERROR, "datastore: the PMI launcher at " + where +
                                              " gave no rank or size after initack");
    }
    return connection;
}

// ---------------------------------------------------------------- the node map

// PMI_process_mapping: "(vector,(start,nodes,count),...)": from node
// `start`, `nodes` nodes of `count` consecutive ranks each; the list repeats
// until every rank has a node (a cyclic mapping is "(vector,(0,N,1))").
// The node of each rank; nullopt when the text is not such a list.
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
            auto n = to_count(block.substr(0, comma));
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

// ---------------------------------------------------------------- the store

// This process's own values carry its host name for job_nodes().
constexpr std::string_view key_host = "meridian.pmi.host";

class PmiStore final : public Store
{
  public:
    PmiStore(std::unique_ptr<Connection> connection, std::uint32_t rank, std::uint32_t size)
        : connection_(std::move(connection)), job_size_(size)
    {
        self_.rank = rank;
        char name[256] = {};
        node_name_ = gethostname(name, sizeof name - 1) == 0 && name[0] != '\0' ? name : "localhost";
    }
    PmiStore(const PmiStore &) = delete;
    PmiStore &operator=(const PmiStore &) = delete;
    ~PmiStore() override
    {
        stop_watching();
        // The launcher takes a process that ends without finalize for one
        // that failed; its answer is waited for a little only.  (Not after
        // a refused init.)
        if (initialized_ && connection_->send("cmd=finalize")) {
            (void)connection_->receive("finalize", 5000);
        }
    }

    // init with the version, the limits, the key space, the node map.
    Status start()
    {
        auto init = connection_->ask("cmd=init pmi_version=1 pmi_subversion=1", "response_to_init");
        if (!init) {
            return init.error();
        }
        if (!init->ok()) {
            return make_error(MERIDIAN_ERR_VERSION_MISMATCH,
                              "datastore: the PMI launcher refused PMI version 1.1: " +
                                  util::quoted(init->line()));
        }
        initialized_ = true;
        auto maxes = connection_->ask("cmd=get_maxes", "maxes");
        if (!maxes) {
            return maxes.error();
        }
        keylen_max_ = limit(*maxes, "keylen_max", default_keylen_max);
        vallen_max_ = limit(*maxes, "vallen_max", default_vallen_max);
        const std::size_t kvsname_max = limit(*maxes, "kvsname_max", 256);
        auto kvs = connection_->ask("cmd=get_my_kvsname", "my_kvsname");
        if (!kvs) {
            return kvs.error();
        }
        const auto name = (*kvs)["kvsname"];
        if (!name || name->empty() || name->size() >= kvsname_max) {
            return make_error(MERIDIAN_ERROR, "datastore: the PMI launcher gave no key space: " +
                                                  util::quoted(kvs->line()));
        }
        self_.nspace = std::string(*name);
        if (keylen_max_ < 24 || vallen_max_ < 32) {
            return make_error(MERIDIAN_ERR_NOT_SUPPORTED,
                              "datastore: the PMI launcher takes keys of " +
                                  std::to_string(keylen_max_) + " and values of " +
                                  std::to_string(vallen_max_) +
                                  " bytes at most, too few for Meridian (24 and 32)");
        }
        learn_nodes();
        // For job_nodes(): visible to the others after the next fence.
        return put(key_host, node_name_);
    }

    std::string_view backend() const override { return "pmi"; }
    const ProcId &self() const override { return self_; }
    std::uint32_t job_size() const override { return job_size_; }
    const std::string &node_name() const override { return node_name_; }
    std::uint32_t local_rank() const override { return local_rank_; }
    std::uint32_t local_size() const override
    {
        return node_of_.empty() ? job_size_ : static_cast<std::uint32_t>(local_peers_.size());
    }

    Status put(std::string_view key, Value value) override
    {
        if (key.empty()) {
            return make_error(MERIDIAN_ERR_BAD_PARAM, "datastore: a key must not be empty");
        }
        const std::string text = to_text(encode(value));
        const std::string base = wire_key(self_.rank, key);
        const std::lock_guard guard(lock_);
        const std::size_t room = chunk_room(base);
        if (text.size() + 1 <= room) {
            if (auto done = put_wire(base, "V" + text, key); !done) {
                return done;
            }
        } else {
            const std::size_t chunk = room - 1;
            const std::size_t count = (text.size() + chunk - 1) / chunk;
            for (std::size_t i = 0; i < count; ++i) {
                if (auto done = put_wire(base + "#" + std::to_string(i + 1),
                                         "C" + text.substr(i * chunk, chunk), key);
                    !done) {
                    return done;
                }
            }
            // The head last: a reader that sees it finds every piece.
            if (auto done = put_wire(base, "N" + std::to_string(count), key); !done) {
                return done;
            }
        }
        published_.insert_or_assign(std::string(key), std::move(value));
        return success();
    }

    // PMI-1 sends each put at once; the barrier makes them visible.
    Status commit() override { return success(); }

    Status fence() override
    {
        const std::lock_guard guard(lock_);
        auto out = connection_->ask("cmd=barrier_in", "barrier_out");
        if (!out) {
            return out.error();
        }
        if (!out->ok()) {
            return make_error(MERIDIAN_ERROR, "datastore: the PMI launcher's barrier failed: " +
                                                  util::quoted(out->line()));
        }
        return success();
    }

    Status notify(int, const InfoList &, EventRange) override { return no_events(); }
    Status notify_node_from(const ProcId &, int, const InfoList &) override { return no_events(); }
    Status on_event(int, EventHandler) override { return no_events(); }

    Status on_launcher_lost(std::function<void()> handler) override
    {
        const std::lock_guard guard(lock_);
        if (watcher_.joinable()) {
            return make_error(MERIDIAN_ERR_EXISTS,
                              "datastore: the PMI launcher's loss is already watched");
        }
        wake_ = ::eventfd(0, EFD_CLOEXEC);
        if (wake_ < 0) {
            return make_error(MERIDIAN_ERR_OUT_OF_RESOURCE,
                              "datastore: watching the PMI launcher: " + errno_text(errno));
        }
        // Only the connection's end, never its data: the store's calls
        // read the answers.
        watcher_ = std::thread([fd = connection_->fd(), wake = wake_,
                                handler = std::move(handler)] {
            pollfd p[2] = {{fd, POLLRDHUP, 0}, {wake, POLLIN, 0}};
            for (;;) {
                const int ready = ::poll(p, 2, -1);
                if (ready < 0 && errno == EINTR) {
                    continue;
                }
                if (ready < 0 || p[1].revents != 0) {
                    return;
                }
                if ((p[0].revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0) {
                    handler();
                    return;
                }
            }
        });
        return success();
    }

    Result<Value> wait_for(const ProcId &proc, std::string_view key,
                           std::chrono::milliseconds timeout) const override
    {
        // A value another process put is there after its next barrier:
        // asked again, less often each time (at most every 50 ms).
        const auto until = std::chrono::steady_clock::now() + timeout;
        auto pause = std::chrono::milliseconds(1);
        for (;;) {
            auto value = get(proc, key);
            if (value || value.error().status != MERIDIAN_ERR_NOT_FOUND) {
                return value;
            }
            if (std::chrono::steady_clock::now() >= until) {
                return make_error(MERIDIAN_ERR_TIMEOUT,
                                  "datastore: " + format_proc(proc) + " published no " +
                                      util::quoted(key) + " within " +
                                      std::to_string(timeout.count()) + " ms (PMI datastore)");
            }
            std::this_thread::sleep_for(pause);
            pause = std::min(pause * 2, std::chrono::milliseconds(50));
        }
    }

    Result<std::vector<std::uint32_t>> local_peers() const override
    {
        if (node_of_.empty()) {
            return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                              "datastore: the PMI launcher gave no PMI_process_mapping, so "
                              "which ranks share this node is not known");
        }
        return local_peers_;
    }

    Result<std::vector<NodeRanks>> job_nodes() const override
    {
        if (node_of_.empty()) {
            return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                              "datastore: the PMI launcher gave no PMI_process_mapping, so the "
                              "job's nodes are not known");
        }
        // The launcher's node numbers in order; their names from each
        // node's lowest rank (published at start, visible after a fence).
        std::vector<NodeRanks> nodes;
        std::vector<std::int64_t> index_of;
        for (std::uint32_t r = 0; r < job_size_; ++r) {
            const std::uint32_t node = node_of_[r];
            if (index_of.size() <= node) {
                index_of.resize(node + 1, -1);
            }
            if (index_of[node] < 0) {
                index_of[node] = static_cast<std::int64_t>(nodes.size());
                nodes.push_back({});
            }
            nodes[static_cast<std::size_t>(index_of[node])].ranks.push_back(r);
        }
        for (auto &node : nodes) {
            const std::uint32_t first = node.ranks.front();
            if (first == self_.rank || node_of_[first] == node_of_[self_.rank]) {
                node.node = node_name_;
                continue;
            }
            auto name = get({self_.nspace, first}, key_host);
            if (!name || !std::holds_alternative<std::string>(*name)) {
                return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                                  "datastore: the name of the node of rank " +
                                      std::to_string(first) +
                                      " is known after the job's first fence (PMI datastore)");
            }
            node.node = std::get<std::string>(*name);
        }
        return nodes;
    }

    void abort_job(int status, std::string_view message) override
    {
        // PMI-1's abort carries a code only: the message is the caller's to
        // print.  What was printed is still in the pipes to the launcher,
        // which ends the job's processes and itself once it reads the abort
        // (hydra, before it reads the pipes): it goes out first, a second
        // at most.
        (void)message;
        drain_output();
        const std::lock_guard guard(lock_);
        (void)connection_->send("cmd=abort exitcode=" + std::to_string(status));
    }

  protected:
    Result<Value> fetch(const ProcId &proc, std::string_view key) const override
    {
        if (proc == self_) {
            if (const auto it = published_.find(std::string(key)); it != published_.end()) {
                return it->second;
            }
        }
        if (proc.nspace != self_.nspace || proc.rank == job_rank || proc.rank >= job_size_ ||
            key.empty()) {
            return missing(proc, key);
        }
        const std::lock_guard guard(lock_);
        const std::string base = wire_key(proc.rank, key);
        auto head = get_wire(base);
        if (!head) {
            return head.error().status == MERIDIAN_ERR_NOT_FOUND ? missing(proc, key)
                                                                 : Result<Value>(head.error());
        }
        std::string text;
        if (!head->empty() && head->front() == 'V') {
            text = head->substr(1);
        } else if (auto count = head->empty() || head->front() != 'N'
                                    ? std::nullopt
                                    : to_count(std::string_view(*head).substr(1));
                   count && *count > 0) {
            for (std::uint32_t i = 1; i <= *count; ++i) {
                auto piece = get_wire(base + "#" + std::to_string(i));
                if (!piece || piece->empty() || piece->front() != 'C') {
                    return corrupt(proc, key, "piece " + std::to_string(i) + " of " +
                                                  std::to_string(*count) + " is missing");
                }
                text.append(*piece, 1);
            }
        } else {
            return corrupt(proc, key, "it is not one Meridian wrote");
        }
        auto bytes = from_text(text);
        if (!bytes) {
            return corrupt(proc, key, "it is not in Meridian's encoding");
        }
        auto value = decode(*bytes);
        if (!value) {
            return corrupt(proc, key, value.error().message);
        }
        return value;
    }

  private:
    // Until the launcher has read what this process wrote to stdout and
    // stderr (a pipe: FIONREAD; a socket: SIOCOUTQ), at most a second.
    static void drain_output()
    {
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
        for (const int fd : {STDOUT_FILENO, STDERR_FILENO}) {
            struct stat about{};
            if (::fstat(fd, &about) != 0 || !(S_ISFIFO(about.st_mode) || S_ISSOCK(about.st_mode))) {
                continue; // a file or a terminal: written already
            }
            const unsigned long ask = S_ISFIFO(about.st_mode) ? FIONREAD : SIOCOUTQ;
            for (;;) {
                int pending = 0;
                if (::ioctl(fd, ask, &pending) != 0 || pending <= 0 ||
                    std::chrono::steady_clock::now() >= until) {
                    break;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
            }
        }
    }

    static std::size_t limit(const Answer &maxes, std::string_view name, std::size_t otherwise)
    {
        const auto text = maxes[name];
        const auto n = text ? to_count(*text) : std::nullopt;
        return n && *n > 0 ? *n : otherwise;
    }

    static Status no_events()
    {
        return make_error(MERIDIAN_ERR_NOT_SUPPORTED,
                          "PMI-1 launchers carry no events between a job's processes");
    }

    Error missing(const ProcId &proc, std::string_view key) const
    {
        return make_error(MERIDIAN_ERR_NOT_FOUND, "datastore: no value for " + util::quoted(key) +
                                                      " of " + format_proc(proc) +
                                                      " (PMI datastore)");
    }
    static Error corrupt(const ProcId &proc, std::string_view key, const std::string &why)
    {
        return make_error(MERIDIAN_ERROR, "datastore: the value of " + util::quoted(key) +
                                              " of " + format_proc(proc) +
                                              " in the PMI launcher is damaged: " + why);
    }

    // A key as the launcher keeps it: "KEY@RANK", or, when KEY is long or
    // holds characters a PMI server may split on, "hHASH@RANK"; room is
    // left for a piece's "#N".
    std::string wire_key(std::uint32_t rank, std::string_view key) const
    {
        const std::string suffix = "@" + std::to_string(rank);
        constexpr std::size_t piece_room = 8; // "#" and up to 7 digits
        if (plain_key(key) && key.size() + suffix.size() + piece_room < keylen_max_) {
            return std::string(key) + suffix;
        }
        std::uint64_t h = 1469598103934665603ULL; // FNV-1a
        for (const char c : key) {
            h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
        }
        return "h" + hex64(h) + suffix;
    }

    // How much of a value fits under `key`: vallen_max and the line.
    std::size_t chunk_room(const std::string &key) const
    {
        const std::size_t line = std::string_view("cmd=put kvsname= key=#9999999 value=\n").size() +
                                 self_.nspace.size() + key.size();
        const std::size_t by_line = line_max > line + 1 ? line_max - line - 1 : 0;
        return std::max<std::size_t>(2, std::min(vallen_max_ - 1, by_line));
    }

    Status put_wire(const std::string &wire, const std::string &text, std::string_view key)
    {
        auto result =
            connection_->ask("cmd=put kvsname=" + self_.nspace + " key=" + wire + " value=" + text,
                             "put_result");
        if (!result) {
            return result.error();
        }
        if (!result->ok()) {
            return make_error(MERIDIAN_ERROR, "datastore: the PMI launcher refused " +
                                                  util::quoted(key) + ": " +
                                                  util::quoted(result->line()));
        }
        return success();
    }

    // A key's text, MERIDIAN_ERR_NOT_FOUND when the launcher has none.
    Result<std::string> get_wire(const std::string &wire) const
    {
        auto result =
            connection_->ask("cmd=get kvsname=" + self_.nspace + " key=" + wire, "get_result");
        if (!result) {
            return result.error();
        }
        const auto value = (*result)["value"];
        if (!result->ok() || !value) {
            return make_error(MERIDIAN_ERR_NOT_FOUND, "not found");
        }
        return std::string(*value);
    }

    // The node map, where the launcher gives one; without it each
    // process's node is its own (local_size() is then job_size()).
    void learn_nodes()
    {
        auto mapping = get_wire("PMI_process_mapping");
        if (!mapping) {
            return;
        }
        auto node_of = parse_mapping(*mapping, job_size_);
        if (!node_of) {
            return;
        }
        node_of_ = std::move(*node_of);
        const std::uint32_t mine = node_of_[self_.rank];
        for (std::uint32_t r = 0; r < job_size_; ++r) {
            if (node_of_[r] == mine) {
                if (r == self_.rank) {
                    local_rank_ = static_cast<std::uint32_t>(local_peers_.size());
                }
                local_peers_.push_back(r);
            }
        }
    }

    void stop_watching()
    {
        if (watcher_.joinable()) {
            const std::uint64_t one = 1;
            (void)!::write(wake_, &one, sizeof one);
            watcher_.join();
        }
        if (wake_ >= 0) {
            ::close(wake_);
            wake_ = -1;
        }
    }

    std::unique_ptr<Connection> connection_;
    mutable std::mutex lock_;
    ProcId self_;
    std::uint32_t job_size_;
    std::string node_name_;
    std::uint32_t local_rank_ = 0;
    std::size_t keylen_max_ = default_keylen_max;
    std::size_t vallen_max_ = default_vallen_max;
    std::vector<std::uint32_t> node_of_;
    std::vector<std::uint32_t> local_peers_;
    std::unordered_map<std::string, Value> published_;
    bool initialized_ = false;
    std::thread watcher_;
    int wake_ = -1;
};

std::optional<std::uint32_t> env_number(const char *name)
{
    const char *text = std::getenv(name);
    return text != nullptr ? to_count(text) : std::nullopt;
}

} // namespace

bool launched_by_pmi()
{
    return std::getenv("PMI_FD") != nullptr ||
           (std::getenv("PMI_PORT") != nullptr && std::getenv("PMI_ID") != nullptr);
}

Result<std::unique_ptr<Store>> make_pmi_store()
{
    std::unique_ptr<Connection> connection;
    std::uint32_t rank = 0;
    std::uint32_t size = 0;
    if (const char *fd_text = std::getenv("PMI_FD"); fd_text != nullptr) {
        const auto fd = to_count(fd_text);
        const auto r = env_number("PMI_RANK");
        const auto n = env_number("PMI_SIZE");
        if (!fd || *fd > INT32_MAX || ::fcntl(static_cast<int>(*fd), F_GETFD) < 0) {
            return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                              "datastore: PMI_FD " + util::quoted(fd_text) +
                                  " is not an open file descriptor of this process (a PMI "
                                  "launcher's variable inherited by a program it did not start?)");
        }
        if (!r || !n || *n == 0 || *r >= *n) {
            return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                              "datastore: PMI_FD is set but PMI_RANK and PMI_SIZE are not a rank "
                              "and a size");
        }
        // Not handed on to the programs this one starts.
        (void)::fcntl(static_cast<int>(*fd), F_SETFD, FD_CLOEXEC);
        connection = std::make_unique<Connection>(static_cast<int>(*fd));
        rank = *r;
        size = *n;
    } else if (const char *port = std::getenv("PMI_PORT"), *id = std::getenv("PMI_ID");
               port != nullptr && id != nullptr) {
        auto connected = connect_port(port, id, rank, size);
        if (!connected) {
            return connected.error();
        }
        if (size == 0 || rank >= size) {
            return make_error(MERIDIAN_ERROR, "datastore: the PMI launcher at " +
                                                  std::string(port) + " gave rank " +
                                                  std::to_string(rank) + " of " +
                                                  std::to_string(size));
        }
        connection = std::move(*connected);
    } else {
        return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                          "datastore: no PMI launcher started this process (neither PMI_FD nor "
                          "PMI_PORT and PMI_ID are set)");
    }
    auto store = std::make_unique<PmiStore>(std::move(connection), rank, size);
    if (auto started = store->start(); !started) {
        return started.error();
    }
    return std::unique_ptr<Store>(std::move(store));
}

} // namespace meridian::datastore
