// SPDX-License-Identifier: BSD-3-Clause
// The tcp transport: Meridian's own sockets, one connection per pair of
// processes, opened by the first of the two to send and proved by the
// job's keys before it carries anything (msg_tcp_auth.hpp).  Messages go
// up to the base's matching as they come off the stream.  One instance per
// process; the QMP layer serialises calls.
#ifndef MERIDIAN_MSG_TCP_TRANSPORT_HPP
#define MERIDIAN_MSG_TCP_TRANSPORT_HPP

#include <sys/uio.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "components/msg_tcp/msg_tcp_auth.hpp"
#include "components/msg_tcp/msg_tcp_socket.hpp"
#include "mca/msg/base/msg_iov.hpp"
#include <meridian/mca/msg/msg.h>

namespace meridian::msg_tcp
{

using msg::IovCursor;

struct Params {
    std::vector<std::string> if_include; // msg_tcp_if_include
    int handshake_timeout_ms = 10000;    // an accepted connection's time to prove itself
    std::size_t pending_max = 64;        // accepted connections not yet proved, at most
    int linger_ms = 10000;               // finalize's wait for the peers' ends
};

// A connection: none; our connect under way; our hello sent, the peer's
// answer awaited; carrying messages.
enum class State : std::uint8_t { none, connecting, greeted, ready };

// A send on its way into the connection.
struct OutMessage {
    mca_msg_channel_t *channel = nullptr; // nullptr: freed while half written (zeros follow)
    bool started = false;                 // its first byte went
    std::size_t total = 0;
    std::size_t sent = 0;
    IovCursor cursor;
    Header header{};             // what goes before the bytes,
    std::size_t header_sent = 0; // and how much of it went
};

struct Peer {
    bool mine = false; // the base gave it to this transport
    // The one connection with it, both ways (opened by the first of the two
    // to send; outq holds what waits for it), the bytes read and not yet
    // taken, and the gathered copy of finely strided blocks being sent.
    Address address;
    Key key{}; // its key (the modex): proves its hellos and answers
    Socket socket;
    State state = State::none;
    bool writable_wanted = false;
    bool closed = false;  // the connection ended
    bool awaited = false; // ours was refused: the peer's comes
    // Our hello on the connection we are opening, and its answer so far.
    Hello hello{};
    AnswerBytes answer{};
    std::size_t answer_got = 0;
    // Connections we opened that it closed before answering, and when the
    // next attempt goes.
    int attempts = 0;
    std::chrono::steady_clock::time_point retry_at{};
    // A message that arrived before its receive, past msg_base_unexpected_limit:
    // it stays in the connection (nothing more is read) until its receive starts.
    bool parked = false;
    Header parked_header{};
    std::deque<OutMessage> outq;
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

    int init(const mca_msg_job_t &job, const unsigned char *peers);
    int connect();
    void finalize();

    void send(mca_msg_channel_t &channel);
    void posted(mca_msg_channel_t &recv);
    void cancel(mca_msg_channel_t &channel);
    int progress();
    const char *path_name() const { return "tcp"; }

  private:
    using Clock = std::chrono::steady_clock;

    Peer &peer(int rank) { return peers_[static_cast<std::size_t>(rank)]; }
    void finish(mca_msg_channel_t &channel, int status)
    {
        meridian_mca_msg_base_complete(&channel, status);
    }

    // Messages (msg_tcp_transport.cc)
    bool flush(int rank, Peer &peer);
    std::size_t fill_pieces(Peer &peer, OutMessage &message, iovec *pieces, std::size_t count);
    void account_sent(Peer &peer, OutMessage &message, std::size_t sent);
    void on_socket(int rank, Peer &peer, std::uint32_t events);
    void read(int rank, Peer &peer);
    bool read_direct(int rank, Peer &peer);
    void take_read(int rank, Peer &peer);
    void unpark(int rank, Peer &peer);
    void connection_ended(int rank, const std::string &why);
    bool linger();
    // Connections (msg_tcp_connect.cc)
    void open_connection(int rank, Peer &peer);
    void connect_again(int rank, Peer &peer, const std::string &why);
    void retry_connections();
    void connection_ready(int rank, Peer &peer);
    void want_writable(int rank, Peer &peer, bool wanted);
    void on_connected(int rank, Peer &peer, std::uint32_t events);
    void accept();
    bool make_room_for_accept();
    void rest_listener();
    void wake_listener();
    void greet(int fd);
    void admit(int fd, const Hello &hello);
    void answer(int rank, Peer &peer);
    void expire_unproved();
    void refuse(const Address &from, const std::string &why);
    void report_refusals();
    std::uint32_t events_for(const Peer &peer) const;
    void watch(int fd, std::uint32_t events, std::uint64_t key, bool added);
    bool watch_listener();

    Params params_;
    mca_msg_job_t job_{};
    std::string node_name_; // this process's, for messages
    std::vector<Peer> peers_;
    std::vector<int> ranks_; // its peers
    // The listener (and where it listens: our connections go out from that
    // address), the epoll set of every socket, this process's key, the
    // job's id in every proof, the checker of hellos, connections accepted
    // that have not yet proved themselves.
    Socket listener_;
    Address bound_;
    Socket epoll_;
    Key key_{};
    std::uint64_t job_id_ = 0;
    std::unique_ptr<HelloChecker> checker_;
    struct Accepted {
        Socket socket;
        Address from;
        HelloBytes hello{};
        std::size_t got = 0;
        Clock::time_point since{};
    };
    std::unordered_map<int, Accepted> accepted_;
    std::vector<int> blocked_; // peers whose socket took not all that waits
    std::vector<int> retry_;   // peers whose connection is opened again soon
    // Out of descriptors: the listener rests (unwatched) until then, each
    // rest twice the last, up to a second.
    Clock::time_point listener_rests_until_{};
    bool listener_resting_ = false;
    int listener_rest_ms_ = 0;
    // Refused connections: the first few of every 10 s are reported one by
    // one, the rest counted and reported together.
    Clock::time_point refusals_since_{};
    int refusals_reported_ = 0;
    std::uint64_t refusals_held_ = 0;
    std::string last_refusal_;
};

} // namespace meridian::msg_tcp

#endif
