// SPDX-License-Identifier: BSD-3-Clause
// The ucx transport's work: bring-up (the context, the worker, an endpoint
// per peer), one tagged operation per start, posted straight from the
// channel's blocks (UCP's iov datatype: UCX registers what it needs), and
// the flush of every endpoint at the end.
#include "components/msg_ucx/msg_ucx_transport.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "mca/msg/base/msg_util.hpp"
#include <meridian/opal/util/c_boundary.hpp>
#include <meridian/opal/util/output.hpp>

namespace meridian::msg_ucx
{

using msg::channel_text;
using msg::fail;
using msg::fold;
using msg::hex;
using msg::peer_text;

namespace
{

using Clock = std::chrono::steady_clock;

} // namespace

Transport::~Transport()
{
    // Normally finalize has closed everything; after a failed bring-up (or
    // a finalize that was never called) the endpoints go without a flush.
    if (worker_ != nullptr) {
        close_endpoints(true);
        ucp_->ucp_worker_destroy(worker_);
    }
    zombies_.clear();
    if (context_ != nullptr) {
        ucp_->ucp_cleanup(context_);
    }
}

// ---------------------------------------------------------------- bring-up

int Transport::init(const mca_msg_job_t &job, const unsigned char *peers)
{
    auto table = ucp();
    if (!table) {
        return fail(table.error().status, table.error().message);
    }
    ucp_ = *table;
    job_ = job;
    peers_.resize(static_cast<std::size_t>(job.size));
    for (int r = 0; r < job.size; ++r) {
        peer(r).transport = this;
        peer(r).rank = r;
        if (peers[r] != 0) {
            ranks_.push_back(r);
        }
    }
    rank_bits_ = std::max(1, static_cast<int>(std::bit_width(static_cast<unsigned>(job.size - 1))));
    end_wire_ = ~std::uint64_t{0} >> rank_bits_;

    ucp_config_t *config = nullptr;
    if (const ucs_status_t status = ucp_->ucp_config_read(nullptr, nullptr, &config);
        status != UCS_OK) {
        return fail(MERIDIAN_ERR_NOT_AVAILABLE,
                    "msg ucx: UCX's configuration does not read (check the UCX_* variables): " +
                        status_text(status));
    }
    ucp_params_t params{};
    params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS |
                        UCP_PARAM_FIELD_ESTIMATED_NUM_PPN | UCP_PARAM_FIELD_NAME;
    params.features = UCP_FEATURE_TAG;
    params.estimated_num_eps = ranks_.size();
    params.estimated_num_ppn = static_cast<std::size_t>(std::max(1, job.local_size));
    params.name = "meridian";
    const ucs_status_t inited =
        ucp_->ucp_init_version(UCP_API_MAJOR, UCP_API_MINOR, &params, config, &context_);
    ucp_->ucp_config_release(config);
    if (inited != UCS_OK) {
        context_ = nullptr;
        return fail(MERIDIAN_ERR_NOT_AVAILABLE,
                    "msg ucx: UCX does not start (ucp_init: " + status_text(inited) +
                        "; UCX_TLS and UCX_NET_DEVICES choose what it may use)");
    }
    ucp_context_attr_t attr{};
    attr.field_mask = UCP_ATTR_FIELD_REQUEST_SIZE;
    if (const ucs_status_t status = ucp_->ucp_context_query(context_, &attr); status != UCS_OK) {
        return fail(MERIDIAN_ERR_NOT_AVAILABLE,
                    "msg ucx: UCX does not say its request size (ucp_context_query: " +
                        status_text(status) + ")");
    }
    // Rounded up to 16 bytes: the header UCX places before the request
    // pointer starts no lower than the operation's memory.
    request_size_ = (attr.request_size + 15) / 16 * 16;
    ucp_worker_params_t worker_params{};
    worker_params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    // One thread at a time, any thread (msg.h: the QMP layer serialises its
    // calls, which a QMP_THREAD_MULTIPLE program makes from any of its
    // threads).  SINGLE would tie the worker to this thread, and a UCX
    // built with assertions (Debian 13's 1.18) aborts on a call from another.
    worker_params.thread_mode = UCS_THREAD_MODE_SERIALIZED;
    if (const ucs_status_t status = ucp_->ucp_worker_create(context_, &worker_params, &worker_);
        status != UCS_OK) {
        worker_ = nullptr;
        return fail(MERIDIAN_ERR_NOT_AVAILABLE,
                    "msg ucx: no UCX worker (ucp_worker_create: " + status_text(status) + ")");
    }
    ucp_address_t *address = nullptr;
    std::size_t length = 0;
    if (const ucs_status_t status = ucp_->ucp_worker_get_address(worker_, &address, &length);
        status != UCS_OK) {
        return fail(MERIDIAN_ERR_NOT_AVAILABLE,
                    "msg ucx: the UCX worker has no address (" + status_text(status) + ")");
    }
    const int rc = meridian_mca_msg_base_modex_put("ucx.addr", address, length);
    ucp_->ucp_worker_release_address(worker_, address);
    if (rc != MERIDIAN_SUCCESS) {
        return fail(rc, "msg ucx: cannot publish the UCX worker's address");
    }
    const char *tls = std::getenv("UCX_TLS");
    const char *devices = std::getenv("UCX_NET_DEVICES");
    VERBOSE(INFO, "msg ucx: rank %d: UCX %u.%u, %zu peers, UCX_TLS=%s, UCX_NET_DEVICES=%s",
            job.rank, static_cast<unsigned>(UCP_API_MAJOR), static_cast<unsigned>(UCP_API_MINOR),
            ranks_.size(), tls != nullptr ? tls : "(UCX's choice)",
            devices != nullptr ? devices : "(UCX's choice)");
    return MERIDIAN_SUCCESS;
}

int Transport::connect()
{
    std::vector<std::uint8_t> address(512);
    for (const int r : ranks_) {
        if (msg::get_bytes(r, "ucx.addr", address) != MERIDIAN_SUCCESS) {
            return fail(MERIDIAN_ERR_UNREACH,
                        "msg ucx: " + peer_text(r) + " published no UCX worker address");
        }
        Peer &p = peer(r);
        ucp_ep_params_t params{};
        params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
        params.address = reinterpret_cast<const ucp_address_t *>(address.data());
        if (job_.node_of[r] != job_.node) {
            // A peer of another node that dies fails its operations instead
            // of aborting this process.  (UCX's shared memory cannot detect
            // a dead peer, and would give way to TCP in this mode; the base
            // watches the pids of this node's processes instead.)
            params.field_mask |=
                UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
            params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
            params.err_handler.cb = ep_failed;
            params.err_handler.arg = &p;
        }
        if (const ucs_status_t status = ucp_->ucp_ep_create(worker_, &params, &p.ep);
            status != UCS_OK) {
            p.ep = nullptr;
            return fail(MERIDIAN_ERR_UNREACH, "msg ucx: rank " + std::to_string(job_.rank) +
                                                  ": no UCX endpoint to " + peer_text(r) + ": " +
                                                  status_text(status));
        }
        p.path = lanes(p.ep);
        VERBOSE(DEBUG, "msg ucx: rank %d -> rank %d: %s", job_.rank, r, p.path.c_str());
    }
    return MERIDIAN_SUCCESS;
}

// The receive of a peer's end: its tag kept for it, over the peer's rank.
// Posted with the first receive from the peer (only a peer this process
// receives from needs telling), once: each peer sends one end.  A receive
// of the whole tag, not of every sender's: a receive with a mask would make
// UCX search every arriving message against its wildcard list.  Always
// completed through its callback (UCP_OP_ATTR_FLAG_NO_IMM_CMPL), which
// tells the peer's state.
void Transport::post_end_receive(Peer &p)
{
    if (p.end_posted || closing_) {
        return;
    }
    p.end_posted = true;
    ucp_request_param_t param{};
    param.op_attr_mask =
        UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FLAG_NO_IMM_CMPL;
    param.cb.recv = end_arrived;
    param.user_data = &p;
    void *request = ucp_->ucp_tag_recv_nbx(
        worker_, nullptr, 0, end_wire_ << rank_bits_ | static_cast<std::uint64_t>(p.rank),
        ~ucp_tag_t{0}, &param);
    if (UCS_PTR_IS_ERR(request) || request == nullptr) {
        meridian::report_error(
            "msg ucx: rank " + std::to_string(job_.rank) + ": cannot post the receive of " +
            peer_text(p.rank) + "'s end: " +
            status_text(request == nullptr ? UCS_ERR_NO_PROGRESS : UCS_PTR_STATUS(request)));
        return;
    }
    p.end_request = request;
}

void Transport::end_arrived(void *request, ucs_status_t status, const ucp_tag_recv_info_t *,
                            void *user_data)
{
    auto &p = *static_cast<Peer *>(user_data);
    Transport &self = *p.transport;
    self.ucp_->ucp_request_free(request);
    p.end_request = nullptr;
    if (status == UCS_OK) {
        self.ended_.push_back(p.rank);
        self.maybe_noted_ = true;
    }
}

// A peer's end arrived after all of its messages: a receive from it that
// UCX still holds waits for a message that never comes.
void Transport::peer_ended(int rank)
{
    if (rank < 0 || rank >= job_.size) {
        return;
    }
    Peer &p = peer(rank);
    if (p.ended) {
        return;
    }
    p.ended = true;
    VERBOSE(DEBUG, "msg ucx: rank %d: rank %d ended its session", job_.rank, rank);
    if (p.receives > 0 && meridian_mca_msg_base_peer_dead(rank) == 0) {
        meridian_mca_msg_base_peer_died(rank, "ended its session without sending what this process "
                                              "waits for");
    }
}

// "ucx:tcp", "ucx:posix,cma": the UCX transports of the endpoint's lanes, as
// ucp_ep_print_info lists them ("lane[0]:  1:posix/memory.0 md[1] ...").
std::string Transport::lanes(ucp_ep_h ep) const
{
    char *text = nullptr;
    std::size_t size = 0;
    FILE *stream = ::open_memstream(&text, &size);
    if (stream == nullptr) {
        return "ucx";
    }
    ucp_->ucp_ep_print_info(ep, stream);
    std::fclose(stream);
    std::vector<std::string> names;
    for (const char *line = text; line != nullptr && *line != '\0';) {
        const char *end = std::strchr(line, '\n');
        const std::string_view row(line, end != nullptr ? static_cast<std::size_t>(end - line)
                                                        : std::strlen(line));
        line = end != nullptr ? end + 1 : nullptr;
        const auto lane = row.find("lane[");
        if (lane == std::string_view::npos) {
            continue;
        }
        // After "lane[N]:", the first "<index>:<transport>/<device>".
        const auto colon = row.find(':', row.find(']', lane));
        const auto slash = row.find('/', colon);
        if (colon == std::string_view::npos || slash == std::string_view::npos) {
            continue;
        }
        const auto inner = row.find(':', colon + 1);
        if (inner == std::string_view::npos || inner > slash) {
            continue;
        }
        std::string name(row.substr(inner + 1, slash - inner - 1));
        if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) {
            names.push_back(std::move(name));
        }
    }
    std::free(text);
    std::string path = "ucx";
    for (std::size_t i = 0; i < names.size(); ++i) {
        path += (i == 0 ? ":" : ",") + names[i];
    }
    return path;
}

const char *Transport::path_name(int rank) const
{
    const Peer &p = peers_[static_cast<std::size_t>(rank)];
    return p.path.empty() ? "ucx" : p.path.c_str();
}

// Nothing a send completed with is lost at exit: each endpoint is closed
// in UCX's flush mode (what it still holds goes out and is acknowledged),
// within msg_ucx_linger ms; then what remains is closed by force.
void Transport::finalize()
{
    if (worker_ == nullptr) {
        return;
    }
    closing_ = true;
    send_ends();
    close_endpoints(false);
}

// This process's end to each peer it sent to that is still there: after
// its messages on the endpoint, so it arrives after them.
void Transport::send_ends()
{
    for (const int r : ranks_) {
        Peer &p = peer(r);
        if (r == job_.rank || !p.sent_to || p.ep == nullptr || p.failed || p.ended ||
            meridian_mca_msg_base_peer_dead(r) != 0) {
            continue;
        }
        ucp_request_param_t param{};
        void *request = ucp_->ucp_tag_send_nbx(
            p.ep, nullptr, 0, end_wire_ << rank_bits_ | static_cast<std::uint64_t>(job_.rank),
            &param);
        if (request != nullptr && !UCS_PTR_IS_ERR(request)) {
            ucp_->ucp_request_free(request); // the endpoint's flush waits for it
        }
    }
}

void Transport::close_endpoints(bool force)
{
    std::vector<void *> closing;
    for (const int r : ranks_) {
        Peer &p = peer(r);
        if (p.ep == nullptr) {
            continue;
        }
        ucp_request_param_t param{};
        param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
        // A dead peer acknowledges nothing: its endpoint goes at once.
        // Nor does one that ended: it takes nothing more.
        const bool at_once =
            force || p.failed || p.ended || meridian_mca_msg_base_peer_dead(r) != 0;
        param.flags = at_once ? UCP_EP_CLOSE_FLAG_FORCE : 0;
        void *request = ucp_->ucp_ep_close_nbx(p.ep, &param);
        p.ep = nullptr;
        if (request != nullptr && !UCS_PTR_IS_ERR(request)) {
            closing.push_back(request);
        }
    }
    const auto deadline =
        Clock::now() + std::chrono::milliseconds(force ? 1000 : params_.linger_ms);
    std::size_t flushed = 0;
    while (!closing.empty() && Clock::now() < deadline) {
        ucp_->ucp_worker_progress(worker_);
        for (auto it = closing.begin(); it != closing.end();) {
            if (ucp_->ucp_request_check_status(*it) != UCS_INPROGRESS) {
                ucp_->ucp_request_free(*it);
                it = closing.erase(it);
                ++flushed;
            } else {
                ++it;
            }
        }
    }
    if (!closing.empty()) {
        VERBOSE(INFO,
                "msg ucx: rank %d: %zu of %zu endpoints did not close within msg_ucx_linger (%d "
                "ms): their peers ended first or stopped progressing",
                job_.rank, closing.size(), closing.size() + flushed, params_.linger_ms);
        // UCX completes them as it destroys the worker.
        for (void *request : closing) {
            ucp_->ucp_request_free(request);
        }
    }
    done_.clear(); // completions of abandoned operations: nothing waits for them
    for (const int r : ranks_) {
        if (void *request = peer(r).end_request; request != nullptr) {
            ucp_->ucp_request_cancel(worker_, request); // its callback frees it
        }
    }
    ended_.clear();
}

// ---------------------------------------------------------------- channels

int Transport::prepare(mca_msg_channel_t &channel)
{
    auto owned = std::make_unique<ChannelState>();
    ChannelState &s = *owned;
    s.transport = this;
    const unsigned bits = 64 - rank_bits_;
    std::uint64_t wire = channel.tag;
    if (channel.tag >> bits != 0) {
        const std::uint64_t folded = fold(channel.tag, bits);
        auto [it, added] = folded_tags_.try_emplace(folded, channel.tag);
        if (!added && it->second != channel.tag) {
            meridian::report_error("msg ucx: the tags " + hex(it->second) + " and " +
                                   hex(channel.tag) + " both become " + hex(folded) + " in the " +
                                   std::to_string(bits) + " tag bits this job leaves");
            return MERIDIAN_ERR_OUT_OF_RESOURCE;
        }
        wire = folded;
    }
    if (wire == end_wire_) {
        meridian::report_error("msg ucx: the tag " + hex(channel.tag) +
                               " is the one the transport keeps for a process's end");
        return MERIDIAN_ERR_BAD_PARAM;
    }
    const int sender = channel.direction == MCA_MSG_SEND ? job_.rank : channel.peer;
    s.tag = wire << rank_bits_ | static_cast<std::uint64_t>(sender);
    for (std::size_t i = 0; i < channel.iovcnt; ++i) {
        if (channel.iov[i].iov_len != 0) {
            s.iov.push_back({channel.iov[i].iov_base, channel.iov[i].iov_len});
        }
    }
    // What every start hands UCX, made once (a start sets the operation).
    s.param.op_attr_mask =
        UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_REQUEST;
    if (channel.direction == MCA_MSG_SEND) {
        s.param.cb.send = send_done;
    } else {
        s.param.cb.recv = recv_done;
    }
    if (s.iov.size() == 1) {
        s.buffer = s.iov.front().buffer;
        s.count = s.iov.front().length;
    } else if (!s.iov.empty()) {
        s.param.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
        s.param.datatype = ucp_dt_make_iov();
        s.buffer = s.iov.data();
        s.count = s.iov.size();
    }
    channel.transport_data = owned.release();
    if (channel.direction == MCA_MSG_RECV && channel.peer != job_.rank) {
        post_end_receive(peer(channel.peer));
    }
    return MERIDIAN_SUCCESS;
}

void Transport::cleanup(mca_msg_channel_t &channel)
{
    delete static_cast<ChannelState *>(channel.transport_data);
    channel.transport_data = nullptr;
}

// The first start's operation, or the next after one was abandoned.
void Transport::new_op(ChannelState &s, const mca_msg_channel_t &channel)
{
    auto op = std::make_unique<Op>();
    op->transport = this;
    op->peer = &peer(channel.peer); // peers_ does not move after init
    op->recv = channel.direction == MCA_MSG_RECV;
    op->space = std::make_unique<std::byte[]>(request_size_);
    op->request_at = op->space.get() + request_size_;
    s.param.user_data = op.get();
    s.param.request = op->request_at;
    s.op = std::move(op);
}

void Transport::start(mca_msg_channel_t &channel)
{
    start_one(channel);
}

// The common start: nothing but the operation is kept across UCX's call,
// and anything unusual (the first start, a peer that ended or broke) goes
// to start_slow with all of it.
void Transport::start_one(mca_msg_channel_t &channel)
{
    ChannelState &s = state(channel);
    Op *op = s.op.get();
    if (op == nullptr || op->peer->ended || op->peer->ep == nullptr) [[unlikely]] {
        start_slow(channel);
        return;
    }
    Peer &p = *op->peer;
    op->channel = &channel;
    op->request = nullptr;
    post(s, op, p);
}

void Transport::start_slow(mca_msg_channel_t &channel)
{
    ChannelState &s = state(channel);
    if (!s.op) {
        new_op(s, channel);
    }
    Op *op = s.op.get();
    op->channel = &channel;
    op->request = nullptr;
    Peer &p = *op->peer;
    if ((p.ended || p.ep == nullptr) && !start_unusual(channel, p)) {
        return;
    }
    post(s, op, p);
}

void Transport::post(ChannelState &s, Op *op, Peer &p)
{
    ucs_status_ptr_t request;
    if (!op->recv) {
        p.sent_to = true;
        request = ucp_->ucp_tag_send_nbx(p.ep, s.buffer, s.count, s.tag, &s.param);
    } else {
        request =
            ucp_->ucp_tag_recv_nbx(worker_, s.buffer, s.count, s.tag, ~ucp_tag_t{0}, &s.param);
    }
    posted(op, request);
}

void Transport::posted(Op *op, ucs_status_ptr_t request)
{
    if (request == nullptr) {
        // Done at once: a longer message would have been an error status,
        // so it fits (UCX 1.13 does not say its size then).
        op->transport->succeeded(*op, 0);
    } else if (UCS_PTR_IS_ERR(request)) [[unlikely]] {
        op->transport->finish(op, UCS_PTR_STATUS(request), 0);
    } else {
        op->request = request;
        if (op->recv) {
            ++op->peer->receives;
        }
    }
}

[[gnu::cold, gnu::noinline]] static int start_not_idle(mca_msg_channel_t *channel)
{
    return meridian_mca_msg_base_start_channel(channel); // it says what is wrong
}

int Transport::start_direct(mca_msg_channel_t *channel)
{
    return meridian::c_boundary("msg_ucx start_direct", [channel]() -> int {
        if (channel->phase != MCA_MSG_CHANNEL_IDLE) [[unlikely]] {
            return start_not_idle(channel);
        }
        channel->phase = MCA_MSG_CHANNEL_ACTIVE;
        channel->status = MERIDIAN_SUCCESS;
        state(*channel).transport->start_one(*channel);
        return MERIDIAN_SUCCESS;
    });
}

// A start to a peer that ended its session or whose endpoint broke: false
// when the channel ends here.
bool Transport::start_unusual(mca_msg_channel_t &channel, Peer &p)
{
    ChannelState &s = state(channel);
    if (channel.direction == MCA_MSG_SEND) {
        if (p.ep == nullptr || p.ended) {
            // UCX reported the endpoint broken (the base knows the peer
            // dead), or the peer ended its session.
            meridian_mca_msg_base_complete(&channel, MERIDIAN_ERR_UNREACH);
            if (p.ended && meridian_mca_msg_base_peer_dead(channel.peer) == 0) {
                meridian_mca_msg_base_peer_died(channel.peer, "ended its session");
            }
            return false;
        }
        return true;
    }
    if (ucp_tag_recv_info_t held{};
        p.ended && ucp_->ucp_tag_probe_nb(worker_, s.tag, ~ucp_tag_t{0}, 0, &held) == nullptr) {
        // The peer ended after all of its messages, and this one is not
        // among those UCX holds: it never comes.  Said after the next
        // progress, once the receives of its earlier messages (some still
        // being put together from pieces) have completed: the peer's death
        // ends every receive from it still under way.
        doomed_.push_back(&channel);
        maybe_noted_ = true;
        return false;
    }
    return true;
}

// A transfer that went well completes in UCX's callback (the base only
// marks its channel: nothing calls back into UCX); anything else is noted
// and handled after UCX returns.  The request is the operation's own
// memory: nothing to give back.
void Transport::send_done(void *, ucs_status_t status, void *user_data)
{
    auto *op = static_cast<Op *>(user_data);
    Transport &self = *op->transport;
    if (status == UCS_OK && op->channel != nullptr) [[likely]] {
        self.succeeded(*op, 0);
        return;
    }
    self.done_.push_back({op, status, 0});
    self.maybe_noted_ = true;
}

void Transport::recv_done(void *, ucs_status_t status, const ucp_tag_recv_info_t *info,
                          void *user_data)
{
    auto *op = static_cast<Op *>(user_data);
    Transport &self = *op->transport;
    const std::size_t length = info != nullptr ? info->length : 0;
    if (status == UCS_OK && op->channel != nullptr) [[likely]] {
        self.succeeded(*op, length);
        return;
    }
    self.done_.push_back({op, status, length});
    self.maybe_noted_ = true;
}

void Transport::ep_failed(void *arg, ucp_ep_h, ucs_status_t status)
{
    auto *p = static_cast<Peer *>(arg);
    p->transport->failed_.emplace_back(p->rank, status);
    p->transport->maybe_noted_ = true;
}

int Transport::progress()
{
    // Failures, ends and broken endpoints that UCX's callbacks noted are
    // handled once UCX has returned (they may cancel other operations).
    // UCX is progressed until it is idle or something completed: a
    // completion goes to its waiter at once, without one more round over
    // UCX's interfaces.
    completions_ = 0;
    while (ucp_->ucp_worker_progress(worker_) != 0 && completions_ == 0 && !maybe_noted_) {
    }
    const int completed = static_cast<int>(completions_);
    completions_ = 0;
    if (!maybe_noted_) [[likely]] {
        return completed;
    }
    maybe_noted_ = false;
    return completed + handle_events();
}

int Transport::handle_events()
{
    int events = 0;
    while (noted()) {
        // Swapped with a spare (not moved from): both keep their memory, so
        // a completion costs no allocation.
        std::vector<Done> &done = done_spare_;
        done.swap(done_);
        for (const Done &d : done) {
            finish(d.op, d.status, d.length);
        }
        events += static_cast<int>(done.size());
        done.clear();
        if (failed_.empty() && ended_.empty() && doomed_.empty()) {
            continue; // the common case: completions only
        }
        auto doomed = std::move(doomed_);
        doomed_.clear();
        for (mca_msg_channel_t *channel : doomed) {
            meridian_mca_msg_base_complete(channel, MERIDIAN_ERR_UNREACH);
            if (meridian_mca_msg_base_peer_dead(channel->peer) == 0) {
                meridian_mca_msg_base_peer_died(channel->peer,
                                                "ended its session before sending the message");
            }
        }
        auto failed = std::move(failed_);
        failed_.clear();
        for (const auto &[rank, status] : failed) {
            peer_failed(rank, status);
        }
        auto ended = std::move(ended_);
        ended_.clear();
        for (const int rank : ended) {
            peer_ended(rank);
        }
        events += static_cast<int>(doomed.size() + failed.size() + ended.size());
    }
    return events;
}

void Transport::succeeded(Op &op, std::size_t length)
{
    mca_msg_channel_t &channel = *op.channel;
    ++completions_;
    if (op.recv) {
        if (op.request != nullptr) {
            --op.peer->receives;
        }
        if (length > channel.nbytes) [[unlikely]] {
            op.request = nullptr;
            meridian_mca_msg_base_fits(&channel, length, nullptr); // completes it with the error
            return;
        }
    }
    op.request = nullptr;
    meridian_mca_msg_base_complete(&channel, MERIDIAN_SUCCESS);
}

void Transport::finish(Op *op, ucs_status_t status, std::size_t length)
{
    mca_msg_channel_t *channel = op->channel;
    if (channel == nullptr) {
        zombies_.erase(op); // an abandoned operation is over
        return;
    }
    if (status == UCS_OK) {
        succeeded(*op, length);
        return;
    }
    if (op->request != nullptr && channel->direction == MCA_MSG_RECV) {
        --peer(channel->peer).receives;
    }
    op->request = nullptr;
    if (status == UCS_ERR_MESSAGE_TRUNCATED) {
        // UCX gives the message's size with the truncation on some
        // protocols only.
        if (length > channel->nbytes) {
            meridian_mca_msg_base_fits(channel, length, nullptr);
        } else {
            meridian_mca_msg_base_fits(channel, channel->nbytes + 1, "UCX reported a truncation");
        }
        return;
    }
    // A failed transfer: the peer is gone for good; its other channels fail
    // now rather than time out.
    const std::string what = channel_text(*channel) + " failed: " + status_text(status);
    meridian_mca_msg_base_complete(channel, MERIDIAN_ERR_UNREACH);
    meridian_mca_msg_base_peer_died(channel->peer, ("is unreachable: " + what).c_str());
}

// UCX reported the endpoint broken (the peer's process or its link went
// away): the base fails the peer's channels (cancel, below), then the
// endpoint closes by force, as UCX asks after an error.
void Transport::peer_failed(int rank, ucs_status_t status)
{
    Peer &p = peer(rank);
    if (p.failed) {
        return;
    }
    p.failed = true;
    meridian_mca_msg_base_peer_died(
        rank, ("is unreachable: UCX reports its endpoint failed: " + status_text(status)).c_str());
    close_by_force(p);
}

void Transport::close_by_force(Peer &p)
{
    p.failed = true;
    if (p.ep == nullptr) {
        return;
    }
    ucp_request_param_t param{};
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    param.flags = UCP_EP_CLOSE_FLAG_FORCE;
    void *request = ucp_->ucp_ep_close_nbx(p.ep, &param);
    if (request != nullptr && !UCS_PTR_IS_ERR(request)) {
        ucp_->ucp_request_free(request); // UCX finishes it on its own
    }
    p.ep = nullptr;
}

// A started channel is abandoned: its operation lives on as a zombie until
// UCX reports it.  A receive is cancelled; a send UCX cannot take back, so
// for a dead peer its endpoint closes by force (every operation on it ends
// and no memory of it is read again); to a live peer it may still go.
void Transport::cancel(mca_msg_channel_t &channel, bool peer_alive)
{
    ChannelState &s = state(channel);
    if (!s.op || s.op->request == nullptr) {
        std::erase(doomed_, &channel);
        return; // nothing of it is with UCX
    }
    Op *raw = s.op.get();
    raw->channel = nullptr;
    void *request = raw->request;
    zombies_.emplace(raw, std::move(s.op));
    if (channel.direction == MCA_MSG_RECV) {
        --peer(channel.peer).receives;
        ucp_->ucp_request_cancel(worker_, request);
    } else if (!peer_alive) {
        close_by_force(peer(channel.peer));
    }
}

} // namespace meridian::msg_ucx
