// SPDX-License-Identifier: BSD-3-Clause
// Bringing the transports up: open and select every msg component, learn
// the job (which ranks share a node, their pids) through one exchange, let
// each transport offer, choose one per peer, then the transports' phases
// around two more exchanges (their addresses; a second round, in which the
// base also checks that the two ends of every pair chose alike).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <vector>

#include <unistd.h>

#include "mca/msg/base/msg_layer.hpp"
#include "mca/msg/base/msg_modex.hpp"
#include "mca/msg/base/msg_proc.hpp"
#include "mca/msg/base/msg_util.hpp"
#include "opal/runtime/job_messages.hpp"
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
// Each process's pid and start time: this node's processes watch it.
using meridian::msg::ProcInfo;

struct Started {
    bool running = false;
    bool opened_here = false;
    std::unique_ptr<meridian::msg::Layer> layer;
    std::vector<mca_msg_transport_t *> transports; // up, best first
    std::string names;                             // "self,sm,tcp"
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

// The launcher is gone (PMIx's thread): every wait fails from now on, and
// the process ends msg_base_launcher_loss seconds later, so that no process
// of a job whose mpirun, prterun or Slurm step ended runs on as an orphan.
void launcher_lost(const std::string &who)
{
    meridian::msg::launcher_gone.store(true);
    // Nothing reaches the node's printer now, and this process may end in
    // a moment: what it says goes out at once.
    meridian::job_messages::print_now();
    const int after_s = meridian::msg::current_params().launcher_loss_s;
    const std::string what =
        who + ": the launcher is gone (the connection to its PMIx server was lost: mpirun, "
              "prterun or the Slurm step ended, or its node)";
    if (after_s < 0) {
        meridian::report_error(what + "; this process runs on (msg_base_launcher_loss -1)");
        return;
    }
    meridian::report_error(
        what + "; this process ends " +
        (after_s == 0 ? std::string("now") : "in " + std::to_string(after_s) + " s") +
        " (msg_base_launcher_loss)");
    // No flush of the program's streams: one may be stuck in a write that
    // never returns, and the process must end anyway (as under SIGKILL).
    auto end = [who, after_s] {
        std::this_thread::sleep_for(std::chrono::seconds(after_s));
        meridian::report_error(who + ": ending: the launcher is gone");
        std::_Exit(EXIT_FAILURE);
    };
    if (after_s == 0) {
        end();
    }
    try {
        std::thread(end).detach();
    } catch (const std::system_error &) {
        end(); // no thread for it: at once
    }
}

// Once per store (Meridian's runtime outlives a QMP session under PMIx):
// the launcher's loss is told to launcher_lost.
void watch_launcher(ds::Store &store, int rank)
{
    static const ds::Store *watched = nullptr;
    if (watched == &store) {
        return;
    }
    watched = &store;
    const std::string who =
        "msg: rank " + std::to_string(rank) + " (node " + store.node_name() + ")";
    if (auto registered = store.on_launcher_lost(
            [who] { meridian::c_boundary_void("msg launcher_lost", [&] { launcher_lost(who); }); });
        !registered) {
        meridian::report_warning(registered.error().message +
                                 ": the loss of the launcher goes unnoticed by this process");
    }
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
    ds::Store &st = **store;
    const int rank = static_cast<int>(st.self().rank);
    watch_launcher(st, rank);
    meridian::msg::modex::begin_session();
    const int size = static_cast<int>(st.job_size());
    s.nspace = st.self().nspace;
    const std::string &node = st.node_name();
    if (int rc = meridian_mca_msg_base_modex_put("node", node.data(), node.size());
        rc != MERIDIAN_SUCCESS) {
        return fail(rc, "publishing this process's node");
    }
    ProcInfo me;
    me.pid = ::getpid();
    me.start_time = meridian::msg::proc::start_time(::getpid());
    if (int rc = meridian::msg::put("proc", me); rc != MERIDIAN_SUCCESS) {
        return fail(rc, "publishing this process's pid");
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
    if (rank == 0) {
        meridian_mca_base_framework_verbose(
            &meridian_msg_base_framework, MCA_BASE_VERBOSE_INFO,
            "the job %s: %d processes on %d node%s, through the %s datastore", s.nspace.c_str(),
            size, s.job.num_nodes, s.job.num_nodes == 1 ? "" : "s",
            std::string(st.backend()).c_str());
    }
    return MERIDIAN_SUCCESS;
}

// The pids of this node's peers, where this process sees the same process
// under that pid (not in another pid namespace: its absence would read as
// death).
void watch_local_peers(Started &s)
{
    for (int r = 0; r < s.job.size; ++r) {
        if (r == s.job.rank || s.node_of[static_cast<std::size_t>(r)] != s.job.node) {
            continue;
        }
        ProcInfo info;
        if (meridian::msg::get(r, "proc", info) == MERIDIAN_SUCCESS && info.start_time != 0 &&
            meridian::msg::proc::start_time(static_cast<pid_t>(info.pid)) == info.start_time) {
            s.layer->watch_pid(r, static_cast<pid_t>(info.pid), info.start_time);
        } else {
            meridian_mca_base_framework_verbose(
                &meridian_msg_base_framework, MCA_BASE_VERBOSE_INFO,
                "rank %d: its pid is not visible here; a wait finds its death only through its "
                "transport or msg_base_timeout",
                r);
        }
    }
}

void drop_layer(Started &s)
{
    meridian::msg::current_layer = nullptr;
    s.layer.reset();
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

// One selected transport: its component's name and module, its offers,
// the peers it was given.
struct Selected {
    std::string name;
    mca_msg_transport_t *module = nullptr;
    // Its start_direct: only a component built for interface 3.1 or later
    // has the field (an older one's module ends before it).
    int (*start_direct)(mca_msg_channel_t *) = nullptr;
    int offer[3] = {}; // self, this node, other nodes
    std::vector<unsigned char> peers;
    std::size_t count = 0; // of peers
    int best = 0;          // its highest offer among its peers
    bool initialized = false;
};

enum Class { self_class = 0, node_class = 1, remote_class = 2 };

Class class_of(const mca_msg_job_t &job, int rank)
{
    return rank == job.rank                                          ? self_class
           : job.node_of[static_cast<std::size_t>(rank)] == job.node ? node_class
                                                                     : remote_class;
}

// The transport for a peer of the given class among offers: the highest
// offer, ties to the name first in alphabetical order (the list is in that
// order); -1 when none reaches it.
template <typename Offers> int choose(const Offers &offers, Class c)
{
    int best = -1;
    for (std::size_t i = 0; i < offers.size(); ++i) {
        const int value = offers[i].offer[c];
        if (value > 0 && (best < 0 || value > offers[static_cast<std::size_t>(best)].offer[c])) {
            best = static_cast<int>(i);
        }
    }
    return best;
}

// What a process publishes of its choice ("self:100,0,0;sm:0,80,0;..."), so
// each end of a pair can check that the other chose alike.
struct Offer {
    std::string name;
    int offer[3] = {};
};

std::string offers_text(const std::vector<Selected> &transports)
{
    std::string text;
    for (const Selected &t : transports) {
        text += (text.empty() ? "" : ";") + t.name + ":" + std::to_string(t.offer[0]) + "," +
                std::to_string(t.offer[1]) + "," + std::to_string(t.offer[2]);
    }
    return text;
}

std::vector<Offer> parse_offers(const std::string &text)
{
    std::vector<Offer> offers;
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t end = text.find(';', at);
        if (end == std::string::npos) {
            end = text.size();
        }
        const std::string item = text.substr(at, end - at);
        at = end + 1;
        Offer offer;
        const std::size_t colon = item.find(':');
        if (colon == std::string::npos ||
            std::sscanf(item.c_str() + colon + 1, "%d,%d,%d", &offer.offer[0], &offer.offer[1],
                        &offer.offer[2]) != 3) {
            continue;
        }
        offer.name = item.substr(0, colon);
        offers.push_back(std::move(offer));
    }
    return offers;
}

std::string names_of(const std::vector<Selected> &transports)
{
    std::string names;
    for (const Selected &t : transports) {
        names += (names.empty() ? "" : ", ") + t.name;
    }
    return names.empty() ? "none" : names;
}

void finalize_all(std::vector<Selected> &transports)
{
    for (Selected &t : transports) {
        if (t.initialized) {
            t.module->finalize(t.module);
            t.initialized = false;
        }
    }
}

// Does peer r reach this process through the transport this process chose
// for it?  Its offers say (every transport's offer depends only on the
// class of the peer).  An error message when not.
std::string check_pair(const Started &s, int r, const std::string &mine,
                       const std::string &theirs_text)
{
    const std::vector<Offer> theirs = parse_offers(theirs_text);
    const int c = class_of(s.job, r) == node_class ? node_class : remote_class;
    const int pick = choose(theirs, static_cast<Class>(c));
    const std::string their_choice =
        pick < 0 ? "no transport" : theirs[static_cast<std::size_t>(pick)].name;
    if (their_choice == mine) {
        return {};
    }
    return "msg: rank " + std::to_string(r) + " reaches rank " + std::to_string(s.job.rank) +
           " through " + their_choice + ", rank " + std::to_string(s.job.rank) +
           " reaches it through " + mine +
           " (set msg and the msg_*_priority parameters alike everywhere; transports and "
           "offers of rank " +
           std::to_string(r) + ": " + theirs_text + ")";
}

// meridian_mca_msg_base_start's body.
int start(mca_msg_base_module_t **module, const mca_msg_job_t **job)
{
    Started &s = started();
    if (module == nullptr || job == nullptr) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    if (s.running) {
        meridian::report_error("msg: the transports are already started");
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
    mca_base_selected_t selected[32];
    std::size_t count = 0;
    if (int rc = meridian_mca_base_select_all(framework, selected, 32, &count);
        rc != MERIDIAN_SUCCESS || count == 0) {
        if (rc == MERIDIAN_SUCCESS) {
            meridian::report_error("msg: no msg transport is available (see msg_base_verbose)");
            rc = MERIDIAN_ERR_NOT_FOUND;
        }
        close_framework(s);
        return rc;
    }
    std::vector<Selected> transports;
    for (std::size_t i = 0; i < std::min<std::size_t>(count, 32); ++i) {
        Selected t;
        t.name = selected[i].component->component_name;
        t.module = static_cast<mca_msg_transport_t *>(selected[i].module);
        if (selected[i].component->framework_version.minor >= 1 &&
            (t.module->flags & MCA_MSG_TRANSPORT_MATCHES) != 0) {
            t.start_direct = t.module->start_direct;
        }
        transports.push_back(std::move(t));
    }
    // Alphabetical: ties between offers go to the name first in this order,
    // in every process alike.
    std::sort(transports.begin(), transports.end(),
              [](const Selected &a, const Selected &b) { return a.name < b.name; });
    if (int rc = learn_job(s); rc != MERIDIAN_SUCCESS) {
        close_framework(s);
        return rc;
    }
    const mca_msg_job_t &j = s.job;
    for (Selected &t : transports) {
        if (int rc = t.module->offer(t.module, &j, t.offer); rc != MERIDIAN_SUCCESS) {
            // A setting that cannot work (a provider that is not there) is
            // a mistake on one node as on many: the transport said why.
            drop_layer(s);
            close_framework(s);
            return fail(rc, "the msg transport \"" + t.name + "\" cannot run with its settings");
        }
        t.peers.assign(static_cast<std::size_t>(j.size), 0);
    }
    s.layer = std::make_unique<meridian::msg::Layer>(j, meridian::msg::current_params());
    meridian::msg::current_layer = s.layer.get();
    watch_local_peers(s);
    std::vector<int> chosen(static_cast<std::size_t>(j.size), -1);
    for (int r = 0; r < j.size; ++r) {
        const Class c = class_of(j, r);
        const int pick = choose(transports, c);
        if (pick < 0) {
            meridian::report_error(
                "msg: no msg transport reaches rank " + std::to_string(r) +
                (c == self_class   ? " (this process)"
                 : c == node_class ? " (on this node)"
                                   : " (on another node)") +
                " from rank " + std::to_string(j.rank) + "; the selected ones are " +
                names_of(transports) +
                (c == self_class ? " (the self transport carries a process's messages to itself)"
                                 : ""));
            drop_layer(s);
            close_framework(s);
            return MERIDIAN_ERR_UNREACH;
        }
        Selected &t = transports[static_cast<std::size_t>(pick)];
        t.peers[static_cast<std::size_t>(r)] = 1;
        ++t.count;
        t.best = std::max(t.best, t.offer[c]);
        chosen[static_cast<std::size_t>(r)] = pick;
        s.layer->set_transport(r, t.module, t.start_direct);
    }
    // Transports given no peer go now; the rest are progressed best first.
    std::vector<Selected *> active;
    for (Selected &t : transports) {
        if (t.count > 0) {
            active.push_back(&t);
        } else {
            meridian_mca_base_framework_verbose(framework, MCA_BASE_VERBOSE_DEBUG,
                                                "transport %s: no peer of rank %d needs it",
                                                t.name.c_str(), j.rank);
        }
    }
    std::stable_sort(active.begin(), active.end(),
                     [](const Selected *a, const Selected *b) { return a->best > b->best; });
    const std::string mine = offers_text(transports);
    int status = meridian_mca_msg_base_modex_put("offers", mine.data(), mine.size());
    if (status != MERIDIAN_SUCCESS) {
        meridian::report_error("msg: cannot publish this process's transports");
    }
    for (Selected *t : active) {
        if (status != MERIDIAN_SUCCESS) {
            break;
        }
        status = t->module->init(t->module, &j, t->peers.data());
        if (status != MERIDIAN_SUCCESS) {
            fail(status, "the msg transport \"" + t->name + "\" could not start");
            break;
        }
        t->initialized = true;
        s.layer->add_active(t->module);
    }
    if (status != MERIDIAN_SUCCESS) {
        finalize_all(transports);
        drop_layer(s);
        close_framework(s);
        return status;
    }
    if (int rc = meridian_mca_msg_base_modex_exchange(); rc != MERIDIAN_SUCCESS) {
        drop_layer(s);
        finalize_all(transports);
        close_framework(s);
        return fail(rc, "exchanging the transports' addresses");
    }
    // Each end of a pair chose alike?  Peers whose offers read like this
    // process's chose alike without a look.
    std::string text(256, '\0');
    for (int r = 0; r < j.size && status == MERIDIAN_SUCCESS; ++r) {
        if (r == j.rank) {
            continue;
        }
        size_t len = text.size();
        int rc = meridian_mca_msg_base_modex_get(r, "offers", text.data(), &len);
        if (rc == MERIDIAN_ERR_BAD_PARAM) {
            text.assign(len, '\0');
            rc = meridian_mca_msg_base_modex_get(r, "offers", text.data(), &len);
        }
        if (rc != MERIDIAN_SUCCESS) {
            meridian::report_error("msg: rank " + std::to_string(r) +
                                   " published no msg transports (is it running another "
                                   "version of Meridian?)");
            status = MERIDIAN_ERR_UNREACH;
            break;
        }
        const std::string theirs(text.data(), len);
        if (theirs == mine) {
            continue;
        }
        const std::string why = check_pair(
            s, r, transports[static_cast<std::size_t>(chosen[static_cast<std::size_t>(r)])].name,
            theirs);
        if (!why.empty()) {
            meridian::report_error(why);
            status = MERIDIAN_ERR_UNREACH;
        }
    }
    for (Selected *t : active) {
        if (status != MERIDIAN_SUCCESS) {
            break;
        }
        status = t->module->connect(t->module);
        if (status != MERIDIAN_SUCCESS) {
            fail(status, "the msg transport \"" + t->name + "\" could not connect to its peers");
        }
    }
    // The second round, in every process even after an error (the others
    // wait in it).
    if (int rc = meridian_mca_msg_base_modex_exchange();
        rc != MERIDIAN_SUCCESS && status == MERIDIAN_SUCCESS) {
        status = fail(rc, "the transports' second exchange");
    }
    for (Selected *t : active) {
        if (status != MERIDIAN_SUCCESS) {
            break;
        }
        status = t->module->ready(t->module);
        if (status != MERIDIAN_SUCCESS) {
            fail(status, "the msg transport \"" + t->name + "\" could not get ready");
        }
    }
    if (status != MERIDIAN_SUCCESS) {
        drop_layer(s);
        finalize_all(transports);
        close_framework(s);
        return status;
    }
    s.transports.clear();
    s.names.clear();
    for (Selected *t : active) {
        s.transports.push_back(t->module);
        s.names += (s.names.empty() ? "" : ",") + t->name;
    }
    for (int r = 0; r < j.size; ++r) {
        meridian_mca_base_framework_verbose(framework, MCA_BASE_VERBOSE_INFO,
                                            "rank %d -> rank %d: %s", j.rank, r,
                                            s.layer->path_name(r));
    }
    meridian_mca_base_framework_verbose(
        framework, MCA_BASE_VERBOSE_INFO,
        "transports up (%s): rank %d of %d, node %d of %d, local rank %d of %d", s.names.c_str(),
        j.rank, j.size, j.node, j.num_nodes, j.local_rank, j.local_size);
    s.running = true;
    *module = &meridian::msg::channel_interface;
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
        s.running = false;
        // Channels go first (their transports' state with them), then each
        // transport delivers what it was given and closes.
        s.layer->drop_all();
        for (mca_msg_transport_t *t : s.transports) {
            t->finalize(t);
        }
        s.transports.clear();
        drop_layer(s);
        s.names.clear();
        close_framework(s);
        return MERIDIAN_SUCCESS;
    });
}

int meridian_mca_msg_base_can_release(void)
{
    return meridian::c_boundary(__func__, meridian::CFailure<int>{0, 0},
                                [] { return started().running ? 1 : 0; });
}

int meridian_mca_msg_base_launcher_gone(void)
{
    return meridian::c_boundary(__func__, meridian::CFailure<int>{0, 0},
                                [] { return meridian::msg::launcher_gone.load() ? 1 : 0; });
}

const char *meridian_mca_msg_base_transport_name(void)
{
    return meridian::c_boundary(__func__, meridian::CFailure<const char *>{nullptr, nullptr}, [] {
        Started &s = started();
        return s.running ? s.names.c_str() : nullptr;
    });
}

} // extern "C"

namespace meridian::msg
{

std::atomic<bool> launcher_gone{false};

Layer *current_layer = nullptr;

} // namespace meridian::msg
