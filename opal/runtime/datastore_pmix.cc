// SPDX-License-Identifier: BSD-3-Clause
// The PMIx datastore backend (built only when configure found PMIx): the
// process joins the job its PMIx launcher started, publishes with PMIx_Put
// (scope global), exchanges with PMIx_Commit and PMIx_Fence (collecting the
// data) and reads with PMIx_Get.
//
// Every value travels as PMIx's own type, so that any PMIx client reads it
// with PMIx_Get: booleans, integers, doubles, strings and bytes as such;
// arrays as a pmix_data_array_t of PMIX_STRING or PMIX_UINT32; coordinates as
// an array of pmix_coord_t (which has a view and values only: a coordinate's
// fabric and plane names do not travel); info lists as an array of
// pmix_info_t, nested as deep as 32.
#include "config.h"

#include <pmix.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "opal/runtime/datastore_pmix.hpp"
#include "opal/util/no_destructor.hpp"
#include <meridian/opal/runtime/datastore.hpp>
#include <meridian/opal/util/c_boundary.hpp>
#include <meridian/opal/util/output.hpp>
#include <meridian/opal/util/strings.hpp>

namespace meridian::datastore
{

namespace
{

// Info lists nest; a value from elsewhere must not recurse without end.
constexpr int max_depth = 32;

std::string pmix_reason(pmix_status_t rc)
{
    return PMIx_Error_string(rc);
}

// ------------------------------------------------------------ to PMIx
// Every value is built as PMIx's own tree, allocated with malloc as PMIx's
// macros do, so that PMIx_Value_destruct frees it.  Each step leaves the
// tree whole (arrays are zeroed before they are filled), so it is freed
// the same way when an allocation fails half-way.

Status load(pmix_value_t &out, const Value &value, int depth);

Status load_info(pmix_info_t &info, std::string_view key, const Value &value, int depth)
{
    if (key.empty() || key.size() > PMIX_MAX_KEYLEN) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          "expected a key of 1-" + std::to_string(PMIX_MAX_KEYLEN) +
                              " characters in an info list, found " + util::quoted(key));
    }
    std::memcpy(info.key, key.data(), key.size());
    return load(info.value, value, depth + 1);
}

Status load(pmix_value_t &out, const Value &value, int depth)
{
    if (depth > max_depth) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          "info lists nested deeper than " + std::to_string(max_depth));
    }
    return std::visit(
        [&](const auto &v) -> Status {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, bool>) {
                out.type = PMIX_BOOL;
                out.data.flag = v;
            } else if constexpr (std::is_same_v<T, std::int64_t>) {
                out.type = PMIX_INT64;
                out.data.int64 = v;
            } else if constexpr (std::is_same_v<T, std::uint64_t>) {
                out.type = PMIX_UINT64;
                out.data.uint64 = v;
            } else if constexpr (std::is_same_v<T, double>) {
                out.type = PMIX_DOUBLE;
                out.data.dval = v;
            } else if constexpr (std::is_same_v<T, std::string>) {
                out.type = PMIX_STRING;
                out.data.string = copy_text(v);
            } else if constexpr (std::is_same_v<T, Bytes>) {
                out.type = PMIX_BYTE_OBJECT;
                out.data.bo.bytes = zeroed<char>(v.size());
                if (!v.empty()) {
                    std::memcpy(out.data.bo.bytes, v.data(), v.size());
                }
                out.data.bo.size = v.size();
            } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
                char **array = start_array<char *>(out, PMIX_STRING, v.size());
                for (std::size_t i = 0; i < v.size(); ++i) {
                    array[i] = copy_text(v[i]);
                }
            } else if constexpr (std::is_same_v<T, std::vector<std::uint32_t>>) {
                auto *array = start_array<std::uint32_t>(out, PMIX_UINT32, v.size());
                std::copy(v.begin(), v.end(), array);
            } else if constexpr (std::is_same_v<T, std::vector<Coordinate>>) {
                // PMIx 4.2 sends a pmix_coord_t of no dimensions without its
                // (NULL) values and leaves the pointer unset when it reads it
                // back: the receiving process frees garbage.  Refused here.
                for (std::size_t i = 0; i < v.size(); ++i) {
                    if (v[i].coord.empty()) {
                        return make_error(MERIDIAN_ERR_BAD_PARAM,
                                          "coordinate " + std::to_string(i) +
                                              " has no dimensions, which a PMIx coordinate "
                                              "(pmix_coord_t) cannot carry");
                    }
                }
                auto *array = start_array<pmix_coord_t>(out, PMIX_COORD, v.size());
                for (std::size_t i = 0; i < v.size(); ++i) {
                    array[i].view = v[i].view;
                    array[i].coord = zeroed<std::uint32_t>(v[i].coord.size());
                    std::copy(v[i].coord.begin(), v[i].coord.end(), array[i].coord);
                    array[i].dims = v[i].coord.size();
                }
            } else {
                static_assert(std::is_same_v<T, InfoList>);
                auto *array = start_array<pmix_info_t>(out, PMIX_INFO, v.size());
                for (std::size_t i = 0; i < v.size(); ++i) {
                    if (auto loaded = load_info(array[i], v[i].key, v[i].value, depth); !loaded) {
                        return loaded;
                    }
                }
            }
            return success();
        },
        value);
}

// A value PMIx owns, freed however it was left.
class PmixValue
{
  public:
    PmixValue() { std::memset(&value_, 0, sizeof value_); }
    PmixValue(const PmixValue &) = delete;
    PmixValue &operator=(const PmixValue &) = delete;
    ~PmixValue() { PMIx_Value_destruct(&value_); }
    pmix_value_t &get() { return value_; }

  private:
    pmix_value_t value_;
};

// ------------------------------------------------------------ from PMIx

Result<Value> from_pmix(const pmix_value_t &v, std::string_view key, int depth = 0);

Error unreadable(std::string_view key, std::string what)
{
    return make_error(MERIDIAN_ERR_NOT_SUPPORTED, "datastore: the value of " + util::quoted(key) +
                                                      " is " + std::move(what) +
                                                      ", which Meridian does not read");
}

Coordinate coordinate_of(const pmix_coord_t &c)
{
    Coordinate out;
    out.view = c.view;
    if (c.coord != nullptr) {
        out.coord.assign(c.coord, c.coord + c.dims);
    }
    return out;
}

Result<Value> from_array(const pmix_data_array_t &a, std::string_view key, int depth)
{
    switch (a.type) {
    case PMIX_STRING: {
        const auto *items = static_cast<char *const *>(a.array);
        std::vector<std::string> out;
        out.reserve(a.size);
        for (std::size_t i = 0; i < a.size; ++i) {
            out.emplace_back(items[i] != nullptr ? items[i] : "");
        }
        return Value(std::move(out));
    }
    case PMIX_UINT32: {
        const auto *items = static_cast<const std::uint32_t *>(a.array);
        return Value(std::vector<std::uint32_t>(items, items + a.size));
    }
    case PMIX_COORD: {
        const auto *items = static_cast<const pmix_coord_t *>(a.array);
        std::vector<Coordinate> out;
        out.reserve(a.size);
        for (std::size_t i = 0; i < a.size; ++i) {
            out.push_back(coordinate_of(items[i]));
        }
        return Value(std::move(out));
    }
    case PMIX_INFO: {
        const auto *items = static_cast<const pmix_info_t *>(a.array);
        InfoList out;
        out.reserve(a.size);
        for (std::size_t i = 0; i < a.size; ++i) {
            const std::string item_key(items[i].key, strnlen(items[i].key, PMIX_MAX_KEYLEN));
            auto item = from_pmix(items[i].value, item_key, depth + 1);
            if (!item) {
                return item.error();
            }
            out.push_back(Info{item_key, std::move(*item)});
        }
        return Value(std::move(out));
    }
    default:
        return unreadable(key,
                          std::string("an array of PMIx type ") + PMIx_Data_type_string(a.type));
    }
}

Result<Value> from_pmix(const pmix_value_t &v, std::string_view key, int depth)
{
    if (depth > max_depth) {
        return unreadable(key, "info lists nested deeper than " + std::to_string(max_depth));
    }
    switch (v.type) {
    case PMIX_BOOL:
        return Value(v.data.flag);
    case PMIX_INT:
        return Value(static_cast<std::int64_t>(v.data.integer));
    case PMIX_INT8:
        return Value(static_cast<std::int64_t>(v.data.int8));
    case PMIX_INT16:
        return Value(static_cast<std::int64_t>(v.data.int16));
    case PMIX_INT32:
        return Value(static_cast<std::int64_t>(v.data.int32));
    case PMIX_INT64:
        return Value(static_cast<std::int64_t>(v.data.int64));
    case PMIX_UINT:
        return Value(static_cast<std::uint64_t>(v.data.uint));
    case PMIX_UINT8:
        return Value(static_cast<std::uint64_t>(v.data.uint8));
    case PMIX_UINT16:
        return Value(static_cast<std::uint64_t>(v.data.uint16));
    case PMIX_UINT32:
        return Value(static_cast<std::uint64_t>(v.data.uint32));
    case PMIX_UINT64:
        return Value(static_cast<std::uint64_t>(v.data.uint64));
    case PMIX_SIZE:
        return Value(static_cast<std::uint64_t>(v.data.size));
    case PMIX_PROC_RANK:
        return Value(static_cast<std::uint64_t>(v.data.rank));
    case PMIX_FLOAT:
        return Value(static_cast<double>(v.data.fval));
    case PMIX_DOUBLE:
        return Value(v.data.dval);
    case PMIX_STRING:
        return Value(std::string(v.data.string != nullptr ? v.data.string : ""));
    case PMIX_BYTE_OBJECT: {
        const auto *bytes = reinterpret_cast<const std::uint8_t *>(v.data.bo.bytes);
        return Value(bytes != nullptr ? Bytes(bytes, bytes + v.data.bo.size) : Bytes());
    }
    case PMIX_COORD:
        if (v.data.coord == nullptr) {
            return Value(std::vector<Coordinate>());
        }
        return Value(std::vector<Coordinate>{coordinate_of(*v.data.coord)});
    case PMIX_DATA_ARRAY:
        if (v.data.darray == nullptr) {
            return unreadable(key, "an array with no contents");
        }
        return from_array(*v.data.darray, key, depth);
    default:
        return unreadable(key, std::string("of PMIx type ") + PMIx_Data_type_string(v.type));
    }
}

// How a get finds what a collecting fence brought, without waiting for a
// key nobody put.  Through PMIx 4 the fence leaves every peer's data in the
// process: PMIX_OPTIONAL looks only there, and a missing key costs nothing.
// From PMIx 5 on the data stays with the servers: PMIX_OPTIONAL finds
// nothing, PMIX_IMMEDIATE asks the node's server, which answers at once from
// what it holds -- every peer of its node, and under Open MPI 5's mpirun no
// peer of another node (its fence does not spread the data).  A peer of
// another node is then pulled once per fence (PmixStore::pull).  Chosen by
// the libpmix that runs: 4.2 and 5.x share a soname.
bool data_stays_with_servers()
{
    static const bool stays = [] {
        const char *text = PMIx_Get_version(); // "OpenPMIx 5.0.7a1, repo rev: ..."
        while (text != nullptr && *text != '\0' && (*text < '0' || *text > '9')) {
            ++text;
        }
        return (text != nullptr ? std::strtol(text, nullptr, 10) : 0) >= 5;
    }();
    return stays;
}

// Each process's mark of a fence it took part in, under PMIx 5: a get of it
// is a get of a key the peer surely put, which brings all the peer's data
// from its node (PMIx's direct modex).  One key per fence: a key put again
// reads back as it first was.
std::string fence_mark(std::uint64_t fence)
{
    return "meridian.fence." + std::to_string(fence);
}

// Owns what PMIx_Get hands out.
struct PmixValueDeleter {
    void operator()(pmix_value_t *v) const
    {
        PMIx_Value_destruct(v);
        std::free(v);
    }
};
using PmixValuePtr = std::unique_ptr<pmix_value_t, PmixValueDeleter>;

pmix_proc_t to_pmix_proc(const ProcId &proc)
{
    pmix_proc_t out;
    std::memset(&out, 0, sizeof out);
    std::strncpy(out.nspace, proc.nspace.c_str(), PMIX_MAX_NSLEN);
    out.rank = proc.rank == job_rank ? PMIX_RANK_WILDCARD : proc.rank;
    return out;
}

// ------------------------------------------------------------ the store

// ------------------------------------------------------------ events
// PMIx calls one C function for every event; it finds the handlers by code.

struct EventHandlers {
    std::mutex lock;
    std::vector<std::pair<int, Store::EventHandler>> handlers;
};

EventHandlers &event_handlers()
{
    // Never destroyed: PMIx's thread may still call while the process ends.
    static util::NoDestructor<EventHandlers> instance;
    return instance.get();
}

void on_pmix_event(std::size_t, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                   std::size_t ninfo, pmix_info_t *, std::size_t,
                   pmix_event_notification_cbfunc_fn_t done, void *done_data)
{
    c_boundary_void("datastore PMIx event handler", [&] {
        InfoList list;
        for (std::size_t i = 0; i < ninfo; ++i) {
            const std::string key(info[i].key, strnlen(info[i].key, PMIX_MAX_KEYLEN));
            // PMIx adds entries of its own (and other programs theirs):
            // what Meridian cannot read is left out.
            if (auto value = from_pmix(info[i].value, key); value) {
                list.push_back(Info{key, std::move(*value)});
            }
        }
        ProcId from;
        if (source != nullptr) {
            from.nspace.assign(source->nspace, strnlen(source->nspace, PMIX_MAX_NSLEN));
            from.rank = source->rank;
        }
        std::vector<Store::EventHandler> matching;
        {
            EventHandlers &all = event_handlers();
            const std::lock_guard guard(all.lock);
            for (const auto &[code, handler] : all.handlers) {
                if (code == status) {
                    matching.push_back(handler);
                }
            }
        }
        for (const auto &handler : matching) {
            handler(from, list);
        }
    });
    // Let the next handler (the program's own, say) see the event too.
    if (done != nullptr) {
        done(PMIX_SUCCESS, nullptr, 0, nullptr, nullptr, done_data);
    }
}

void forget_handlers(int code)
{
    EventHandlers &all = event_handlers();
    const std::lock_guard guard(all.lock);
    std::erase_if(all.handlers, [code](const auto &entry) { return entry.first == code; });
}

// PMIx's thread: the answer to a registration on_event did not wait for
// (the event code rides in cbdata: nothing to free if PMIx never answers).
void registration_answered(pmix_status_t status, size_t reference, void *cbdata)
{
    (void)reference;
    c_boundary_void("datastore event registration", [&]() {
        if (status == PMIX_SUCCESS) {
            return;
        }
        const int code = static_cast<int>(reinterpret_cast<std::intptr_t>(cbdata));
        forget_handlers(code);
        report_warning("datastore: PMIx_Register_event_handler for event " + std::to_string(code) +
                       " failed: " + pmix_reason(status) + "; this process hears no such event");
    });
}

class PmixStore final : public Store
{
  public:
    explicit PmixStore(const pmix_proc_t &me)
    {
        self_.nspace = me.nspace;
        self_.rank = me.rank;
    }
    PmixStore(const PmixStore &) = delete;
    PmixStore &operator=(const PmixStore &) = delete;
    ~PmixStore() override { (void)PMIx_Finalize(nullptr, 0); }

    // What the launcher knows about the job and this process.
    Status learn_job()
    {
        auto size = get_native(ProcId{self_.nspace, job_rank}, PMIX_JOB_SIZE);
        if (!size) {
            return size.error();
        }
        if (const auto *n = std::get_if<std::uint64_t>(&*size); n != nullptr && *n > 0) {
            job_size_ = static_cast<std::uint32_t>(*n);
        } else {
            return make_error(MERIDIAN_ERROR, "datastore: PMIx gave no usable job size (" +
                                                  format_value(*size) + ")");
        }
        if (auto local = get_native(self_, PMIX_LOCAL_RANK); local) {
            if (const auto *n = std::get_if<std::uint64_t>(&*local)) {
                local_rank_ = static_cast<std::uint32_t>(*n);
            }
        }
        // The job's processes on this node (job-level): their list, which
        // local_peers() answers with, and whose length is PMIX_LOCAL_SIZE --
        // one get for both.  A launcher that gives no list is asked for the
        // number; unknown: job_size().
        local_peers_ = read_local_peers();
        if (*local_peers_ && !(*local_peers_)->empty()) {
            local_size_ = static_cast<std::uint32_t>((*local_peers_)->size());
        } else if (auto local = get_native(ProcId{self_.nspace, job_rank}, PMIX_LOCAL_SIZE);
                   local) {
            if (const auto *n = std::get_if<std::uint64_t>(&*local); n != nullptr && *n > 0) {
                local_size_ = static_cast<std::uint32_t>(*n);
            }
        }
        if (auto host = get_native(self_, PMIX_HOSTNAME);
            host && std::holds_alternative<std::string>(*host)) {
            node_name_ = std::get<std::string>(*host);
        } else {
            char name[256] = {};
            node_name_ =
                gethostname(name, sizeof name - 1) == 0 && name[0] != '\0' ? name : "localhost";
        }
        return success();
    }

    std::string_view backend() const override { return "pmix"; }
    const ProcId &self() const override { return self_; }
    std::uint32_t job_size() const override { return job_size_; }
    const std::string &node_name() const override { return node_name_; }
    std::uint32_t local_rank() const override { return local_rank_; }
    std::uint32_t local_size() const override { return local_size_ != 0 ? local_size_ : job_size_; }

    Status put(std::string_view key, Value value) override
    {
        if (const auto bad = check_key(key); !bad) {
            return bad;
        }
        PmixValue v;
        if (auto loaded = load(v.get(), value, 0); !loaded) {
            return make_error(loaded.error().status, "datastore: PMIx_Put of " + util::quoted(key) +
                                                         ": " + loaded.error().message);
        }
        const std::string k(key);
        if (const pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, k.c_str(), &v.get());
            rc != PMIX_SUCCESS) {
            return make_error(MERIDIAN_ERROR, "datastore: PMIx_Put of " + util::quoted(key) +
                                                  " failed: " + pmix_reason(rc));
        }
        // What this process put, it reads back from here, as PMIx would
        // give it (read back from the PMIx value: a coordinate loses its
        // names), without a round trip through PMIx's thread.
        if (auto back = from_pmix(v.get(), key); back) {
            own_.insert_or_assign(k, std::move(*back));
        } else {
            own_.erase(k);
        }
        return success();
    }

    Status notify(int code, const InfoList &info, EventRange range) override
    {
        return notify_as(self_, code, info, range);
    }

    Status notify_node_from(const ProcId &source, int code, const InfoList &info) override
    {
        return notify_as(source, code, info, EventRange::node);
    }

    // (Touches nothing of this object but what never changes: PMIx's
    // calls are safe from any thread.)
    Status notify_as(const ProcId &source, int code, const InfoList &info, EventRange range) const
    {
        // Only to the handlers registered for this code: a launcher's PMIx
        // server may keep a default handler that takes every event it sees
        // for a failure (Slurm's pmix plugin kills the job step).
        InfoList sent = info;
        sent.push_back({PMIX_EVENT_NON_DEFAULT, true});
        // The info array as a PMIx-owned tree, freed however this ends.
        PmixValue tree;
        if (auto loaded = load(tree.get(), Value(std::move(sent)), 0); !loaded) {
            return make_error(loaded.error().status, "datastore: event " + std::to_string(code) +
                                                         ": " + loaded.error().message);
        }
        const pmix_data_array_t *array = tree.get().data.darray;
        pmix_proc_t from;
        PMIX_LOAD_PROCID(&from, source.nspace.c_str(), source.rank);
        // A NULL callback makes the call blocking: the array stays ours.
        const pmix_status_t rc = PMIx_Notify_event(
            code, &from, range == EventRange::node ? PMIX_RANGE_LOCAL : PMIX_RANGE_NAMESPACE,
            array != nullptr ? static_cast<pmix_info_t *>(array->array) : nullptr,
            array != nullptr ? array->size : 0, nullptr, nullptr);
        if (rc != PMIX_SUCCESS) {
            return make_error(MERIDIAN_ERROR, "datastore: PMIx_Notify_event of event " +
                                                  std::to_string(code) +
                                                  " failed: " + pmix_reason(rc));
        }
        return success();
    }

    Status on_event(int code, EventHandler handler) override
    {
        bool registered = false;
        {
            EventHandlers &all = event_handlers();
            const std::lock_guard guard(all.lock);
            for (const auto &entry : all.handlers) {
                registered = registered || entry.first == code;
            }
            all.handlers.emplace_back(code, std::move(handler));
        }
        if (registered) {
            return success(); // PMIx already calls us for this code
        }
        pmix_status_t codes[] = {code};
        // Not waited for: the server's answer costs a round trip, and PMIx
        // handles the registration before anything this process asks later
        // (one thread, requests in order), so an event sent after a
        // collective call this process took part in reaches it.  A refusal
        // comes to registration_answered() and is told there.
        const pmix_status_t rc =
            PMIx_Register_event_handler(codes, 1, nullptr, 0, on_pmix_event, registration_answered,
                                        reinterpret_cast<void *>(static_cast<std::intptr_t>(code)));
        if (rc != PMIX_SUCCESS) {
            forget_handlers(code);
            return make_error(MERIDIAN_ERROR, "datastore: PMIx_Register_event_handler for event " +
                                                  std::to_string(code) +
                                                  " failed: " + pmix_reason(rc));
        }
        return success();
    }

    // PMIx tells its own process that the server is gone with a local
    // event, PMIX_ERR_LOST_CONNECTION; the handler is called once.
    Status on_launcher_lost(std::function<void()> handler) override
    {
        auto once = std::make_shared<std::once_flag>();
        auto shared = std::make_shared<std::function<void()>>(std::move(handler));
        return on_event(PMIX_ERR_LOST_CONNECTION, [once, shared](const ProcId &, const InfoList &) {
            std::call_once(*once, *shared);
        });
    }

    Status commit() override
    {
        if (const pmix_status_t rc = PMIx_Commit(); rc != PMIX_SUCCESS) {
            return make_error(MERIDIAN_ERROR, "datastore: PMIx_Commit failed: " + pmix_reason(rc));
        }
        return success();
    }

    Status fence() override
    {
        if (data_stays_with_servers()) {
            // This fence's mark, for the peers that will pull this process.
            PmixValue mark;
            mark.get().type = PMIX_BOOL;
            mark.get().data.flag = true;
            const std::string k = fence_mark(fences_ + 1);
            if (const pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, k.c_str(), &mark.get());
                rc != PMIX_SUCCESS) {
                return make_error(MERIDIAN_ERROR, "datastore: PMIx_Put of " + util::quoted(k) +
                                                      " failed: " + pmix_reason(rc));
            }
            if (auto committed = commit(); !committed) {
                return committed;
            }
        }
        pmix_info_t info;
        std::memset(&info, 0, sizeof info);
        bool collect = true;
        (void)PMIx_Info_load(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
        const pmix_status_t rc = PMIx_Fence(nullptr, 0, &info, 1);
        PMIx_Value_destruct(&info.value);
        if (rc != PMIX_SUCCESS) {
            return make_error(MERIDIAN_ERROR, "datastore: PMIx_Fence failed: " + pmix_reason(rc));
        }
        ++fences_;
        pulled_.clear();
        return success();
    }

    void abort_job(int status, std::string_view message) override
    {
        // NULL procs: the whole namespace, which is the job.
        const std::string text(message);
        (void)PMIx_Abort(status, text.c_str(), nullptr, 0);
    }

    Result<Value> wait_for(const ProcId &proc, std::string_view key,
                           std::chrono::milliseconds timeout) const override
    {
        // What this process keeps or put itself; not what it has of a peer
        // (fetch): the blocking get below looks there before it asks the
        // server, and a look of its own costs a trip through PMIx's thread.
        if (const Value *value = kept(proc, key)) {
            return *value;
        }
        if (const Value *value = put_here(proc, key)) {
            return *value;
        }
        if (key.empty() || key.size() > PMIX_MAX_KEYLEN) {
            return missing(proc, key);
        }
        // Not optional: the server holds the request until the process has
        // committed the key.  A server whose launcher cannot hold it (one
        // not yet told of the process, say) answers "not found" at once, and
        // a held request has been seen never to be answered: each attempt
        // waits a second at most, and the next follows a millisecond later,
        // until the time is up.
        const pmix_proc_t p = to_pmix_proc(proc);
        const std::string k(key);
        const auto until = std::chrono::steady_clock::now() + timeout;
        const int seconds = static_cast<int>(
            std::max<std::int64_t>(1, std::chrono::ceil<std::chrono::seconds>(timeout).count()));
        pmix_value_t *raw = nullptr;
        pmix_status_t rc = PMIX_ERR_TIMEOUT;
        // Under PMIx 5 what a process holds of a peer of another node may
        // predate the key, which then reads as "not found": each attempt
        // after the first refreshes that copy, a little less often each
        // time (at most every 50 ms).
        auto pause = std::chrono::milliseconds(1);
        for (bool first = true; first || std::chrono::steady_clock::now() < until; first = false) {
            if (!first) {
                std::this_thread::sleep_for(pause);
                pause = std::min(pause * 2, std::chrono::milliseconds(50));
            }
            pmix_info_t info[2];
            std::memset(info, 0, sizeof info);
            int attempt = 1;
            bool refresh = true;
            (void)PMIx_Info_load(&info[0], PMIX_TIMEOUT, &attempt, PMIX_INT);
            const std::size_t ninfo = !first && data_stays_with_servers() ? 2 : 1;
            if (ninfo == 2) {
                (void)PMIx_Info_load(&info[1], PMIX_GET_REFRESH_CACHE, &refresh, PMIX_BOOL);
            }
            rc = PMIx_Get(&p, k.c_str(), info, ninfo, &raw);
            PMIx_Value_destruct(&info[0].value);
            PMIx_Value_destruct(&info[1].value);
            if (rc != PMIX_ERR_NOT_FOUND && rc != PMIX_ERR_PROC_ENTRY_NOT_FOUND &&
                rc != PMIX_ERR_TIMEOUT) {
                break;
            }
        }
        if (rc == PMIX_ERR_NOT_FOUND || rc == PMIX_ERR_PROC_ENTRY_NOT_FOUND) {
            rc = PMIX_ERR_TIMEOUT; // still nothing when the time was up
        }
        PmixValuePtr value(raw);
        if (rc == PMIX_ERR_TIMEOUT) {
            return make_error(MERIDIAN_ERR_TIMEOUT,
                              "datastore: process " + format_proc(proc) + " did not publish " +
                                  util::quoted(key) + " within " + std::to_string(seconds) + " s");
        }
        if (rc == PMIX_ERR_NOT_FOUND || rc == PMIX_ERR_PROC_ENTRY_NOT_FOUND ||
            (rc == PMIX_SUCCESS && value == nullptr)) {
            return missing(proc, key);
        }
        if (rc != PMIX_SUCCESS) {
            return make_error(MERIDIAN_ERROR, "datastore: PMIx_Get of " + util::quoted(key) +
                                                  " of " + format_proc(proc) +
                                                  " failed: " + pmix_reason(rc));
        }
        return from_pmix(*value, key);
    }

    // What the launcher gave this process first: the job's PMIX_NODE_LIST
    // and each node's PMIX_LOCAL_PEERS.  PMIx 5's PMIx_Resolve_nodes and
    // _peers ask the launcher as well, and Open MPI 5's prints "Query for
    // unrecognized attribute" for each; they remain for a launcher that
    // gives no list or only this node's peers.
    Result<std::vector<NodeRanks>> job_nodes() const override
    {
        std::vector<std::string> names;
        if (auto listed = get_native(ProcId{self_.nspace, job_rank}, PMIX_NODE_LIST);
            listed && std::holds_alternative<std::string>(*listed)) {
            names = util::split(std::get<std::string>(*listed), ',');
        } else {
            char *list = nullptr;
            const pmix_status_t rc = PMIx_Resolve_nodes(self_.nspace.c_str(), &list);
            const std::unique_ptr<char, decltype(&std::free)> owned(list, &std::free);
            if (rc != PMIX_SUCCESS || list == nullptr) {
                return make_error(MERIDIAN_ERROR, "datastore: PMIx does not say the job's nodes "
                                                  "(PMIx_Resolve_nodes: " +
                                                      pmix_reason(rc) + ")");
            }
            names = util::split(list, ',');
        }
        std::vector<NodeRanks> nodes;
        for (auto &node : names) {
            if (node.empty()) {
                continue;
            }
            auto ranks = node_ranks(node);
            if (!ranks) {
                return ranks.error();
            }
            if (!ranks->empty()) {
                nodes.push_back(NodeRanks{std::move(node), std::move(*ranks)});
            }
        }
        return nodes;
    }

    Result<std::vector<std::uint32_t>> local_peers() const override
    {
        return local_peers_ ? *local_peers_ : read_local_peers();
    }

  protected:
    Result<Value> fetch(const ProcId &proc, std::string_view key) const override
    {
        if (key.empty() || key.size() > PMIX_MAX_KEYLEN) {
            return missing(proc, key);
        }
        if (const Value *value = put_here(proc, key)) {
            return *value;
        }
        // What a fence brought (every peer's data after one); a key nobody
        // put must not wait for a server.
        auto got = get_fenced(proc, key);
        if (got || got.error().status != MERIDIAN_ERR_NOT_FOUND || !pull(proc)) {
            return got;
        }
        return get_fenced(proc, key);
    }

  private:
    static Status check_key(std::string_view key)
    {
        if (key.empty() || key.size() > PMIX_MAX_KEYLEN) {
            return make_error(MERIDIAN_ERR_BAD_PARAM,
                              "datastore: expected a key of 1-" + std::to_string(PMIX_MAX_KEYLEN) +
                                  " characters, found " + util::quoted(key));
        }
        return success();
    }

    static Error missing(const ProcId &proc, std::string_view key)
    {
        return make_error(MERIDIAN_ERR_NOT_FOUND, "datastore: no value for " + util::quoted(key) +
                                                      " of " + format_proc(proc) +
                                                      " (PMIx datastore)");
    }

    Result<Value> get_native(const ProcId &proc, std::string_view key,
                             const pmix_info_t *info = nullptr, std::size_t ninfo = 0) const
    {
        const pmix_proc_t p = to_pmix_proc(proc);
        const std::string k(key);
        pmix_value_t *raw = nullptr;
        const pmix_status_t rc = PMIx_Get(&p, k.c_str(), info, ninfo, &raw);
        PmixValuePtr value(raw);
        if (rc == PMIX_ERR_NOT_FOUND || rc == PMIX_ERR_PROC_ENTRY_NOT_FOUND ||
            (rc == PMIX_SUCCESS && value == nullptr)) {
            return missing(proc, key);
        }
        if (rc != PMIX_SUCCESS) {
            return make_error(MERIDIAN_ERROR, "datastore: PMIx_Get of " + util::quoted(key) +
                                                  " of " + format_proc(proc) +
                                                  " failed: " + pmix_reason(rc));
        }
        return from_pmix(*value, key);
    }

    // A get of what this process has after a fence (data_stays_with_servers).
    Result<Value> get_fenced(const ProcId &proc, std::string_view key) const
    {
        pmix_info_t info;
        std::memset(&info, 0, sizeof info);
        bool flag = true;
        (void)PMIx_Info_load(&info, data_stays_with_servers() ? PMIX_IMMEDIATE : PMIX_OPTIONAL,
                             &flag, PMIX_BOOL);
        auto got = get_native(proc, key, &info, 1);
        PMIx_Value_destruct(&info.value);
        return got;
    }

    // Under PMIx 5, the first miss of a peer since the last fence brings
    // all its data here: a get of its mark of that fence (fence_mark),
    // bounded, once.  False when there is nothing to pull (PMIx 4, this
    // process, a job-level value, no fence yet, pulled already).
    bool pull(const ProcId &proc) const
    {
        if (!data_stays_with_servers() || fences_ == 0 || proc.rank == job_rank || proc == self_ ||
            proc.nspace != self_.nspace || !pulled_.insert(proc.rank).second) {
            return false;
        }
        // (refreshed: what this process holds of the peer may be an older
        // fence's)
        pmix_info_t info[2];
        std::memset(info, 0, sizeof info);
        int seconds = pull_seconds;
        bool refresh = true;
        (void)PMIx_Info_load(&info[0], PMIX_TIMEOUT, &seconds, PMIX_INT);
        (void)PMIx_Info_load(&info[1], PMIX_GET_REFRESH_CACHE, &refresh, PMIX_BOOL);
        (void)get_native(proc, fence_mark(fences_), info, 2);
        PMIx_Value_destruct(&info[0].value);
        PMIx_Value_destruct(&info[1].value);
        return true;
    }

    // What this process put under `key`, when `proc` is this process.
    const Value *put_here(const ProcId &proc, std::string_view key) const
    {
        if (proc != self_) {
            return nullptr;
        }
        const auto it = own_.find(key);
        return it != own_.end() ? &it->second : nullptr;
    }

    // PMIX_LOCAL_PEERS, ascending.
    Result<std::vector<std::uint32_t>> read_local_peers() const
    {
        auto peers = get_native(ProcId{self_.nspace, job_rank}, PMIX_LOCAL_PEERS);
        if (!peers) {
            return peers.error();
        }
        return parse_ranks(*peers, PMIX_LOCAL_PEERS);
    }

    // The job's ranks on `node`, ascending: its PMIX_LOCAL_PEERS when the
    // launcher gave them to this process, PMIx_Resolve_peers otherwise.
    Result<std::vector<std::uint32_t>> node_ranks(const std::string &node) const
    {
        pmix_info_t info[2];
        std::memset(info, 0, sizeof info);
        bool optional = true;
        (void)PMIx_Info_load(&info[0], PMIX_HOSTNAME, node.c_str(), PMIX_STRING);
        (void)PMIx_Info_load(&info[1], PMIX_OPTIONAL, &optional, PMIX_BOOL);
        auto peers = get_native(ProcId{self_.nspace, job_rank}, PMIX_LOCAL_PEERS, info, 2);
        PMIx_Value_destruct(&info[0].value);
        PMIx_Value_destruct(&info[1].value);
        if (peers) {
            return parse_ranks(*peers, PMIX_LOCAL_PEERS " of node " + node);
        }
        pmix_proc_t *procs = nullptr;
        std::size_t count = 0;
        const pmix_status_t rc =
            PMIx_Resolve_peers(node.c_str(), self_.nspace.c_str(), &procs, &count);
        if (rc != PMIX_SUCCESS && rc != PMIX_ERR_NOT_FOUND) {
            return make_error(MERIDIAN_ERROR, "datastore: PMIx does not say the job's processes "
                                              "on node " +
                                                  node +
                                                  " (PMIx_Resolve_peers: " + pmix_reason(rc) + ")");
        }
        std::vector<std::uint32_t> ranks;
        for (std::size_t i = 0; i < count; ++i) {
            ranks.push_back(procs[i].rank);
        }
        if (procs != nullptr) {
            PMIX_PROC_FREE(procs, count);
        }
        std::sort(ranks.begin(), ranks.end());
        return ranks;
    }

    // "0,1,5" as ranks of the job, ascending; `what` names the value.
    Result<std::vector<std::uint32_t>> parse_ranks(const Value &value,
                                                   const std::string &what) const
    {
        const auto *text = std::get_if<std::string>(&value);
        if (text == nullptr) {
            return make_error(MERIDIAN_ERROR, "datastore: PMIx gave no list of processes (" + what +
                                                  " is " + std::string(value_type_name(value)) +
                                                  ")");
        }
        std::vector<std::uint32_t> ranks;
        for (const auto &piece : util::split(*text, ',')) {
            char *end = nullptr;
            const unsigned long rank = std::strtoul(piece.c_str(), &end, 10);
            if (piece.empty() || end == nullptr || *end != '\0' || rank >= job_size_) {
                return make_error(MERIDIAN_ERROR, "datastore: " + what + " is " +
                                                      util::quoted(*text) +
                                                      ", expected ranks of the job");
            }
            ranks.push_back(static_cast<std::uint32_t>(rank));
        }
        std::sort(ranks.begin(), ranks.end());
        return ranks;
    }

    ProcId self_;
    std::uint32_t job_size_ = 1;
    std::uint32_t local_rank_ = 0;
    std::uint32_t local_size_ = 0; // 0: PMIx did not say
    std::string node_name_;
    std::map<std::string, Value, std::less<>> own_;                 // what this process put
    std::optional<Result<std::vector<std::uint32_t>>> local_peers_; // read at the start
    // Fences so far, and the peers pulled since the last (PMIx 5).
    std::uint64_t fences_ = 0;
    mutable std::unordered_set<std::uint32_t> pulled_;
    // How long a pull waits for a peer's node (it answers at once when the
    // peer took part in the fence).
    static constexpr int pull_seconds = 10;
};

} // namespace

Status to_pmix_info(pmix_info_t &info, std::string_view key, const Value &value)
{
    return load_info(info, key, value, 0);
}

Result<std::unique_ptr<Store>> make_pmix_store()
{
    pmix_proc_t me;
    std::memset(&me, 0, sizeof me);
    if (const pmix_status_t rc = PMIx_Init(&me, nullptr, 0); rc != PMIX_SUCCESS) {
        return make_error(MERIDIAN_ERR_NOT_AVAILABLE, "PMIx_Init failed: " + pmix_reason(rc));
    }
    auto store = std::make_unique<PmixStore>(me); // PMIx_Finalize from here on
    if (auto learned = store->learn_job(); !learned) {
        return make_error(MERIDIAN_ERR_NOT_AVAILABLE, learned.error().message);
    }
    return std::unique_ptr<Store>(std::move(store));
}

} // namespace meridian::datastore
