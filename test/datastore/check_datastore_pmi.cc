// SPDX-License-Identifier: BSD-3-Clause
// The datastore's PMI-1 backend against a PMI-1 server of the test's own
// (one thread, socket pairs as PMI_FD, or TCP loopback for PMI_PORT): values
// of every type and of any length cross between two processes' stores
// within the server's key, value and line limits; the job's shape from
// PMI_process_mapping; a missing key's message; wait_for; the launcher's
// end; abort and finalize; and what is refused, with its message (a wrong
// answer, a refused version, a descriptor that is not open or not a
// socket, a size of 0, a rank past it, PMI_PORT's mistakes, a hung server,
// a line cut short, a value past vallen_max, pieces missing).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
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

// A PMI-1 server for `size` clients: what hydra answers, with its limits
// checked, and what it saw kept for the tests to read.
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
    };

    explicit Server(Options options) : options_(std::move(options))
    {
        for (std::uint32_t r = 0; r < options_.size; ++r) {
            int pair[2];
            ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
            clients_.push_back({pair[0], {}, false, {}});
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
        std::vector<std::string> commands;
    };

    static std::map<std::string, std::string> words(const std::string &line)
    {
        std::map<std::string, std::string> out;
        std::size_t at = 0;
        while (at < line.size()) {
            const std::size_t end = std::min(line.find(' ', at), line.size());
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
        const std::string text = line + "\n";
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
        if (cmd == "init") {
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
            ++puts_;
            const std::string &key = w["key"];
            const std::string &value = w["value"];
            longest_value_ = std::max(longest_value_, value.size());
            if (w["kvsname"] != "kvs_77_0") {
                violations_.push_back("a put to key space " + w["kvsname"]);
            }
            if (key.size() + 1 > options_.keylen_max) {
                violations_.push_back("key " + key + " is longer than keylen_max");
            }
            if (value.size() + 1 > options_.vallen_max) {
                violations_.push_back("the value of " + key + " is longer than vallen_max");
            }
            if (value.empty() || value.find_first_of(" =") != std::string::npos) {
                violations_.push_back("the value of " + key + " is empty or holds ' ' or '='");
            }
            pending_[key] = value;
            answer(c, "cmd=put_result rc=0 msg=success");
        } else if (cmd == "barrier_in") {
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
                    answer(other, "cmd=barrier_out rc=0");
                }
            }
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
                for (std::size_t nl; (nl = c.buffer.find('\n')) != std::string::npos;) {
                    const std::string line = c.buffer.substr(0, nl);
                    c.buffer.erase(0, nl + 1);
                    handle(c, line);
                }
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
    std::size_t puts_ = 0;
    std::size_t longest_value_ = 0;
    int wake_read_ = -1;
    int wake_write_ = -1;
    std::thread thread_;
};

void isolate()
{
    meridian_test::isolate_mca_environment();
    for (const char *name :
         {"PMI_FD", "PMI_RANK", "PMI_SIZE", "PMI_PORT", "PMI_ID", "PMIX_NAMESPACE", "PMIX_RANK"}) {
        unsetenv(name);
    }
}

std::unique_ptr<Store> start_rank(const Server &server, std::uint32_t rank)
{
    server.become(rank);
    auto store = make_pmi_store();
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

void values_cross(std::size_t vallen_max, std::size_t keylen_max)
{
    Server::Options options;
    options.vallen_max = vallen_max;
    options.keylen_max = keylen_max;
    Server server(options);
    auto a = start_rank(server, 0);
    auto b = start_rank(server, 1);
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
        auto got = b->get({"kvs_77_0", 0}, info.key);
        ck_assert_msg(got.ok(), "%s: %s", info.key.c_str(),
                      got.ok() ? "" : got.error().message.c_str());
        ck_assert_msg(*got == info.value, "%s", info.key.c_str());
    }
    for (const auto &info : every_type(1)) {
        auto got = a->get({"kvs_77_0", 1}, info.key);
        ck_assert_msg(got.ok() && *got == info.value, "%s", info.key.c_str());
    }
    const auto violations = server.violations();
    ck_assert_msg(violations.empty(), "%s", violations.empty() ? "" : violations[0].c_str());
    // The large value needed many pieces, each within the limit.
    ck_assert_uint_gt(server.puts(), 2 * 100000 / vallen_max);
    ck_assert_uint_le(server.longest_value(), vallen_max - 1);
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
                      "PMI-1 launchers carry no events between a job's processes");
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
    tcase_add_test(values, missing_keys_and_waits);
    suite_add_tcase(suite, values);
    TCase *job = tcase_create("job");
    tcase_add_checked_fixture(job, isolate, nullptr);
    tcase_add_test(job, the_job_from_the_launcher);
    tcase_add_test(job, block_mappings_and_none);
    tcase_add_test(job, the_launchers_end_is_seen);
    tcase_add_test(job, abort_and_finalize);
    suite_add_tcase(suite, job);
    TCase *refused = tcase_create("refused");
    tcase_add_checked_fixture(refused, isolate, nullptr);
    tcase_add_test(refused, wrong_answers_are_refused);
    tcase_add_test(refused, what_the_environment_must_hold);
    tcase_add_test(refused, by_port_and_id);
    tcase_add_test(refused, a_server_that_misbehaves);
    tcase_add_test(refused, text_and_mappings);
    suite_add_tcase(suite, refused);
    return meridian_test::run_suite(suite);
}
