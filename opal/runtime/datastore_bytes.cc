// SPDX-License-Identifier: BSD-3-Clause
// A value as one byte string and back (datastore.hpp: encode, decode).
//
// The layout: a version byte, then the value.  A value is its type's byte
// (the variant's index) and what it holds: a bool as one byte; integers as
// 8 bytes, least significant first; a double as its 8 bytes of IEEE 754,
// the same way; a string or bytes as a 4-byte length and the bytes; an
// array as a 4-byte count and its items; a coordinate as its fabric, its
// plane, its view (1 byte) and its numbers; an info list as a count and,
// for each entry, its key and its value.
#include <meridian/opal/runtime/datastore.hpp>

#include <bit>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>

#include <meridian/opal/util/error.h>
#include <meridian/opal/util/strings.hpp>

namespace meridian::datastore
{

namespace
{

constexpr std::uint8_t layout_version = 1;
// Info lists inside info lists: deeper than PMIx's own values go (a
// request's entries hold a list of endpoints, no deeper).
constexpr int max_depth = 8;

static_assert(std::variant_size_v<Value> == 10, "a new value type needs a byte here");
static_assert(std::is_same_v<meridian_coord_view_t, std::uint8_t>, "a view is one byte here");

class Writer
{
  public:
    Bytes take() { return std::move(out_); }

    void u8(std::uint8_t value) { out_.push_back(value); }

    // An unsigned number in `size` bytes, least significant first.
    void number(std::uint64_t value, int size)
    {
        for (int i = 0; i < size; ++i) {
            out_.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
        }
    }

    void u32(std::uint32_t value) { number(value, 4); }
    void u64(std::uint64_t value) { number(value, 8); }

    // A length or a count; 2^32 and more is no value Meridian hands on.
    void size(std::size_t value)
    {
        if (value > std::numeric_limits<std::uint32_t>::max()) {
            throw std::length_error("datastore::encode: a string or an array of 2^32 or more");
        }
        u32(static_cast<std::uint32_t>(value));
    }

    void text(std::string_view value)
    {
        size(value.size());
        out_.insert(out_.end(), value.begin(), value.end());
    }

    void value(const Value &v)
    {
        u8(static_cast<std::uint8_t>(v.index()));
        std::visit([this](const auto &held) { body(held); }, v);
    }

  private:
    void body(bool held) { u8(held ? 1 : 0); }
    void body(std::int64_t held) { u64(static_cast<std::uint64_t>(held)); }
    void body(std::uint64_t held) { u64(held); }
    void body(double held) { u64(std::bit_cast<std::uint64_t>(held)); }
    void body(const std::string &held) { text(held); }
    void body(const Bytes &held)
    {
        size(held.size());
        out_.insert(out_.end(), held.begin(), held.end());
    }
    void body(const std::vector<std::string> &held)
    {
        size(held.size());
        for (const auto &item : held) {
            text(item);
        }
    }
    void body(const std::vector<std::uint32_t> &held)
    {
        size(held.size());
        for (const auto item : held) {
            u32(item);
        }
    }
    void body(const std::vector<Coordinate> &held)
    {
        size(held.size());
        for (const auto &item : held) {
            text(item.fabric);
            text(item.plane);
            u8(item.view);
            body(item.coord);
        }
    }
    void body(const InfoList &held)
    {
        size(held.size());
        for (const auto &item : held) {
            text(item.key);
            value(item.value);
        }
    }

    Bytes out_;
};

// Reads front to back; every read is checked against what is left, and a
// count against the least its items can take, so bytes that lie end in an
// error, never in a read past the end or an allocation they did not pay for.
class Reader
{
  public:
    explicit Reader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}

    std::size_t left() const { return bytes_.size() - at_; }

    Status take(std::size_t count, const char *what)
    {
        if (count > left()) {
            return make_error(MERIDIAN_ERR_BAD_PARAM, "the bytes end inside " + std::string(what) +
                                                          " (at byte " + std::to_string(at_) +
                                                          " of " + std::to_string(bytes_.size()) +
                                                          ")");
        }
        return success();
    }

    Result<std::uint8_t> u8(const char *what)
    {
        if (auto ok = take(1, what); !ok) {
            return ok.error();
        }
        return bytes_[at_++];
    }

    // An unsigned number of `size` bytes, least significant first.
    Result<std::uint64_t> number(std::size_t size, const char *what)
    {
        if (auto ok = take(size, what); !ok) {
            return ok.error();
        }
        std::uint64_t value = 0;
        for (std::size_t i = size; i-- > 0;) {
            value = (value << 8) | bytes_[at_ + i];
        }
        at_ += size;
        return value;
    }

    Result<std::uint32_t> u32(const char *what)
    {
        auto value = number(4, what);
        if (!value) {
            return value.error();
        }
        return static_cast<std::uint32_t>(*value);
    }

    Result<std::uint64_t> u64(const char *what) { return number(8, what); }

    // A count of items of at least `least` bytes each.
    Result<std::uint32_t> count(std::size_t least, const char *what)
    {
        auto n = u32(what);
        if (n && static_cast<std::uint64_t>(*n) * least > left()) {
            return make_error(MERIDIAN_ERR_BAD_PARAM,
                              std::string(what) + " counts " + std::to_string(*n) +
                                  " items, more than the " + std::to_string(left()) +
                                  " bytes left can hold");
        }
        return n;
    }

    Result<std::string> text(const char *what)
    {
        auto size = count(1, what);
        if (!size) {
            return size.error();
        }
        std::string out(reinterpret_cast<const char *>(bytes_.data() + at_), *size);
        at_ += *size;
        return out;
    }

    Result<Bytes> raw(const char *what)
    {
        auto size = count(1, what);
        if (!size) {
            return size.error();
        }
        const auto begin = bytes_.begin() + static_cast<std::ptrdiff_t>(at_);
        Bytes out(begin, begin + *size);
        at_ += *size;
        return out;
    }

    Result<Value> value(int depth)
    {
        auto type = u8("a value's type");
        if (!type) {
            return type.error();
        }
        switch (*type) {
        case 0: {
            auto b = u8("a bool");
            if (b && *b > 1) {
                return make_error(MERIDIAN_ERR_BAD_PARAM,
                                  "a bool is " + std::to_string(*b) + ", not 0 or 1");
            }
            return b ? Result<Value>(Value{*b == 1}) : b.error();
        }
        case 1: {
            auto v = u64("an int64");
            return v ? Result<Value>(Value{static_cast<std::int64_t>(*v)}) : v.error();
        }
        case 2: {
            auto v = u64("a uint64");
            return v ? Result<Value>(Value{*v}) : v.error();
        }
        case 3: {
            auto v = u64("a double");
            return v ? Result<Value>(Value{std::bit_cast<double>(*v)}) : v.error();
        }
        case 4: {
            auto v = text("a string");
            return v ? Result<Value>(Value{std::move(*v)}) : v.error();
        }
        case 5: {
            auto v = raw("bytes");
            return v ? Result<Value>(Value{std::move(*v)}) : v.error();
        }
        case 6:
            return strings();
        case 7: {
            auto v = numbers("a uint32 array");
            return v ? Result<Value>(Value{std::move(*v)}) : v.error();
        }
        case 8:
            return coordinates();
        case 9:
            return info_list(depth);
        default:
            return make_error(MERIDIAN_ERR_BAD_PARAM, "unknown value type " +
                                                          std::to_string(*type) + " at byte " +
                                                          std::to_string(at_ - 1));
        }
    }

  private:
    Result<Value> strings()
    {
        auto n = count(4, "a string array");
        if (!n) {
            return n.error();
        }
        std::vector<std::string> out;
        out.reserve(*n);
        for (std::uint32_t i = 0; i < *n; ++i) {
            auto item = text("a string array's item");
            if (!item) {
                return item.error();
            }
            out.push_back(std::move(*item));
        }
        return Value{std::move(out)};
    }

    Result<std::vector<std::uint32_t>> numbers(const char *what)
    {
        auto n = count(4, what);
        if (!n) {
            return n.error();
        }
        std::vector<std::uint32_t> out;
        out.reserve(*n);
        for (std::uint32_t i = 0; i < *n; ++i) {
            out.push_back(*u32(what)); // the count said the bytes are there
        }
        return out;
    }

    Result<Value> coordinates()
    {
        auto n = count(13, "a coordinate array");
        if (!n) {
            return n.error();
        }
        std::vector<Coordinate> out;
        out.reserve(*n);
        for (std::uint32_t i = 0; i < *n; ++i) {
            Coordinate c;
            auto fabric = text("a coordinate's fabric");
            if (!fabric) {
                return fabric.error();
            }
            auto plane = text("a coordinate's plane");
            if (!plane) {
                return plane.error();
            }
            auto view = u8("a coordinate's view");
            if (!view) {
                return view.error();
            }
            auto numbers_of = numbers("a coordinate's numbers");
            if (!numbers_of) {
                return numbers_of.error();
            }
            c.fabric = std::move(*fabric);
            c.plane = std::move(*plane);
            c.view = static_cast<meridian_coord_view_t>(*view);
            c.coord = std::move(*numbers_of);
            out.push_back(std::move(c));
        }
        return Value{std::move(out)};
    }

    Result<Value> info_list(int depth)
    {
        if (depth >= max_depth) {
            return make_error(MERIDIAN_ERR_BAD_PARAM, "info lists nest deeper than " +
                                                          std::to_string(max_depth) + " levels");
        }
        auto n = count(5, "an info list");
        if (!n) {
            return n.error();
        }
        InfoList out;
        out.reserve(*n);
        for (std::uint32_t i = 0; i < *n; ++i) {
            auto key = text("an info entry's key");
            if (!key) {
                return key.error();
            }
            auto v = value(depth + 1);
            if (!v) {
                return make_error(v.error().status,
                                  "entry " + util::quoted(*key) + ": " + v.error().message);
            }
            out.push_back({std::move(*key), std::move(*v)});
        }
        return Value{std::move(out)};
    }

    std::span<const std::uint8_t> bytes_;
    std::size_t at_ = 0;
};

} // namespace

Bytes encode(const Value &value)
{
    Writer writer;
    writer.u8(layout_version);
    writer.value(value);
    return writer.take();
}

Result<Value> decode(std::span<const std::uint8_t> bytes)
{
    Reader reader(bytes);
    auto version = reader.u8("the layout's version");
    if (!version) {
        return make_error(MERIDIAN_ERR_BAD_PARAM, "no value: the bytes are empty");
    }
    if (*version != layout_version) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          "the bytes are of layout version " + std::to_string(*version) +
                              ", this library reads version " + std::to_string(layout_version));
    }
    auto value = reader.value(0);
    if (!value) {
        return value.error();
    }
    if (reader.left() != 0) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          std::to_string(reader.left()) + " bytes follow the value");
    }
    return value;
}

} // namespace meridian::datastore
