// SPDX-License-Identifier: BSD-3-Clause
// pnet/tcp and the host's port ledger (pnet_tcp_claim.hpp; README.md,
// "Port ledger").
#include "components/pnet_tcp/pnet_tcp_claim.hpp"

#include <unistd.h>

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "components/pnet_tcp/pnet_tcp_allocate.hpp"
#include "components/pnet_tcp/pnet_tcp_ledger.hpp"
#include <meridian/mca/pnet/pnet.h>
#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/runtime/datastore.hpp>
#include <meridian/opal/util/output.hpp>
#include <meridian/opal/util/strings.hpp>

namespace meridian::pnet_tcp
{

namespace
{

// This process in the ledger: the file and its job's namespace.
struct Membership {
    std::string path;
    std::string nspace;
};

struct ClaimState {
    std::mutex mutex;
    std::set<std::string, std::less<>> claimed_nodes;
    // The jobs this process is a member of, by namespace: its own, or the
    // jobs a launcher's daemon holds ports for (pnet::host_job).
    std::map<std::string, Membership, std::less<>> members;
};

// The job this process claims and holds ports for on this host: its own
// (the datastore's), or the one a launcher's daemon is setting up, which
// this process holds alone for all of its processes there.
struct Identity {
    std::string nspace;
    std::string node;
    std::uint32_t processes = 1; // the job's processes on this host
    std::uint32_t members = 1;   // of those, the ones that join the entry
};

Result<Identity> identity()
{
    if (const pnet::HostJob *job = pnet::host_job()) {
        return Identity{job->nspace, job->node, std::max<std::uint32_t>(job->processes, 1), 1};
    }
    auto store = datastore::store();
    if (!store) {
        return store.error();
    }
    const std::uint32_t local = std::max<std::uint32_t>((*store)->local_size(), 1);
    return Identity{(*store)->self().nspace, (*store)->node_name(), local, local};
}

ClaimState &state()
{
    static ClaimState instance;
    return instance;
}

const ledger::Running running = [](const ledger::Process &process) {
    return ledger::is_running(process);
};

std::string_view param_text()
{
    const char *text = ledger_param();
    return text != nullptr ? std::string_view(text) : std::string_view();
}

std::size_t protocol_index(std::string_view type)
{
    return type == "udp" ? 1 : 0;
}

bool is_port_type(std::string_view type)
{
    return type == "tcp" || type == "udp";
}

// Ports per pool and protocol that the job's requests may draw on one host.
// A request of another type counts for the default type: when no component
// serves its type it falls back to the default (the claim's surplus goes
// back at setup_local_network).
std::array<std::uint64_t, 2> ports_needed(const std::vector<pnet::Request> &requests,
                                          std::uint32_t local_processes)
{
    const std::string fallback = pnet::default_type();
    std::array<std::uint64_t, 2> need{};
    for (const auto &request : requests) {
        std::string type = request.type ? request.type->value : fallback;
        if (!is_port_type(type)) {
            type = fallback;
        }
        if (!is_port_type(type)) {
            continue;
        }
        need[protocol_index(type)] += request.endpts ? request.endpts->value : 1;
    }
    for (auto &count : need) {
        count = std::min<std::uint64_t>(count * std::max<std::uint32_t>(local_processes, 1), 65536);
    }
    return need;
}

std::string describe(const std::vector<fabric::PortPoolSpec> &pools)
{
    return pools.empty() ? std::string("no ports") : fabric::format_static_ports(pools);
}

// "pnet_tcp: port ledger PATH:LINE:COL: ..." for a ledger that does not
// parse, "pnet_tcp: port ledger: cannot lock ..." otherwise.
std::string trouble(const Error &error)
{
    return std::string("pnet_tcp: port ledger") +
           (error.status == MERIDIAN_ERR_BAD_PARAM ? " " : ": ") + error.message;
}

void verbose(const std::string &text)
{
    meridian_mca_base_framework_verbose(&meridian_pnet_base_framework, MCA_BASE_VERBOSE_INFO, "%s",
                                        text.c_str());
}

// Leave one job's entry under the state's lock.
void leave_locked(ClaimState &s, std::string_view nspace)
{
    const auto it = s.members.find(nspace);
    if (it == s.members.end()) {
        return;
    }
    const Membership member = std::move(it->second);
    s.members.erase(it);
    const ledger::Process me = ledger::this_process();
    // Processes that go on using the job's ports after this one (a node's
    // leader ending first): the entry is theirs from now on.
    std::vector<ledger::Process> heirs;
    if (const pnet::HostJob *job = pnet::host_job();
        job != nullptr && job->nspace == member.nspace) {
        for (const std::int32_t pid : job->heirs) {
            const ledger::Process heir = ledger::process_of(pid);
            if (heir != me && ledger::is_running(heir)) {
                heirs.push_back(heir);
            }
        }
    }
    auto done = ledger::update(member.path, running, [&](auto &entries, const auto &here) {
        ledger::hand_over(entries, here, me, member.nspace, heirs);
    });
    if (!done) {
        report_warning(trouble(done.error()) + "; job " + member.nspace +
                       " did not leave it (its entry goes when its processes are gone)");
        return;
    }
    std::string to;
    for (const auto &heir : heirs) {
        to += (to.empty() ? "" : ", ") + std::to_string(heir.pid);
    }
    verbose(
        "pnet_tcp: job " + member.nspace + ": process " + std::to_string(me.pid) +
        " left the port ledger " + member.path +
        (to.empty() ? std::string() : ", its ports held by process(es) " + to + " from now on"));
}

} // namespace

Status check_ledger_param()
{
    const std::string_view text = param_text();
    if (text.empty() || text == "none" || text[0] == '/') {
        return success();
    }
    // A relative path would name another file in each working directory.
    return make_error(MERIDIAN_ERR_BAD_PARAM,
                      param_where("pnet_tcp_ledger") +
                          ": expected an absolute path, none, or nothing (the default), found " +
                          util::quoted(text));
}

Result<std::optional<std::string>> ledger_path()
{
    const std::string_view text = param_text();
    if (text == "none") {
        return std::optional<std::string>();
    }
    if (!text.empty()) {
        return std::optional<std::string>(std::string(text));
    }
    // One path for every job of this user on the host, whatever its
    // environment says (XDG_RUNTIME_DIR, TMPDIR differ between sessions).
    const std::string directory = "/tmp/meridian-" + std::to_string(::getuid());
    if (auto checked = ledger::check_private_directory(directory); !checked) {
        return make_error(checked.error().status,
                          "pnet_tcp: port ledger: " + checked.error().message +
                              " (set pnet_tcp_ledger to another file, or none)");
    }
    return std::optional<std::string>(directory + "/ports");
}

Result<std::optional<std::vector<fabric::PortPoolSpec>>>
claim_host_ports(const std::vector<fabric::PortPoolSpec> &pools)
{
    using Claimed = std::optional<std::vector<fabric::PortPoolSpec>>;
    if (param_text() == "none") {
        return Claimed();
    }
    auto requests = pnet::requests_from_params();
    if (!requests) {
        return requests.error();
    }
    // A job that asks for no port touches no ledger.
    if (const auto need = ports_needed(*requests, 1); need[0] == 0 && need[1] == 0) {
        return Claimed();
    }
    auto who = identity();
    if (!who) {
        return who.error();
    }
    ledger::ClaimRequest request;
    request.nspace = who->nspace;
    request.expect = who->members;
    request.need = ports_needed(*requests, who->processes);
    request.pools = pools;
    if (request.nspace.empty()) {
        return Claimed();
    }
    auto path = ledger_path();
    if (!path) {
        return path.error();
    }
    if (!*path) {
        return Claimed();
    }
    // Read before the lock: the lock is held as briefly as can be.
    const ledger::HeldPorts held = ledger::held_ports();
    for (const auto &unreadable : held.unreadable) {
        verbose("pnet_tcp: cannot see which ports other programs hold: " + unreadable);
    }
    const ledger::Process me = ledger::this_process();
    std::vector<fabric::PortPoolSpec> claimed;
    ClaimState &s = state();
    const std::lock_guard guard(s.mutex);
    auto done = ledger::update(**path, running, [&](auto &entries, const auto &here) {
        claimed = ledger::claim(entries, here, me, request, held.held);
    });
    if (!done) {
        if (done.error().status == MERIDIAN_ERR_BAD_PARAM) {
            return make_error(done.error().status,
                              trouble(done.error()) +
                                  "; the ledger is left as it is and no ports were claimed: "
                                  "remove the file (the jobs it lists lose their claims) or set "
                                  "pnet_tcp_ledger to another file or none");
        }
        return make_error(done.error().status,
                          trouble(done.error()) +
                              "; no ports were claimed (set pnet_tcp_ledger to another file, or "
                              "none)");
    }
    s.members.insert_or_assign(request.nspace, Membership{**path, request.nspace});
    verbose("pnet_tcp: job " + request.nspace + " claimed " + describe(claimed) +
            " on this host in the port ledger " + **path);
    return Claimed(std::move(claimed));
}

void note_claimed_node(std::string_view node)
{
    ClaimState &s = state();
    const std::lock_guard guard(s.mutex);
    s.claimed_nodes.emplace(node);
    // This process's own host: it is one of the processes the claim
    // expects, and leaves it when it is done even if it never joins (its
    // allocation failed), so that the claim goes without waiting for the
    // grace time.
    auto who = identity();
    if (!who || who->node != node || s.members.find(who->nspace) != s.members.end()) {
        return;
    }
    auto path = ledger_path();
    if (path && *path) {
        s.members.insert_or_assign(who->nspace, Membership{**path, who->nspace});
    }
}

bool ports_are_claimed(std::string_view node)
{
    ClaimState &s = state();
    const std::lock_guard guard(s.mutex);
    return s.claimed_nodes.find(node) != s.claimed_nodes.end();
}

void hold_assigned_ports(const pnet::Job &job, fabric::Index node)
{
    const std::string &name = job.fabric->nodes()[node].name;
    if (!ports_are_claimed(name)) {
        return;
    }
    auto who = identity();
    if (!who || who->nspace != job.map.nspace || who->node != name) {
        return; // not this process's job on its own host
    }
    auto path = ledger_path();
    if (!path || !*path) {
        if (!path) {
            report_warning(path.error().message);
        }
        return;
    }
    ledger::PortsByProtocol assigned;
    for (const auto &grant : job.grants) {
        if (grant.component != component_name || !is_port_type(grant.type)) {
            continue;
        }
        auto &ports = assigned[protocol_index(grant.type)];
        for (std::uint32_t rank = 0; rank < job.map.procs.size(); ++rank) {
            if (job.map.procs[rank].node == node) {
                const auto mine = grant.ports_of(rank);
                ports.insert(ports.end(), mine.begin(), mine.end());
            }
        }
    }
    const std::uint32_t expect = who->members;
    const ledger::Process me = ledger::this_process();
    ClaimState &s = state();
    const std::lock_guard guard(s.mutex);
    auto done = ledger::update(**path, running, [&](auto &entries, const auto &here) {
        ledger::hold(entries, here, me, job.map.nspace, expect, assigned);
    });
    if (!done) {
        report_warning(trouble(done.error()) + "; job " + job.map.nspace +
                       " keeps its ports but the ledger does not show which");
        return;
    }
    s.members.insert_or_assign(job.map.nspace, Membership{**path, job.map.nspace});
    std::string held;
    for (std::size_t p = 0; p < assigned.size(); ++p) {
        if (!assigned[p].empty()) {
            held += std::string(held.empty() ? "" : " and ") + (p == 0 ? "tcp " : "udp ") +
                    fabric::format_port_list(assigned[p]);
        }
    }
    verbose("pnet_tcp: job " + job.map.nspace + ": process " + std::to_string(me.pid) +
            " joined the port ledger " + **path + ", which holds " +
            (held.empty() ? std::string("no ports") : held) + " for the job on this host");
}

void leave_ledger(std::string_view nspace)
{
    ClaimState &s = state();
    const std::lock_guard guard(s.mutex);
    leave_locked(s, nspace);
}

void forget_claims()
{
    ClaimState &s = state();
    const std::lock_guard guard(s.mutex);
    while (!s.members.empty()) {
        leave_locked(s, std::string(s.members.begin()->first));
    }
    s.claimed_nodes.clear();
}

} // namespace meridian::pnet_tcp
