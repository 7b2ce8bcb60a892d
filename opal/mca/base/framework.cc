// SPDX-License-Identifier: BSD-3-Clause
#include "config.h" // MERIDIAN_BUILT_COMPONENTS

#include <meridian/opal/mca/base/framework.hpp>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "opal/mca/base/base_params.hpp"
#include "opal/util/no_destructor.hpp"
#include <meridian/opal/mca/base/mca_base.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/mca/base/param_registry.hpp>
#include <meridian/opal/util/c_boundary.hpp>
#include <meridian/opal/util/output.hpp>
#include <meridian/opal/util/strings.hpp>

namespace meridian::mca
{

namespace
{

struct ComponentEntry {
    LoadedComponent loaded;
    bool opened = false;
    // Why it offers no module, for the error when no component does
    // ("did not open (...)", "declined (...)"); empty while it may offer.
    std::string outcome;
    // Other names the selection parameter takes for it, as it declared them.
    std::vector<std::string> aliases;

    const mca_base_component_t &component() const { return *loaded.component; }
    std::string name() const { return loaded.component->component_name; }
};

struct FrameworkState {
    bool registered = false;
    // Whether its components are found and registered: at registration, or
    // -- registered with MCA_BASE_REGISTER_COMPONENTS_ON_DEMAND -- when it
    // opens or someone asks for them.
    bool components_loaded = false;
    int open_count = 0;
    const char *selection = nullptr; // storage of the <fw> parameter
    std::vector<ComponentEntry> components;
    std::vector<LoadFailure> failures;
};

using StateMap = std::map<const mca_base_framework_t *, std::unique_ptr<FrameworkState>>;

StateMap &states()
{
    static util::NoDestructor<StateMap> all;
    return all.get();
}

std::set<std::string, std::less<>> &registered_names()
{
    static std::set<std::string, std::less<>> names;
    return names;
}

// The declared frameworks, NULL-terminated (meridian_mca_base_frameworks).
std::vector<mca_base_framework_t *> &declared()
{
    static util::NoDestructor<std::vector<mca_base_framework_t *>> list(
        std::vector<mca_base_framework_t *>{nullptr});
    return list.get();
}

// Whether NAME is under FRAMEWORK's name ("<fw>" or "<fw>_...").
bool under(std::string_view name, std::string_view framework)
{
    return name == framework || (util::starts_with(name, framework) &&
                                 name.size() > framework.size() && name[framework.size()] == '_');
}

// A setting for FRAMEWORK's components rather than for the framework itself:
// "<fw>_<anything but base>...".
bool for_components(std::string_view name, std::string_view framework)
{
    if (!under(name, framework) || name == framework) {
        return false;
    }
    const std::string_view rest = name.substr(framework.size() + 1);
    return rest != "base" && !util::starts_with(rest, "base_");
}

FrameworkState &state_of(mca_base_framework_t &framework)
{
    auto &slot = states()[&framework];
    if (!slot) {
        slot = std::make_unique<FrameworkState>();
    }
    framework.internal = slot.get();
    return *slot;
}

const FrameworkState *find_state(const mca_base_framework_t &framework)
{
    const auto it = states().find(&framework);
    return it == states().end() ? nullptr : it->second.get();
}

// A setting whose parameters are not all known yet: under the name of a
// framework that is declared but not registered, or for the components of
// one whose components are not loaded (registered on demand; they are
// checked when they load).
bool undecidable(std::string_view name)
{
    for (const auto *framework : declared()) {
        if (framework == nullptr || !under(name, framework->name)) {
            continue;
        }
        if (!framework_is_registered(framework->name)) {
            return true;
        }
        const auto *state = find_state(*framework);
        if (state != nullptr && !state->components_loaded &&
            for_components(name, framework->name)) {
            return true;
        }
    }
    return false;
}

void verbose(const mca_base_framework_t &framework, int level, const std::string &text)
{
    if (framework.verbose >= level) {
        report(Severity::verbose, std::string(framework.name) + ": " + text);
    }
}

void report_load_problem(const mca_base_framework_t &framework, const std::string &component,
                         const std::string &text, Severity severity)
{
    if (show_load_error(framework.name, component)) {
        report(severity, text);
    }
}

const mca_base_param_enum_value_t verbose_levels[] = {
    {MCA_BASE_VERBOSE_NONE, "none"},
    {MCA_BASE_VERBOSE_ERROR, "error"},
    {MCA_BASE_VERBOSE_WARN, "warn"},
    {MCA_BASE_VERBOSE_INFO, "info"},
    {MCA_BASE_VERBOSE_DEBUG, "debug"},
    {MCA_BASE_VERBOSE_MAX, "max"},
    {0, nullptr},
};

int register_framework_params(mca_base_framework_t &framework, FrameworkState &state)
{
    const std::string name = framework.name;
    int index = meridian_mca_base_param_register(
        framework.name, "base", "verbose",
        ("Verbosity of the " + name + " framework: 0-100, or none, error, warn, info, debug, max")
            .c_str(),
        MCA_BASE_PARAM_TYPE_INT, verbose_levels, MCA_BASE_INFO_DEV_DETAIL, MCA_BASE_PARAM_FLAG_NONE,
        &framework.verbose);
    if (index < 0) {
        return index;
    }
    (void)meridian_mca_base_param_set_bounds(index, 0, 100);
    index = meridian_mca_base_param_register(
        framework.name, nullptr, nullptr,
        ("Which " + name + " components to use: a,b for only these, ^a,b for all but these")
            .c_str(),
        MCA_BASE_PARAM_TYPE_STRING, nullptr, MCA_BASE_INFO_USER_DETAIL,
        MCA_BASE_PARAM_FLAG_READONLY_AFTER_OPEN, &state.selection);
    return index < 0 ? index : MERIDIAN_SUCCESS;
}

// Where a built-in component "is", in failures and listings.
constexpr const char *built_in_path = "static";

void record_failure(const mca_base_framework_t &framework, FrameworkState &state,
                    const std::string &component, const std::string &path,
                    const std::string &reason)
{
    state.failures.push_back(LoadFailure{framework.name, component, path, reason});
    const std::string what =
        path == built_in_path ? "built-in component " + component : "component " + path;
    report_load_problem(framework, component, "cannot load " + what + ": " + reason,
                        Severity::warning);
}

void find_components(mca_base_framework_t &framework, FrameworkState &state)
{
    // Component name -> where it came from ("" for built in), so a later
    // file of the same name can say what it lost to.
    std::map<std::string, std::string> found;
    if (framework.static_components != nullptr) {
        for (auto *const *c = framework.static_components; *c != nullptr; ++c) {
            auto problem = version_problem(framework, **c);
            if (problem.empty() && std::string_view((*c)->framework_name) != framework.name) {
                problem = "belongs to framework " + std::string((*c)->framework_name);
            }
            if (!problem.empty()) {
                record_failure(framework, state, (*c)->component_name, built_in_path, problem);
                continue;
            }
            ComponentEntry entry;
            entry.loaded.component = *c;
            found.emplace(entry.name(), std::string());
            state.components.push_back(std::move(entry));
        }
    }
    for (const auto &candidate : find_candidates(framework.name, component_directories())) {
        if (const auto earlier = found.find(candidate.component); earlier != found.end()) {
            report_load_problem(framework, candidate.component,
                                candidate.path + ": ignored: component " + framework.name + "/" +
                                    candidate.component + " is " +
                                    (earlier->second.empty()
                                         ? std::string("built in")
                                         : "already loaded from " + earlier->second),
                                Severity::notice);
            continue;
        }
        auto loaded = load_component(framework, candidate);
        if (!loaded) {
            record_failure(framework, state, candidate.component, candidate.path,
                           loaded.error().message);
            continue;
        }
        found.emplace(candidate.component, candidate.path);
        ComponentEntry entry;
        entry.loaded = std::move(*loaded);
        state.components.push_back(std::move(entry));
    }
}

std::vector<std::string> component_names(const FrameworkState &state)
{
    std::vector<std::string> names;
    for (const auto &entry : state.components) {
        names.push_back(entry.name());
    }
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<ComponentAlias> component_aliases(const FrameworkState &state)
{
    std::vector<ComponentAlias> aliases;
    for (const auto &entry : state.components) {
        for (const auto &alias : entry.aliases) {
            aliases.push_back(ComponentAlias{alias, entry.name()});
        }
    }
    return aliases;
}

// An alias the selection parameter can hold and nobody else answers to;
// the reason otherwise.
Status check_alias(const FrameworkState &state, const ComponentEntry &owner, std::string_view alias)
{
    const std::string head = std::string(owner.component().framework_name) + " component " +
                             owner.name() + " cannot take the alias " + util::quoted(alias) + ": ";
    const bool well_formed = !alias.empty() && alias.size() <= MCA_BASE_MAX_NAME_LEN &&
                             std::all_of(alias.begin(), alias.end(), [](char c) {
                                 return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                        (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
                             });
    if (!well_formed) {
        return make_error(MERIDIAN_ERR_BAD_PARAM, head + "expected 1-" +
                                                      std::to_string(MCA_BASE_MAX_NAME_LEN) +
                                                      " letters, digits, '_', '-' or '.'");
    }
    for (const auto &entry : state.components) {
        if (entry.name() == alias) {
            return make_error(MERIDIAN_ERR_EXISTS, head + "a component has that name");
        }
        if (std::find(entry.aliases.begin(), entry.aliases.end(), alias) != entry.aliases.end()) {
            return make_error(MERIDIAN_ERR_EXISTS,
                              &entry == &owner
                                  ? head + "it has it already"
                                  : head + "it is already an alias of component " + entry.name());
        }
    }
    return success();
}

// Where the selection parameter's value came from, for its error messages.
std::string selection_source(const mca_base_framework_t &framework)
{
    auto &registry = ParamRegistry::instance();
    const auto index = registry.find(framework.name);
    const Param *param = index ? registry.param(*index) : nullptr;
    return param != nullptr ? param->source().where() : std::string();
}

Result<Selection> current_selection(const mca_base_framework_t &framework,
                                    const FrameworkState &state)
{
    const std::string where = selection_source(framework);
    auto selection =
        parse_selection(framework.name, state.selection != nullptr ? state.selection : "", where);
    if (!selection) {
        return selection;
    }
    const auto aliases = component_aliases(state);
    if (auto checked =
            check_selection(framework.name, *selection, component_names(state), where, aliases);
        !checked) {
        // A named component that exists but did not load: say why, which is
        // what the user has to fix.
        Error error = checked.error();
        for (const auto &failure : state.failures) {
            if (std::find(selection->names.begin(), selection->names.end(), failure.component) !=
                selection->names.end()) {
                error.message += "; " + failure.path + " did not load: " + failure.reason;
            }
        }
        return error;
    }
    return resolve_aliases(std::move(*selection), aliases);
}

struct Offer {
    const mca_base_component_t *component;
    mca_base_module_t *module;
    int priority;
};

// Every open component's answer to query, best first.
std::vector<Offer> collect_offers(const mca_base_framework_t &framework, FrameworkState &state)
{
    std::vector<Offer> offers;
    for (auto &entry : state.components) {
        if (!entry.opened) {
            continue;
        }
        if (entry.component().query == nullptr) {
            entry.outcome = "has no query function";
            continue;
        }
        mca_base_module_t *module = nullptr;
        int priority = 0;
        const int rc = entry.component().query(&entry.component(), &module, &priority);
        if (rc != MERIDIAN_SUCCESS || module == nullptr) {
            // A query that succeeds must give a module: say so rather than
            // "declines (success)".
            entry.outcome = rc != MERIDIAN_SUCCESS
                                ? std::string("declined (") + meridian_strerror(rc) + ")"
                                : std::string("answered its query with success but no module");
            verbose(framework, MCA_BASE_VERBOSE_INFO,
                    "component " + entry.name() + " " +
                        (rc != MERIDIAN_SUCCESS
                             ? std::string("declines (") + meridian_strerror(rc) + ")"
                             : entry.outcome));
            continue;
        }
        entry.outcome.clear();
        verbose(framework, MCA_BASE_VERBOSE_INFO,
                "component " + entry.name() + " offers a module with priority " +
                    std::to_string(priority));
        offers.push_back(Offer{&entry.component(), module, priority});
    }
    std::stable_sort(offers.begin(), offers.end(), [](const Offer &a, const Offer &b) {
        if (a.priority != b.priority) {
            return a.priority > b.priority;
        }
        return std::string_view(a.component->component_name) <
               std::string_view(b.component->component_name);
    });
    return offers;
}

constexpr std::string_view not_selected_outcome = "is not selected";

// Each component's reason for offering nothing, and the files that did not
// load: what the user needs when no component is available.
std::string why_no_offer(const FrameworkState &state)
{
    std::vector<std::string> reasons;
    std::vector<std::string> not_selected;
    for (const auto &entry : state.components) {
        if (entry.outcome == not_selected_outcome) {
            not_selected.push_back(entry.name());
        } else {
            reasons.push_back(
                entry.name() + " " +
                (entry.outcome.empty() ? std::string("offered nothing") : entry.outcome));
        }
    }
    for (const auto &failure : state.failures) {
        reasons.push_back(failure.component + " did not load (" + failure.path + ": " +
                          failure.reason + ")");
    }
    if (!not_selected.empty()) {
        reasons.push_back("not selected: " + util::join(not_selected, ", "));
    }
    return reasons.empty() ? std::string("no component was found") : util::join(reasons, "; ");
}

void close_components(FrameworkState &state)
{
    for (auto &entry : state.components) {
        if (entry.opened && entry.component().close != nullptr) {
            entry.component().close(&entry.component());
        }
        entry.opened = false;
    }
}

void unload_components(mca_base_framework_t &framework, FrameworkState &state)
{
    auto &registry = ParamRegistry::instance();
    for (auto &entry : state.components) {
        registry.deregister_component(framework.name, entry.name());
    }
    state.components.clear(); // closes the DSOs
    state.failures.clear();
    state.registered = false;
    state.components_loaded = false;
    registered_names().erase(framework.name);
}

enum class SettingsCheck { later, now };

// Find the framework's components and register their parameters.  Loaded
// after the start's check of the settings (on demand), what was set for them
// is checked now: names none of them took are told, an error with
// mca_base_strict_params.
Status load_components(mca_base_framework_t &framework, FrameworkState &state, SettingsCheck check)
{
    if (!state.registered || state.components_loaded) {
        return success();
    }
    state.components_loaded = true;
    find_components(framework, state);
    for (auto it = state.components.begin(); it != state.components.end();) {
        const auto &component = it->component();
        const int rc = component.register_params != nullptr ? component.register_params(&component)
                                                            : MERIDIAN_SUCCESS;
        ParamRegistry::instance().settle();
        if (rc != MERIDIAN_SUCCESS) {
            record_failure(framework, state, it->name(),
                           it->loaded.path.empty() ? built_in_path : it->loaded.path,
                           std::string("its register_params hook failed (") +
                               meridian_strerror(rc) + ")");
            ParamRegistry::instance().deregister_component(framework.name, it->name());
            it = state.components.erase(it);
            continue;
        }
        ++it;
    }
    if (check == SettingsCheck::later) {
        return success();
    }
    return ParamRegistry::instance().check_unknown(strict_params(), [&](std::string_view name) {
        return !for_components(name, framework.name);
    });
}

// The names of the components the framework has, built in or as files in
// the component path, without loading any.
std::vector<std::string> present_components(const mca_base_framework_t &framework)
{
    std::vector<std::string> names;
    if (framework.static_components != nullptr) {
        for (auto *const *c = framework.static_components; *c != nullptr; ++c) {
            names.emplace_back((*c)->component_name);
        }
    }
    for (auto &candidate : find_candidates(framework.name, component_directories())) {
        names.push_back(std::move(candidate.component));
    }
    return names;
}

// Whether `rest` ("<component>" or "<component>_<param>", after "<fw>_")
// is for one of `components`.
template <typename Names> bool names_one_of(std::string_view rest, const Names &components)
{
    return std::any_of(components.begin(), components.end(), [&](std::string_view component) {
        return rest == component ||
               (util::starts_with(rest, component) && rest.size() > component.size() &&
                rest[component.size()] == '_');
    });
}

// The framework's components this library was built with (configure's
// list), whether or not they are built in.
std::vector<std::string_view> built_components(std::string_view framework)
{
    std::vector<std::string_view> names;
    for (std::string_view list = MERIDIAN_BUILT_COMPONENTS; !list.empty();) {
        const auto end = list.find(' ');
        const std::string_view item = list.substr(0, end);
        list = end == std::string_view::npos ? std::string_view() : list.substr(end + 1);
        if (item.size() > framework.size() && util::starts_with(item, framework) &&
            item[framework.size()] == '/') {
            names.push_back(item.substr(framework.size() + 1));
        }
    }
    return names;
}

// Whether something is set under the framework's name for a component it
// does not have ("<fw>_<name>..." naming none): its components load at
// registration even on demand, so that the misspelt name is told at the
// start with the parameter it was meant for.  A setting for a component
// that is there waits for the component to load, and is checked then.  A
// component this library was built with counts as there without a look
// into the component directories, which a process that loads no component
// then never reads (if its file is gone, the process that loads it says so).
bool unknown_component_is_set(const mca_base_framework_t &framework)
{
    std::optional<std::vector<std::string_view>> built;
    std::optional<std::vector<std::string>> present;
    return ParamRegistry::instance().any_setting([&](std::string_view name) {
        if (!for_components(name, framework.name)) {
            return false;
        }
        const std::string_view rest = name.substr(std::strlen(framework.name) + 1);
        if (!built) {
            built = built_components(framework.name);
        }
        if (names_one_of(rest, *built)) {
            return false;
        }
        if (!present) {
            present = present_components(framework);
        }
        return !names_one_of(rest, *present);
    });
}

// The state of a registered framework with its components loaded, for the
// calls that show or check them; nullptr when it is not registered.
FrameworkState *loaded_state(const mca_base_framework_t &framework)
{
    const auto it = states().find(&framework);
    if (it == states().end() || !it->second->registered) {
        return nullptr;
    }
    // Told here, if anything; the listing goes on either way.
    (void)load_components(const_cast<mca_base_framework_t &>(framework), *it->second,
                          SettingsCheck::now);
    return it->second.get();
}

} // namespace

std::vector<ComponentView> framework_components(const mca_base_framework_t &framework)
{
    std::vector<ComponentView> views;
    if (const auto *state = loaded_state(framework)) {
        for (const auto &entry : state->components) {
            views.push_back(ComponentView{entry.loaded.component, entry.loaded.path, entry.opened,
                                          entry.aliases});
        }
    }
    return views;
}

std::vector<LoadFailure> framework_failures(const mca_base_framework_t &framework)
{
    const auto *state = loaded_state(framework);
    return state != nullptr ? state->failures : std::vector<LoadFailure>{};
}

Status validate_selection(const mca_base_framework_t &framework)
{
    const auto *state = loaded_state(framework);
    if (state == nullptr) {
        return make_error(MERIDIAN_ERR_NOT_INITIALIZED, "framework not registered");
    }
    auto selection = current_selection(framework, *state);
    return selection ? success() : Status(selection.error());
}

bool framework_is_registered(std::string_view name)
{
    return registered_names().count(name) != 0;
}

} // namespace meridian::mca

using namespace meridian;
using namespace meridian::mca;

extern "C" int meridian_mca_base_framework_declare(mca_base_framework_t *framework)
{
    return meridian::c_boundary("meridian_mca_base_framework_declare", [&]() -> int {
        if (framework == nullptr || framework->name == nullptr) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        auto &list = declared();
        for (const auto *known : list) {
            if (known == framework) {
                return MERIDIAN_SUCCESS;
            }
            if (known != nullptr && std::string_view(known->name) == framework->name) {
                return MERIDIAN_ERR_EXISTS;
            }
        }
        list.back() = framework;
        list.push_back(nullptr);
        return MERIDIAN_SUCCESS;
    });
}

extern "C" mca_base_framework_t *const *meridian_mca_base_frameworks(void)
{
    return declared().data();
}

extern "C" int meridian_mca_base_check_params(void)
{
    return meridian::c_boundary("meridian_mca_base_check_params", [&]() -> int {
        ensure_base_open();
        const auto status = ParamRegistry::instance().check_unknown(strict_params(), undecidable);
        check_component_discovery();
        if (!status) {
            return status.error().status;
        }
        // A value that cannot be used stops the start (each was told as it
        // was refused): running on the default instead would hide it.
        return ParamRegistry::instance().refused().empty() ? MERIDIAN_SUCCESS
                                                           : MERIDIAN_ERR_BAD_PARAM;
    });
}

extern "C" int meridian_mca_base_framework_register_flags(mca_base_framework_t *framework,
                                                          int flags)
{
    return meridian::c_boundary("meridian_mca_base_framework_register_flags", [&]() -> int {
        if ((flags & ~MCA_BASE_REGISTER_COMPONENTS_ON_DEMAND) != 0) {
            report_error("meridian_mca_base_framework_register_flags: unknown flags " +
                         std::to_string(flags & ~MCA_BASE_REGISTER_COMPONENTS_ON_DEMAND));
            return MERIDIAN_ERR_BAD_PARAM;
        }
        if (const int rc = meridian_mca_base_framework_declare(framework); rc != MERIDIAN_SUCCESS) {
            return rc;
        }
        FrameworkState &state = state_of(*framework);
        // Components put off at an earlier registration load now, after the
        // start's check of the settings: what was set for them is checked here.
        const SettingsCheck check = state.registered ? SettingsCheck::now : SettingsCheck::later;
        if (!state.registered) {
            ensure_base_open();
            if (const int rc = register_framework_params(*framework, state);
                rc != MERIDIAN_SUCCESS) {
                return rc;
            }
            if (framework->register_params != nullptr) {
                if (const int rc = framework->register_params(framework); rc != MERIDIAN_SUCCESS) {
                    return rc;
                }
            }
            ParamRegistry::instance().settle();
            state.registered = true;
            registered_names().insert(framework->name);
        }
        if ((flags & MCA_BASE_REGISTER_COMPONENTS_ON_DEMAND) == 0 ||
            unknown_component_is_set(*framework)) {
            if (auto loaded = load_components(*framework, state, check); !loaded) {
                return loaded.error().status; // told as it was found
            }
        }
        return MERIDIAN_SUCCESS;
    });
}

extern "C" int meridian_mca_base_framework_register(mca_base_framework_t *framework)
{
    return meridian_mca_base_framework_register_flags(framework, MCA_BASE_REGISTER_DEFAULT);
}

extern "C" int meridian_mca_base_framework_open(mca_base_framework_t *framework)
{
    return meridian::c_boundary("meridian_mca_base_framework_open", [&]() -> int {
        // Registers it, and its components if that was put off.
        if (const int rc = meridian_mca_base_framework_register(framework);
            rc != MERIDIAN_SUCCESS) {
            return rc;
        }
        FrameworkState &state = state_of(*framework);
        if (state.open_count > 0) {
            ++state.open_count;
            return MERIDIAN_SUCCESS;
        }
        // Nor does a framework open with a value of its own or its
        // components' that cannot be used (told when it was refused).
        if (!ParamRegistry::instance().refused(framework->name).empty()) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        auto selection = current_selection(*framework, state);
        if (!selection) {
            report_error(selection.error().message);
            return selection.error().status;
        }
        for (auto &entry : state.components) {
            if (!selection->admits(entry.name())) {
                entry.outcome = not_selected_outcome;
                verbose(*framework, MCA_BASE_VERBOSE_INFO,
                        "component " + entry.name() + " is not selected");
                continue;
            }
            const auto &component = entry.component();
            const int rc =
                component.open != nullptr ? component.open(&component) : MERIDIAN_SUCCESS;
            if (rc != MERIDIAN_SUCCESS) {
                entry.outcome = std::string("did not open (") + meridian_strerror(rc) + ")";
                verbose(*framework, MCA_BASE_VERBOSE_INFO,
                        "component " + entry.name() + " did not open (" + meridian_strerror(rc) +
                            ")");
                continue;
            }
            entry.outcome.clear();
            entry.opened = true;
            verbose(*framework, MCA_BASE_VERBOSE_INFO, "component " + entry.name() + " is open");
        }
        if (framework->open != nullptr) {
            if (const int rc = framework->open(framework); rc != MERIDIAN_SUCCESS) {
                close_components(state);
                return rc;
            }
        }
        state.open_count = 1;
        ParamRegistry::instance().set_frozen(framework->name, true);
        return MERIDIAN_SUCCESS;
    });
}

extern "C" int meridian_mca_base_framework_close(mca_base_framework_t *framework)
{
    return meridian::c_boundary("meridian_mca_base_framework_close", [&]() -> int {
        if (framework == nullptr) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        FrameworkState &state = state_of(*framework);
        if (state.open_count == 0) {
            if (state.registered) {
                unload_components(*framework, state);
            }
            return MERIDIAN_SUCCESS;
        }
        if (--state.open_count > 0) {
            return MERIDIAN_SUCCESS;
        }
        if (framework->close != nullptr) {
            framework->close(framework);
        }
        close_components(state);
        ParamRegistry::instance().set_frozen(framework->name, false);
        unload_components(*framework, state);
        return MERIDIAN_SUCCESS;
    });
}

extern "C" int meridian_mca_base_framework_is_open(const mca_base_framework_t *framework)
{
    const auto *state = framework != nullptr ? find_state(*framework) : nullptr;
    return state != nullptr && state->open_count > 0 ? 1 : 0;
}

extern "C" int meridian_mca_base_select(mca_base_framework_t *framework, mca_base_module_t **module,
                                        const mca_base_component_t **component)
{
    return meridian::c_boundary("meridian_mca_base_select", [&]() -> int {
        if (framework == nullptr || module == nullptr) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        FrameworkState &state = state_of(*framework);
        if (state.open_count == 0) {
            return MERIDIAN_ERR_NOT_INITIALIZED;
        }
        const auto offers = collect_offers(*framework, state);
        if (offers.empty()) {
            report_error("no " + std::string(framework->name) +
                         " component is available: " + why_no_offer(state));
            return MERIDIAN_ERR_NOT_FOUND;
        }
        *module = offers.front().module;
        if (component != nullptr) {
            *component = offers.front().component;
        }
        verbose(*framework, MCA_BASE_VERBOSE_INFO,
                std::string("selected component ") + offers.front().component->component_name);
        return MERIDIAN_SUCCESS;
    });
}

extern "C" int meridian_mca_base_select_all(mca_base_framework_t *framework,
                                            mca_base_selected_t *selected, size_t capacity,
                                            size_t *count)
{
    return meridian::c_boundary("meridian_mca_base_select_all", [&]() -> int {
        if (framework == nullptr || count == nullptr || (selected == nullptr && capacity > 0)) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        FrameworkState &state = state_of(*framework);
        if (state.open_count == 0) {
            return MERIDIAN_ERR_NOT_INITIALIZED;
        }
        const auto offers = collect_offers(*framework, state);
        *count = offers.size();
        for (size_t i = 0; i < offers.size() && i < capacity; ++i) {
            selected[i] =
                mca_base_selected_t{offers[i].component, offers[i].module, offers[i].priority};
        }
        return MERIDIAN_SUCCESS;
    });
}

extern "C" int meridian_mca_base_component_alias(const mca_base_component_t *component,
                                                 const char *alias)
{
    return meridian::c_boundary("meridian_mca_base_component_alias", [&]() -> int {
        if (component == nullptr || alias == nullptr) {
            report_error(std::string("meridian_mca_base_component_alias: ") +
                         (component == nullptr ? "component" : "alias") + " is NULL");
            return MERIDIAN_ERR_BAD_PARAM;
        }
        // The component's entry in the framework registering it.
        for (auto &[framework, state] : states()) {
            for (auto &entry : state->components) {
                if (entry.loaded.component != component) {
                    continue;
                }
                if (auto fits = check_alias(*state, entry, alias); !fits) {
                    report_error(fits.error().message);
                    return fits.error().status;
                }
                entry.aliases.emplace_back(alias);
                verbose(*framework, MCA_BASE_VERBOSE_MAX,
                        "component " + entry.name() + " is also selected as " + alias);
                return MERIDIAN_SUCCESS;
            }
        }
        report_error("meridian_mca_base_component_alias(" + util::quoted(alias) +
                     "): the component is not one a framework is registering (call it from "
                     "the component's register_params hook)");
        return MERIDIAN_ERR_BAD_PARAM;
    });
}

extern "C" void meridian_mca_base_framework_verbose(const mca_base_framework_t *framework,
                                                    int level, const char *format, ...)
{
    if (framework == nullptr || framework->verbose < level) {
        return;
    }
    va_list args;
    va_start(args, format);
    char buffer[1024];
    std::vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    meridian::c_boundary_void("meridian_mca_base_framework_verbose", [&] {
        report(Severity::verbose, std::string(framework->name) + ": " + buffer);
    });
}
