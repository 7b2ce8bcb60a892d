// SPDX-License-Identifier: BSD-3-Clause
// The datastore's PMI backend against a PMI-1 and PMI-2 server of the
// test's own (one thread, socket pairs as PMI_FD, or TCP loopback for
// PMI_PORT): values of every type and of any length cross between two
// processes' stores within the server's key, value and line limits, in
// either version; the job's shape from PMI_process_mapping; a missing key's
// message; wait_for; the launcher's end; abort and finalize; which version
// is asked for and what follows the launcher's answer (flux's 1.1 for 2.0,
// a refusal); and what is refused, with its message (a wrong answer, a
// refused version, a descriptor that is not open or not a socket, a size
// of 0, a rank past it, a fullinit that disagrees with the environment,
// PMI_PORT's mistakes, a hung server, a line or message cut short, a
// length that is not one, a value past vallen_max, pieces missing).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "opal/runtime/pmi_client.hpp"
#include "test/support/meridian_test.hpp"
#include <meridian/opal/runtime/datastore.hpp>

using namespace meridian;
using namespace meridian::datastore;

namespace
{

// A PMI server for `size` clients: what hydra answers (PMI-1, and PMI-2
// where init asks for 2.0), with its limits checked, and what it saw kept
// for the tests to read.
class Server
{
  public:
    struct Options {
        std::uint32_t size = 2;
        std::size_t keylen_max = 64;
        std::size_t vallen_max = 1024;
        std::string mapping; // PMI_process_mapping; empty: none
        std::string init_answer = "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0";
        std::string maxes_answer; // empty: the limits above
        // PMI-2: the answer to init 2.0 (framed messages follow where it
        // agrees to 2.0), and to fullinit (empty: rank r of size).
        std::string init_v2_answer = "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0";
        std::string fullinit_answer;
        std::string jobid = "77.0"; // job-getid's
        // Hydra's PMI-2 (MPICH 4.0-4.2): a put is seen at once, kvs-fence
        // answers at once, and a kvs-get of a missing key waits until every
        // process has fenced as often as the asker.
        bool hydra_fence = false;
    };

    explicit Server(Options options) : options_(std::move(options))
    {
        for (std::uint32_t r = 0; r < options_.size; ++r) {
            int pair[2];
            ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
            clients_.push_back({pair[0], {}, false, false, {}, 0});
            client_fds_.push_back(pair[1]);
        }
        int pipe_fds[2];
        ck_assert_int_eq(pipe(pipe_fds), 0);
        wake_read_ = pipe_fds[0];
        wake_write_ = pipe_fds[1];
        thread_ = std::thread([this] { serve(); });
    }
    Server(const Server &) = delete;
    Server &operator=(const Server &) = delete;
    ~Server()
    {
        // (The clients' ends are their stores' to close.)
        stop();
        ::close(wake_read_);
        ::close(wake_write_);
    }

    // The descriptor rank r's process gets as PMI_FD.
    int client_fd(std::uint32_t r) const { return client_fds_[r]; }
    // The environment of rank r's process.
    void become(std::uint32_t r) const
    {
        setenv("PMI_FD", std::to_string(client_fd(r)).c_str(), 1);
        setenv("PMI_RANK", std::to_string(r).c_str(), 1);
        setenv("PMI_SIZE", std::to_string(options_.size).c_str(), 1);
        setenv("PMI_JOBID", "77.0", 1);
    }
    // The server's end of rank r's connection closes: its launcher is gone.
    void hang_up(std::uint32_t r)
    {
        const std::lock_guard guard(lock_);
        ::shutdown(clients_[r].fd, SHUT_RDWR);
    }
    void stop()
    {
        if (thread_.joinable()) {
            const char byte = 0;
            (void)!::write(wake_write_, &byte, 1);
            thread_.join();
            for (auto &c : clients_) {
                ::close(c.fd);
            }
        }
    }

    // What it saw.
    std::vector<std::string> violations() const
    {
        const std::lock_guard guard(lock_);
        return violations_;
    }
    std::vector<std::string> commands(std::uint32_t r) const
    {
        const std::lock_guard guard(lock_);
        return clients_[r].commands;
    }
    std::size_t puts() const
    {
        const std::lock_guard guard(lock_);
        return puts_;
    }
    std::size_t longest_value() const
    {
        const std::lock_guard guard(lock_);
        return longest_value_;
    }

  private:
    struct Client {
        int fd;
        std::string buffer;
        bool in_barrier;
        bool framed; // PMI-2 agreed
        std::vector<std::string> commands;
        std::size_t fences; // hydra_fence: kvs-fences seen
    };
    // hydra_fence: a kvs-get held, of client `client` after `epoch` fences.
    struct Held {
        std::size_t client;
        std::string key;
        std::size_t epoch;
    };

    // Called locked: the held gets that can be answered now.
    void release_held()
    {
        std::size_t fewest = SIZE_MAX;
        for (const auto &c : clients_) {
            fewest = std::min(fewest, c.fences);
        }
        for (auto it = held_.begin(); it != held_.end();) {
            const auto found = kvs_.find(it->key);
            if (found != kvs_.end()) {
                answer(clients_[it->client],
                       "cmd=kvs-get-response;found=TRUE;value=" + found->second + ";rc=0;");
            } else if (fewest >= it->epoch) {
                answer(clients_[it->client], "cmd=kvs-get-response;found=FALSE;rc=0;");
            } else {
                ++it;
                continue;
            }
            it = held_.erase(it);
        }
    }

    static std::map<std::string, std::string> words(const std::string &line, char separator = ' ')
    {
        std::map<std::string, std::string> out;
        std::size_t at = 0;
        while (at < line.size()) {
            const std::size_t end = std::min(line.find(separator, at), line.size());
            const std::string word = line.substr(at, end - at);
            if (const std::size_t eq = word.find('='); eq != std::string::npos) {
                out[word.substr(0, eq)] = word.substr(eq + 1);
            }
            at = end + 1;
        }
        return out;
    }

    void answer(Client &c, const std::string &line)
    {
        std::string text = line + "\n";
        if (c.framed) {
            char length[8];
            std::snprintf(length, sizeof length, "%6zu", line.size());
            text = length + line;
        }
        ck_assert_int_eq(::send(c.fd, text.data(), text.size(), MSG_NOSIGNAL),
                         static_cast<ssize_t>(text.size()));
    }

    // Called locked.
    void handle(Client &c, const std::string &line)
    {
        c.commands.push_back(line);
        if (line.size() + 1 > 1024) {
            violations_.push_back("a line of " + std::to_string(line.size() + 1) + " bytes");
        }
        auto w = words(line);
        const std::string cmd = w["cmd"];
        if (cmd == "init" && w["pmi_version"] == "2") {
            answer(c, options_.init_v2_answer);
            c.framed = options_.init_v2_answer.find(" pmi_version=2") != std::string::npos &&
                       options_.init_v2_answer.find(" rc=0") != std::string::npos;
        } else if (cmd == "init") {
            answer(c, options_.init_answer);
        } else if (cmd == "get_maxes") {
            answer(c, !options_.maxes_answer.empty()
                          ? options_.maxes_answer
                          : "cmd=maxes rc=0 kvsname_max=256 keylen_max=" +
                                std::to_string(options_.keylen_max) +
                                " vallen_max=" + std::to_string(options_.vallen_max));
        } else if (cmd == "get_my_kvsname") {
            answer(c, "cmd=my_kvsname rc=0 kvsname=kvs_77_0");
        } else if (cmd == "put") {
            if (w["kvsname"] != "kvs_77_0") {
                violations_.push_back("a put to key space " + w["kvsname"]);
            }
            // (PMI-1's limits count a terminating NUL.)
            put_checked(w["key"], w["value"], options_.keylen_max - 1, options_.vallen_max - 1);
            answer(c, "cmd=put_result rc=0 msg=success");
        } else if (cmd == "barrier_in") {
            barrier_in(c);
        } else if (cmd == "get") {
            const std::string &key = w["key"];
            if (key == "PMI_process_mapping" && !options_.mapping.empty()) {
                answer(c, "cmd=get_result rc=0 msg=success value=" + options_.mapping);
            } else if (const auto it = kvs_.find(key); it != kvs_.end()) {
                answer(c, "cmd=get_result rc=0 msg=success value=" + it->second);
            } else {
                answer(c, "cmd=get_result rc=-1 msg=key_" + key + "_not_found value=unknown");
            }
        } else if (cmd == "finalize") {
            answer(c, "cmd=finalize_ack rc=0");
        } else if (cmd == "abort") {
            // No answer: the launcher ends the job.
        } else {
            answer(c, "cmd=unknown rc=-1");
        }
    }

    // Called locked: a fence's end answers all of them, each in its
    // version.
    void barrier_in(Client &c)
    {
        c.in_barrier = true;
        bool all = true;
        for (const auto &other : clients_) {
            all = all && other.in_barrier;
        }
        if (all) {
            for (auto &[k, v] : pending_) {
                kvs_[k] = v;
            }
            pending_.clear();
            for (auto &other : clients_) {
                other.in_barrier = false;
                answer(other,
                       other.framed ? "cmd=kvs-fence-response;rc=0;" : "cmd=barrier_out rc=0");
            }
        }
    }

    void put_checked(const std::string &key, const std::string &value, std::size_t keylen_max,
                     std::size_t vallen_max)
    {
        ++puts_;
        longest_value_ = std::max(longest_value_, value.size());
        if (key.size() > keylen_max) {
            violations_.push_back("key " + key + " is longer than keylen_max");
        }
        if (value.size() > vallen_max) {
            violations_.push_back("the value of " + key + " is longer than vallen_max");
        }
        if (value.empty() || value.find_first_of(" =;") != std::string::npos) {
            violations_.push_back("the value of " + key + " is empty or holds ' ', '=' or ';'");
        }
        pending_[key] = value;
    }

    // PMI-2's commands, as hydra and Slurm answer them.  Called locked.
    void handle_v2(Client &c, const std::string &body)
    {
        c.commands.push_back(body);
        if (body.empty() || body.back() != ';') {
            violations_.push_back("a PMI-2 command without its closing ';': " + body);
        }
        auto w = words(body, ';');
        const std::string cmd = w["cmd"];
        const std::size_t rank = static_cast<std::size_t>(&c - clients_.data());
        if (cmd == "fullinit") {
            for (const char *name : {"pmijobid", "pmirank", "threaded"}) {
                if (!w.contains(name)) {
                    violations_.push_back(std::string("a fullinit without ") + name);
                }
            }
            if (w["pmirank"] != std::to_string(rank)) {
                violations_.push_back("a fullinit as pmirank " + w["pmirank"]);
            }
            answer(c, !options_.fullinit_answer.empty()
                          ? options_.fullinit_answer
                          : "cmd=fullinit-response;pmi-version=2;pmi-subversion=0;rank=" +
                                std::to_string(rank) + ";size=" + std::to_string(options_.size) +
                                ";appnum=0;debugged=FALSE;pmiverbose=FALSE;rc=0;");
        } else if (cmd == "job-getid") {
            answer(c, "cmd=job-getid-response;jobid=" + options_.jobid + ";rc=0;");
        } else if (cmd == "kvs-put") {
            put_checked(w["key"], w["value"], 64, 1024);
            answer(c, "cmd=kvs-put-response;rc=0;");
            if (options_.hydra_fence) {
                kvs_.merge(pending_);
                pending_.clear();
                release_held();
            }
        } else if (cmd == "kvs-fence" && options_.hydra_fence) {
            ++c.fences;
            answer(c, "cmd=kvs-fence-response;rc=0;");
            release_held();
        } else if (cmd == "kvs-fence") {
            barrier_in(c);
        } else if (cmd == "kvs-get") {
            if (w["jobid"] != options_.jobid) {
                violations_.push_back("a kvs-get from job " + w["jobid"]);
            }
            if (options_.hydra_fence) {
                held_.push_back({rank, w["key"], c.fences});
                release_held();
            } else if (const auto it = kvs_.find(w["key"]); it != kvs_.end()) {
                answer(c, "cmd=kvs-get-response;found=TRUE;value=" + it->second + ";rc=0;");
            } else {
                answer(c, "cmd=kvs-get-response;found=FALSE;rc=0;");
            }
        } else if (cmd == "info-getjobattr") {
            if (w["key"] == "PMI_process_mapping" && !options_.mapping.empty()) {
                answer(c, "cmd=info-getjobattr-response;found=TRUE;value=" + options_.mapping +
                              ";rc=0;");
            } else {
                answer(c, "cmd=info-getjobattr-response;found=FALSE;rc=0;");
            }
        } else if (cmd == "finalize") {
            answer(c, "cmd=finalize-response;rc=0;");
        } else if (cmd == "abort") {
            // No answer: the launcher ends the job.
        } else {
            answer(c, "cmd=" + cmd + "-response;rc=-1;errmsg=unknown command;");
        }
    }

    // What has come whole out of c's buffer: lines, then (once PMI-2 is
    // agreed) framed messages.  Called locked.
    void drain(Client &c)
    {
        for (;;) {
            if (c.framed) {
                if (c.buffer.size() < 6) {
                    return;
                }
                const std::string field = c.buffer.substr(0, 6);
                const std::size_t digits = field.find_first_not_of(' ');
                std::size_t length = 0;
                const auto [end, ec] = std::from_chars(
                    field.data() + std::min<std::size_t>(digits, 6), field.data() + 6, length);
                if (digits == std::string::npos || ec != std::errc() || end != field.data() + 6) {
                    violations_.push_back("a PMI-2 length field \"" + field + "\"");
                    c.buffer.clear();
                    return;
                }
                if (c.buffer.size() < 6 + length) {
                    return;
                }
                const std::string body = c.buffer.substr(6, length);
                c.buffer.erase(0, 6 + length);
                handle_v2(c, body);
            } else {
                const std::size_t nl = c.buffer.find('\n');
                if (nl == std::string::npos) {
                    return;
                }
                const std::string line = c.buffer.substr(0, nl);
                c.buffer.erase(0, nl + 1);
                handle(c, line);
            }
        }
    }

    void serve()
    {
        for (;;) {
            std::vector<pollfd> fds;
            fds.push_back({wake_read_, POLLIN, 0});
            for (const auto &c : clients_) {
                fds.push_back({c.fd, POLLIN, 0});
            }
            if (::poll(fds.data(), fds.size(), 10000) <= 0 || fds[0].revents != 0) {
                return; // stopped, or nothing for 10 s: the test has failed anyway
            }
            const std::lock_guard guard(lock_);
            for (std::size_t i = 0; i < clients_.size(); ++i) {
                if ((fds[i + 1].revents & (POLLIN | POLLHUP)) == 0) {
                    continue;
                }
                Client &c = clients_[i];
                char chunk[4096];
                const ssize_t n = ::read(c.fd, chunk, sizeof chunk);
                if (n <= 0) {
                    continue; // that client is gone; poll says so again: fine
                }
                c.buffer.append(chunk, static_cast<std::size_t>(n));
                drain(c);
            }
        }
    }

    Options options_;
    mutable std::mutex lock_;
    std::vector<Client> clients_;
    std::vector<int> client_fds_;
    std::map<std::string, std::string> pending_;
    std::map<std::string, std::string> kvs_;
    std::vector<std::string> violations_;
    std::vector<Held> held_;
    std::size_t puts_ = 0;
    std::size_t longest_value_ = 0;
    int wake_read_ = -1;
    int wake_write_ = -1;
    std::thread thread_;
};

void isolate()
{
    meridian_test::isolate_mca_environment();
    for (const char *name : {"PMI_FD", "PMI_RANK", "PMI_SIZE", "PMI_PORT", "PMI_ID", "PMI_JOBID",
                             "PMIX_NAMESPACE", "PMIX_RANK", "SLURM_STEP_ID"}) {
        unsetenv(name);
    }
}

std::unique_ptr<Store> start_rank(const Server &server, std::uint32_t rank,
                                  PmiVersion version = PmiVersion::any)
{
    server.become(rank);
    auto store = make_pmi_store(version);
    ck_assert_msg(store.ok(), "%s", store.ok() ? "" : store.error().message.c_str());
    return std::move(*store);
}

// Both stores' fences, side by side (each waits for the other).
void fence_both(Store &a, Store &b)
{
    Status other = success();
    std::thread t([&] { other = b.fence(); });
    const Status mine = a.fence();
    t.join();
    ck_assert_msg(mine.ok(), "%s", mine.ok() ? "" : mine.error().message.c_str());
    ck_assert_msg(other.ok(), "%s", other.ok() ? "" : other.error().message.c_str());
}

InfoList every_type(std::uint32_t rank)
{
    Coordinate c;
    c.fabric = "ethernet";
    c.plane = "10.10.1.0/24";
    c.view = MERIDIAN_COORD_PHYSICAL_VIEW;
    c.coord = {rank, 0, 2};
    Bytes large(100000);
    for (std::size_t i = 0; i < large.size(); ++i) {
        large[i] = static_cast<std::uint8_t>(i * 7 + rank);
    }
    return {
        {"t.bool", rank % 2 == 0},
        {"t.int64", std::int64_t{-1000} - rank},
        {"t.uint64", std::uint64_t{UINT64_MAX} - rank},
        {"t.double", 0.25 + rank},
        {"t.string", "rank " + std::to_string(rank) + " = \"spaces and = signs\"\n"},
        {"t.empty", std::string()},
        {"t.bytes", Bytes{0x00, 0xff, static_cast<std::uint8_t>(rank)}},
        {"t.large", large},
        {"t.strings", std::vector<std::string>{"eth0", "", "ib0"}},
        {"t.uint32s", std::vector<std::uint32_t>{32000 + rank, UINT32_MAX}},
        {"t.coords", std::vector<Coordinate>{c}},
        {"t.info", InfoList{{"pmix.alloc.netid", std::string("32000-32001")}}},
        // A key longer than PMI's, and one with what its parsers split on.
        {"meridian.a.key.longer.than.any.pmi.server.takes.for.one.key.at.all", std::uint64_t{rank}},
        {"key with spaces=and signs", std::string("v")},
    };
}

void values_cross(std::size_t vallen_max, std::size_t keylen_max,
                  PmiVersion version = PmiVersion::v1)
{
    Server::Options options;
    options.vallen_max = vallen_max;
    options.keylen_max = keylen_max;
    Server server(options);
    auto a = start_rank(server, 0, version);
    auto b = start_rank(server, 1, version);
    const std::string nspace = version == PmiVersion::v2 ? "77.0" : "kvs_77_0";
    ck_assert_text_eq(a->self().nspace, nspace);
    for (const auto &info : every_type(0)) {
        auto put = a->put(info.key, info.value);
        ck_assert_msg(put.ok(), "%s: %s", info.key.c_str(),
                      put.ok() ? "" : put.error().message.c_str());
    }
    for (const auto &info : every_type(1)) {
        ck_assert(b->put(info.key, info.value).ok());
    }
    ck_assert(a->commit().ok());
    ck_assert(b->commit().ok());
    fence_both(*a, *b);
    for (const auto &info : every_type(0)) {
        auto got = b->get({nspace, 0}, info.key);
        ck_assert_msg(got.ok(), "%s: %s", info.key.c_str(),
                      got.ok() ? "" : got.error().message.c_str());
        ck_assert_msg(*got == info.value, "%s", info.key.c_str());
    }
    for (const auto &info : every_type(1)) {
        auto got = a->get({nspace, 1}, info.key);
        ck_assert_msg(got.ok() && *got == info.value, "%s", info.key.c_str());
    }
    const auto violations = server.violations();
    ck_assert_msg(violations.empty(), "%s", violations.empty() ? "" : violations[0].c_str());
    // The large value needed many pieces, each within the limit.
    ck_assert_uint_gt(server.puts(), 2 * 100000 / vallen_max);
    ck_assert_uint_le(server.longest_value(), version == PmiVersion::v2 ? 1024 : vallen_max - 1);
    // Each command in the version asked for.
    const auto seen = server.commands(1);
    ck_assert_text_eq(seen.front(), version == PmiVersion::v2
                                        ? "cmd=init pmi_version=2 pmi_subversion=0"
                                        : "cmd=init pmi_version=1 pmi_subversion=1");
}

} // namespace

START_TEST(values_cross_within_hydras_limits)
{
    values_cross(1024, 64);
}
END_TEST

// Small limits: everything is split, long keys are hashed.
START_TEST(values_cross_within_small_limits)
{
    values_cross(40, 32);
}
END_TEST

// PMI-2's framed messages: no line limit, values up to 1024 characters.
START_TEST(values_cross_under_pmi2)
{
    values_cross(1024, 64, PmiVersion::v2);
}
END_TEST

START_TEST(the_job_from_the_launcher)
{
    Server::Options options;
    options.size = 4;
    options.mapping = "(vector,(0,2,1))"; // cyclic over two nodes
    Server server(options);
    std::vector<std::unique_ptr<Store>> stores;
    for (std::uint32_t r = 0; r < 4; ++r) {
        stores.push_back(start_rank(server, r));
    }
    Store &one = *stores[1];
    ck_assert_text_eq(one.backend(), "pmi");
    ck_assert_text_eq(one.self().nspace, "kvs_77_0");
    ck_assert_uint_eq(one.self().rank, 1);
    ck_assert_uint_eq(one.job_size(), 4);
    ck_assert_uint_eq(one.local_size(), 2);
    ck_assert_uint_eq(one.local_rank(), 0);
    ck_assert_uint_eq(stores[3]->local_rank(), 1);
    auto peers = stores[3]->local_peers();
    ck_assert(peers.ok());
    ck_assert(*peers == (std::vector<std::uint32_t>{1, 3}));
    // The nodes' names after a fence (each process published its own).
    std::vector<std::thread> fences;
    for (std::uint32_t r = 1; r < 4; ++r) {
        fences.emplace_back([&, r] { ck_assert(stores[r]->fence().ok()); });
    }
    ck_assert(stores[0]->fence().ok());
    for (auto &t : fences) {
        t.join();
    }
    auto nodes = stores[0]->job_nodes();
    ck_assert_msg(nodes.ok(), "%s", nodes.ok() ? "" : nodes.error().message.c_str());
    ck_assert_uint_eq(nodes->size(), 2);
    ck_assert((*nodes)[0].ranks == (std::vector<std::uint32_t>{0, 2}));
    ck_assert((*nodes)[1].ranks == (std::vector<std::uint32_t>{1, 3}));
    ck_assert_text_eq((*nodes)[1].node, one.node_name());
    // Events are not PMI's.
    auto told = one.notify(1, {}, Store::EventRange::node);
    ck_assert(!told.ok());
    ck_assert_text_eq(told.error().message,
                      "PMI launchers (PMI-1, PMI-2) carry no events between a job's processes");
    ck_assert(!one.on_event(1, [](const ProcId &, const InfoList &) {}).ok());
}
END_TEST

START_TEST(block_mappings_and_none)
{
    {
        Server::Options options;
        options.size = 5;
        options.mapping = "(vector,(0,1,3),(1,1,2))"; // 0-2 on node 0, 3-4 on node 1
        Server server(options);
        std::vector<std::unique_ptr<Store>> stores;
        for (std::uint32_t r = 0; r < 5; ++r) {
            stores.push_back(start_rank(server, r));
        }
        ck_assert_uint_eq(stores[2]->local_size(), 3);
        ck_assert_uint_eq(stores[2]->local_rank(), 2);
        ck_assert_uint_eq(stores[4]->local_size(), 2);
        ck_assert_uint_eq(stores[4]->local_rank(), 1);
    }
    {
        Server::Options options;
        options.mapping = "(vector,(0,9,1))"; // more than the job: not believed
        Server server(options);
        auto a = start_rank(server, 0);
        auto b = start_rank(server, 1);
        ck_assert_uint_eq(a->local_size(), 2); // unknown: the job's size
        auto peers = a->local_peers();
        ck_assert(!peers.ok());
        ck_assert_text_eq(peers.error().message,
                          "datastore: the PMI launcher gave no PMI_process_mapping, so which "
                          "ranks share this node is not known");
    }
}
END_TEST

START_TEST(missing_keys_and_waits)
{
    Server server({});
    auto a = start_rank(server, 0);
    auto b = start_rank(server, 1);
    auto missing = a->get({"kvs_77_0", 1}, "nokey");
    ck_assert(!missing.ok());
    ck_assert_int_eq(missing.error().status, MERIDIAN_ERR_NOT_FOUND);
    ck_assert_text_eq(missing.error().message,
                      "datastore: no value for \"nokey\" of kvs_77_0:1 (PMI datastore)");
    // Another job's process, or a rank past the job: not asked for.
    ck_assert(!a->get({"kvs_other", 1}, "nokey").ok());
    ck_assert(!a->get({"kvs_77_0", 9}, "nokey").ok());
    // wait_for: found once the publisher's barrier has passed.
    std::thread later([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        ck_assert(b->put("late", std::string("here")).ok());
        ck_assert(b->fence().ok());
    });
    ck_assert(a->fence().ok());
    later.join();
    auto late = a->wait_for({"kvs_77_0", 1}, "late", std::chrono::seconds(10));
    ck_assert(late.ok());
    ck_assert(std::get<std::string>(*late) == "here");
    auto never = a->wait_for({"kvs_77_0", 1}, "never", std::chrono::milliseconds(50));
    ck_assert(!never.ok());
    ck_assert_int_eq(never.error().status, MERIDIAN_ERR_TIMEOUT);
    ck_assert_text_eq(never.error().message,
                      "datastore: kvs_77_0:1 published no \"never\" within 50 ms (PMI datastore)");
}
END_TEST

START_TEST(the_launchers_end_is_seen)
{
    Server server({});
    auto a = start_rank(server, 0);
    auto b = start_rank(server, 1);
    std::mutex lock;
    std::condition_variable changed;
    bool lost = false;
    ck_assert(a->on_launcher_lost([&] {
                   const std::lock_guard guard(lock);
                   lost = true;
                   changed.notify_all();
               }).ok());
    server.hang_up(0);
    {
        std::unique_lock guard(lock);
        ck_assert(changed.wait_for(guard, std::chrono::seconds(10), [&] { return lost; }));
    }
    auto fence = a->fence();
    ck_assert(!fence.ok());
    ck_assert_int_eq(fence.error().status, MERIDIAN_ERR_UNREACH);
    ck_assert_text_eq(fence.error().message,
                      "datastore: the PMI launcher's connection closed while sending "
                      "cmd=barrier_in (Broken pipe): the launcher (mpiexec, srun, flux) has ended");
}
END_TEST

START_TEST(abort_and_finalize)
{
    Server server({});
    auto a = start_rank(server, 0);
    auto b = start_rank(server, 1);
    a->abort_job(9, "QMP_abort(9)");
    b.reset(); // its finalize
    // The server reads what came: give it a moment, bounded.
    for (int i = 0; i < 500; ++i) {
        const auto seen0 = server.commands(0);
        const auto seen1 = server.commands(1);
        if (!seen0.empty() && seen0.back() == "cmd=abort exitcode=9" && !seen1.empty() &&
            seen1.back() == "cmd=finalize") {
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    const auto seen0 = server.commands(0);
    const auto seen1 = server.commands(1);
    ck_assert_text_eq(seen0.back(), "cmd=abort exitcode=9");
    ck_assert_text_eq(seen0.front(), "cmd=init pmi_version=1 pmi_subversion=1");
    ck_assert_text_eq(seen1.back(), "cmd=finalize");
}
END_TEST

// PMI-2 from fullinit to finalize: what is sent, the job's shape from
// info-getjobattr, abort for the whole job.
START_TEST(pmi2_from_start_to_end)
{
    Server::Options options;
    options.size = 4;
    options.mapping = "(vector,(0,1,2),(1,1,2))"; // 0-1 on node 0, 2-3 on node 1
    Server server(options);
    std::vector<std::unique_ptr<Store>> stores;
    for (std::uint32_t r = 0; r < 4; ++r) {
        stores.push_back(start_rank(server, r, PmiVersion::v2));
    }
    ck_assert_text_eq(stores[2]->self().nspace, "77.0");
    ck_assert_uint_eq(stores[2]->local_size(), 2);
    ck_assert_uint_eq(stores[3]->local_rank(), 1);
    auto peers = stores[2]->local_peers();
    ck_assert(peers.ok() && *peers == (std::vector<std::uint32_t>{2, 3}));
    const auto seen = server.commands(2);
    ck_assert_uint_ge(seen.size(), 5);
    ck_assert_text_eq(seen[0], "cmd=init pmi_version=2 pmi_subversion=0");
    ck_assert_text_eq(seen[1], "cmd=fullinit;pmijobid=77.0;pmirank=2;threaded=FALSE;");
    ck_assert_text_eq(seen[2], "cmd=job-getid;");
    ck_assert_text_eq(seen[3], "cmd=info-getjobattr;key=PMI_process_mapping;");
    ck_assert(seen[4].starts_with("cmd=kvs-put;key=meridian.pmi.host@2;value=V"));
    stores[1]->abort_job(9, "QMP_abort(9)");
    stores[0].reset(); // its finalize
    for (int i = 0; i < 500; ++i) {
        const auto one = server.commands(1);
        const auto zero = server.commands(0);
        if (!one.empty() && one.back().starts_with("cmd=abort") && !zero.empty() &&
            zero.back() == "cmd=finalize;") {
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ck_assert_text_eq(server.commands(1).back(), "cmd=abort;isworld=TRUE;exitcode=9;");
    ck_assert_text_eq(server.commands(0).back(), "cmd=finalize;");
    const auto violations = server.violations();
    ck_assert_msg(violations.empty(), "%s", violations.empty() ? "" : violations[0].c_str());
}
END_TEST

// Hydra's kvs-fence answers at once; the store's fence is still a barrier
// there (a get of a key no one puts is held until every process fenced).
START_TEST(hydras_pmi2_fence_is_a_barrier)
{
    Server::Options options;
    options.hydra_fence = true;
    Server server(options);
    auto a = start_rank(server, 0, PmiVersion::v2);
    auto b = start_rank(server, 1, PmiVersion::v2);
    ck_assert(b->put("k", std::string("from 1")).ok());
    std::atomic<bool> entered{false};
    std::thread late([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        entered = true;
        ck_assert(b->fence().ok());
    });
    ck_assert(a->fence().ok());
    const bool waited = entered;
    late.join();
    ck_assert_msg(waited, "rank 0's fence returned before rank 1 entered its own");
    auto got = a->get({"77.0", 1}, "k");
    ck_assert(got.ok() && std::get<std::string>(*got) == "from 1");
    const auto seen = server.commands(0);
    ck_assert(std::find(seen.begin(), seen.end(),
                        "cmd=kvs-get;jobid=77.0;srcid=-1;key=meridian.fence;") != seen.end());
}
END_TEST

// Which version is asked for, and what follows the launcher's answer.
START_TEST(the_version_agreed)
{
    // Outside srun: PMI-1, as MPICH does under hydra.
    {
        Server server({});
        auto a = start_rank(server, 0);
        ck_assert_text_eq(server.commands(0).front(), "cmd=init pmi_version=1 pmi_subversion=1");
    }
    setenv("SLURM_STEP_ID", "0", 1);
    // Under srun: PMI-2.
    {
        Server server({});
        auto a = start_rank(server, 0);
        ck_assert_text_eq(server.commands(0).front(), "cmd=init pmi_version=2 pmi_subversion=0");
        ck_assert_text_eq(server.commands(0)[1],
                          "cmd=fullinit;pmijobid=77.0;pmirank=0;threaded=FALSE;");
    }
    // A launcher that answers 2.0 with 1.1 (flux): PMI-1 from there.
    {
        Server::Options options;
        options.init_v2_answer = "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1";
        Server server(options);
        auto a = start_rank(server, 0);
        auto b = start_rank(server, 1);
        ck_assert_text_eq(a->self().nspace, "kvs_77_0");
        ck_assert(a->put("k", std::string("v")).ok());
        fence_both(*a, *b);
        auto got = b->get({"kvs_77_0", 0}, "k");
        ck_assert(got.ok() && std::get<std::string>(*got) == "v");
        ck_assert_text_eq(server.commands(0)[1], "cmd=get_maxes");
    }
    // One that refuses 2.0: asked again for 1.1.
    {
        Server::Options options;
        options.init_v2_answer = "cmd=response_to_init rc=-1 pmi_version=1 pmi_subversion=1";
        Server server(options);
        auto a = start_rank(server, 0);
        const auto seen = server.commands(0);
        ck_assert_text_eq(seen[0], "cmd=init pmi_version=2 pmi_subversion=0");
        ck_assert_text_eq(seen[1], "cmd=init pmi_version=1 pmi_subversion=1");
        ck_assert_text_eq(seen[2], "cmd=get_maxes");
    }
    // One that refuses both.
    {
        Server::Options options;
        options.init_v2_answer = "cmd=response_to_init rc=-1";
        options.init_answer = "cmd=response_to_init rc=-1 msg=go_away";
        Server server(options);
        server.become(0);
        auto refused = make_pmi_store();
        ck_assert(!refused.ok());
        ck_assert_int_eq(refused.error().status, MERIDIAN_ERR_VERSION_MISMATCH);
        ck_assert_text_eq(refused.error().message,
                          "datastore: the PMI launcher refused PMI versions 2.0 and 1.1: "
                          "\"cmd=response_to_init rc=-1\", then \"cmd=response_to_init rc=-1 "
                          "msg=go_away\"");
    }
    // pmi2 insists: a launcher of PMI-1 only is refused, with the way out.
    unsetenv("SLURM_STEP_ID");
    {
        Server::Options options;
        options.init_v2_answer = "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1";
        Server server(options);
        server.become(0);
        meridian_test::set_param_env("mca_base_datastore", "pmi2");
        auto chosen = datastore::store();
        ck_assert(!chosen.ok());
        ck_assert_int_eq(chosen.error().status, MERIDIAN_ERR_VERSION_MISMATCH);
        ck_assert_text_eq(chosen.error().message,
                          "mca_base_datastore=pmi2: datastore: the PMI launcher does not serve "
                          "PMI version 2.0 (it answered \"cmd=response_to_init rc=0 pmi_version=1 "
                          "pmi_subversion=1\"); choose PMI-1 with mca_base_datastore=pmi1");
        shutdown();
    }
}
END_TEST

// pmi1 insists on 1.1 under srun too.  (Its own test: a process reads its
// parameters once.)
START_TEST(pmi1_insists_under_srun)
{
    setenv("SLURM_STEP_ID", "0", 1);
    Server server({});
    meridian_test::set_param_env("mca_base_datastore", "pmi1");
    server.become(0);
    auto chosen = datastore::store();
    ck_assert_msg(chosen.ok(), "%s", chosen.ok() ? "" : chosen.error().message.c_str());
    ck_assert_text_eq(server.commands(0).front(), "cmd=init pmi_version=1 pmi_subversion=1");
    shutdown();
}
END_TEST

// A fullinit that disagrees with the environment, or gives no rank.
START_TEST(a_fullinit_that_lies)
{
    const struct {
        const char *answer;
        const char *message;
    } cases[] = {
        {"cmd=fullinit-response;rank=1;size=3;rc=0;",
         "datastore: the PMI launcher's fullinit answer says rank 1 of 3, its environment rank 0 "
         "of 2 (PMI_RANK, PMI_SIZE): not one job's launcher"},
        {"cmd=fullinit-response;rank=5;size=2;rc=0;",
         "datastore: the PMI launcher's fullinit answer gives no rank below a size: "
         "\"cmd=fullinit-response;rank=5;size=2;rc=0;\""},
        {"cmd=fullinit-response;rc=-1;errmsg=no such job;",
         "datastore: the PMI launcher refused fullinit: no such job "
         "(\"cmd=fullinit-response;rc=-1;errmsg=no such job;\")"},
        // A reason with control bytes is quoted: the message stays one line.
        {"cmd=fullinit-response;rc=-1;errmsg=no\002such\njob;",
         "datastore: the PMI launcher refused fullinit: \"no\\x02such\\x0ajob\" "
         "(\"cmd=fullinit-response;rc=-1;errmsg=no\\x02such\\x0ajob;\")"},
    };
    for (const auto &c : cases) {
        Server::Options options;
        options.fullinit_answer = c.answer;
        Server server(options);
        server.become(0);
        auto store = make_pmi_store(PmiVersion::v2);
        ck_assert_msg(!store.ok(), "%s", c.answer);
        ck_assert_text_eq(store.error().message, c.message);
    }
}
END_TEST

START_TEST(wrong_answers_are_refused)
{
    {
        Server::Options options;
        options.init_answer = "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=-1";
        Server server(options);
        server.become(0);
        auto store = make_pmi_store();
        ck_assert(!store.ok());
        ck_assert_int_eq(store.error().status, MERIDIAN_ERR_VERSION_MISMATCH);
        ck_assert_text_eq(store.error().message,
                          "datastore: the PMI launcher refused PMI version 1.1: \"cmd=response_to_"
                          "init pmi_version=2 pmi_subversion=0 rc=-1\"");
    }
    {
        Server::Options options;
        options.init_answer = "cmd=hello";
        Server server(options);
        server.become(0);
        auto store = make_pmi_store();
        ck_assert(!store.ok());
        ck_assert_text_eq(store.error().message,
                          "datastore: the PMI launcher answered cmd=init with \"cmd=hello\" "
                          "(expected cmd=response_to_init)");
    }
    {
        Server::Options options;
        options.maxes_answer = "cmd=maxes rc=0 kvsname_max=256 keylen_max=8 vallen_max=1024";
        Server server(options);
        server.become(0);
        auto store = make_pmi_store();
        ck_assert(!store.ok());
        ck_assert_text_eq(store.error().message,
                          "datastore: the PMI launcher takes keys of 8 and values of 1024 bytes "
                          "at most, too few for Meridian (24 and 32)");
    }
}
END_TEST

START_TEST(what_the_environment_must_hold)
{
    setenv("PMI_FD", "987", 1); // not open here
    setenv("PMI_RANK", "0", 1);
    setenv("PMI_SIZE", "2", 1);
    auto closed = make_pmi_store();
    ck_assert(!closed.ok());
    ck_assert_text_eq(closed.error().message,
                      "datastore: PMI_FD \"987\" is not an open file descriptor of this process "
                      "(a PMI launcher's variable inherited by a program it did not start?)");
    // A file is not written to.
    char path[] = "/tmp/check_datastore_pmi.XXXXXX";
    const int file = mkstemp(path);
    ck_assert_int_ge(file, 0);
    setenv("PMI_FD", std::to_string(file).c_str(), 1);
    auto as_file = make_pmi_store();
    ck_assert(!as_file.ok());
    ck_assert_text_eq(as_file.error().message,
                      "datastore: PMI_FD \"" + std::to_string(file) +
                          "\" is not a socket (a PMI launcher hands one): not written to");
    struct stat about {
    };
    ck_assert_int_eq(fstat(file, &about), 0);
    ck_assert_int_eq(about.st_size, 0);
    close(file);
    unlink(path);
    // A socket, with a size of 0 or a rank past the size.
    int pair[2];
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
    setenv("PMI_FD", std::to_string(pair[0]).c_str(), 1);
    setenv("PMI_SIZE", "0", 1);
    auto zero = make_pmi_store();
    ck_assert(!zero.ok());
    ck_assert_text_eq(zero.error().message,
                      "datastore: PMI_FD is set but PMI_RANK (\"0\") and PMI_SIZE (\"0\") are "
                      "not a rank below a size");
    setenv("PMI_SIZE", "2", 1);
    setenv("PMI_RANK", "2", 1);
    auto past = make_pmi_store();
    ck_assert(!past.ok());
    ck_assert_text_eq(past.error().message,
                      "datastore: PMI_FD is set but PMI_RANK (\"2\") and PMI_SIZE (\"2\") are "
                      "not a rank below a size");
    close(pair[0]);
    close(pair[1]);
    unsetenv("PMI_FD");
    auto none = make_pmi_store();
    ck_assert(!none.ok());
    ck_assert_text_eq(none.error().message,
                      "datastore: no PMI launcher started this process (neither PMI_FD nor "
                      "PMI_PORT and PMI_ID are set)");
    setenv("PMI_PORT", "localhost", 1);
    setenv("PMI_ID", "1", 1);
    auto port = make_pmi_store();
    ck_assert(!port.ok());
    ck_assert_text_eq(port.error().message, "datastore: PMI_PORT \"localhost\" is not host:port");
    // store(): pmi asked for where no launcher is, and auto where one is.
    unsetenv("PMI_PORT");
    unsetenv("PMI_ID");
    meridian_test::set_param_env("mca_base_datastore", "pmi");
    auto asked = datastore::store();
    ck_assert(!asked.ok());
    ck_assert_text_eq(asked.error().message,
                      "mca_base_datastore=pmi: datastore: no PMI launcher started this process "
                      "(neither PMI_FD nor PMI_PORT and PMI_ID are set)");
    meridian_test::isolate_mca_environment();
    Server server({});
    server.become(0);
    auto chosen = datastore::store();
    ck_assert_msg(chosen.ok(), "%s", chosen.ok() ? "" : chosen.error().message.c_str());
    ck_assert_text_eq((*chosen)->backend(), "pmi");
    ck_assert_uint_eq((*chosen)->job_size(), 2);
    shutdown();
}
END_TEST

namespace
{

// A client over a socket pair whose other end answers with `script` (all
// of it at once, then the end of the connection unless `keep_open`).
struct Scripted {
    explicit Scripted(const std::string &script, bool keep_open = false)
    {
        int pair[2];
        ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
        server = pair[1];
        ck_assert_int_eq(write(server, script.data(), script.size()),
                         static_cast<ssize_t>(script.size()));
        if (!keep_open) {
            shutdown(server, SHUT_WR);
        }
        client = std::make_unique<pmi::Client>(pair[0], std::chrono::milliseconds(200));
    }
    ~Scripted() { close(server); }
    Scripted(const Scripted &) = delete;
    Scripted &operator=(const Scripted &) = delete;
    int server = -1;
    std::unique_ptr<pmi::Client> client;
};

const std::string good_init = "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n"
                              "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=64\n"
                              "cmd=my_kvsname kvsname=kvs_9\n";

} // namespace

// A server that answers wrongly, too late, or not at all: each a message,
// none a hang.
START_TEST(a_server_that_misbehaves)
{
    {
        Scripted hung("", true); // says nothing, and stays
        auto init = hung.client->init();
        ck_assert(!init.ok());
        ck_assert_int_eq(init.error().status, MERIDIAN_ERR_TIMEOUT);
        ck_assert_text_eq(init.error().message,
                          "datastore: the PMI launcher did not answer cmd=init within 200 ms: it "
                          "is not serving PMI (hung?)");
    }
    {
        Scripted cut("cmd=response_to_init pmi_ver"); // a line cut short, then the end
        auto init = cut.client->init();
        ck_assert(!init.ok());
        ck_assert_int_eq(init.error().status, MERIDIAN_ERR_UNREACH);
        ck_assert_text_eq(init.error().message,
                          "datastore: the PMI launcher's connection closed while waiting for the "
                          "answer to cmd=init (a line cut short): the launcher (mpiexec, srun, "
                          "flux) has ended");
    }
    {
        Scripted refusing(good_init + "cmd=put_result rc=-1 msg=duplicate_key\n");
        ck_assert(refusing.client->init().ok());
        auto put = refusing.client->put("k@0", "Vx");
        ck_assert(!put.ok());
        ck_assert_text_eq(put.error().message,
                          "datastore: the PMI launcher refused the key k@0: \"cmd=put_result "
                          "rc=-1 msg=duplicate_key\"");
    }
    {
        // A value past the launcher's own vallen_max (64 here).
        Scripted long_value(good_init + "cmd=get_result rc=0 value=V" + std::string(100, 'A') +
                            "\n");
        ck_assert(long_value.client->init().ok());
        auto got = long_value.client->get_value("k@1");
        ck_assert(!got.ok());
        ck_assert_text_eq(got.error().message,
                          "datastore: the PMI launcher answered get of k@1 with a value of 101 "
                          "bytes, past its own vallen_max of 64");
    }
    {
        // A head whose pieces are not there, and text not in the alphabet.
        Scripted pieces(good_init + "cmd=get_result rc=0 value=N3\ncmd=get_result rc=0 value=CAA\n"
                                    "cmd=get_result rc=-1 msg=not_found\n"
                                    "cmd=get_result rc=0 value=V*\n");
        ck_assert(pieces.client->init().ok());
        auto missing = pieces.client->get_value("k@1");
        ck_assert(!missing.ok());
        ck_assert_text_eq(missing.error().message,
                          "datastore: what the PMI launcher has under k@1 is not a value Meridian "
                          "wrote: piece 2 of 3 is missing");
        auto foreign = pieces.client->get_value("k@1");
        ck_assert(!foreign.ok());
        ck_assert_text_eq(foreign.error().message,
                          "datastore: what the PMI launcher has under k@1 is not a value Meridian "
                          "wrote: it is not in base64's URL alphabet");
    }
    // PMI-2's framed messages.
    const std::string v2_init = "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n";
    {
        Scripted not_a_length(v2_init + "cmd=fullinit-response;rc=0;");
        auto init = not_a_length.client->init(pmi::Client::Ask::v2, 0, "1");
        ck_assert(!init.ok());
        ck_assert_text_eq(init.error().message,
                          "datastore: the PMI launcher's answer to cmd=fullinit begins with "
                          "\"cmd=fu\", not a PMI-2 message's length (up to 65536 bytes)");
    }
    {
        Scripted cut(v2_init + "    60cmd=fullinit-response;rank=0;");
        auto init = cut.client->init(pmi::Client::Ask::v2, 0, "1");
        ck_assert(!init.ok());
        ck_assert_int_eq(init.error().status, MERIDIAN_ERR_UNREACH);
        ck_assert_text_eq(init.error().message,
                          "datastore: the PMI launcher's connection closed while waiting for the "
                          "answer to cmd=fullinit (a message cut short): the launcher (mpiexec, "
                          "srun, flux) has ended");
    }
    {
        Scripted hung(v2_init, true); // agrees to 2.0, then says nothing
        auto init = hung.client->init(pmi::Client::Ask::v2, 0, "1");
        ck_assert(!init.ok());
        ck_assert_int_eq(init.error().status, MERIDIAN_ERR_TIMEOUT);
        ck_assert_text_eq(init.error().message,
                          "datastore: the PMI launcher did not answer cmd=fullinit within 200 ms: "
                          "it is not serving PMI (hung?)");
    }
    {
        const std::string full = "cmd=fullinit-response;rank=0;size=1;rc=0;";
        const std::string id = "cmd=job-getid-response;jobid=9;rc=0;";
        const std::string value =
            "cmd=kvs-get-response;found=TRUE;value=V" + std::string(1100, 'A') + ";rc=0;";
        char lengths[3][8];
        // (Slurm left-aligns the length, hydra right-aligns it.)
        std::snprintf(lengths[0], sizeof lengths[0], "%-6zu", full.size());
        std::snprintf(lengths[1], sizeof lengths[1], "%6zu", id.size());
        std::snprintf(lengths[2], sizeof lengths[2], "%6zu", value.size());
        Scripted long_value(v2_init + lengths[0] + full + lengths[1] + id + lengths[2] + value);
        ck_assert(long_value.client->init(pmi::Client::Ask::v2, 0, "9").ok());
        ck_assert_int_eq(long_value.client->version(), 2);
        ck_assert_text_eq(long_value.client->kvsname(), "9");
        auto got = long_value.client->get_value("k@0");
        ck_assert(!got.ok());
        ck_assert_text_eq(got.error().message,
                          "datastore: the PMI launcher answered get of k@0 with a value of 1101 "
                          "bytes, past PMI-2's limit of 1024");
    }
    {
        // An answer with no end of line for longer than any PMI answer.
        Scripted endless(std::string(70000, 'x'), true);
        auto init = endless.client->init();
        ck_assert(!init.ok());
        ck_assert_text_eq(init.error().message,
                          "datastore: the PMI launcher's answer to cmd=init is longer than 65536 "
                          "bytes: not PMI");
    }
}
END_TEST

// The text and the node map on their own.
START_TEST(text_and_mappings)
{
    for (std::size_t n = 0; n < 64; ++n) {
        pmi::Bytes bytes(n);
        for (std::size_t i = 0; i < n; ++i) {
            bytes[i] = static_cast<std::uint8_t>(i * 37 + n);
        }
        const std::string text = pmi::to_text(bytes);
        ck_assert(text.find_first_of(" =\n;") == std::string::npos);
        auto back = pmi::from_text(text);
        ck_assert(back.has_value() && *back == bytes);
    }
    ck_assert(pmi::to_text(pmi::Bytes{0xfb, 0xff}) == "-_8");
    ck_assert(!pmi::from_text("A").has_value());
    ck_assert(!pmi::from_text("AB=C").has_value());
    auto cyclic = pmi::parse_mapping("(vector,(0,2,1))", 5);
    ck_assert(cyclic.has_value() && *cyclic == (std::vector<std::uint32_t>{0, 1, 0, 1, 0}));
    auto blocks = pmi::parse_mapping("(vector,(0,2,2),(2,1,1))", 5);
    ck_assert(blocks.has_value() && *blocks == (std::vector<std::uint32_t>{0, 0, 1, 1, 2}));
    for (const char *bad :
         {"", "(vector,)", "(vector,(0,2))", "(vector,(0,2,1,4))", "(vector,(0,0,1))",
          "(vector,(0,9,1))", "vector,(0,1,1))", "(vector,(0,1,x))"}) {
        ck_assert_msg(!pmi::parse_mapping(bad, 5).has_value(), "%s", bad);
    }
}
END_TEST

// PMI_PORT and PMI_ID: the id presented, rank and size answered.
START_TEST(by_port_and_id)
{
    const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_int_ge(listener, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(bind(listener, reinterpret_cast<sockaddr *>(&address), sizeof address), 0);
    ck_assert_int_eq(listen(listener, 1), 0);
    socklen_t length = sizeof address;
    ck_assert_int_eq(getsockname(listener, reinterpret_cast<sockaddr *>(&address), &length), 0);
    std::string presented;
    std::thread server([&] {
        pollfd p{listener, POLLIN, 0};
        if (poll(&p, 1, 10000) != 1) {
            return;
        }
        const int fd = accept(listener, nullptr, nullptr);
        auto line = [fd] {
            std::string text;
            char c = 0;
            while (read(fd, &c, 1) == 1 && c != '\n') {
                text += c;
            }
            return text;
        };
        auto say = [fd](const std::string &text) {
            const std::string l = text + "\n";
            (void)!write(fd, l.data(), l.size());
        };
        presented = line();
        say("cmd=initack rc=0");
        say("cmd=set size=3");
        say("cmd=set rank=2");
        say("cmd=set debug=0");
        for (std::string l = line(); !l.empty(); l = line()) {
            if (l.starts_with("cmd=init ")) {
                say("cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0");
            } else if (l == "cmd=get_maxes") {
                say("cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024");
            } else if (l == "cmd=get_my_kvsname") {
                say("cmd=my_kvsname kvsname=kvs_port");
            } else if (l.starts_with("cmd=get ")) {
                say("cmd=get_result rc=-1 msg=not_found");
            } else if (l.starts_with("cmd=put ")) {
                say("cmd=put_result rc=0");
            } else if (l == "cmd=finalize") {
                say("cmd=finalize_ack");
                break;
            }
        }
        close(fd);
    });
    setenv("PMI_PORT", ("127.0.0.1:" + std::to_string(ntohs(address.sin_port))).c_str(), 1);
    setenv("PMI_ID", "2", 1);
    {
        auto store = make_pmi_store();
        ck_assert_msg(store.ok(), "%s", store.ok() ? "" : store.error().message.c_str());
        ck_assert_uint_eq((*store)->self().rank, 2);
        ck_assert_uint_eq((*store)->job_size(), 3);
        ck_assert_text_eq((*store)->self().nspace, "kvs_port");
    }
    server.join();
    close(listener);
    ck_assert_text_eq(presented, "cmd=initack pmiid=2");
}
END_TEST

int main()
{
    Suite *suite = suite_create("datastore_pmi");
    TCase *values = tcase_create("values");
    tcase_add_checked_fixture(values, isolate, nullptr);
    tcase_set_timeout(values, 60);
    tcase_add_test(values, values_cross_within_hydras_limits);
    tcase_add_test(values, values_cross_within_small_limits);
    tcase_add_test(values, values_cross_under_pmi2);
    tcase_add_test(values, missing_keys_and_waits);
    suite_add_tcase(suite, values);
    TCase *job = tcase_create("job");
    tcase_add_checked_fixture(job, isolate, nullptr);
    tcase_add_test(job, the_job_from_the_launcher);
    tcase_add_test(job, block_mappings_and_none);
    tcase_add_test(job, the_launchers_end_is_seen);
    tcase_add_test(job, abort_and_finalize);
    tcase_add_test(job, pmi2_from_start_to_end);
    tcase_add_test(job, hydras_pmi2_fence_is_a_barrier);
    tcase_add_test(job, the_version_agreed);
    tcase_add_test(job, pmi1_insists_under_srun);
    suite_add_tcase(suite, job);
    TCase *refused = tcase_create("refused");
    tcase_add_checked_fixture(refused, isolate, nullptr);
    tcase_add_test(refused, wrong_answers_are_refused);
    tcase_add_test(refused, a_fullinit_that_lies);
    tcase_add_test(refused, what_the_environment_must_hold);
    tcase_add_test(refused, by_port_and_id);
    tcase_add_test(refused, a_server_that_misbehaves);
    tcase_add_test(refused, text_and_mappings);
    suite_add_tcase(suite, refused);
    return meridian_test::run_suite(suite);
}
