// SPDX-License-Identifier: BSD-3-Clause
// The ofi transport's work: bring-up (the endpoint, the peers' addresses),
// one tagged operation per start, posted straight from the channel's blocks
// (fi_tsendv / fi_trecvv) when the provider's iov limit allows, else through
// a staging buffer allocated at declaration.  Memory is registered at
// declaration only when the provider asks for it.
#include "components/msg_ofi/msg_ofi_transport.hpp"

#include <rdma/fi_errno.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "mca/msg/base/msg_iov.hpp"
#include "mca/msg/base/msg_util.hpp"
#include <meridian/opal/util/output.hpp>

namespace meridian::msg_ofi
{

using msg::channel_text;
using msg::fail;
using msg::peer_text;

using msg::fold;
using msg::hex;
using msg::IovCursor;

Endpoint::Source pnet_endpoint()
{
    const auto endpoint = msg::parse_ip_endpoint(msg::pnet_endpoint());
    if (!endpoint) {
        return {};
    }
    return {endpoint->host, endpoint->port};
}

bool tcp_provider(const std::string &provider)
{
    return provider == "tcp" || provider.starts_with("tcp;") || provider == "sockets" ||
           provider.starts_with("sockets;");
}

Transport::~Transport()
{
    // The endpoint stops first, so nothing writes into memory freed below;
    // registrations close before the domain.
    if (endpoint_) {
        endpoint_->close_endpoint();
    }
    zombies_.clear();
    ends_out_.clear();
    end_in_.registration.reset();
    endpoint_.reset();
}

// ---------------------------------------------------------------- bring-up

int Transport::init(const mca_msg_job_t &job, const unsigned char *peers)
{
    job_ = job;
    addresses_.assign(static_cast<std::size_t>(job.size), FI_ADDR_UNSPEC);
    peers_.assign(static_cast<std::size_t>(job.size), Peer{});
    for (int r = 0; r < job.size; ++r) {
        if (peers[r] != 0 && r != job.rank) {
            ranks_.push_back(r);
        }
    }
    auto endpoint = Endpoint::open(params_.provider, job.num_nodes == 1, pnet_endpoint());
    if (!endpoint) {
        return fail(endpoint.error().status, endpoint.error().message);
    }
    endpoint_ = std::move(*endpoint);
    path_ = "ofi:" + endpoint_->provider();
    VERBOSE(INFO,
            "msg ofi: libfabric provider %s, domain %s (%u tag bits, iov limit %zu/%zu, "
            "inject %zu, %s registration), %s%s",
            endpoint_->provider().c_str(), endpoint_->domain_name().c_str(), endpoint_->tag_bits(),
            endpoint_->tx_iov_limit(), endpoint_->rx_iov_limit(), endpoint_->inject_size(),
            endpoint_->needs_registration() ? "local" : "no",
            endpoint_->bound_to().empty() ? "address chosen by libfabric: "
                                          : "bound to the pnet endpoint ",
            endpoint_->bound_to().empty() ? endpoint_->unbound_reason().c_str()
                                          : endpoint_->bound_to().c_str());
    const auto address = endpoint_->address();
    if (address.empty()) {
        return fail(MERIDIAN_ERR_NOT_AVAILABLE, "msg ofi: fi_getname gave no address for " + path_);
    }
    if (int rc = meridian_mca_msg_base_modex_put("ofi.addr", address.data(), address.size());
        rc != MERIDIAN_SUCCESS) {
        return fail(rc, "msg ofi: cannot publish the endpoint's address");
    }
    const std::string &prov = endpoint_->provider();
    if (int rc = meridian_mca_msg_base_modex_put("ofi.prov", prov.data(), prov.size());
        rc != MERIDIAN_SUCCESS) {
        return fail(rc, "msg ofi: cannot publish the provider's name");
    }
    return MERIDIAN_SUCCESS;
}

int Transport::connect()
{
    for (const int r : ranks_) {
        std::vector<std::uint8_t> address(64);
        if (msg::get_bytes(r, "ofi.addr", address) != MERIDIAN_SUCCESS) {
            return fail(MERIDIAN_ERR_UNREACH,
                        "msg ofi: " + peer_text(r) + " published no libfabric address");
        }
        std::vector<std::uint8_t> prov(64);
        if (msg::get_bytes(r, "ofi.prov", prov) == MERIDIAN_SUCCESS) {
            const std::string theirs(prov.begin(), prov.end());
            if (theirs != endpoint_->provider()) {
                return fail(MERIDIAN_ERR_UNREACH,
                            "msg ofi: " + peer_text(r) + " uses the provider " + theirs +
                                ", this process " + endpoint_->provider() +
                                " (set msg_ofi_provider or FI_PROVIDER alike everywhere)");
            }
        }
        auto inserted = endpoint_->insert(address);
        if (!inserted) {
            return fail(inserted.error().status,
                        inserted.error().message + " (address of " + peer_text(r) + ")");
        }
        addresses_[static_cast<std::size_t>(r)] = *inserted;
    }
    if (int rc = prepare_ends(); rc != MERIDIAN_SUCCESS) {
        return rc;
    }
    post_end_receive();
    return MERIDIAN_SUCCESS;
}

// The tag kept for the end, and the receive's buffer registered where the
// provider asks.
int Transport::prepare_ends()
{
    const unsigned bits = endpoint_->tag_bits();
    end_tag_ = bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    if (endpoint_->needs_registration()) {
        auto mr = endpoint_->register_memory(&end_in_.rank, sizeof end_in_.rank);
        if (!mr) {
            return fail(mr.error().status, mr.error().message);
        }
        end_in_.descriptor = fi_mr_desc(mr->get());
        end_in_.registration = std::move(*mr);
    }
    return MERIDIAN_SUCCESS;
}

// The receive of the peers' ends, from any of them; posted again after
// each (progress tries again when the provider says "later").
void Transport::post_end_receive()
{
    const ssize_t rc = fi_trecv(endpoint_->ep(), &end_in_.rank, sizeof end_in_.rank,
                                end_in_.descriptor, FI_ADDR_UNSPEC, end_tag_, 0, &end_in_.context);
    // Only "later" is tried again (by progress); a failure is said once.
    end_receive_ = rc == 0            ? EndReceive::posted
                   : rc == -FI_EAGAIN ? EndReceive::unposted
                                      : EndReceive::given_up;
    if (end_receive_ == EndReceive::given_up) {
        meridian::report_error("msg ofi: rank " + std::to_string(job_.rank) +
                               ": cannot post the receive of the peers' ends: " +
                               libfabric::strerror(static_cast<int>(-rc)));
    }
}

// A peer's end arrived after all of its messages: a receive from it that
// libfabric still holds waits for a message that never comes.
void Transport::peer_ended(int rank)
{
    if (rank < 0 || rank >= job_.size || rank == job_.rank) {
        return;
    }
    Peer &p = peers_[static_cast<std::size_t>(rank)];
    if (p.ended) {
        return;
    }
    p.ended = true;
    VERBOSE(DEBUG, "msg ofi: rank %d: rank %d ended its session", job_.rank, rank);
    if (p.receives > 0 && meridian_mca_msg_base_peer_dead(rank) == 0) {
        meridian_mca_msg_base_peer_died(rank, "ended its session without sending what this process "
                                              "waits for");
    }
}

// A receive posted for a peer that had ended: its message, if it sent it,
// was there and completed the receive in the poll before.
void Transport::check_ended()
{
    check_ended_ = false;
    for (const int r : ranks_) {
        const Peer &p = peers_[static_cast<std::size_t>(r)];
        if (p.ended && p.receives > 0 && meridian_mca_msg_base_peer_dead(r) == 0) {
            meridian_mca_msg_base_peer_died(r, "ended its session before sending the message");
        }
    }
}

// Nothing a send completed with is lost at exit: this process's end goes to
// each peer it sent to, delivery-complete where the provider offers it,
// after its messages (FI_ORDER_SAS); finalize waits for the ends within
// msg_ofi_linger ms (a peer that ended first or fails answers at once).
void Transport::finalize()
{
    send_ends();
    // Operations still posted are the base's dropped channels': let the
    // provider report what it can, briefly, then close.
    for (int i = 0; i < 64 && !zombies_.empty(); ++i) {
        poll_cq();
    }
}

void Transport::send_ends()
{
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::milliseconds(params_.linger_ms);
    // Drives the endpoint while the provider says "later" (the end's
    // receive too: the peers' ends wait for it to be delivered).
    auto post = [&](fi_msg_tagged &msg, std::uint64_t flags) {
        for (;;) {
            const ssize_t rc = fi_tsendmsg(endpoint_->ep(), &msg, flags);
            if (rc != -FI_EAGAIN || Clock::now() >= deadline) {
                return rc;
            }
            progress();
        }
    };
    for (const int r : ranks_) {
        const Peer &p = peers_[static_cast<std::size_t>(r)];
        if (!p.sent_to || p.ended || meridian_mca_msg_base_peer_dead(r) != 0) {
            continue;
        }
        auto end = std::make_unique<End>();
        end->rank = job_.rank;
        if (endpoint_->needs_registration()) {
            auto mr = endpoint_->register_memory(&end->rank, sizeof end->rank);
            if (!mr) {
                meridian::report_error(mr.error().message);
                continue;
            }
            end->descriptor = fi_mr_desc(mr->get());
            end->registration = std::move(*mr);
        }
        iovec iov{&end->rank, sizeof end->rank};
        fi_msg_tagged msg{};
        msg.msg_iov = &iov;
        msg.desc = &end->descriptor;
        msg.iov_count = 1;
        msg.addr = addresses_[static_cast<std::size_t>(r)];
        msg.tag = end_tag_;
        msg.context = &end->context;
        ssize_t rc = post(msg, FI_DELIVERY_COMPLETE | FI_COMPLETION);
        if (rc == -FI_EINVAL || rc == -FI_EOPNOTSUPP || rc == -FI_ENOSYS || rc == -FI_EBADFLAGS) {
            rc = post(msg, FI_COMPLETION); // transmit-complete only, then
        }
        if (rc == 0) {
            ends_out_.push_back(std::move(end));
            ++ends_pending_;
        }
    }
    while (ends_pending_ > 0 && Clock::now() < deadline) {
        progress();
    }
    if (ends_pending_ > 0) {
        VERBOSE(INFO,
                "msg ofi: rank %d: %zu of %zu peers did not take this process's end within "
                "msg_ofi_linger (%d ms): they stopped progressing",
                job_.rank, ends_pending_, ends_out_.size(), params_.linger_ms);
    }
}

// ---------------------------------------------------------------- channels

int Transport::prepare(mca_msg_channel_t &channel)
{
    auto owned = std::make_unique<ChannelState>();
    ChannelState &s = *owned;
    s.wire_tag = channel.tag;
    const unsigned bits = endpoint_->tag_bits();
    if (bits < 64 && channel.tag >> bits != 0) {
        const std::uint64_t folded = fold(channel.tag, bits);
        auto [it, added] = folded_tags_.try_emplace(folded, channel.tag);
        if (!added && it->second != channel.tag) {
            meridian::report_error("msg ofi: the tags " + hex(it->second) + " and " +
                                   hex(channel.tag) + " both become " + hex(folded) + " in the " +
                                   std::to_string(bits) + " tag bits of " + path_);
            return MERIDIAN_ERR_OUT_OF_RESOURCE;
        }
        s.wire_tag = folded;
    }
    if (s.wire_tag == end_tag_) {
        meridian::report_error("msg ofi: the tag " + hex(channel.tag) +
                               " is the one the transport keeps for a process's end");
        return MERIDIAN_ERR_BAD_PARAM;
    }
    channel.transport_data = owned.release();
    if (int rc = make_op(channel); rc != MERIDIAN_SUCCESS) {
        cleanup(channel);
        return rc;
    }
    return MERIDIAN_SUCCESS;
}

void Transport::cleanup(mca_msg_channel_t &channel)
{
    delete static_cast<ChannelState *>(channel.transport_data);
    channel.transport_data = nullptr;
}

int Transport::make_op(mca_msg_channel_t &channel)
{
    auto op = std::make_unique<Op>();
    op->channel = &channel;
    const std::size_t limit =
        channel.direction == MCA_MSG_SEND ? endpoint_->tx_iov_limit() : endpoint_->rx_iov_limit();
    const bool registration = endpoint_->needs_registration();
    if (channel.iovcnt > limit) {
        op->staging_bytes = channel.nbytes;
        op->staging =
            std::make_unique_for_overwrite<std::byte[]>(std::max<std::size_t>(1, channel.nbytes));
        if (registration) {
            auto mr = endpoint_->register_memory(op->staging.get(), channel.nbytes);
            if (!mr) {
                meridian::report_error(mr.error().message);
                return mr.error().status;
            }
            op->staging_descriptor = fi_mr_desc(mr->get());
            op->staging_registration = std::move(*mr);
        }
    } else if (registration) {
        for (std::size_t i = 0; i < channel.iovcnt; ++i) {
            const iovec &block = channel.iov[i];
            if (block.iov_len == 0) {
                op->descriptors.push_back(nullptr);
                continue;
            }
            auto mr = endpoint_->register_memory(block.iov_base, block.iov_len);
            if (!mr) {
                meridian::report_error(mr.error().message);
                return mr.error().status;
            }
            op->descriptors.push_back(fi_mr_desc(mr->get()));
            op->registrations.push_back(std::move(*mr));
        }
    }
    state(channel).op = std::move(op);
    return MERIDIAN_SUCCESS;
}

void Transport::start(mca_msg_channel_t &channel)
{
    Peer &p = peers_[static_cast<std::size_t>(channel.peer)];
    if (channel.direction == MCA_MSG_SEND) {
        if (p.ended) {
            meridian_mca_msg_base_complete(&channel, MERIDIAN_ERR_UNREACH);
            if (meridian_mca_msg_base_peer_dead(channel.peer) == 0) {
                meridian_mca_msg_base_peer_died(channel.peer, "ended its session");
            }
            return;
        }
        p.sent_to = true;
    }
    ChannelState &s = state(channel);
    if (!s.op) {
        // Cancelled before (its operation lives on as a zombie): a new one.
        if (int rc = make_op(channel); rc != MERIDIAN_SUCCESS) {
            meridian_mca_msg_base_complete(&channel, rc);
            return;
        }
    }
    // Posted in the order started: a channel waiting to be posted again (the
    // provider said "again later", as rxm does while it connects) is never
    // overtaken, or a released send or receive and the next one of its peer
    // and tag would reach libfabric, and match, the other way round.
    if (!retry_.empty() || !post(channel)) {
        s.retry = true;
        retry_.push_back(&channel);
    }
}

// Post the channel's operation; false when the provider said "again later".
bool Transport::post(mca_msg_channel_t &channel)
{
    ChannelState &s = state(channel);
    Op &op = *s.op;
    fid_ep *ep = endpoint_->ep();
    const fi_addr_t address = addresses_[static_cast<std::size_t>(channel.peer)];
    void **descriptors = op.descriptors.empty() ? nullptr : op.descriptors.data();
    // libfabric's calls take the list as theirs to read, not to change.
    auto *iov = const_cast<iovec *>(channel.iov);
    ssize_t rc = 0;
    if (channel.direction == MCA_MSG_SEND) {
        if (op.staging) {
            IovCursor({channel.iov, channel.iovcnt}).gather(op.staging.get(), channel.nbytes);
            rc = fi_tsend(ep, op.staging.get(), channel.nbytes, op.staging_descriptor, address,
                          s.wire_tag, &op.context);
        } else if (channel.iovcnt == 0) {
            rc = fi_tsend(ep, nullptr, 0, nullptr, address, s.wire_tag, &op.context);
        } else {
            rc = fi_tsendv(ep, iov, descriptors, channel.iovcnt, address, s.wire_tag, &op.context);
        }
    } else {
        if (op.staging) {
            rc = fi_trecv(ep, op.staging.get(), channel.nbytes, op.staging_descriptor, address,
                          s.wire_tag, 0, &op.context);
        } else if (channel.iovcnt == 0) {
            rc = fi_trecv(ep, nullptr, 0, nullptr, address, s.wire_tag, 0, &op.context);
        } else {
            rc = fi_trecvv(ep, iov, descriptors, channel.iovcnt, address, s.wire_tag, 0,
                           &op.context);
        }
    }
    if (rc == -FI_EAGAIN) {
        poll_cq();
        return false;
    }
    if (rc == 0 && channel.direction == MCA_MSG_RECV) {
        Peer &p = peers_[static_cast<std::size_t>(channel.peer)];
        ++p.receives;
        check_ended_ = check_ended_ || p.ended;
    }
    if (rc != 0) {
        meridian::report_error("msg ofi: rank " + std::to_string(job_.rank) + ": posting " +
                               channel_text(channel) + ": " +
                               libfabric::strerror(static_cast<int>(-rc)));
        meridian_mca_msg_base_complete(&channel, MERIDIAN_ERR_UNREACH);
    }
    return true;
}

int Transport::progress()
{
    if (!retry_.empty()) {
        auto retry = std::move(retry_);
        retry_.clear();
        for (mca_msg_channel_t *channel : retry) {
            state(*channel).retry = false;
            start(*channel);
        }
    }
    if (end_receive_ == EndReceive::unposted) {
        post_end_receive();
    }
    const int completions = poll_cq();
    if (check_ended_) {
        check_ended();
    }
    return completions;
}

int Transport::poll_cq()
{
    fid_cq *cq = endpoint_->cq();
    fi_cq_tagged_entry entries[16];
    int completions = 0;
    for (;;) {
        const ssize_t n = fi_cq_read(cq, entries, 16);
        if (n > 0) {
            for (ssize_t i = 0; i < n; ++i) {
                complete(static_cast<Op *>(entries[i].op_context), entries[i].len, 0, {});
            }
            completions += static_cast<int>(n);
            if (n < 16) {
                break;
            }
            continue;
        }
        if (n == -FI_EAVAIL) {
            fi_cq_err_entry error{};
            if (fi_cq_readerr(cq, &error, 0) <= 0) {
                break;
            }
            const char *why = fi_cq_strerror(cq, error.prov_errno, error.err_data, nullptr, 0);
            complete(static_cast<Op *>(error.op_context), error.len, error.err,
                     why != nullptr ? std::string(why) : libfabric::strerror(error.err));
            ++completions;
            continue;
        }
        break; // -FI_EAGAIN: nothing more now
    }
    return completions;
}

void Transport::complete(Op *op, std::size_t len, int error, const std::string &why)
{
    if (op == nullptr) {
        return;
    }
    if (static_cast<void *>(op) == &end_in_.context) {
        if (error != 0) {
            // Cancelled as the endpoint closes, or failed: not posted again
            // (progress would post it again and again otherwise).
            end_receive_ = EndReceive::given_up;
            return;
        }
        peer_ended(end_in_.rank);
        post_end_receive();
        return;
    }
    if (ends_pending_ > 0) {
        for (const auto &end : ends_out_) {
            if (static_cast<void *>(op) == &end->context) {
                --ends_pending_; // delivered, or its peer is gone
                return;
            }
        }
    }
    mca_msg_channel_t *channel = op->channel;
    if (channel == nullptr) {
        zombies_.erase(op); // a freed channel's operation is over
        return;
    }
    if (channel->direction == MCA_MSG_RECV) {
        --peers_[static_cast<std::size_t>(channel->peer)].receives;
    }
    if (error == FI_ETRUNC || error == -FI_ETRUNC) {
        // Providers disagree on what olen counts (the dropped bytes, or the
        // whole message): no size to quote.
        (void)len;
        meridian_mca_msg_base_fits(channel, channel->nbytes + 1, "libfabric reported a truncation");
        return;
    }
    if (error != 0) {
        // A failed transfer (connection refused or reset, ...): the peer is
        // gone for good; its other channels fail now rather than time out.
        const std::string what = channel_text(*channel) + " failed: " + why;
        meridian_mca_msg_base_complete(channel, MERIDIAN_ERR_UNREACH);
        meridian_mca_msg_base_peer_died(channel->peer, ("is unreachable: " + what).c_str());
        return;
    }
    if (channel->direction == MCA_MSG_RECV) {
        if (meridian_mca_msg_base_fits(channel, len, nullptr) == 0) {
            return;
        }
        if (op->staging) {
            IovCursor({channel->iov, channel->iovcnt}).scatter(op->staging.get(), len);
        }
    }
    meridian_mca_msg_base_complete(channel, MERIDIAN_SUCCESS);
}

// A started channel is abandoned: cancel; the operation (and its memory)
// lives on as a zombie until libfabric reports it, or the endpoint closes.
void Transport::cancel(mca_msg_channel_t &channel)
{
    ChannelState &s = state(channel);
    if (s.retry) {
        std::erase(retry_, &channel); // never posted
        s.retry = false;
        return;
    }
    abandon(channel);
}

void Transport::abandon(mca_msg_channel_t &channel)
{
    ChannelState &s = state(channel);
    if (!s.op) {
        return;
    }
    if (channel.direction == MCA_MSG_RECV) {
        --peers_[static_cast<std::size_t>(channel.peer)].receives;
    }
    fi_cancel(&endpoint_->ep()->fid, &s.op->context);
    s.op->channel = nullptr;
    Op *raw = s.op.get();
    zombies_.emplace(raw, std::move(s.op));
}

} // namespace meridian::msg_ofi
