// SPDX-License-Identifier: BSD-3-Clause
// The QMP layer's shared state and the calls between its parts (libqmp).
//
//   qmp_init.cc      init / finalize / abort, argv options, thread levels
//   qmp_machine.cc   the allocated machine (coord, -qmp-geom, -qmp-alloc-map),
//                    jobs (-qmp-job), SMP count, I/O nodes
//   qmp_topology.cc  logical topologies (+ map), coordinates <-> node numbers,
//                    relative neighbours
//   qmp_layout.cc    QMP_layout_grid and the subgrid queries (rule in
//                    qmp_layout_rule.hpp, pure and unit-tested)
//   qmp_comm.cc      communicators: allocated / job / default, split, free
//   qmp_mem.cc       aligned memory and message memory (contiguous, strided,
//                    strided array, indexed) as iovec lists
//   qmp_channel.cc   message handles: declare, multiple, pairs, change
//                    address, clear to send, start / wait / is_complete
//   qmp_coll.cc      collectives over the transport's channels
//   qmp_error.cc     status strings, the last error, the error function
//   qmp_output.cc    verbose / printf / info / error, timing, version
//
// Threads: QMP calls are serialised by the application (THREAD_SINGLE,
// FUNNELED, SERIALIZED); MULTIPLE is granted by a lock around each call that
// enters the transport (qmp_channel.cc and qmp_coll.cc take it).
#ifndef MERIDIAN_MCA_MSG_BASE_QMP_INTERNAL_HPP
#define MERIDIAN_MCA_MSG_BASE_QMP_INTERNAL_HPP

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "mca/qmp/qmp.h"
#include "mca/qmp/qmp_mpi.h"
#include <meridian/mca/msg/msg.h>
#include <meridian/opal/util/c_boundary.hpp>

namespace meridian::qmp
{

// A logical grid declared on a communicator (empty dims: none declared).
struct Topology {
    std::vector<int> dims;
    std::vector<int> coords; // this process's
    // declare_logical_topology_map, as QMP numbers a grid: the node number's
    // fastest-running digit is the coordinate on dimension map[0], the next
    // on map[1], ...; empty when the plain form was used (dimension 0
    // fastest).  See qmp_layout_rule.hpp.
    std::vector<int> map;
    // A grid whose numbering is not QMP's (the allocated machine read from
    // coord): every rank's coordinates (flat, dims.size() each) and the rank
    // at each position (positions numbered with dimension 0 fastest).  Empty
    // otherwise.
    std::vector<int> coords_of_rank;
    std::vector<int> rank_at;
};

// QMP_layout_grid's result (empty: not laid out).
struct Layout {
    std::vector<int> lattice;
    std::vector<int> subgrid;
    int subgrid_sites = 0;
};

// The allocated machine: MESH with dims/coords when the processes have
// torus coordinates (coord) or -qmp-geom gave a grid, SWITCH otherwise
// (no dims and no coords: QMP reports 0 dimensions and NULL for a switched
// machine).
struct Machine {
    QMP_ictype_t type = QMP_SWITCH;
    std::vector<int> dims;
    std::vector<int> coords;
    std::vector<int> alloc_map; // -qmp-alloc-map (empty: identity)
    std::vector<int> logic_map; // -qmp-logic-map (empty: identity)
    int smp_count = 1;          // processes of the job on this node
    // -qmp-job: the job geometry (empty: one job) and this process's job.
    std::vector<int> job_geometry;
    int number_of_jobs = 1;
    int job_number = 0;
};

struct Collectives; // qmp_coll.cc: per-communicator channels and scratch
void destroy_collectives(Collectives *coll);
struct CollectivesDeleter {
    void operator()(Collectives *coll) const { destroy_collectives(coll); }
};

} // namespace meridian::qmp

struct QMP_comm_struct {
    std::vector<int> members; // comm rank -> job rank
    int rank = 0;             // this process in the communicator
    int size = 0;
    int color = 0;
    int key = 0;
    int number_of_colors = 1;
    // Same on every member, different for communicators that share a
    // process: tags carry it, so traffic of two communicators never matches.
    std::uint32_t context = 0;
    meridian::qmp::Topology logical;
    meridian::qmp::Layout layout;
    std::unique_ptr<meridian::qmp::Collectives, meridian::qmp::CollectivesDeleter> coll;
    // The MPI communicator under this one (libqmp_mpi's handle, qmp_mpi.h),
    // released with it; NULL when the program has no MPI part.
    void *mpi = nullptr;

    QMP_comm_struct() = default;
    QMP_comm_struct(const QMP_comm_struct &) = delete;
    QMP_comm_struct &operator=(const QMP_comm_struct &) = delete;
    ~QMP_comm_struct();
};

namespace meridian::qmp
{

// Everything between init and finalize.
struct State {
    bool initialized = false;
    QMP_thread_level_t thread_level = QMP_THREAD_SINGLE;
    mca_msg_base_module_t *transport = nullptr;
    bool transport_releases = false; // channel_release is there (msg 2.1)
    const mca_msg_job_t *job = nullptr;
    Machine machine;
    // Communicators this layer owns (job, allocated and split results the
    // application has not freed); the three roles point into them.
    std::vector<std::unique_ptr<QMP_comm_struct>> comms;
    QMP_comm_t allocated = nullptr;
    QMP_comm_t job_comm = nullptr;
    QMP_comm_t default_comm = nullptr;
    std::uint32_t next_context = 1; // 0 is the allocated communicator's
    std::recursive_mutex lock;      // taken only at QMP_THREAD_MULTIPLE
    int verbose = 0;
    double init_time = 0.0;
    // Under a PMIx launcher Meridian stays up from the first finalize until
    // the process exits (qmp_init.cc, keep_runtime): this reference to it.
    bool runtime_held = false;
    // The program's MPI part (libqmp_mpi) once it started: every
    // communicator then has an MPI one, the first split from mpi_world.
    const meridian_qmp_mpi_t *mpi = nullptr;
    void *mpi_world = nullptr;
};
State &state();

} // namespace meridian::qmp

// Inline: programs that test libqmp's parts use the communicator type, whose
// members libqmp does not export.
inline QMP_comm_struct::~QMP_comm_struct()
{
    if (mpi != nullptr) {
        if (const meridian_qmp_mpi_t *part = meridian::qmp::state().mpi; part != nullptr) {
            part->release(mpi);
        }
    }
}

namespace meridian::qmp
{

// The running session's id (State::init_time) while QMP is initialised,
// NaN (equal to no session) before and after (qmp_init.cc).
// Hidden: read in place by QMP_start and QMP_wait (no GOT load); nothing
// outside libqmp reads it.
[[gnu::visibility("hidden")]] extern double live_session;

// -- qmp_error.cc
// Record the last error (QMP_get_error_number/string(NULL)) and return it.
// The message is what QMP_get_error_string gives: "what failed: why".
QMP_status_t set_error(QMP_status_t status, std::string message);
// The C boundary's record hook: "CALL: WHY" becomes the last error, as
// QMP_NOMEM_ERR when WHY is "out of memory" (std::bad_alloc), else
// QMP_ERROR.  Never throws; with no memory for the text it keeps it in a
// fixed buffer (valid until the next such failure).
void record_boundary_failure(const char *call, const char *why) noexcept;
// For calls that cannot return a status (a failed wait inside a void call):
// the error function, or by default print and abort.
void fatal_error(QMP_status_t status, const std::string &message);
// The failure just recorded said on stderr ("QMP mN,nM@host error: call:
// why"), as the reference QMP's calls say theirs, unless the application set
// an error function (which heard of it).  By this process; or, for calls
// whose arguments QMP requires to be the same on every node of a
// communicator (QMP_layout_grid, the logical topology), so that all of them
// fail alike, by node 0 of that communicator alone, once (`alike`).
// Returns status.
QMP_status_t said(QMP_status_t status, QMP_comm_t alike = nullptr) noexcept;
// -- qmp_output.cc: the line QMP_error prints, TEXT then NOTE; a line that
// cannot be made is dropped and recorded nowhere.
void say_error_line(const char *text, const char *note) noexcept;
// The same for the calls that answer NULL when they fail.
template <typename T> T said_unless(T result, QMP_comm_t alike = nullptr) noexcept
{
    if (result == nullptr) {
        said(QMP_get_error_number(nullptr), alike);
    }
    return result;
}
// Meridian status -> QMP status (TIMEOUT -> QMP_TIMEOUT, UNREACH ->
// QMP_ERROR, BAD_PARAM -> QMP_INVALID_ARG, OUT_OF_RESOURCE -> QMP_NOMEM_ERR).
QMP_status_t from_meridian(int status);
// QMP_NOT_INITED with its message when QMP is not initialized.
QMP_status_t require_initialized(const char *call);

// -- the C boundary: every extern "C" QMP call runs its body through one of
// these (opal/util/c_boundary.hpp), so an exception becomes a failure the C
// caller reads with QMP_get_error_number / _string(NULL), e.g.
// "QMP_comm_split: out of memory".  Calls answering other than with a status
// give `failed`: NULL for pointers and handles; for int and bool getters
// what the call gives on its other errors (0, -1, QMP_FALSE ...).
inline constexpr CFailure<QMP_status_t> qmp_failure{QMP_NOMEM_ERR, QMP_ERROR,
                                                    record_boundary_failure};

template <typename Body> QMP_status_t qmp_boundary(const char *call, Body &&body) noexcept
{
    return c_boundary(call, qmp_failure, std::forward<Body>(body));
}

template <typename Body, typename T = std::invoke_result_t<Body &>>
T qmp_boundary(const char *call, std::type_identity_t<T> failed, Body &&body) noexcept
{
    return c_boundary(call, CFailure<T>{failed, failed, record_boundary_failure},
                      std::forward<Body>(body));
}

template <typename Body> void qmp_boundary_void(const char *call, Body &&body) noexcept
{
    c_boundary_void(call, std::forward<Body>(body), record_boundary_failure);
}

// -- qmp_comm.cc
// A communicator of `members` (job ranks, this process among them) with the
// given context; registered in state().comms; collectives attached.  With
// the program's MPI part, its MPI communicator is split from parent's (NULL:
// from MPI_COMM_WORLD) by color: every member of parent makes its own
// communicator at the same point (collective over parent).
QMP_comm_t make_comm(std::vector<int> members, std::uint32_t context, int color, int key,
                     int number_of_colors, QMP_comm_t parent);
// The program's MPI part (libqmp_mpi), when it linked one; NULL otherwise.
const meridian_qmp_mpi_t *mpi_part();
// QMP_init_msg_passing: MPI started by the MPI part (when there is one) at
// `*level`, lowered to what MPI gives; QMP_ERROR with "call: why" else.
QMP_status_t start_mpi(const char *call, QMP_thread_level_t *level);
// Before Meridian starts: MPI initialized at `level` when the program
// linked the MPI part and has not (meridian_qmp_mpi_t's init says why).
QMP_status_t init_mpi_first(const char *call, QMP_thread_level_t level);
// After every communicator went: MPI finalized if start_mpi started it.
void stop_mpi();
// Frees the communicator (not the allocated or job one).
QMP_status_t destroy_comm(QMP_comm_t comm);
// QMP_SUCCESS, or QMP_NOT_INITED / QMP_INVALID_ARG (NULL) recorded with
// "call: why".
QMP_status_t check_comm(QMP_comm_t comm, const char *call);

// -- qmp_topology.cc
// The rank in comm of the neighbour at `dir` (+1 / -1) along `axis` of the
// declared logical topology (periodic).  QMP_NONEIGHBOR_INFO without one,
// QMP_INVALID_ARG for a bad axis or dir.
QMP_status_t relative_neighbor(QMP_comm_t comm, int axis, int dir, int *rank);
// QMP_comm_declare_logical_topology_map with `call` naming the caller in
// errors (QMP_TOPOLOGY_EXISTS when the communicator has one).
QMP_status_t declare_topology(QMP_comm_t comm, const int *dims, int ndim, const int *map, int nmap,
                              const char *call);
// Give comm a grid whose numbering is not QMP's: every rank's coordinates
// (flat, dims.size() each, each position once).
void set_grid(QMP_comm_t comm, std::vector<int> dims, std::vector<int> coords_of_rank);

// -- qmp_machine.cc
struct Options;
// At init, with the transport up: the allocated communicator and its grid
// (-qmp-geom, else a mesh or torus from coord, else switched; -qmp-alloc-map),
// the job communicator (-qmp-job) and the default one.  Every process
// computes the same from the same inputs, so nothing is exchanged.
QMP_status_t set_up_machine(const Options &options);

// -- qmp_coll.cc (all collective over the communicator's members)
// Set up a communicator's collective channels (make_comm calls it).
QMP_status_t attach_collectives(QMP_comm_t comm);
// out receives every member's `each` bytes, in communicator rank order.
QMP_status_t allgather(QMP_comm_t comm, const void *in, void *out, std::size_t each);
QMP_status_t barrier(QMP_comm_t comm, int timeout_ms); // < 0: transport's limit

// -- qmp_init.cc
// The State lock at QMP_THREAD_MULTIPLE; an empty guard otherwise.
std::unique_lock<std::recursive_mutex> lock_if_multiple();
// Parse -qmp-geom, -qmp-alloc-map, -qmp-logic-map, -qmp-job and remove
// them from argv (meridian_init has taken --mca / --tune; set_up_machine
// applies these once the transport is up).  Exposed for tests: parses
// without a running job.
struct Options {
    std::vector<int> geom; // -qmp-geom a b c ... ("native": empty, native = true)
    bool geom_native = false;
    std::vector<int> alloc_map; // -qmp-alloc-map
    std::vector<int> logic_map; // -qmp-logic-map
    std::vector<int> job_geom;  // -qmp-job
};
// Removes the options it knows from argc/argv (argv entries are moved, not
// freed).  QMP_INVALID_ARG with "-qmp-geom: expected ..., found ..." on
// bad input (nothing is removed then).
QMP_status_t take_options(int *argc, char ***argv, Options *options);

} // namespace meridian::qmp

#endif
