// SPDX-License-Identifier: BSD-3-Clause
// The mpi datastore backend: a Store over a collective Exchange that a
// library of the program offers (QMP's MPI part: one allgather over a
// duplicate of MPI_COMM_WORLD), for a process whose launcher Meridian cannot
// join or whose PMI connection the program's MPI holds.
//
// What a process puts stays with it until the next fence; the fence is one
// allgather of every process's new values, after which each process has
// every other's.  No value crosses between fences, so wait_for answers from
// what the last fence brought.  The first allgather (at start) carries each
// process's host name, from which the nodes and local ranks follow (nodes
// in the order of their lowest rank), and rank 0's name for the job (host,
// pid and time: jobs running at once on a host differ).  No events; the
// launcher's loss is the MPI's to handle, as its abort is.
#include <meridian/opal/runtime/datastore.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <meridian/opal/util/strings.hpp>

namespace meridian::datastore
{

namespace
{

constexpr std::string_view key_host = "meridian.mpi.host";
constexpr std::string_view key_job = "meridian.mpi.job";

class ExchangeStore final : public Store
{
  public:
    explicit ExchangeStore(std::shared_ptr<Exchange> exchange) : exchange_(std::move(exchange))
    {
        self_.rank = exchange_->rank();
        char name[256] = {};
        node_name_ =
            gethostname(name, sizeof name - 1) == 0 && name[0] != '\0' ? name : "localhost";
    }

    // The job's name and nodes, in the first allgather.
    Status start()
    {
        InfoList mine{{std::string(key_host), node_name_}};
        if (self_.rank == 0) {
            const auto now = std::chrono::system_clock::now().time_since_epoch();
            mine.push_back(
                {std::string(key_job),
                 "mpi-" + node_name_ + "-" + std::to_string(::getpid()) + "-" +
                     std::to_string(
                         std::chrono::duration_cast<std::chrono::microseconds>(now).count())});
        }
        auto all = gather(mine);
        if (!all) {
            return all.error();
        }
        const auto size = static_cast<std::uint32_t>(all->size());
        std::unordered_map<std::string, std::uint32_t> node_of_name;
        node_of_.resize(size);
        for (std::uint32_t r = 0; r < size; ++r) {
            const InfoList &said = (*all)[r];
            const auto host = find(said, key_host);
            if (host == nullptr || !std::holds_alternative<std::string>(*host)) {
                return make_error(MERIDIAN_ERROR, "datastore: rank " + std::to_string(r) +
                                                      " gave no host name in the job's first "
                                                      "exchange (" +
                                                      exchange_->name() + ")");
            }
            const auto [it, added] = node_of_name.try_emplace(
                std::get<std::string>(*host), static_cast<std::uint32_t>(nodes_.size()));
            if (added) {
                nodes_.push_back({std::get<std::string>(*host), {}});
            }
            node_of_[r] = it->second;
            nodes_[it->second].ranks.push_back(r);
        }
        const auto job = find((*all)[0], key_job);
        if (job == nullptr || !std::holds_alternative<std::string>(*job)) {
            return make_error(MERIDIAN_ERROR, "datastore: rank 0 gave no name for the job in its "
                                              "first exchange (" +
                                                  exchange_->name() + ")");
        }
        self_.nspace = std::get<std::string>(*job);
        local_peers_ = nodes_[node_of_[self_.rank]].ranks;
        local_rank_ = static_cast<std::uint32_t>(
            std::find(local_peers_.begin(), local_peers_.end(), self_.rank) - local_peers_.begin());
        return success();
    }

    std::string_view backend() const override { return "mpi"; }
    const ProcId &self() const override { return self_; }
    std::uint32_t job_size() const override { return static_cast<std::uint32_t>(node_of_.size()); }
    const std::string &node_name() const override { return node_name_; }
    std::uint32_t local_rank() const override { return local_rank_; }
    std::uint32_t local_size() const override
    {
        return static_cast<std::uint32_t>(local_peers_.size());
    }

    Status put(std::string_view key, Value value) override
    {
        if (key.empty()) {
            return make_error(MERIDIAN_ERR_BAD_PARAM, "datastore: a key must not be empty");
        }
        const std::lock_guard guard(lock_);
        pending_.insert_or_assign(std::string(key), value);
        published_.insert_or_assign(std::string(key), std::move(value));
        return success();
    }

    // The fence sends: nothing to do before it.
    Status commit() override { return success(); }

    Status fence() override
    {
        const std::lock_guard guard(lock_);
        InfoList mine;
        mine.reserve(pending_.size());
        for (auto &[key, value] : pending_) {
            mine.push_back({key, std::move(value)});
        }
        pending_.clear();
        auto all = gather(mine);
        if (!all) {
            return all.error();
        }
        for (std::uint32_t r = 0; r < all->size(); ++r) {
            if (r == self_.rank) {
                continue;
            }
            for (auto &info : (*all)[r]) {
                peers_[slot(r, info.key)] = std::move(info.value);
            }
        }
        return success();
    }

    Status notify(int, const InfoList &, EventRange) override { return no_events(); }
    Status notify_node_from(const ProcId &, int, const InfoList &) override { return no_events(); }
    Status on_event(int, EventHandler) override { return no_events(); }
    // (The launcher's loss ends the processes through the MPI's runtime;
    // nothing here sees it.)

    Result<Value> wait_for(const ProcId &proc, std::string_view key,
                           std::chrono::milliseconds timeout) const override
    {
        auto value = get(proc, key);
        if (value || value.error().status != MERIDIAN_ERR_NOT_FOUND) {
            return value;
        }
        // Nothing arrives before this process's next fence: waiting would
        // only take the time.
        (void)timeout;
        return make_error(MERIDIAN_ERR_TIMEOUT,
                          "datastore: " + format_proc(proc) + " published no " + util::quoted(key) +
                              " by the job's last fence (MPI datastore: values cross at fences)");
    }

    Result<std::vector<std::uint32_t>> local_peers() const override { return local_peers_; }
    Result<std::vector<NodeRanks>> job_nodes() const override { return nodes_; }

    void abort_job(int status, std::string_view message) override
    {
        (void)message; // the caller's to print
        exchange_->abort(status);
    }

  protected:
    Result<Value> fetch(const ProcId &proc, std::string_view key) const override
    {
        const std::lock_guard guard(lock_);
        if (proc == self_) {
            if (const auto it = published_.find(std::string(key)); it != published_.end()) {
                return it->second;
            }
        } else if (proc.nspace == self_.nspace && proc.rank < node_of_.size()) {
            if (const auto it = peers_.find(slot(proc.rank, key)); it != peers_.end()) {
                return it->second;
            }
        }
        return make_error(MERIDIAN_ERR_NOT_FOUND, "datastore: no value for " + util::quoted(key) +
                                                      " of " + format_proc(proc) +
                                                      " (MPI datastore)");
    }

  private:
    static Status no_events()
    {
        return make_error(MERIDIAN_ERR_NOT_SUPPORTED,
                          "the MPI datastore carries no events between a job's processes");
    }

    static const Value *find(const InfoList &list, std::string_view key)
    {
        for (const auto &info : list) {
            if (info.key == key) {
                return &info.value;
            }
        }
        return nullptr;
    }

    static std::string slot(std::uint32_t rank, std::string_view key)
    {
        std::string text = std::to_string(rank);
        text += '\x1f';
        text += key;
        return text;
    }

    // One allgather of `mine`, each process's list back by rank.
    Result<std::vector<InfoList>> gather(const InfoList &mine)
    {
        const Bytes bytes = encode(Value(mine));
        auto all = exchange_->allgather(bytes);
        if (!all) {
            return make_error(all.error().status, "datastore: the job's exchange through " +
                                                      exchange_->name() +
                                                      " failed: " + all.error().message);
        }
        if (all->size() != exchange_->size() ||
            (!node_of_.empty() && all->size() != node_of_.size())) {
            return make_error(MERIDIAN_ERROR,
                              "datastore: the job's exchange through " + exchange_->name() +
                                  " gave " + std::to_string(all->size()) +
                                  " processes' values, not " + std::to_string(exchange_->size()));
        }
        std::vector<InfoList> lists;
        lists.reserve(all->size());
        for (std::uint32_t r = 0; r < all->size(); ++r) {
            auto value = decode((*all)[r]);
            if (!value || !std::holds_alternative<InfoList>(*value)) {
                return make_error(MERIDIAN_ERROR,
                                  "datastore: what rank " + std::to_string(r) +
                                      " sent in the job's exchange is not Meridian's values" +
                                      (value ? std::string() : ": " + value.error().message));
            }
            lists.push_back(std::move(std::get<InfoList>(*value)));
        }
        return lists;
    }

    std::shared_ptr<Exchange> exchange_;
    mutable std::mutex lock_;
    ProcId self_;
    std::string node_name_;
    std::vector<std::uint32_t> node_of_;
    std::vector<NodeRanks> nodes_;
    std::vector<std::uint32_t> local_peers_;
    std::uint32_t local_rank_ = 0;
    std::unordered_map<std::string, Value> pending_;
    std::unordered_map<std::string, Value> published_;
    std::unordered_map<std::string, Value> peers_;
};

} // namespace

Result<std::unique_ptr<Store>> make_exchange_store(std::shared_ptr<Exchange> exchange)
{
    if (exchange == nullptr || exchange->size() == 0 || exchange->rank() >= exchange->size()) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          "datastore: the job's exchange gives no rank below a size");
    }
    auto store = std::make_unique<ExchangeStore>(std::move(exchange));
    if (auto started = store->start(); !started) {
        return started.error();
    }
    return std::unique_ptr<Store>(std::move(store));
}

} // namespace meridian::datastore
