// SPDX-License-Identifier: BSD-3-Clause
#include "components/msg_sm/msg_sm_segment.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <utility>

namespace meridian::msg_sm
{

namespace
{

constexpr std::uint64_t segment_magic = 0x4d65726964536d32ULL; // "MeridSm2"
constexpr std::size_t rings_offset = 4096;

struct SegmentHeader {
    std::uint64_t magic;
    std::uint32_t rings;
    std::uint32_t slots;
    std::uint32_t slot_bytes;
    std::uint32_t reserved;
    Probe probe; // a word of the owner's memory, for the peers' CMA check
};
static_assert(sizeof(SegmentHeader) <= rings_offset);

std::string why(const std::string &what, const std::string &name, int error)
{
    return "msg sm: " + what + " shared-memory segment " + name + ": " + std::strerror(error);
}

// Closes a descriptor on every path out of create/attach.
struct Fd {
    int fd = -1;
    ~Fd()
    {
        if (fd >= 0) {
            ::close(fd);
        }
    }
};

} // namespace

Segment::Segment(Segment &&other) noexcept
    : name_(std::move(other.name_)), base_(std::exchange(other.base_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)), owner_(std::exchange(other.owner_, false)),
      linked_(std::exchange(other.linked_, false))
{
}

Segment &Segment::operator=(Segment &&other) noexcept
{
    if (this != &other) {
        reset();
        name_ = std::move(other.name_);
        base_ = std::exchange(other.base_, nullptr);
        bytes_ = std::exchange(other.bytes_, 0);
        owner_ = std::exchange(other.owner_, false);
        linked_ = std::exchange(other.linked_, false);
    }
    return *this;
}

Segment::~Segment()
{
    reset();
}

void Segment::reset()
{
    unlink();
    if (base_ != nullptr) {
        ::munmap(base_, bytes_);
        base_ = nullptr;
    }
}

void Segment::unlink()
{
    if (owner_ && linked_) {
        ::shm_unlink(name_.c_str());
        linked_ = false;
    }
}

Result<Segment> Segment::create(const std::string &name, std::uint32_t rings, std::uint32_t slots,
                                std::uint32_t slot_bytes)
{
    const std::size_t bytes =
        rings_offset + std::size_t{rings} * std::size_t{slots} * Ring::stride(slot_bytes);
    Fd fd;
    fd.fd = ::shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd.fd < 0 && errno == EEXIST) {
        // Not this process's (its names are new every time): another
        // process's, perhaps alive, so it is left alone.
        return make_error(MERIDIAN_ERR_OUT_OF_RESOURCE,
                          why("cannot create the", name, EEXIST) +
                              " (another process made it; it is left as it is)");
    }
    if (fd.fd < 0) {
        return make_error(MERIDIAN_ERR_OUT_OF_RESOURCE, why("cannot create the", name, errno));
    }
    Segment segment;
    segment.name_ = name;
    segment.owner_ = true;
    segment.linked_ = true;
    if (::ftruncate(fd.fd, static_cast<off_t>(bytes)) != 0) {
        return make_error(MERIDIAN_ERR_OUT_OF_RESOURCE, why("cannot size the", name, errno));
    }
    if (const int rc = ::posix_fallocate(fd.fd, 0, static_cast<off_t>(bytes)); rc != 0) {
        return make_error(
            MERIDIAN_ERR_OUT_OF_RESOURCE,
            why("cannot reserve " + std::to_string(bytes) + " bytes for the", name, rc));
    }
    void *base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd.fd, 0);
    if (base == MAP_FAILED) {
        return make_error(MERIDIAN_ERR_OUT_OF_RESOURCE, why("cannot map the", name, errno));
    }
    segment.base_ = static_cast<std::byte *>(base);
    segment.bytes_ = bytes;
    auto *header = reinterpret_cast<SegmentHeader *>(segment.base_);
    header->rings = rings;
    header->slots = slots;
    header->slot_bytes = slot_bytes;
    // Last: a peer that sees the magic sees the rest (it maps only after
    // the exchange that follows, anyway).
    std::atomic_ref<std::uint64_t>(header->magic).store(segment_magic, std::memory_order_release);
    return segment;
}

Result<Segment> Segment::attach(const std::string &name)
{
    Fd fd;
    fd.fd = ::shm_open(name.c_str(), O_RDWR, 0);
    if (fd.fd < 0) {
        return make_error(MERIDIAN_ERR_UNREACH, why("cannot open the", name, errno));
    }
    struct stat st {
    };
    if (::fstat(fd.fd, &st) != 0) {
        return make_error(MERIDIAN_ERR_UNREACH, why("cannot inspect the", name, errno));
    }
    const auto bytes = static_cast<std::size_t>(st.st_size);
    if (bytes < rings_offset) {
        return make_error(MERIDIAN_ERR_UNREACH, "msg sm: shared-memory segment " + name +
                                                    " is too small (" + std::to_string(bytes) +
                                                    " bytes)");
    }
    void *base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd.fd, 0);
    if (base == MAP_FAILED) {
        return make_error(MERIDIAN_ERR_UNREACH, why("cannot map the", name, errno));
    }
    Segment segment;
    segment.name_ = name;
    segment.base_ = static_cast<std::byte *>(base);
    segment.bytes_ = bytes;
    const auto *header = reinterpret_cast<const SegmentHeader *>(segment.base_);
    const std::size_t expected = rings_offset + std::size_t{header->rings} * header->slots *
                                                    Ring::stride(header->slot_bytes);
    if (header->magic != segment_magic || expected != bytes) {
        return make_error(MERIDIAN_ERR_UNREACH, "msg sm: shared-memory segment " + name +
                                                    " is not a Meridian ring segment");
    }
    return segment;
}

void Segment::set_probe(const Probe &probe)
{
    reinterpret_cast<SegmentHeader *>(base_)->probe = probe;
}

Probe Segment::probe() const
{
    return reinterpret_cast<const SegmentHeader *>(base_)->probe;
}

std::uint32_t Segment::rings() const
{
    return reinterpret_cast<const SegmentHeader *>(base_)->rings;
}

Ring Segment::ring(std::uint32_t index) const
{
    const auto *header = reinterpret_cast<const SegmentHeader *>(base_);
    const std::size_t ring_bytes = std::size_t{header->slots} * Ring::stride(header->slot_bytes);
    return Ring(base_ + rings_offset + index * ring_bytes, header->slots, header->slot_bytes);
}

std::string segment_name(pid_t pid, std::uint64_t generation, std::uint64_t random)
{
    char text[96]; // at most 10 + 20 + 1 + 20 + 1 + 16 characters
    std::snprintf(text, sizeof text, "/meridian-%ld-%" PRIu64 "-%016" PRIx64,
                  static_cast<long>(pid), generation, random);
    return text;
}

std::string segment_name()
{
    // Counts the names this process made (also across re-inits, while the
    // component stays loaded); the random bits keep names apart where the
    // count starts again (the component reloaded) or pids repeat (another
    // pid namespace sharing /dev/shm).
    static std::atomic<std::uint64_t> generation{0};
    std::uint64_t random = 0;
    if (::getrandom(&random, sizeof random, 0) != static_cast<ssize_t>(sizeof random)) {
        // No getrandom (or interrupted): the clock; a clash is refused by
        // create, never taken over.
        random =
            static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    }
    return segment_name(::getpid(), ++generation, random);
}

} // namespace meridian::msg_sm
