// SPDX-License-Identifier: BSD-3-Clause
// The collectives' schedules (pure: from where the members run to what each
// one sends, receives and combines, round by round).  See make_schedule in
// qmp_msg.hpp for the shape; qmp_coll.cc runs them.
#include <bit>
#include <cstddef>
#include <unordered_set>
#include <vector>

#include "mca/qmp/qmp_msg.hpp"

namespace meridian::qmp
{
namespace
{

using Group = std::vector<int>; // communicator ranks, ascending

// Recursive doubling over a group.  With p not a power of two, the first
// 2 * (p - p2) members pair up first (p2: the largest power of two not
// above p; the odd one hands its value to the even one and gets the result
// back at the end), so the blocks stay in rank order.  In every exchange
// both partners combine op(lower ranks' part, higher ranks' part): the
// result is the group's values combined in rank order, bit for bit the
// same on every member.
void recursive_doubling(const Group &g, int me, std::vector<Round> &out)
{
    const int p = static_cast<int>(g.size());
    if (p <= 1) {
        return;
    }
    const int p2 = static_cast<int>(std::bit_floor(static_cast<unsigned>(p)));
    const int extra = p - p2;
    auto at = [&g](int index) { return g[static_cast<std::size_t>(index)]; };
    const bool paired = me < 2 * extra;
    if (paired && me % 2 == 1) {
        out.push_back(Round{-1, Post::none, {at(me - 1)}});
        out.push_back(Round{at(me - 1), Post::store, {}});
        return;
    }
    if (paired) {
        out.push_back(Round{at(me + 1), Post::mine_lower, {}});
    }
    // Indices among the p2 that exchange, and back to the group's.
    const int virtual_me = paired ? me / 2 : me - extra;
    auto member = [extra](int v) { return v < extra ? 2 * v : v + extra; };
    for (int mask = 1; mask < p2; mask <<= 1) {
        const int partner = virtual_me ^ mask;
        const int rank = at(member(partner));
        out.push_back(
            Round{rank, partner > virtual_me ? Post::mine_lower : Post::mine_higher, {rank}});
    }
    if (paired) {
        out.push_back(Round{-1, Post::none, {at(me + 1)}});
    }
}

// A binomial reduction to index 0: children (me + 1, me + 2, me + 4, ...)
// in that order, each holding the next higher block, so the value grows
// from the lowest index up.
void binomial_reduce(const Group &g, int me, std::vector<Round> &out)
{
    const int p = static_cast<int>(g.size());
    for (int mask = 1; mask < p; mask <<= 1) {
        if ((me & mask) != 0) {
            out.push_back(Round{-1, Post::none, {g[static_cast<std::size_t>(me - mask)]}});
            return;
        }
        if (me + mask < p) {
            out.push_back(Round{g[static_cast<std::size_t>(me + mask)], Post::mine_lower, {}});
        }
    }
}

// The same tree the other way: from the parent, then to the children,
// largest subtree first.
void binomial_broadcast(const Group &g, int me, std::vector<Round> &out)
{
    const int p = static_cast<int>(g.size());
    if (p <= 1) {
        return;
    }
    int below = static_cast<int>(std::bit_floor(static_cast<unsigned>(p - 1)));
    if (me != 0) {
        const int lowest = me & -me;
        out.push_back(Round{g[static_cast<std::size_t>(me - lowest)], Post::store, {}});
        below = lowest >> 1;
    }
    Round sends;
    for (int mask = below; mask > 0; mask >>= 1) {
        if (me + mask < p) {
            sends.sends.push_back(g[static_cast<std::size_t>(me + mask)]);
        }
    }
    if (!sends.sends.empty()) {
        out.push_back(std::move(sends));
    }
}

// A round that only sends joins the next one: its sends start with that
// round's and are waited for with them (acc does not change in between),
// which saves a wait per level; nothing waits on anything not yet started.
void merge_sends(std::vector<Round> &rounds)
{
    std::vector<Round> merged;
    for (Round &r : rounds) {
        if (!merged.empty() && merged.back().recv < 0) {
            Round &prev = merged.back();
            prev.recv = r.recv;
            prev.post = r.post;
            prev.sends.insert(prev.sends.end(), r.sends.begin(), r.sends.end());
            continue;
        }
        merged.push_back(std::move(r));
    }
    rounds = std::move(merged);
}

int index_of(const Group &g, int rank)
{
    for (std::size_t i = 0; i < g.size(); ++i) {
        if (g[i] == rank) {
            return static_cast<int>(i);
        }
    }
    return -1;
}

} // namespace

unsigned size_class(std::size_t nbytes)
{
    return nbytes <= 8 ? 0u : static_cast<unsigned>(std::bit_width(nbytes - 1)) - 3u;
}

Schedule make_schedule(std::span<const int> node_of, int me)
{
    Group local, leaders;
    std::unordered_set<int> nodes;
    for (std::size_t r = 0; r < node_of.size(); ++r) {
        if (node_of[r] == node_of[static_cast<std::size_t>(me)]) {
            local.push_back(static_cast<int>(r));
        }
        if (nodes.insert(node_of[r]).second) {
            leaders.push_back(static_cast<int>(r));
        }
    }
    const int in_node = index_of(local, me);
    const int in_leaders = index_of(leaders, me); // -1 unless this is its node's leader
    Schedule s;
    if (leaders.size() == 1) {
        recursive_doubling(local, in_node, s.allreduce);
    } else {
        binomial_reduce(local, in_node, s.allreduce);
        if (in_leaders >= 0) {
            recursive_doubling(leaders, in_leaders, s.allreduce);
        }
        binomial_broadcast(local, in_node, s.allreduce);
    }
    // Communicator rank 0 is the first leader and its node's root.
    if (in_leaders >= 0) {
        binomial_broadcast(leaders, in_leaders, s.broadcast);
    }
    binomial_broadcast(local, in_node, s.broadcast);
    merge_sends(s.allreduce);
    merge_sends(s.broadcast);
    return s;
}

} // namespace meridian::qmp
