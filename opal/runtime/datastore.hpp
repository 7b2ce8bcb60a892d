// SPDX-License-Identifier: BSD-3-Clause
// The key-value datastore: typed values under PMIx key strings
// ("pmix.net.coord", a request's ID, ...), about a process (namespace, rank)
// or about a whole job (rank = job_rank).
//
// Four backends behind one interface:
//   local  the process's own table; a process started alone is a job of one
//          ("singleton") and fence returns at once;
//   pmix   when a PMIx launcher started the process (mpirun, srun
//          --mpi=pmix, prterun): put / commit / fence / get go through
//          PMIx_Put, PMIx_Commit, PMIx_Fence (collecting data) and PMIx_Get;
//   pmi    when a PMI launcher started it (MPICH's and Intel MPI's
//          mpiexec, srun --mpi=pmi2, flux run): put, barrier and get of
//          PMI-1's or PMI-2's "simple" wire protocol (datastore_pmi.cc); no
//          events;
//   mpi    when the program's MPI offers its job (QMP's MPI part, libqmp_mpi):
//          values cross at fences, in one allgather over a duplicate of
//          MPI_COMM_WORLD (datastore_exchange.cc); no events.
// Values stored with store() stay in this process.  The parameter
// mca_base_datastore picks one: auto (default: pmix when the environment
// has PMIX_NAMESPACE and PMIX_RANK and PMIx_Init succeeds, else pmi when it
// has PMI_FD or PMI_PORT and PMI_ID -- mpi before it, where the program's
// MPI runs a job of several, whose PMI connection that MPI holds --, local
// otherwise -- except in a process
// that a launcher started as one of several with neither, srun with another
// --mpi plugin, Cray PALS: an error that names the launcher and the fix),
// local, pmix, pmi, pmi1, pmi2 or mpi (an error when that one cannot start).
// pmi speaks PMI-2 under srun and PMI-1 elsewhere, as those launchers' own
// MPIs do; pmi1 and pmi2 insist on one.
//
// Thread safety: one thread at a time (calls are not concurrent), except
// notify_node_from.
#ifndef MERIDIAN_RUNTIME_DATASTORE_HPP
#define MERIDIAN_RUNTIME_DATASTORE_HPP

#include <meridian/opal/util/require_cxx20.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include <meridian/opal/class/coordinate.hpp>
#include <meridian/opal/util/result.hpp>

namespace meridian::datastore
{

using Bytes = std::vector<std::uint8_t>;
struct Info;
// PMIx's pmix_data_array_t of pmix_info_t: an allocation under its ID.
using InfoList = std::vector<Info>;

using Value = std::variant<bool, std::int64_t, std::uint64_t, double, std::string, Bytes,
                           std::vector<std::string>, std::vector<std::uint32_t>,
                           std::vector<Coordinate>, InfoList>;

struct Info {
    std::string key;
    Value value;
    bool operator==(const Info &) const = default;
};

// "bool", "int64", "uint64", "double", "string", "bytes", "string array",
// "uint32 array", "coordinates", "info list"
std::string_view value_type_name(const Value &value);
// For messages and tools: 42, "text", [1,2], {pmix.alloc.netid="32000-32001", ...}
std::string format_value(const Value &value);

// A value as one byte string, and back: for Meridian's own hand-offs
// between its processes, where the value is not one PMIx programs read.  A
// PMIx server hands a process all of a peer's data at once, and its client
// unpacks and copies an info list entry by entry; bytes, in one copy.
// decode refuses, with the reason, bytes encode did not make.  (A string or
// an array of 2^32 items or more does not encode: std::length_error.)
Bytes encode(const Value &value);
Result<Value> decode(std::span<const std::uint8_t> bytes);

inline constexpr std::uint32_t job_rank = UINT32_MAX; // values about the job

struct ProcId {
    std::string nspace;
    std::uint32_t rank = 0;
    bool operator==(const ProcId &) const = default;
};
// For messages: "NSPACE:RANK", or "job NSPACE" for rank job_rank.
std::string format_proc(const ProcId &proc);

class Store
{
  public:
    virtual ~Store() = default;

    // "local", "pmix" or "pmi"
    virtual std::string_view backend() const = 0;
    // This process, and the number of processes in its job.
    virtual const ProcId &self() const = 0;
    virtual std::uint32_t job_size() const = 0;
    // This process's node name (the launcher's, else the host name) and its
    // rank among the job's processes on that node.
    virtual const std::string &node_name() const = 0;
    virtual std::uint32_t local_rank() const = 0;
    // The number of the job's processes on this node.  A backend that
    // cannot tell says job_size(), which is never fewer.
    virtual std::uint32_t local_size() const { return job_size(); }

    // Publish a value of this process; peers see it after commit and fence.
    virtual Status put(std::string_view key, Value value) = 0;
    virtual Status commit() = 0;
    // Wait for every process of the job, exchanging what they committed.
    virtual Status fence() = 0;
    // Events between the job's processes (PMIx_Notify_event): `code` with
    // `info` to every process of the range, this one included.  Range node:
    // the processes of the job on this node (what every PMIx server
    // delivers); job: every process of the job, which needs a launcher that
    // forwards a client's events (Open MPI 4.1's mpirun does not, and its
    // job then hangs).  A backend without peers (local) has nobody to tell.
    enum class EventRange { node, job };
    // (Defined here, not out of line: Store must keep no key function, so
    // that its type information is emitted wherever it is used -- the
    // library hides its own, and UBSan's vptr check in a component needs it.)
    virtual Status notify(int code, const InfoList &info, EventRange range)
    {
        (void)code, (void)info, (void)range;
        return success(); // no peers
    }
    // The same event to this node's processes of the job (this one
    // included), as if `source` had sent it: how an event another node's
    // process sent reaches this node.  The one call that may come from
    // another thread than the store's user, concurrently with any other.
    virtual Status notify_node_from(const ProcId &source, int code, const InfoList &info)
    {
        (void)source, (void)code, (void)info;
        return success(); // no peers
    }
    // Call `handler` (from the backend's own thread) for every event `code`
    // that reaches this process, with its source and the info Meridian can
    // read (other entries are left out).  Handlers stay until the store
    // goes.  A backend without peers never calls it.
    using EventHandler = std::function<void(const ProcId &source, const InfoList &info)>;
    virtual Status on_event(int code, EventHandler handler)
    {
        (void)code, (void)handler;
        return success(); // no peers, no events
    }

    // Call `handler` (from the backend's own thread) once, when the launcher
    // that started this process is gone (PMIx: the connection to the local
    // PMIx server -- mpirun's daemon, prterun's, the Slurm step's -- was
    // lost).  A backend without a launcher never calls it.
    virtual Status on_launcher_lost(std::function<void()> handler)
    {
        (void)handler;
        return success(); // no launcher to lose
    }

    // A value another process of the job publishes: waits until it has
    // committed it, at most `timeout` (MERIDIAN_ERR_TIMEOUT then, naming the
    // key and the process).  A backend without peers answers as get().
    virtual Result<Value> wait_for(const ProcId &proc, std::string_view key,
                                   std::chrono::milliseconds timeout) const
    {
        (void)timeout;
        return get(proc, key);
    }
    // The job's ranks on this node, ascending, this process's among them.  A
    // backend without peers gives this process's alone.
    virtual Result<std::vector<std::uint32_t>> local_peers() const
    {
        return std::vector<std::uint32_t>{self().rank};
    }

    // The job's nodes with their ranks (ascending), as the launcher mapped
    // them; nodes in the launcher's order.  A backend without peers gives
    // this process's node with this process.
    struct NodeRanks {
        std::string node;
        std::vector<std::uint32_t> ranks;
    };
    virtual Result<std::vector<NodeRanks>> job_nodes() const
    {
        return std::vector<NodeRanks>{{node_name(), {self().rank}}};
    }

    // Ask the launcher to end the whole job with `status` (PMIx_Abort); the
    // message is the launcher's to print.  Returns when there is no launcher
    // (a job of one) or the launcher could not be told; the caller exits.
    virtual void abort_job(int status, std::string_view message) = 0;

    // Keep a value about any process (or the job, rank job_rank) in this
    // process only; it replaces an earlier one.  Every backend keeps these
    // the same way, in one flat table.
    Status store(const ProcId &proc, std::string_view key, Value value);
    // A value: stored here first, then what the launcher or the peers
    // published (fetch).  MERIDIAN_ERR_NOT_FOUND, naming the key and the
    // process, when nobody has it.
    Result<Value> get(const ProcId &proc, std::string_view key) const;

  protected:
    // What the launcher or the peers published (and this process put).
    virtual Result<Value> fetch(const ProcId &proc, std::string_view key) const = 0;
    // A value store() keeps here, or null.
    const Value *kept(const ProcId &proc, std::string_view key) const;

  private:
    // Keyed by "nspace\x1frank\x1fkey": a tool storing values for 10^6
    // processes gets one hash table, not one per process.
    std::unordered_map<std::string, Value> stored_;
};

// The process's store, chosen by mca_base_datastore the first time it is
// asked for (meridian_init does, after reading parameters).  Errors: pmix was
// asked for and cannot start (the message says why).
Result<Store *> store();
// Drop the process's store (meridian_finalize): PMIx_Finalize for pmix.
void shutdown();

// Backends, for tests and tools that want one explicitly.
std::unique_ptr<Store> make_local_store(ProcId self, std::uint32_t job_size = 1,
                                        std::string node_name = {});
// MERIDIAN_ERR_NOT_AVAILABLE when Meridian was built without PMIx or
// PMIx_Init fails (message with PMIx's reason).
Result<std::unique_ptr<Store>> make_pmix_store();
// The connection a PMI launcher handed this process (PMI_FD with PMI_RANK
// and PMI_SIZE, or PMI_PORT with PMI_ID, which is PMI-1's only), speaking
// `version`: any is PMI-2 under srun (PMI-1 where srun's launcher offers no
// 2.0) and PMI-1 elsewhere.  Errors: none handed, not open, the version
// refused, the launcher answered what PMI does not (the message says).
enum class PmiVersion { any, v1, v2 };
Result<std::unique_ptr<Store>> make_pmi_store(PmiVersion version = PmiVersion::any);
// Whether the environment holds such a connection.
bool launched_by_pmi();

// A job's collective exchange that a library of the program provides: QMP's
// MPI part over its MPI, where the launcher is one Meridian cannot join
// (Cray PALS) or the program's MPI holds the launcher's connection (MPICH
// under hydra).  libmeridian itself knows no MPI.
class Exchange
{
  public:
    virtual ~Exchange() = default;
    // "MPI (Open MPI v4.1.4)", for messages.
    virtual std::string name() const = 0;
    virtual std::uint32_t rank() const = 0;
    virtual std::uint32_t size() const = 0;
    // Every process's bytes, by rank (this one's among them): collective
    // over the job, and so a barrier too.
    virtual Result<std::vector<Bytes>> allgather(std::span<const std::uint8_t> mine) = 0;
    // End the whole job with `code` (MPI_Abort); returns when it cannot.
    virtual void abort(int code) = 0;
};
// What store() may choose (mpi), offered before it is first asked for;
// nullptr takes the offer back (the store made from it keeps it).
void offer_exchange(std::shared_ptr<Exchange> exchange);
// A store over `exchange`: its first allgather learns the job's nodes.
// Errors: that allgather's.
Result<std::unique_ptr<Store>> make_exchange_store(std::shared_ptr<Exchange> exchange);

} // namespace meridian::datastore

#endif
