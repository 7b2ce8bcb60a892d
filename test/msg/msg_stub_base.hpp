// SPDX-License-Identifier: BSD-3-Clause
// A stand-in for the msg base (mca/msg/base/) under transports a test
// drives by hand: the meridian_mca_msg_base_* functions of msg.h, defined
// here so that the program's own definitions win over libmeridian's, for
// several ranks of one job living in one process.
//
// The world holds each rank's modex (with what the real base publishes
// before the transports' init: "node", "proc", "offers"), its job as the
// transports see it, and its record of what the transport handed to the
// base: messages that arrived (peer, tag, total, bytes), channels that
// completed and with which status, fits' questions, dead peers.  The
// current rank (per thread) says whose record a call goes to; the test sets
// it before each call into that rank's transport.  Matching is left out:
// every message that arrives is recorded whole in arrival order, and an
// announced one is taken at once into a receive of the stub's own (the
// take hook decides).  What the contract forbids (a channel completed
// twice, bytes past a message's end, a message withdrawn whose send was
// not freed) is recorded as a breach for the test to check.
#ifndef MERIDIAN_TEST_MSG_MSG_STUB_BASE_HPP
#define MERIDIAN_TEST_MSG_MSG_STUB_BASE_HPP

#include <sys/uio.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <meridian/mca/msg/msg.h>
#include <meridian/opal/util/error.h>

namespace msg_stub
{

// Every rank's node: one node, this process.
inline constexpr const char *node_name = "stub-node";

// A channel as the base keeps it: mca_msg_channel_t over its own copy of
// the block list.
struct Channel : mca_msg_channel_t {
    std::vector<iovec> blocks;
};
std::unique_ptr<Channel> make_channel(mca_msg_direction_t direction, int peer, std::uint64_t tag,
                                      std::vector<iovec> blocks);

// A message's memory: `count` blocks of `block` bytes, `stride` apart
// (stride == block: one run), the gaps between them filled with a marker
// byte nobody should write over.
struct Blocks {
    static constexpr std::byte gap{0xee};
    std::vector<std::byte> memory;
    std::vector<iovec> iov;
    std::size_t nbytes = 0;

    Blocks(std::size_t count, std::size_t block, std::size_t stride);
    // The message's bytes: byte i of the stream is pattern(seed, i).
    void fill(unsigned seed);
    // The blocks' bytes, in order.
    std::vector<std::byte> stream() const;
    // Empty when the gaps still hold the marker, else where they do not.
    std::string gaps_intact() const;
};

// Byte i of message `seed`: differs between neighbouring bytes, messages
// and offsets past 256.
std::byte pattern(unsigned seed, std::size_t i);
// Empty when bytes are pattern(seed, 0..), else the first difference.
std::string differs(const std::vector<std::byte> &bytes, unsigned seed);

// A message a rank's transport handed to the base.
struct Arrival {
    int peer = -1;
    std::uint64_t tag = 0;
    std::uint64_t total = 0;
    std::vector<std::byte> bytes; // total of them; the first `got` are in
    std::size_t got = 0;
    std::size_t placed = 0;           // of them, read straight into place (arrive_placed)
    void *announced = nullptr;        // the transport's handle (announce)
    std::unique_ptr<Channel> receive; // the stub's receive that took it (announce)
    bool completed = false;           // announced: its receive completed,
    int status = MERIDIAN_SUCCESS;    // with this status
    bool dropped = false;             // arrive_into for a receive that is gone
    bool withdrawn = false;           // announced: withdrawn (its send was freed)

    // Every byte is here (and, announced, its receive completed well).
    bool whole() const;
};

// A channel the transport completed (complete), in order.
struct Completion {
    const mca_msg_channel_t *channel;
    int status;
};

// A question the transport asked (fits), whatever the answer.
struct FitsCall {
    const mca_msg_channel_t *recv;
    std::uint64_t total;
    std::string got; // "" for NULL
};

// A peer the transport said is gone (peer_died), and why.
struct Death {
    int peer;
    std::string why;
};

// What the base calls back in a rank's transport (unset: not there).
struct Hooks {
    std::function<int()> progress;
    // For the stub's own receives (announce): declared before take, and
    // gone at cleanup_receives.
    std::function<int(mca_msg_channel_t &)> prepare;
    std::function<void(mca_msg_channel_t &)> cleanup;
    std::function<void(mca_msg_channel_t &, bool peer_alive)> cancel;
    std::function<int(mca_msg_channel_t &, void *message)> take;
    std::function<void(int peer, void *message)> drop;
    std::function<void(int peer)> peer_died;
    std::function<std::string(int peer)> path_name;
};

struct Rank {
    mca_msg_job_t job{};
    std::map<std::string, std::vector<std::uint8_t>> modex;
    Hooks hooks;
    std::deque<Arrival> arrivals;    // in arrival order
    std::vector<Arrival *> incoming; // per peer: the message under way
    std::vector<Completion> completions;
    std::vector<FitsCall> fits;
    std::vector<Death> deaths;
    std::vector<char> dead; // per peer
    std::vector<mca_msg_channel_t *> started;
    // Channels a transport's start_direct handed to the base's start
    // (meridian_mca_msg_base_start_channel), which answers as the base does
    // for a channel that is not idle: MERIDIAN_ERR_BAD_PARAM.
    std::vector<mca_msg_channel_t *> base_starts;
    // Sends abandoned while started: their receiver's transport may
    // withdraw their announced message, once each (a withdraw with no such
    // send is a breach).
    std::vector<mca_msg_channel_t *> freed_sends;
    std::vector<std::string> breaches;
    // arrive_pieces hands out runs of at most this many bytes (a receive of
    // blocks this long); 0: one run per message.
    std::size_t piece_block = 0;
    // may_arrive says 0 for messages longer than this (early messages past
    // the base's limit) until the test raises it.
    std::uint64_t early_limit = UINT64_MAX;
};

// A new world of `size` ranks (rank 0 current), each with its job, its
// modex as the base leaves it before init, and an empty record.
void make_world(int size);
int world_size();
Rank &rank(int r);
// The job (its arrays stay valid until the next make_world).
const mca_msg_job_t &job(int r);
// peers[r] for init: every rank but r.
std::vector<unsigned char> peers_of(int r);

// The rank whose transport this thread calls next.
void set_current(int r);
int current();

// The current rank's base starts the channel: it counts as started until
// the transport completes it once.
void started(mca_msg_channel_t &channel);
// The current rank's base abandons a started channel (channel_free): it is
// no longer started, and a completion afterwards is a breach; a send's
// announced message may be withdrawn once.
void abandoned(mca_msg_channel_t &channel);
// The channel's completion on rank r, or nullptr.
const Completion *completion_of(int r, const mca_msg_channel_t *channel);
// The stub's receives of rank r's announced messages go (hooks.cleanup), as
// the base's channels go before its transport's finalize.
void cleanup_receives(int r);
// Messages that arrived at rank r from peer, in order.
std::vector<const Arrival *> arrivals_from(int r, int peer);

// Progress each rank whose hooks have progress (as the current rank) in
// turn until done() or `limit` passes; false then.
bool drive(const std::function<bool()> &done,
           std::chrono::milliseconds limit = std::chrono::seconds(20));
// As drive, with rank r's transport alone progressing (the others busy
// elsewhere).
bool drive_alone(int r, const std::function<bool()> &done,
                 std::chrono::milliseconds limit = std::chrono::seconds(20));
// Rank r's finalize on a thread of its own (as rank r there) while this
// thread progresses the others, as they would in processes of their own;
// how long finalize took.  Rank r's progress hook is dropped.
std::chrono::milliseconds finalize_alongside(int r, const std::function<void()> &finalize);

// Every breach of every rank, one a line ("" when none).
std::string breaches();

} // namespace msg_stub

#endif
