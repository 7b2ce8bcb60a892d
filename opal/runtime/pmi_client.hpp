// SPDX-License-Identifier: BSD-3-Clause
// The client side of PMI's "simple" wire protocols, which MPICH's and
// Intel MPI's mpiexec (hydra), srun --mpi=pmi2 and flux run serve to the
// processes they start over the connection the launcher handed each one.
// Both begin with PMI-1's init line, which names the version asked for.
//
// PMI-1.1: lines of "key=value" words, one command and one answer each.
//   init (version 1.1) -> response_to_init   get_maxes -> maxes
//   get_my_kvsname -> my_kvsname              put -> put_result
//   barrier_in -> barrier_out                 get -> get_result
//   abort (no answer)                         finalize -> finalize_ack
//   (PMI_PORT only) initack -> initack, set size, set rank, set debug
//
// PMI-2.0: after init (version 2.0), each message is its length in six
// characters (decimal, space-padded) and that many bytes of "key=value;"
// words, without a newline.
//   fullinit -> fullinit-response            job-getid -> job-getid-response
//   kvs-put -> kvs-put-response              kvs-fence -> kvs-fence-response
//   kvs-get -> kvs-get-response              info-getjobattr -> ...-response
//   abort (no answer)                        finalize -> finalize-response
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

// An answer's words ("cmd=get_result rc=0 value=...", or PMI-2's
// "cmd=kvs-get-response;found=TRUE;value=...;rc=0;"; a value may hold
// '=': the first one ends a word's name).
class Answer
{
  public:
    explicit Answer(std::string line, char separator = ' ');
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

    // Which version init asks for: 1.1; 2.0; or 2.0 and, where the
    // launcher has no 2.0 (flux answers 1.1; another may refuse), 1.1.
    enum class Ask { v1, v2, v2_or_v1 };
    // PMI-1: init 1.1, get_maxes, get_my_kvsname.  PMI-2: init 2.0,
    // fullinit as `rank` (Slurm wants `jobid` there too), job-getid; its
    // limits are PMI-2's (keys of 64 bytes, values of 1024).  Errors: a
    // refused version, an answer that is not PMI's, limits too small for
    // Meridian.
    Status init(Ask ask = Ask::v1, std::uint32_t rank = 0, std::string_view jobid = {});
    bool initialized() const { return initialized_; }
    // 1 or 2: what init agreed on.
    int version() const { return version_; }
    // PMI-2's fullinit answer: the process's rank and the job's size (0 and
    // 0 before it, and under PMI-1, which gives none).
    std::uint32_t given_rank() const { return given_rank_; }
    std::uint32_t given_size() const { return given_size_; }
    const std::string &kvsname() const { return kvsname_; }
    std::size_t keylen_max() const { return keylen_max_; }
    std::size_t vallen_max() const { return vallen_max_; }

    // One key's text, as the server keeps it: NOT_FOUND when it has none.
    Status put(const std::string &key, const std::string &text);
    Result<std::string> get(const std::string &key);
    // What the launcher says of the job (PMI_process_mapping): a key of
    // its key space under PMI-1, info-getjobattr under PMI-2.  NOT_FOUND
    // when it has none.
    Result<std::string> job_attribute(const std::string &name);
    // barrier_in (PMI-1) or kvs-fence (PMI-2).
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
    // A command's words; sent as a line or, once PMI-2 is agreed, framed.
    Status send(const std::string &command);
    Result<Answer> receive(std::string_view waiting_for, bool unbounded = false);
    Result<Answer> ask(const std::string &command, std::string_view expected,
                       bool unbounded = false);
    Status init_v1();
    Status init_v2(std::uint32_t rank, std::string_view jobid);
    std::size_t room(const std::string &key) const;

    int fd_;
    std::chrono::milliseconds answer_limit_;
    std::string buffer_;
    bool initialized_ = false;
    int version_ = 1;
    bool framed_ = false; // PMI-2's messages, after its init line
    std::uint32_t given_rank_ = 0;
    std::uint32_t given_size_ = 0;
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
