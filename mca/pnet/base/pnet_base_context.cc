// SPDX-License-Identifier: BSD-3-Clause
// The job's fabric and map for a process that computed nothing of the job
// (the launcher's and the node leader's paths): coord answers coordinate
// and cost queries about any process from them.  They are assembled on the
// first query that needs them, never at start-up, so a process that asks
// nothing pays nothing:
//
//   the job map     PMIx's: the job's nodes with their ranks (local rank =
//                   position on the node), each rank's package from its
//                   locality (pmix.locstr)
//   the fabric      every node's inventory as its lowest rank published it
//                   (key_node_inventory), delivered as in-job mode delivers
//                   them; a node whose inventory is missing runs processes
//                   on no known NIC
//
// This is O(nodes) reads of published values and no allocation.
#include "config.h"

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "mca/pnet/base/pnet_base_internal.hpp"
#include <meridian/mca/coord/base/base.hpp>
#include <meridian/mca/pnet/base/base.hpp>
#include <meridian/opal/runtime/datastore.hpp>
#include <meridian/opal/util/output.hpp>

namespace meridian::pnet::detail
{

namespace
{

// Where PMIx says a process is bound (PMIx 4's locality string).
constexpr std::string_view key_locality = "pmix.locstr";
// How long a read of another node's inventory waits for its publisher.
constexpr std::chrono::seconds publisher_wait{30};

Status place_job()
{
    auto store = datastore::store();
    if (!store) {
        return store.error();
    }
    const datastore::ProcId &self = (*store)->self();
    const std::uint32_t size = (*store)->job_size();
    auto nodes = (*store)->job_nodes();
    if (!nodes) {
        return nodes.error();
    }
    auto fab = std::make_shared<fabric::Fabric>();
    for (const auto &[node, ranks] : *nodes) {
        const std::uint32_t publisher = ranks.front();
        auto inventory =
            publisher == self.rank
                ? (*store)->get(self, key_node_inventory)
                : (*store)->wait_for({self.nspace, publisher}, key_node_inventory, publisher_wait);
        const auto *blobs = inventory ? std::get_if<datastore::InfoList>(&*inventory) : nullptr;
        for (std::size_t i = 0; blobs != nullptr && i < blobs->size(); ++i) {
            const auto &blob = (*blobs)[i];
            const auto *bytes = std::get_if<datastore::Bytes>(&blob.value);
            if (bytes == nullptr) {
                return make_error(MERIDIAN_ERROR, "node " + node + ": the inventory of " +
                                                      blob.key + " is not bytes");
            }
            if (auto delivered = deliver_inventory(node, blob.key, *bytes, *fab); !delivered) {
                return delivered;
            }
        }
        if (auto added = ensure_node(*fab, node); !added) {
            return added.error();
        }
    }
    auto map = std::make_shared<fabric::JobMap>();
    map->nspace = self.nspace;
    map->procs.resize(size);
    std::vector<bool> placed(size, false);
    for (const auto &[node, ranks] : *nodes) {
        const fabric::Index index = *fab->find_node(node);
        map->nodes.push_back(index);
        const auto packages = fab->nodes()[index].packages;
        for (std::uint32_t i = 0; i < ranks.size(); ++i) {
            const std::uint32_t rank = ranks[i];
            if (rank >= size || placed[rank]) {
                return make_error(MERIDIAN_ERROR,
                                  "PMIx places rank " + std::to_string(rank) + " on node " + node +
                                      (rank >= size
                                           ? " (the job has " + std::to_string(size) + " processes)"
                                           : " and on another"));
            }
            placed[rank] = true;
            auto &proc = map->procs[rank];
            proc.node = index;
            proc.local_rank = i;
            auto locality = (*store)->get({self.nspace, rank}, key_locality);
            const auto *text = locality ? std::get_if<std::string>(&*locality) : nullptr;
            const std::int32_t package = text != nullptr ? package_of_locality(*text) : -1;
            proc.package =
                package >= 0 && static_cast<std::uint32_t>(package) < packages ? package : -1;
        }
    }
    for (std::uint32_t rank = 0; rank < size; ++rank) {
        if (!placed[rank]) {
            return make_error(MERIDIAN_ERROR,
                              "PMIx places rank " + std::to_string(rank) + " on no node");
        }
    }
    return coord::set_context(std::move(fab), std::move(map));
}

void place_now()
{
    if (auto placed = place_job(); !placed) {
        report_warning("the job's network coordinates (assembled for a query): " +
                       placed.error().message);
    }
}

} // namespace

Result<fabric::Index> ensure_node(fabric::Fabric &fab, const std::string &node)
{
    if (const auto found = fab.find_node(node)) {
        return *found;
    }
    fabric::Node bare;
    bare.name = node;
    if (auto added = fab.add_node(std::move(bare)); !added) {
        return make_error(added.error().status, "node " + node + ": " + added.error().message);
    }
    return *fab.find_node(node);
}

std::int32_t package_of_locality(std::string_view locality)
{
    const auto at = locality.find("SK");
    if (at == std::string_view::npos) {
        return -1;
    }
    std::size_t end = at + 2;
    std::int32_t package = 0;
    while (end < locality.size() && locality[end] >= '0' && locality[end] <= '9' && end - at < 8) {
        package = package * 10 + (locality[end] - '0');
        ++end;
    }
    if (end == at + 2 || (end < locality.size() && locality[end] != ':')) {
        return -1;
    }
    return package;
}

void place_job_on_demand()
{
    coord::detail::endpoints_from_peers_published(true);
    coord::set_context_provider(place_now);
}

} // namespace meridian::pnet::detail
