// SPDX-License-Identifier: BSD-3-Clause
// The PMI datastore backend: a Store over PMI-1's or PMI-2's simple wire
// protocol (pmi_client.hpp), which MPICH's and Intel MPI's mpiexec (hydra),
// srun --mpi=pmi2 and flux run (pmi=simple) serve to the processes they
// start.
//
// The launcher hands each process a connection: a socket in PMI_FD (with
// PMI_RANK and PMI_SIZE), or a TCP address in PMI_PORT with PMI_ID, which
// the process presents and gets its rank and size back.  The job's
// processes share one key space (PMI-1's kvsname, PMI-2's job id), and a
// published value becomes visible to the others at the next barrier
// (fence).  A Meridian value is encoded (datastore::encode) and put under
// its key and the publisher's rank, split when long; which ranks share a
// node comes from the launcher's PMI_process_mapping.  PMI has no events:
// notify and on_event say so, and the job's messages are each process's
// own.  The launcher's end is seen as the connection's (on_launcher_lost).
#include <meridian/opal/runtime/datastore.hpp>

#include <fcntl.h>
#include <linux/sockios.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "opal/runtime/pmi_client.hpp"
#include <meridian/opal/util/strings.hpp>

namespace meridian::datastore
{

namespace
{

// ---------------------------------------------------------------- the store

// This process's own values carry its host name for job_nodes().
constexpr std::string_view key_host = "meridian.pmi.host";

class PmiStore final : public Store
{
  public:
    PmiStore(std::unique_ptr<pmi::Client> client, std::uint32_t rank, std::uint32_t size)
        : client_(std::move(client)), job_size_(size)
    {
        self_.rank = rank;
        char name[256] = {};
        node_name_ =
            gethostname(name, sizeof name - 1) == 0 && name[0] != '\0' ? name : "localhost";
    }
    PmiStore(const PmiStore &) = delete;
    PmiStore &operator=(const PmiStore &) = delete;
    ~PmiStore() override
    {
        stop_watching();
        // The launcher takes a process that ends without finalize for one
        // that failed; its answer is waited for a little only.  (Not after
        // a refused init.)
        if (client_->initialized()) {
            client_->finalize(std::chrono::seconds(5));
        }
    }

    // init, the key space, the node map, this process's host name.
    Status start(pmi::Client::Ask ask, std::string_view jobid)
    {
        if (auto done = client_->init(ask, self_.rank, jobid); !done) {
            return done;
        }
        if (client_->version() == 2 &&
            (client_->given_rank() != self_.rank || client_->given_size() != job_size_)) {
            return make_error(MERIDIAN_ERROR,
                              "datastore: the PMI launcher's fullinit answer says rank " +
                                  std::to_string(client_->given_rank()) + " of " +
                                  std::to_string(client_->given_size()) +
                                  ", its environment rank " + std::to_string(self_.rank) + " of " +
                                  std::to_string(job_size_) +
                                  " (PMI_RANK, PMI_SIZE): not one job's launcher");
        }
        self_.nspace = client_->kvsname();
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
        const Bytes bytes = encode(value);
        const std::lock_guard guard(lock_);
        if (auto done = client_->put_value(client_->key_for(self_.rank, key), bytes); !done) {
            return make_error(done.error().status, "datastore: publishing " + util::quoted(key) +
                                                       ": " + done.error().message);
        }
        published_.insert_or_assign(std::string(key), std::move(value));
        return success();
    }

    // PMI sends each put at once; the barrier (fence) makes them visible.
    Status commit() override { return success(); }

    Status fence() override
    {
        const std::lock_guard guard(lock_);
        return client_->barrier();
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
                              "datastore: watching the PMI launcher: " +
                                  std::string(std::strerror(errno)));
        }
        // Only the connection's end, never its data: the store's calls
        // read the answers.
        watcher_ = std::thread([fd = client_->fd(), wake = wake_, handler = std::move(handler)] {
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
        std::unordered_map<std::uint32_t, std::size_t> index_of;
        for (std::uint32_t r = 0; r < job_size_; ++r) {
            const auto [it, added] = index_of.try_emplace(node_of_[r], nodes.size());
            if (added) {
                nodes.push_back({});
            }
            nodes[it->second].ranks.push_back(r);
        }
        for (auto &node : nodes) {
            const std::uint32_t first = node.ranks.front();
            if (node_of_[first] == node_of_[self_.rank]) {
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
        // PMI's abort carries a code only: the message is the caller's to
        // print.  What was printed is still in the pipes to the launcher,
        // which ends the job's processes and itself once it reads the abort
        // (hydra, before it reads the pipes): it goes out first, a second
        // at most.
        (void)message;
        drain_output();
        const std::lock_guard guard(lock_);
        (void)client_->abort(status);
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
        auto bytes = client_->get_value(client_->key_for(proc.rank, key));
        if (!bytes) {
            if (bytes.error().status == MERIDIAN_ERR_NOT_FOUND) {
                return missing(proc, key);
            }
            return make_error(bytes.error().status, "datastore: reading " + util::quoted(key) +
                                                        " of " + format_proc(proc) + ": " +
                                                        bytes.error().message);
        }
        auto value = decode(*bytes);
        if (!value) {
            return make_error(MERIDIAN_ERROR, "datastore: reading " + util::quoted(key) + " of " +
                                                  format_proc(proc) + ": " + value.error().message);
        }
        return value;
    }

  private:
    static Status no_events()
    {
        return make_error(MERIDIAN_ERR_NOT_SUPPORTED,
                          "PMI launchers (PMI-1, PMI-2) carry no events between a job's "
                          "processes");
    }

    Error missing(const ProcId &proc, std::string_view key) const
    {
        return make_error(MERIDIAN_ERR_NOT_FOUND, "datastore: no value for " + util::quoted(key) +
                                                      " of " + format_proc(proc) +
                                                      " (PMI datastore)");
    }

    // Until the launcher has read what this process wrote to stdout and
    // stderr (a pipe: FIONREAD; a socket: SIOCOUTQ), at most a second.
    static void drain_output()
    {
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
        for (const int fd : {STDOUT_FILENO, STDERR_FILENO}) {
            struct stat about {
            };
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

    // The node map, where the launcher gives one; without it, unknown
    // (local_size() is then job_size()).
    void learn_nodes()
    {
        auto mapping = client_->job_attribute("PMI_process_mapping");
        if (!mapping) {
            return;
        }
        auto node_of = pmi::parse_mapping(*mapping, job_size_);
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

    std::unique_ptr<pmi::Client> client_;
    mutable std::mutex lock_;
    ProcId self_;
    std::uint32_t job_size_;
    std::string node_name_;
    std::uint32_t local_rank_ = 0;
    std::vector<std::uint32_t> node_of_;
    std::vector<std::uint32_t> local_peers_;
    std::unordered_map<std::string, Value> published_;
    std::thread watcher_;
    int wake_ = -1;
};

std::optional<std::uint32_t> env_number(const char *name)
{
    const char *text = std::getenv(name);
    return text != nullptr ? pmi::parse_count(text) : std::nullopt;
}

// PMI_FD as the launcher hands it: an open socket of this process (hydra,
// Slurm and Flux hand one end of a socket pair).  Anything else -- a file,
// a terminal, a closed descriptor -- is not written to.
Result<int> pmi_fd(const char *text)
{
    const auto fd = pmi::parse_count(text);
    struct stat about {
    };
    if (!fd || *fd > INT32_MAX || ::fstat(static_cast<int>(*fd), &about) != 0) {
        return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                          "datastore: PMI_FD " + util::quoted(text) +
                              " is not an open file descriptor of this process (a PMI "
                              "launcher's variable inherited by a program it did not start?)");
    }
    if (!S_ISSOCK(about.st_mode)) {
        return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                          "datastore: PMI_FD " + util::quoted(text) +
                              " is not a socket (a PMI launcher hands one): not written to");
    }
    return static_cast<int>(*fd);
}

} // namespace

bool launched_by_pmi()
{
    return std::getenv("PMI_FD") != nullptr ||
           (std::getenv("PMI_PORT") != nullptr && std::getenv("PMI_ID") != nullptr);
}

Result<std::unique_ptr<Store>> make_pmi_store(PmiVersion version)
{
    // Auto: PMI-2 where srun started the process (Slurm's own MPI speaks
    // it there); PMI-1 elsewhere, as MPICH does under hydra (whose 4.0 has
    // no PMI-2 abort) and flux (which has only PMI-1).
    const pmi::Client::Ask ask = version == PmiVersion::v1   ? pmi::Client::Ask::v1
                                 : version == PmiVersion::v2 ? pmi::Client::Ask::v2
                                 : std::getenv("SLURM_STEP_ID") != nullptr
                                     ? pmi::Client::Ask::v2_or_v1
                                     : pmi::Client::Ask::v1;
    std::unique_ptr<pmi::Client> client;
    std::uint32_t rank = 0;
    std::uint32_t size = 0;
    bool by_port = false;
    if (const char *fd_text = std::getenv("PMI_FD"); fd_text != nullptr) {
        auto fd = pmi_fd(fd_text);
        if (!fd) {
            return fd.error();
        }
        const auto r = env_number("PMI_RANK");
        const auto n = env_number("PMI_SIZE");
        if (!r || !n || *n == 0 || *r >= *n) {
            const char *rank_text = std::getenv("PMI_RANK");
            const char *size_text = std::getenv("PMI_SIZE");
            return make_error(
                MERIDIAN_ERR_NOT_AVAILABLE,
                "datastore: PMI_FD is set but PMI_RANK (" +
                    (rank_text != nullptr ? util::quoted(rank_text) : std::string("unset")) +
                    ") and PMI_SIZE (" +
                    (size_text != nullptr ? util::quoted(size_text) : std::string("unset")) +
                    ") are not a rank below a size");
        }
        // Not handed on to the programs this one starts.
        (void)::fcntl(*fd, F_SETFD, FD_CLOEXEC);
        client = std::make_unique<pmi::Client>(*fd);
        rank = *r;
        size = *n;
    } else if (const char *port = std::getenv("PMI_PORT"), *id = std::getenv("PMI_ID");
               port != nullptr && id != nullptr) {
        if (ask == pmi::Client::Ask::v2) {
            return make_error(MERIDIAN_ERR_NOT_SUPPORTED,
                              "datastore: a launcher that hands PMI_PORT and PMI_ID speaks PMI-1 "
                              "there, not PMI-2");
        }
        auto placed = pmi::Client::by_port(port, id);
        if (!placed) {
            return placed.error();
        }
        client = std::move(placed->client);
        by_port = true;
        rank = placed->rank;
        size = placed->size;
    } else {
        return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                          "datastore: no PMI launcher started this process (neither PMI_FD nor "
                          "PMI_PORT and PMI_ID are set)");
    }
    // PMI-2's fullinit names the job (Slurm checks it): PMI_JOBID where
    // the launcher set one it would take back.
    const char *jobid = std::getenv("PMI_JOBID");
    const bool jobid_sane = jobid != nullptr && *jobid != '\0' && std::strlen(jobid) <= 256 &&
                            std::strpbrk(jobid, ";= \n") == nullptr;
    auto store = std::make_unique<PmiStore>(std::move(client), rank, size);
    if (auto started = store->start(by_port ? pmi::Client::Ask::v1 : ask, jobid_sane ? jobid : "0");
        !started) {
        return started.error();
    }
    return std::unique_ptr<Store>(std::move(store));
}

} // namespace meridian::datastore
