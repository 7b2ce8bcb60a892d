// SPDX-License-Identifier: BSD-3-Clause
// Reads meridian_netmap --format json output and checks what must hold for
// any job, whatever the fabric:
//   - the document is {"procs": [...], "requests": [...]} and every process
//     and request has exactly the documented keys, of the documented types;
//   - ranks are 0, 1, 2, ... in order, each on a node;
//   - every process has a port list for every request, with "endpts" ports
//     (unless --best-effort: at most that many), ascending; a request's
//     "endpts_given" (when not null) is the fewest and most any process got;
//   - for every request, no port is given to two processes of one node;
//   - coordinates: one per NIC, in --view, each with as many values as the
//     first of its plane;
//   - a request with a security key says how long it is, never what it is.
//
//   check_netmap_json FILE [--view logical|physical] [--best-effort]
//     [--procs N] [--nics N]
// Prints "ok: N processes, R requests" and exits 0, or prints each problem
// (the first 20) and exits 1.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

using Json = nlohmann::json;

namespace
{

int problems = 0;

void problem(const std::string &what)
{
    if (++problems <= 20) {
        std::printf("check_netmap_json: %s\n", what.c_str());
    }
}

bool has_keys(const Json &object, std::set<std::string> keys, std::set<std::string> optional,
              const std::string &what)
{
    if (!object.is_object()) {
        problem(what + " is not an object");
        return false;
    }
    for (const auto &[key, value] : object.items()) {
        if (keys.erase(key) == 0 && optional.count(key) == 0) {
            problem(what + " has an unexpected key \"" + key + "\"");
        }
    }
    for (const auto &key : keys) {
        problem(what + " has no \"" + key + "\"");
    }
    return keys.empty();
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: check_netmap_json FILE [--view V] [--best-effort] "
                             "[--procs N] [--nics N]\n");
        return 2;
    }
    std::string view = "logical";
    bool best_effort = false;
    long want_procs = -1;
    long want_nics = -1;
    for (int i = 2; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--view" && i + 1 < argc) {
            view = argv[++i];
        } else if (arg == "--best-effort") {
            best_effort = true;
        } else if (arg == "--procs" && i + 1 < argc) {
            want_procs = std::stol(argv[++i]);
        } else if (arg == "--nics" && i + 1 < argc) {
            want_nics = std::stol(argv[++i]);
        } else {
            std::fprintf(stderr, "check_netmap_json: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    std::ifstream in(argv[1]);
    Json doc;
    try {
        doc = Json::parse(in);
    } catch (const Json::exception &e) {
        std::printf("check_netmap_json: not JSON: %s\n", e.what());
        return 1;
    }
    if (!has_keys(doc, {"procs", "requests"}, {}, "the document") || !doc["procs"].is_array() ||
        !doc["requests"].is_array()) {
        problem("the document is not {\"procs\": [...], \"requests\": [...]}");
        return 1;
    }

    // The requests: id -> endpts, and the fewest and most ports given.
    std::map<std::string, std::uint64_t> endpts;
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> given_of;
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> seen_given;
    for (const Json &request : doc["requests"]) {
        if (!has_keys(request,
                      {"id", "type", "plane", "endpts", "endpts_given", "qos", "bandwidth_mbps",
                       "seckey_bytes", "component"},
                      {}, "a request")) {
            continue;
        }
        const std::string id = request["id"].is_string() ? request["id"].get<std::string>() : "";
        if (id.empty() || !request["type"].is_string() || !request["plane"].is_string() ||
            !request["component"].is_string() || !request["endpts"].is_number_unsigned() ||
            !request["seckey_bytes"].is_number_unsigned() ||
            !(request["qos"].is_null() || request["qos"].is_number_unsigned()) ||
            !(request["bandwidth_mbps"].is_null() || request["bandwidth_mbps"].is_number())) {
            problem("request " + request.dump() + " has a value of the wrong type");
            continue;
        }
        if (!endpts.emplace(id, request["endpts"].get<std::uint64_t>()).second) {
            problem("request id \"" + id + "\" is listed twice");
        }
        const Json &given = request["endpts_given"];
        if (given.is_array() && given.size() == 2 && given[0].is_number_unsigned() &&
            given[1].is_number_unsigned() && given[0] <= given[1]) {
            given_of.emplace(
                id, std::make_pair(given[0].get<std::uint64_t>(), given[1].get<std::uint64_t>()));
        } else if (!given.is_null()) {
            problem("request " + id + " has endpts_given " + given.dump() +
                    ", expected [FEWEST, MOST] or null");
        }
    }

    // (node, request, port) -> the rank that has it.
    std::map<std::tuple<std::string, std::string, std::uint64_t>, std::uint64_t> owner;
    std::map<std::string, std::size_t> dims_of_plane;
    std::uint64_t rank = 0;
    for (const Json &proc : doc["procs"]) {
        const std::string what = "process " + std::to_string(rank);
        if (!has_keys(proc, {"rank", "node", "ports", "nics", "coords"}, {"devices"}, what)) {
            ++rank;
            continue;
        }
        if (!proc["rank"].is_number_unsigned() || proc["rank"].get<std::uint64_t>() != rank) {
            problem(what + " has rank " + proc["rank"].dump());
        }
        const std::string node = proc["node"].is_string() ? proc["node"].get<std::string>() : "";
        if (node.empty()) {
            problem(what + " has no node name");
        }
        const Json &ports = proc["ports"];
        if (!ports.is_object() || ports.size() != endpts.size()) {
            problem(what + " does not have a port list per request: " + ports.dump());
        } else {
            for (const auto &[id, list] : ports.items()) {
                const auto asked = endpts.find(id);
                if (asked == endpts.end() || !list.is_array()) {
                    problem(what + " has ports for an unknown request \"" + id + "\"");
                    continue;
                }
                if (best_effort ? list.size() > asked->second : list.size() != asked->second) {
                    problem(what + " has " + std::to_string(list.size()) + " ports for \"" + id +
                            "\", asked for " + std::to_string(asked->second));
                }
                const auto [range, first] =
                    seen_given.emplace(id, std::make_pair(list.size(), list.size()));
                if (!first) {
                    range->second.first = std::min<std::uint64_t>(range->second.first, list.size());
                    range->second.second =
                        std::max<std::uint64_t>(range->second.second, list.size());
                }
                std::uint64_t previous = 0;
                for (const Json &port : list) {
                    if (!port.is_number_unsigned() || port.get<std::uint64_t>() == 0 ||
                        port.get<std::uint64_t>() > 65535 ||
                        port.get<std::uint64_t>() <= previous) {
                        problem(what + " has ports out of range or out of order for \"" + id +
                                "\": " + list.dump());
                        break;
                    }
                    previous = port.get<std::uint64_t>();
                    const auto [at, added] =
                        owner.emplace(std::make_tuple(node, id, previous), rank);
                    if (!added) {
                        problem("port " + std::to_string(previous) + " of request \"" + id +
                                "\" on " + node + " is given to processes " +
                                std::to_string(at->second) + " and " + std::to_string(rank));
                    }
                }
            }
        }
        const Json &nics = proc["nics"];
        if (!nics.is_array() || (want_nics >= 0 && nics.size() != std::size_t(want_nics))) {
            problem(what + " has NICs " + nics.dump());
        }
        const Json &coords = proc["coords"];
        if (!coords.is_array() || !nics.is_array() || coords.size() != nics.size()) {
            problem(what + " does not have one coordinate per NIC: " + coords.dump());
        } else {
            for (const Json &coord : coords) {
                if (!has_keys(coord, {"plane", "view", "coord"}, {}, what + "'s coordinate")) {
                    continue;
                }
                if (coord["view"] != view || !coord["plane"].is_string() ||
                    !coord["coord"].is_array()) {
                    problem(what + " has a coordinate " + coord.dump());
                    continue;
                }
                const auto [at, added] =
                    dims_of_plane.emplace(coord["plane"].get<std::string>(), coord["coord"].size());
                if (!added && at->second != coord["coord"].size()) {
                    problem(what +
                            " has a coordinate of another dimension on its plane: " + coord.dump());
                }
                for (const Json &value : coord["coord"]) {
                    if (!value.is_number_unsigned()) {
                        problem(what +
                                " has a coordinate value that is not a number: " + coord.dump());
                        break;
                    }
                }
            }
        }
        ++rank;
    }
    if (want_procs >= 0 && rank != std::uint64_t(want_procs)) {
        problem(std::to_string(rank) + " processes, expected " + std::to_string(want_procs));
    }
    // endpts_given says what the processes got (requests whose component
    // hands out ports; with no process it is [0, 0]).
    for (const auto &[id, given] : given_of) {
        const auto seen = seen_given.find(id);
        const std::pair<std::uint64_t, std::uint64_t> got =
            seen != seen_given.end() ? seen->second : std::pair<std::uint64_t, std::uint64_t>{0, 0};
        if (got.first != given.first || got.second != given.second) {
            problem("request " + id + " says endpts_given [" + std::to_string(given.first) + "," +
                    std::to_string(given.second) + "], the processes got [" +
                    std::to_string(got.first) + "," + std::to_string(got.second) + "]");
        }
    }
    if (problems > 0) {
        std::printf("check_netmap_json: %d problem(s)\n", problems);
        return 1;
    }
    std::printf("ok: %llu processes, %zu requests\n", static_cast<unsigned long long>(rank),
                endpts.size());
    return 0;
}
