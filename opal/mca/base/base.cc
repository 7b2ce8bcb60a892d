// The MCA base's own parameters, the sources it reads, and the C entry points
// for both.
#include "config.h" // MERIDIAN_MCA_ENV_PREFIX (configure --with-mca-env-prefix)

#include <cstdlib>
#include <string>
#include <vector>

#include "opal/mca/base/base_params.hpp"
#include "opal/util/paths.hpp"
#include <meridian/opal/mca/base/cmdline.hpp>
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

struct CoreParams {
    const char *component_path = nullptr;
    const char *param_files = nullptr;
    const char *override_file = nullptr;
    const char *show_load_errors = nullptr;
    bool strict = false;
    int datastore = 0; // index into datastore_backends
    int open_count = 0;
    bool registered = false;
    std::vector<std::string> files_read; // the list last read, to notice changes
};

// mca_base_datastore's values (opal/runtime/datastore.hpp).
const mca_base_param_enum_value_t datastore_backends[] = {
    {0, "auto"}, {1, "local"}, {2, "pmix"}, {0, nullptr}};

CoreParams &core()
{
    static CoreParams params;
    return params;
}

int register_core_params()
{
    auto &c = core();
    const std::string default_path = paths::component_dir() + ":$HOME/.meridian/components";
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
         "Directories searched for component DSOs, separated by ':' ($HOME and ~ are expanded)",
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
         "Key-value datastore: auto (PMIx when a PMIx launcher started the process, local "
         "otherwise), local, or pmix (an error when PMIx cannot start)",
         MCA_BASE_PARAM_TYPE_ENUM, MCA_BASE_INFO_TUNER_DETAIL, MCA_BASE_PARAM_FLAG_NONE,
         &c.datastore, datastore_backends},
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

std::vector<std::string> component_directories()
{
    std::vector<std::string> directories;
    const char *path = core().component_path;
    if (path == nullptr) {
        return directories;
    }
    for (const auto &item : util::split(path, ':')) {
        if (!util::trim(item).empty()) {
            directories.push_back(paths::expand_home(std::string(util::trim(item))));
        }
    }
    return directories;
}

bool strict_params()
{
    return core().strict;
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
