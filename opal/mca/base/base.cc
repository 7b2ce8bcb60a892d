// SPDX-License-Identifier: BSD-3-Clause
// The MCA base's own parameters, the sources it reads, and the C entry points
// for both.
#include "config.h" // MERIDIAN_MCA_ENV_PREFIX (configure --with-mca-env-prefix)

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "opal/mca/base/base_params.hpp"
#include "opal/util/paths.hpp"
#include <meridian/opal/mca/base/cmdline.hpp>
#include <meridian/opal/mca/base/component_repository.hpp>
#include <meridian/opal/mca/base/framework.hpp>
#include <meridian/opal/mca/base/mca_base.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/mca/base/param_file.hpp>
#include <meridian/opal/mca/base/param_registry.hpp>
#include <meridian/opal/util/c_boundary.hpp>
#include <meridian/opal/util/output.hpp>
#include <meridian/opal/util/strings.hpp>

#ifndef MERIDIAN_MCA_ENV_PREFIX
#error "MERIDIAN_MCA_ENV_PREFIX comes from config.h"
#endif

namespace meridian::mca
{

namespace
{

// The user's own component directory, which need not exist.
constexpr std::string_view user_component_dir = "$HOME/.meridian/components";

struct CoreParams {
    const char *component_path = nullptr;
    const char *param_files = nullptr;
    const char *override_file = nullptr;
    const char *show_load_errors = nullptr;
    bool strict = false;
    int datastore = 0; // index into datastore_backends
    bool message_aggregate = true;
    int message_window = 1000; // milliseconds
    int open_count = 0;
    bool registered = false;
    std::vector<std::string> files_read; // the list last read, to notice changes
};

// mca_base_datastore's values (opal/runtime/datastore.hpp).
const mca_base_param_enum_value_t datastore_backends[] = {{0, "auto"}, {1, "local"}, {2, "pmix"},
                                                          {3, "pmi"},  {4, "pmi1"},  {5, "pmi2"},
                                                          {6, "mpi"},  {0, nullptr}};

CoreParams &core()
{
    static CoreParams params;
    return params;
}

int register_core_params()
{
    auto &c = core();
    const std::string default_path = paths::component_dir() + ":" + std::string(user_component_dir);
    const std::string default_files =
        paths::sysconf_dir() + "/meridian-mca-params.conf:$HOME/.meridian/mca-params.conf";
    const std::string default_override =
        paths::sysconf_dir() + "/meridian-mca-params-override.conf";
    // Defaults are taken from the storage at registration, then replaced by
    // Meridian-owned strings.
    c.component_path = default_path.c_str();
    c.param_files = default_files.c_str();
    c.override_file = default_override.c_str();
    c.show_load_errors = "all";
    c.strict = false;
    c.datastore = 0;
    c.message_aggregate = true;
    c.message_window = 1000;
    const struct {
        const char *name;
        const char *help;
        mca_base_param_type_t type;
        int level;
        int flags;
        void *storage;
        const mca_base_param_enum_value_t *enumerators = nullptr;
    } table[] = {
        {"component_path",
         "Directories searched for component DSOs, separated by ':' ($HOME and ~ are "
         "expanded); SYS_DEFAULT stands for the installation's component directory and "
         "USER_DEFAULT for $HOME/.meridian/components, so DIR:SYS_DEFAULT:USER_DEFAULT adds "
         "DIR to the defaults",
         MCA_BASE_PARAM_TYPE_STRING, MCA_BASE_INFO_DEV_ALL, MCA_BASE_PARAM_FLAG_NONE,
         &c.component_path},
        {"param_files",
         "Param files read, separated by ':'; later files override earlier ones; \"none\" reads "
         "none",
         MCA_BASE_PARAM_TYPE_STRING, MCA_BASE_INFO_TUNER_DETAIL, MCA_BASE_PARAM_FLAG_NOT_IN_FILES,
         &c.param_files},
        {"override_param_file",
         "Param file whose settings override every other source; \"none\" reads none",
         MCA_BASE_PARAM_TYPE_STRING, MCA_BASE_INFO_TUNER_DETAIL, MCA_BASE_PARAM_FLAG_NOT_IN_FILES,
         &c.override_file},
        {"component_show_load_errors",
         "Report components that cannot be loaded: all, none, or a comma-separated list of "
         "framework or framework_component names",
         MCA_BASE_PARAM_TYPE_STRING, MCA_BASE_INFO_DEV_ALL, MCA_BASE_PARAM_FLAG_NONE,
         &c.show_load_errors},
        {"strict_params",
         "Treat a setting that no component registers as an error instead of a warning",
         MCA_BASE_PARAM_TYPE_BOOL, MCA_BASE_INFO_TUNER_BASIC, MCA_BASE_PARAM_FLAG_NONE, &c.strict},
        {"datastore",
         "Key-value datastore: auto (PMIx when a PMIx launcher started the process, PMI when "
         "a PMI launcher did -- MPICH's mpiexec, srun --mpi=pmi2, flux run --, local "
         "otherwise; the program's MPI where it runs a job of several through QMP's MPI part and "
         "no PMIx launcher started the process), local, pmix, pmi (PMI-2 under srun, PMI-1 "
         "elsewhere), pmi1, pmi2 or mpi (an error when that one cannot start)",
         MCA_BASE_PARAM_TYPE_ENUM, MCA_BASE_INFO_TUNER_DETAIL, MCA_BASE_PARAM_FLAG_NONE,
         &c.datastore, datastore_backends},
        {"message_aggregate",
         "In a job, each node prints an error, warning or notice that several of its processes "
         "give once, with their ranks (its lowest rank prints); 0: every process prints its own",
         MCA_BASE_PARAM_TYPE_BOOL, MCA_BASE_INFO_USER_BASIC, MCA_BASE_PARAM_FLAG_NONE,
         &c.message_aggregate},
        {"message_window",
         "Milliseconds a node's printer waits, from a message's first arrival, for the node's "
         "other processes to give the same message before it prints it (it prints at once when "
         "all have); 0 prints at once",
         MCA_BASE_PARAM_TYPE_INT, MCA_BASE_INFO_TUNER_DETAIL, MCA_BASE_PARAM_FLAG_NONE,
         &c.message_window},
    };
    for (const auto &entry : table) {
        const int index = meridian_mca_base_param_register("mca", "base", entry.name, entry.help,
                                                           entry.type, entry.enumerators,
                                                           entry.level, entry.flags, entry.storage);
        if (index < 0) {
            return index;
        }
    }
    c.registered = true;
    return MERIDIAN_SUCCESS;
}

// One entry of a ':'-separated list of files, or nothing for "none".
std::vector<std::string> file_list(const char *value)
{
    std::vector<std::string> files;
    if (value == nullptr || util::trim(value) == "none") {
        return files;
    }
    for (const auto &item : util::split(value, ':')) {
        if (!util::trim(item).empty()) {
            files.push_back(paths::expand_home(std::string(util::trim(item))));
        }
    }
    return files;
}

bool is_default(const char *full_name)
{
    auto &registry = ParamRegistry::instance();
    const auto index = registry.find(full_name);
    return !index || registry.param(*index)->source().kind == SourceKind::default_value;
}

// (Re)read the param files and the override file named by the current values.
Status read_param_files()
{
    auto &c = core();
    auto &registry = ParamRegistry::instance();
    auto files = file_list(c.param_files);
    const auto overrides = file_list(c.override_file);
    std::vector<std::string> together = files;
    together.insert(together.end(), overrides.begin(), overrides.end());
    if (together == c.files_read) {
        return success();
    }
    c.files_read = together;

    // Files the user named must exist; the default ones are optional.
    const bool files_required = !is_default("mca_base_param_files");
    const bool override_required = !is_default("mca_base_override_param_file");
    struct Pending {
        std::string path;
        std::vector<FileSetting> settings;
        SourceKind kind;
        int order;
    };
    std::vector<Pending> pending;
    Status status = success();
    const auto read = [&](const std::string &path, SourceKind kind, int order, bool required) {
        auto settings = read_param_file(path, required);
        if (!settings) {
            report_error(settings.error().message);
            status = settings.error();
            return;
        }
        pending.push_back(Pending{path, std::move(*settings), kind, order});
    };
    const bool default_list = !files_required;
    for (std::size_t i = 0; i < files.size(); ++i) {
        // The default list is "system file, user file"; a list the user gives
        // ranks as user files, later ones winning.
        const SourceKind kind =
            default_list && i == 0 ? SourceKind::system_file : SourceKind::user_file;
        read(files[i], kind, static_cast<int>(i), files_required);
    }
    for (std::size_t i = 0; i < overrides.size(); ++i) {
        read(overrides[i], SourceKind::override_file, static_cast<int>(i), override_required);
    }
    registry.remove_settings(SourceKind::system_file);
    registry.remove_settings(SourceKind::user_file);
    registry.remove_settings(SourceKind::override_file);
    for (const auto &p : pending) {
        add_file_settings(registry, p.path, p.settings, p.kind, p.order);
    }
    return status;
}

int open_sources()
{
    auto &c = core();
    if (!c.registered) {
        if (const int rc = register_core_params(); rc != MERIDIAN_SUCCESS) {
            return rc;
        }
    }
    c.files_read.clear();
    const Status env = load_environment(ParamRegistry::instance(), MERIDIAN_MCA_ENV_PREFIX);
    const Status files = read_param_files();
    return env && files ? MERIDIAN_SUCCESS : MERIDIAN_ERR_BAD_PARAM;
}

} // namespace

void ensure_base_open()
{
    if (core().open_count == 0 && !core().registered) {
        (void)open_sources();
    }
}

namespace
{

// One directory of mca_base_component_path, and whether it came from one of
// the keywords that stand for the defaults (SYS_DEFAULT: the installation's
// component directory; USER_DEFAULT: $HOME/.meridian/components), as Open MPI
// 5's mca_base_component_path takes them: "DIR:SYS_DEFAULT:USER_DEFAULT"
// adds DIR before the defaults rather than replacing them.
struct PathEntry {
    std::string directory;
    bool keyword;
};

std::vector<PathEntry> component_path_entries()
{
    std::vector<PathEntry> entries;
    const char *path = core().component_path;
    if (path == nullptr) {
        return entries;
    }
    for (const auto &item : util::split(path, ':')) {
        const std::string_view word = util::trim(item);
        if (word.empty()) {
            continue;
        }
        if (word == "SYS_DEFAULT") {
            entries.push_back({paths::component_dir(), true});
            continue;
        }
        if (word == "USER_DEFAULT") {
            entries.push_back({paths::expand_home(std::string(user_component_dir)), true});
            continue;
        }
        // A relative directory is the working directory's, made absolute
        // here so the loader, the messages and meridian_info show where.
        std::string directory = paths::expand_home(std::string(word));
        if (directory.front() != '/') {
            std::error_code error;
            const auto absolute = std::filesystem::absolute(directory, error);
            if (!error) {
                directory = absolute.lexically_normal().string();
            }
        }
        entries.push_back({std::move(directory), false});
    }
    return entries;
}

} // namespace

std::vector<std::string> component_directories()
{
    std::vector<std::string> directories;
    for (auto &entry : component_path_entries()) {
        directories.push_back(std::move(entry.directory));
    }
    return directories;
}

namespace
{

std::string set_in(const char *full_name)
{
    auto &registry = ParamRegistry::instance();
    const auto index = registry.find(full_name);
    const Param *param = index ? registry.param(*index) : nullptr;
    return std::string("MCA parameter ") + full_name +
           (param != nullptr ? " (set in " + param->source().where() + ")" : std::string());
}

std::vector<std::string> declared_framework_names()
{
    std::vector<std::string> names;
    for (auto *const *framework = meridian_mca_base_frameworks(); *framework != nullptr;
         ++framework) {
        names.emplace_back((*framework)->name);
    }
    return names;
}

const mca_base_framework_t *declared_framework(std::string_view name)
{
    for (auto *const *framework = meridian_mca_base_frameworks(); *framework != nullptr;
         ++framework) {
        if (name == (*framework)->name) {
            return *framework;
        }
    }
    return nullptr;
}

// The framework whose "<fw>_" begins `text` (the longest, since framework
// names may hold '_'), or null.
const mca_base_framework_t *framework_prefix(std::string_view text)
{
    const mca_base_framework_t *best = nullptr;
    for (auto *const *framework = meridian_mca_base_frameworks(); *framework != nullptr;
         ++framework) {
        const std::string prefix = std::string((*framework)->name) + "_";
        if (util::starts_with(text, prefix) &&
            (best == nullptr || std::strlen(best->name) < prefix.size() - 1)) {
            best = *framework;
        }
    }
    return best;
}

std::string frameworks_and_guess(std::string_view word)
{
    const auto names = declared_framework_names();
    std::string text = "the frameworks are: " + util::join(names, ", ");
    if (const auto guess = util::closest_match(word, names)) {
        text += "; did you mean " + *guess + "?";
    }
    return text;
}

// Every name of mca_base_component_show_load_errors is a framework or a
// framework_component of a registered framework.
void check_show_load_errors()
{
    const char *value = core().show_load_errors != nullptr ? core().show_load_errors : "all";
    const std::string_view whole = util::trim(value);
    if (whole == "all" || whole == "none") {
        return;
    }
    for (const auto &item : util::split(value, ',')) {
        const std::string name(util::trim(item));
        if (name.empty() || declared_framework(name) != nullptr) {
            continue;
        }
        const std::string head =
            set_in("mca_base_component_show_load_errors") + " names " + util::quoted(name) + ", ";
        if (name == "all" || name == "none") {
            report_error(head + "which is a whole value, not an item of a list");
            continue;
        }
        const mca_base_framework_t *framework = framework_prefix(name);
        if (framework == nullptr) {
            report_error(head + "which is no framework or framework_component (" +
                         frameworks_and_guess(name.substr(0, name.find('_'))) + ")");
            continue;
        }
        if (!framework_is_registered(framework->name)) {
            continue; // its components are not known yet
        }
        const std::string component = name.substr(std::strlen(framework->name) + 1);
        std::vector<std::string> known;
        for (const auto &view : framework_components(*framework)) {
            known.emplace_back(view.component->component_name);
        }
        for (const auto &failure : framework_failures(*framework)) {
            known.push_back(failure.component);
        }
        if (std::find(known.begin(), known.end(), component) != known.end()) {
            continue;
        }
        std::sort(known.begin(), known.end());
        std::string text = head + "but framework " + framework->name + " has no component " +
                           util::quoted(component) + " (its components are: " +
                           (known.empty() ? std::string("none") : util::join(known, ", "));
        if (const auto guess = util::closest_match(component, known)) {
            text += "; did you mean " + std::string(framework->name) + "_" + *guess + "?";
        }
        report_error(text + ")");
    }
}

// The directories of a mca_base_component_path the user set: each must be a
// readable directory.  (The defaults, named or by their keywords, need not
// exist: $HOME/.meridian/components seldom does.)  Only those a framework
// searched, as every check of the directories.
void check_component_path()
{
    if (is_default("mca_base_component_path")) {
        return;
    }
    for (const auto &[directory, keyword] : component_path_entries()) {
        if (keyword || !component_directory_searched(directory)) {
            continue;
        }
        struct stat info {
        };
        std::string problem;
        if (::stat(directory.c_str(), &info) != 0) {
            problem = errno == ENOENT
                          ? std::string("which does not exist")
                          : std::string("which cannot be read: ") + std::strerror(errno);
        } else if (!S_ISDIR(info.st_mode)) {
            problem = "which is not a directory";
        } else if (::access(directory.c_str(), R_OK | X_OK) != 0) {
            problem = std::string("which cannot be read: ") + std::strerror(errno);
        }
        if (!problem.empty()) {
            report_warning(set_in("mca_base_component_path") + " names " + directory + ", " +
                           problem + "; no component is loaded from it");
        }
    }
}

// Files in the component directories that look like components of a
// misspelt framework (mca_crato_x.so) or have no component name (mca_carto_.so):
// no framework's scan takes them, so nothing else would say so.
void check_stray_files(const std::vector<std::string> &directories)
{
    const std::string suffix = ".so";
    for (const auto &directory : directories) {
        if (!component_directory_searched(directory)) {
            continue;
        }
        const std::vector<std::string> names = component_file_names(directory);
        for (const auto &name : names) {
            const std::string stem = name.substr(4, name.size() - 4 - suffix.size());
            const std::string path = directory + "/" + name;
            const mca_base_framework_t *framework = framework_prefix(stem);
            if (framework == nullptr) {
                // Another program's framework may share the directory: only
                // a name close to one of ours is taken for a typo.
                const std::string guessed = stem.substr(0, stem.find('_'));
                const auto meant = util::closest_match(guessed, declared_framework_names());
                if (meant && show_load_error(*meant, {})) {
                    report_warning("cannot load component " + path + ": no framework is named " +
                                   util::quoted(guessed) + " (did you mean " + *meant + "?)");
                }
            } else if (stem.size() == std::strlen(framework->name) + 1 &&
                       show_load_error(framework->name, "")) {
                report_warning("cannot load component " + path +
                               ": the file name has no component name (mca_" + framework->name +
                               "_NAME.so)");
            }
        }
    }
}

} // namespace

void check_component_discovery()
{
    check_show_load_errors();
    check_component_path();
    check_stray_files(component_directories());
}

bool strict_params()
{
    return core().strict;
}

bool message_aggregate()
{
    return core().message_aggregate;
}

std::chrono::milliseconds message_window()
{
    return std::chrono::milliseconds(std::max(core().message_window, 0));
}

std::string_view datastore_backend()
{
    for (const auto *entry = datastore_backends; entry->name != nullptr; ++entry) {
        if (entry->value == core().datastore) {
            return entry->name;
        }
    }
    return "auto";
}

bool show_load_error(std::string_view framework, std::string_view component)
{
    const std::string_view value =
        core().show_load_errors != nullptr ? core().show_load_errors : "all";
    if (util::trim(value) == "all") {
        return true;
    }
    if (util::trim(value) == "none") {
        return false;
    }
    const std::string full = std::string(framework) + "_" + std::string(component);
    for (const auto &item : util::split(value, ',')) {
        const auto name = util::trim(item);
        if (name == framework || name == full) {
            return true;
        }
    }
    return false;
}

} // namespace meridian::mca

using namespace meridian;
using namespace meridian::mca;

extern "C" int meridian_mca_base_open(void)
{
    return meridian::c_boundary("meridian_mca_base_open", [&]() -> int {
        auto &c = core();
        if (c.open_count++ > 0) {
            return MERIDIAN_SUCCESS;
        }
        return open_sources();
    });
}

extern "C" int meridian_mca_base_close(void)
{
    auto &c = core();
    if (c.open_count == 0) {
        return MERIDIAN_SUCCESS;
    }
    --c.open_count;
    return MERIDIAN_SUCCESS;
}

extern "C" int meridian_mca_base_cmdline_apply(int *argc, char ***argv)
{
    return meridian::c_boundary("meridian_mca_base_cmdline_apply", [&]() -> int {
        if (argc == nullptr || argv == nullptr || *argv == nullptr || *argc < 0) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        std::vector<std::string> args;
        for (int i = 1; i < *argc; ++i) {
            args.emplace_back((*argv)[i]);
        }
        auto parsed = parse_command_line(args);
        if (!parsed) {
            report_error(parsed.error().message);
            return parsed.error().status;
        }
        if (auto applied = apply_command_line(*parsed); !applied) {
            return applied.error().status;
        }
        // Keep the program's arguments, in order.
        int out = 1;
        for (const std::size_t index : parsed->remaining_index) {
            (*argv)[out++] = (*argv)[index + 1];
        }
        *argc = out;
        (*argv)[out] = nullptr;
        // The command line may have changed which param files to read.
        if (core().registered) {
            const Status files = read_param_files();
            return files ? MERIDIAN_SUCCESS : files.error().status;
        }
        return MERIDIAN_SUCCESS;
    });
}

extern "C" const char *meridian_mca_base_env_prefix(void)
{
    return MERIDIAN_MCA_ENV_PREFIX;
}
