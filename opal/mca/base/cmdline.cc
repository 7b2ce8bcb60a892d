#include <meridian/opal/mca/base/cmdline.hpp>

#include <boost/program_options.hpp>
#include <climits>
#include <map>

#include <meridian/opal/mca/base/param_file.hpp>
#include <meridian/opal/mca/base/param_registry.hpp>
#include <meridian/opal/util/output.hpp>
#include <meridian/opal/util/strings.hpp>

namespace po = boost::program_options;

namespace meridian::mca {

namespace {

// Boost's parsers know options with one value; --mca takes two.  This style
// parser reads one option (or one passed-through token) per call, so the
// program's own arguments keep their order.
class MeridianStyle {
public:
    explicit MeridianStyle(std::string &error) : error_(error) {}

    std::vector<po::option> operator()(std::vector<std::string> &args)
    {
        std::vector<po::option> out;
        if (args.empty() || !error_.empty()) {
            return out;
        }
        const std::string token = args.front();
        if (passthrough_ || token == "--") {
            passthrough_ = true;
            out.push_back(unrecognized(token));
            args.erase(args.begin());
            return out;
        }
        if (token == "--mca" || token == "-mca") {
            if (args.size() < 3) {
                error_ = token + " needs a parameter name and a value, found " +
                         (args.size() == 1 ? std::string("end of arguments")
                                           : "only " + util::quoted(args[1]));
                args.clear();
                return out;
            }
            po::option option("mca", {args[1], args[2]});
            option.original_tokens = {args[0], args[1], args[2]};
            out.push_back(option);
            args.erase(args.begin(), args.begin() + 3);
            return out;
        }
        if (token == "--tune" || token == "-tune" || util::starts_with(token, "--tune=")) {
            std::string value;
            std::size_t used = 1;
            if (token.find('=') != std::string::npos) {
                value = token.substr(token.find('=') + 1);
            } else if (args.size() >= 2) {
                value = args[1];
                used = 2;
            } else {
                error_ = token + " needs a file name, found end of arguments";
                args.clear();
                return out;
            }
            po::option option("tune", {value});
            option.original_tokens.assign(args.begin(), args.begin() + static_cast<long>(used));
            out.push_back(option);
            args.erase(args.begin(), args.begin() + static_cast<long>(used));
            return out;
        }
        out.push_back(unrecognized(token));
        args.erase(args.begin());
        return out;
    }

private:
    static po::option unrecognized(const std::string &token)
    {
        // No key: Boost gives the tokens after an option whose key names a
        // registered one ("mca", "tune", or a prefix of them) to it, so the
        // program's own "mca base" lost "base".  INT_MAX is Boost's mark for
        // a positional token that no option may take.
        po::option option;
        option.position_key = INT_MAX;
        option.value = {token};
        option.unregistered = true;
        option.original_tokens = {token};
        return option;
    }

    std::string &error_;
    bool passthrough_ = false;
};

}  // namespace

Result<CommandLineSettings> parse_command_line(const std::vector<std::string> &args)
{
    po::options_description meridian_options("Meridian options");
    meridian_options.add_options()(
        "mca", po::value<std::vector<std::string>>()->multitoken(), "set an MCA parameter")(
        "tune", po::value<std::vector<std::string>>(), "read MCA parameters from files");

    std::string error;
    po::parsed_options parsed(&meridian_options);
    try {
        parsed = po::command_line_parser(args)
                     .options(meridian_options)
                     .extra_style_parser(MeridianStyle(error))
                     .allow_unregistered()
                     .run();
    } catch (const po::error &e) {
        error = e.what();
    }
    if (!error.empty()) {
        return make_error(MERIDIAN_ERR_BAD_PARAM, "command line: " + error);
    }

    CommandLineSettings settings;
    std::map<std::string, std::string, std::less<>> seen;
    std::size_t position = 0;  // options come back in order, each with the tokens it used
    for (const auto &option : parsed.options) {
        const std::size_t at = position;
        position += option.original_tokens.size();
        if (option.unregistered) {
            settings.remaining.push_back(option.original_tokens.front());
            settings.remaining_index.push_back(at);
        } else if (option.string_key == "mca") {
            const std::string &name = option.value[0];
            const std::string &value = option.value[1];
            if (name.empty()) {
                return make_error(MERIDIAN_ERR_BAD_PARAM,
                                  "command line: --mca needs a parameter name, found an empty string");
            }
            if (const auto it = seen.find(name); it != seen.end()) {
                return make_error(MERIDIAN_ERR_BAD_PARAM,
                                  "command line: --mca " + name + " is given twice (values " +
                                      util::quoted(it->second) + " and " + util::quoted(value) + ")");
            }
            seen.emplace(name, value);
            settings.mca.emplace_back(name, value);
        } else if (option.string_key == "tune") {
            for (const auto &file : util::split(option.value[0], ',')) {
                if (util::trim(file).empty()) {
                    return make_error(MERIDIAN_ERR_BAD_PARAM,
                                      "command line: --tune expects FILE[,FILE...], found " +
                                          util::quoted(option.value[0]));
                }
                settings.tune_files.emplace_back(util::trim(file));
            }
        }
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

}  // namespace meridian::mca
