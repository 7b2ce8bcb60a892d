// SPDX-License-Identifier: BSD-3-Clause
#include "components/msg_tcp/msg_tcp_auth.hpp"

#include <sodium.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace meridian::msg_tcp
{

namespace
{

// Labels keep a hello's MAC from ever serving as an answer's, and back.
constexpr char hello_label[] = "meridian msg tcp hello v1";
constexpr char answer_label[] = "meridian msg tcp answer v1";

void put32(std::byte *at, std::uint32_t value)
{
    for (int i = 0; i < 4; ++i) {
        at[i] = static_cast<std::byte>(value >> (8 * i));
    }
}

std::uint32_t get32(const std::byte *at)
{
    std::uint32_t value = 0;
    for (int i = 0; i < 4; ++i) {
        value |= static_cast<std::uint32_t>(at[i]) << (8 * i);
    }
    return value;
}

bool sodium_ready()
{
    // Thread-safe and idempotent; -1 only when it cannot start at all.
    static const bool ready = ::sodium_init() >= 0;
    return ready;
}

// HMAC-SHA-256 by key over the label, the job, both ranks, the nonce and,
// for an answer, its verdict.
Mac mac_of(const Key &key, const char *label, std::uint64_t job, const Hello &hello,
           const char *verdict)
{
    crypto_auth_hmacsha256_state state;
    crypto_auth_hmacsha256_init(&state, key.data(), key.size());
    crypto_auth_hmacsha256_update(&state, reinterpret_cast<const unsigned char *>(label),
                                  std::strlen(label) + 1);
    std::byte fields[16];
    put32(fields, static_cast<std::uint32_t>(job));
    put32(fields + 4, static_cast<std::uint32_t>(job >> 32));
    put32(fields + 8, hello.from);
    put32(fields + 12, hello.to);
    crypto_auth_hmacsha256_update(&state, reinterpret_cast<const unsigned char *>(fields),
                                  sizeof fields);
    crypto_auth_hmacsha256_update(&state, hello.nonce.data(), hello.nonce.size());
    if (verdict != nullptr) {
        crypto_auth_hmacsha256_update(&state, reinterpret_cast<const unsigned char *>(verdict), 1);
    }
    Mac mac;
    crypto_auth_hmacsha256_final(&state, mac.data());
    ::sodium_memzero(&state, sizeof state);
    return mac;
}

bool same_mac(const Mac &a, const std::byte *b)
{
    static_assert(mac_bytes == crypto_verify_32_BYTES);
    return ::crypto_verify_32(a.data(), reinterpret_cast<const unsigned char *>(b)) == 0;
}

std::string hex32(std::uint32_t value)
{
    char text[16];
    std::snprintf(text, sizeof text, "0x%08" PRIx32, value);
    return text;
}

} // namespace

Result<Key> new_key()
{
    if (!sodium_ready()) {
        return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                          "msg tcp: libsodium could not start: no key for the tcp transport");
    }
    Key key;
    ::randombytes_buf(key.data(), key.size());
    return key;
}

Nonce new_nonce()
{
    Nonce nonce;
    if (sodium_ready()) {
        ::randombytes_buf(nonce.data(), nonce.size());
    }
    return nonce;
}

std::uint64_t job_id(const std::string &nspace)
{
    // FNV-1a: the same in every process and build.
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    for (const char c : nspace) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 0x100000001b3ULL;
    }
    return hash;
}

HelloBytes make_hello(const Key &own, std::uint64_t job, const Hello &hello)
{
    HelloBytes bytes{};
    put32(bytes.data(), hello_magic);
    put32(bytes.data() + 4, protocol_version);
    put32(bytes.data() + 8, hello.from);
    put32(bytes.data() + 12, hello.to);
    std::memcpy(bytes.data() + 16, hello.nonce.data(), nonce_bytes);
    const Mac mac = mac_of(own, hello_label, job, hello, nullptr);
    std::memcpy(bytes.data() + 16 + nonce_bytes, mac.data(), mac_bytes);
    return bytes;
}

Result<Hello> HelloChecker::check(std::span<const std::byte, hello_bytes> bytes) const
{
    const std::byte *at = bytes.data();
    if (const std::uint32_t magic = get32(at); magic != hello_magic) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          "it is not a Meridian tcp greeting (it begins " + hex32(magic) + ")");
    }
    if (const std::uint32_t version = get32(at + 4); version != protocol_version) {
        return make_error(MERIDIAN_ERR_BAD_PARAM, "it speaks version " + std::to_string(version) +
                                                      " of the greeting, this process " +
                                                      std::to_string(protocol_version));
    }
    Hello hello;
    hello.from = get32(at + 8);
    hello.to = get32(at + 12);
    std::memcpy(hello.nonce.data(), at + 16, nonce_bytes);
    const std::string claims = "it claims rank " + std::to_string(hello.from);
    if (hello.from >= policy_.size) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          claims + ", the job has ranks 0-" + std::to_string(policy_.size - 1));
    }
    if (hello.to != policy_.self) {
        return make_error(MERIDIAN_ERR_BAD_PARAM, claims + " and is meant for rank " +
                                                      std::to_string(hello.to) + ", this is rank " +
                                                      std::to_string(policy_.self));
    }
    const Key *key = policy_.key_of ? policy_.key_of(hello.from) : nullptr;
    if (key == nullptr) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          claims + ", which does not reach this process by the tcp transport");
    }
    const Mac expected = mac_of(*key, hello_label, policy_.job, hello, nullptr);
    if (!same_mac(expected, at + 16 + nonce_bytes)) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          claims + " but does not prove it holds that rank's key");
    }
    return hello;
}

Status HelloChecker::admit(const Hello &hello)
{
    if (!seen_.insert(hello.nonce).second) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          "it proves it is rank " + std::to_string(hello.from) +
                              " with a greeting this process accepted before (a replay)");
    }
    return success();
}

AnswerBytes make_answer(const Key &own, std::uint64_t job, const Hello &hello, char verdict)
{
    AnswerBytes bytes{};
    bytes[0] = static_cast<std::byte>(verdict);
    const Mac mac = mac_of(own, answer_label, job, hello, &verdict);
    std::memcpy(bytes.data() + 8, mac.data(), mac_bytes);
    return bytes;
}

Result<char> check_answer(std::span<const std::byte, answer_bytes> bytes, const Key &theirs,
                          std::uint64_t job, const Hello &hello)
{
    const auto verdict = static_cast<char>(bytes[0]);
    const bool padded = std::all_of(bytes.begin() + 1, bytes.begin() + 8,
                                    [](std::byte b) { return b == std::byte{0}; });
    if ((verdict != verdict_yes && verdict != verdict_no) || !padded) {
        return make_error(MERIDIAN_ERR_BAD_PARAM, "its answer is not a Meridian tcp answer");
    }
    const Mac expected = mac_of(theirs, answer_label, job, hello, &verdict);
    if (!same_mac(expected, bytes.data() + 8)) {
        return make_error(MERIDIAN_ERR_BAD_PARAM, "its answer does not prove it holds rank " +
                                                      std::to_string(hello.to) + "'s key");
    }
    return verdict;
}

} // namespace meridian::msg_tcp
