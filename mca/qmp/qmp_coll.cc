// SPDX-License-Identifier: BSD-3-Clause
// Collectives per communicator: the schedules (qmp_coll_schedule.cc) run
// over persistent channels to the partners they name, one set per size
// class over two scratch buffers (the smallest class made with the
// communicator, the others on first use), so a sum of one double is a
// start / wait on channels declared long before.  Payloads above the
// classes use channels made for the call, straight on the caller's memory.
// The public calls are in qmp_coll_api.cc.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "mca/qmp/qmp_coll.hpp"
#include "mca/qmp/qmp_internal.hpp"
#include "mca/qmp/qmp_msg.hpp"
#include <meridian/opal/util/error.h>

namespace meridian::qmp
{
namespace
{

struct Pair {
    mca_msg_channel_t *send = nullptr;
    mca_msg_channel_t *recv = nullptr;
};

struct alignas(64) Scratch {
    std::byte bytes[kSmallMax];
};

// Seconds left before a deadline, as a transport timeout (< 0: none).
struct Deadline {
    double end = -1.0;
    explicit Deadline(int timeout_ms)
    {
        if (timeout_ms >= 0) {
            end = QMP_time() + timeout_ms * 1e-3;
        }
    }
    int remaining_ms() const
    {
        if (end < 0.0) {
            return -1;
        }
        const double left = std::ceil((end - QMP_time()) * 1e3);
        return left > 0.0 ? static_cast<int>(left) : 0;
    }
};

struct Outcome {
    int rc = MERIDIAN_SUCCESS;
    std::size_t round = 0; // where it stopped
};

} // namespace

struct Collectives {
    Collectives() = default;
    Collectives(const Collectives &) = delete;
    Collectives &operator=(const Collectives &) = delete;
    ~Collectives();

    QMP_comm_t comm = nullptr;
    mca_msg_base_module_t *transport = nullptr;
    std::recursive_mutex *lock = nullptr;
    double session = 0.0;
    std::vector<int> link_rank;              // communicator rank of each partner
    std::vector<Round> allreduce, broadcast; // peers are link indices
    std::vector<Pair> classes[kSizeClasses]; // per size class, one per link (first use)
    std::unique_ptr<Scratch> acc, tmp;
    std::vector<mca_msg_channel_t *> round_channels; // sized for the widest round
    // QMP_wait_for_barrier timed out in this round (its transfers started):
    // the next collective finishes that barrier first.
    bool barrier_pending = false;
    std::size_t barrier_round = 0;
    // A collective failed midway: what is in flight is unknown, so no other
    // one may run.
    std::string failure;

    int job_rank(int link) const
    {
        return comm->members[static_cast<std::size_t>(link_rank[static_cast<std::size_t>(link)])];
    }
};

Collectives::~Collectives()
{
    if (!session_alive(session)) {
        return;
    }
    TransportGuard guard(lock);
    for (auto &pairs : classes) {
        for (Pair &p : pairs) {
            transport->channel_free(transport, p.send);
            transport->channel_free(transport, p.recv);
        }
    }
}

namespace
{
const Pair *class_pairs(const char *call, Collectives &c, unsigned size_class);
} // namespace

void destroy_collectives(Collectives *coll)
{
    std::unique_ptr<Collectives> doomed(coll);
}

QMP_status_t attach_collectives(QMP_comm_t comm)
{
    State &s = state();
    auto c = std::make_unique<Collectives>();
    c->comm = comm;
    c->transport = s.transport;
    c->lock = transport_lock();
    c->session = current_session();
    std::vector<int> node_of(comm->members.size());
    for (std::size_t r = 0; r < node_of.size(); ++r) {
        // Without a job (a communicator made by a test), every member alone.
        node_of[r] = s.job != nullptr ? s.job->node_of[comm->members[r]] : static_cast<int>(r);
    }
    Schedule schedule = make_schedule(node_of, comm->rank);
    // Communicator ranks -> links (the partners, each once).
    auto link_of = [&c](int rank) {
        for (std::size_t i = 0; i < c->link_rank.size(); ++i) {
            if (c->link_rank[i] == rank) {
                return static_cast<int>(i);
            }
        }
        c->link_rank.push_back(rank);
        return static_cast<int>(c->link_rank.size() - 1);
    };
    std::size_t widest = 0;
    for (auto *rounds : {&schedule.allreduce, &schedule.broadcast}) {
        for (Round &r : *rounds) {
            if (r.recv >= 0) {
                r.recv = link_of(r.recv);
            }
            for (int &peer : r.sends) {
                peer = link_of(peer);
            }
            widest = std::max(widest, r.sends.size() + 1);
        }
    }
    c->allreduce = std::move(schedule.allreduce);
    c->broadcast = std::move(schedule.broadcast);
    c->round_channels.resize(widest);
    c->acc = std::make_unique<Scratch>();
    c->tmp = std::make_unique<Scratch>();
    // The smallest class (barriers, the sums of one value) is ready before
    // the first call.  A communicator made without a transport (tests) has
    // its collectives' plan only.
    if (c->transport != nullptr && !c->link_rank.empty() &&
        class_pairs("setting up a communicator's collectives", *c, 0) == nullptr) {
        return QMP_get_error_number(nullptr);
    }
    comm->coll.reset(c.release());
    return QMP_SUCCESS;
}

namespace
{

QMP_status_t failed(const char *call, Collectives &c, const std::vector<Round> &rounds,
                    Outcome outcome)
{
    std::string peers;
    if (outcome.round < rounds.size()) {
        const Round &r = rounds[outcome.round];
        std::vector<int> links = r.sends;
        if (r.recv >= 0) {
            links.insert(links.begin(), r.recv);
        }
        for (std::size_t i = 0; i < links.size(); ++i) {
            // An exchange names its partner once.
            if (std::find(links.begin(), links.begin() + static_cast<long>(i), links[i]) ==
                links.begin() + static_cast<long>(i)) {
                peers += (peers.empty() ? "node " : ", node ") +
                         std::to_string(c.link_rank[static_cast<std::size_t>(links[i])]);
            }
        }
    }
    std::string why;
    switch (outcome.rc) {
    case MERIDIAN_ERR_TIMEOUT:
        why = "no progress within the transport's time limit (waiting for " + peers + ")";
        break;
    case MERIDIAN_ERR_UNREACH:
        why = meridian_mca_msg_base_launcher_gone() != 0
                  ? "the launcher is gone: the job is ending"
                  : "a peer died or cannot be reached (one of " + peers + ")";
        break;
    case MERIDIAN_ERR_BAD_PARAM:
        why = "message sizes differ between nodes (exchanging with " + peers +
              "): every node must pass the same size";
        break;
    default:
        why = std::string(meridian_strerror(outcome.rc)) + " (with " + peers + ")";
        break;
    }
    c.failure = why;
    return set_error(from_meridian(outcome.rc), std::string(call) + ": " + why);
}

// Runs rounds[from..]; `resume`: the transfers of rounds[from] are started
// already (an interrupted barrier).
Outcome run(Collectives &c, const std::vector<Round> &rounds, std::size_t from, bool resume,
            const Pair *pairs, std::byte *acc, std::byte *tmp, std::size_t n,
            const Combine *combine, const Deadline &deadline)
{
    mca_msg_base_module_t *t = c.transport;
    mca_msg_channel_t **channels = c.round_channels.data();
    for (std::size_t k = from; k < rounds.size(); ++k) {
        const Round &r = rounds[k];
        std::size_t count = 0;
        if (r.recv >= 0) {
            channels[count++] = pairs[r.recv].recv;
        }
        for (int link : r.sends) {
            channels[count++] = pairs[link].send;
        }
        if (!resume || k != from) {
            TransportGuard guard(c.lock);
            for (std::size_t i = 0; i < count; ++i) {
                if (int rc = t->start(t, channels[i]); rc != MERIDIAN_SUCCESS) {
                    return {rc, k};
                }
            }
        }
        if (int rc = wait_channels(t, c.lock, channels, count, deadline.remaining_ms());
            rc != MERIDIAN_SUCCESS) {
            return {rc, k};
        }
        if (r.post == Post::store) {
            if (acc != tmp) {
                std::memcpy(acc, tmp, n);
            }
        } else if (r.post != Post::none && combine != nullptr) {
            combine->fn(acc, tmp, n, r.post == Post::mine_lower, combine->user);
        }
    }
    return {MERIDIAN_SUCCESS, rounds.size()};
}

void free_pairs(Collectives &c, std::vector<Pair> &pairs)
{
    TransportGuard guard(c.lock);
    for (Pair &p : pairs) {
        if (p.send != nullptr) {
            c.transport->channel_free(c.transport, p.send);
        }
        if (p.recv != nullptr) {
            c.transport->channel_free(c.transport, p.recv);
        }
    }
    pairs.clear();
}

// A send (from acc) and a receive (into tmp) of n bytes to every link.
QMP_status_t make_pairs(const char *call, Collectives &c, std::vector<Pair> &pairs,
                        std::uint64_t tag, std::byte *acc, std::byte *tmp, std::size_t n)
{
    pairs.assign(c.link_rank.size(), Pair{});
    TransportGuard guard(c.lock);
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        const int peer = c.job_rank(static_cast<int>(i));
        const iovec send_iov{acc, n}, recv_iov{tmp, n};
        const mca_msg_channel_spec_t send{MCA_MSG_SEND, peer, tag, &send_iov, 1, n, 0};
        const mca_msg_channel_spec_t recv{MCA_MSG_RECV, peer, tag, &recv_iov, 1, n, 0};
        int rc = c.transport->channel_create(c.transport, &send, &pairs[i].send);
        if (rc == MERIDIAN_SUCCESS) {
            rc = c.transport->channel_create(c.transport, &recv, &pairs[i].recv);
        }
        if (rc != MERIDIAN_SUCCESS) {
            const std::string why = std::string(call) + ": cannot set up the channels to node " +
                                    std::to_string(c.link_rank[i]) + " (" +
                                    c.transport->path_name(c.transport, peer) +
                                    "): " + meridian_strerror(rc);
            free_pairs(c, pairs);
            return set_error(from_meridian(rc), why);
        }
    }
    return QMP_SUCCESS;
}

// Channels made for one call, freed when it returns.
class CallPairs
{
  public:
    explicit CallPairs(Collectives &c) : c_(c) {}
    ~CallPairs() { free_pairs(c_, pairs_); }
    CallPairs(const CallPairs &) = delete;
    CallPairs &operator=(const CallPairs &) = delete;
    std::vector<Pair> &pairs() { return pairs_; }

  private:
    Collectives &c_;
    std::vector<Pair> pairs_;
};

// The persistent channels of a size class, made on its first use (nullptr
// after an error; call only with partners to talk to).
const Pair *class_pairs(const char *call, Collectives &c, unsigned size_class)
{
    std::vector<Pair> &pairs = c.classes[size_class];
    if (pairs.empty() && !c.link_rank.empty() &&
        make_pairs(call, c, pairs,
                   collective_tag(c.comm->context, CollectiveTraffic::small, size_class),
                   c.acc->bytes, c.tmp->bytes, class_bytes(size_class)) != QMP_SUCCESS) {
        return nullptr;
    }
    return pairs.data();
}

QMP_status_t check(const char *call, Collectives &c)
{
    if (!c.failure.empty()) {
        return set_error(QMP_ERROR,
                         std::string(call) +
                             ": an earlier collective on this communicator failed: " + c.failure);
    }
    return QMP_SUCCESS;
}

// A barrier QMP_wait_for_barrier gave up on is finished before anything
// else, so every node sees the same sequence of collectives.
QMP_status_t finish_pending_barrier(const char *call, Collectives &c)
{
    if (!c.barrier_pending) {
        return QMP_SUCCESS;
    }
    const Pair *pairs = class_pairs(call, c, 0);
    const Outcome o = run(c, c.allreduce, c.barrier_round, true, pairs, c.acc->bytes, c.tmp->bytes,
                          8, nullptr, Deadline(-1));
    c.barrier_pending = false;
    return o.rc == MERIDIAN_SUCCESS ? QMP_SUCCESS : failed(call, c, c.allreduce, o);
}

QMP_status_t ready(const char *call, Collectives &c)
{
    if (QMP_status_t st = check(call, c); st != QMP_SUCCESS) {
        return st;
    }
    return finish_pending_barrier(call, c);
}

// Allreduce (with combine) and broadcast (without): the same rounds engine.
QMP_status_t reduce_or_broadcast(const char *call, QMP_comm_t comm,
                                 const std::vector<Round> &rounds, void *data, std::size_t n,
                                 const Combine *combine)
{
    Collectives &c = *comm->coll;
    if (QMP_status_t st = ready(call, c); st != QMP_SUCCESS) {
        return st;
    }
    if (n == 0 || rounds.empty()) {
        return QMP_SUCCESS;
    }
    auto *bytes = static_cast<std::byte *>(data);
    // Only a broadcast's root has something to give, and only the others
    // something to take.
    const bool gives = combine != nullptr || comm->rank == 0;
    const bool takes = combine != nullptr || comm->rank != 0;
    if (n <= kSmallMax) {
        const Pair *pairs = class_pairs(call, c, size_class(n));
        if (pairs == nullptr) {
            return QMP_get_error_number(nullptr);
        }
        if (gives) {
            std::memcpy(c.acc->bytes, bytes, n);
        }
        const Outcome o =
            run(c, rounds, 0, false, pairs, c.acc->bytes, c.tmp->bytes, n, combine, Deadline(-1));
        if (o.rc != MERIDIAN_SUCCESS) {
            return failed(call, c, rounds, o);
        }
        if (takes) {
            std::memcpy(bytes, c.acc->bytes, n);
        }
        return QMP_SUCCESS;
    }
    // Large: the running value is the caller's memory; a reduction's
    // partners' parts arrive in a temporary, a broadcast's straight in it.
    std::unique_ptr<std::byte[]> tmp;
    std::byte *incoming = bytes;
    if (combine != nullptr) {
        tmp = std::make_unique_for_overwrite<std::byte[]>(n);
        incoming = tmp.get();
    }
    CallPairs pairs(c);
    if (QMP_status_t st = make_pairs(call, c, pairs.pairs(),
                                     collective_tag(comm->context, CollectiveTraffic::large, 0),
                                     bytes, incoming, n);
        st != QMP_SUCCESS) {
        return st;
    }
    const Outcome o =
        run(c, rounds, 0, false, pairs.pairs().data(), bytes, incoming, n, combine, Deadline(-1));
    return o.rc == MERIDIAN_SUCCESS ? QMP_SUCCESS : failed(call, c, rounds, o);
}

} // namespace

QMP_status_t allreduce(const char *call, QMP_comm_t comm, void *data, std::size_t n,
                       const Combine &combine)
{
    return reduce_or_broadcast(call, comm, comm->coll->allreduce, data, n, &combine);
}

QMP_status_t broadcast(const char *call, QMP_comm_t comm, void *data, std::size_t n)
{
    return reduce_or_broadcast(call, comm, comm->coll->broadcast, data, n, nullptr);
}

QMP_status_t barrier_call(const char *call, QMP_comm_t comm, int timeout_ms)
{
    Collectives &c = *comm->coll;
    if (QMP_status_t st = check(call, c); st != QMP_SUCCESS) {
        return st;
    }
    if (c.allreduce.empty()) {
        return QMP_SUCCESS;
    }
    const Pair *pairs = class_pairs(call, c, 0);
    if (pairs == nullptr) {
        return QMP_get_error_number(nullptr);
    }
    // A barrier that timed out before goes on where it stopped: a retried
    // QMP_wait_for_barrier keeps waiting for the same barrier.
    const std::size_t from = c.barrier_pending ? c.barrier_round : 0;
    const Outcome o = run(c, c.allreduce, from, c.barrier_pending, pairs, c.acc->bytes,
                          c.tmp->bytes, 8, nullptr, Deadline(timeout_ms));
    if (o.rc == MERIDIAN_ERR_TIMEOUT && timeout_ms >= 0) {
        c.barrier_pending = true;
        c.barrier_round = o.round;
        return set_error(QMP_TIMEOUT, std::string(call) + ": the barrier did not complete within " +
                                          std::to_string(timeout_ms) + " ms");
    }
    c.barrier_pending = false;
    return o.rc == MERIDIAN_SUCCESS ? QMP_SUCCESS : failed(call, c, c.allreduce, o);
}

QMP_status_t barrier(QMP_comm_t comm, int timeout_ms)
{
    const char *call = timeout_ms < 0 ? "QMP_barrier" : "QMP_wait_for_barrier";
    if (comm == nullptr || comm->coll == nullptr) {
        return set_error(QMP_ERROR,
                         std::string(call) + ": the communicator has no collectives set up");
    }
    return barrier_call(call, comm, timeout_ms);
}

QMP_status_t alltoall(const char *call, QMP_comm_t comm, char *recv, const char *send,
                      std::size_t count)
{
    Collectives &c = *comm->coll;
    if (QMP_status_t st = ready(call, c); st != QMP_SUCCESS) {
        return st;
    }
    const auto me = static_cast<std::size_t>(comm->rank);
    std::memcpy(recv + me * count, send + me * count, count);
    if (count == 0 || comm->size == 1) {
        return QMP_SUCCESS;
    }
    // Channels to every other member, for this call only.
    const std::uint64_t tag = collective_tag(comm->context, CollectiveTraffic::alltoall, 0);
    std::vector<mca_msg_channel_t *> channels;
    struct Free {
        Collectives &c;
        std::vector<mca_msg_channel_t *> &channels;
        ~Free()
        {
            TransportGuard guard(c.lock);
            for (mca_msg_channel_t *ch : channels) {
                c.transport->channel_free(c.transport, ch);
            }
        }
    } free_channels{c, channels};
    mca_msg_base_module_t *t = c.transport;
    {
        TransportGuard guard(c.lock);
        for (int pass = 0; pass < 2; ++pass) { // receives first, then sends
            for (std::size_t r = 0; r < comm->members.size(); ++r) {
                if (r == me) {
                    continue;
                }
                const bool receive = pass == 0;
                iovec iov{receive ? static_cast<void *>(recv + r * count)
                                  : const_cast<char *>(send + r * count),
                          count};
                mca_msg_channel_spec_t spec{};
                spec.direction = receive ? MCA_MSG_RECV : MCA_MSG_SEND;
                spec.peer = comm->members[r];
                spec.tag = tag;
                spec.iov = &iov;
                spec.iovcnt = 1;
                spec.nbytes = count;
                mca_msg_channel_t *ch = nullptr;
                int rc = t->channel_create(t, &spec, &ch);
                if (rc == MERIDIAN_SUCCESS) {
                    channels.push_back(ch);
                    rc = t->start(t, ch);
                }
                if (rc != MERIDIAN_SUCCESS) {
                    c.failure = "node " + std::to_string(r) + ": " + meridian_strerror(rc);
                    return set_error(from_meridian(rc), std::string(call) + ": " + c.failure);
                }
            }
        }
    }
    if (int rc = wait_channels(t, c.lock, channels.data(), channels.size(), -1);
        rc != MERIDIAN_SUCCESS) {
        c.failure = std::string("exchanging with all nodes: ") + meridian_strerror(rc);
        return set_error(from_meridian(rc), std::string(call) + ": " + c.failure);
    }
    return QMP_SUCCESS;
}

} // namespace meridian::qmp
