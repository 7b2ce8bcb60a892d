// SPDX-License-Identifier: BSD-3-Clause
#include "mca/tools/meridian_netmap/options.hpp"

#include <boost/program_options.hpp>
#include <optional>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include "mca/tools/tool_command_line.hpp"
#include <meridian/opal/util/strings.hpp>

namespace po = boost::program_options;

namespace meridian::netmap_tool
{

namespace
{

constexpr std::string_view bind_choices = "core, package, none";
constexpr std::string_view format_choices = "table, json";
constexpr std::string_view view_choices = "logical, physical";

constexpr std::string_view program = "meridian_netmap";

Error bad_usage(const std::string &what)
{
    return tools::usage_error(program, what);
}

po::options_description visible_options()
{
    po::options_description options("Options", 80);
    auto add = options.add_options();
    add("fabric", po::value<std::string>()->value_name("FILE"),
        "the fabric file (required; format: contrib/fabric/README.md)");
    add("hosts", po::value<std::string>()->value_name("LIST"),
        "the job's nodes and process counts, node01:4,node02:4 (required; a node "
        "without :N gets one process per core)");
    add("bind", po::value<std::string>()->value_name("B"),
        "what each process is bound to: core (default), package or none");
    add("request", po::value<std::vector<std::string>>()->value_name("R"),
        "a network allocation request (repeatable), see below");
    add("format", po::value<std::string>()->value_name("F"), "output: table (default) or json");
    add("view", po::value<std::string>()->value_name("V"),
        "coordinates' view: logical (default) or physical");
    add("help,h", "this text");
    add("version,V", "Meridian's version");
    return options;
}

template <typename T> struct Choice {
    std::string_view name;
    T value;
};

// One of a few words, in any case.
template <typename T, std::size_t N>
Result<T> choose(const std::string &text, const Choice<T> (&choices)[N], std::string_view option,
                 std::string_view what, std::string_view names)
{
    const auto word = util::trim(text);
    for (const auto &choice : choices) {
        if (util::iequals(word, choice.name)) {
            return choice.value;
        }
    }
    return bad_usage("unknown " + std::string(what) + " " + util::quoted(text) + " for --" +
                     std::string(option) + ": expected one of " + std::string(names));
}

// Each --request on its own, so a message says which one ("--request #2")
// and where in it.
Result<std::vector<pnet::Request>> parse_request_options(const std::vector<std::string> &texts)
{
    std::vector<pnet::Request> requests;
    std::unordered_map<std::string, std::size_t> seen; // id -> its --request number
    for (std::size_t i = 0; i < texts.size(); ++i) {
        const std::string where = "--request #" + std::to_string(i + 1);
        auto request = pnet::parse_request(texts[i], where);
        if (!request) {
            return bad_usage(request.error().message);
        }
        const auto [at, added] = seen.emplace(request->id, i + 1);
        if (!added) {
            return bad_usage(where + ":1: request id " + util::quoted(request->id) +
                             " is used twice (also by --request #" + std::to_string(at->second) +
                             ")");
        }
        requests.push_back(std::move(*request));
    }
    return requests;
}

// What an option given without its value takes, for the message.
std::string what_option_needs(const std::string &name)
{
    static const std::unordered_map<std::string, std::string> needs = {
        {"--fabric", "a fabric file"},
        {"--hosts", "a host list such as node01:4,node02:4"},
        {"--bind", "a binding: one of " + std::string(bind_choices)},
        {"--request", "a request such as id=NAME,type=tcp,endpts=2"},
        {"--format", "a format: one of " + std::string(format_choices)},
        {"--view", "a view: one of " + std::string(view_choices)},
    };
    const auto it = needs.find(name);
    return it != needs.end() ? it->second : std::string();
}

} // namespace

std::string usage_text()
{
    std::ostringstream text;
    text << "Usage: meridian_netmap [--mca NAME VALUE]... [--tune FILE[,FILE]]... --fabric FILE\n"
            "         --hosts NODE[:N],... [--bind core|package|none] [--request R]...\n"
            "         [--format table|json] [--view logical|physical]\n"
            "Run Meridian's network allocation offline: read a fabric file, place the job's\n"
            "processes on its nodes, let every pnet component serve the requests, and show\n"
            "each process's ports, NICs (nearest first) and network coordinates.\n"
            "\n"
         << visible_options()
         << "\n"
            "Requests (--request, once per request; the fields in any order):\n"
            "  id=NAME       the allocation's name (required)\n"
            "  type=TYPE     a transport: tcp, udp, ucx, ... (default: pnet_base_default_type)\n"
            "  plane=PLANE   a plane of the fabric, by name or CIDR\n"
            "  endpts=N      ports (endpoints) per process, 1-65535 (default 1)\n"
            "  seckey[=N]    a security key of N random bytes (default 16)\n"
            "  qos=N         a QoS level of the plane\n"
            "  bw=RATE       bandwidth per process: 10G, 400Mb/s, 1GB/s, a number in Mbit/s\n"
            "  required      every value given must be met, or nothing is allocated;\n"
            "                VALUE! (endpts=4!, seckey!) requires just that one\n"
            "Without required, a value that cannot be met is served as well as it can be.\n"
            "\n"
            "Output (--format):\n"
            "  table  the requests as served (endpts: \"4 of 5\" when processes got fewer\n"
            "         ports than asked), then one line per process: rank, node, each\n"
            "         request's ports, its NICs nearest first, and its coordinates, one per\n"
            "         NIC, as PLANE(x,y,z)\n"
            "  json   {\"procs\": [{\"rank\", \"node\", \"ports\": {ID: [PORT, ...]}, \"nics\": "
            "[NAME,\n"
            "         ...], \"coords\": [{\"plane\", \"view\", \"coord\": [X, ...]}]}, ...],\n"
            "         \"requests\": [{\"id\", \"type\", \"plane\", \"endpts\", \"endpts_given\":\n"
            "         [FEWEST, MOST] or null, \"qos\", \"bandwidth_mbps\", \"seckey_bytes\",\n"
            "         \"component\"}]}, one process a line;\n"
            "         after \"ports\", \"devices\": {ID: [NAME, ...]} when a component said\n"
            "         which NICs or devices serve a request (a security key's bytes are\n"
            "         never shown, only its length)\n"
            "\n"
            "Port pools: a node's ports= attribute in the fabric file, or for every node\n"
            "  --mca pnet_tcp_static_ports 'tcp:32000-32999;udp:40000-40099'\n"
            "\n"
         << tools::meridian_options_usage() << tools::parameter_sources_usage()
         << "\n"
            "Example:\n"
            "  meridian_netmap --fabric example.fabric --hosts node01:4,node02:4 \\\n"
            "      --request id=bulk,type=tcp,plane=data,endpts=2,qos=2 \\\n"
            "      --request id=ctl,type=tcp,plane=mgmt,seckey --format json\n"
            "\n"
            "Exit status: 0 on success; 1 when the allocation cannot be made (a fabric file\n"
            "that cannot be read, an unknown node, a required value that cannot be met, a\n"
            "--tune file that cannot be read or is refused); 2 when the command line is\n"
            "wrong (an unknown or missing option, an option without its value, a bad\n"
            "request, binding, format or view, an unexpected argument, a badly written\n"
            "--mca or --tune).  Errors are reported on standard error.\n";
    return tools::without_trailing_blanks(text.str());
}

Result<Options> parse_options(int argc, const char *const *argv)
{
    const auto parsed = tools::parse_own_options(argc, argv, program, visible_options(), "argument",
                                                 what_option_needs);
    if (!parsed) {
        return parsed.error();
    }

    Options options;
    std::vector<std::string> arguments;
    std::vector<std::string> request_texts;
    // The options given at most once.
    std::unordered_map<std::string, std::string> single;
    for (const auto &option : *parsed) {
        const std::string &key = option.string_key;
        if (key == "argument") {
            arguments.insert(arguments.end(), option.value.begin(), option.value.end());
        } else if (key == "request") {
            request_texts.push_back(option.value.at(0));
        } else if (key == "help") {
            options.help = true;
        } else if (key == "version") {
            options.version = true;
        } else {
            const auto [at, added] = single.emplace(key, option.value.at(0));
            if (!added) {
                return tools::given_twice(program, key, at->second, option.value.at(0));
            }
        }
    }
    if (options.help || options.version) {
        return options; // nothing else is done, so nothing else is judged
    }
    if (!arguments.empty()) {
        return bad_usage("unexpected argument " + util::quoted(arguments.front()) +
                         ": every input is given by an option");
    }
    const auto given = [&](const std::string &key) -> const std::string * {
        const auto it = single.find(key);
        return it == single.end() ? nullptr : &it->second;
    };
    if (const auto *path = given("fabric")) {
        options.fabric_path = *path;
    } else {
        return bad_usage("no fabric given: --fabric FILE is required");
    }
    if (const auto *hosts = given("hosts")) {
        options.hosts = *hosts;
    } else {
        return bad_usage("no hosts given: --hosts NODE[:N],... is required");
    }
    if (const auto *text = given("bind")) {
        static constexpr Choice<fabric::Binding> choices[] = {
            {"core", fabric::Binding::core},
            {"package", fabric::Binding::package},
            {"none", fabric::Binding::none},
        };
        auto binding = choose(*text, choices, "bind", "binding", bind_choices);
        if (!binding) {
            return binding.error();
        }
        options.binding = *binding;
    }
    if (const auto *text = given("format")) {
        static constexpr Choice<Format> choices[] = {{"table", Format::table},
                                                     {"json", Format::json}};
        auto format = choose(*text, choices, "format", "format", format_choices);
        if (!format) {
            return format.error();
        }
        options.format = *format;
    }
    if (const auto *text = given("view")) {
        static constexpr Choice<meridian_coord_view_t> choices[] = {
            {"logical", MERIDIAN_COORD_LOGICAL_VIEW},
            {"physical", MERIDIAN_COORD_PHYSICAL_VIEW},
        };
        auto view = choose(*text, choices, "view", "view", view_choices);
        if (!view) {
            return view.error();
        }
        options.view = *view;
    }
    auto requests = parse_request_options(request_texts);
    if (!requests) {
        return requests.error();
    }
    options.requests = std::move(*requests);
    return options;
}

} // namespace meridian::netmap_tool
