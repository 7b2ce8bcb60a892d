// The ofi transport: channels matched per (peer, tag) in start order over
// four paths -- self (a copy at match), shm (Meridian's rings between
// processes of one node, CMA for large messages), ofi (a libfabric RDM
// endpoint) and tcp (the transport's own sockets, where libfabric would use
// tcp) -- with progress, waits that time out, and dead-peer detection.
// One instance per process (the msg framework is single-select); the QMP
// layer serialises calls, so nothing here locks.
#ifndef MERIDIAN_QMP_OFI_TRANSPORT_HPP
#define MERIDIAN_QMP_OFI_TRANSPORT_HPP

#include <sys/types.h>
#include <sys/uio.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "components/qmp_ofi/qmp_ofi_fabric.hpp"
#include "components/qmp_ofi/qmp_ofi_iov.hpp"
#include "components/qmp_ofi/qmp_ofi_params.hpp"
#include "components/qmp_ofi/qmp_ofi_shm.hpp"
#include "components/qmp_ofi/qmp_ofi_tcp.hpp"
#include "components/qmp_ofi/qmp_ofi_tcp_auth.hpp"
#include <meridian/mca/msg/msg.h>

namespace meridian::msg_ofi
{

enum class Path : std::uint8_t { self, shm, ofi, tcp };
// A tcp connection: none; our connect under way; our hello sent, the
// peer's answer awaited; carrying messages.
enum class TcpState : std::uint8_t { none, connecting, greeted, ready };
enum class Phase : std::uint8_t { idle, active, done };

struct Channel;
struct Matching;

// A libfabric operation's state: owned by its channel, and by the
// transport (as a zombie) when the channel is freed while it is posted.
struct OfiOp {
    fi_context2 context{}; // first: libfabric hands &context back
    Channel *channel = nullptr;
    std::vector<FidPtr<fid_mr>> registrations;
    std::vector<void *> descriptors;      // one per block (FI_MR_LOCAL), else empty
    std::unique_ptr<std::byte[]> staging; // packed copy when the blocks exceed iov_limit
    std::size_t staging_bytes = 0;
    FidPtr<fid_mr> staging_registration;
    void *staging_descriptor = nullptr;
};

struct Channel {
    mca_msg_direction_t direction = MCA_MSG_SEND;
    int peer = 0;
    std::uint64_t tag = 0;
    std::uint64_t wire_tag = 0; // the tag on the libfabric wire (fits its tag bits)
    std::vector<iovec> iov;
    std::size_t nbytes = 0;
    Path path = Path::self;
    Phase phase = Phase::idle;
    int status = MERIDIAN_SUCCESS;
    Matching *matching = nullptr;       // self and shm: its tag's queues at its peer (stable)
    std::uint64_t rndv_id = 0;          // a shm rendezvous send waiting for its FIN
    std::uint64_t recv_id = 0;          // a shm receive waiting for the sender's DONE (split copy)
    int part_status = MERIDIAN_SUCCESS; // of the part of a split copy done here
    std::unique_ptr<OfiOp> ofi;         // ofi path
    bool ofi_retry = false;             // posting hit FI_EAGAIN; progress posts again
    bool released = false;              // freed while started: goes once its transfer is over
};

// A message that arrived before its receive was started.
struct Unexpected {
    enum class Kind { eager, rndv, self_send } kind = Kind::eager;
    std::uint64_t total = 0;
    std::unique_ptr<std::byte[]> data; // eager: the message (capacity data_capacity)
    std::size_t data_capacity = 0;
    std::size_t arrived = 0;
    shm::RndvBody rndv{};          // rndv: where the sender's blocks are
    std::vector<iovec> remote_iov; // rndv: the inline part of the sender's list
    Channel *sender = nullptr;     // self_send: the send itself
};

struct Matching {
    std::deque<Channel *> posted;                       // receives, in start order
    std::deque<std::unique_ptr<Unexpected>> unexpected; // messages, in arrival order
};

// A send on the way into a peer's ring (queued when the ring was full).
struct OutMessage {
    Channel *channel = nullptr; // nullptr: freed while half pushed (the rest is padding)
    bool rndv = false;
    std::uint64_t recv_id = 0; // a rendezvous message sent through the ring after all
    bool started = false;      // the first fragment is in the ring
    std::uint64_t tag = 0;
    std::size_t total = 0;
    std::size_t sent = 0;
    IovCursor cursor;
    tcp::Header header{};        // tcp: what goes before the bytes,
    std::size_t header_sent = 0; // and how much of it went
};

// A control slot (FIN, CTS, DONE) waiting for space in a peer's ring.
struct Control {
    shm::Kind kind = shm::Kind::fin;
    std::vector<std::byte> body;
};

// The message whose fragments are arriving on a peer's ring.
struct Incoming {
    bool active = false;
    Channel *recv = nullptr;     // straight into a started receive
    Unexpected *stash = nullptr; // into an unexpected buffer
    std::size_t total = 0;
    std::size_t got = 0;
    IovCursor cursor; // recv's blocks
};

struct Peer {
    Path path = Path::self;
    int node = 0;
    int local_rank = 0;
    pid_t pid = 0; // same node only
    std::uint64_t start_time = 0;
    bool dead = false;
    bool cma = false;      // the peer can pull from this process's memory
    bool cma_mine = false; // this process can read and write the peer's
    shm::Ring out;         // ours, in the peer's segment
    shm::Ring in;          // the peer's, in our segment
    std::deque<OutMessage> outq;
    std::deque<Control> ctlq; // FIN, CTS, DONE waiting for ring space
    Incoming incoming;
    std::unordered_map<std::uint64_t, Matching> match; // self and shm (never erased)
    std::uint64_t last_tag = 0;                        // the tag of the last message that arrived,
    Matching *last_matching = nullptr; // and its queues: a halo's ring repeats few tags
    std::size_t rndv_out = 0;          // our rendezvous sends to it waiting for its FIN
    fi_addr_t address = FI_ADDR_UNSPEC;
    std::string node_name;    // for messages, read when first needed
    std::size_t channels = 0; // declared to or from it (shm): its ring is polled every time
    // tcp: the one connection with it, both ways (opened by the first of
    // the two to send; outq holds what waits for it), the bytes read and
    // not yet taken (incoming is the message arriving), and the gathered
    // copy of finely strided blocks being sent.
    tcp::Address tcp_address;
    tcp::Key tcp_key{}; // its key (the modex): proves its hellos and answers
    tcp::Socket tcp_socket;
    TcpState tcp_state = TcpState::none;
    bool tcp_writable_wanted = false;
    bool tcp_closed = false;  // the connection ended
    bool tcp_awaited = false; // ours was refused: the peer's comes
    // Our hello on the connection we are opening, and its answer so far.
    tcp::Hello tcp_hello{};
    tcp::AnswerBytes tcp_answer{};
    std::size_t tcp_answer_got = 0;
    // Connections we opened that it closed before answering, and when the
    // next attempt goes.
    int tcp_attempts = 0;
    std::chrono::steady_clock::time_point tcp_retry_at{};
    // A message that arrived before its receive, past msg_ofi_unexpected_limit:
    // it stays in the connection (nothing more is read) until its receive starts.
    bool tcp_parked = false;
    tcp::Header parked{};
    std::vector<std::byte> read;
    std::size_t read_begin = 0;
    std::size_t read_end = 0;
    std::vector<std::byte> stage;
    std::size_t stage_begin = 0;
    std::size_t stage_end = 0;
};

class Transport
{
  public:
    explicit Transport(Params params) : params_(std::move(params)) {}
    ~Transport();
    Transport(const Transport &) = delete;
    Transport &operator=(const Transport &) = delete;

    int init(const mca_msg_job_t &job);
    int connect();

    int channel_create(const mca_msg_channel_spec_t &spec, Channel **channel);
    int channel_readdress(Channel &channel, const iovec *iov, std::size_t iovcnt);
    void channel_free(Channel *channel);
    void channel_release(Channel *channel);
    int start(Channel &channel);
    int test(Channel &channel, int *complete);
    int wait(Channel *const *channels, std::size_t count, int timeout_ms);
    int progress();
    const char *path_name(int peer);

  private:
    using Clock = std::chrono::steady_clock;

    // Set up (init / connect)
    int fail_setup(int status, const std::string &message);
    int connect_shm_peer(int rank, Peer &peer, std::vector<std::uint8_t> &readable);
    int connect_ofi_peer(int rank, Peer &peer);
    static bool tcp_provider(const std::string &provider);
    int open_tcp(const Endpoint::Choice &choice);
    int connect_tcp_peer(int rank, Peer &peer);
    int prepare_ofi(Channel &channel);

    // Completion
    void finish(Channel &channel, int status);
    std::string describe(int rank);
    const std::string &node_name(int rank);
    void detach(Channel &channel, bool peer_alive);
    void reap_released();
    void count_channel(int rank, bool added);
    std::string channel_text(const Channel &channel);
    // A receive takes a message of its size or shorter (the bytes after the
    // message's keep their values, as MPI's receive does); a longer one
    // fails it (too_long, with a message).  fits: true when it may go in.
    bool fits(Channel &recv, std::uint64_t total);
    void too_long(Channel &recv, const std::string &got);

    // self
    void start_self(Channel &channel);
    // shm (qmp_ofi_transport_shm.cc)
    void start_shm(Channel &channel);
    void start_recv_matched(Peer &peer, Channel &recv, Matching &matching);
    bool push_message(Peer &peer, OutMessage &message);
    bool push_control(Peer &peer, const Control &control);
    void send_control(Peer &peer, Control control);
    void push_pending(Peer &peer);
    // Take up to budget slots from the peer's ring; hold: a message that
    // is too_early stays there.
    int drain(int rank, Peer &peer, int budget, bool hold = true);
    // A message that would arrive before its receive and take the early
    // messages held past msg_ofi_unexpected_limit: its sender waits.
    bool too_early(Peer &peer, std::uint64_t tag, std::uint64_t total);
    void on_first(int rank, Peer &peer, shm::SlotHeader &slot);
    void on_more(Peer &peer, shm::SlotHeader &slot);
    // A message's first bytes from a peer (shm slots, the tcp stream), and
    // the next ones of the message under way.
    void message_begins(Peer &peer, std::uint64_t tag, std::size_t total, const std::byte *data,
                        std::size_t len);
    void message_continues(Peer &peer, const std::byte *data, std::size_t len);
    // len more bytes of the message under way are in place: its receive
    // finishes with the last.
    void message_arrived(Peer &peer, std::size_t len);
    void on_rndv(int rank, Peer &peer, shm::SlotHeader &slot);
    void on_fin(Peer &peer, shm::SlotHeader &slot);
    void on_cts(int rank, Peer &peer, shm::SlotHeader &slot);
    void on_done(shm::SlotHeader &slot);
    void on_data(Peer &peer, shm::SlotHeader &slot);
    void send_done(Peer &peer, std::uint64_t recv_id, int status);
    void take_fragment(Peer &peer, Channel &recv, const std::byte *data, std::size_t len,
                       std::size_t total);
    void await_done(Channel &recv);
    void deliver_eager(Channel &recv, Unexpected &message);
    void pull(int rank, Peer &peer, Channel &recv, const shm::RndvBody &body,
              std::vector<iovec> remote);
    std::unique_ptr<Unexpected> make_unexpected(std::size_t total);
    void recycle(Unexpected &message);
    // The queues of a tag at a peer, for an arriving message.
    static Matching &matching_for(Peer &peer, std::uint64_t tag)
    {
        if (peer.last_matching == nullptr || peer.last_tag != tag) {
            peer.last_matching = &peer.match[tag];
            peer.last_tag = tag;
        }
        return *peer.last_matching;
    }
    // CMA handles each block of both lists apart: worth it only for lists
    // of coarse blocks (msg_ofi_cma_min_block on average).
    bool coarse(const Channel &channel) const
    {
        return channel.nbytes >= params_.cma_min_block * channel.iov.size();
    }
    // ofi (qmp_ofi_transport_ofi.cc)
    void start_ofi(Channel &channel);
    bool post_ofi(Channel &channel);
    int poll_cq();
    void complete_ofi(OfiOp *op, std::size_t len, int error, const std::string &why);
    void abandon_ofi(Channel &channel);
    // tcp (qmp_ofi_transport_tcp.cc: messages; _tcp_connect.cc: connections)
    void start_tcp(Channel &channel);
    void progress_tcp();
    void open_connection(int rank, Peer &peer);
    void connect_again(int rank, Peer &peer, const std::string &why);
    void retry_connections();
    void connection_ready(int rank, Peer &peer);
    bool flush_tcp(int rank, Peer &peer);
    std::size_t fill_pieces(Peer &peer, OutMessage &message, iovec *pieces, std::size_t count);
    void account_sent(Peer &peer, OutMessage &message, std::size_t sent);
    void want_writable(int rank, Peer &peer, bool wanted);
    void on_socket(int rank, Peer &peer, std::uint32_t events);
    void on_connected(int rank, Peer &peer, std::uint32_t events);
    void accept_tcp();
    bool make_room_for_accept();
    void rest_listener();
    void wake_listener();
    void greet_tcp(int fd);
    void admit(int fd, const tcp::Hello &hello);
    void answer_tcp(int rank, Peer &peer);
    void expire_unproved();
    void refuse(const tcp::Address &from, const std::string &why);
    void report_refusals();
    void read_tcp(int rank, Peer &peer);
    bool read_direct(int rank, Peer &peer);
    void take_read(int rank, Peer &peer);
    void unpark(int rank, Peer &peer);
    std::uint32_t events_for(const Peer &peer) const;
    void tcp_closed(int rank, const std::string &why);
    bool busy_with(int rank, const Peer &peer) const;
    void watch(int fd, std::uint32_t events, std::uint64_t key, bool added);
    bool watch_listener();

    // Dead peers and time
    bool check_liveness(Channel *const *channels, std::size_t count);
    void peer_died(int rank, const std::string &why);
    bool receive_from_dead(Peer &peer, Channel &recv);
    void end_with_dead_peer(Channel &channel);
    void idle(Clock::time_point since);
    static void relax(std::uint32_t idle_polls);

    Params params_;
    mca_msg_job_t job_{};
    std::vector<int> node_of_;
    std::vector<int> local_rank_of_;
    std::string nspace_;
    std::vector<Peer> peers_;
    std::vector<int> shm_ranks_;  // peers on the shm path
    std::vector<int> shm_active_; // of them, those with channels: polled on every progress
    std::uint32_t polls_ = 0;
    std::vector<int> local_ranks_; // peers on this node (any path): their pids are watched
    std::unique_ptr<Endpoint> endpoint_;
    shm::Segment segment_;
    std::vector<shm::Segment> peer_segments_;
    std::unordered_map<std::uint64_t, std::uint64_t> folded_tags_; // ofi tags that did not fit
    std::unordered_map<Channel *, std::unique_ptr<Channel>> channels_;
    // Released while started (channel_release): they complete on their own
    // and progress frees them then.
    std::vector<Channel *> released_;
    std::unordered_map<OfiOp *, std::unique_ptr<OfiOp>> zombies_;
    std::unordered_map<std::uint64_t, Channel *> rndv_sends_;
    std::unordered_map<std::uint64_t, Channel *> split_recvs_;
    // Receives started on a rendezvous request that was there already: the
    // copy is made by the next progress, not inside start (a multiple's
    // sends go out first, and the split rule sees them).
    struct PendingPull {
        int rank = 0;
        Channel *recv = nullptr;
        std::unique_ptr<Unexpected> message;
    };
    std::vector<PendingPull> pulls_;
    void run_pulls();
    std::uint64_t next_rndv_id_ = 1;
    std::vector<Channel *> ofi_retry_;
    std::vector<std::unique_ptr<Unexpected>> pool_; // eager buffers for reuse
    std::size_t pooled_bytes_ = 0;                  // their capacity
    std::size_t shm_payload_ = 0;
    std::size_t eager_limit_ = 0;
    bool oversubscribed_ = false;
    bool connected_ = false;
    std::uint64_t completed_ = 0;
    Clock::time_point next_liveness_{};
    std::string ofi_path_ = "ofi";
    // tcp: the listener (and where it listens: our connections go out from
    // that address), the epoll set of every tcp socket, this process's key,
    // the job's id in every proof, the checker of hellos, connections
    // accepted that have not yet proved themselves.
    tcp::Socket tcp_listener_;
    tcp::Address tcp_bound_;
    tcp::Socket tcp_epoll_;
    tcp::Key tcp_key_{};
    std::uint64_t tcp_job_ = 0;
    std::unique_ptr<tcp::HelloChecker> tcp_checker_;
    struct Accepted {
        tcp::Socket socket;
        tcp::Address from;
        tcp::HelloBytes hello{};
        std::size_t got = 0;
        Clock::time_point since{};
    };
    std::unordered_map<int, Accepted> tcp_accepted_;
    std::vector<int> tcp_blocked_; // peers whose socket took not all that waits
    std::vector<int> tcp_retry_;   // peers whose connection is opened again soon
    // Out of descriptors: the listener rests (unwatched) until then, each
    // rest twice the last, up to a second.
    Clock::time_point tcp_listener_rests_until_{};
    bool tcp_listener_resting_ = false;
    int tcp_listener_rest_ms_ = 0;
    // Refused connections: the first few of every 10 s are reported one by
    // one, the rest counted and reported together.
    Clock::time_point refusals_since_{};
    int refusals_reported_ = 0;
    std::uint64_t refusals_held_ = 0;
    std::string last_refusal_;
    // Bytes of early messages held (msg_ofi_unexpected_limit).
    std::size_t unexpected_bytes_ = 0;
};

} // namespace meridian::msg_ofi

#endif
