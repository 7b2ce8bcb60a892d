// SPDX-License-Identifier: BSD-3-Clause
// What both datastore backends share: value names and text, and the choice
// of the process's store (mca_base_datastore).
#include "config.h"

#include <meridian/opal/runtime/datastore.hpp>

#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <type_traits>

#include "opal/mca/base/base_params.hpp"
#include "opal/runtime/job_messages.hpp"
#include <meridian/opal/util/strings.hpp>

namespace meridian::datastore
{

namespace
{

std::string format_double(double value)
{
    // The shortest text that reads back to the same double.
    char buf[64];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
    return ec == std::errc() ? std::string(buf, end) : std::string("nan");
}

std::string format_coordinate(const Coordinate &c)
{
    return "{fabric=" + util::quoted(c.fabric) + ", plane=" + util::quoted(c.plane) +
           ", view=" + view_name(c.view) + ", coord=" + format_coord(c.coord) + "}";
}

template <typename T, typename Format>
std::string format_list(const std::vector<T> &items, std::string_view open,
                        std::string_view separator, std::string_view close, Format format)
{
    std::string out(open);
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) {
            out += separator;
        }
        out += format(items[i]);
    }
    out += close;
    return out;
}

// The process's store; made by store(), dropped by shutdown().
std::unique_ptr<Store> &current()
{
    static std::unique_ptr<Store> instance;
    return instance;
}

// A process started alone: a job of one, named after the process so two
// singletons on one host do not look like one job.
std::unique_ptr<Store> make_singleton_store()
{
    return make_local_store(ProcId{"singleton." + std::to_string(getpid()), 0}, 1);
}

bool launched_by_pmix()
{
    return std::getenv("PMIX_NAMESPACE") != nullptr && std::getenv("PMIX_RANK") != nullptr;
}

// A count from the environment, 0 when unset or not a number.
unsigned long env_count(const char *name)
{
    const char *text = std::getenv(name);
    if (text == nullptr || *text == '\0') {
        return 0;
    }
    char *end = nullptr;
    const unsigned long value = std::strtoul(text, &end, 10);
    return *end == '\0' ? value : 0;
}

std::string env_text(const char *name, const char *otherwise)
{
    const char *text = std::getenv(name);
    return text != nullptr && *text != '\0' ? text : otherwise;
}

// A process that a launcher started as one of several, without PMIx or
// PMI: its peers are running too, each alone, and a job of one each is not
// what was asked.  Why, and the fix; nothing when the process was really
// started alone (or as the only task of a step).
std::optional<std::string> launched_without_pmix()
{
    // srun sets the step's variables in its tasks only (not in the shell of
    // salloc or sbatch), and SLURM_MPI_TYPE to its --mpi plugin.
    if (std::getenv("SLURM_STEP_ID") != nullptr) {
        unsigned long tasks = env_count("SLURM_STEP_NUM_TASKS");
        if (tasks == 0) {
            tasks = env_count("SLURM_NTASKS");
        }
        if (tasks > 1) {
            // srun names the plugin only when it is one (not for --mpi=none).
            const char *plugin = std::getenv("SLURM_MPI_TYPE");
            return "srun started this process as task " + env_text("SLURM_PROCID", "?") + " of " +
                   std::to_string(tasks) +
                   (plugin != nullptr && *plugin != '\0'
                        ? " with MPI plugin \"" + std::string(plugin) + "\", which gives it no PMIx"
                        : std::string(" without PMIx (its --mpi plugin, or the site's "
                                      "MpiDefault, is none or not pmix)")) +
                   ": every task would run as a job of one. Run it with srun --mpi=pmix or "
                   "--mpi=pmi2 (srun --mpi=list shows the plugins this Slurm has; MpiDefault in "
                   "slurm.conf sets the default)";
        }
        return std::nullopt;
    }
    // Cray PALS (aprun's successor on HPE Cray EX): its Cray PMI is not
    // PMIx.
    if (const unsigned long size = env_count("PALS_SIZE");
        size > 1 || (std::getenv("PALS_RANKID") != nullptr && env_count("PMI_SIZE") > 1)) {
        return "Cray PALS started this process as rank " +
               env_text("PALS_RANKID", env_text("PMI_RANK", "?").c_str()) + " of " +
               std::to_string(size > 1 ? size : env_count("PMI_SIZE")) +
               ", whose Cray PMI Meridian does not speak: start it with srun --mpi=pmix or "
               "--mpi=pmi2 where the system's Slurm has them";
    }
    // A PMI-1/PMI-2 launcher's rank and size without its connection
    // (PMI_FD, or PMI_PORT and PMI_ID): one that hands it another way.
    if (const unsigned long size = env_count("PMI_SIZE");
        size > 1 && std::getenv("PMI_RANK") != nullptr) {
        return std::string(std::getenv("FLUX_JOB_ID") != nullptr ? "flux run" : "a PMI launcher") +
               " started this process as rank " + env_text("PMI_RANK", "?") + " of " +
               std::to_string(size) +
               " without a PMI connection (no PMI_FD, nor PMI_PORT and PMI_ID): start it with "
               "MPICH's mpiexec, srun --mpi=pmi2 or --mpi=pmix, flux run -o pmi=simple, or Open "
               "MPI's mpirun";
    }
    // Another MPI's mpirun that gives a size but no PMIx.
    if (const unsigned long size = env_count("OMPI_COMM_WORLD_SIZE"); size > 1) {
        return "Open MPI's mpirun started this process as rank " +
               env_text("OMPI_COMM_WORLD_RANK", "?") + " of " + std::to_string(size) +
               " without PMIx (no PMIX_NAMESPACE in its environment): start it with an "
               "mpirun that runs a PMIx server (Open MPI 2.0 or later)";
    }
    return std::nullopt;
}

} // namespace

std::string_view value_type_name(const Value &value)
{
    static constexpr std::string_view names[] = {
        "bool",  "int64",        "uint64",       "double",      "string",
        "bytes", "string array", "uint32 array", "coordinates", "info list"};
    static_assert(std::size(names) == std::variant_size_v<Value>);
    return names[value.index()];
}

std::string format_value(const Value &value)
{
    return std::visit(
        [](const auto &v) -> std::string {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, bool>) {
                return v ? "true" : "false";
            } else if constexpr (std::is_same_v<T, std::int64_t> ||
                                 std::is_same_v<T, std::uint64_t>) {
                return std::to_string(v);
            } else if constexpr (std::is_same_v<T, double>) {
                return format_double(v);
            } else if constexpr (std::is_same_v<T, std::string>) {
                return util::quoted(v);
            } else if constexpr (std::is_same_v<T, Bytes>) {
                // Hex, so binary keys show up readably: <0a1bff>
                std::string out = "<";
                for (const auto byte : v) {
                    char buf[3];
                    std::snprintf(buf, sizeof buf, "%02x", byte);
                    out += buf;
                }
                return out + ">";
            } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
                return format_list(v, "[", ",", "]", [](const auto &s) { return util::quoted(s); });
            } else if constexpr (std::is_same_v<T, std::vector<std::uint32_t>>) {
                return format_list(v, "[", ",", "]", [](auto n) { return std::to_string(n); });
            } else if constexpr (std::is_same_v<T, std::vector<Coordinate>>) {
                return format_list(v, "[", ", ", "]", format_coordinate);
            } else {
                static_assert(std::is_same_v<T, InfoList>);
                return format_list(v, "{", ", ", "}", [](const Info &info) {
                    return info.key + "=" + format_value(info.value);
                });
            }
        },
        value);
}

std::string format_proc(const ProcId &proc)
{
    if (proc.rank == job_rank) {
        return "job " + proc.nspace;
    }
    return proc.nspace + ":" + std::to_string(proc.rank);
}

namespace
{

std::string slot(const ProcId &proc, std::string_view key)
{
    std::string text;
    text.reserve(proc.nspace.size() + key.size() + 12);
    text += proc.nspace;
    text += '\x1f';
    text += std::to_string(proc.rank);
    text += '\x1f';
    text += key;
    return text;
}

} // namespace

Status Store::store(const ProcId &proc, std::string_view key, Value value)
{
    if (key.empty()) {
        return make_error(MERIDIAN_ERR_BAD_PARAM, "datastore: a key must not be empty");
    }
    stored_.insert_or_assign(slot(proc, key), std::move(value));
    return success();
}

Result<Value> Store::get(const ProcId &proc, std::string_view key) const
{
    if (const Value *value = kept(proc, key)) {
        return *value;
    }
    return fetch(proc, key);
}

const Value *Store::kept(const ProcId &proc, std::string_view key) const
{
    const auto it = stored_.find(slot(proc, key));
    return it != stored_.end() ? &it->second : nullptr;
}

namespace
{

std::shared_ptr<Exchange> &offered()
{
    static std::shared_ptr<Exchange> exchange;
    return exchange;
}

} // namespace

void offer_exchange(std::shared_ptr<Exchange> exchange)
{
    offered() = std::move(exchange);
}

Result<Store *> store()
{
    auto &instance = current();
    if (instance) {
        return instance.get();
    }
    mca::ensure_base_open();
    const std::string_view backend = mca::datastore_backend();
    if (backend == "pmix" || (backend == "auto" && launched_by_pmix())) {
        auto pmix = make_pmix_store();
        if (pmix) {
            instance = std::move(*pmix);
            job_messages::attach(*instance);
            return instance.get();
        }
        if (backend == "pmix") {
            return make_error(pmix.error().status,
                              "mca_base_datastore=pmix: " + pmix.error().message);
        }
        // auto: a PMIx environment we cannot join (e.g. a stale one
        // inherited by a child) leaves the process on its own.
    } else if (backend == "mpi" ||
               (backend == "auto" && offered() != nullptr && offered()->size() > 1)) {
        // The program's MPI runs the job: under a PMI launcher it holds the
        // connection (one PMI client per process), elsewhere it is the one
        // way in.
        if (offered() == nullptr) {
            return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                              "mca_base_datastore=mpi: no MPI offers its job: the program did "
                              "not link QMP's MPI part (libqmp_mpi: `qmp-config --mpi --libs`), "
                              "or it is not in QMP_init_msg_passing, which offers it");
        }
        auto mpi = make_exchange_store(offered());
        if (!mpi) {
            return make_error(mpi.error().status, "mca_base_datastore=" + std::string(backend) +
                                                      ": " + mpi.error().message);
        }
        instance = std::move(*mpi);
        job_messages::attach(*instance);
        return instance.get();
    } else if (backend == "pmi" || backend == "pmi1" || backend == "pmi2" ||
               (backend == "auto" && launched_by_pmi())) {
        // A PMI launcher is not left for a job of one: its other processes
        // wait in its barriers for this one.
        auto pmi = make_pmi_store(backend == "pmi1"   ? PmiVersion::v1
                                  : backend == "pmi2" ? PmiVersion::v2
                                                      : PmiVersion::any);
        if (!pmi) {
            return make_error(pmi.error().status,
                              (backend == "auto"
                                   ? std::string("a PMI launcher started this process: ")
                                   : "mca_base_datastore=" + std::string(backend) + ": ") +
                                  pmi.error().message);
        }
        instance = std::move(*pmi);
        job_messages::attach(*instance);
        return instance.get();
    } else if (backend == "auto") {
        // A launcher that started several without PMIx or PMI: the job would
        // run as that many jobs of one, each saying it is node 0 of 1.
        if (auto why = launched_without_pmix()) {
            return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                              *why + " (or set mca_base_datastore=local to run each process "
                                     "alone)");
        }
    }
    instance = make_singleton_store();
    job_messages::attach(*instance);
    return instance.get();
}

void shutdown()
{
    // What the job's processes said goes out while they can still tell
    // each other.
    job_messages::release();
    current().reset();
}

#ifndef MERIDIAN_HAVE_PMIX
Result<std::unique_ptr<Store>> make_pmix_store()
{
    return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                      "Meridian was built without PMIx (configure found no libpmix-dev), so the "
                      "datastore cannot use it");
}
#endif

} // namespace meridian::datastore
