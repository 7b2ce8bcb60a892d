// The libfabric path: one tagged operation per start, posted straight from
// the channel's blocks (fi_tsendv / fi_trecvv) when the provider's iov limit
// allows, else through a staging buffer allocated at declaration.  Memory is
// registered at declaration only when the provider asks for it.
#include <rdma/fi_errno.h>

#include <cstdlib>
#include <cstring>

#include "components/qmp_ofi/qmp_ofi_transport.hpp"
#include <meridian/opal/util/output.hpp>

namespace meridian::msg_ofi
{

int Transport::prepare_ofi(Channel &channel)
{
    auto op = std::make_unique<OfiOp>();
    op->channel = &channel;
    const std::size_t limit =
        channel.direction == MCA_MSG_SEND ? endpoint_->tx_iov_limit() : endpoint_->rx_iov_limit();
    const bool registration = endpoint_->needs_registration();
    if (channel.iov.size() > limit) {
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
        for (const iovec &block : channel.iov) {
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
    channel.ofi = std::move(op);
    return MERIDIAN_SUCCESS;
}

void Transport::start_ofi(Channel &channel)
{
    // Posted in the order started: a channel waiting to be posted again (the
    // provider said "again later", as rxm does while it connects) is never
    // overtaken, or a released send or receive and the next one of its peer
    // and tag would reach libfabric, and match, the other way round.
    if (!ofi_retry_.empty() || !post_ofi(channel)) {
        channel.ofi_retry = true;
        ofi_retry_.push_back(&channel);
    }
}

// Post the channel's operation; false when the provider said "again later".
bool Transport::post_ofi(Channel &channel)
{
    OfiOp &op = *channel.ofi;
    fid_ep *ep = endpoint_->ep();
    const fi_addr_t address = peers_[static_cast<std::size_t>(channel.peer)].address;
    void **descriptors = op.descriptors.empty() ? nullptr : op.descriptors.data();
    ssize_t rc = 0;
    if (channel.direction == MCA_MSG_SEND) {
        if (op.staging) {
            IovCursor(channel.iov).gather(op.staging.get(), channel.nbytes);
            rc = fi_tsend(ep, op.staging.get(), channel.nbytes, op.staging_descriptor, address,
                          channel.wire_tag, &op.context);
        } else if (channel.iov.empty()) {
            rc = fi_tsend(ep, nullptr, 0, nullptr, address, channel.wire_tag, &op.context);
        } else {
            rc = fi_tsendv(ep, channel.iov.data(), descriptors, channel.iov.size(), address,
                           channel.wire_tag, &op.context);
        }
    } else {
        if (op.staging) {
            rc = fi_trecv(ep, op.staging.get(), channel.nbytes, op.staging_descriptor, address,
                          channel.wire_tag, 0, &op.context);
        } else if (channel.iov.empty()) {
            rc = fi_trecv(ep, nullptr, 0, nullptr, address, channel.wire_tag, 0, &op.context);
        } else {
            rc = fi_trecvv(ep, channel.iov.data(), descriptors, channel.iov.size(), address,
                           channel.wire_tag, 0, &op.context);
        }
    }
    if (rc == -FI_EAGAIN) {
        poll_cq();
        return false;
    }
    if (rc != 0) {
        meridian::report_error("msg ofi: rank " + std::to_string(job_.rank) + ": posting " +
                               channel_text(channel) + ": " +
                               libfabric::strerror(static_cast<int>(-rc)));
        finish(channel, MERIDIAN_ERR_UNREACH);
    }
    return true;
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
                complete_ofi(static_cast<OfiOp *>(entries[i].op_context), entries[i].len, 0, {});
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
            complete_ofi(static_cast<OfiOp *>(error.op_context), error.len, error.err,
                         why != nullptr ? std::string(why) : libfabric::strerror(error.err));
            ++completions;
            continue;
        }
        break; // -FI_EAGAIN: nothing more now
    }
    return completions;
}

void Transport::complete_ofi(OfiOp *op, std::size_t len, int error, const std::string &why)
{
    if (op == nullptr) {
        return;
    }
    Channel *channel = op->channel;
    if (channel == nullptr) {
        zombies_.erase(op); // a freed channel's operation is over
        return;
    }
    if (channel->phase != Phase::active) {
        return;
    }
    if (error == FI_ETRUNC || error == -FI_ETRUNC) {
        // Providers disagree on what olen counts (the dropped bytes, or the
        // whole message): no size to quote.
        (void)len;
        too_long(*channel, "libfabric reported a truncation");
        return;
    }
    if (error != 0) {
        // A failed transfer (connection refused or reset, ...): the peer is
        // gone for good; its other channels fail now rather than time out.
        const std::string what = channel_text(*channel) + " failed: " + why;
        finish(*channel, MERIDIAN_ERR_UNREACH);
        peer_died(channel->peer, "is unreachable: " + what);
        return;
    }
    if (channel->direction == MCA_MSG_RECV) {
        if (!fits(*channel, len)) {
            return;
        }
        if (op->staging) {
            IovCursor(channel->iov).scatter(op->staging.get(), len);
        }
    }
    finish(*channel, MERIDIAN_SUCCESS);
}

void Transport::abandon_ofi(Channel &channel)
{
    if (!channel.ofi) {
        return;
    }
    // Cancel; the operation (and its memory) lives on as a zombie until
    // libfabric reports it, or the endpoint closes.
    fi_cancel(&endpoint_->ep()->fid, &channel.ofi->context);
    channel.ofi->channel = nullptr;
    OfiOp *raw = channel.ofi.get();
    zombies_.emplace(raw, std::move(channel.ofi));
}

} // namespace meridian::msg_ofi
