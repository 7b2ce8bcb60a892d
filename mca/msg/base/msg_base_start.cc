// Bringing up the selected transport: open and select, learn the job (which
// ranks share a node) through one exchange of node names, then the
// transport's two phases around a second exchange of its addresses.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <unordered_map>
#include <vector>

#include "opal/util/no_destructor.hpp"
#include <meridian/mca/msg/base/base.h>
#include <meridian/mca/msg/msg.h>
#include <meridian/opal/runtime/datastore.hpp>
#include <meridian/opal/util/c_boundary.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>

namespace
{

namespace ds = meridian::datastore;

struct Started {
    bool running = false;
    bool opened_here = false;
    mca_msg_base_module_t *module = nullptr;
    bool can_release = false; // the module has channel_release (msg 2.1)
    std::string component;
    std::string nspace;
    std::vector<int> node_of;
    std::vector<int> local_rank_of;
    mca_msg_job_t job{};
};

Started &started()
{
    static meridian::util::NoDestructor<Started> instance;
    return instance.get();
}

int fail(int rc, const std::string &what)
{
    meridian::report_error("msg: " + what + ": " + meridian_strerror(rc));
    return rc;
}

// Every process publishes its node name; nodes are numbered in order of
// their lowest rank, local ranks in rank order.
int learn_job(Started &s)
{
    auto store = ds::store();
    if (!store) {
        meridian::report_error(store.error().message);
        return store.error().status;
    }
    const ds::Store &st = **store;
    const int rank = static_cast<int>(st.self().rank);
    const int size = static_cast<int>(st.job_size());
    s.nspace = st.self().nspace;
    const std::string &node = st.node_name();
    if (int rc = meridian_mca_msg_base_modex_put("node", node.data(), node.size());
        rc != MERIDIAN_SUCCESS) {
        return fail(rc, "publishing this process's node");
    }
    if (int rc = meridian_mca_msg_base_modex_exchange(); rc != MERIDIAN_SUCCESS) {
        return fail(rc, "exchanging node names");
    }
    s.node_of.assign(static_cast<size_t>(size), 0);
    s.local_rank_of.assign(static_cast<size_t>(size), 0);
    std::unordered_map<std::string, int> node_index;
    std::vector<int> on_node; // processes seen so far per node
    std::string name;
    for (int r = 0; r < size; ++r) {
        if (r == rank) {
            name = node;
        } else {
            size_t len = 256;
            name.assign(len, '\0');
            int rc = meridian_mca_msg_base_modex_get(r, "node", name.data(), &len);
            if (rc == MERIDIAN_ERR_BAD_PARAM) {
                name.assign(len, '\0');
                rc = meridian_mca_msg_base_modex_get(r, "node", name.data(), &len);
            }
            if (rc != MERIDIAN_SUCCESS) {
                return fail(rc, "reading the node of rank " + std::to_string(r));
            }
            name.resize(len);
        }
        auto [it, added] = node_index.try_emplace(name, static_cast<int>(on_node.size()));
        if (added) {
            on_node.push_back(0);
        }
        s.node_of[static_cast<size_t>(r)] = it->second;
        s.local_rank_of[static_cast<size_t>(r)] = on_node[static_cast<size_t>(it->second)]++;
    }
    s.job.rank = rank;
    s.job.size = size;
    s.job.node = s.node_of[static_cast<size_t>(rank)];
    s.job.num_nodes = static_cast<int>(on_node.size());
    s.job.local_rank = s.local_rank_of[static_cast<size_t>(rank)];
    s.job.local_size = on_node[static_cast<size_t>(s.job.node)];
    s.job.node_of = s.node_of.data();
    s.job.local_rank_of = s.local_rank_of.data();
    s.job.nspace = s.nspace.c_str();
    return MERIDIAN_SUCCESS;
}

void close_framework(Started &s)
{
    if (s.opened_here) {
        meridian_mca_base_framework_close(&meridian_msg_base_framework);
        s.opened_here = false;
    }
}

// An exception on the way (no memory, say) closes the framework as each
// failure below does; those that follow the module's init finalize it
// before anything that could throw.
class CloseOnThrow
{
  public:
    explicit CloseOnThrow(Started &s) : s_(s) {}
    ~CloseOnThrow()
    {
        if (std::uncaught_exceptions() > exceptions_) {
            close_framework(s_);
        }
    }
    CloseOnThrow(const CloseOnThrow &) = delete;
    CloseOnThrow &operator=(const CloseOnThrow &) = delete;

  private:
    Started &s_;
    int exceptions_ = std::uncaught_exceptions();
};

// meridian_mca_msg_base_start's body.
int start(mca_msg_base_module_t **module, const mca_msg_job_t **job)
{
    Started &s = started();
    if (module == nullptr || job == nullptr) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    if (s.running) {
        meridian::report_error("msg: the transport is already started");
        return MERIDIAN_ERR_EXISTS;
    }
    mca_base_framework_t *const framework = &meridian_msg_base_framework;
    if (meridian_mca_base_framework_is_open(framework) == 0) {
        // Opening reports its own errors (a bad selection, say).
        if (int rc = meridian_mca_base_framework_open(framework); rc != MERIDIAN_SUCCESS) {
            return fail(rc, "the msg framework could not be opened");
        }
        s.opened_here = true;
    }
    const CloseOnThrow close_on_throw(s);
    mca_base_module_t *selected = nullptr;
    const mca_base_component_t *component = nullptr;
    // meridian_mca_base_select reports "no msg component is available (...)".
    if (int rc = meridian_mca_base_select(framework, &selected, &component);
        rc != MERIDIAN_SUCCESS) {
        close_framework(s);
        return rc;
    }
    s.module = static_cast<mca_msg_base_module_t *>(selected);
    s.component = component->component_name;
    // A component of msg 2.0 has a module that ends before channel_release:
    // the field is read only where the component says it is there.
    s.can_release = component->framework_version.minor >= 1 && s.module->channel_release != nullptr;
    if (int rc = learn_job(s); rc != MERIDIAN_SUCCESS) {
        close_framework(s);
        return rc;
    }
    const std::string who = "the msg transport \"" + s.component + "\"";
    if (int rc = s.module->init(s.module, &s.job); rc != MERIDIAN_SUCCESS) {
        close_framework(s);
        return fail(rc, who + " could not start");
    }
    if (int rc = meridian_mca_msg_base_modex_exchange(); rc != MERIDIAN_SUCCESS) {
        s.module->finalize(s.module);
        close_framework(s);
        return fail(rc, "exchanging the addresses of " + who);
    }
    if (int rc = s.module->connect(s.module); rc != MERIDIAN_SUCCESS) {
        s.module->finalize(s.module);
        close_framework(s);
        return fail(rc, who + " could not connect to its peers");
    }
    meridian_mca_base_framework_verbose(
        framework, MCA_BASE_VERBOSE_INFO,
        "transport %s up: rank %d of %d, node %d of %d, local rank %d of %d", s.component.c_str(),
        s.job.rank, s.job.size, s.job.node, s.job.num_nodes, s.job.local_rank, s.job.local_size);
    s.running = true;
    *module = s.module;
    *job = &s.job;
    return MERIDIAN_SUCCESS;
}

} // namespace

extern "C" {

int meridian_mca_msg_base_start(mca_msg_base_module_t **module, const mca_msg_job_t **job)
{
    return meridian::c_boundary(__func__, [&] { return start(module, job); });
}

int meridian_mca_msg_base_stop(void)
{
    return meridian::c_boundary(__func__, [&]() -> int {
        Started &s = started();
        if (!s.running) {
            return MERIDIAN_ERR_NOT_INITIALIZED;
        }
        s.module->finalize(s.module);
        s.module = nullptr;
        s.running = false;
        s.component.clear();
        close_framework(s);
        return MERIDIAN_SUCCESS;
    });
}

int meridian_mca_msg_base_can_release(void)
{
    return meridian::c_boundary(__func__, meridian::CFailure<int>{0, 0}, [] {
        const Started &s = started();
        return s.running && s.can_release ? 1 : 0;
    });
}

const char *meridian_mca_msg_base_transport_name(void)
{
    return meridian::c_boundary(__func__, meridian::CFailure<const char *>{nullptr, nullptr}, [] {
        Started &s = started();
        return s.running ? s.component.c_str() : nullptr;
    });
}

} // extern "C"
