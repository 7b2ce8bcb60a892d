// SPDX-License-Identifier: BSD-3-Clause
// The client side of PMI-1's "simple" wire protocol, which MPICH's and
// Intel MPI's mpiexec (hydra), srun --mpi=pmi2 and flux run serve to the
// processes they start: lines of "key=value" words, one command and one
// answer each, over the connection the launcher handed the process.
//
//   init (version 1.1) -> response_to_init   get_maxes -> maxes
//   get_my_kvsname -> my_kvsname              put -> put_result
//   barrier_in -> barrier_out                 get -> get_result
//   abort (no answer)                         finalize -> finalize_ack
//   (PMI_PORT only) initack -> initack, set size, set rank, set debug
//
// Above the commands, what a datastore needs: a value of any length as
// text a PMI server keeps (base64's URL-safe alphabet, no '=' nor space),
// split over several keys when it is longer than the launcher's vallen_max
// or a 1024-byte line; keys that fit keylen_max; the node map.  Not thread
// safe: one caller at a time.  Not installed.
#ifndef MERIDIAN_RUNTIME_PMI_CLIENT_HPP
#define MERIDIAN_RUNTIME_PMI_CLIENT_HPP

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <meridian/opal/util/result.hpp>

namespace meridian::pmi
{

using Bytes = std::vector<std::uint8_t>;

// An answer's words ("cmd=get_result rc=0 value=..."; a value may hold
// '=': the first one ends a word's name).
class Answer
{
  public:
    explicit Answer(std::string line);
    std::optional<std::string_view> operator[](std::string_view name) const;
    std::string_view cmd() const { return (*this)["cmd"].value_or(""); }
    // rc=0, or no rc at all (hydra leaves it out of some answers).
    bool ok() const;
    const std::string &line() const { return line_; }

  private:
    std::string line_;
    std::vector<std::pair<std::string, std::string>> words_;
};

class Client
{
  public:
    // How long an answer other than barrier_out may take: a server that
    // takes longer is taken for a hung one.  (A barrier waits for the
    // job's slowest process: no limit.)
    static constexpr std::chrono::milliseconds default_answer_limit{60000};

    // Over `fd`, which the client owns from here on.
    explicit Client(int fd, std::chrono::milliseconds answer_limit = default_answer_limit);
    Client(const Client &) = delete;
    Client &operator=(const Client &) = delete;
    ~Client();

    // By PMI_PORT ("host:port") and PMI_ID: the id presented, the rank and
    // size the server answers.
    struct Placed;
    static Result<Placed> by_port(const std::string &where, const std::string &id,
                                  std::chrono::milliseconds answer_limit = default_answer_limit);

    // init 1.1, get_maxes, get_my_kvsname.  Errors: a refused version, an
    // answer that is not PMI's, limits too small for Meridian.
    Status init();
    bool initialized() const { return initialized_; }
    const std::string &kvsname() const { return kvsname_; }
    std::size_t keylen_max() const { return keylen_max_; }
    std::size_t vallen_max() const { return vallen_max_; }

    // One key's text, as the server keeps it: NOT_FOUND when it has none.
    Status put(const std::string &key, const std::string &text);
    Result<std::string> get(const std::string &key);
    Status barrier();
    // No answer comes: the launcher ends the job.
    Status abort(int code);
    // finalize, and its answer for at most `wait`.
    void finalize(std::chrono::milliseconds wait);

    // A value of any length under `key` (one of key_for's): pieces first,
    // the head last, so that a reader who sees the head finds them all.
    Status put_value(const std::string &key, std::span<const std::uint8_t> bytes);
    // NOT_FOUND when there is no head; MERIDIAN_ERROR, saying what, when
    // what is there is not one put_value wrote.
    Result<Bytes> get_value(const std::string &key);
    // The key for `key` of process `rank`: "KEY@RANK", or "hHASH@RANK" when
    // KEY is long or holds what a PMI server's parser may split on.
    std::string key_for(std::uint32_t rank, std::string_view key) const;

    int fd() const { return fd_; }

  private:
    Status send(const std::string &command);
    Result<Answer> receive(std::string_view waiting_for, bool unbounded = false);
    Result<Answer> ask(const std::string &command, std::string_view expected,
                       bool unbounded = false);
    std::size_t room(const std::string &key) const;

    int fd_;
    std::chrono::milliseconds answer_limit_;
    std::string buffer_;
    bool initialized_ = false;
    std::string kvsname_;
    std::size_t keylen_max_ = 64;
    std::size_t vallen_max_ = 1024;
};

struct Client::Placed {
    std::unique_ptr<Client> client;
    std::uint32_t rank = 0;
    std::uint32_t size = 0;
};

// PMI_process_mapping, "(vector,(start,nodes,count),...)": from node
// `start`, `nodes` nodes of `count` consecutive ranks each, the list
// repeated until every rank has a node ("(vector,(0,N,1))" is a cyclic
// mapping).  The node of each rank; nullopt when the text is not such a list
// or not one for `job_size` ranks.
std::optional<std::vector<std::uint32_t>> parse_mapping(std::string_view text,
                                                        std::uint32_t job_size);

// A decimal count as PMI writes one (PMI_FD, PMI_RANK, rc=, size=): all
// digits, fits 32 bits; nullopt otherwise.
std::optional<std::uint32_t> parse_count(std::string_view text);

// Bytes as text in base64's URL-safe alphabet without padding, and back
// (nullopt for text that is not such).
std::string to_text(std::span<const std::uint8_t> bytes);
std::optional<Bytes> from_text(std::string_view text);

} // namespace meridian::pmi

#endif
