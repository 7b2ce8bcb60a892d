// SPDX-License-Identifier: BSD-3-Clause
// The ucx transport: one UCP worker with the tag API, one endpoint per peer
// it carries, one tagged operation per start, matched by UCP
// (MCA_MSG_TRANSPORT_MATCHES: UCP's tag matching keeps (peer, tag, start
// order); UCP's tags carry no sender, so each wire tag holds the sender's
// rank in its low bits).  Each process ends its session with a message of
// its own to every peer it sent to (the end: after all of its messages, so
// a receive from a peer that ended either finds its message or fails at
// once).  UCX chooses its own devices and protocols
// (UCX_TLS, UCX_NET_DEVICES: pnet_ucx sets them at launch).  Opened only
// when the base gives it peers.  One instance per process; the QMP layer
// serialises calls.
#ifndef MERIDIAN_MSG_UCX_TRANSPORT_HPP
#define MERIDIAN_MSG_UCX_TRANSPORT_HPP

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "components/msg_ucx/msg_ucx_ucp.hpp"
#include <meridian/mca/msg/msg.h>

namespace meridian::msg_ucx
{

struct Params {
    int linger_ms = 10000; // msg_ucx_linger
};

// A UCP operation's state: owned by its channel, and by the transport (as
// a zombie) when the channel is abandoned while UCP still has it.  UCP's
// request lives in the operation's own memory (UCP_OP_ATTR_FIELD_REQUEST:
// no request is taken from UCX's pool or given back at each transfer): the
// request_size bytes of `space` end where `request_at` points.
struct Op {
    class Transport *transport = nullptr;
    struct Peer *peer = nullptr;          // the channel's
    bool recv = false;                    // the channel receives
    mca_msg_channel_t *channel = nullptr; // nullptr once abandoned
    void *request = nullptr;              // UCP's request while it is pending
    std::unique_ptr<std::byte[]> space;   // UCP's request header
    void *request_at = nullptr;           // what UCP is given: the end of space
};

// What the transport keeps per channel (its transport_data).
struct ChannelState {
    class Transport *transport = nullptr;
    ucp_tag_t tag = 0;             // on the wire: (tag << rank_bits) | sender
    std::vector<ucp_dt_iov_t> iov; // the channel's non-empty blocks
    void *buffer = nullptr;        // what UCX is given: one block, or iov
    std::size_t count = 0;         // its bytes, or iov's blocks
    ucp_request_param_t param{};   // the callback, the datatype; the request and user_data
                                   // those of op
    std::unique_ptr<Op> op;        // nullptr after an abandon: made again at the next start
};

// One peer: its endpoint and what its error handler needs.
struct Peer {
    class Transport *transport = nullptr;
    int rank = -1;
    ucp_ep_h ep = nullptr;
    bool failed = false;         // UCX reported the endpoint broken
    bool sent_to = false;        // a send went to it: it gets this process's end
    bool ended = false;          // its end arrived: it sends nothing more
    bool end_posted = false;     // the receive of its end was posted (once)
    void *end_request = nullptr; // that receive while UCX holds it
    std::uint32_t receives = 0;  // receives from it that UCX holds
    std::string path;            // "ucx:tcp", "ucx:posix,cma" (the lanes' transports)
};

class Transport
{
  public:
    explicit Transport(Params params) : params_(params) {}
    ~Transport();
    Transport(const Transport &) = delete;
    Transport &operator=(const Transport &) = delete;

    int init(const mca_msg_job_t &job, const unsigned char *peers);
    int connect();
    void finalize();

    int prepare(mca_msg_channel_t &channel);
    void cleanup(mca_msg_channel_t &channel);
    void start(mca_msg_channel_t &channel);
    // The channel's start without the base (msg.h's start_direct): a C
    // boundary, in the transport's file so that start_one is inlined into it.
    static int start_direct(mca_msg_channel_t *channel);
    void cancel(mca_msg_channel_t &channel, bool peer_alive);
    int progress();
    const char *path_name(int peer) const;

  private:
    struct Done {
        Op *op;
        ucs_status_t status;
        std::size_t length; // a receive's message size
    };

    static ChannelState &state(mca_msg_channel_t &channel)
    {
        return *static_cast<ChannelState *>(channel.transport_data);
    }
    static void send_done(void *request, ucs_status_t status, void *user_data);
    static void recv_done(void *request, ucs_status_t status, const ucp_tag_recv_info_t *info,
                          void *user_data);
    static void ep_failed(void *arg, ucp_ep_h ep, ucs_status_t status);
    static void end_arrived(void *request, ucs_status_t status, const ucp_tag_recv_info_t *info,
                            void *user_data);

    Peer &peer(int rank) { return peers_[static_cast<std::size_t>(rank)]; }
    // What start and start_direct do, in one body inlined into both.
    [[gnu::always_inline]] inline void start_one(mca_msg_channel_t &channel);
    int handle_events();
    // Something UCX's callbacks (or a start) noted waits for handle_events.
    bool noted() const
    {
        return !done_.empty() || !failed_.empty() || !ended_.empty() || !doomed_.empty();
    }
    void finish(Op *op, ucs_status_t status, std::size_t length);
    [[gnu::always_inline]] inline void succeeded(Op &op, std::size_t length);
    [[gnu::cold, gnu::noinline]] bool start_unusual(mca_msg_channel_t &channel, Peer &p);
    [[gnu::cold, gnu::noinline]] void new_op(ChannelState &s, const mca_msg_channel_t &channel);
    [[gnu::noinline]] void start_slow(mca_msg_channel_t &channel);
    // The operation handed to UCX, and what UCX answered: done at once,
    // failed, or under way.
    [[gnu::always_inline]] inline void post(ChannelState &s, Op *op, Peer &p);
    [[gnu::always_inline]] static inline void posted(Op *op, ucs_status_ptr_t request);
    void peer_failed(int rank, ucs_status_t status);
    void close_endpoints(bool force);
    void close_by_force(Peer &p);
    void post_end_receive(Peer &p);
    void peer_ended(int rank);
    void send_ends();
    std::string lanes(ucp_ep_h ep) const;

    Params params_;
    const Ucp *ucp_ = nullptr;
    mca_msg_job_t job_{};
    std::vector<int> ranks_;  // its peers
    std::vector<Peer> peers_; // by rank
    unsigned rank_bits_ = 1;  // low bits of a wire tag: the sender
    ucp_context_h context_ = nullptr;
    ucp_worker_h worker_ = nullptr;
    std::size_t request_size_ = 0; // UCP's request header (ucp_context_query), rounded up
    // Set with every note (done_, failed_, ended_, doomed_), cleared before
    // handle_events: progress looks at one flag, not at four lists.  A hint
    // (a cancel may take a note back), never trusted as the lists are.
    bool maybe_noted_ = false;
    std::vector<Done> done_;        // completions UCX reported, handled after its progress
    std::vector<Done> done_spare_;  // the list being handled
    std::uint32_t completions_ = 0; // transfers completed in UCX's callbacks during a progress
    std::vector<std::pair<int, ucs_status_t>> failed_; // endpoints UCX reported broken
    std::uint64_t end_wire_ = 0;                       // the wire tag kept for the end (all ones)
    std::vector<int> ended_;                  // ends UCX reported, handled after its progress
    std::vector<mca_msg_channel_t *> doomed_; // receives from ended peers whose message never comes
    bool closing_ = false; // finalize began: the end's receive is not posted again
    std::unordered_map<std::uint64_t, std::uint64_t> folded_tags_; // tags that did not fit
    std::unordered_map<Op *, std::unique_ptr<Op>> zombies_;
};

} // namespace meridian::msg_ucx

#endif
