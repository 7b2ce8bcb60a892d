// SPDX-License-Identifier: BSD-3-Clause
// The ofi transport: a libfabric RDM endpoint with tagged messages, one
// operation per start, matched by libfabric (MCA_MSG_TRANSPORT_MATCHES: the
// provider's tag matching keeps (peer, tag, start order)).  Each process
// ends its session with a message of its own to every peer it sent to,
// delivery-complete where the provider offers it: after all of its
// messages (FI_ORDER_SAS), so its finalize knows they arrived, and a
// receive from a peer that ended either finds its message or fails at
// once.  Opened only when the base gives it peers.  One instance per process; the QMP layer
// serialises calls.
#ifndef MERIDIAN_MSG_OFI_TRANSPORT_HPP
#define MERIDIAN_MSG_OFI_TRANSPORT_HPP

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "components/msg_ofi/msg_ofi_fabric.hpp"
#include "components/msg_ofi/msg_ofi_params.hpp"
#include <meridian/mca/msg/msg.h>

namespace meridian::msg_ofi
{

// A libfabric operation's state: owned by its channel, and by the
// transport (as a zombie) when the channel is freed while it is posted.
struct Op {
    fi_context2 context{}; // first: libfabric hands &context back
    mca_msg_channel_t *channel = nullptr;
    std::vector<FidPtr<fid_mr>> registrations;
    std::vector<void *> descriptors;      // one per block (FI_MR_LOCAL), else empty
    std::unique_ptr<std::byte[]> staging; // packed copy when the blocks exceed iov_limit
    std::size_t staging_bytes = 0;
    FidPtr<fid_mr> staging_registration;
    void *staging_descriptor = nullptr;
};

// What the transport keeps per channel (its transport_data).
struct ChannelState {
    std::uint64_t wire_tag = 0; // the tag on the wire (fits the provider's tag bits)
    std::unique_ptr<Op> op;     // nullptr after a cancel: made again at the next start
    bool retry = false;         // posting hit FI_EAGAIN; progress posts again
};

// A peer's state.
struct Peer {
    bool sent_to = false;       // a send went to it: it gets this process's end
    bool ended = false;         // its end arrived: it sends nothing more
    std::uint32_t receives = 0; // receives from it that libfabric holds
};

// The end of a session: the sender's rank, under the tag kept for it.
struct End {
    fi_context2 context{}; // first: libfabric hands &context back
    std::int32_t rank = -1;
    FidPtr<fid_mr> registration;
    void *descriptor = nullptr;
};

class Transport
{
  public:
    explicit Transport(Params params) : params_(std::move(params)) {}
    ~Transport();
    Transport(const Transport &) = delete;
    Transport &operator=(const Transport &) = delete;

    int init(const mca_msg_job_t &job, const unsigned char *peers);
    int connect();
    void finalize();

    int prepare(mca_msg_channel_t &channel);
    void cleanup(mca_msg_channel_t &channel);
    void start(mca_msg_channel_t &channel);
    void cancel(mca_msg_channel_t &channel);
    int progress();
    const char *path_name() const { return path_.c_str(); }

  private:
    static ChannelState &state(mca_msg_channel_t &channel)
    {
        return *static_cast<ChannelState *>(channel.transport_data);
    }
    int make_op(mca_msg_channel_t &channel);
    bool post(mca_msg_channel_t &channel);
    int poll_cq();
    void complete(Op *op, std::size_t len, int error, const std::string &why);
    void abandon(mca_msg_channel_t &channel);
    int prepare_ends();
    void post_end_receive();
    void peer_ended(int rank);
    void send_ends();
    void check_ended();

    Params params_;
    mca_msg_job_t job_{};
    std::vector<int> ranks_;           // its peers
    std::vector<fi_addr_t> addresses_; // by rank
    std::vector<Peer> peers_;          // by rank
    std::unique_ptr<Endpoint> endpoint_;
    std::string path_ = "ofi";
    std::unordered_map<std::uint64_t, std::uint64_t> folded_tags_; // tags that did not fit
    std::vector<mca_msg_channel_t *> retry_;
    std::unordered_map<Op *, std::unique_ptr<Op>> zombies_;
    std::uint64_t end_tag_ = 0; // the tag kept for the end (all ones in the tag bits)
    End end_in_;                // the receive of the peers' ends
    // unposted: progress posts it (at first, and after the provider said
    // "later"); given_up: it failed or was cancelled, and is not posted again.
    enum class EndReceive { unposted, posted, given_up };
    EndReceive end_receive_ = EndReceive::unposted;
    std::vector<std::unique_ptr<End>> ends_out_; // this process's ends, one per peer
    std::size_t ends_pending_ = 0;               // of them, not yet complete
    bool check_ended_ = false;                   // a receive from a peer that ended was posted
};

// The address and port pnet assigned this process, if any.
Endpoint::Source pnet_endpoint();

} // namespace meridian::msg_ofi

#endif
