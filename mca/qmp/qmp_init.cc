// SPDX-License-Identifier: BSD-3-Clause
// Init, finalize, abort; QMP's argv options; thread levels.
//
// QMP_init_msg_passing: meridian_init (takes --mca / --tune), then QMP's own
// options, then the transport (meridian_mca_msg_base_start), then the machine and the
// allocated / job / default communicators (qmp_machine.cc).  Each step that
// fails undoes the ones before, so a failed init leaves nothing running.
//
// QMP_finalize_msg_passing ends the session (communicators, channels, the
// transport) but, under a PMIx launcher, not Meridian itself: PMIx clients
// of this generation (4.2, with Open MPI 4.1's server) cannot be started
// again in a process that finalized them, so Meridian -- its datastore,
// hence PMIx -- stays up from the first finalize until the process exits
// (keep_runtime), and a later init takes Meridian's options out of argv
// itself.  A process started alone starts and ends everything each time.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mca/qmp/qmp_internal.hpp"
#include "opal/runtime/job_messages.hpp"
#include "opal/util/no_destructor.hpp"
#include <meridian/mca/msg/base/base.h>
#include <meridian/mca/runtime/meridian.h>
#include <meridian/opal/mca/base/mca_base.h>
#include <meridian/opal/runtime/datastore.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>
#include <meridian/opal/util/strings.hpp>

namespace meridian::qmp
{

State &state()
{
    // Never destroyed: QMP calls may come from other static destructors.
    static util::NoDestructor<State> instance;
    return instance.get();
}

double live_session = std::numeric_limits<double>::quiet_NaN();

std::unique_lock<std::recursive_mutex> lock_if_multiple()
{
    State &s = state();
    if (s.initialized && s.thread_level == QMP_THREAD_MULTIPLE) {
        return std::unique_lock<std::recursive_mutex>(s.lock);
    }
    return {};
}

namespace
{

enum class OptionKind { geom, alloc_map, logic_map, job };

struct OptionSpec {
    std::string_view name;
    OptionKind kind;
    std::string_view expected; // what the values must be, for messages
};

constexpr OptionSpec option_specs[] = {
    {"-qmp-geom", OptionKind::geom, "the allocated dimensions (whole numbers) or native"},
    {"-qmp-alloc-map", OptionKind::alloc_map, "a permutation of the allocated axes (0 1 ...)"},
    {"-qmp-logic-map", OptionKind::logic_map, "a permutation of the logical axes (0 1 ...)"},
    {"-qmp-job", OptionKind::job, "the job geometry (whole numbers)"},
};

std::string join_values(const std::vector<int> &values)
{
    std::string out;
    for (const int v : values) {
        out += (out.empty() ? "" : " ") + std::to_string(v);
    }
    return out;
}

QMP_status_t bad_option(std::string_view name, const std::string &text)
{
    return set_error(QMP_INVALID_ARG, std::string(name) + ": " + text);
}

// Values already parsed: sizes at least 1, maps permutations of 0..n-1.
QMP_status_t check_values(const OptionSpec &spec, const std::vector<int> &values)
{
    if (spec.kind == OptionKind::geom || spec.kind == OptionKind::job) {
        for (const int v : values) {
            if (v < 1) {
                return bad_option(spec.name, "expected whole numbers of at least 1, found " +
                                                 join_values(values));
            }
        }
        return QMP_SUCCESS;
    }
    std::vector<bool> seen(values.size(), false);
    for (const int v : values) {
        if (static_cast<std::size_t>(v) >= values.size() || seen[static_cast<std::size_t>(v)]) {
            return bad_option(spec.name, "expected a permutation of 0.." +
                                             std::to_string(values.size() - 1) + ", found " +
                                             join_values(values));
        }
        seen[static_cast<std::size_t>(v)] = true;
    }
    return QMP_SUCCESS;
}

// argc and argv's entries (with the NULL after the last), to put back.
class ArgvCopy
{
  public:
    ArgvCopy(const int *argc, char **const *argv)
    {
        if (argc != nullptr && argv != nullptr && *argv != nullptr && *argc >= 0) {
            entries_.assign(*argv, *argv + *argc + 1);
        }
    }
    void restore(int *argc, char ***argv) const
    {
        if (!entries_.empty()) {
            std::copy(entries_.begin(), entries_.end(), *argv);
            *argc = static_cast<int>(entries_.size()) - 1;
        }
    }

  private:
    std::vector<char *> entries_;
};

// An init that fails says why where the user sees it, not only in
// QMP_get_error_string (programs seldom print that).
QMP_status_t failed(const char *call, QMP_status_t status)
{
    report_error(std::string(call) + ": " + QMP_get_error_string(nullptr));
    return status;
}

// At the process's exit: the reference keep_runtime took.
void release_runtime()
{
    c_boundary_void("QMP (process exit)", [] {
        State &s = state();
        if (s.runtime_held) {
            s.runtime_held = false;
            meridian_finalize();
        }
    });
}

// Under a launcher (PMIx, PMI), keep Meridian up past this finalize, until the
// process exits.  A PMIx client that was finalized and is started again
// (PMIx_Finalize, then PMIx_Init for the next QMP_init_msg_passing) no
// longer has the job's data, and PMIx_Get can answer a peer's key with this
// process's own value: a peer's shared-memory segment became this process's
// own, and what was sent to that peer was lost (its receive timed out, the
// sender then waited in finalize's barrier).  And a peer that finalizes
// PMIx while this process is already in the next session's first fence
// makes that fence end short; the job's fences then drift apart.
void keep_runtime()
{
    State &s = state();
    if (s.runtime_held) {
        return;
    }
    auto store = datastore::store();
    // (A PMI launcher takes one init per process: the same holds.  The MPI
    // datastore ends with QMP's MPI, which cannot start again.)
    if (!store || (*store)->backend() == "local" || (*store)->backend() == "mpi") {
        return;
    }
    // Counted only: Meridian is running.
    if (meridian_init(nullptr, nullptr) != MERIDIAN_SUCCESS) {
        return;
    }
    if (std::atexit(release_runtime) != 0) {
        meridian_finalize(); // nobody would end PMIx: end it with the session, as before
        return;
    }
    s.runtime_held = true;
}

// Undo a partial init: communicators (their channels) before the transport.
void tear_down(bool transport_started)
{
    State &s = state();
    s.allocated = s.job_comm = s.default_comm = nullptr;
    s.comms.clear(); // MPI's communicators go with them
    s.initialized = false;
    live_session = std::numeric_limits<double>::quiet_NaN();
    if (transport_started) {
        meridian_mca_msg_base_stop();
    }
    s.transport = nullptr;
    s.job = nullptr;
    s.machine = Machine{};
    s.next_context = 1;
    meridian_finalize();
    // Last: Meridian's datastore may be the MPI's (mca_base_datastore=mpi),
    // and the transport's end and Meridian's may still use it.
    stop_mpi();
}

// An exception out of init (no memory, say) undoes what was started and
// gives argv back, as each failure in init does by hand (which disarms this
// first, so nothing is undone twice): a failed init leaves nothing running.
class UndoOnThrow
{
  public:
    UndoOnThrow(const ArgvCopy &given, int *argc, char ***argv)
        : given_(given), argc_(argc), argv_(argv)
    {
    }
    ~UndoOnThrow()
    {
        if (armed_ && std::uncaught_exceptions() > exceptions_) {
            tear_down(meridian_mca_msg_base_transport_name() != nullptr);
            given_.restore(argc_, argv_);
        }
    }
    UndoOnThrow(const UndoOnThrow &) = delete;
    UndoOnThrow &operator=(const UndoOnThrow &) = delete;
    void disarm() { armed_ = false; }

  private:
    const ArgvCopy &given_;
    int *argc_;
    char ***argv_;
    int exceptions_ = std::uncaught_exceptions();
    bool armed_ = true;
};

// required is the level as the caller's int: C may pass any value.
QMP_status_t init(int *argc, char ***argv, int required, QMP_thread_level_t *provided)
{
    const char *call = "QMP_init_msg_passing";
    State &s = state();
    if (s.initialized) {
        // QMP asserts here (and aborts): the error function decides.
        const std::string message =
            std::string(call) + ": QMP is initialized already (QMP_finalize_msg_passing first)";
        fatal_error(QMP_ERROR, message); // records it too
        return QMP_ERROR;
    }
    if (required < QMP_THREAD_SINGLE || required > QMP_THREAD_MULTIPLE) {
        return set_error(QMP_INVALID_ARG, std::string(call) + ": the required thread level " +
                                              std::to_string(required) +
                                              " is not one of QMP_THREAD_SINGLE .. MULTIPLE");
    }
    if (provided == nullptr) {
        return set_error(QMP_INVALID_ARG, std::string(call) + ": provided is NULL");
    }
    // A failed init gives argv back as it came (meridian_init and the
    // options have taken their part out by then).
    const ArgvCopy given(argc, argv);
    const bool running = s.runtime_held;
    // The program's MPI first (its MPI part): Open MPI 5 starts only in a
    // process whose PMIx nobody has initialized yet.
    if (QMP_status_t status = init_mpi_first(call, static_cast<QMP_thread_level_t>(required));
        status != QMP_SUCCESS) {
        report_error(QMP_get_error_string(nullptr));
        return status;
    }
    if (int rc = meridian_init(argc, argv); rc != MERIDIAN_SUCCESS) {
        // meridian_init reported why (it may have taken its options out).
        given.restore(argc, argv);
        return set_error(QMP_RTENV_ERR, std::string(call) +
                                            ": Meridian could not start: " + meridian_strerror(rc));
    }
    // Meridian kept running since an earlier session: meridian_init only
    // counted this one, so its options (--mca, --tune) are taken and
    // applied here.
    if (running) {
        if (int rc = meridian_mca_base_cmdline_apply(argc, argv); rc != MERIDIAN_SUCCESS) {
            meridian_finalize(); // the reference just taken; the held one stays
            given.restore(argc, argv);
            return set_error(QMP_RTENV_ERR, std::string(call) + ": Meridian could not start: " +
                                                meridian_strerror(rc));
        }
    }
    UndoOnThrow undo(given, argc, argv);
    Options options;
    if (QMP_status_t status = take_options(argc, argv, &options); status != QMP_SUCCESS) {
        undo.disarm();
        meridian_finalize();
        given.restore(argc, argv);
        return failed(call, status);
    }
    mca_msg_base_module_t *transport = nullptr;
    const mca_msg_job_t *job = nullptr;
    if (int rc = meridian_mca_msg_base_start(&transport, &job); rc != MERIDIAN_SUCCESS) {
        undo.disarm();
        meridian_finalize(); // the msg base reported why
        given.restore(argc, argv);
        return set_error(QMP_INITSVC_ERR,
                         std::string(call) +
                             ": the msg transport could not start: " + meridian_strerror(rc));
    }
    s.transport = transport;
    s.transport_releases = meridian_mca_msg_base_can_release() != 0;
    s.job = job;
    // Every level is supported: MULTIPLE by the State lock; with the
    // program's MPI part, at most what MPI gives.
    s.thread_level = static_cast<QMP_thread_level_t>(required);
    s.init_time = QMP_time(); // also the session id of handles (qmp_channel.cc)
    s.initialized = true;
    live_session = s.init_time;
    if (QMP_status_t status = start_mpi(call, &s.thread_level); status != QMP_SUCCESS) {
        undo.disarm();
        tear_down(true);
        given.restore(argc, argv);
        report_error(QMP_get_error_string(nullptr));
        return status;
    }
    if (QMP_status_t status = set_up_machine(options); status != QMP_SUCCESS) {
        undo.disarm();
        tear_down(true);
        given.restore(argc, argv);
        return failed(call, status);
    }
    *provided = s.thread_level;
    return QMP_SUCCESS;
}

// Every process arrives before any closes its endpoints, so no transfer in
// flight loses its peer (as MPI_Finalize).  A dead peer makes the barrier
// give up within the transport's limit.
void finalize()
{
    State &s = state();
    if (!s.initialized) {
        require_initialized("QMP_finalize_msg_passing");
        return;
    }
    // Torn down even when the barrier throws.
    struct TearDownAtExit {
        ~TearDownAtExit() { tear_down(true); }
    };
    const TearDownAtExit at_exit{};
    keep_runtime();
    for (const auto &comm : s.comms) {
        if (comm->context == 0) {
            (void)barrier(comm.get(), -1);
            break;
        }
    }
}

// The launcher ends the other processes (as MPI_Abort makes it do), even
// for code 0, after which an exit alone would look like success.
// Whether the launcher was asked (a job of its: PMIx, PMI).
bool end_the_job(int error_code)
{
    if (state().initialized) {
        if (auto store = datastore::store(); store && (*store)->backend() != "local") {
            // What the program wrote goes out before the launcher is told.
            std::fflush(nullptr);
            (*store)->abort_job(error_code, "QMP_abort(" + std::to_string(error_code) + ")");
            return true;
        }
    }
    return false;
}

} // namespace

QMP_status_t take_options(int *argc, char ***argv, Options *options)
{
    *options = Options{};
    if (argc == nullptr || argv == nullptr || *argv == nullptr) {
        return QMP_SUCCESS;
    }
    const int count = *argc;
    char **args = *argv;
    std::vector<bool> drop(static_cast<std::size_t>(std::max(count, 0)), false);
    std::vector<int> seen_at(std::size(option_specs), 0);
    int i = 1;
    while (i < count) {
        const std::string_view arg = args[i];
        const OptionSpec *spec = nullptr;
        std::size_t which = 0;
        for (; which < std::size(option_specs); ++which) {
            if (arg == option_specs[which].name) {
                spec = &option_specs[which];
                break;
            }
        }
        if (spec == nullptr) {
            ++i;
            continue;
        }
        if (seen_at[which] != 0) {
            return bad_option(spec->name, "expected the option once, found it again at argument " +
                                              std::to_string(i) + " (first at argument " +
                                              std::to_string(seen_at[which]) + ")");
        }
        seen_at[which] = i;
        // As QMP: the values are the arguments after the option that start
        // with a digit; each must be a whole number.
        std::vector<int> values;
        int next = i + 1;
        for (; next < count && std::isdigit(static_cast<unsigned char>(args[next][0])) != 0;
             ++next) {
            const auto value = util::parse_uint(args[next], 0, INT32_MAX);
            if (!value) {
                return bad_option(spec->name, "expected " + std::string(spec->expected) +
                                                  ", found " + util::quoted(args[next]));
            }
            values.push_back(static_cast<int>(*value));
        }
        if (values.empty()) {
            if (spec->kind == OptionKind::geom && next < count &&
                std::string_view(args[next]) == "native") {
                options->geom_native = true;
                ++next;
            } else {
                return bad_option(spec->name, "expected " + std::string(spec->expected) +
                                                  ", found " +
                                                  (next < count ? util::quoted(args[next])
                                                                : std::string("end of arguments")));
            }
        } else if (QMP_status_t status = check_values(*spec, values); status != QMP_SUCCESS) {
            return status;
        }
        switch (spec->kind) {
        case OptionKind::geom:
            options->geom = std::move(values);
            break;
        case OptionKind::alloc_map:
            options->alloc_map = std::move(values);
            break;
        case OptionKind::logic_map:
            options->logic_map = std::move(values);
            break;
        case OptionKind::job:
            options->job_geom = std::move(values);
            break;
        }
        for (int k = i; k < next; ++k) {
            drop[static_cast<std::size_t>(k)] = true;
        }
        i = next;
    }
    // Every option was good: take them out, keeping the rest in order.
    int out = 0;
    for (int k = 0; k < count; ++k) {
        if (!drop[static_cast<std::size_t>(k)]) {
            args[out++] = args[k];
        }
    }
    if (out != count) {
        args[out] = nullptr;
        *argc = out;
    }
    return QMP_SUCCESS;
}

} // namespace meridian::qmp

using namespace meridian::qmp;

extern "C" {

QMP_status_t QMP_init_msg_passing(int *argc, char ***argv, QMP_thread_level_t required,
                                  QMP_thread_level_t *provided)
{
    const int level = meridian::c_enum_value(required);
    return qmp_boundary(__func__, [&] { return init(argc, argv, level, provided); });
}

QMP_bool_t QMP_is_initialized(void)
{
    return qmp_boundary(__func__, QMP_FALSE,
                        [] { return state().initialized ? QMP_TRUE : QMP_FALSE; });
}

void QMP_finalize_msg_passing(void)
{
    qmp_boundary_void(__func__, finalize);
}

// Exits whatever happens on the way: QMP_abort never returns.
void QMP_abort(int error_code)
{
    QMP_error("abort: %i", error_code);
    // Nothing waits for the node's printer now: the job is ending.
    qmp_boundary_void(__func__, [] { meridian::job_messages::print_now(); });
    bool launcher_ends_it = false;
    qmp_boundary_void(__func__, [&] { launcher_ends_it = end_the_job(error_code); });
    if (launcher_ends_it) {
        // The launcher is ending the job: nothing is finalized (as
        // MPI_Abort), since finalizing would wait for that launcher, busy
        // killing the job's processes (mpirun answers by a SIGTERM a
        // second later).  The output is flushed.
        std::fflush(nullptr);
        std::_Exit(error_code);
    }
    std::exit(error_code);
}

// C only (two guarded calls): no guard needed.
void QMP_abort_string(int error_code, char *message)
{
    QMP_error("%s", message != nullptr ? message : "");
    QMP_abort(error_code);
}

} // extern "C"
