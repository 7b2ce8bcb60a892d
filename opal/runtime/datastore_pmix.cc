// The PMIx datastore backend (built only when configure found PMIx): the
// process joins the job its PMIx launcher started, publishes with PMIx_Put
// (scope global), exchanges with PMIx_Commit and PMIx_Fence (collecting the
// data) and reads with PMIx_Get.
//
// Booleans, integers, doubles, strings and bytes travel as PMIx's own types,
// so other PMIx programs can read them.  PMIx has no type for the compound
// values (arrays, coordinates, info lists), so they travel as a byte object
// in a small tagged encoding that starts with `magic`; a plain byte value
// that happens to start with the magic is wrapped in the encoding too, so
// reading back is never ambiguous.
#include "config.h"

#include <pmix.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include <meridian/opal/runtime/datastore.hpp>
#include <meridian/opal/util/strings.hpp>

namespace meridian::datastore
{

namespace
{

// "\0MRD" and the encoding's version.
constexpr std::uint8_t magic[] = {0x00, 'M', 'R', 'D', 0x01};
// Info lists nest; a corrupt blob must not recurse without end.
constexpr int max_depth = 32;

// ------------------------------------------------------------ encoding
// Little-endian fixed-width integers; strings and arrays carry a uint32
// count; a value is its variant index (one byte) and its contents.

class Writer
{
  public:
    void u8(std::uint8_t v) { out_.push_back(v); }
    void u32(std::uint32_t v)
    {
        for (int i = 0; i < 4; ++i) {
            out_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
        }
    }
    void u64(std::uint64_t v)
    {
        for (int i = 0; i < 8; ++i) {
            out_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
        }
    }
    void text(std::string_view s)
    {
        u32(static_cast<std::uint32_t>(s.size()));
        out_.insert(out_.end(), s.begin(), s.end());
    }
    void value(const Value &value)
    {
        u8(static_cast<std::uint8_t>(value.index()));
        std::visit([this](const auto &v) { contents(v); }, value);
    }
    Bytes take() { return std::move(out_); }

  private:
    void contents(bool v) { u8(v ? 1 : 0); }
    void contents(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
    void contents(std::uint64_t v) { u64(v); }
    void contents(double v)
    {
        std::uint64_t bits = 0;
        static_assert(sizeof bits == sizeof v);
        std::memcpy(&bits, &v, sizeof bits);
        u64(bits);
    }
    void contents(const std::string &v) { text(v); }
    void contents(const Bytes &v)
    {
        u32(static_cast<std::uint32_t>(v.size()));
        out_.insert(out_.end(), v.begin(), v.end());
    }
    void contents(const std::vector<std::string> &v)
    {
        u32(static_cast<std::uint32_t>(v.size()));
        for (const auto &s : v) {
            text(s);
        }
    }
    void contents(const std::vector<std::uint32_t> &v)
    {
        u32(static_cast<std::uint32_t>(v.size()));
        for (const auto n : v) {
            u32(n);
        }
    }
    void contents(const std::vector<Coordinate> &v)
    {
        u32(static_cast<std::uint32_t>(v.size()));
        for (const auto &c : v) {
            text(c.fabric);
            text(c.plane);
            u8(c.view);
            contents(c.coord);
        }
    }
    void contents(const InfoList &v)
    {
        u32(static_cast<std::uint32_t>(v.size()));
        for (const auto &info : v) {
            text(info.key);
            value(info.value);
        }
    }

    Bytes out_;
};

class Reader
{
  public:
    explicit Reader(std::span<const std::uint8_t> in) : in_(in) {}

    bool done() const { return at_ == in_.size(); }
    bool u8(std::uint8_t &v)
    {
        if (in_.size() - at_ < 1) {
            return false;
        }
        v = in_[at_++];
        return true;
    }
    bool u32(std::uint32_t &v)
    {
        if (in_.size() - at_ < 4) {
            return false;
        }
        v = 0;
        for (int i = 0; i < 4; ++i) {
            v |= static_cast<std::uint32_t>(in_[at_++]) << (8 * i);
        }
        return true;
    }
    bool u64(std::uint64_t &v)
    {
        if (in_.size() - at_ < 8) {
            return false;
        }
        v = 0;
        for (int i = 0; i < 8; ++i) {
            v |= static_cast<std::uint64_t>(in_[at_++]) << (8 * i);
        }
        return true;
    }
    // A count of items of at least `item_size` bytes each: a corrupt count
    // fails here instead of reserving gigabytes.
    bool count(std::uint32_t &n, std::size_t item_size)
    {
        return u32(n) && static_cast<std::uint64_t>(n) * item_size <= in_.size() - at_;
    }
    bool text(std::string &s)
    {
        std::uint32_t n = 0;
        if (!count(n, 1)) {
            return false;
        }
        s.assign(reinterpret_cast<const char *>(in_.data() + at_), n);
        at_ += n;
        return true;
    }
    bool value(Value &out, int depth)
    {
        std::uint8_t tag = 0;
        if (depth > max_depth || !u8(tag)) {
            return false;
        }
        switch (tag) {
        case 0: {
            std::uint8_t b = 0;
            if (!u8(b) || b > 1) {
                return false;
            }
            out = b == 1;
            return true;
        }
        case 1: {
            std::uint64_t v = 0;
            if (!u64(v)) {
                return false;
            }
            out = static_cast<std::int64_t>(v);
            return true;
        }
        case 2: {
            std::uint64_t v = 0;
            if (!u64(v)) {
                return false;
            }
            out = v;
            return true;
        }
        case 3: {
            std::uint64_t bits = 0;
            if (!u64(bits)) {
                return false;
            }
            double v = 0;
            std::memcpy(&v, &bits, sizeof v);
            out = v;
            return true;
        }
        case 4: {
            std::string s;
            if (!text(s)) {
                return false;
            }
            out = std::move(s);
            return true;
        }
        case 5: {
            std::uint32_t n = 0;
            if (!count(n, 1)) {
                return false;
            }
            out = Bytes(in_.begin() + static_cast<std::ptrdiff_t>(at_),
                        in_.begin() + static_cast<std::ptrdiff_t>(at_ + n));
            at_ += n;
            return true;
        }
        case 6: {
            std::vector<std::string> v;
            std::uint32_t n = 0;
            if (!count(n, 4)) {
                return false;
            }
            v.resize(n);
            for (auto &s : v) {
                if (!text(s)) {
                    return false;
                }
            }
            out = std::move(v);
            return true;
        }
        case 7: {
            std::vector<std::uint32_t> v;
            if (!u32_array(v)) {
                return false;
            }
            out = std::move(v);
            return true;
        }
        case 8: {
            std::vector<Coordinate> v;
            std::uint32_t n = 0;
            if (!count(n, 13)) {
                return false;
            }
            v.resize(n);
            for (auto &c : v) {
                if (!text(c.fabric) || !text(c.plane) || !u8(c.view) || !u32_array(c.coord)) {
                    return false;
                }
            }
            out = std::move(v);
            return true;
        }
        case 9: {
            InfoList v;
            std::uint32_t n = 0;
            if (!count(n, 5)) {
                return false;
            }
            v.resize(n);
            for (auto &info : v) {
                if (!text(info.key) || !value(info.value, depth + 1)) {
                    return false;
                }
            }
            out = std::move(v);
            return true;
        }
        default:
            return false;
        }
    }

  private:
    bool u32_array(std::vector<std::uint32_t> &v)
    {
        std::uint32_t n = 0;
        if (!count(n, 4)) {
            return false;
        }
        v.resize(n);
        for (auto &x : v) {
            if (!u32(x)) {
                return false;
            }
        }
        return true;
    }

    std::span<const std::uint8_t> in_;
    std::size_t at_ = 0;
};

bool starts_with_magic(std::span<const std::uint8_t> bytes)
{
    return bytes.size() >= sizeof magic && std::memcmp(bytes.data(), magic, sizeof magic) == 0;
}

Bytes encode(const Value &value)
{
    Writer writer;
    for (const auto b : magic) {
        writer.u8(b);
    }
    writer.value(value);
    return writer.take();
}

// ------------------------------------------------------------ PMIx values

std::string pmix_reason(pmix_status_t rc)
{
    return PMIx_Error_string(rc);
}

// A PMIx value that points into `value` (PMIx_Put copies what it is given).
// Compound values are encoded into `scratch`, which must outlive the call.
pmix_value_t to_pmix(const Value &value, Bytes &scratch)
{
    pmix_value_t out;
    std::memset(&out, 0, sizeof out);
    std::visit(
        [&](const auto &v) {
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
                out.data.string = const_cast<char *>(v.c_str());
            } else {
                out.type = PMIX_BYTE_OBJECT;
                if constexpr (std::is_same_v<T, Bytes>) {
                    if (!starts_with_magic(v)) {
                        out.data.bo.bytes =
                            reinterpret_cast<char *>(const_cast<std::uint8_t *>(v.data()));
                        out.data.bo.size = v.size();
                        return;
                    }
                }
                scratch = encode(value);
                out.data.bo.bytes = reinterpret_cast<char *>(scratch.data());
                out.data.bo.size = scratch.size();
            }
        },
        value);
    return out;
}

Result<Value> from_pmix(const pmix_value_t &v, std::string_view key)
{
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
        const std::span<const std::uint8_t> bytes(
            reinterpret_cast<const std::uint8_t *>(v.data.bo.bytes), v.data.bo.size);
        if (!starts_with_magic(bytes)) {
            return Value(Bytes(bytes.begin(), bytes.end()));
        }
        Reader reader(bytes.subspan(sizeof magic));
        Value value;
        if (!reader.value(value, 0) || !reader.done()) {
            return make_error(MERIDIAN_ERROR, "datastore: the value of " + util::quoted(key) +
                                                  " is a malformed Meridian encoding (" +
                                                  std::to_string(bytes.size()) + " bytes)");
        }
        return value;
    }
    default:
        return make_error(MERIDIAN_ERR_NOT_SUPPORTED,
                          "datastore: the value of " + util::quoted(key) + " has PMIx type " +
                              PMIx_Data_type_string(v.type) + ", which Meridian does not read");
    }
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

class PmixStore final : public Store
{
  public:
    explicit PmixStore(const pmix_proc_t &me) : me_(me)
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

    Status put(std::string_view key, Value value) override
    {
        if (const auto bad = check_key(key); !bad) {
            return bad;
        }
        Bytes scratch;
        pmix_value_t v = to_pmix(value, scratch);
        const std::string k(key);
        if (const pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, k.c_str(), &v); rc != PMIX_SUCCESS) {
            return make_error(MERIDIAN_ERROR, "datastore: PMIx_Put of " + util::quoted(key) +
                                                  " failed: " + pmix_reason(rc));
        }
        return success();
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
        pmix_info_t info;
        std::memset(&info, 0, sizeof info);
        bool collect = true;
        (void)PMIx_Info_load(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
        const pmix_status_t rc = PMIx_Fence(nullptr, 0, &info, 1);
        PMIx_Value_destruct(&info.value);
        if (rc != PMIX_SUCCESS) {
            return make_error(MERIDIAN_ERROR, "datastore: PMIx_Fence failed: " + pmix_reason(rc));
        }
        return success();
    }

    void abort_job(int status, std::string_view message) override
    {
        // NULL procs: the whole namespace, which is the job.
        const std::string text(message);
        (void)PMIx_Abort(status, text.c_str(), nullptr, 0);
    }

  protected:
    Result<Value> fetch(const ProcId &proc, std::string_view key) const override
    {
        if (key.empty() || key.size() > PMIX_MAX_KEYLEN) {
            return missing(proc, key);
        }
        // Look only at what this process already has: after a fence that is
        // every peer's data, and a key nobody put must not wait for a server.
        pmix_info_t info;
        std::memset(&info, 0, sizeof info);
        bool optional = true;
        (void)PMIx_Info_load(&info, PMIX_OPTIONAL, &optional, PMIX_BOOL);
        auto got = get_native(proc, key, &info, 1);
        PMIx_Value_destruct(&info.value);
        return got;
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

    pmix_proc_t me_;
    ProcId self_;
    std::uint32_t job_size_ = 1;
    std::uint32_t local_rank_ = 0;
    std::string node_name_;
};

} // namespace

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
