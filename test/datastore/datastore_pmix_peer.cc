// SPDX-License-Identifier: BSD-3-Clause
// Run under `mpirun -np 2` by datastore_pmix.sh: each rank puts one value of
// every type (made different per rank), commits, fences, and reads its
// peer's back through the PMIx backend, comparing them in full (PMIx's own
// types: coordinates come back without their fabric and plane names).  Also: what
// PMIx says about the job, a missing key's message, and store() winning over
// the published value.  Prints "rank R: ok" or the differences; exit 0/1.
#include <cstdio>
#include <string>

#include <meridian/mca/runtime/meridian.h>
#include <meridian/opal/runtime/datastore.hpp>

using namespace meridian;
using namespace meridian::datastore;

namespace
{

int failures = 0;

void check(bool ok, const std::string &what)
{
    if (!ok) {
        ++failures;
        std::printf("FAIL: %s\n", what.c_str());
    }
}

Coordinate c_of(std::uint32_t rank)
{
    Coordinate c;
    c.view = MERIDIAN_COORD_LOGICAL_VIEW;
    c.coord = {rank};
    return c;
}

InfoList values_of(std::uint32_t rank)
{
    const auto r = static_cast<std::uint32_t>(rank);
    Coordinate c;
    c.fabric = "ethernet";
    c.plane = "10.10." + std::to_string(r) + ".0/24";
    c.view = MERIDIAN_COORD_PHYSICAL_VIEW;
    c.coord = {r, 0, 2};
    Coordinate other;
    other.view = 9;
    other.coord = {r};
    return {
        {"t.bool", r % 2 == 0},
        {"t.int64", std::int64_t{-1000} - r},
        {"t.uint64", std::uint64_t{UINT64_MAX} - r},
        {"t.double", 0.25 + r},
        {"t.string", "rank " + std::to_string(r) + " \"quoted\""},
        {"t.empty", std::string()},
        {"t.bytes", Bytes{0x00, 0xff, static_cast<std::uint8_t>(r)}},
        {"t.strings", std::vector<std::string>{"eth" + std::to_string(r), "", "ib0"}},
        {"t.uint32s", std::vector<std::uint32_t>{32000 + r, UINT32_MAX}},
        {"t.coords", std::vector<Coordinate>{c, other}},
        {"t.no_strings", std::vector<std::string>{}},
        {"t.no_coords", std::vector<Coordinate>{}},
        {"t.info", InfoList{{"pmix.alloc.netid", std::string("id") + std::to_string(r)},
                            {"nested", InfoList{{"x", std::uint64_t{r}}, {"y", Bytes{}}}},
                            {"z", std::vector<std::uint32_t>{r, 7}},
                            {"c", std::vector<Coordinate>{c}}}},
    };
}

// A value as it comes back: pmix_coord_t has no fabric and plane names.
Value travelled(Value value)
{
    if (auto *coords = std::get_if<std::vector<Coordinate>>(&value)) {
        for (auto &c : *coords) {
            c.fabric.clear();
            c.plane.clear();
        }
    } else if (auto *list = std::get_if<InfoList>(&value)) {
        for (auto &info : *list) {
            info.value = travelled(std::move(info.value));
        }
    }
    return value;
}

} // namespace

int main()
{
    auto opened = datastore::store();
    if (!opened) {
        std::printf("FAIL: store(): %s\n", opened.error().message.c_str());
        return 1;
    }
    Store &store = **opened;
    const std::uint32_t me = store.self().rank;
    check(store.backend() == "pmix", "backend is " + std::string(store.backend()));
    check(store.job_size() == 2, "job size " + std::to_string(store.job_size()));
    check(store.local_rank() == me, "local rank " + std::to_string(store.local_rank()));
    check(!store.node_name().empty(), "node name is empty");

    for (const auto &info : values_of(me)) {
        auto put = store.put(info.key, info.value);
        check(put.ok(), "put " + info.key + (put ? "" : ": " + put.error().message));
    }
    // A coordinate without values cannot travel as a pmix_coord_t (PMIx 4.2
    // reads its values back as a wild pointer): refused, saying why.
    Coordinate flat;
    flat.view = MERIDIAN_COORD_LOGICAL_VIEW;
    auto refused = store.put("t.flat", std::vector<Coordinate>{c_of(me), flat});
    check(!refused && refused.error().status == MERIDIAN_ERR_BAD_PARAM &&
              refused.error().message ==
                  "datastore: PMIx_Put of \"t.flat\": coordinate 1 has no dimensions, which a "
                  "PMIx coordinate (pmix_coord_t) cannot carry",
          "a coordinate without values: " +
              (refused ? std::string("accepted") : refused.error().message));
    check(store.commit().ok(), "commit");
    check(store.fence().ok(), "fence");

    const std::uint32_t peer = 1 - me;
    const ProcId peer_id{store.self().nspace, peer};
    for (const auto &info : values_of(peer)) {
        auto got = store.get(peer_id, info.key);
        if (!got) {
            check(false, "get " + info.key + ": " + got.error().message);
            continue;
        }
        const Value expected = travelled(info.value);
        check(*got == expected, "peer's " + info.key + " is " + format_value(*got) + ", expected " +
                                    format_value(expected));
    }
    // Our own values too.
    for (const auto &info : values_of(me)) {
        auto got = store.get(store.self(), info.key);
        check(got && *got == travelled(info.value), "own " + info.key);
    }

    auto missing = store.get(peer_id, "t.nobody");
    check(!missing && missing.error().status == MERIDIAN_ERR_NOT_FOUND &&
              missing.error().message == "datastore: no value for \"t.nobody\" of " +
                                             store.self().nspace + ":" + std::to_string(peer) +
                                             " (PMIx datastore)",
          "missing key: " + (missing ? std::string("found") : missing.error().message));

    // store() keeps a value here, ahead of what the peer published.
    check(store.store(peer_id, "t.string", std::string("mine")).ok(), "store");
    auto mine = store.get(peer_id, "t.string");
    check(mine && *mine == Value(std::string("mine")), "stored value comes first");

    // The job's own facts through the job rank.
    auto size = store.get(ProcId{store.self().nspace, job_rank}, "pmix.job.size");
    check(size && *size == Value(std::uint64_t{2}),
          "pmix.job.size: " + (size ? format_value(*size) : size.error().message));

    check(store.fence().ok(), "last fence");
    datastore::shutdown();
    if (failures == 0) {
        std::printf("rank %u: ok\n", me);
    }
    return failures == 0 ? 0 : 1;
}
