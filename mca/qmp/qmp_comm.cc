// SPDX-License-Identifier: BSD-3-Clause
// Communicators: the allocated / job / default roles, split, free, and the
// per-communicator node queries.  A communicator is its members (job ranks
// in communicator rank order) and a context that keeps its traffic apart
// from every other communicator sharing a process.
#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "mca/qmp/qmp_internal.hpp"
#include <meridian/opal/runtime/datastore.hpp>

// libqmp_mpi's table (qmp_mpi.h), referred to weakly: NULL unless the
// program linked libqmp_mpi.
extern "C" {
[[gnu::weak, gnu::visibility("default")]] extern const meridian_qmp_mpi_t meridian_qmp_mpi;
}

namespace meridian::qmp
{

const meridian_qmp_mpi_t *mpi_part()
{
    const meridian_qmp_mpi_t *part = &meridian_qmp_mpi;
    return part != nullptr && part->version == MERIDIAN_QMP_MPI_VERSION ? part : nullptr;
}

QMP_status_t start_mpi(const char *call, QMP_thread_level_t *level)
{
    State &s = state();
    const meridian_qmp_mpi_t *part = mpi_part();
    if (part == nullptr) {
        return QMP_SUCCESS;
    }
    char why[512] = "";
    void *world = nullptr;
    int provided = *level;
    if (part->start(s.job->rank, s.job->size, *level, &world, &provided, why, sizeof why) != 0) {
        return set_error(QMP_ERROR, std::string(call) + ": MPI (" + part->library() +
                                        ") could not start under QMP: " + why);
    }
    s.mpi = part;
    s.mpi_world = world;
    if (provided < *level) {
        *level = static_cast<QMP_thread_level_t>(provided);
    }
    return QMP_SUCCESS;
}

namespace
{

// The program's MPI as Meridian's datastore sees a job's exchange
// (datastore::Exchange): what libqmp_mpi's job, allgather and abort do.
class MpiExchange final : public datastore::Exchange
{
  public:
    explicit MpiExchange(const meridian_qmp_mpi_t *part) : part_(part)
    {
        int rank = -1;
        int size = 0;
        part_->job(&rank, &size);
        rank_ = rank >= 0 ? static_cast<std::uint32_t>(rank) : 0;
        size_ = size > 0 ? static_cast<std::uint32_t>(size) : 0;
    }
    std::string name() const override { return "MPI (" + std::string(part_->library()) + ")"; }
    std::uint32_t rank() const override { return rank_; }
    std::uint32_t size() const override { return size_; }
    Result<std::vector<datastore::Bytes>> allgather(std::span<const std::uint8_t> mine) override
    {
        std::vector<datastore::Bytes> all;
        all.reserve(size_);
        char why[512] = "";
        if (part_->allgather(mine.data(), mine.size(), take, &all, why, sizeof why) != 0) {
            return make_error(MERIDIAN_ERROR, why);
        }
        return all;
    }
    void abort(int code) override { part_->abort(code); }

  private:
    // libqmp_mpi's callback, once per rank in order.
    static int take(void *context, int rank, const void *bytes, std::size_t len)
    {
        return c_boundary("the MPI datastore's allgather", [&] {
            auto &all = *static_cast<std::vector<datastore::Bytes> *>(context);
            if (rank != static_cast<int>(all.size())) {
                return MERIDIAN_ERROR;
            }
            const auto *first = static_cast<const std::uint8_t *>(bytes);
            all.emplace_back(first, first + len);
            return MERIDIAN_SUCCESS;
        });
    }

    const meridian_qmp_mpi_t *part_;
    std::uint32_t rank_ = 0;
    std::uint32_t size_ = 0;
};

} // namespace

QMP_status_t init_mpi_first(const char *call, QMP_thread_level_t level)
{
    const meridian_qmp_mpi_t *part = mpi_part();
    if (part == nullptr) {
        return QMP_SUCCESS;
    }
    char why[512] = "";
    int provided = level;
    if (part->init(level, &provided, why, sizeof why) != 0) {
        return set_error(QMP_ERROR, std::string(call) + ": MPI (" + part->library() +
                                        ") could not start under QMP: " + why);
    }
    // Before Meridian starts: its datastore may choose the MPI's job
    // (mca_base_datastore=mpi, or where no PMIx launcher started it).
    datastore::offer_exchange(std::make_shared<MpiExchange>(part));
    return QMP_SUCCESS;
}

void stop_mpi()
{
    State &s = state();
    if (s.mpi != nullptr) {
        s.mpi->stop();
    }
    datastore::offer_exchange(nullptr);
    s.mpi = nullptr;
    s.mpi_world = nullptr;
}

namespace
{

// What each member of the parent says in a split.  Plain fixed-size fields:
// every process of a job runs the same build, so the bytes read alike.
struct SplitEntry {
    std::int32_t color;
    std::int32_t key;
    std::uint32_t next_context;
};

bool in_a_role(QMP_comm_t comm)
{
    const State &s = state();
    return comm == s.allocated || comm == s.job_comm || comm == s.default_comm;
}

} // namespace

QMP_status_t check_comm(QMP_comm_t comm, const char *call)
{
    if (QMP_status_t status = require_initialized(call); status != QMP_SUCCESS) {
        return status;
    }
    if (comm == nullptr) {
        return set_error(QMP_INVALID_ARG, std::string(call) + ": the communicator is NULL");
    }
    return QMP_SUCCESS;
}

namespace
{

// QMP over MPI hands out the MPI communicator under a QMP one (QUDA and
// others then call MPI on it): the address of an MPI_Comm, as there.  A
// program without the MPI part has none.  Programs often use the answer
// without looking at the status, so the reason is printed as well, and the
// pointer is NULL rather than left as it was.
QMP_status_t mpi_comm(const char *call, QMP_comm_t comm, void **out)
{
    if (out != nullptr) {
        *out = nullptr;
    }
    if (QMP_status_t status = check_comm(comm, call); status != QMP_SUCCESS) {
        return status;
    }
    if (out == nullptr) {
        return set_error(QMP_INVALID_ARG, std::string(call) + ": the place for the answer is NULL");
    }
    if (comm->mpi != nullptr) {
        *out = comm->mpi;
        return QMP_SUCCESS;
    }
    const std::string message =
        std::string(call) +
        ": there is no MPI communicator: this program did not link QMP's MPI part "
        "(libqmp_mpi: `qmp-config --mpi --libs`, `pkg-config --libs qmp-mpi`, or CMake's "
        "QMP::qmp), and Meridian's QMP moves its own messages without MPI";
    QMP_error("%s", message.c_str());
    return set_error(QMP_NOTSUPPORTED, message);
}

} // namespace

QMP_comm_t make_comm(std::vector<int> members, std::uint32_t context, int color, int key,
                     int number_of_colors, QMP_comm_t parent)
{
    State &s = state();
    auto comm = std::make_unique<QMP_comm_struct>();
    const auto self = std::find(members.begin(), members.end(), s.job->rank);
    comm->rank = static_cast<int>(self - members.begin());
    comm->size = static_cast<int>(members.size());
    comm->members = std::move(members);
    comm->color = color;
    comm->key = key;
    comm->number_of_colors = number_of_colors;
    comm->context = context;
    if (s.mpi != nullptr) {
        // Keyed by the rank QMP gave: MPI's ranks are QMP's.
        char why[512] = "";
        void *const from = parent != nullptr ? parent->mpi : s.mpi_world;
        if (s.mpi->split(from, color, comm->rank, &comm->mpi, why, sizeof why) != 0) {
            set_error(QMP_ERROR,
                      std::string("the MPI communicator under a QMP communicator could not be "
                                  "made: ") +
                          why);
            return nullptr;
        }
    }
    QMP_comm_t made = comm.get();
    s.comms.push_back(std::move(comm));
    // A communicator whose collectives could not be set up is not kept,
    // whether that was said by a status or by an exception (out of memory).
    QMP_status_t attached = QMP_ERROR;
    try {
        attached = attach_collectives(made);
    } catch (...) {
        s.comms.pop_back();
        throw; // to the caller's guard
    }
    if (attached != QMP_SUCCESS) {
        s.comms.pop_back(); // attach_collectives recorded why
        return nullptr;
    }
    return made;
}

QMP_status_t destroy_comm(QMP_comm_t comm)
{
    State &s = state();
    if (in_a_role(comm) || comm->context == 0) {
        return set_error(QMP_INVALID_ARG,
                         "QMP_comm_free: the communicator is the allocated, job or default one "
                         "(give the role to another with QMP_comm_set_* first)");
    }
    const auto it = std::find_if(s.comms.begin(), s.comms.end(),
                                 [comm](const auto &owned) { return owned.get() == comm; });
    if (it == s.comms.end()) {
        return set_error(QMP_INVALID_ARG,
                         "QMP_comm_free: not a communicator of this QMP (freed already?)");
    }
    s.comms.erase(it); // its collectives go with it
    return QMP_SUCCESS;
}

} // namespace meridian::qmp

using namespace meridian::qmp;

namespace
{

QMP_comm_t role(QMP_comm_t State::*which, const char *call)
{
    if (require_initialized(call) != QMP_SUCCESS) {
        return nullptr;
    }
    return state().*which;
}

QMP_status_t set_role(QMP_comm_t State::*which, QMP_comm_t comm, const char *call)
{
    if (QMP_status_t status = check_comm(comm, call); status != QMP_SUCCESS) {
        return status;
    }
    auto guard = lock_if_multiple();
    state().*which = comm;
    return QMP_SUCCESS;
}

// The members of one colour in the order QMP (MPI) gives them: by key, then
// by rank in the parent.  Keys are usually all equal or already in order,
// which costs one pass; otherwise a stable sort.
std::vector<int> members_of(QMP_comm_t parent, const std::vector<SplitEntry> &all, int color)
{
    std::vector<int> ranks; // parent ranks
    for (int r = 0; r < parent->size; ++r) {
        if (all[static_cast<std::size_t>(r)].color == color) {
            ranks.push_back(r);
        }
    }
    const auto by_key = [&all](int a, int b) {
        return all[static_cast<std::size_t>(a)].key < all[static_cast<std::size_t>(b)].key;
    };
    if (!std::is_sorted(ranks.begin(), ranks.end(), by_key)) {
        std::stable_sort(ranks.begin(), ranks.end(), by_key);
    }
    std::vector<int> members(ranks.size());
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        members[i] = parent->members[static_cast<std::size_t>(ranks[i])];
    }
    return members;
}

// QMP_comm_split's body (collective over comm's members).
QMP_status_t split(QMP_comm_t comm, int color, int key, QMP_comm_t *newcomm)
{
    const char *call = "QMP_comm_split";
    if (QMP_status_t status = check_comm(comm, call); status != QMP_SUCCESS) {
        return status;
    }
    if (newcomm == nullptr) {
        return set_error(QMP_INVALID_ARG, std::string(call) + ": newcomm is NULL");
    }
    // At QMP_THREAD_MULTIPLE the whole split holds the lock: two splits in
    // one process must not both take the same next context.
    auto guard = lock_if_multiple();
    State &s = state();
    // Every member learns every (colour, key) and the next free context of
    // each: the largest is free on all of them, so the new communicators
    // (disjoint, one per colour) share it without clashing.
    const SplitEntry mine{color, key, s.next_context};
    std::vector<SplitEntry> all(static_cast<std::size_t>(comm->size));
    if (QMP_status_t status = allgather(comm, &mine, all.data(), sizeof(SplitEntry));
        status != QMP_SUCCESS) {
        return status;
    }
    std::uint32_t context = 0;
    std::unordered_set<int> colors;
    for (const SplitEntry &e : all) {
        context = std::max(context, e.next_context);
        if (e.color >= 0) {
            colors.insert(e.color);
        }
    }
    s.next_context = context + 1;
    if (color < 0) {
        *newcomm = nullptr; // as MPI_UNDEFINED: in no new communicator
        if (s.mpi != nullptr) {
            // The MPI split is collective over comm: this process takes part.
            char why[512] = "";
            void *none = nullptr;
            if (s.mpi->split(comm->mpi, -1, key, &none, why, sizeof why) != 0) {
                return set_error(QMP_ERROR, std::string(call) + ": MPI's split failed: " + why);
            }
        }
        return QMP_SUCCESS;
    }
    QMP_comm_t made = make_comm(members_of(comm, all, color), context, color, key,
                                static_cast<int>(colors.size()), comm);
    if (made == nullptr) {
        return QMP_get_error_number(nullptr);
    }
    *newcomm = made;
    return QMP_SUCCESS;
}

} // namespace

extern "C" {

QMP_comm_t QMP_comm_get_allocated(void)
{
    return qmp_boundary(__func__, nullptr,
                        [] { return role(&State::allocated, "QMP_comm_get_allocated"); });
}

QMP_status_t QMP_comm_set_allocated(QMP_comm_t comm)
{
    return qmp_boundary(
        __func__, [&] { return set_role(&State::allocated, comm, "QMP_comm_set_allocated"); });
}

QMP_comm_t QMP_comm_get_job(void)
{
    return qmp_boundary(__func__, nullptr,
                        [] { return role(&State::job_comm, "QMP_comm_get_job"); });
}

QMP_status_t QMP_comm_set_job(QMP_comm_t comm)
{
    return qmp_boundary(__func__,
                        [&] { return set_role(&State::job_comm, comm, "QMP_comm_set_job"); });
}

QMP_comm_t QMP_comm_get_default(void)
{
    return qmp_boundary(__func__, nullptr,
                        [] { return role(&State::default_comm, "QMP_comm_get_default"); });
}

QMP_status_t QMP_comm_set_default(QMP_comm_t comm)
{
    return qmp_boundary(
        __func__, [&] { return set_role(&State::default_comm, comm, "QMP_comm_set_default"); });
}

QMP_status_t QMP_comm_split(QMP_comm_t comm, int color, int key, QMP_comm_t *newcomm)
{
    return qmp_boundary(__func__, [&] { return split(comm, color, key, newcomm); });
}

QMP_status_t QMP_comm_free(QMP_comm_t comm)
{
    return qmp_boundary(__func__, [&] {
        if (QMP_status_t status = check_comm(comm, "QMP_comm_free"); status != QMP_SUCCESS) {
            return status;
        }
        auto guard = lock_if_multiple();
        return destroy_comm(comm);
    });
}

int QMP_comm_get_number_of_colors(QMP_comm_t comm)
{
    return qmp_boundary(__func__, 0, [&] {
        return check_comm(comm, "QMP_comm_get_number_of_colors") == QMP_SUCCESS
                   ? comm->number_of_colors
                   : 0;
    });
}

int QMP_comm_get_color(QMP_comm_t comm)
{
    return qmp_boundary(__func__, 0, [&] {
        return check_comm(comm, "QMP_comm_get_color") == QMP_SUCCESS ? comm->color : 0;
    });
}

int QMP_comm_get_key(QMP_comm_t comm)
{
    return qmp_boundary(__func__, 0, [&] {
        return check_comm(comm, "QMP_comm_get_key") == QMP_SUCCESS ? comm->key : 0;
    });
}

QMP_status_t QMP_get_hidden_comm(QMP_comm_t comm, void **hiddencomm)
{
    return qmp_boundary(__func__,
                        [&] { return mpi_comm("QMP_get_hidden_comm", comm, hiddencomm); });
}

QMP_status_t QMP_get_mpi_comm(QMP_comm_t comm, void **mpicomm)
{
    return qmp_boundary(__func__, [&] { return mpi_comm("QMP_get_mpi_comm", comm, mpicomm); });
}

int QMP_comm_get_number_of_nodes(QMP_comm_t comm)
{
    return qmp_boundary(__func__, 0, [&] {
        return check_comm(comm, "QMP_get_number_of_nodes") == QMP_SUCCESS ? comm->size : 0;
    });
}

int QMP_comm_get_node_number(QMP_comm_t comm)
{
    return qmp_boundary(__func__, -1, [&] {
        return check_comm(comm, "QMP_get_node_number") == QMP_SUCCESS ? comm->rank : -1;
    });
}

QMP_bool_t QMP_comm_is_primary_node(QMP_comm_t comm)
{
    return qmp_boundary(__func__, QMP_FALSE, [&] {
        return check_comm(comm, "QMP_is_primary_node") == QMP_SUCCESS && comm->rank == 0
                   ? QMP_TRUE
                   : QMP_FALSE;
    });
}

} // extern "C"
