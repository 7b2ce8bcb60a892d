// SPDX-License-Identifier: BSD-3-Clause
#include "mca/tools/meridian_carto/options.hpp"

#include <array>
#include <boost/program_options.hpp>
#include <sstream>
#include <string_view>

#include "mca/tools/tool_command_line.hpp"
#include <meridian/mca/carto/base/base.hpp>
#include <meridian/opal/util/strings.hpp>

namespace po = boost::program_options;

namespace meridian::carto_tool
{

namespace
{

struct CommandSpec {
    std::string_view name;
    Command command;
    std::size_t arguments; // vertex names it takes
    std::string_view synopsis;
};

constexpr std::array<CommandSpec, 4> commands = {{
    {"graph", Command::graph, 0, "meridian_carto graph [--type T] [--format carto|dot|json]"},
    {"distance", Command::distance, 1, "meridian_carto distance FROM [--type T]"},
    {"path", Command::path, 2, "meridian_carto path A B"},
    {"vertices", Command::vertices, 0, "meridian_carto vertices [--type T]"},
}};

constexpr std::string_view command_choices = "graph, distance, path, vertices";
constexpr std::string_view format_choices = "carto, dot, json";

constexpr std::string_view program = "meridian_carto";

Error bad_usage(const std::string &what)
{
    return tools::usage_error(program, what);
}

po::options_description visible_options()
{
    po::options_description options("Options", 80);
    auto add = options.add_options();
    add("type,t", po::value<std::string>()->value_name("T"),
        "vertex type(s), comma-separated: SLOT, MEM, ETH, IB, OTHER or ALL (default), in any "
        "case");
    add("format,f", po::value<std::string>()->value_name("F"),
        "graph's output: carto (default), dot or json");
    add("help,h", "this text");
    add("version,V", "Meridian's version");
    return options;
}

Result<TypeMask> parse_types(const std::string &text)
{
    TypeMask mask = 0;
    for (const auto &item : util::split(text, ',')) {
        const auto type = carto::parse_type_name(util::trim(item));
        if (!type) {
            return bad_usage("unknown vertex type " + util::quoted(util::trim(item)) +
                             " for --type: expected one of " +
                             std::string(carto::type_name_choices()) +
                             " in any case, or a comma-separated list of them");
        }
        mask |= *type;
    }
    return mask;
}

Result<GraphFormat> parse_format(const std::string &text)
{
    const auto word = util::trim(text);
    if (util::iequals(word, "carto")) {
        return GraphFormat::carto;
    }
    if (util::iequals(word, "dot")) {
        return GraphFormat::dot;
    }
    if (util::iequals(word, "json")) {
        return GraphFormat::json;
    }
    return bad_usage("unknown format " + util::quoted(text) + " for --format: expected one of " +
                     std::string(format_choices));
}

const CommandSpec *find_command(std::string_view word)
{
    for (const CommandSpec &spec : commands) {
        if (spec.name == word) {
            return &spec;
        }
    }
    return nullptr;
}

Error unknown_command(const std::string &word)
{
    std::vector<std::string> names;
    for (const CommandSpec &spec : commands) {
        names.emplace_back(spec.name);
    }
    std::string what = "unknown command " + util::quoted(word);
    if (const auto suggestion = util::closest_match(word, names)) {
        what += " (did you mean " + util::quoted(*suggestion) + "?)";
    }
    return bad_usage(what + ": expected one of " + std::string(command_choices));
}

// The command's vertex arguments, exactly as many as it takes.
Status check_arguments(const CommandSpec &spec, const std::vector<std::string> &arguments)
{
    const std::string usage = "usage: " + std::string(spec.synopsis);
    if (arguments.size() > spec.arguments) {
        return bad_usage("unexpected argument " + util::quoted(arguments[spec.arguments]) +
                         " after " + std::string(spec.name) + "; " + usage);
    }
    if (arguments.size() < spec.arguments) {
        switch (spec.command) {
        case Command::distance:
            return bad_usage("distance needs the vertex to measure from; " + usage);
        case Command::path:
            return bad_usage(std::string(arguments.empty() ? "path needs two vertices, found none"
                                                           : "path needs two vertices, found one") +
                             "; " + usage);
        case Command::graph:
        case Command::vertices:
            break;
        }
    }
    return success();
}

// What an option given without its value takes, for the message.
std::string what_option_needs(const std::string &name)
{
    if (name == "--type" || name == "-t") {
        return "a vertex type: one of " + std::string(carto::type_name_choices());
    }
    if (name == "--format" || name == "-f") {
        return "a format: one of " + std::string(format_choices);
    }
    return {};
}

} // namespace

std::string usage_text()
{
    std::ostringstream text;
    text << "Usage: meridian_carto [--mca NAME VALUE]... [--tune FILE[,FILE]]... COMMAND [ARG]... "
            "[OPTION]...\n"
            "Show the host's map: its processors (Slot<n>), memory nodes (MEM<n>) and ports as\n"
            "a weighted graph, as the carto framework's selected component maps it.\n"
            "\n"
            "Commands:\n"
            "  graph [--type T] [--format F]\n"
            "        the graph.  F is carto (the default: a carto file that the carto_file\n"
            "        component reads back), dot (for Graphviz: a node per vertex, shaped and\n"
            "        coloured by type; an edge per directed edge, labelled with its weight,\n"
            "        or one two-headed edge for a pair of edges with the same weight), or\n"
            "        json ({\"component\", \"vertices\": [{\"name\", \"type\"}],\n"
            "        \"edges\": [{\"from\", \"to\", \"weight\"}]}).\n"
            "  distance FROM [--type T]\n"
            "        every vertex with its distance (the sum of the weights along a\n"
            "        shortest path) from FROM, one \"NAME DISTANCE\" a line, nearest first,\n"
            "        equal distances by name; then the unreachable ones, \"NAME unreachable\".\n"
            "  path A B\n"
            "        a shortest path from A to B on one line, \"A -> ... -> B\", then its\n"
            "        length, \"length N\"; or \"no path from A to B\" (exit status 1).\n"
            "  vertices [--type T]\n"
            "        every vertex, one \"NAME TYPE\" a line, in the map's order.\n"
            "  help  this text.\n"
            "Options may come before or after the command's arguments; after --, every\n"
            "argument is a vertex name, even one that starts with '-'.\n"
            "\n"
         << visible_options()
         << "\n"
            "Vertex types: SLOT (processors), MEM (memory nodes), ETH (Ethernet ports), IB\n"
            "(InfiniBand and other OpenFabrics ports), OTHER, ALL.  For graph, --type keeps\n"
            "the vertices of the type(s) plus every processor, and the edges among them\n"
            "(the graph of one interconnect).  For distance and vertices it chooses which\n"
            "vertices are listed; distances are always measured in the whole graph.\n"
            "\n"
            "Which map (MCA parameters of the carto framework):\n"
            "  --mca carto_file_path FILE   read it from a carto file (component file)\n"
            "  --mca carto_auto_xml FILE    map the machine an hwloc XML topology describes\n"
            "                               (component auto)\n"
            "  neither                      map this machine with hwloc (component auto)\n"
            "  --mca carto NAME             choose the component yourself\n"
            "\n"
         << tools::meridian_options_usage() << tools::parameter_sources_usage()
         << "\n"
            "Examples:\n"
            "  meridian_carto --mca carto_file_path host.carto distance Slot1 --type MEM\n"
            "  meridian_carto graph --format dot | dot -Tsvg -o host.svg\n"
            "  meridian_carto path Slot0 ib0\n"
            "\n"
            "Exit status: 0 on success; 1 when the answer cannot be given (no component\n"
            "could map the host, a bad carto file, an unknown vertex, no path from A to B,\n"
            "a --tune file that cannot be read or is refused); 2 when the command line is\n"
            "wrong (an unknown command, option, type or format, a missing or extra\n"
            "argument, a badly written --mca or --tune).  Errors are reported on standard\n"
            "error.\n";
    return tools::without_trailing_blanks(text.str());
}

Result<Options> parse_options(int argc, const char *const *argv)
{
    // The command and its arguments land in "argument", in order.
    const auto parsed = tools::parse_own_options(argc, argv, program, visible_options(), "argument",
                                                 what_option_needs);
    if (!parsed) {
        return parsed.error();
    }

    Options options;
    std::vector<std::string> arguments;
    std::optional<std::string> type_text;
    std::optional<std::string> format_text;
    // Each occurrence is read on its own, so that a repeated option is noticed.
    for (const auto &option : *parsed) {
        const std::string &key = option.string_key;
        if (key == "argument") {
            arguments.insert(arguments.end(), option.value.begin(), option.value.end());
        } else if (key == "type" || key == "format") {
            auto &text = key == "type" ? type_text : format_text;
            if (text) {
                return tools::given_twice(program, key, *text, option.value.at(0));
            }
            text = option.value.at(0);
        } else if (key == "help") {
            options.help = true;
        } else if (key == "version") {
            options.version = true;
        }
    }
    if (!arguments.empty() && arguments.front() == "help") {
        options.help = true;
    }
    if (options.help || options.version) {
        return options; // nothing else is done, so nothing else is judged
    }
    if (arguments.empty()) {
        return bad_usage("no command given: expected one of " + std::string(command_choices));
    }
    const CommandSpec *spec = find_command(arguments.front());
    if (spec == nullptr) {
        return unknown_command(arguments.front());
    }
    options.command = spec->command;
    options.vertices.assign(arguments.begin() + 1, arguments.end());
    if (auto counted = check_arguments(*spec, options.vertices); !counted) {
        return counted.error();
    }
    if (type_text) {
        if (spec->command == Command::path) {
            return bad_usage(
                "--type does not apply to path: a path is measured in the whole graph");
        }
        auto types = parse_types(*type_text);
        if (!types) {
            return types.error();
        }
        options.types = *types;
    }
    if (format_text) {
        if (spec->command != Command::graph) {
            return bad_usage("--format applies to graph only, not to " + std::string(spec->name));
        }
        auto format = parse_format(*format_text);
        if (!format) {
            return format.error();
        }
        options.format = *format;
    }
    return options;
}

} // namespace meridian::carto_tool
