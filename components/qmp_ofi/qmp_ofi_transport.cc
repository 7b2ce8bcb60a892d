// The transport's frame: channels (declare, readdress, free, start),
// completion and test, the self path, names for messages.  Bring-up is in
// qmp_ofi_transport_setup.cc, waits and dead peers in _wait.cc, the shm,
// libfabric and tcp paths in _shm.cc, _ofi.cc and _tcp.cc.
#include "components/qmp_ofi/qmp_ofi_transport.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "components/qmp_ofi/qmp_ofi_modex.hpp"
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>

namespace meridian::msg_ofi
{

namespace
{

std::uint64_t fold(std::uint64_t tag, unsigned bits)
{
    const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
    std::uint64_t folded = 0;
    for (; tag != 0; tag >>= bits) {
        folded ^= tag & mask;
    }
    return folded;
}

std::size_t sum(const iovec *iov, std::size_t iovcnt)
{
    std::size_t total = 0;
    for (std::size_t i = 0; i < iovcnt; ++i) {
        total += iov[i].iov_len;
    }
    return total;
}

} // namespace

int Transport::channel_create(const mca_msg_channel_spec_t &spec, Channel **out)
{
    if (spec.peer < 0 || spec.peer >= job_.size) {
        meridian::report_error("msg ofi: a channel to rank " + std::to_string(spec.peer) +
                               ", but the job has ranks 0-" + std::to_string(job_.size - 1));
        return MERIDIAN_ERR_BAD_PARAM;
    }
    if ((spec.iov == nullptr && spec.iovcnt > 0) ||
        (spec.direction != MCA_MSG_SEND && spec.direction != MCA_MSG_RECV)) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    if (const std::size_t total = sum(spec.iov, spec.iovcnt); total != spec.nbytes) {
        meridian::report_error("msg ofi: a channel's blocks hold " + std::to_string(total) +
                               " bytes, its size says " + std::to_string(spec.nbytes));
        return MERIDIAN_ERR_BAD_PARAM;
    }
    auto channel = std::make_unique<Channel>();
    channel->direction = spec.direction;
    channel->peer = spec.peer;
    channel->tag = spec.tag;
    channel->wire_tag = spec.tag;
    channel->iov.assign(spec.iov, spec.iov + spec.iovcnt);
    channel->nbytes = spec.nbytes;
    Peer &peer = peers_[static_cast<std::size_t>(spec.peer)];
    channel->path = peer.path;
    if (channel->path != Path::ofi) {
        // Elements of an unordered_map stay where they are: the queues are
        // found once, here, not at every start.
        channel->matching = &peer.match[spec.tag];
    } else {
        const unsigned bits = endpoint_->tag_bits();
        if (bits < 64 && spec.tag >> bits != 0) {
            const std::uint64_t folded = fold(spec.tag, bits);
            auto [it, added] = folded_tags_.try_emplace(folded, spec.tag);
            if (!added && it->second != spec.tag) {
                meridian::report_error("msg ofi: the tags " + hex(it->second) + " and " +
                                       hex(spec.tag) + " both become " + hex(folded) + " in the " +
                                       std::to_string(bits) + " tag bits of " + ofi_path_);
                return MERIDIAN_ERR_OUT_OF_RESOURCE;
            }
            channel->wire_tag = folded;
        }
        if (int rc = prepare_ofi(*channel); rc != MERIDIAN_SUCCESS) {
            return rc;
        }
    }
    Channel *raw = channel.get();
    channels_.emplace(raw, std::move(channel));
    count_channel(spec.peer, true);
    *out = raw;
    return MERIDIAN_SUCCESS;
}

// Rings of peers with channels are polled on every progress; the others
// (whose messages nobody waits for yet) every 64th.
void Transport::count_channel(int rank, bool added)
{
    Peer &peer = peers_[static_cast<std::size_t>(rank)];
    if (peer.path != Path::shm) {
        return;
    }
    if (added && peer.channels++ == 0) {
        shm_active_.push_back(rank);
    } else if (!added && --peer.channels == 0) {
        std::erase(shm_active_, rank);
    }
}

int Transport::channel_readdress(Channel &channel, const iovec *iov, std::size_t iovcnt)
{
    if (channel.phase != Phase::idle || (iov == nullptr && iovcnt > 0)) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    channel.iov.assign(iov, iov + iovcnt);
    channel.nbytes = sum(iov, iovcnt);
    if (channel.path == Path::ofi) {
        return prepare_ofi(channel);
    }
    return MERIDIAN_SUCCESS;
}

void Transport::channel_free(Channel *channel)
{
    auto it = channels_.find(channel);
    if (it == channels_.end()) {
        return;
    }
    if (channel->phase == Phase::active) {
        detach(*channel, true);
    }
    count_channel(channel->peer, false);
    channels_.erase(it);
}

// A started channel goes on as if it were still there; progress frees it
// once its transfer is over (reap_released).  Its peer's death ends it too.
void Transport::channel_release(Channel *channel)
{
    auto it = channels_.find(channel);
    if (it == channels_.end() || channel->released) {
        return;
    }
    if (channel->phase == Phase::active && !peers_[static_cast<std::size_t>(channel->peer)].dead) {
        channel->released = true;
        released_.push_back(channel);
        return;
    }
    channel_free(channel);
}

void Transport::reap_released()
{
    std::erase_if(released_, [this](Channel *channel) {
        if (channel->phase == Phase::active) {
            return false;
        }
        count_channel(channel->peer, false);
        channels_.erase(channel);
        return true;
    });
}

// Take an active channel out of every queue that refers to it (it is freed,
// or its peer died).
void Transport::detach(Channel &channel, bool peer_alive)
{
    Peer &peer = peers_[static_cast<std::size_t>(channel.peer)];
    if (channel.path == Path::ofi) {
        std::erase(ofi_retry_, &channel);
        if (!channel.ofi_retry) {
            abandon_ofi(channel);
        }
        channel.ofi_retry = false;
        return;
    }
    if (channel.rndv_id != 0) {
        rndv_sends_.erase(channel.rndv_id);
        channel.rndv_id = 0;
        --peer.rndv_out;
    }
    if (channel.recv_id != 0) {
        // The sender may be writing into its memory right now.
        if (peer_alive) {
            await_done(channel);
        }
        split_recvs_.erase(channel.recv_id);
        channel.recv_id = 0;
    }
    if (peer.incoming.recv == &channel) {
        peer.incoming.recv = nullptr; // the rest of its fragments are dropped
    }
    for (auto p = pulls_.begin(); p != pulls_.end(); ++p) {
        if (p->recv == &channel) {
            // Not copied yet: the request goes back, first in line, for the
            // next receive of its tag.
            channel.matching->unexpected.push_front(std::move(p->message));
            pulls_.erase(p);
            break;
        }
    }
    if (channel.matching != nullptr) {
        std::erase(channel.matching->posted, &channel);
        std::erase_if(channel.matching->unexpected, [&](const std::unique_ptr<Unexpected> &u) {
            return u->kind == Unexpected::Kind::self_send && u->sender == &channel;
        });
    }
    for (auto out = peer.outq.begin(); out != peer.outq.end();) {
        if (out->channel != &channel) {
            ++out;
        } else if (!out->started) {
            if (out->recv_id != 0 && peer_alive) {
                // The receive waits for this message: tell it that none comes.
                send_done(peer, out->recv_id, MERIDIAN_ERROR);
            }
            out = peer.outq.erase(out);
        } else {
            out->channel = nullptr; // the receiver gets the rest as padding
            ++out;
        }
    }
}

int Transport::start(Channel &channel)
{
    if (channel.phase != Phase::idle) {
        meridian::report_error("msg ofi: " + channel_text(channel) + " is started already");
        return MERIDIAN_ERR_BAD_PARAM;
    }
    Peer &peer = peers_[static_cast<std::size_t>(channel.peer)];
    // What it sent before it died is still delivered; nothing more comes.
    // (libfabric matches its own: a receive is posted, and the next wait
    // says whether it took anything.)
    if (peer.dead && !(channel.path == Path::ofi && channel.direction == MCA_MSG_RECV)) {
        return receive_from_dead(peer, channel) ? MERIDIAN_SUCCESS : MERIDIAN_ERR_UNREACH;
    }
    channel.phase = Phase::active;
    channel.status = MERIDIAN_SUCCESS;
    switch (channel.path) {
    case Path::self:
        start_self(channel);
        break;
    case Path::shm:
        start_shm(channel);
        break;
    case Path::ofi:
        start_ofi(channel);
        break;
    case Path::tcp:
        start_tcp(channel);
        break;
    }
    return MERIDIAN_SUCCESS;
}

void Transport::finish(Channel &channel, int status)
{
    channel.phase = Phase::done;
    channel.status = status;
    ++completed_;
}

const std::string &Transport::node_name(int rank)
{
    Peer &peer = peers_[static_cast<std::size_t>(rank)];
    if (peer.node_name.empty()) {
        // The base published every process's node name ("node").
        std::vector<std::uint8_t> name(256);
        if (get_bytes(rank, "node", name) == MERIDIAN_SUCCESS && !name.empty()) {
            peer.node_name.assign(name.begin(), name.end());
        } else {
            peer.node_name = std::to_string(peer.node);
        }
    }
    return peer.node_name;
}

std::string Transport::describe(int rank)
{
    return "rank " + std::to_string(rank) + " (node " + node_name(rank) + ", path " +
           path_name(rank) + ")";
}

std::string Transport::channel_text(const Channel &channel)
{
    return std::string(channel.direction == MCA_MSG_SEND ? "the send to " : "the receive from ") +
           describe(channel.peer) + " with tag " + hex(channel.tag);
}

void Transport::too_long(Channel &recv, const std::string &got)
{
    meridian::report_error("msg ofi: rank " + std::to_string(job_.rank) + ": " +
                           channel_text(recv) + " holds " + std::to_string(recv.nbytes) +
                           " bytes, the message is longer: " + got);
    finish(recv, MERIDIAN_ERR_BAD_PARAM);
}

bool Transport::fits(Channel &recv, std::uint64_t total)
{
    if (total <= recv.nbytes) {
        return true;
    }
    too_long(recv, std::to_string(total) + " bytes");
    return false;
}

const char *Transport::path_name(int peer)
{
    if (peer < 0 || peer >= job_.size) {
        return "none";
    }
    const Peer &p = peers_[static_cast<std::size_t>(peer)];
    switch (p.path) {
    case Path::self:
        return "self";
    case Path::shm:
        return p.cma ? "shm+cma" : "shm";
    case Path::ofi:
        return ofi_path_.c_str();
    case Path::tcp:
        return "tcp";
    }
    return "none";
}

// ---------------------------------------------------------------- self

void Transport::start_self(Channel &channel)
{
    Peer &self = peers_[static_cast<std::size_t>(job_.rank)];
    Matching &matching = *channel.matching;
    if (channel.direction == MCA_MSG_RECV) {
        start_recv_matched(self, channel, matching);
        return;
    }
    if (!matching.posted.empty()) {
        Channel &recv = *matching.posted.front();
        matching.posted.pop_front();
        if (fits(recv, channel.nbytes)) {
            copy_iov(recv.iov, channel.iov, channel.nbytes);
            finish(recv, MERIDIAN_SUCCESS);
        }
        finish(channel, MERIDIAN_SUCCESS);
        return;
    }
    // Small sends complete at once (like the shm path's eager ones); large
    // ones wait for their receive, which copies straight from them.
    if (channel.nbytes <= eager_limit_) {
        auto message = make_unexpected(channel.nbytes);
        IovCursor(channel.iov).gather(message->data.get(), channel.nbytes);
        message->arrived = channel.nbytes;
        matching.unexpected.push_back(std::move(message));
        finish(channel, MERIDIAN_SUCCESS);
        return;
    }
    auto message = std::make_unique<Unexpected>();
    message->kind = Unexpected::Kind::self_send;
    message->total = channel.nbytes;
    message->sender = &channel;
    matching.unexpected.push_back(std::move(message));
}

// ---------------------------------------------------------------- completion

void Transport::run_pulls()
{
    auto pulls = std::move(pulls_);
    pulls_.clear();
    for (PendingPull &p : pulls) {
        Unexpected &message = *p.message;
        pull(p.rank, peers_[static_cast<std::size_t>(p.rank)], *p.recv, message.rndv,
             std::move(message.remote_iov));
    }
}

int Transport::progress()
{
    const std::uint64_t before = completed_;
    if (!pulls_.empty()) {
        run_pulls();
    }
    for (const int rank : (++polls_ & 63) == 0 ? shm_ranks_ : shm_active_) {
        Peer &peer = peers_[static_cast<std::size_t>(rank)];
        // A quarter of a ring per visit: in an exchange both processes
        // fill and empty rings at once, and slots taken soon after they
        // were written are still near (the strided halo: 124 -> 118 us
        // against 64 at a time).
        drain(rank, peer, 16);
        if (!peer.outq.empty() || !peer.ctlq.empty()) {
            push_pending(peer);
        }
    }
    if (endpoint_) {
        if (!ofi_retry_.empty()) {
            auto retry = std::move(ofi_retry_);
            ofi_retry_.clear();
            for (Channel *channel : retry) {
                channel->ofi_retry = false;
                start_ofi(*channel);
            }
        }
        poll_cq();
    }
    if (tcp_epoll_) {
        progress_tcp();
    }
    if (!released_.empty()) {
        reap_released();
    }
    return static_cast<int>(completed_ - before);
}

int Transport::test(Channel &channel, int *complete)
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

} // namespace meridian::msg_ofi
