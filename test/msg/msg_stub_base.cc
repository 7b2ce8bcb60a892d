// SPDX-License-Identifier: BSD-3-Clause
#include "test/msg/msg_stub_base.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <thread>

#include "mca/msg/base/msg_proc.hpp"
#include "mca/msg/base/msg_util.hpp"

namespace msg_stub
{

namespace
{

using Clock = std::chrono::steady_clock;

struct World {
    std::vector<std::unique_ptr<Rank>> ranks;
    std::vector<int> node_of;
    std::vector<int> local_rank_of;
    std::string nspace;
};

World &world()
{
    static World instance;
    return instance;
}

// Per thread: finalize_alongside runs one rank on a thread of its own.
thread_local int current_rank = 0;

Rank &here()
{
    return *world().ranks.at(static_cast<std::size_t>(current_rank));
}

void breach(Rank &r, const std::string &what)
{
    r.breaches.push_back("rank " + std::to_string(r.job.rank) + ": " + what);
}

bool is_rank(Rank &r, int peer, const char *call)
{
    if (peer >= 0 && peer < world_size()) {
        return true;
    }
    breach(r, std::string(call) + " names rank " + std::to_string(peer) + ", not in the job");
    return false;
}

std::string describe(int peer)
{
    Rank &r = here();
    const std::string path = r.hooks.path_name ? r.hooks.path_name(peer) : "stub";
    return "rank " + std::to_string(peer) + " (node " + node_name + ", path " + path + ")";
}

std::string describe(const mca_msg_channel_t &channel)
{
    return std::string(channel.direction == MCA_MSG_SEND ? "the send to " : "the receive from ") +
           describe(channel.peer) + " with tag " + meridian::msg::hex(channel.tag);
}

// The arrival whose stub receive recv is, or nullptr.
Arrival *owner_of(Rank &r, const mca_msg_channel_t *recv)
{
    for (Arrival &a : r.arrivals) {
        if (a.receive.get() == recv) {
            return &a;
        }
    }
    return nullptr;
}

void record_completion(Rank &r, mca_msg_channel_t *channel, int status)
{
    auto it = std::find(r.started.begin(), r.started.end(), channel);
    if (it == r.started.end()) {
        breach(r, "completed " + describe(*channel) + ", which was not started (or completed " +
                      "already), with status " + std::to_string(status));
        return;
    }
    r.started.erase(it);
    r.completions.push_back({channel, status});
    // As the base: the channel is done, with its status, until taken.
    channel->phase = MCA_MSG_CHANNEL_DONE;
    channel->status = status;
    if (Arrival *a = owner_of(r, channel); a != nullptr) {
        a->completed = true;
        a->status = status;
        if (status == MERIDIAN_SUCCESS) {
            a->got = a->total; // the transport moved the bytes into the receive itself
        }
    }
}

// Bytes into the message under way from peer; completes its receive (an
// announced message sent through the transport's own stream) once whole.
void add_bytes(Rank &r, int peer, Arrival &a, const void *data, std::size_t len, const char *call)
{
    if (len > a.total - a.got) {
        breach(r, std::string(call) + " gave " + std::to_string(len) + " bytes of rank " +
                      std::to_string(peer) + "'s message, only " + std::to_string(a.total - a.got) +
                      " were still to come");
        len = a.total - a.got;
    }
    if (data != nullptr && len > 0) {
        std::memcpy(a.bytes.data() + a.got, data, len);
    }
    a.got += len;
    if (a.got == a.total) {
        r.incoming[static_cast<std::size_t>(peer)] = nullptr;
        if (a.receive) {
            record_completion(r, a.receive.get(), MERIDIAN_SUCCESS);
        }
    }
}

// The blocks of a receive over bytes: runs of piece_block (0: one run).
std::vector<iovec> blocks_over(std::vector<std::byte> &bytes, std::size_t piece_block)
{
    std::vector<iovec> blocks;
    const std::size_t run = piece_block != 0 ? piece_block : std::max<std::size_t>(bytes.size(), 1);
    for (std::size_t at = 0; at < bytes.size(); at += run) {
        blocks.push_back({bytes.data() + at, std::min(run, bytes.size() - at)});
    }
    if (blocks.empty()) {
        blocks.push_back({bytes.data(), 0});
    }
    return blocks;
}

} // namespace

// ---------------------------------------------------------------- the world

std::unique_ptr<Channel> make_channel(mca_msg_direction_t direction, int peer, std::uint64_t tag,
                                      std::vector<iovec> blocks)
{
    auto channel = std::make_unique<Channel>();
    channel->blocks = std::move(blocks);
    channel->direction = direction;
    channel->peer = peer;
    channel->tag = tag;
    channel->iov = channel->blocks.data();
    channel->iovcnt = channel->blocks.size();
    channel->nbytes = 0;
    for (const iovec &block : channel->blocks) {
        channel->nbytes += block.iov_len;
    }
    channel->transport_data = nullptr;
    return channel;
}

void make_world(int size)
{
    World &w = world();
    w.ranks.clear();
    w.node_of.assign(static_cast<std::size_t>(size), 0);
    w.local_rank_of.resize(static_cast<std::size_t>(size));
    w.nspace = "stub." + std::to_string(::getpid());
    meridian::msg::ProcInfo proc;
    proc.pid = ::getpid();
    proc.start_time = meridian::msg::proc::start_time(::getpid());
    const std::string node = node_name;
    const std::string offers = "stub:0,1,1";
    for (int r = 0; r < size; ++r) {
        w.local_rank_of[static_cast<std::size_t>(r)] = r;
        auto made = std::make_unique<Rank>();
        mca_msg_job_t &job = made->job;
        job.rank = r;
        job.size = size;
        job.node = 0;
        job.num_nodes = 1;
        job.local_rank = r;
        job.local_size = size;
        job.node_of = w.node_of.data();
        job.local_rank_of = w.local_rank_of.data();
        job.nspace = w.nspace.c_str();
        // What msg_base_start.cc publishes before the transports' init.
        made->modex["node"].assign(node.begin(), node.end());
        const auto *info = reinterpret_cast<const std::uint8_t *>(&proc);
        made->modex["proc"].assign(info, info + sizeof proc);
        made->modex["offers"].assign(offers.begin(), offers.end());
        made->incoming.assign(static_cast<std::size_t>(size), nullptr);
        made->dead.assign(static_cast<std::size_t>(size), 0);
        w.ranks.push_back(std::move(made));
    }
    current_rank = 0;
}

int world_size()
{
    return static_cast<int>(world().ranks.size());
}

Rank &rank(int r)
{
    return *world().ranks.at(static_cast<std::size_t>(r));
}

const mca_msg_job_t &job(int r)
{
    return rank(r).job;
}

std::vector<unsigned char> peers_of(int r)
{
    std::vector<unsigned char> peers(static_cast<std::size_t>(world_size()), 1);
    peers[static_cast<std::size_t>(r)] = 0;
    return peers;
}

void set_current(int r)
{
    current_rank = r;
}

int current()
{
    return current_rank;
}

void started(mca_msg_channel_t &channel)
{
    Rank &r = here();
    if (std::find(r.started.begin(), r.started.end(), &channel) != r.started.end()) {
        breach(r, describe(channel) + " was started twice");
        return;
    }
    r.started.push_back(&channel);
}

void abandoned(mca_msg_channel_t &channel)
{
    Rank &r = here();
    auto it = std::find(r.started.begin(), r.started.end(), &channel);
    if (it == r.started.end()) {
        breach(r, describe(channel) + " was abandoned but not started");
        return;
    }
    r.started.erase(it);
    if (channel.direction == MCA_MSG_SEND) {
        r.freed_sends.push_back(&channel);
    }
}

const Completion *completion_of(int r, const mca_msg_channel_t *channel)
{
    for (const Completion &c : rank(r).completions) {
        if (c.channel == channel) {
            return &c;
        }
    }
    return nullptr;
}

void cleanup_receives(int r)
{
    set_current(r);
    Rank &made = rank(r);
    for (Arrival &a : made.arrivals) {
        if (a.receive && made.hooks.cleanup) {
            made.hooks.cleanup(*a.receive);
        }
    }
}

std::vector<const Arrival *> arrivals_from(int r, int peer)
{
    std::vector<const Arrival *> from;
    for (const Arrival &a : rank(r).arrivals) {
        if (a.peer == peer) {
            from.push_back(&a);
        }
    }
    return from;
}

bool drive(const std::function<bool()> &done, std::chrono::milliseconds limit)
{
    const auto deadline = Clock::now() + limit;
    while (!done()) {
        if (Clock::now() >= deadline) {
            return false;
        }
        for (int r = 0; r < world_size(); ++r) {
            if (rank(r).hooks.progress) {
                set_current(r);
                rank(r).hooks.progress();
            }
        }
    }
    return true;
}

bool drive_alone(int r, const std::function<bool()> &done, std::chrono::milliseconds limit)
{
    const auto deadline = Clock::now() + limit;
    while (!done()) {
        if (Clock::now() >= deadline || !rank(r).hooks.progress) {
            return false;
        }
        set_current(r);
        rank(r).hooks.progress();
    }
    return true;
}

std::chrono::milliseconds finalize_alongside(int r, const std::function<void()> &finalize)
{
    rank(r).hooks.progress = nullptr;
    std::atomic<bool> finished{false};
    std::chrono::milliseconds took{0};
    std::thread finalizing([&] {
        set_current(r);
        const auto begin = Clock::now();
        finalize();
        took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - begin);
        finished = true;
    });
    // finalize is bounded by the transport's own linger.
    while (!finished) {
        for (int other = 0; other < world_size(); ++other) {
            if (other != r && rank(other).hooks.progress) {
                set_current(other);
                rank(other).hooks.progress();
            }
        }
        std::this_thread::yield();
    }
    finalizing.join();
    return took;
}

std::string breaches()
{
    std::string all;
    for (int r = 0; r < world_size(); ++r) {
        for (const std::string &b : rank(r).breaches) {
            all += b + "\n";
        }
    }
    return all;
}

bool Arrival::whole() const
{
    return announced != nullptr ? completed && status == MERIDIAN_SUCCESS
                                : !dropped && got == total;
}

// ---------------------------------------------------------------- bytes

std::byte pattern(unsigned seed, std::size_t i)
{
    return static_cast<std::byte>((i * 131 + (i >> 8) * 7 + seed * 37 + 11) & 0xff);
}

std::string differs(const std::vector<std::byte> &bytes, unsigned seed)
{
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        if (bytes[i] != pattern(seed, i)) {
            char text[160];
            std::snprintf(text, sizeof text, "byte %zu of %zu is 0x%02x, expected 0x%02x", i,
                          bytes.size(), static_cast<unsigned>(bytes[i]),
                          static_cast<unsigned>(pattern(seed, i)));
            return text;
        }
    }
    return {};
}

Blocks::Blocks(std::size_t count, std::size_t block, std::size_t stride)
    : memory(count * stride + 64, gap), nbytes(count * block)
{
    for (std::size_t i = 0; i < count; ++i) {
        iov.push_back({memory.data() + i * stride, block});
    }
}

void Blocks::fill(unsigned seed)
{
    std::size_t at = 0;
    for (const iovec &block : iov) {
        auto *bytes = static_cast<std::byte *>(block.iov_base);
        for (std::size_t i = 0; i < block.iov_len; ++i) {
            bytes[i] = pattern(seed, at++);
        }
    }
}

std::vector<std::byte> Blocks::stream() const
{
    std::vector<std::byte> bytes;
    bytes.reserve(nbytes);
    for (const iovec &block : iov) {
        const auto *from = static_cast<const std::byte *>(block.iov_base);
        bytes.insert(bytes.end(), from, from + block.iov_len);
    }
    return bytes;
}

std::string Blocks::gaps_intact() const
{
    std::vector<char> inside(memory.size(), 0);
    for (const iovec &block : iov) {
        const auto at = static_cast<std::size_t>(static_cast<const std::byte *>(block.iov_base) -
                                                 memory.data());
        std::fill_n(inside.begin() + static_cast<std::ptrdiff_t>(at), block.iov_len, 1);
    }
    for (std::size_t i = 0; i < memory.size(); ++i) {
        if (inside[i] == 0 && memory[i] != gap) {
            return "byte " + std::to_string(i) + " between the blocks was written over";
        }
    }
    return {};
}

} // namespace msg_stub

// ---------------------------------------------------------------- msg.h

using msg_stub::Arrival;
using msg_stub::Rank;

extern "C" {

int meridian_mca_msg_base_modex_put(const char *key, const void *data, size_t len)
{
    if (key == nullptr || (data == nullptr && len > 0)) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    const auto *bytes = static_cast<const std::uint8_t *>(data);
    msg_stub::here().modex[key].assign(bytes, bytes + len);
    return MERIDIAN_SUCCESS;
}

int meridian_mca_msg_base_modex_get(int rank, const char *key, void *data, size_t *len)
{
    if (key == nullptr || len == nullptr || rank < 0 || rank >= msg_stub::world_size() ||
        (data == nullptr && *len > 0)) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    const auto &modex = msg_stub::rank(rank).modex;
    auto it = modex.find(key);
    if (it == modex.end()) {
        return MERIDIAN_ERR_NOT_FOUND;
    }
    const std::size_t capacity = *len;
    *len = it->second.size();
    if (it->second.size() > capacity) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    if (!it->second.empty()) {
        std::memcpy(data, it->second.data(), it->second.size());
    }
    return MERIDIAN_SUCCESS;
}

void meridian_mca_msg_base_complete(mca_msg_channel_t *channel, int status)
{
    msg_stub::record_completion(msg_stub::here(), channel, status);
}

int meridian_mca_msg_base_start_channel(mca_msg_channel_t *channel)
{
    msg_stub::here().base_starts.push_back(channel);
    return MERIDIAN_ERR_BAD_PARAM;
}

int meridian_mca_msg_base_may_arrive(int, uint64_t, uint64_t total)
{
    return total <= msg_stub::here().early_limit ? 1 : 0;
}

int meridian_mca_msg_base_arrive_begin(int peer, uint64_t tag, uint64_t total, const void *data,
                                       size_t len, int hold)
{
    Rank &r = msg_stub::here();
    if (!msg_stub::is_rank(r, peer, "arrive_begin")) {
        return 0;
    }
    Arrival *&under_way = r.incoming[static_cast<std::size_t>(peer)];
    if (under_way != nullptr) {
        msg_stub::breach(r, "a message from rank " + std::to_string(peer) + " began while " +
                                std::to_string(under_way->total - under_way->got) +
                                " bytes of the one before were still to come");
    }
    if (hold != 0 && total > r.early_limit) {
        return 0;
    }
    Arrival &a = r.arrivals.emplace_back();
    a.peer = peer;
    a.tag = tag;
    a.total = total;
    a.bytes.resize(total);
    under_way = total > 0 ? &a : nullptr;
    msg_stub::add_bytes(r, peer, a, data, len, "arrive_begin");
    return 1;
}

void meridian_mca_msg_base_arrive_into(int peer, mca_msg_channel_t *recv, uint64_t total,
                                       const void *data, size_t len)
{
    Rank &r = msg_stub::here();
    if (!msg_stub::is_rank(r, peer, "arrive_into")) {
        return;
    }
    Arrival *a = nullptr;
    if (recv == nullptr) {
        a = &r.arrivals.emplace_back();
        a->peer = peer;
        a->total = total;
        a->bytes.resize(total);
        a->dropped = true;
    } else {
        a = msg_stub::owner_of(r, recv);
        if (a == nullptr) {
            msg_stub::breach(r, "arrive_into names a receive the base never gave to take");
            return;
        }
        if (a->total != total || a->got != 0) {
            msg_stub::breach(r, "arrive_into gives a message of " + std::to_string(total) +
                                    " bytes to the receive of one of " + std::to_string(a->total) +
                                    " (" + std::to_string(a->got) + " in already)");
            return;
        }
    }
    r.incoming[static_cast<std::size_t>(peer)] = total > 0 ? a : nullptr;
    msg_stub::add_bytes(r, peer, *a, data, len, "arrive_into");
}

void meridian_mca_msg_base_arrive_more(int peer, const void *data, size_t len)
{
    Rank &r = msg_stub::here();
    if (!msg_stub::is_rank(r, peer, "arrive_more")) {
        return;
    }
    Arrival *a = r.incoming[static_cast<std::size_t>(peer)];
    if (a == nullptr) {
        msg_stub::breach(r, "arrive_more: " + std::to_string(len) + " bytes from rank " +
                                std::to_string(peer) + " with no message under way");
        return;
    }
    msg_stub::add_bytes(r, peer, *a, data, len, "arrive_more");
}

size_t meridian_mca_msg_base_arrive_left(int peer)
{
    Rank &r = msg_stub::here();
    if (!msg_stub::is_rank(r, peer, "arrive_left")) {
        return 0;
    }
    const Arrival *a = r.incoming[static_cast<std::size_t>(peer)];
    return a != nullptr ? a->total - a->got : 0;
}

size_t meridian_mca_msg_base_arrive_pieces(int peer, struct iovec *pieces, size_t max, size_t bytes,
                                           size_t min_block)
{
    Rank &r = msg_stub::here();
    if (!msg_stub::is_rank(r, peer, "arrive_pieces")) {
        return 0;
    }
    Arrival *a = r.incoming[static_cast<std::size_t>(peer)];
    if (a == nullptr) {
        return 0;
    }
    const std::size_t run = r.piece_block != 0 ? r.piece_block : a->total;
    if (run < min_block) {
        return 0;
    }
    std::size_t count = 0;
    std::size_t at = a->got;
    const std::size_t end = std::min<std::size_t>(a->total, a->got + bytes);
    while (count < max && at < end) {
        const std::size_t next = std::min(end, (at / run + 1) * run);
        pieces[count++] = {a->bytes.data() + at, next - at};
        at = next;
    }
    return count;
}

void meridian_mca_msg_base_arrive_placed(int peer, size_t len)
{
    Rank &r = msg_stub::here();
    if (!msg_stub::is_rank(r, peer, "arrive_placed")) {
        return;
    }
    Arrival *a = r.incoming[static_cast<std::size_t>(peer)];
    if (a == nullptr) {
        msg_stub::breach(r, "arrive_placed: " + std::to_string(len) + " bytes from rank " +
                                std::to_string(peer) + " with no message under way");
        return;
    }
    a->placed += len;
    msg_stub::add_bytes(r, peer, *a, nullptr, len, "arrive_placed");
}

void meridian_mca_msg_base_announce(int peer, uint64_t tag, uint64_t total, void *message)
{
    Rank &r = msg_stub::here();
    if (!msg_stub::is_rank(r, peer, "announce")) {
        return;
    }
    if (!r.hooks.take) {
        msg_stub::breach(r, "announce from a transport without take");
        return;
    }
    Arrival &a = r.arrivals.emplace_back();
    a.peer = peer;
    a.tag = tag;
    a.total = total;
    a.bytes.resize(total);
    a.announced = message;
    a.receive = msg_stub::make_channel(MCA_MSG_RECV, peer, tag,
                                       msg_stub::blocks_over(a.bytes, r.piece_block));
    if (r.hooks.prepare && r.hooks.prepare(*a.receive) != MERIDIAN_SUCCESS) {
        msg_stub::breach(r, "the transport refused the receive of its announced message");
        return;
    }
    r.started.push_back(a.receive.get());
    // At once, as the base does when a receive waits.
    r.hooks.take(*a.receive, message);
}

void meridian_mca_msg_base_announce_again(int peer, uint64_t tag, uint64_t, void *)
{
    // The stub never abandons the receives it gives to take.
    msg_stub::breach(msg_stub::here(), "announce_again of a message from rank " +
                                           std::to_string(peer) + " with tag " +
                                           meridian::msg::hex(tag) + " the stub never gave back");
}

void meridian_mca_msg_base_withdraw(int peer, uint64_t tag, void *message)
{
    Rank &r = msg_stub::here();
    if (!msg_stub::is_rank(r, peer, "withdraw")) {
        return;
    }
    const std::string what = "withdraw of a message from rank " + std::to_string(peer) +
                             " with tag " + meridian::msg::hex(tag);
    // Its send was freed: a send of rank peer to this rank with this tag.
    auto &freed = msg_stub::rank(peer).freed_sends;
    auto send = std::find_if(freed.begin(), freed.end(), [&](const mca_msg_channel_t *c) {
        return c->peer == r.job.rank && c->tag == tag;
    });
    if (send == freed.end()) {
        msg_stub::breach(r, what + " whose send was not freed");
        return;
    }
    freed.erase(send);
    // A message the base still holds: announced, neither taken nor withdrawn.
    Arrival *a = nullptr;
    for (Arrival &each : r.arrivals) {
        if (each.announced == message && each.peer == peer && each.tag == tag) {
            a = &each;
        }
    }
    if (a == nullptr || a->completed || a->withdrawn) {
        msg_stub::breach(r, what + (a == nullptr   ? " that was never announced"
                                    : a->withdrawn ? " that was withdrawn already"
                                                   : " that its receive took already"));
        return;
    }
    a->withdrawn = true;
    // The stub's receive of it waits for it no more.
    std::erase(r.started, a->receive.get());
}

int meridian_mca_msg_base_fits(mca_msg_channel_t *recv, uint64_t total, const char *got)
{
    Rank &r = msg_stub::here();
    r.fits.push_back({recv, total, got != nullptr ? got : ""});
    if (total <= recv->nbytes) {
        return 1;
    }
    msg_stub::record_completion(r, recv, MERIDIAN_ERR_BAD_PARAM);
    return 0;
}

void meridian_mca_msg_base_peer_died(int peer, const char *why)
{
    Rank &r = msg_stub::here();
    if (!msg_stub::is_rank(r, peer, "peer_died") || r.dead[static_cast<std::size_t>(peer)] != 0) {
        return;
    }
    // As the base: the transport takes in what the peer sent before, then
    // every started channel with the peer is abandoned and fails.
    if (r.hooks.peer_died) {
        r.hooks.peer_died(peer);
    }
    r.dead[static_cast<std::size_t>(peer)] = 1;
    r.deaths.push_back({peer, why != nullptr ? why : ""});
    std::vector<mca_msg_channel_t *> with_peer;
    for (mca_msg_channel_t *channel : r.started) {
        if (channel->peer == peer) {
            with_peer.push_back(channel);
        }
    }
    for (mca_msg_channel_t *channel : with_peer) {
        if (r.hooks.cancel) {
            r.hooks.cancel(*channel, false);
        }
        msg_stub::record_completion(r, channel, MERIDIAN_ERR_UNREACH);
    }
}

int meridian_mca_msg_base_peer_dead(int peer)
{
    Rank &r = msg_stub::here();
    return msg_stub::is_rank(r, peer, "peer_dead") ? r.dead[static_cast<std::size_t>(peer)] : 0;
}

int meridian_mca_msg_base_peer_busy(int peer)
{
    Rank &r = msg_stub::here();
    if (!msg_stub::is_rank(r, peer, "peer_busy")) {
        return 0;
    }
    if (r.incoming[static_cast<std::size_t>(peer)] != nullptr) {
        return 1;
    }
    return std::any_of(r.started.begin(), r.started.end(),
                       [peer](const mca_msg_channel_t *c) { return c->peer == peer; })
               ? 1
               : 0;
}

const char *meridian_mca_msg_base_peer_text(int peer, char *buffer, size_t size)
{
    std::snprintf(buffer, size, "%s", msg_stub::describe(peer).c_str());
    return buffer;
}

const char *meridian_mca_msg_base_channel_text(const mca_msg_channel_t *channel, char *buffer,
                                               size_t size)
{
    std::snprintf(buffer, size, "%s", msg_stub::describe(*channel).c_str());
    return buffer;
}

int meridian_mca_msg_base_timeout(void)
{
    return 300;
}

int meridian_mca_msg_base_oversubscribed(void)
{
    return 0;
}

} // extern "C"
