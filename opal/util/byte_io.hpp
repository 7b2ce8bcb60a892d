// SPDX-License-Identifier: BSD-3-Clause
// Bytes on a wire or in a store: unsigned numbers least significant byte
// first, strings after their 4-byte length, and a reader whose every read is
// checked against what is left, so that short or lying bytes end in a
// refusal, never in a read past the end or an allocation they did not pay
// for.  Used by the coordinates relay's wire and a value's bytes
// (datastore::encode / decode).
#ifndef MERIDIAN_UTIL_BYTE_IO_HPP
#define MERIDIAN_UTIL_BYTE_IO_HPP

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace meridian::util
{

// `value` in `size` bytes (at most 8), least significant first.
inline void put_le(std::vector<std::uint8_t> &out, std::uint64_t value, int size)
{
    for (int i = 0; i < size; ++i) {
        out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
    }
}

inline void put32(std::vector<std::uint8_t> &out, std::uint32_t value)
{
    put_le(out, value, 4);
}

// The caller keeps `text` under 2^32 bytes.
inline void put_string(std::vector<std::uint8_t> &out, std::string_view text)
{
    put32(out, static_cast<std::uint32_t>(text.size()));
    out.insert(out.end(), text.begin(), text.end());
}

// `size` bytes at `at` (at most 8), least significant first.
inline std::uint64_t get_le(const std::uint8_t *at, std::size_t size)
{
    std::uint64_t value = 0;
    for (std::size_t i = size; i-- > 0;) {
        value = (value << 8) | at[i];
    }
    return value;
}

inline std::uint32_t get32(const std::uint8_t *at)
{
    return static_cast<std::uint32_t>(get_le(at, 4));
}

// Reads front to back.  A read that fails leaves the position where it was,
// except count(), which has read its number when the number is the lie.
class ByteReader
{
  public:
    explicit ByteReader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}

    std::size_t at() const { return at_; }
    std::size_t size() const { return bytes_.size(); }
    std::size_t left() const { return bytes_.size() - at_; }
    bool done() const { return at_ == bytes_.size(); }

    // The next `size` bytes (at most 8) as a number, least significant first.
    bool number(std::size_t size, std::uint64_t *value)
    {
        if (left() < size) {
            return false;
        }
        *value = get_le(bytes_.data() + at_, size);
        at_ += size;
        return true;
    }
    bool u32(std::uint32_t *value)
    {
        std::uint64_t wide = 0;
        const bool ok = number(4, &wide);
        *value = static_cast<std::uint32_t>(wide);
        return ok;
    }
    // The next `size` bytes, as they are.
    bool take(std::size_t size, std::span<const std::uint8_t> *out)
    {
        if (left() < size) {
            return false;
        }
        *out = bytes_.subspan(at_, size);
        at_ += size;
        return true;
    }
    // A string after its 4-byte length.
    bool string(std::string *text)
    {
        const std::size_t start = at_;
        std::uint32_t size = 0;
        std::span<const std::uint8_t> held;
        if (!u32(&size) || !take(size, &held)) {
            at_ = start;
            return false;
        }
        text->assign(held.begin(), held.end());
        return true;
    }
    // A count of items of at least `min_item` bytes each: no more than the
    // bytes left could hold (so no huge reservation on a lie).
    bool count(std::uint32_t *n, std::size_t min_item) { return u32(n) && *n <= left() / min_item; }

  private:
    std::span<const std::uint8_t> bytes_;
    std::size_t at_ = 0;
};

} // namespace meridian::util

#endif
