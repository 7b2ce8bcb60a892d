// SPDX-License-Identifier: BSD-3-Clause
// Meridian's shared-memory path between processes of one node: every process
// owns one inbound POSIX shm segment holding one single-producer /
// single-consumer ring per process of its node (the ring of local rank r is
// written only by r).  A ring is a power-of-two array of fixed-size slots;
// each slot starts with a 32-byte header (its sequence word, the message's
// tag and sizes) and carries payload in the rest, so an 8-byte message is
// one cache line.
//
// Handshake (no shared head or tail: each side counts its own position):
// the slot at position p belongs to lap L = p / slots; it is free for the
// producer when seq == 2L and full for the consumer when seq == 2L + 1; the
// consumer frees it by storing 2L + 2.  A fresh (zero-filled) segment is
// therefore ready without initialisation.
#ifndef MERIDIAN_MSG_SM_SEGMENT_HPP
#define MERIDIAN_MSG_SM_SEGMENT_HPP

#include <sys/types.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include <meridian/opal/util/result.hpp>

namespace meridian::msg_sm
{

// What a slot carries.
enum class Kind : std::uint32_t {
    first = 1, // a message's first (often only) fragment: tag, total, payload
    more = 2,  // the next fragment of the message in progress on this ring
    rndv = 3,  // a large message to pull with CMA: RndvBody + sender's iovecs
    fin = 4,   // the receiver pulled (its part of) a rendezvous message: FinBody
    cts = 5,   // the receiver asks the sender to write the message's tail: CtsBody + iovecs
    done = 6,  // the sender wrote the tail: DoneBody
    data = 7,  // the first fragment of a rendezvous message sent through the ring after all
               // (CtsBody::through_ring): tag is the receiver's recv_id; more fragments follow
};

struct SlotHeader {
    std::atomic<std::uint64_t> seq;
    std::uint64_t tag;
    std::uint64_t total;  // the whole message's bytes (first, rndv)
    std::uint32_t length; // payload bytes in this slot
    std::uint32_t kind;   // Kind
};
inline constexpr std::size_t header_bytes = 32;
static_assert(sizeof(SlotHeader) == header_bytes);
static_assert(std::atomic<std::uint64_t>::is_always_lock_free);

// A rendezvous request's payload: the sender's iovec list lives in the
// sender's memory at iov_address; up to what fits here it is copied inline.
struct RndvBody {
    std::uint64_t send_id; // the sender's handle, echoed in the FIN
    std::uint64_t iov_address;
    std::uint64_t iovcnt;       // blocks of the sender's message
    std::uint64_t inline_count; // of them copied after this struct
    std::uint64_t flags;        // rndv_may_split: the sender can write into the receiver
};
inline constexpr std::uint64_t rndv_may_split = 1; // the sender can write into the receiver
struct FinBody {
    std::uint64_t send_id;
    std::int64_t status; // MERIDIAN_* of the pull
};
// Split copy: the receiver pulls bytes [0, split) while the sender writes
// [split, total) into the receiver's blocks.  With through_ring (the
// receiver's blocks are too fine for CMA), the sender sends the message
// through the ring instead, as Kind::data fragments addressed to recv_id.
struct CtsBody {
    std::uint64_t send_id;
    std::uint64_t recv_id; // the receiver's handle, echoed in the DONE
    std::uint64_t split;
    std::uint64_t iov_address; // the receiver's block list
    std::uint64_t iovcnt;
    std::uint64_t inline_count;
    std::uint64_t through_ring;
};
struct DoneBody {
    std::uint64_t recv_id;
    std::int64_t status; // MERIDIAN_* of the write
};

// One ring seen from one side (producer or consumer).
class Ring
{
  public:
    Ring() = default;
    Ring(std::byte *base, std::uint32_t slots, std::uint32_t slot_bytes)
        : base_(base), mask_(slots - 1), slot_bytes_(slot_bytes), stride_(stride(slot_bytes)),
          shift_(log2(slots))
    {
    }
    bool valid() const { return base_ != nullptr; }
    std::size_t capacity() const { return slot_bytes_ - header_bytes; }

    // Producer: the slot to fill next, or nullptr while it is still full.
    SlotHeader *claim()
    {
        SlotHeader *slot = at(pos_);
        return slot->seq.load(std::memory_order_acquire) == 2 * (pos_ >> shift_) ? slot : nullptr;
    }
    void publish(SlotHeader *slot)
    {
        const std::size_t lines = (header_bytes + slot->length + 63) / 64;
        slot->seq.store(2 * (pos_ >> shift_) + 1, std::memory_order_release);
        ++pos_;
        // Messages tend to repeat their size: take the lines after the first
        // that this one used in the next slot for writing now, off the next
        // send's critical path (up to 8; not the first line: the consumer
        // polls it).
        const char *next = reinterpret_cast<const char *>(at(pos_));
        for (std::size_t line = 1; line < std::min<std::size_t>(lines, 9); ++line) {
            prefetch_for_write(next + 64 * line);
        }
    }
    // Consumer: the next full slot, or nullptr.
    SlotHeader *peek()
    {
        SlotHeader *slot = at(pos_);
        return slot->seq.load(std::memory_order_acquire) == 2 * (pos_ >> shift_) + 1 ? slot
                                                                                     : nullptr;
    }
    void release(SlotHeader *slot)
    {
        slot->seq.store(2 * (pos_ >> shift_) + 2, std::memory_order_release);
        ++pos_;
    }
    // Slots a multiple of 4 KiB apart would put every slot header in one
    // L1 cache set: such slots are spaced one cache line further.
    static constexpr std::size_t stride(std::size_t slot_bytes)
    {
        return slot_bytes % 4096 == 0 ? slot_bytes + 64 : slot_bytes;
    }
    static std::byte *payload(SlotHeader *slot)
    {
        return reinterpret_cast<std::byte *>(slot) + header_bytes;
    }

  private:
    static void prefetch_for_write(const char *line)
    {
#if defined(__x86_64__)
        // PREFETCHW (a NOP on x86 cores without it): the line arrives
        // exclusive, so the write needs no second round with the consumer.
        asm volatile("prefetchw %0" : : "m"(*line));
#else
        __builtin_prefetch(line, 1);
#endif
    }
    static std::uint32_t log2(std::uint32_t n)
    {
        std::uint32_t s = 0;
        while ((1U << s) < n) {
            ++s;
        }
        return s;
    }
    SlotHeader *at(std::uint64_t pos) const
    {
        return reinterpret_cast<SlotHeader *>(base_ + (pos & mask_) * stride_);
    }

    std::byte *base_ = nullptr;
    std::uint64_t pos_ = 0;
    std::uint64_t mask_ = 0;
    std::uint64_t slot_bytes_ = 0;
    std::uint64_t stride_ = 0;
    std::uint32_t shift_ = 0;
};

// Where a peer may read a word of the segment owner's memory, and what it
// holds: a peer that reads the value there with process_vm_readv may use
// CMA with the owner.  It travels in the owner's segment, which only the
// processes of its node that map it see, not through the modex.
struct Probe {
    std::uint64_t address;
    std::uint64_t value;
};

// A mapped segment: created (and owned: unlinked on destruction unless done
// before) or attached to a peer's.  Only a segment this process created is
// ever unlinked.
class Segment
{
  public:
    Segment() = default;
    Segment(Segment &&other) noexcept;
    Segment &operator=(Segment &&other) noexcept;
    Segment(const Segment &) = delete;
    Segment &operator=(const Segment &) = delete;
    ~Segment();

    // rings rings of `slots` slots (a power of two) of slot_bytes bytes (a
    // multiple of 64).  The memory is reserved now (posix_fallocate), so a
    // full /dev/shm is an error here, not a SIGBUS later.  A name that
    // exists already is an error (MERIDIAN_ERR_OUT_OF_RESOURCE); that
    // segment is left as it is.
    static Result<Segment> create(const std::string &name, std::uint32_t rings, std::uint32_t slots,
                                  std::uint32_t slot_bytes);
    static Result<Segment> attach(const std::string &name);

    Ring ring(std::uint32_t index) const;
    std::uint32_t rings() const;
    // The owner sets its probe before its peers attach (before the exchange
    // that publishes the name); they read it after.
    void set_probe(const Probe &probe);
    Probe probe() const;
    // Remove the name (mappings stay valid); idempotent.
    void unlink();
    const std::string &name() const { return name_; }
    std::size_t bytes() const { return bytes_; }

  private:
    void reset();

    std::string name_;
    std::byte *base_ = nullptr;
    std::size_t bytes_ = 0;
    bool owner_ = false;
    bool linked_ = false;
};

// A name for a new segment that no other job, process or init produces:
// "/meridian-<pid>-<generation>-<random>" -- this process's pid, how many
// names it made so far, and 64 random bits (getrandom) in hex: some 40
// characters, far below NAME_MAX.  Peers learn it through the modex.  create never opens or
// removes an existing segment, so a clash fails instead of taking over
// another process's memory.
std::string segment_name();
// The same from given parts.
std::string segment_name(pid_t pid, std::uint64_t generation, std::uint64_t random);

} // namespace meridian::msg_sm

#endif
