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

#include "opal/util/byte_io.hpp"
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
    void u32(std::uint32_t value) { util::put32(out_, value); }
    void u64(std::uint64_t value) { util::put_le(out_, value, 8); }

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

// util::ByteReader's checked reads, each refusal saying what was being read
// and where.
class Reader
{
  public:
    explicit Reader(std::span<const std::uint8_t> bytes) : in_(bytes) {}

    std::size_t left() const { return in_.left(); }

    Error ended(const char *what) const
    {
        return make_error(MERIDIAN_ERR_BAD_PARAM, "the bytes end inside " + std::string(what) +
                                                      " (at byte " + std::to_string(in_.at()) +
                                                      " of " + std::to_string(in_.size()) + ")");
    }

    Result<std::uint64_t> number(std::size_t size, const char *what)
    {
        std::uint64_t value = 0;
        if (!in_.number(size, &value)) {
            return ended(what);
        }
        return value;
    }

    Result<std::uint8_t> u8(const char *what)
    {
        auto value = number(1, what);
        if (!value) {
            return value.error();
        }
        return static_cast<std::uint8_t>(*value);
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
        const bool room = in_.left() >= 4;
        std::uint32_t n = 0;
        if (in_.count(&n, least)) {
            return n;
        }
        if (!room) {
            return ended(what);
        }
        return make_error(MERIDIAN_ERR_BAD_PARAM, std::string(what) + " counts " +
                                                      std::to_string(n) + " items, more than the " +
                                                      std::to_string(in_.left()) +
                                                      " bytes left can hold");
    }

    // A length and that many bytes.
    Result<std::span<const std::uint8_t>> held(const char *what)
    {
        auto size = count(1, what);
        if (!size) {
            return size.error();
        }
        std::span<const std::uint8_t> out;
        (void)in_.take(*size, &out); // the count said the bytes are there
        return out;
    }

    Result<std::string> text(const char *what)
    {
        auto bytes = held(what);
        if (!bytes) {
            return bytes.error();
        }
        return std::string(bytes->begin(), bytes->end());
    }

    Result<Bytes> raw(const char *what)
    {
        auto bytes = held(what);
        if (!bytes) {
            return bytes.error();
        }
        return Bytes(bytes->begin(), bytes->end());
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
                                                          std::to_string(in_.at() - 1));
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

    util::ByteReader in_;
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
