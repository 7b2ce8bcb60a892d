// SPDX-License-Identifier: BSD-3-Clause
// The sm transport: processes of one node through Meridian's rings
// (msg_sm_segment.hpp).  Messages up to the eager limit -- and every message
// whose blocks are too fine for CMA, or when CMA is not permitted -- are
// copied from the sender's blocks into ring slots and from the slots into
// the receiver's (through the base's matching); larger ones send a
// rendezvous request through the ring, which the base matches, and the
// receiver pulls the data with one process_vm_readv copy (or both copy half,
// or the sender sends it through the ring after all) and answers with a FIN.
// One instance per process; the QMP layer serialises calls.
#ifndef MERIDIAN_MSG_SM_TRANSPORT_HPP
#define MERIDIAN_MSG_SM_TRANSPORT_HPP

#include <sys/types.h>
#include <sys/uio.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "components/msg_sm/msg_sm_segment.hpp"
#include "mca/msg/base/msg_iov.hpp"
#include <meridian/mca/msg/msg.h>

namespace meridian::msg_sm
{

using msg::IovCursor;

struct Params {
    bool cma = true;               // msg_sm_cma
    std::size_t eager_limit = 0;   // bytes; larger messages use CMA
    std::size_t split_limit = 0;   // bytes; from this size both sides copy (0: never)
    std::size_t cma_min_block = 0; // bytes; CMA only for block lists this coarse on average
    std::size_t slots = 0;         // per ring (0: automatic)
    std::size_t slot_bytes = 0;    // per slot, header included
    int timeout_s = 300;           // the base's wait limit (a split copy's DONE)
};

// What the transport keeps per channel (its transport_data).
struct ChannelState {
    std::uint64_t rndv_id = 0;          // a rendezvous send waiting for its FIN
    std::uint64_t recv_id = 0;          // a receive waiting for the sender's DONE (split copy)
    int part_status = MERIDIAN_SUCCESS; // of the part of a split copy done here
};

// A rendezvous request the base holds until a receive matches it.
struct Rndv {
    int rank = 0;
    std::uint64_t tag = 0;
    std::uint64_t total = 0;
    RndvBody body{};
    std::vector<iovec> remote; // the inline part of the sender's list
};

// A send on the way into a peer's ring (queued when the ring was full).
struct OutMessage {
    mca_msg_channel_t *channel = nullptr; // nullptr: freed while half pushed (the rest is padding)
    bool rndv = false;
    std::uint64_t recv_id = 0; // a rendezvous message sent through the ring after all
    bool started = false;      // the first fragment is in the ring
    std::uint64_t tag = 0;
    std::size_t total = 0;
    std::size_t sent = 0;
    IovCursor cursor;
};

// A control slot (FIN, CTS, DONE) waiting for space in a peer's ring.
struct Control {
    Kind kind = Kind::fin;
    std::vector<std::byte> body;
};

struct Peer {
    bool mine = false; // the base gave it to this transport
    int local_rank = 0;
    pid_t pid = 0;
    bool cma = false;      // the peer can pull from this process's memory
    bool cma_mine = false; // this process can read and write the peer's
    Ring out;              // ours, in the peer's segment
    Ring in;               // the peer's, in our segment
    std::deque<OutMessage> outq;
    std::deque<Control> ctlq; // FIN, CTS, DONE waiting for ring space
    std::size_t rndv_out = 0; // our rendezvous sends to it waiting for its FIN
    std::size_t channels = 0; // declared to or from it: its ring is polled every time
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
    int ready();
    void finalize();

    int prepare(mca_msg_channel_t &channel);
    void cleanup(mca_msg_channel_t &channel);
    void send(mca_msg_channel_t &channel);
    int take(mca_msg_channel_t &recv, std::unique_ptr<Rndv> message);
    void drop(std::unique_ptr<Rndv> message);
    void cancel(mca_msg_channel_t &channel, bool peer_alive);
    void peer_died(int rank);
    int progress();
    const char *path_name(int rank) const;

  private:
    using Clock = std::chrono::steady_clock;

    Peer &peer(int rank) { return peers_[static_cast<std::size_t>(rank)]; }
    static ChannelState &state(mca_msg_channel_t &channel)
    {
        return *static_cast<ChannelState *>(channel.transport_data);
    }
    int connect_peer(int rank, Peer &peer, std::vector<std::uint8_t> &readable);
    // CMA handles each block of both lists apart: worth it only for lists
    // of coarse blocks (msg_sm_cma_min_block on average).
    bool coarse(const mca_msg_channel_t &channel) const
    {
        return channel.nbytes >= params_.cma_min_block * channel.iovcnt;
    }
    bool push_message(Peer &peer, OutMessage &message);
    bool push_control(Peer &peer, const Control &control);
    void send_control(Peer &peer, Control control);
    void push_pending(Peer &peer);
    // Take up to budget slots from the peer's ring; hold: a message the base
    // may not take yet stays there.
    int drain(int rank, Peer &peer, int budget, bool hold = true);
    void on_rndv(int rank, SlotHeader &slot);
    void on_fin(Peer &peer, SlotHeader &slot);
    void on_cts(Peer &peer, SlotHeader &slot);
    void on_done(SlotHeader &slot);
    void on_data(int rank, SlotHeader &slot);
    void send_done(Peer &peer, std::uint64_t recv_id, int status);
    void pull(Peer &peer, mca_msg_channel_t &recv, const Rndv &message);
    void await_done(mca_msg_channel_t &recv);
    void run_pulls();
    void finish(mca_msg_channel_t &channel, int status)
    {
        meridian_mca_msg_base_complete(&channel, status);
    }

    Params params_;
    mca_msg_job_t job_{};
    std::vector<Peer> peers_;
    std::vector<int> ranks_;  // its peers
    std::vector<int> active_; // of them, those with channels: polled on every progress
    std::uint32_t polls_ = 0;
    Segment segment_;
    std::vector<Segment> peer_segments_;
    std::size_t payload_ = 0;
    std::unordered_map<std::uint64_t, mca_msg_channel_t *> rndv_sends_;
    std::unordered_map<std::uint64_t, mca_msg_channel_t *> split_recvs_;
    // Receives matched with a rendezvous request outside a drain: the copy
    // is made by the next progress, not inside start (a multiple's sends go
    // out first, and the split rule sees them).
    struct PendingPull {
        mca_msg_channel_t *recv = nullptr;
        std::unique_ptr<Rndv> message;
    };
    std::vector<PendingPull> pulls_;
    bool draining_ = false;
    bool finalizing_ = false;
    std::vector<std::uint8_t> readable_; // by local rank: this process may CMA from it
    std::uint64_t next_rndv_id_ = 1;
};

} // namespace meridian::msg_sm

#endif
