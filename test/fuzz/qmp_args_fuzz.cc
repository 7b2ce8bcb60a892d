// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target for QMP's argv options (take_options in mca/qmp/qmp_init.cc:
// -qmp-geom, -qmp-alloc-map, -qmp-logic-map, -qmp-job), and for the pure
// rules (qmp_layout_rule.*) that QMP_init_msg_passing's machine set-up then
// applies to them.  The input is argv, argv[0] first: words split on NUL
// bytes when it has any (empty words and blanks then stay), else on blanks,
// each cut to 64 bytes (see max_word).
// Promises checked besides "nothing crashes":
//   - bad options give QMP_INVALID_ARG, the same as QMP_get_error_number,
//     and QMP_get_error_string reads "-qmp-OPTION: expected ..., found ..."
//     on one line; argv is left as it was;
//   - good options are taken out of argv, the rest kept in order with NULL
//     after the last (argv[0], the program, always stays); what was taken
//     is each option with its values, the words after it that start with a
//     digit (or "native" after -qmp-geom), which are the numbers the options
//     hold: sizes of at least 1, maps permutations of 0..n-1; nothing left
//     is an option, and taking the options again finds none;
//   - on the -qmp-geom grid (when its size fits an int): check_topology
//     takes the sizes with -qmp-alloc-map when it has one value per size, and
//     node numbers and coordinates convert both ways; -qmp-job is refused
//     unless its numbers divide the sizes (or, on a switched machine, are one
//     number dividing the nodes), and its colours number 0 up to the number
//     of jobs, each job as big as the others.
// Any broken promise aborts with the reason, which libFuzzer reports as a crash.
//
// fuzz-sources: mca/qmp/qmp_init.cc mca/qmp/qmp_error.cc mca/qmp/qmp_output.cc
// fuzz-sources: mca/qmp/qmp_layout_rule.cc opal/util/c_boundary.cc opal/util/error.cc
// fuzz-sources: opal/util/output.cc opal/util/strings.cc test/fuzz/qmp_init_stubs.cc
#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.hpp"
#include "mca/qmp/qmp_internal.hpp"
#include "mca/qmp/qmp_layout_rule.hpp"

namespace
{

namespace qmp = meridian::qmp;
namespace rules = meridian::qmp::rules;

constexpr std::string_view option_names[] = {"-qmp-geom", "-qmp-alloc-map", "-qmp-logic-map",
                                             "-qmp-job"};

[[noreturn]] void broken(const std::string &promise)
{
    meridian::fuzz::broken("qmp_args_fuzz", promise);
}

// QMP keeps every error message it makes for the life of the process
// (qmp_error.cc interns them, as QMP_get_error_string's pointers must stay
// good), and a refused word is quoted in the message: words are cut to
// max_word bytes, so that a long run does not grow by many kilobytes per
// new message.  No option name or value is half as long (a value has at
// most 10 digits), so a cut word is taken or refused as the whole one.
constexpr std::size_t max_word = 64;

std::vector<std::string> words_of(std::string_view input)
{
    std::vector<std::string> words;
    if (input.find('\0') != std::string_view::npos) {
        std::size_t start = 0;
        while (true) {
            const std::size_t end = input.find('\0', start);
            words.emplace_back(input.substr(start, std::min(end - start, max_word)));
            if (end == std::string_view::npos) {
                return words;
            }
            start = end + 1;
        }
    }
    const auto blank = [](char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
    };
    std::size_t at = 0;
    while (at < input.size()) {
        if (blank(input[at])) {
            ++at;
            continue;
        }
        const std::size_t start = at;
        while (at < input.size() && !blank(input[at])) {
            ++at;
        }
        words.emplace_back(input.substr(start, std::min(at - start, max_word)));
    }
    return words;
}

bool is_option(std::string_view word)
{
    return std::find(std::begin(option_names), std::end(option_names), word) !=
           std::end(option_names);
}

bool digit_first(const char *word)
{
    return word[0] >= '0' && word[0] <= '9';
}

std::string joined(const std::vector<int> &values)
{
    std::string text;
    for (const int v : values) {
        text += (text.empty() ? "" : " ") + std::to_string(v);
    }
    return text;
}

void check_permutation(std::string_view option, const std::vector<int> &map)
{
    std::vector<bool> seen(map.size(), false);
    for (const int v : map) {
        if (v < 0 || static_cast<std::size_t>(v) >= map.size() ||
            seen[static_cast<std::size_t>(v)]) {
            broken(std::string(option) + " is a permutation of 0..n-1: " + joined(map));
        }
        seen[static_cast<std::size_t>(v)] = true;
    }
}

void check_sizes(std::string_view option, const std::vector<int> &sizes)
{
    for (const int v : sizes) {
        if (v < 1) {
            broken(std::string(option) + " holds sizes of at least 1: " + joined(sizes));
        }
    }
}

void check_error(QMP_status_t status, const std::vector<char *> &before, int argc, char **argv)
{
    if (status != QMP_INVALID_ARG || QMP_get_error_number(nullptr) != status) {
        broken("bad options give QMP_INVALID_ARG, as QMP_get_error_number: " +
               std::to_string(status));
    }
    const std::string message = QMP_get_error_string(nullptr);
    const std::size_t colon = message.find(": expected ");
    if (colon == std::string::npos || !is_option(std::string_view(message).substr(0, colon)) ||
        message.find(", found ", colon) == std::string::npos ||
        message.find('\n') != std::string::npos) {
        broken("the error reads -qmp-OPTION: expected ..., found ...: " + message);
    }
    if (static_cast<std::size_t>(argc) + 1 != before.size() ||
        !std::equal(before.begin(), before.end(), argv)) {
        broken("bad options leave argv as it was");
    }
}

// What was taken out of argv is the options with their values, which are
// what the options hold.
void check_taken(const std::vector<char *> &before, const std::vector<bool> &kept,
                 const qmp::Options &options)
{
    qmp::Options read;
    std::vector<int> *const held[] = {&read.geom, &read.alloc_map, &read.logic_map, &read.job_geom};
    std::size_t k = 1;
    const std::size_t count = before.size() - 1;
    while (k < count) {
        if (kept[k]) {
            if (is_option(before[k])) {
                broken(std::string("nothing left is an option: ") + before[k]);
            }
            ++k;
            continue;
        }
        const std::string_view name = before[k];
        const std::size_t which = static_cast<std::size_t>(
            std::find(std::begin(option_names), std::end(option_names), name) -
            std::begin(option_names));
        if (which == std::size(option_names)) {
            broken("only options and their values are taken: " + std::string(name));
        }
        ++k;
        if (which == 0 && k < count && !kept[k] && std::string_view(before[k]) == "native") {
            read.geom_native = true;
            ++k;
            continue;
        }
        for (; k < count && !kept[k] && digit_first(before[k]); ++k) {
            long long value = 0;
            for (const char *c = before[k]; *c != '\0' && value <= INT_MAX; ++c) {
                value = value * 10 + (*c - '0');
            }
            held[which]->push_back(static_cast<int>(std::min<long long>(value, INT_MAX)));
        }
        if (held[which]->empty()) {
            broken("an option is taken with its values: " + std::string(name));
        }
    }
    if (read.geom != options.geom || read.geom_native != options.geom_native ||
        read.alloc_map != options.alloc_map || read.logic_map != options.logic_map ||
        read.job_geom != options.job_geom) {
        broken("the options hold the values taken with them");
    }
}

void check_success(const std::vector<char *> &before, int argc, char **argv,
                   const qmp::Options &options)
{
    check_sizes("-qmp-geom", options.geom);
    check_sizes("-qmp-job", options.job_geom);
    check_permutation("-qmp-alloc-map", options.alloc_map);
    check_permutation("-qmp-logic-map", options.logic_map);
    if (options.geom_native && !options.geom.empty()) {
        broken("-qmp-geom native holds no sizes");
    }
    const std::size_t count = before.size() - 1;
    if (argc < 0 || static_cast<std::size_t>(argc) > count || (count > 0 && argc == 0)) {
        broken("argc counts what is left, argv[0] among it");
    }
    if (argv[argc] != nullptr) {
        broken("argv ends with NULL after the last argument");
    }
    // The words left are the words given, in order: mark them.
    std::vector<bool> kept(count, false);
    std::size_t from = 0;
    for (int i = 0; i < argc; ++i) {
        while (from < count && before[from] != argv[i]) {
            ++from;
        }
        if (from == count) {
            broken("what is left of argv is what was given, in order");
        }
        kept[from++] = true;
    }
    if (count > 0 && !kept[0]) {
        broken("argv[0] stays");
    }
    check_taken(before, kept, options);

    qmp::Options again;
    int again_argc = argc;
    char **again_argv = argv;
    if (qmp::take_options(&again_argc, &again_argv, &again) != QMP_SUCCESS || again_argc != argc ||
        !again.geom.empty() || again.geom_native || !again.alloc_map.empty() ||
        !again.logic_map.empty() || !again.job_geom.empty()) {
        broken("taking the options again finds none");
    }
}

// A few node numbers of 0..nodes-1, every one when there are few.
std::vector<int> some_nodes(int nodes)
{
    std::vector<int> chosen;
    if (nodes <= 4096) {
        for (int n = 0; n < nodes; ++n) {
            chosen.push_back(n);
        }
        return chosen;
    }
    for (const long long n : {0LL, 1LL, nodes / 3LL, nodes / 2LL, nodes - 2LL, nodes - 1LL}) {
        chosen.push_back(static_cast<int>(n));
    }
    return chosen;
}

// Colours number 0 up to the number of jobs; with every node known, each
// job has as many nodes as the others.
void check_colors(const std::vector<int> &colors, int jobs, int nodes)
{
    for (const int color : colors) {
        if (color < 0 || color >= jobs) {
            broken("-qmp-job's colours number 0 up to the number of jobs: " +
                   std::to_string(color) + " of " + std::to_string(jobs));
        }
    }
    if (static_cast<long long>(colors.size()) != nodes) {
        return; // only a few nodes were asked
    }
    std::vector<int> members(static_cast<std::size_t>(jobs), 0);
    for (const int color : colors) {
        ++members[static_cast<std::size_t>(color)];
    }
    for (const int m : members) {
        if (m != nodes / jobs) {
            broken("-qmp-job cuts the nodes into jobs of one size");
        }
    }
}

// What QMP_init_msg_passing's machine set-up does with the options, from
// the pure rules: a -qmp-geom grid of as many nodes as its sizes make.
void check_rules(const qmp::Options &options)
{
    const long long nodes = rules::product(options.geom);
    if (!options.geom.empty() && nodes > 0) {
        const int n = static_cast<int>(nodes);
        const bool map_fits =
            options.alloc_map.empty() || options.alloc_map.size() == options.geom.size();
        if (static_cast<bool>(rules::check_topology("-qmp-geom", options.geom, n,
                                                    options.alloc_map)) != map_fits) {
            broken("check_topology takes -qmp-geom with a map of one value per size");
        }
        const std::span<const int> map =
            map_fits ? std::span<const int>(options.alloc_map) : std::span<const int>();
        std::vector<int> coords(options.geom.size());
        const std::vector<int> nodes_seen = some_nodes(n);
        std::vector<std::vector<int>> coords_of;
        for (const int node : nodes_seen) {
            rules::coordinates_of(node, options.geom, map, coords);
            for (std::size_t i = 0; i < coords.size(); ++i) {
                if (coords[i] < 0 || coords[i] >= options.geom[i]) {
                    broken("coordinates lie on the grid");
                }
            }
            if (rules::node_of(coords, options.geom, map) != node) {
                broken("node numbers and coordinates convert both ways");
            }
            coords_of.push_back(coords);
        }
        if (!options.job_geom.empty()) {
            bool divides = options.job_geom.size() == options.geom.size();
            for (std::size_t i = 0; divides && i < options.geom.size(); ++i) {
                divides = options.geom[i] % options.job_geom[i] == 0;
            }
            if (static_cast<bool>(rules::check_job_geometry(options.job_geom, options.geom, n)) !=
                divides) {
                broken("-qmp-job is taken exactly when its numbers divide -qmp-geom's");
            }
            if (divides) {
                std::vector<int> colors;
                for (std::size_t k = 0; k < nodes_seen.size(); ++k) {
                    colors.push_back(rules::job_color(options.job_geom, options.geom, coords_of[k],
                                                      nodes_seen[k], n));
                }
                check_colors(colors, static_cast<int>(rules::product(options.job_geom)), n);
            }
        }
    }
    if (options.geom.empty() && options.job_geom.size() == 1 &&
        options.job_geom[0] <= INT_MAX / 3) {
        // A switched machine with three nodes to a job.
        const int jobs = options.job_geom[0];
        const int n = jobs * 3;
        if (!rules::check_job_geometry(options.job_geom, {}, n) ||
            static_cast<bool>(rules::check_job_geometry(options.job_geom, {}, n + 1)) !=
                (jobs == 1)) {
            broken("-qmp-job on a switched machine is one number dividing the nodes");
        }
        std::vector<int> colors;
        for (const int node : some_nodes(n)) {
            colors.push_back(rules::job_color(options.job_geom, {}, {}, node, n));
        }
        check_colors(colors, jobs, n);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    std::vector<std::string> words =
        words_of(std::string_view(reinterpret_cast<const char *>(data), size));
    std::vector<char *> argv_storage;
    for (std::string &word : words) {
        argv_storage.push_back(word.data());
    }
    argv_storage.push_back(nullptr);
    const std::vector<char *> before = argv_storage;

    int argc = static_cast<int>(words.size());
    char **argv = argv_storage.data();
    qmp::Options options;
    options.geom = {99}; // take_options starts afresh
    const QMP_status_t status = qmp::take_options(&argc, &argv, &options);
    if (argv != argv_storage.data()) {
        broken("argv stays the same array");
    }
    if (status != QMP_SUCCESS) {
        check_error(status, before, argc, argv);
        return 0;
    }
    check_success(before, argc, argv, options);
    check_rules(options);
    return 0;
}
