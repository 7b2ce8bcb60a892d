// SPDX-License-Identifier: BSD-3-Clause
// The channel layer's frame: channels (declare, readdress, free, release,
// start, test), matching for the transports that hand their messages up,
// early messages, names for messages, and the C entries: the channel
// interface the QMP layer calls and the services transports call.  Waits
// and dead peers are in msg_base_wait.cc, bring-up in msg_base_start.cc.
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "mca/msg/base/msg_layer.hpp"
#include "mca/msg/base/msg_util.hpp"
#include <meridian/opal/util/c_boundary.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>

namespace meridian::msg
{

namespace
{

std::size_t sum(const iovec *iov, std::size_t iovcnt)
{
    std::size_t total = 0;
    for (std::size_t i = 0; i < iovcnt; ++i) {
        total += iov[i].iov_len;
    }
    return total;
}

// The smallest early buffer: most early messages are a ring slot or a
// socket read's worth.
constexpr std::size_t min_unexpected_buffer = 4096;

} // namespace

Layer::Layer(const mca_msg_job_t &job, Params params) : params_(params)
{
    job_ = job;
    node_of_.assign(job.node_of, job.node_of + job.size);
    local_rank_of_.assign(job.local_rank_of, job.local_rank_of + job.size);
    nspace_ = job.nspace != nullptr ? job.nspace : "";
    job_.node_of = node_of_.data();
    job_.local_rank_of = local_rank_of_.data();
    job_.nspace = nspace_.c_str();
    peers_ = std::vector<Peer>(static_cast<std::size_t>(job.size)); // Peer does not move
    for (int r = 0; r < job.size; ++r) {
        peer(r).node = node_of_[static_cast<std::size_t>(r)];
    }
    const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
    oversubscribed_ = cpus > 0 && job.local_size > cpus;
}

// The transports may be gone already: the base's stop dropped everything
// (drop_all) while they were there.
Layer::~Layer() = default;

void Layer::set_transport(int rank, mca_msg_transport_t *transport,
                          int (*start_direct)(mca_msg_channel_t *))
{
    peer(rank).transport = transport;
    peer(rank).start_direct = start_direct;
}

void Layer::watch_pid(int rank, pid_t pid, std::uint64_t start_time)
{
    Peer &p = peer(rank);
    p.pid = pid;
    p.start_time = start_time;
}

void Layer::drop_all()
{
    // Channels still started, released ones too, are abandoned as
    // channel_free would.
    released_.clear();
    for (auto &[raw, channel] : channels_) {
        if (channel->phase == Phase::active) {
            detach(*channel, !peer(channel->peer).dead);
        }
        if (channel->transport->cleanup != nullptr) {
            channel->transport->cleanup(channel->transport, channel.get());
        }
    }
    channels_.clear();
    for (int r = 0; r < job_.size; ++r) {
        Peer &p = peer(r);
        for (auto &[tag, matching] : p.match) {
            for (auto &message : matching.unexpected) {
                drop_unexpected(r, *message);
            }
            matching.unexpected.clear();
            matching.posted.clear();
        }
        p.incoming = Incoming{};
    }
    unexpected_bytes_ = 0;
}

// ---------------------------------------------------------------- channels

int Layer::channel_create(const mca_msg_channel_spec_t &spec, Channel **out)
{
    if (spec.peer < 0 || spec.peer >= job_.size) {
        meridian::report_error("msg: a channel to rank " + std::to_string(spec.peer) +
                               ", but the job has ranks 0-" + std::to_string(job_.size - 1));
        return MERIDIAN_ERR_BAD_PARAM;
    }
    if ((spec.iov == nullptr && spec.iovcnt > 0) ||
        (spec.direction != MCA_MSG_SEND && spec.direction != MCA_MSG_RECV)) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    if (const std::size_t total = sum(spec.iov, spec.iovcnt); total != spec.nbytes) {
        meridian::report_error("msg: a channel's blocks hold " + std::to_string(total) +
                               " bytes, its size says " + std::to_string(spec.nbytes));
        return MERIDIAN_ERR_BAD_PARAM;
    }
    auto channel = std::make_unique<Channel>();
    Peer &p = peer(spec.peer);
    channel->direction = spec.direction;
    channel->peer = spec.peer;
    channel->tag = spec.tag;
    channel->blocks.assign(spec.iov, spec.iov + spec.iovcnt);
    channel->iov = channel->blocks.data();
    channel->iovcnt = channel->blocks.size();
    channel->nbytes = spec.nbytes;
    channel->transport_data = nullptr;
    channel->transport = p.transport;
    channel->matches = (p.transport->flags & MCA_MSG_TRANSPORT_MATCHES) != 0;
    if (!channel->matches) {
        // Elements of an unordered_map stay where they are: the queues are
        // found once, here, not at every start.
        channel->matching = &p.match[spec.tag];
    }
    // Kept first, so nothing the transport prepares is lost to an
    // allocation failing after it.
    Channel *raw = channel.get();
    channels_.emplace(raw, std::move(channel));
    if (p.transport->prepare != nullptr) {
        if (int rc = p.transport->prepare(p.transport, raw); rc != MERIDIAN_SUCCESS) {
            channels_.erase(raw);
            return rc;
        }
    }
    choose_start(*raw);
    *out = raw;
    return MERIDIAN_SUCCESS;
}

int Layer::channel_readdress(Channel &channel, const iovec *iov, std::size_t iovcnt)
{
    if (channel.phase != Phase::idle || (iov == nullptr && iovcnt > 0)) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    mca_msg_transport_t *t = channel.transport;
    if (t->cleanup != nullptr) {
        t->cleanup(t, &channel);
    }
    channel.transport_data = nullptr;
    channel.prepared = false;
    choose_start(channel);
    channel.blocks.assign(iov, iov + iovcnt);
    channel.iov = channel.blocks.data();
    channel.iovcnt = channel.blocks.size();
    channel.nbytes = sum(iov, iovcnt);
    if (t->prepare != nullptr) {
        if (int rc = t->prepare(t, &channel); rc != MERIDIAN_SUCCESS) {
            return rc; // it cannot start until a readdress works
        }
    }
    channel.prepared = true;
    choose_start(channel);
    return MERIDIAN_SUCCESS;
}

void Layer::channel_free(Channel *channel)
{
    auto it = channels_.find(channel);
    if (it == channels_.end()) {
        return;
    }
    if (channel->phase == Phase::active) {
        detach(*channel, true);
    }
    if (channel->transport->cleanup != nullptr) {
        channel->transport->cleanup(channel->transport, channel);
    }
    channels_.erase(it);
}

// A started channel goes on as if it were still there; progress frees it
// once its transfer is over (reap_released).  Its peer's death ends it too.
void Layer::channel_release(Channel *channel)
{
    auto it = channels_.find(channel);
    if (it == channels_.end() || channel->released) {
        return;
    }
    if (channel->phase == Phase::active && !peer(channel->peer).dead) {
        channel->released = true;
        released_.push_back(channel);
        return;
    }
    channel_free(channel);
}

void Layer::reap_released()
{
    std::erase_if(released_, [this](Channel *channel) {
        if (channel->phase == Phase::active) {
            return false;
        }
        if (channel->transport->cleanup != nullptr) {
            channel->transport->cleanup(channel->transport, channel);
        }
        channels_.erase(channel);
        return true;
    });
}

// Take an active channel out of every queue that refers to it (it is freed,
// or its peer died): the transport's first, then the base's.
void Layer::detach(Channel &channel, bool peer_alive)
{
    channel.transport->cancel(channel.transport, &channel, peer_alive ? 1 : 0);
    if (channel.matches) {
        return;
    }
    Peer &p = peer(channel.peer);
    if (p.incoming.recv == &channel) {
        p.incoming.recv = nullptr; // the rest of its bytes are dropped
    }
    if (channel.matching != nullptr) {
        std::erase(channel.matching->posted, &channel);
    }
}

// A start that is not the common one: refused, or to a dead peer (then
// `proceed` when it starts as any other).  Out of start's way, so that the
// common start has no error text to make room for.
int Layer::start_unusual(Channel &channel)
{
    if (channel.phase != Phase::idle) {
        meridian::report_error("msg: " + channel_text(channel) + " is started already");
        return MERIDIAN_ERR_BAD_PARAM;
    }
    if (!channel.prepared) {
        meridian::report_error("msg: " + channel_text(channel) +
                               " has no memory its transport took (its last readdress failed)");
        return MERIDIAN_ERR_BAD_PARAM;
    }
    Peer &p = peer(channel.peer);
    // What it sent before it died is still delivered; nothing more comes.
    // (A transport that matches its own gets the receive, and the next wait
    // says whether it took anything.)
    if (p.dead && !(channel.matches && channel.direction == MCA_MSG_RECV)) {
        if (receive_from_dead(p, channel)) {
            return MERIDIAN_SUCCESS;
        }
        say_death(channel.peer);
        return MERIDIAN_ERR_UNREACH;
    }
    return proceed;
}

int Layer::test(Channel &channel, int *complete)
{
    *complete = 0;
    if (channel.phase == Phase::active) {
        progress();
    }
    if (channel.phase == Phase::active) {
        Channel *one = &channel;
        const auto now = Clock::now();
        if (now >= next_liveness_) {
            next_liveness_ = now + std::chrono::milliseconds(params_.liveness_ms);
            check_liveness(&one, 1);
        }
    }
    if (channel.phase == Phase::active) {
        return MERIDIAN_SUCCESS;
    }
    *complete = 1;
    channel.phase = Phase::idle;
    return channel.status;
}

// ---------------------------------------------------------------- matching

// Match a starting receive against what arrived.
void Layer::start_recv_matched(Peer &p, Channel &recv)
{
    Matching &matching = *recv.matching;
    if (matching.unexpected.empty()) {
        matching.posted.push_back(&recv);
        if (recv.transport->posted != nullptr) {
            recv.transport->posted(recv.transport, &recv);
        }
        return;
    }
    std::unique_ptr<Unexpected> message = std::move(matching.unexpected.front());
    matching.unexpected.pop_front();
    if (message->kind == Unexpected::Kind::announced) {
        take_announced(recv, *message);
        return;
    }
    unexpected_bytes_ -= message->total;
    if (message->arrived < message->total) {
        // Still arriving (only the peer's current message can be): the
        // rest goes straight into the receive.
        Incoming &incoming = p.incoming;
        incoming.stash = nullptr;
        if (fits(recv, message->total, nullptr)) {
            incoming.recv = &recv;
            incoming.cursor = IovCursor({recv.iov, recv.iovcnt});
            incoming.cursor.scatter(message->data.get(), message->arrived);
        }
    } else {
        deliver_eager(recv, *message);
    }
    recycle(*message);
}

void Layer::take_announced(Channel &recv, Unexpected &message)
{
    mca_msg_transport_t *t = recv.transport;
    if (t->take(t, &recv, message.message) != 0) {
        deferred_ = true;
    }
}

void Layer::deliver_eager(Channel &recv, Unexpected &message)
{
    if (!fits(recv, message.total, nullptr)) {
        return;
    }
    if (message.total == 0) {
        // nothing to copy (either pointer may be NULL)
    } else if (recv.iovcnt == 1) {
        std::memcpy(recv.iov[0].iov_base, message.data.get(), message.total);
    } else {
        IovCursor({recv.iov, recv.iovcnt}).scatter(message.data.get(), message.total);
    }
    complete(recv, MERIDIAN_SUCCESS);
}

std::unique_ptr<Unexpected> Layer::make_unexpected(std::size_t total)
{
    std::unique_ptr<Unexpected> message;
    // The smallest kept buffer that holds the message: a channel that keeps
    // arriving early reuses its own, with no allocation and no page faults.
    auto best = pool_.end();
    for (auto it = pool_.begin(); it != pool_.end(); ++it) {
        if ((*it)->data_capacity >= total &&
            (best == pool_.end() || (*it)->data_capacity < (*best)->data_capacity)) {
            best = it;
        }
    }
    if (best != pool_.end()) {
        message = std::move(*best);
        pool_.erase(best);
        pooled_bytes_ -= message->data_capacity;
    } else {
        message = std::make_unique<Unexpected>();
        message->data_capacity = std::max(total, min_unexpected_buffer);
        message->data = std::make_unique_for_overwrite<std::byte[]>(message->data_capacity);
    }
    message->kind = Unexpected::Kind::eager;
    message->total = total;
    unexpected_bytes_ += total; // until a receive takes it (start_recv_matched)
    message->arrived = 0;
    return message;
}

void Layer::recycle(Unexpected &message)
{
    // Keep buffers for the next early messages, within a bound on the bytes
    // kept: past it, the smallest kept buffers make room.
    constexpr std::size_t pooled_max = 16 * 1024 * 1024;
    constexpr std::size_t pooled_count = 64;
    if (!message.data || message.data_capacity > pooled_max) {
        return;
    }
    while (!pool_.empty() &&
           (pool_.size() >= pooled_count || pooled_bytes_ + message.data_capacity > pooled_max)) {
        auto smallest = std::min_element(pool_.begin(), pool_.end(), [](auto &a, auto &b) {
            return a->data_capacity < b->data_capacity;
        });
        pooled_bytes_ -= (*smallest)->data_capacity;
        pool_.erase(smallest);
    }
    auto kept = std::make_unique<Unexpected>();
    kept->data = std::move(message.data);
    kept->data_capacity = message.data_capacity;
    pooled_bytes_ += kept->data_capacity;
    pool_.push_back(std::move(kept));
}

void Layer::drop_unexpected(int rank, Unexpected &message)
{
    if (message.kind == Unexpected::Kind::announced) {
        mca_msg_transport_t *t = peer(rank).transport;
        if (t->drop != nullptr) {
            t->drop(t, rank, message.message);
        }
    }
}

bool Layer::may_arrive(int rank, std::uint64_t tag, std::uint64_t total)
{
    const std::size_t limit = params_.unexpected_limit;
    return !matching_for(peer(rank), tag).posted.empty() ||
           (total <= limit && unexpected_bytes_ <= limit - total);
}

bool Layer::arrive_begin(int rank, std::uint64_t tag, std::size_t total, const std::byte *data,
                         std::size_t len, bool hold)
{
    Peer &p = peer(rank);
    Matching &matching = matching_for(p, tag);
    if (!matching.posted.empty()) {
        Channel &recv = *matching.posted.front();
        matching.posted.pop_front();
        take_first(p, recv, data, len, total);
        return true;
    }
    const std::size_t limit = params_.unexpected_limit;
    if (hold && (total > limit || unexpected_bytes_ > limit - total)) {
        return false;
    }
    auto message = make_unexpected(total);
    if (len > 0) {
        std::memcpy(message->data.get(), data, len);
    }
    message->arrived = len;
    if (len < total) {
        p.incoming = Incoming{true, nullptr, message.get(), total, len, {}};
    }
    matching.unexpected.push_back(std::move(message));
    return true;
}

void Layer::arrive_into(int rank, Channel *recv, std::size_t total, const std::byte *data,
                        std::size_t len)
{
    Peer &p = peer(rank);
    if (recv != nullptr) {
        take_first(p, *recv, data, len, total);
    } else if (len < total) {
        p.incoming = Incoming{true, nullptr, nullptr, total, len, {}}; // the rest is dropped
    }
}

// The first bytes of a message for a started receive.
void Layer::take_first(Peer &p, Channel &recv, const std::byte *data, std::size_t len,
                       std::size_t total)
{
    Incoming &incoming = p.incoming;
    if (!fits(recv, total, nullptr)) {
        if (len < total) {
            incoming = Incoming{true, nullptr, nullptr, total, len, {}};
        }
        return;
    }
    if (recv.iovcnt == 1 && len == total) {
        if (len > 0) {
            std::memcpy(recv.iov[0].iov_base, data, len);
        }
        complete(recv, MERIDIAN_SUCCESS);
        return;
    }
    IovCursor cursor({recv.iov, recv.iovcnt});
    cursor.scatter(data, len);
    if (len == total) {
        complete(recv, MERIDIAN_SUCCESS);
    } else {
        incoming = Incoming{true, &recv, nullptr, total, len, cursor};
    }
}

void Layer::arrive_more(int rank, const std::byte *data, std::size_t length)
{
    Incoming &incoming = peer(rank).incoming;
    if (!incoming.active) {
        return; // cannot happen with a well-behaved transport
    }
    const std::size_t len = std::min(length, incoming.total - incoming.got);
    if (incoming.recv != nullptr) {
        incoming.cursor.scatter(data, len);
    } else if (incoming.stash != nullptr) {
        std::memcpy(incoming.stash->data.get() + incoming.got, data, len);
        incoming.stash->arrived += len;
    }
    arrived(incoming, len);
}

std::size_t Layer::arrive_left(int rank) const
{
    const Incoming &incoming = peers_[static_cast<std::size_t>(rank)].incoming;
    return incoming.active ? incoming.total - incoming.got : 0;
}

std::size_t Layer::arrive_pieces(int rank, iovec *pieces, std::size_t max, std::size_t bytes,
                                 std::size_t min_block)
{
    Incoming &incoming = peer(rank).incoming;
    if (!incoming.active || max == 0) {
        return 0;
    }
    bytes = std::min(bytes, incoming.total - incoming.got);
    if (incoming.stash != nullptr) {
        pieces[0] = {incoming.stash->data.get() + incoming.got, bytes};
        return 1;
    }
    if (incoming.recv == nullptr) {
        return 0; // dropped: read through the buffer and thrown away
    }
    const Channel &recv = *incoming.recv;
    if (recv.iovcnt > 1 && recv.nbytes < min_block * recv.iovcnt) {
        return 0;
    }
    IovCursor cursor = incoming.cursor;
    std::size_t count = 0;
    while (bytes > 0 && count < max) {
        const iovec piece = cursor.piece(bytes);
        if (piece.iov_len == 0) {
            break;
        }
        pieces[count++] = piece;
        cursor.advance(piece.iov_len);
        bytes -= piece.iov_len;
    }
    return count;
}

void Layer::arrive_placed(int rank, std::size_t len)
{
    Incoming &incoming = peer(rank).incoming;
    if (!incoming.active) {
        return;
    }
    len = std::min(len, incoming.total - incoming.got);
    if (incoming.recv != nullptr) {
        incoming.cursor.advance(len);
    } else if (incoming.stash != nullptr) {
        incoming.stash->arrived += len;
    }
    arrived(incoming, len);
}

void Layer::arrived(Incoming &incoming, std::size_t len)
{
    incoming.got += len;
    if (incoming.got >= incoming.total) {
        if (incoming.recv != nullptr) {
            complete(*incoming.recv, MERIDIAN_SUCCESS);
        }
        incoming = Incoming{};
    }
}

void Layer::announce(int rank, std::uint64_t tag, std::uint64_t total, void *message, bool first)
{
    Peer &p = peer(rank);
    Matching &matching = matching_for(p, tag);
    if (!first && !matching.posted.empty()) {
        Channel &recv = *matching.posted.front();
        matching.posted.pop_front();
        Unexpected announced;
        announced.kind = Unexpected::Kind::announced;
        announced.total = total;
        announced.message = message;
        take_announced(recv, announced);
        return;
    }
    auto entry = std::make_unique<Unexpected>();
    entry->kind = Unexpected::Kind::announced;
    entry->total = total;
    entry->message = message;
    if (first) {
        // Given back untaken (its receive was freed first): first in line
        // for the next receive of its tag.
        matching.unexpected.push_front(std::move(entry));
    } else {
        matching.unexpected.push_back(std::move(entry));
    }
}

void Layer::withdraw(int rank, std::uint64_t tag, void *message)
{
    Matching &matching = matching_for(peer(rank), tag);
    std::erase_if(matching.unexpected, [&](const std::unique_ptr<Unexpected> &u) {
        return u->kind == Unexpected::Kind::announced && u->message == message;
    });
}

void Layer::too_long(Channel &recv, const std::string &got)
{
    meridian::report_error("msg: rank " + std::to_string(job_.rank) + ": " + channel_text(recv) +
                           " holds " + std::to_string(recv.nbytes) +
                           " bytes, the message is longer: " + got);
    complete(recv, MERIDIAN_ERR_BAD_PARAM);
}

bool Layer::fits(Channel &recv, std::uint64_t total, const char *got)
{
    if (total <= recv.nbytes) {
        return true;
    }
    too_long(recv, got != nullptr ? std::string(got) : std::to_string(total) + " bytes");
    return false;
}

bool Layer::peer_busy(int rank) const
{
    const Peer &p = peers_[static_cast<std::size_t>(rank)];
    if (p.incoming.active) {
        return true;
    }
    for (const auto &[raw, channel] : channels_) {
        if (channel->peer == rank && channel->phase == Phase::active) {
            return true;
        }
    }
    return false;
}

// ---------------------------------------------------------------- names

const std::string &Layer::node_name(int rank)
{
    Peer &p = peer(rank);
    if (p.node_name.empty()) {
        // The base published every process's node name ("node").
        std::vector<std::uint8_t> name(256);
        if (get_bytes(rank, "node", name) == MERIDIAN_SUCCESS && !name.empty()) {
            p.node_name.assign(name.begin(), name.end());
        } else {
            p.node_name = std::to_string(p.node);
        }
    }
    return p.node_name;
}

std::string Layer::describe(int rank)
{
    return "rank " + std::to_string(rank) + " (node " + node_name(rank) + ", path " +
           path_name(rank) + ")";
}

std::string Layer::channel_text(const Channel &channel)
{
    return std::string(channel.direction == MCA_MSG_SEND ? "the send to " : "the receive from ") +
           describe(channel.peer) + " with tag " + hex(channel.tag);
}

const char *Layer::path_name(int rank)
{
    if (rank < 0 || rank >= job_.size) {
        return "none";
    }
    mca_msg_transport_t *t = peer(rank).transport;
    return t == nullptr ? "none" : t->path_name(t, rank);
}

} // namespace meridian::msg

// ---------------------------------------------------------------- C entries

namespace
{

using meridian::msg::Channel;
using meridian::msg::layer;
using meridian::msg::Layer;

Channel &channel_of(mca_msg_channel_t *channel)
{
    return *static_cast<Channel *>(channel);
}

// The channel interface: each call is a C boundary (its name in reports is
// "msg CALL"); what each returns is msg.h's contract.
int module_channel_create(mca_msg_base_module_t *, const mca_msg_channel_spec_t *spec,
                          mca_msg_channel_t **channel)
{
    return meridian::c_boundary("msg channel_create", [&]() -> int {
        if (spec == nullptr || channel == nullptr || layer() == nullptr) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        *channel = nullptr; // also when the create throws
        Channel *created = nullptr;
        const int rc = layer()->channel_create(*spec, &created);
        *channel = created;
        return rc;
    });
}

int module_channel_readdress(mca_msg_base_module_t *, mca_msg_channel_t *channel,
                             const struct iovec *iov, size_t iovcnt)
{
    return meridian::c_boundary("msg channel_readdress", [&]() -> int {
        if (channel == nullptr || layer() == nullptr) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        return layer()->channel_readdress(channel_of(channel), iov, iovcnt);
    });
}

void module_channel_free(mca_msg_base_module_t *, mca_msg_channel_t *channel)
{
    meridian::c_boundary_void("msg channel_free", [&] {
        if (channel != nullptr && layer() != nullptr) {
            layer()->channel_free(&channel_of(channel));
        }
    });
}

void module_channel_release(mca_msg_base_module_t *, mca_msg_channel_t *channel)
{
    meridian::c_boundary_void("msg channel_release", [&] {
        if (channel != nullptr && layer() != nullptr) {
            layer()->channel_release(&channel_of(channel));
        }
    });
}

int module_start(mca_msg_base_module_t *, mca_msg_channel_t *channel)
{
    return meridian::c_boundary("msg start", [&]() -> int {
        return channel == nullptr || layer() == nullptr ? MERIDIAN_ERR_BAD_PARAM
                                                        : layer()->start(channel_of(channel));
    });
}

int module_test(mca_msg_base_module_t *, mca_msg_channel_t *channel, int *complete)
{
    return meridian::c_boundary("msg test", [&]() -> int {
        if (channel == nullptr || complete == nullptr || layer() == nullptr) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        return layer()->test(channel_of(channel), complete);
    });
}

// A wait for several channels (or refused): out of the way of the wait for
// one, whose frame then holds nothing of this.
[[gnu::noinline]] int module_wait_many(mca_msg_channel_t *const *channels, size_t count,
                                       int timeout_ms)
{
    return meridian::c_boundary("msg wait", [&]() -> int {
        if ((channels == nullptr && count > 0) || layer() == nullptr) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        if (count == 1) {
            return layer()->wait_one(channels[0] == nullptr ? nullptr : &channel_of(channels[0]),
                                     timeout_ms);
        }
        // Channel derives from mca_msg_channel_t alone: the pointers convert
        // one by one, not as an array.
        Channel *one[16] = {}; // (zeroed: GCC 14 cannot see that count <= 16 fills it)
        std::vector<Channel *> many;
        Channel **list = one;
        if (count > 16) {
            many.resize(count);
            list = many.data();
        }
        for (size_t i = 0; i < count; ++i) {
            list[i] = channels[i] == nullptr ? nullptr : &channel_of(channels[i]);
        }
        return layer()->wait(list, count, timeout_ms);
    });
}

int module_wait(mca_msg_base_module_t *, mca_msg_channel_t *const *channels, size_t count,
                int timeout_ms)
{
    Layer *const l = layer();
    if (count != 1 || channels == nullptr || l == nullptr) [[unlikely]] {
        return module_wait_many(channels, count, timeout_ms);
    }
    return meridian::c_boundary("msg wait", [&] {
        return l->wait_one(channels[0] == nullptr ? nullptr : &channel_of(channels[0]), timeout_ms);
    });
}

// progress counts completions (>= 0, msg.h): a failure completed nothing.
int module_progress(mca_msg_base_module_t *)
{
    return meridian::c_boundary("msg progress", meridian::CFailure<int>{0, 0},
                                [] { return layer() == nullptr ? 0 : layer()->progress(); });
}

// path_name is never NULL (msg.h).
const char *module_path_name(mca_msg_base_module_t *, int peer)
{
    const meridian::CFailure<const char *> unknown{"unknown", "unknown"};
    return meridian::c_boundary("msg path_name", unknown, [&] {
        return layer() == nullptr ? "none" : layer()->path_name(peer);
    });
}

// A rank out of range from a transport is a bug: said once, ignored.
bool valid(int rank)
{
    if (layer() != nullptr && rank >= 0 && rank < layer()->size()) {
        return true;
    }
    meridian::report_error("msg: a transport named rank " + std::to_string(rank) +
                           ", which is not in the job");
    return false;
}

} // namespace

namespace meridian::msg
{

mca_msg_base_module_t channel_interface = {
    .channel_create = module_channel_create,
    .channel_readdress = module_channel_readdress,
    .channel_free = module_channel_free,
    .channel_release = module_channel_release,
    .start = module_start,
    .test = module_test,
    .wait = module_wait,
    .progress = module_progress,
    .path_name = module_path_name,
};

} // namespace meridian::msg

extern "C" {

void meridian_mca_msg_base_complete(mca_msg_channel_t *channel, int status)
{
    meridian::c_boundary_void("msg complete", [&] {
        if (channel != nullptr && layer() != nullptr) {
            layer()->complete(channel_of(channel), status);
        }
    });
}

int meridian_mca_msg_base_start_channel(mca_msg_channel_t *channel)
{
    return module_start(nullptr, channel);
}

int meridian_mca_msg_base_may_arrive(int peer, uint64_t tag, uint64_t total)
{
    return meridian::c_boundary("msg may_arrive", meridian::CFailure<int>{1, 1}, [&] {
        return valid(peer) && layer()->may_arrive(peer, tag, total);
    });
}

int meridian_mca_msg_base_arrive_begin(int peer, uint64_t tag, uint64_t total, const void *data,
                                       size_t len, int hold)
{
    return meridian::c_boundary("msg arrive_begin", meridian::CFailure<int>{1, 1}, [&] {
        return !valid(peer) ||
                       layer()->arrive_begin(peer, tag, total, static_cast<const std::byte *>(data),
                                             len, hold != 0)
                   ? 1
                   : 0;
    });
}

void meridian_mca_msg_base_arrive_into(int peer, mca_msg_channel_t *recv, uint64_t total,
                                       const void *data, size_t len)
{
    meridian::c_boundary_void("msg arrive_into", [&] {
        if (valid(peer)) {
            layer()->arrive_into(peer, recv != nullptr ? &channel_of(recv) : nullptr, total,
                                 static_cast<const std::byte *>(data), len);
        }
    });
}

void meridian_mca_msg_base_arrive_more(int peer, const void *data, size_t len)
{
    meridian::c_boundary_void("msg arrive_more", [&] {
        if (valid(peer)) {
            layer()->arrive_more(peer, static_cast<const std::byte *>(data), len);
        }
    });
}

size_t meridian_mca_msg_base_arrive_left(int peer)
{
    return meridian::c_boundary("msg arrive_left", meridian::CFailure<size_t>{0, 0},
                                [&] { return valid(peer) ? layer()->arrive_left(peer) : 0; });
}

size_t meridian_mca_msg_base_arrive_pieces(int peer, struct iovec *pieces, size_t max, size_t bytes,
                                           size_t min_block)
{
    return meridian::c_boundary("msg arrive_pieces", meridian::CFailure<size_t>{0, 0}, [&] {
        return valid(peer) && pieces != nullptr
                   ? layer()->arrive_pieces(peer, pieces, max, bytes, min_block)
                   : 0;
    });
}

void meridian_mca_msg_base_arrive_placed(int peer, size_t len)
{
    meridian::c_boundary_void("msg arrive_placed", [&] {
        if (valid(peer)) {
            layer()->arrive_placed(peer, len);
        }
    });
}

void meridian_mca_msg_base_announce(int peer, uint64_t tag, uint64_t total, void *message)
{
    meridian::c_boundary_void("msg announce", [&] {
        if (valid(peer)) {
            layer()->announce(peer, tag, total, message, false);
        }
    });
}

void meridian_mca_msg_base_announce_again(int peer, uint64_t tag, uint64_t total, void *message)
{
    meridian::c_boundary_void("msg announce_again", [&] {
        if (valid(peer)) {
            layer()->announce(peer, tag, total, message, true);
        }
    });
}

void meridian_mca_msg_base_withdraw(int peer, uint64_t tag, void *message)
{
    meridian::c_boundary_void("msg withdraw", [&] {
        if (valid(peer)) {
            layer()->withdraw(peer, tag, message);
        }
    });
}

int meridian_mca_msg_base_fits(mca_msg_channel_t *recv, uint64_t total, const char *got)
{
    return meridian::c_boundary("msg fits", meridian::CFailure<int>{0, 0}, [&] {
        return recv != nullptr && layer() != nullptr && layer()->fits(channel_of(recv), total, got)
                   ? 1
                   : 0;
    });
}

void meridian_mca_msg_base_peer_died(int peer, const char *why)
{
    meridian::c_boundary_void("msg peer_died", [&] {
        if (valid(peer)) {
            layer()->peer_died(peer, why != nullptr ? why : "is gone");
        }
    });
}

int meridian_mca_msg_base_peer_dead(int peer)
{
    return meridian::c_boundary("msg peer_dead", meridian::CFailure<int>{0, 0},
                                [&] { return valid(peer) && layer()->peer_dead(peer) ? 1 : 0; });
}

int meridian_mca_msg_base_peer_busy(int peer)
{
    return meridian::c_boundary("msg peer_busy", meridian::CFailure<int>{1, 1},
                                [&] { return valid(peer) && layer()->peer_busy(peer) ? 1 : 0; });
}

namespace
{

const char *copy_text(const std::string &text, char *buffer, size_t size)
{
    if (buffer == nullptr || size == 0) {
        return "";
    }
    const size_t n = std::min(text.size(), size - 1);
    std::memcpy(buffer, text.data(), n);
    buffer[n] = '\0';
    return buffer;
}

} // namespace

const char *meridian_mca_msg_base_peer_text(int peer, char *buffer, size_t size)
{
    return meridian::c_boundary("msg peer_text", meridian::CFailure<const char *>{"", ""}, [&] {
        return copy_text(valid(peer) ? layer()->describe(peer) : "rank " + std::to_string(peer),
                         buffer, size);
    });
}

const char *meridian_mca_msg_base_channel_text(const mca_msg_channel_t *channel, char *buffer,
                                               size_t size)
{
    return meridian::c_boundary("msg channel_text", meridian::CFailure<const char *>{"", ""}, [&] {
        if (channel == nullptr || layer() == nullptr) {
            return copy_text("a channel", buffer, size);
        }
        return copy_text(layer()->channel_text(*static_cast<const Channel *>(channel)), buffer,
                         size);
    });
}

int meridian_mca_msg_base_timeout(void)
{
    return meridian::c_boundary("msg timeout", meridian::CFailure<int>{300, 300}, [] {
        return layer() != nullptr ? layer()->params().timeout_s : 300;
    });
}

int meridian_mca_msg_base_oversubscribed(void)
{
    return meridian::c_boundary("msg oversubscribed", meridian::CFailure<int>{0, 0}, [] {
        return layer() != nullptr && layer()->oversubscribed() ? 1 : 0;
    });
}

} // extern "C"
