// SPDX-License-Identifier: BSD-3-Clause
// The local datastore backend: the process's own table.  A singleton is a
// job of one, so there is nobody to exchange with and fence returns at once;
// tools that model a whole job (meridian_netmap) give a job size and store()
// values about every process.
#include <meridian/opal/runtime/datastore.hpp>

#include <unistd.h>

#include <string>
#include <unordered_map>
#include <utility>

#include <meridian/opal/util/strings.hpp>

namespace meridian::datastore
{

namespace
{

class LocalStore final : public Store
{
  public:
    LocalStore(ProcId self, std::uint32_t job_size, std::string node_name)
        : self_(std::move(self)), job_size_(job_size), node_name_(std::move(node_name))
    {
    }

    std::string_view backend() const override { return "local"; }
    const ProcId &self() const override { return self_; }
    std::uint32_t job_size() const override { return job_size_; }
    const std::string &node_name() const override { return node_name_; }
    // The processes of a local job all live here.
    std::uint32_t local_rank() const override { return self_.rank; }

    // What this process publishes is visible to itself at once (as with
    // PMIx); there are no peers to commit to.
    Status put(std::string_view key, Value value) override
    {
        if (key.empty()) {
            return make_error(MERIDIAN_ERR_BAD_PARAM, "datastore: a key must not be empty");
        }
        published_.insert_or_assign(std::string(key), std::move(value));
        return success();
    }
    Status commit() override { return success(); }
    Status fence() override { return success(); }
    void abort_job(int, std::string_view) override {}

  protected:
    Result<Value> fetch(const ProcId &proc, std::string_view key) const override
    {
        if (proc == self_) {
            if (const auto it = published_.find(std::string(key)); it != published_.end()) {
                return it->second;
            }
        }
        return make_error(MERIDIAN_ERR_NOT_FOUND, "datastore: no value for " + util::quoted(key) +
                                                      " of " + format_proc(proc) +
                                                      " (local datastore)");
    }

  private:
    ProcId self_;
    std::uint32_t job_size_;
    std::string node_name_;
    std::unordered_map<std::string, Value> published_;
};

} // namespace

std::unique_ptr<Store> make_local_store(ProcId self, std::uint32_t job_size, std::string node_name)
{
    if (node_name.empty()) {
        char name[256] = {};
        node_name = gethostname(name, sizeof name - 1) == 0 && name[0] != '\0' ? name : "localhost";
    }
    return std::make_unique<LocalStore>(std::move(self), job_size == 0 ? 1 : job_size,
                                        std::move(node_name));
}

} // namespace meridian::datastore
