// SPDX-License-Identifier: BSD-3-Clause
// Meridian's options in a program's command line (cmdline.hpp), read by
// Boost.Program_options: --mca through a value semantic of two tokens, -mca
// and -tune as disguised long options, --tune=FILE as an adjacent value, and
// the program's arguments handed back in order (a style parser keeps Boost's
// styles off the program's own options).
#include <meridian/opal/mca/base/cmdline.hpp>

#include <algorithm>
#include <map>
#include <string_view>

#include <boost/program_options.hpp>

#include <meridian/opal/mca/base/param_file.hpp>
#include <meridian/opal/mca/base/param_registry.hpp>
#include <meridian/opal/util/output.hpp>
#include <meridian/opal/util/strings.hpp>

namespace po = boost::program_options;

namespace meridian::mca
{

namespace
{

// --mca's value: exactly two tokens, NAME and VALUE.  Boost's typed values
// take one token, or with multitoken() every positional token that follows
// (which would swallow the program's own arguments); a value semantic that
// asks for two is the library's way to say "two".
class NameAndValue : public po::value_semantic_codecvt_helper<char>
{
  public:
    std::string name() const override { return "NAME VALUE"; }
    unsigned min_tokens() const override { return 2; }
    unsigned max_tokens() const override { return 2; }
    bool is_composing() const override { return false; }
    bool is_required() const override { return false; }
    // The tokens are read from the parsed options, in order, not stored.
    void xparse(boost::any &, const std::vector<std::string> &) const override {}
    bool apply_default(boost::any &) const override { return false; }
    void notify(const boost::any &) const override {}
};

// --mca and --tune as Meridian takes them: --NAME, -NAME (Open MPI's
// spelling), and --NAME=VALUE.
bool is_meridian_option(std::string_view token)
{
    for (const std::string_view spelled : {"--mca", "-mca", "--tune", "-tune"}) {
        if (token == spelled ||
            (token.size() > spelled.size() && util::starts_with(token, spelled) &&
             token[spelled.size()] == '=')) {
            return true;
        }
    }
    return false;
}

// The program's options are not Boost's to read: its styles would take them
// apart and refuse some ("--type=", an empty value).  A style parser -- the
// library's hook for syntax its styles do not cover -- hands every token that
// looks like an option but is not Meridian's back unread, as an unregistered
// option of its own; Boost's styles then read only --mca and --tune, and the
// program's other arguments come back as positional ones.
std::vector<po::option> program_token(std::vector<std::string> &args)
{
    if (args.empty() || args.front().size() < 2 || args.front()[0] != '-' ||
        is_meridian_option(args.front())) {
        return {};
    }
    po::option option;
    option.value = {args.front()};
    option.original_tokens = {args.front()};
    option.unregistered = true;
    args.erase(args.begin());
    return {option};
}

// Boost says "the required argument for option '--mca' is missing"; the
// user is told how the option was spelled and what followed it.  Only the
// last option can lack its values (Boost takes whatever tokens follow).
std::string missing_values(const std::vector<std::string> &args)
{
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string &token = args[i];
        const std::size_t after = args.size() - i - 1;
        if (token == "--mca" || token == "-mca") {
            if (after < 2) {
                return token + " needs a parameter name and a value, found " +
                       (after == 0 ? std::string("end of arguments")
                                   : "only " + util::quoted(args[i + 1]));
            }
            i += 2;
        } else if (token == "--tune" || token == "-tune") {
            if (after < 1) {
                return token + " needs a file name, found end of arguments";
            }
            i += 1;
        }
    }
    return {};
}

} // namespace

Result<CommandLineSettings> parse_command_line(const std::vector<std::string> &args)
{
    po::options_description meridian_options("Meridian options");
    meridian_options.add_options()("mca", new NameAndValue, "set an MCA parameter")(
        "tune", po::value<std::string>(), "read MCA parameters from files");
    // -mca and -tune as Open MPI spells them; no abbreviations (a program's
    // own --mc or --tun are its own).
    const int style =
        (po::command_line_style::default_style | po::command_line_style::allow_long_disguise) &
        ~po::command_line_style::allow_guessing;

    // Everything from "--" on is the program's, "--" included: Boost would
    // take the terminator out of the program's arguments.
    const auto terminator = std::find(args.begin(), args.end(), "--");
    const std::vector<std::string> options(args.begin(), terminator);

    po::parsed_options parsed(&meridian_options);
    try {
        parsed = po::command_line_parser(options)
                     .options(meridian_options)
                     .style(style)
                     .extra_style_parser(program_token)
                     .allow_unregistered()
                     .run();
    } catch (const po::invalid_command_line_syntax &e) {
        const std::string why = e.kind() == po::invalid_command_line_syntax::missing_parameter
                                    ? missing_values(options)
                                    : std::string();
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          "command line: " + (why.empty() ? std::string(e.what()) : why));
    } catch (const po::error &e) {
        return make_error(MERIDIAN_ERR_BAD_PARAM, std::string("command line: ") + e.what());
    }

    CommandLineSettings settings;
    std::map<std::string, std::string, std::less<>> seen;
    std::size_t position = 0; // options come back in order, each with the tokens it used
    for (const auto &option : parsed.options) {
        const std::size_t at = position;
        position += option.original_tokens.size();
        if (option.string_key == "mca" && !option.unregistered) {
            const std::string &name = option.value[0];
            const std::string &value = option.value[1];
            if (name.empty()) {
                return make_error(
                    MERIDIAN_ERR_BAD_PARAM,
                    "command line: --mca needs a parameter name, found an empty string");
            }
            if (const auto it = seen.find(name); it != seen.end()) {
                return make_error(MERIDIAN_ERR_BAD_PARAM, "command line: --mca " + name +
                                                              " is given twice (values " +
                                                              util::quoted(it->second) + " and " +
                                                              util::quoted(value) + ")");
            }
            seen.emplace(name, value);
            settings.mca.emplace_back(name, value);
        } else if (option.string_key == "tune" && !option.unregistered) {
            for (const auto &file : util::split(option.value[0], ',')) {
                if (util::trim(file).empty()) {
                    return make_error(MERIDIAN_ERR_BAD_PARAM,
                                      "command line: --tune expects FILE[,FILE...], found " +
                                          util::quoted(option.value[0]));
                }
                settings.tune_files.emplace_back(util::trim(file));
            }
        } else {
            // The program's own: an option Meridian does not know, or a
            // positional argument, each one token as given.
            for (std::size_t k = 0; k < option.original_tokens.size(); ++k) {
                settings.remaining_index.push_back(at + k);
            }
        }
    }
    settings.remaining = po::collect_unrecognized(parsed.options, po::include_positional);
    for (auto token = terminator; token != args.end(); ++token) {
        settings.remaining_index.push_back(static_cast<std::size_t>(token - args.begin()));
        settings.remaining.push_back(*token);
    }
    return settings;
}

Status apply_command_line(const CommandLineSettings &settings)
{
    auto &registry = ParamRegistry::instance();
    // Read every tune file before anything is applied.
    std::vector<std::vector<FileSetting>> tune_settings;
    for (const auto &file : settings.tune_files) {
        auto read = read_param_file(file, true);
        if (!read) {
            report_error(read.error().message);
            return read.error();
        }
        tune_settings.push_back(std::move(*read));
    }
    registry.remove_settings(SourceKind::tune_file);
    for (std::size_t i = 0; i < tune_settings.size(); ++i) {
        add_file_settings(registry, settings.tune_files[i], tune_settings[i], SourceKind::tune_file,
                          static_cast<int>(i));
    }
    registry.remove_settings(SourceKind::command_line);
    for (const auto &[name, value] : settings.mca) {
        SourceRef source;
        source.kind = SourceKind::command_line;
        registry.add_setting(name, value, source);
    }
    return success();
}

} // namespace meridian::mca
