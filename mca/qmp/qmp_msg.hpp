// SPDX-License-Identifier: BSD-3-Clause
// What the QMP layer's messaging files share (libqmp): message memory as
// runs of bytes, message handles, the transport tag, the collective
// schedules, and the serialisation of transport calls at
// QMP_THREAD_MULTIPLE.
//
//   qmp_mem.cc            builds the runs (BlockList) once, at declare time
//   qmp_channel.cc        handles over the transport's persistent channels
//   qmp_channel_start.cc  start / wait / is_complete (the hot path)
//   qmp_coll_schedule.cc  the collectives' schedules (make_schedule)
//   qmp_coll.cc           runs them (qmp_coll.hpp), qmp_coll_api.cc the calls
//   qmp_error.cc          per-handle errors (QMP_get_error_number(handle))
//   qmp_output.cc         the time QMP_get_total_qmp_time adds up
//
// The pure parts (BlockList and the layouts, the tags, the schedules) need
// no running job and are unit-tested in test/qmp_msg_unit.
#ifndef MERIDIAN_MCA_MSG_BASE_QMP_MSG_HPP
#define MERIDIAN_MCA_MSG_BASE_QMP_MSG_HPP

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "mca/qmp/qmp.h"
#include "mca/qmp/qmp_internal.hpp"
#include <meridian/mca/msg/base/base.h>
#include <meridian/mca/msg/msg.h>
#include <meridian/opal/util/result.hpp>

namespace meridian::qmp
{

// ---------------------------------------------------------------- memory

// One run of a message's bytes, at `offset` from the message memory's base.
struct Block {
    std::ptrdiff_t offset = 0;
    std::size_t length = 0;
    bool operator==(const Block &) const = default;
};

// A message's runs in message order.  A run that starts where the previous
// one ends joins it and empty runs are dropped, so a layout that is really
// contiguous is one run (as QMP treats a stride equal to the block size).
class BlockList
{
  public:
    // False (and nothing added) when the total would overflow.
    bool add(std::ptrdiff_t offset, std::size_t length);
    const std::vector<Block> &blocks() const { return blocks_; }
    std::size_t nbytes() const { return nbytes_; }

  private:
    std::vector<Block> blocks_;
    std::size_t nbytes_ = 0;
};

// The layouts of QMP's message memory, as MPI's datatypes define them
// (QMP 2.5 builds them with MPI_Type_vector / _create_struct / _indexed).
// Errors carry a QMP status (QMP_INVALID_ARG, QMP_MEMSIZE_TOOBIG) and say
// what was wrong, without the call's name.
//   strided: nblocks runs of blksize bytes, run i at i * stride (negative,
//            or smaller than blksize, as MPI_Type_vector allows);
//   strided array: each array's strided runs, at base[i] - base[0];
//   indexed: count runs of blocklen[i] elements at index[i] elements.
Result<BlockList> contiguous_layout(std::size_t nbytes);
Result<BlockList> strided_layout(std::size_t blksize, int nblocks, std::ptrdiff_t stride);
Result<BlockList> strided_array_layout(std::span<void *const> base,
                                       std::span<const std::size_t> blksize,
                                       std::span<const int> nblocks,
                                       std::span<const std::ptrdiff_t> stride);
Result<BlockList> indexed_layout(std::span<const int> blocklen, std::span<const int> index,
                                 int elemsize);

// The iovec list of `blocks` at `base` (into `out`, reusing its storage).
void to_iovec(const std::vector<Block> &blocks, const void *base, std::vector<iovec> &out);

// ---------------------------------------------------------------- tags

// The 64-bit transport tag: the communicator's context in the upper half
// (traffic of two communicators never matches), the kind of traffic in the
// lower: QMP's channel tags, or one of the collectives' own.
inline constexpr std::uint32_t kTagChannel = 11; // QMP_comm_mpi's TAG_CHANNEL
inline constexpr std::uint32_t kTagCollective = 0x80000000u;

// QMP's rule: send_to / receive_from use TAG_CHANNEL; a relative send uses
// TAG_CHANNEL - 1 going + and + 1 going -, a relative receive the reverse,
// so that with two nodes along an axis the + and - messages between them
// still pair up.  axis < 0: not relative.
constexpr std::uint64_t channel_tag(std::uint32_t context, mca_msg_direction_t direction, int axis,
                                    int dir)
{
    std::uint32_t tag = kTagChannel;
    if (axis >= 0) {
        const bool up = dir > 0;
        tag = (up == (direction == MCA_MSG_RECV)) ? tag + 1 : tag - 1;
    }
    return (std::uint64_t{context} << 32) | tag;
}

enum class CollectiveTraffic : std::uint32_t {
    small = 0,    // the persistent channels of a size class
    large = 1,    // channels made for one call (payloads above the classes)
    alltoall = 2, // QMP_comm_alltoall's channels
};
constexpr std::uint64_t collective_tag(std::uint32_t context, CollectiveTraffic traffic,
                                       unsigned size_class)
{
    return (std::uint64_t{context} << 32) | kTagCollective |
           (static_cast<std::uint32_t>(traffic) << 8) | size_class;
}

// ---------------------------------------------------------------- schedules

// Collective payloads up to kSmallMax bytes go through persistent channels,
// one per size class: class c moves exactly 8 << c bytes (a channel's size
// is fixed, and both ends pick the same class for the same call).
inline constexpr unsigned kSizeClasses = 12;
inline constexpr std::size_t kSmallMax = std::size_t{8} << (kSizeClasses - 1); // 16 KiB
unsigned size_class(std::size_t nbytes); // nbytes <= kSmallMax
inline constexpr std::size_t class_bytes(unsigned size_class)
{
    return std::size_t{8} << size_class;
}

// What a round does with the message it received, into the running value
// ("acc"): combine in the order op(lower ranks' part, higher ranks' part),
// where "mine" is acc and "theirs" the received, or replace acc.
enum class Post : std::uint8_t { none, mine_lower, mine_higher, store };

// One round of a collective: start the receive (if any), then the sends of
// acc, wait for all of them, then apply `post` to what was received.
// Peers are communicator ranks in make_schedule's result.
struct Round {
    int recv = -1;
    Post post = Post::none;
    std::vector<int> sends;
    bool operator==(const Round &) const = default;
};

struct Schedule {
    std::vector<Round> allreduce; // every member ends with the same bits
    std::vector<Round> broadcast; // from communicator rank 0
};

// The schedules of member `me` of a communicator whose member r runs on
// node node_of[r].  They follow the machine: within a node first (a
// binomial reduction to the node's lowest rank), then among those leaders
// (recursive doubling; beyond a power of two, neighbours pair up first and
// the odd one is served last), then back within the node (a binomial
// broadcast); a communicator on one node does recursive doubling directly
// (two processes: one exchange).  Both partners of an exchange combine
// op(lower ranks' part, higher ranks' part) with the same operands, so
// results are bit-identical everywhere: the values combined in rank order
// within a node, nodes in the order of their lowest rank.
Schedule make_schedule(std::span<const int> node_of, int me);

// ---------------------------------------------------------------- transport calls

// The lock around transport calls at QMP_THREAD_MULTIPLE, else nullptr.
std::recursive_mutex *transport_lock();

class TransportGuard
{
  public:
    explicit TransportGuard(std::recursive_mutex *lock) : lock_(lock)
    {
        if (lock_ != nullptr) {
            lock_->lock();
        }
    }
    ~TransportGuard()
    {
        if (lock_ != nullptr) {
            lock_->unlock();
        }
    }
    TransportGuard(const TransportGuard &) = delete;
    TransportGuard &operator=(const TransportGuard &) = delete;

  private:
    std::recursive_mutex *lock_;
};

// The transport's wait (timeout_ms < 0: its own limit).  With a lock
// (QMP_THREAD_MULTIPLE) the lock is held only for each short poll, so other
// threads can start the transfers this one waits for.  Call without
// holding the lock.
int wait_channels_polling(mca_msg_base_module_t *transport, std::recursive_mutex &lock,
                          mca_msg_channel_t *const *channels, std::size_t count, int timeout_ms);
inline int wait_channels(mca_msg_base_module_t *transport, std::recursive_mutex *lock,
                         mca_msg_channel_t *const *channels, std::size_t count, int timeout_ms)
{
    if (lock == nullptr) [[likely]] {
        return transport->wait(transport, channels, count, timeout_ms);
    }
    return wait_channels_polling(transport, *lock, channels, count, timeout_ms);
}

// The session a handle or a communicator's collectives belong to: their
// channels are the transport's only while QMP is initialised in that
// session (a handle freed after QMP_finalize frees nothing more).
// QMP_start and QMP_wait check a handle with one comparison (live_session:
// qmp_internal.hpp).
inline bool session_alive(double session)
{
    return session == live_session;
}
double current_session();

// ---------------------------------------------------------------- errors, timing

// A stable copy of a message (for const char * results that outlive the
// call): equal texts share one copy.
const char *intern(const std::string &text);

// QMP_get_total_qmp_time's clock: blocking calls add their time while
// QMP_profcontrol's level is above 0.
void add_qmp_time(double seconds);
[[gnu::visibility("hidden")]] extern int profile_level; // QMP_profcontrol's; libqmp's own
class ProfileScope
{
  public:
    ProfileScope()
    {
        if (profile_level > 0) [[unlikely]] {
            start_ = QMP_time();
        }
    }
    ~ProfileScope()
    {
        if (start_ >= 0.0) [[unlikely]] {
            add_qmp_time(QMP_time() - start_);
        }
    }
    ProfileScope(const ProfileScope &) = delete;
    ProfileScope &operator=(const ProfileScope &) = delete;

  private:
    double start_ = -1.0;
};

} // namespace meridian::qmp

// ---------------------------------------------------------------- the C handles

struct QMP_msgmem_struct {
    const char *base = nullptr; // what QMP_change_address replaces
    meridian::qmp::BlockList layout;
};

// A send or receive on one persistent transport channel, or a multiple
// (declare_multiple / send_recv_pairs) that owns its members.
struct QMP_msghandle_struct {
    enum class Kind : std::uint8_t { send, receive, multiple };

    QMP_msghandle_struct() = default;
    ~QMP_msghandle_struct(); // frees the channel while its session lives
    QMP_msghandle_struct(const QMP_msghandle_struct &) = delete;
    QMP_msghandle_struct &operator=(const QMP_msghandle_struct &) = delete;

    Kind kind = Kind::send;
    // Transfers started and not yet completed: 0 or 1 for a send or
    // receive, the started members for a multiple.
    std::size_t active = 0;
    QMP_msghandle_struct *parent = nullptr; // the multiple this belongs to
    QMP_clear_to_send_t clear_to_send = QMP_CTS_NOT_READY;
    QMP_status_t error = QMP_SUCCESS;
    const char *error_message = nullptr; // interned; nullptr: QMP_error_string(error)
    mca_msg_base_module_t *transport = nullptr;
    std::recursive_mutex *lock = nullptr; // transport_lock() at declare time
    // A send or receive of its own (no multiple's member) without a lock:
    // QMP_start and QMP_wait take their short path.
    bool fast = false;
    double session = 0.0;

    // send / receive
    QMP_comm_t comm = nullptr;
    int peer = -1;     // communicator rank
    int job_peer = -1; // job rank
    int axis = -1;     // relative: the axis and direction; else -1, 0
    int dir = 0;
    std::uint64_t tag = 0;
    const char *base = nullptr;
    std::vector<meridian::qmp::Block> blocks;
    std::size_t nbytes = 0;
    std::vector<iovec> iov; // scratch for readdressing
    mca_msg_channel_t *channel = nullptr;

    // multiple
    bool paired = false;
    std::vector<std::unique_ptr<QMP_msghandle_struct>> members;
    std::vector<mca_msg_channel_t *> channels; // members' channels, in order
    std::vector<mca_msg_channel_t *> started;  // scratch (capacity: all members)
};

namespace meridian::qmp
{
// Record an error on a handle (and as the last error); returns status.
QMP_status_t set_handle_error(QMP_msghandle_t handle, QMP_status_t status,
                              const std::string &message);
// A usable handle: not NULL, and declared in this QMP session (else the
// error, recorded, by check_handle_failed).
QMP_status_t check_handle_failed(const char *call, QMP_msghandle_t h);
inline QMP_status_t check_handle(const char *call, QMP_msghandle_t h)
{
    if (h != nullptr && session_alive(h->session)) [[likely]] {
        return QMP_SUCCESS;
    }
    return check_handle_failed(call, h);
}
// For messages: "send to node 1 (axis 0, +1)"; a multiple's members listed.
std::string transfer_text(const QMP_msghandle_struct &h);
std::string handle_text(const QMP_msghandle_struct &h);
} // namespace meridian::qmp

#endif
