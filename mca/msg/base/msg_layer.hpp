// SPDX-License-Identifier: BSD-3-Clause
// The msg base's channel layer: channels over the transports chosen per
// peer, matching per (peer, tag) in start order for the transports that do
// not match themselves, messages that arrive early, waits that time out,
// dead peers.  One instance while the base is started (msg_base_start.cc
// makes it); the QMP layer serialises calls, so nothing here locks.
#ifndef MERIDIAN_MCA_MSG_BASE_MSG_LAYER_HPP
#define MERIDIAN_MCA_MSG_BASE_MSG_LAYER_HPP

#include <sys/types.h>
#include <sys/uio.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "mca/msg/base/msg_iov.hpp"
#include <meridian/mca/msg/msg.h>
#include <meridian/opal/util/error.h>

namespace meridian::msg
{

// A channel's phase (msg.h's MCA_MSG_CHANNEL_*), as the base names it.
namespace Phase
{
inline constexpr int idle = MCA_MSG_CHANNEL_IDLE;
inline constexpr int active = MCA_MSG_CHANNEL_ACTIVE;
inline constexpr int done = MCA_MSG_CHANNEL_DONE;
} // namespace Phase

struct Matching;

struct Channel : mca_msg_channel_t {
    std::vector<iovec> blocks; // iov points here
    mca_msg_transport_t *transport = nullptr;
    bool matches = false;         // the transport matches its receives
    Matching *matching = nullptr; // its (peer, tag)'s queues (stable), when the base matches
    bool released = false;        // freed while started: goes once its transfer is over
    bool prepared = true;         // false after a readdress its transport refused
};

// A message that arrived before its receive was started: its bytes (eager),
// or the transport's handle on bytes still with the sender (announced).
struct Unexpected {
    enum class Kind : std::uint8_t { eager, announced } kind = Kind::eager;
    std::uint64_t total = 0;
    std::unique_ptr<std::byte[]> data; // eager: the message (capacity data_capacity)
    std::size_t data_capacity = 0;
    std::size_t arrived = 0;
    void *message = nullptr; // announced
};

struct Matching {
    std::deque<Channel *> posted;                       // receives, in start order
    std::deque<std::unique_ptr<Unexpected>> unexpected; // messages, in arrival order
};

// The message whose bytes are arriving from a peer.
struct Incoming {
    bool active = false;
    Channel *recv = nullptr;     // straight into a started receive
    Unexpected *stash = nullptr; // into an early buffer
    std::size_t total = 0;
    std::size_t got = 0;
    IovCursor cursor; // recv's blocks
};

struct Peer {
    mca_msg_transport_t *transport = nullptr;
    int (*start_direct)(mca_msg_channel_t *) = nullptr; // its transport's, where it may be used
    int node = 0;
    pid_t pid = 0; // same node, and visible here: watched while waiting
    std::uint64_t start_time = 0;
    bool dead = false;
    // How it died, said once by the first channel that fails for it (a
    // peer that ended after everything it owed arrived is no error).
    std::string death;
    bool death_said = false;
    Incoming incoming;
    std::unordered_map<std::uint64_t, Matching> match; // never erased
    std::uint64_t last_tag = 0;                        // the tag of the last message that arrived,
    Matching *last_matching = nullptr; // and its queues: a halo's ring repeats few tags
    std::string node_name;             // for messages, read when first needed
};

struct Params {
    int timeout_s = 300;              // msg_base_timeout; 0: no limit
    int liveness_ms = 5;              // msg_base_liveness
    std::size_t unexpected_limit = 0; // msg_base_unexpected_limit
    int launcher_loss_s = 3;          // msg_base_launcher_loss; -1: never end
};

// Set (from PMIx's thread) when the launcher that started this process is
// gone: every wait fails at once (msg_base_start.cc sets it; Layer::wait
// reads it).
[[gnu::visibility("hidden")]] extern std::atomic<bool> launcher_gone;

class Layer
{
  public:
    using Clock = std::chrono::steady_clock;

    Layer(const mca_msg_job_t &job, Params params);
    Layer(const Layer &) = delete;
    Layer &operator=(const Layer &) = delete;
    ~Layer();

    // Bring-up (msg_base_start.cc).
    // start_direct: the transport's, when it matches and its component has
    // the field (interface 3.1); else nullptr.
    void set_transport(int rank, mca_msg_transport_t *transport,
                       int (*start_direct)(mca_msg_channel_t *));
    void add_active(mca_msg_transport_t *transport)
    {
        if (transport->progress != nullptr) {
            active_.push_back(transport);
        }
    }
    void watch_pid(int rank, pid_t pid, std::uint64_t start_time);
    // Every channel goes (abandoned as channel_free does), and every early
    // message a transport announced is dropped: before transports finalize.
    void drop_all();

    // The channel interface.
    int channel_create(const mca_msg_channel_spec_t &spec, Channel **channel);
    int channel_readdress(Channel &channel, const iovec *iov, std::size_t iovcnt);
    void channel_free(Channel *channel);
    void channel_release(Channel *channel);
    // The channel's start (msg.h): its transport's start_direct while that
    // may skip the base's checks (prepared, peer alive), else the base's.
    void choose_start(Channel &channel)
    {
        const Peer &p = peer(channel.peer);
        channel.start = p.start_direct != nullptr && channel.prepared && !p.dead
                            ? p.start_direct
                            : meridian_mca_msg_base_start_channel;
    }
    // Inline: QMP_start's whole way to the transport, when the channel is
    // idle and its peer alive; the rest is start_unusual's.
    int start(Channel &channel)
    {
        if (channel.phase != Phase::idle || !channel.prepared || peer(channel.peer).dead)
            [[unlikely]] {
            if (const int rc = start_unusual(channel); rc != proceed) {
                return rc;
            }
        }
        channel.phase = Phase::active;
        channel.status = MERIDIAN_SUCCESS;
        mca_msg_transport_t *t = channel.transport;
        if (channel.direction == MCA_MSG_SEND) {
            t->send(t, &channel);
        } else if (channel.matches) {
            t->recv(t, &channel);
        } else {
            start_recv_matched(peer(channel.peer), channel);
        }
        return MERIDIAN_SUCCESS;
    }
    int test(Channel &channel, int *complete);
    int wait(Channel *const *channels, std::size_t count, int timeout_ms);
    // One channel: what is done already, or done after one progress (most
    // waits of a halo's or a ping-pong's), returns here; the rest waits in
    // wait().
    int wait_one(Channel *channel, int timeout_ms)
    {
        if (!deferred_ && channel != nullptr) [[likely]] {
            if (channel->phase == Phase::active) {
                progress();
            }
            if (channel->phase == Phase::done) {
                channel->phase = Phase::idle;
                return channel->status;
            }
            if (channel->phase != Phase::active) {
                return MERIDIAN_SUCCESS;
            }
        }
        return wait(&channel, 1, timeout_ms);
    }
    // Inline: the waits of one channel call it on every round.
    int progress()
    {
        const std::uint64_t before = completed_;
        deferred_ = false;
        for (mca_msg_transport_t *t : active_) {
            t->progress(t); // the transports that have nothing to progress are not in the list
        }
        if (!released_.empty()) [[unlikely]] {
            reap_released();
        }
        return static_cast<int>(completed_ - before);
    }
    const char *path_name(int peer);

    // What transports call (msg.h).
    void complete(Channel &channel, int status)
    {
        channel.phase = Phase::done;
        channel.status = status;
        ++completed_;
    }
    bool may_arrive(int rank, std::uint64_t tag, std::uint64_t total);
    // false (nothing taken) when hold and no receive waits and holding it
    // would pass msg_base_unexpected_limit.
    bool arrive_begin(int rank, std::uint64_t tag, std::size_t total, const std::byte *data,
                      std::size_t len, bool hold);
    void arrive_into(int rank, Channel *recv, std::size_t total, const std::byte *data,
                     std::size_t len);
    void arrive_more(int rank, const std::byte *data, std::size_t len);
    std::size_t arrive_left(int rank) const;
    std::size_t arrive_pieces(int rank, iovec *pieces, std::size_t max, std::size_t bytes,
                              std::size_t min_block);
    void arrive_placed(int rank, std::size_t len);
    void announce(int rank, std::uint64_t tag, std::uint64_t total, void *message, bool first);
    void withdraw(int rank, std::uint64_t tag, void *message);
    bool fits(Channel &recv, std::uint64_t total, const char *got);
    void peer_died(int rank, const std::string &why);
    bool peer_dead(int rank) const { return peers_[static_cast<std::size_t>(rank)].dead; }
    bool peer_busy(int rank) const;
    std::string describe(int rank);
    std::string channel_text(const Channel &channel);
    const Params &params() const { return params_; }
    bool oversubscribed() const { return oversubscribed_; }
    int size() const { return job_.size; }

  private:
    Peer &peer(int rank) { return peers_[static_cast<std::size_t>(rank)]; }
    Matching &matching_for(Peer &peer, std::uint64_t tag)
    {
        if (peer.last_matching == nullptr || peer.last_tag != tag) {
            peer.last_matching = &peer.match[tag];
            peer.last_tag = tag;
        }
        return *peer.last_matching;
    }
    const std::string &node_name(int rank);
    void start_recv_matched(Peer &peer, Channel &recv);
    void take_first(Peer &peer, Channel &recv, const std::byte *data, std::size_t len,
                    std::size_t total);
    void arrived(Incoming &incoming, std::size_t len);
    void deliver_eager(Channel &recv, Unexpected &message);
    void take_announced(Channel &recv, Unexpected &message);
    std::unique_ptr<Unexpected> make_unexpected(std::size_t total);
    void recycle(Unexpected &message);
    void detach(Channel &channel, bool peer_alive);
    // Out of line: progress, which calls it, stays a short frame.
    [[gnu::noinline]] void reap_released();
    void drop_unexpected(int rank, Unexpected &message);
    static constexpr int proceed = 1; // start_unusual: start as any other
    [[gnu::cold, gnu::noinline]] int start_unusual(Channel &channel);
    void too_long(Channel &recv, const std::string &got);
    // Dead peers and time (msg_base_wait.cc)
    bool check_liveness(Channel *const *channels, std::size_t count);
    bool receive_from_dead(Peer &peer, Channel &recv);
    void end_with_dead_peer(Channel &channel);
    void say_death(int rank);
    void idle(Clock::time_point since);
    static void relax(std::uint32_t idle_polls);

    Params params_;
    mca_msg_job_t job_{};
    std::vector<int> node_of_;
    std::vector<int> local_rank_of_;
    std::string nspace_;
    std::vector<Peer> peers_;
    std::vector<mca_msg_transport_t *> active_; // progressed, best priority first
    std::unordered_map<Channel *, std::unique_ptr<Channel>> channels_;
    // Released while started (channel_release): they complete on their own
    // and progress frees them then.
    std::vector<Channel *> released_;
    std::vector<std::unique_ptr<Unexpected>> pool_; // early buffers for reuse
    std::size_t pooled_bytes_ = 0;                  // their capacity
    std::size_t unexpected_bytes_ = 0;              // bytes of early messages held
    std::uint64_t completed_ = 0;
    bool deferred_ = false; // a transport's take left work for the next progress
    bool oversubscribed_ = false;
    Clock::time_point next_liveness_{};
    bool said_launcher_gone_ = false;
};

// The layer while the base is started (nullptr otherwise): set by
// msg_base_start.cc, read on every call a transport makes.
// Hidden: read in place, not through the GOT; nothing outside the base reads it.
[[gnu::visibility("hidden")]] extern Layer *current_layer;
inline Layer *layer()
{
    return current_layer;
}
// What the QMP layer calls (msg_base_channels.cc).
extern mca_msg_base_module_t channel_interface;
// The base's parameters as they are now (msg_base_frame.cc).
Params current_params();

} // namespace meridian::msg

#endif
