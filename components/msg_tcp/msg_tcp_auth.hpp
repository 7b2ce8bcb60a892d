// SPDX-License-Identifier: BSD-3-Clause
// Who may connect to the tcp transport: the handshake that opens every
// connection, as bytes in and verdicts out (the transport moves the bytes).
//
// Every process draws a key from the OS's random source and publishes it
// through the modex, which PMIx serves to the job's own processes only.  The
// connecting process opens with a hello that proves it holds the key of the
// rank it claims: HMAC-SHA-256 (libsodium) over the job, both ranks and a
// fresh nonce.  The listener answers with a verdict proved by its own key over
// the same nonce, so the connecting process knows the listener is the rank it
// meant.  No key crosses the wire; a nonce is taken once (a replayed hello is
// refused); a hello that fails any check gets no answer at all.
//
// Nothing here is authenticated after the handshake: the stream's bytes are
// not signed, so a host on the path between two nodes could still change them
// (as with any plain TCP); see the README's security section.
#ifndef MERIDIAN_MSG_TCP_AUTH_HPP
#define MERIDIAN_MSG_TCP_AUTH_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <span>
#include <string>

#include <meridian/opal/util/result.hpp>

namespace meridian::msg_tcp
{

constexpr std::size_t key_bytes = 32;
constexpr std::size_t nonce_bytes = 32;
constexpr std::size_t mac_bytes = 32;
using Key = std::array<std::uint8_t, key_bytes>;
using Nonce = std::array<std::uint8_t, nonce_bytes>;
using Mac = std::array<std::uint8_t, mac_bytes>;

constexpr std::uint32_t hello_magic = 0x4d514d41; // "MQMA"
constexpr std::uint32_t protocol_version = 1;

// connector -> listener: magic, version, from, to (little-endian 32-bit
// words), the nonce, the MAC by from's key.
constexpr std::size_t hello_bytes = 16 + nonce_bytes + mac_bytes;
// listener -> connector: the verdict ('Y' this connection is the pair's, 'N'
// the listener's own is), 7 zero bytes, the MAC by to's key.
constexpr std::size_t answer_bytes = 8 + mac_bytes;
constexpr char verdict_yes = 'Y';
constexpr char verdict_no = 'N';

struct Hello {
    std::uint32_t from = 0; // the connecting rank
    std::uint32_t to = 0;   // the rank it means to reach
    Nonce nonce{};
};

using HelloBytes = std::array<std::byte, hello_bytes>;
using AnswerBytes = std::array<std::byte, answer_bytes>;

// A fresh key or nonce from the OS's random source (getrandom through
// libsodium); an error when libsodium cannot start.
Result<Key> new_key();
Nonce new_nonce();

// A job's identity in every MAC: a hash of its PMIx namespace (not secret:
// it only keeps one job's proofs from counting in another).
std::uint64_t job_id(const std::string &nspace);

// The connecting side: the hello for hello.to (own: hello.from's key).
HelloBytes make_hello(const Key &own, std::uint64_t job, const Hello &hello);

// What the listener checks a hello against.
struct HelloPolicy {
    std::uint64_t job = 0;
    std::uint32_t self = 0; // this process's rank
    std::uint32_t size = 0; // ranks in the job
    // The key of a rank that may connect here (its peers on the tcp transport), else null.
    std::function<const Key *(std::uint32_t rank)> key_of;
};

// The listener's side: check reads a hello and says whether it proves its
// rank (the reason when not is a clause for the refusal's report: "it
// claims rank 7, ..."); admit then takes its nonce, once: a hello seen
// before is refused as a replay.  The caller checks where the connection
// comes from between the two, so a hello refused for its address leaves its
// nonce unspent.
class HelloChecker
{
  public:
    explicit HelloChecker(HelloPolicy policy) : policy_(std::move(policy)) {}
    Result<Hello> check(std::span<const std::byte, hello_bytes> bytes) const;
    Status admit(const Hello &hello);
    std::size_t remembered() const { return seen_.size(); }

  private:
    HelloPolicy policy_;
    std::set<Nonce> seen_; // one per accepted connection: as many as genuine peers connect
};

// The listener's answer to an accepted hello (own: hello.to's key).
AnswerBytes make_answer(const Key &own, std::uint64_t job, const Hello &hello, char verdict);
// The connecting side: the verdict, when the answer is proved by the
// listener's key (theirs) for this hello; else why not.
Result<char> check_answer(std::span<const std::byte, answer_bytes> bytes, const Key &theirs,
                          std::uint64_t job, const Hello &hello);

} // namespace meridian::msg_tcp

#endif
