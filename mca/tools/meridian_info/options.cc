// SPDX-License-Identifier: BSD-3-Clause
#include "mca/tools/meridian_info/options.hpp"

#include <boost/program_options.hpp>
#include <sstream>
#include <string_view>

#include "mca/tools/meridian_info/install_dirs.hpp"
#include "mca/tools/tool_command_line.hpp"
#include <meridian/opal/mca/base/mca_base.h>
#include <meridian/opal/util/strings.hpp>

namespace po = boost::program_options;

namespace meridian::info
{

namespace
{

constexpr std::string_view program = "meridian_info";

po::options_description visible_options()
{
    po::options_description options("Options", 80);
    options.add_options()(
        "param", po::value<std::vector<std::string>>()->multitoken()->value_name("FW COMP"),
        "show the parameters of framework FW, component COMP (\"all\" for any; COMP "
        "\"base\": the framework's own; FW \"mca\": the core's); repeatable")(
        "level,l", po::value<std::string>()->value_name("N"),
        "show parameters of level N (1-9) and below (default 1)")(
        "all,a", "every parameter (level 9), the directories, component path and param "
                 "files, and --show-failed")(
        "path", po::value<std::vector<std::string>>()->value_name("NAME"),
        ("only installation directory NAME, as \"NAME: DIR\": " + install_dir_choices() +
         "; repeatable")
            .c_str())("config,c", "how Meridian was built: the configure command line, "
                                  "compilers and flags, dependencies and components, and the "
                                  "libraries it runs with")(
        "show-failed", "components that could not be loaded, and why")(
        "parsable", "one fact a line (mca:FW:COMP:param:NAME:value:VALUE, ...)")(
        "json", "the same information as a JSON document")("help,h", "this text")(
        "version,V", "Meridian's version");
    return options;
}

Error bad_usage(const std::string &what)
{
    return tools::usage_error(program, what);
}

Result<int> parse_level(const std::string &text)
{
    const auto trimmed = util::trim(text);
    if (trimmed.size() == 1 && trimmed[0] >= '1' && trimmed[0] <= '9') {
        return trimmed[0] - '0';
    }
    return bad_usage("--level expects a number from 1 to 9, found " + util::quoted(text));
}

// What an option given without its value takes, for the message.
std::string what_option_needs(const std::string &name)
{
    if (name == "--level" || name == "-l") {
        return "a number from 1 to 9";
    }
    if (name == "--path") {
        return "a directory name: one of " + install_dir_choices();
    }
    if (name == "--param") {
        return "FRAMEWORK COMPONENT (\"all\" for any)";
    }
    return {};
}

// --path asks for directories and nothing else, and --config for the
// build and nothing else, so the options that choose what else to show have
// nothing to act on.
Status check_alone(const Options &options)
{
    if (options.path_names.empty() && !options.config) {
        return success();
    }
    const char *other = !options.scopes.empty()                         ? "--param"
                        : options.level                                 ? "--level"
                        : options.all                                   ? "--all"
                        : options.show_failed                           ? "--show-failed"
                        : options.config && !options.path_names.empty() ? "--path"
                                                                        : nullptr;
    if (other == nullptr) {
        return success();
    }
    return bad_usage(options.config ? std::string("--config shows how Meridian was built only: "
                                                  "it cannot be combined with ") +
                                          other
                                    : std::string("--path shows installation directories only: "
                                                  "it cannot be combined with ") +
                                          other);
}

} // namespace

std::string usage_text()
{
    std::ostringstream text;
    const std::string prefix = meridian_mca_base_env_prefix();
    text << "Usage: meridian_info [OPTION]... [--mca NAME VALUE]... [--tune FILE[,FILE]]...\n"
            "Show Meridian's frameworks, their components and their MCA parameters.\n"
            "\n"
            "Without options: the version and every framework and component (name, MCA ABI,\n"
            "framework interface and component versions, DSO path or \"static\").\n"
            "Parameters are shown with --param, --level or --all, and a parameter set by\n"
            "--mca or a --tune file of this command is shown whatever its level, so you\n"
            "see what the setting resolves to and where its value comes from.\n"
            "\n"
         << visible_options() << "\n"
         << tools::meridian_options_usage()
         << "\n"
            "Parameters are also set in the environment ("
         << prefix
         << "NAME=VALUE)\n"
            "and in param files (--all lists those read).\n"
            "\n"
            "Examples:\n"
            "  meridian_info --param carto all --level 9\n"
            "  meridian_info --path pkglibdir\n"
            "  meridian_info --config\n"
            "  meridian_info --all --parsable\n"
            "\n"
            "Exit status: 0 on success; 1 when an error was reported on the way (a param\n"
            "file that cannot be read, a component that cannot be loaded, a parameter\n"
            "value that is refused; everything that could be shown is shown); 2 when the\n"
            "command line is wrong (an unknown option, a missing or bad option value, an\n"
            "unexpected argument, a badly written --mca or --tune), with nothing shown.\n"
            "Errors are reported on standard error.\n";
    return tools::without_trailing_blanks(text.str());
}

Result<Options> parse_options(int argc, const char *const *argv)
{
    po::options_description every;
    every.add(visible_options()).add_options()("parseable", ""); // Open MPI's spelling
    // Arguments that are not options land in "unexpected", so they can be named in the error.
    const auto parsed =
        tools::parse_own_options(argc, argv, program, every, "unexpected", what_option_needs);
    if (!parsed) {
        return parsed.error();
    }

    Options options;
    bool parsable = false;
    bool json = false;
    // Each occurrence is read on its own so --param can be repeated.
    for (const auto &option : *parsed) {
        const std::string &key = option.string_key;
        if (key == "unexpected") {
            return bad_usage("unexpected argument " + util::quoted(option.value.at(0)) +
                             ": meridian_info takes options only");
        }
        if (key == "param") {
            if (option.value.size() != 2) {
                return bad_usage("--param expects FRAMEWORK COMPONENT (\"all\" for any), found " +
                                 (option.value.empty() ? std::string("nothing")
                                                       : util::join(option.value, " ")));
            }
            options.scopes.push_back(ParamScope{option.value[0], option.value[1]});
        } else if (key == "level") {
            auto level = parse_level(option.value.at(0));
            if (!level) {
                return level.error();
            }
            options.level = *level;
        } else if (key == "all") {
            options.all = true;
        } else if (key == "path") {
            for (const auto &name : option.value) {
                auto names = expand_install_dir(name);
                if (!names) {
                    return bad_usage(names.error().message);
                }
                options.path_names.insert(options.path_names.end(), names->begin(), names->end());
            }
        } else if (key == "config") {
            options.config = true;
        } else if (key == "show-failed") {
            options.show_failed = true;
        } else if (key == "parsable" || key == "parseable") {
            parsable = true;
        } else if (key == "json") {
            json = true;
        } else if (key == "help") {
            options.help = true;
        } else if (key == "version") {
            options.version = true;
        }
    }
    if (parsable && json) {
        return bad_usage("--parsable and --json cannot be used together");
    }
    options.format = json ? Format::json : parsable ? Format::parsable : Format::text;
    if (auto alone = check_alone(options); !alone) {
        return alone.error();
    }
    if (options.all) {
        options.path = true;
        options.show_failed = true;
    }
    return options;
}

} // namespace meridian::info
