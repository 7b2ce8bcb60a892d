// SPDX-License-Identifier: BSD-3-Clause
// Walking a message's blocks (an iovec list) as one byte stream: the
// gather/scatter copies that move data straight between a channel's memory
// and a slot, a socket's buffer or another channel, with no intermediate
// buffer.  Header-only: the base and the transports share it (libmeridian
// exports no C++).
#ifndef MERIDIAN_MCA_MSG_BASE_MSG_IOV_HPP
#define MERIDIAN_MCA_MSG_BASE_MSG_IOV_HPP

#include <sys/uio.h>

#include <cstddef>
#include <cstring>
#include <span>

namespace meridian::msg
{

// memcpy for the short blocks of strided data (a lattice site: 72 bytes):
// inline moves of fixed width, the last one overlapping, instead of a call
// per block (the call and its size dispatch cost more than the copy).
inline void copy_block(std::byte *dst, const std::byte *src, std::size_t n)
{
    if (n > 128) {
        std::memcpy(dst, src, n);
        return;
    }
    if (n >= 32) {
        for (std::size_t i = 0; i + 32 < n; i += 32) {
            std::memcpy(dst + i, src + i, 32);
        }
        std::memcpy(dst + n - 32, src + n - 32, 32);
    } else if (n >= 16) {
        std::memcpy(dst, src, 16);
        std::memcpy(dst + n - 16, src + n - 16, 16);
    } else if (n >= 8) {
        std::memcpy(dst, src, 8);
        std::memcpy(dst + n - 8, src + n - 8, 8);
    } else if (n >= 4) {
        std::memcpy(dst, src, 4);
        std::memcpy(dst + n - 4, src + n - 4, 4);
    } else {
        for (std::size_t i = 0; i < n; ++i) {
            dst[i] = src[i];
        }
    }
}

class IovCursor
{
  public:
    IovCursor() = default;
    explicit IovCursor(std::span<const iovec> iov) : iov_(iov) {}

    // Copy n bytes from src into the blocks at the cursor and move on.
    void scatter(const std::byte *src, std::size_t n)
    {
        while (n > 0) {
            const iovec &block = iov_[index_];
            const std::size_t take = std::min(n, block.iov_len - offset_);
            copy_block(static_cast<std::byte *>(block.iov_base) + offset_, src, take);
            src += take;
            n -= take;
            step(take);
        }
    }
    // Copy n bytes from the blocks at the cursor into dst and move on.
    void gather(std::byte *dst, std::size_t n)
    {
        while (n > 0) {
            const iovec &block = iov_[index_];
            const std::size_t take = std::min(n, block.iov_len - offset_);
            copy_block(dst, static_cast<const std::byte *>(block.iov_base) + offset_, take);
            dst += take;
            n -= take;
            step(take);
        }
    }
    // The contiguous piece at the cursor, at most max bytes (not consumed).
    iovec piece(std::size_t max)
    {
        while (index_ < iov_.size() && iov_[index_].iov_len == offset_) {
            ++index_;
            offset_ = 0;
        }
        if (index_ >= iov_.size()) {
            return {nullptr, 0};
        }
        const iovec &block = iov_[index_];
        return {static_cast<std::byte *>(block.iov_base) + offset_,
                std::min(max, block.iov_len - offset_)};
    }
    void advance(std::size_t n)
    {
        while (n > 0) {
            const std::size_t take = std::min(n, iov_[index_].iov_len - offset_);
            n -= take;
            step(take);
        }
    }

  private:
    void step(std::size_t taken)
    {
        offset_ += taken;
        if (offset_ == iov_[index_].iov_len) {
            ++index_;
            offset_ = 0;
        }
    }

    std::span<const iovec> iov_;
    std::size_t index_ = 0;
    std::size_t offset_ = 0;
};

// Copy n bytes from one block list to another (both at least n long).
inline void copy_iov(std::span<const iovec> to, std::span<const iovec> from, std::size_t n)
{
    if (to.size() == 1 && from.size() == 1) {
        if (n > 0) {
            std::memcpy(to[0].iov_base, from[0].iov_base, n);
        }
        return;
    }
    IovCursor src(from);
    IovCursor dst(to);
    while (n > 0) {
        const iovec in = src.piece(n);
        const iovec out = dst.piece(in.iov_len);
        std::memcpy(out.iov_base, in.iov_base, out.iov_len);
        src.advance(out.iov_len);
        dst.advance(out.iov_len);
        n -= out.iov_len;
    }
}

} // namespace meridian::msg

#endif
