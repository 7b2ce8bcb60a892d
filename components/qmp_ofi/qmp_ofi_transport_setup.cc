// Bringing the transport up: init opens what this process needs (its ring
// segment, the libfabric endpoint) and publishes how to reach it; connect
// maps the peers' segments, probes CMA (at the word each peer's segment
// names: no address goes through the modex), inserts the libfabric
// addresses, and runs a second exchange after which the segments' names are
// unlinked.
#include <netinet/in.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "components/qmp_ofi/qmp_ofi_modex.hpp"
#include "components/qmp_ofi/qmp_ofi_proc.hpp"
#include "components/qmp_ofi/qmp_ofi_transport.hpp"
#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/runtime/datastore.hpp>
#include <meridian/opal/util/output.hpp>

namespace meridian::msg_ofi
{

namespace
{

// What every process publishes first: which paths it runs, so a peer
// started with other msg_ofi_shm / fabric settings is refused clearly.
struct Mode {
    std::uint8_t shm = 0;
    std::uint8_t fabric = 0;
    std::uint8_t tcp = 0; // the fabric is the tcp path's sockets
    std::uint8_t reserved[5] = {};
};
struct ProcInfo {
    std::int64_t pid = 0;
    std::uint64_t start_time = 0;
};
// A word peers read through CMA at connect to learn whether they may (its
// address is in this process's segment, shm::Probe).
std::uint64_t probe_word = 0;

// The address and port pnet assigned this process (pmix.net.endpt, stored by
// pnet's per-node setup as "10.1.2.3:32000" strings), if any.
Endpoint::Source pnet_endpoint()
{
    auto store = meridian::datastore::store();
    if (!store) {
        return {};
    }
    auto value = (*store)->get((*store)->self(), "pmix.net.endpt");
    if (!value) {
        return {};
    }
    std::string first;
    if (const auto *list = std::get_if<std::vector<std::string>>(&*value); list && !list->empty()) {
        first = list->front();
    } else if (const auto *one = std::get_if<std::string>(&*value)) {
        first = *one;
    }
    const auto colon = first.rfind(':');
    if (colon == std::string::npos || colon == 0) {
        return {};
    }
    std::string node = first.substr(0, colon);
    if (node.size() > 2 && node.front() == '[' && node.back() == ']') {
        node = node.substr(1, node.size() - 2); // [v6]:port
    }
    return {node, first.substr(colon + 1)};
}

} // namespace

Transport::~Transport()
{
    // Channels still started, released ones too, are abandoned as
    // channel_free would: a peer writing the tail of a split copy into one
    // is waited for (progress frees nothing meanwhile).
    released_.clear();
    for (auto &[raw, channel] : channels_) {
        if (channel->phase == Phase::active) {
            detach(*channel, !peers_[static_cast<std::size_t>(channel->peer)].dead);
        }
    }
    // The endpoint stops first, so nothing writes into memory freed below;
    // registrations close before the domain.
    if (endpoint_) {
        endpoint_->close_endpoint();
    }
    channels_.clear();
    zombies_.clear();
    endpoint_.reset();
    if (tcp_epoll_) {
        report_refusals();
    }
}

int Transport::fail_setup(int status, const std::string &message)
{
    meridian::report_error(message);
    return status;
}

int Transport::init(const mca_msg_job_t &job)
{
    job_ = job;
    node_of_.assign(job.node_of, job.node_of + job.size);
    local_rank_of_.assign(job.local_rank_of, job.local_rank_of + job.size);
    nspace_ = job.nspace != nullptr ? job.nspace : "";
    job_.node_of = node_of_.data();
    job_.local_rank_of = local_rank_of_.data();
    job_.nspace = nspace_.c_str();

    const bool shm_on = params_.shm == ShmMode::automatic;
    peers_ = std::vector<Peer>(static_cast<std::size_t>(job.size)); // Peer does not move
    bool fabric = false;
    for (int r = 0; r < job.size; ++r) {
        Peer &peer = peers_[static_cast<std::size_t>(r)];
        peer.node = node_of_[static_cast<std::size_t>(r)];
        peer.local_rank = local_rank_of_[static_cast<std::size_t>(r)];
        if (r == job.rank) {
            peer.path = Path::self;
            continue;
        }
        const bool local = peer.node == job.node;
        peer.path = local && shm_on ? Path::shm : Path::ofi;
        fabric = fabric || peer.path == Path::ofi;
        if (local) {
            local_ranks_.push_back(r);
        }
        if (peer.path == Path::shm) {
            shm_ranks_.push_back(r);
        }
    }
    shm_payload_ = params_.shm_slot_bytes - shm::header_bytes;
    eager_limit_ = params_.eager_limit;
    const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
    oversubscribed_ = cpus > 0 && job.local_size > cpus;

    if (!fabric) {
        // No peer needs libfabric, but a provider named that does not exist
        // is a mistake here as on many nodes.
        if (auto offered = Endpoint::check_provider(params_.provider); !offered) {
            return fail_setup(offered.error().status, offered.error().message);
        }
    }
    if (job.size == 1) {
        VERBOSE(INFO, "msg ofi: a job of one process: only the self path");
        return MERIDIAN_SUCCESS;
    }
    // Where libfabric would use tcp, this transport's own sockets instead.
    if (fabric && params_.tcp == TcpMode::automatic &&
        (params_.provider.empty() || params_.provider == "auto")) {
        auto choice = Endpoint::choice(params_.provider, job.num_nodes == 1, pnet_endpoint());
        if (choice && tcp_provider(choice->provider)) {
            if (int rc = open_tcp(*choice); rc != MERIDIAN_SUCCESS) {
                return rc;
            }
            for (Peer &peer : peers_) {
                if (peer.path == Path::ofi) {
                    peer.path = Path::tcp;
                }
            }
        }
    }
    Mode mode;
    mode.shm = shm_on ? 1 : 0;
    mode.fabric = fabric ? 1 : 0;
    mode.tcp = tcp_epoll_ ? 1 : 0;
    ProcInfo me;
    me.pid = ::getpid();
    me.start_time = proc::start_time(::getpid());
    if (int rc = put("ofi.mode", mode); rc != MERIDIAN_SUCCESS) {
        return fail_setup(rc, "msg ofi: cannot publish this process's mode");
    }
    if (int rc = put("ofi.proc", me); rc != MERIDIAN_SUCCESS) {
        return fail_setup(rc, "msg ofi: cannot publish this process's pid");
    }
    if (!shm_ranks_.empty()) {
        if (params_.shm_slots == 0) {
            // 64 slots per ring, fewer (not under 8) where a segment of one
            // ring per process of the node would pass 4 MiB.
            const std::size_t budget = std::size_t{4} << 20;
            std::size_t slots = 64;
            while (slots > 8 &&
                   slots * params_.shm_slot_bytes * static_cast<std::size_t>(job.local_size) >
                       budget) {
                slots /= 2;
            }
            params_.shm_slots = slots;
        }
        const std::string name = shm::segment_name();
        auto segment = shm::Segment::create(name, static_cast<std::uint32_t>(job.local_size),
                                            static_cast<std::uint32_t>(params_.shm_slots),
                                            static_cast<std::uint32_t>(params_.shm_slot_bytes));
        if (!segment) {
            return fail_setup(segment.error().status, segment.error().message);
        }
        segment_ = std::move(*segment);
        probe_word = 0x6d6572696469616eULL ^ static_cast<std::uint64_t>(me.pid);
        segment_.set_probe({reinterpret_cast<std::uint64_t>(&probe_word), probe_word});
        VERBOSE(DEBUG, "msg ofi: shared-memory segment %s: %u rings of %zu slots of %zu bytes",
                name.c_str(), static_cast<unsigned>(job.local_size), params_.shm_slots,
                params_.shm_slot_bytes);
        if (int rc = meridian_mca_msg_base_modex_put("ofi.shm", name.data(), name.size());
            rc != MERIDIAN_SUCCESS) {
            return fail_setup(rc, "msg ofi: cannot publish the shared-memory segment's name");
        }
    }
    if (fabric && !tcp_epoll_) {
        auto endpoint = Endpoint::open(params_.provider, job.num_nodes == 1, pnet_endpoint());
        if (!endpoint) {
            return fail_setup(endpoint.error().status, endpoint.error().message);
        }
        endpoint_ = std::move(*endpoint);
        ofi_path_ = "ofi:" + endpoint_->provider();
        VERBOSE(INFO,
                "msg ofi: libfabric provider %s, domain %s (%u tag bits, iov limit %zu/%zu, "
                "inject %zu, %s registration), %s%s",
                endpoint_->provider().c_str(), endpoint_->domain_name().c_str(),
                endpoint_->tag_bits(), endpoint_->tx_iov_limit(), endpoint_->rx_iov_limit(),
                endpoint_->inject_size(), endpoint_->needs_registration() ? "local" : "no",
                endpoint_->bound_to().empty() ? "address chosen by libfabric: "
                                              : "bound to the pnet endpoint ",
                endpoint_->bound_to().empty() ? endpoint_->unbound_reason().c_str()
                                              : endpoint_->bound_to().c_str());
        const auto address = endpoint_->address();
        if (address.empty()) {
            return fail_setup(MERIDIAN_ERR_NOT_AVAILABLE,
                              "msg ofi: fi_getname gave no address for " + ofi_path_);
        }
        if (int rc = meridian_mca_msg_base_modex_put("ofi.addr", address.data(), address.size());
            rc != MERIDIAN_SUCCESS) {
            return fail_setup(rc, "msg ofi: cannot publish the endpoint's address");
        }
        const std::string &prov = endpoint_->provider();
        if (int rc = meridian_mca_msg_base_modex_put("ofi.prov", prov.data(), prov.size());
            rc != MERIDIAN_SUCCESS) {
            return fail_setup(rc, "msg ofi: cannot publish the provider's name");
        }
    }
    return MERIDIAN_SUCCESS;
}

int Transport::connect_shm_peer(int rank, Peer &peer, std::vector<std::uint8_t> &readable)
{
    std::vector<std::uint8_t> name(128);
    if (int rc = get_bytes(rank, "ofi.shm", name); rc != MERIDIAN_SUCCESS) {
        return fail_setup(MERIDIAN_ERR_UNREACH,
                          "msg ofi: " + describe(rank) + " published no shared-memory segment");
    }
    auto segment = shm::Segment::attach(std::string(name.begin(), name.end()));
    if (!segment) {
        return fail_setup(segment.error().status,
                          segment.error().message + " (of " + describe(rank) + ")");
    }
    if (segment->rings() != static_cast<std::uint32_t>(job_.local_size)) {
        return fail_setup(MERIDIAN_ERR_UNREACH, "msg ofi: " + describe(rank) + " counts " +
                                                    std::to_string(segment->rings()) +
                                                    " processes on its node, this " + "process " +
                                                    std::to_string(job_.local_size));
    }
    peer.out = segment->ring(static_cast<std::uint32_t>(job_.local_rank));
    peer.in = segment_.ring(static_cast<std::uint32_t>(peer.local_rank));
    if (peer.out.capacity() != shm_payload_) {
        return fail_setup(MERIDIAN_ERR_UNREACH,
                          "msg ofi: " + describe(rank) +
                              " uses another msg_ofi_shm_slot_size than this process");
    }
    // Can this process pull from the peer (process_vm_readv)?  Yama's
    // ptrace scope, seccomp or a container may forbid it.  The peer's
    // segment says where to try.
    const shm::Probe probe = segment->probe();
    peer_segments_.push_back(std::move(*segment));
    if (params_.cma == CmaMode::automatic) {
        std::uint64_t value = 0;
        iovec local{&value, sizeof value};
        iovec remote{reinterpret_cast<void *>(probe.address), sizeof value};
        const int err = proc::read_from(peer.pid, {&local, 1}, {&remote, 1}, sizeof value);
        if (err == 0 && value == probe.value) {
            readable[static_cast<std::size_t>(peer.local_rank)] = 1;
        } else {
            VERBOSE(INFO,
                    "msg ofi: CMA from %s is not permitted (%s): large messages go "
                    "through the ring",
                    describe(rank).c_str(), err != 0 ? std::strerror(err) : "probe mismatch");
        }
    }
    return MERIDIAN_SUCCESS;
}

int Transport::connect_ofi_peer(int rank, Peer &peer)
{
    std::vector<std::uint8_t> address(64);
    if (get_bytes(rank, "ofi.addr", address) != MERIDIAN_SUCCESS) {
        return fail_setup(MERIDIAN_ERR_UNREACH,
                          "msg ofi: " + describe(rank) + " published no libfabric address");
    }
    std::vector<std::uint8_t> prov(64);
    if (get_bytes(rank, "ofi.prov", prov) == MERIDIAN_SUCCESS) {
        const std::string theirs(prov.begin(), prov.end());
        if (theirs != endpoint_->provider()) {
            return fail_setup(MERIDIAN_ERR_UNREACH,
                              "msg ofi: " + describe(rank) + " uses the provider " + theirs +
                                  ", this process " + endpoint_->provider() +
                                  " (set msg_ofi_provider or FI_PROVIDER alike everywhere)");
        }
    }
    auto inserted = endpoint_->insert(address);
    if (!inserted) {
        return fail_setup(inserted.error().status,
                          inserted.error().message + " (address of " + describe(rank) + ")");
    }
    peer.address = *inserted;
    return MERIDIAN_SUCCESS;
}

// Where libfabric's choice is tcp (tcp;ofi_rxm, the tcp or sockets
// provider alone).
bool Transport::tcp_provider(const std::string &provider)
{
    return provider == "tcp" || provider.starts_with("tcp;") || provider == "sockets" ||
           provider.starts_with("sockets;");
}

int Transport::open_tcp(const Endpoint::Choice &choice)
{
    tcp::Address address;
    if (!tcp::Address::from_bytes(choice.address, address)) {
        return fail_setup(MERIDIAN_ERR_NOT_AVAILABLE,
                          "msg ofi: libfabric's " + choice.provider +
                              " names no IP address to listen on (set msg_ofi_tcp=off)");
    }
    tcp::Address bound;
    auto listener = tcp::listen_on(address, bound);
    std::string where = choice.bound_to.empty()
                            ? "address chosen by libfabric: " + choice.unbound_reason
                            : "the pnet endpoint";
    if (!listener && !choice.bound_to.empty()) {
        // The port pnet gave is taken: any port on the same address.
        where = "the pnet endpoint's address (its port: " + listener.error().message + ")";
        if (address.storage.ss_family == AF_INET) {
            reinterpret_cast<sockaddr_in *>(&address.storage)->sin_port = 0;
        } else {
            reinterpret_cast<sockaddr_in6 *>(&address.storage)->sin6_port = 0;
        }
        listener = tcp::listen_on(address, bound);
    }
    if (!listener) {
        return fail_setup(listener.error().status, listener.error().message);
    }
    tcp::Socket epoll(::epoll_create1(EPOLL_CLOEXEC));
    if (!epoll) {
        return fail_setup(MERIDIAN_ERR_OUT_OF_RESOURCE,
                          std::string("msg ofi: epoll_create1: ") + std::strerror(errno));
    }
    // This process's key: the job's processes get it through the modex
    // (PMIx serves it to them alone); connections prove they hold their
    // rank's (qmp_ofi_tcp_auth.hpp).
    auto key = tcp::new_key();
    if (!key) {
        return fail_setup(key.error().status, key.error().message);
    }
    tcp_key_ = *key;
    tcp_job_ = tcp::job_id(nspace_);
    tcp_checker_ = std::make_unique<tcp::HelloChecker>(tcp::HelloPolicy{
        tcp_job_, static_cast<std::uint32_t>(job_.rank), static_cast<std::uint32_t>(job_.size),
        [this](std::uint32_t rank) -> const tcp::Key * {
            const Peer &peer = peers_[rank];
            return static_cast<int>(rank) != job_.rank && peer.path == Path::tcp ? &peer.tcp_key
                                                                                 : nullptr;
        }});
    tcp_listener_ = std::move(*listener);
    tcp_bound_ = bound;
    tcp_epoll_ = std::move(epoll);
    if (!watch_listener()) {
        return fail_setup(MERIDIAN_ERR_OUT_OF_RESOURCE,
                          std::string("msg ofi: epoll_ctl: ") + std::strerror(errno));
    }
    const auto bytes = bound.bytes();
    if (int rc = meridian_mca_msg_base_modex_put("ofi.tcp", bytes.data(), bytes.size());
        rc != MERIDIAN_SUCCESS) {
        return fail_setup(rc, "msg ofi: cannot publish the tcp path's address");
    }
    if (int rc = meridian_mca_msg_base_modex_put("ofi.tcpkey", tcp_key_.data(), tcp_key_.size());
        rc != MERIDIAN_SUCCESS) {
        return fail_setup(rc, "msg ofi: cannot publish the tcp path's key");
    }
    VERBOSE(INFO, "msg ofi: tcp path (in place of libfabric's %s): listening on %s, %s",
            choice.provider.c_str(), bound.text().c_str(), where.c_str());
    return MERIDIAN_SUCCESS;
}

int Transport::connect_tcp_peer(int rank, Peer &peer)
{
    std::vector<std::uint8_t> address(sizeof(sockaddr_storage));
    if (get_bytes(rank, "ofi.tcp", address) != MERIDIAN_SUCCESS ||
        !tcp::Address::from_bytes(address, peer.tcp_address)) {
        return fail_setup(MERIDIAN_ERR_UNREACH,
                          "msg ofi: " + describe(rank) + " published no tcp address");
    }
    std::vector<std::uint8_t> key(peer.tcp_key.size());
    if (get_bytes(rank, "ofi.tcpkey", key) != MERIDIAN_SUCCESS ||
        key.size() != peer.tcp_key.size()) {
        return fail_setup(MERIDIAN_ERR_UNREACH,
                          "msg ofi: " + describe(rank) + " published no key for the tcp path");
    }
    std::copy(key.begin(), key.end(), peer.tcp_key.begin());
    return MERIDIAN_SUCCESS;
}

int Transport::connect()
{
    if (job_.size == 1) {
        connected_ = true;
        return MERIDIAN_SUCCESS;
    }
    int status = MERIDIAN_SUCCESS;
    std::vector<std::uint8_t> readable(static_cast<std::size_t>(job_.local_size), 0);
    const Mode mine{static_cast<std::uint8_t>(params_.shm == ShmMode::automatic),
                    static_cast<std::uint8_t>(endpoint_ != nullptr || tcp_epoll_),
                    static_cast<std::uint8_t>(tcp_epoll_ ? 1 : 0),
                    {}};
    for (int r = 0; r < job_.size && status == MERIDIAN_SUCCESS; ++r) {
        if (r == job_.rank) {
            continue;
        }
        Peer &peer = peers_[static_cast<std::size_t>(r)];
        Mode theirs;
        if (get(r, "ofi.mode", theirs) != MERIDIAN_SUCCESS) {
            status = fail_setup(MERIDIAN_ERR_UNREACH,
                                "msg ofi: " + describe(r) + " published nothing for the ofi " +
                                    "transport (is it running another msg transport?)");
            break;
        }
        if (theirs.shm != mine.shm) {
            status = fail_setup(MERIDIAN_ERR_UNREACH,
                                "msg ofi: " + describe(r) + " runs with msg_ofi_shm=" +
                                    (theirs.shm ? "auto" : "off") + ", this process with " +
                                    (mine.shm ? "auto" : "off") + " (set it alike everywhere)");
            break;
        }
        if (peer.node == job_.node) {
            ProcInfo info;
            // Watched only when this process sees the same process under
            // that pid (not in another pid namespace): else its absence
            // would read as death.
            if (get(r, "ofi.proc", info) == MERIDIAN_SUCCESS && info.start_time != 0 &&
                proc::start_time(static_cast<pid_t>(info.pid)) == info.start_time) {
                peer.pid = static_cast<pid_t>(info.pid);
                peer.start_time = info.start_time;
            } else {
                VERBOSE(INFO,
                        "msg ofi: %s: its pid is not visible here; a wait finds its death "
                        "only through msg_ofi_timeout",
                        describe(r).c_str());
            }
        }
        if (peer.path != Path::shm && theirs.fabric != 0 && mine.fabric != 0 &&
            theirs.tcp != mine.tcp) {
            status = fail_setup(
                MERIDIAN_ERR_UNREACH,
                "msg ofi: " + describe(r) + " reaches other nodes through " +
                    (theirs.tcp ? "the tcp path's sockets" : "libfabric") +
                    ", this process through " +
                    (mine.tcp ? "the tcp path's sockets" : "libfabric") +
                    " (set msg_ofi_tcp and msg_ofi_provider alike everywhere; libfabric offers "
                    "other providers on the nodes?)");
            break;
        }
        if (peer.path == Path::shm) {
            status = connect_shm_peer(r, peer, readable);
        } else if (peer.path == Path::ofi) {
            status = connect_ofi_peer(r, peer);
        } else if (peer.path == Path::tcp) {
            status = connect_tcp_peer(r, peer);
        }
    }
    // Second round, in every process even after an error (the others wait
    // in it): who may pull from whom; afterwards every segment is mapped by
    // everyone who needs it, so the names can go.
    if (int rc = meridian_mca_msg_base_modex_put("ofi.cma", readable.data(), readable.size());
        rc != MERIDIAN_SUCCESS && status == MERIDIAN_SUCCESS) {
        status = fail_setup(rc, "msg ofi: cannot publish the CMA results");
    }
    if (int rc = meridian_mca_msg_base_modex_exchange(); rc != MERIDIAN_SUCCESS) {
        return status != MERIDIAN_SUCCESS ? status : rc;
    }
    segment_.unlink();
    if (status != MERIDIAN_SUCCESS) {
        return status;
    }
    for (const int r : shm_ranks_) {
        Peer &peer = peers_[static_cast<std::size_t>(r)];
        std::vector<std::uint8_t> theirs(readable.size());
        if (get_bytes(r, "ofi.cma", theirs) == MERIDIAN_SUCCESS &&
            theirs.size() == readable.size()) {
            peer.cma = theirs[static_cast<std::size_t>(job_.local_rank)] != 0;
            peer.cma_mine = readable[static_cast<std::size_t>(peer.local_rank)] != 0;
        }
    }
    for (int r = 0; r < job_.size; ++r) {
        VERBOSE(INFO, "msg ofi: rank %d -> rank %d: %s", job_.rank, r, path_name(r));
    }
    connected_ = true;
    return MERIDIAN_SUCCESS;
}

} // namespace meridian::msg_ofi
