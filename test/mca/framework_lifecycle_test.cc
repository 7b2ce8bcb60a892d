// SPDX-License-Identifier: BSD-3-Clause
// The framework lifecycle: register -> open (the selection parameter) ->
// select (single and multi) -> close, reference-counted and idempotent; on
// demand, what registration and the start's check read of the directories.
#include "config.h" // MERIDIAN_BUILT_COMPONENTS

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "test/mca/mca_test_support.hpp"
#include <meridian/mca/pnet/pnet.h>
#include <meridian/opal/mca/base/component_repository.hpp>
#include <meridian/opal/mca/base/framework.hpp>
#include <meridian/opal/mca/base/mca_base.h>
#include <meridian/opal/mca/base/mca_base_param.h>

using namespace mca_test;
using namespace meridian_test;

namespace
{

// testfw's usual components: alpha (10, has a priority parameter), beta (20),
// older (5), decline (declines in query), openfail (its open fails).
void use_testfw_components()
{
    ComponentDir dir("components");
    for (const char *name : {"alpha", "beta", "older", "decline", "openfail"}) {
        dir.add("mca_testfw_" + std::string(name) + ".so");
    }
    use_component_path({dir.path()});
}

void use_testmulti_components()
{
    ComponentDir dir("components");
    for (const char *name : {"one", "two", "three", "nope"}) {
        dir.add("mca_testmulti_" + std::string(name) + ".so");
    }
    use_component_path({dir.path()});
}

// The selection parameter of a framework, set after register (it exists then).
void select_components(mca_base_framework_t &framework, const std::string &value)
{
    ck_assert_int_eq(meridian_mca_base_framework_register(&framework), MERIDIAN_SUCCESS);
    set_param(framework.name, value);
}

std::string selected_name(mca_base_framework_t &framework)
{
    mca_base_module_t *module = nullptr;
    const mca_base_component_t *component = nullptr;
    const int rc = meridian_mca_base_select(&framework, &module, &component);
    ck_assert_msg(rc == MERIDIAN_SUCCESS, "select failed: %s", meridian_strerror(rc));
    // The module is the one the chosen component made.
    ck_assert_text_eq(module_name(module), component->component_name);
    return component->component_name;
}

// "name:priority" for every accepting module, best first.
std::string select_all(mca_base_framework_t &framework)
{
    mca_base_selected_t selected[8];
    size_t count = 0;
    ck_assert_int_eq(meridian_mca_base_select_all(&framework, selected, 8, &count),
                     MERIDIAN_SUCCESS);
    ck_assert_uint_le(count, 8);
    std::string out;
    for (size_t i = 0; i < count; ++i) {
        ck_assert_text_eq(module_name(selected[i].module), selected[i].component->component_name);
        out += (i != 0 ? ", " : "") + std::string(selected[i].component->component_name) + ":" +
               std::to_string(selected[i].priority);
    }
    return out;
}

// Where the selection parameter was set, as the messages put it.
const char *const from_api = "the API";

} // namespace

// ---------------------------------------------------------------- selection

START_TEST(test_default_takes_highest_priority)
{
    use_testfw_components();
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    // Every component opens; openfail's open fails, so it is left out.
    ck_assert_text_eq(opened_of(testfw), "alpha, beta, decline, older");
    ck_assert_text_eq(selected_name(testfw), "beta");
    ck_assert_no_messages();
}
END_TEST

START_TEST(test_include_only_listed)
{
    use_testfw_components();
    select_components(testfw, "alpha");
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(opened_of(testfw), "alpha");
    ck_assert_text_eq(selected_name(testfw), "alpha");
    // Components left out still registered their parameters, but were
    // neither opened nor asked.
    ck_assert_int_eq(count_events("testfw/decline register"), 1);
    ck_assert_int_eq(count_events("testfw/decline open"), 0);
    ck_assert_int_eq(count_events("testfw/decline query"), 0);
    ck_assert_int_eq(count_events("testfw/beta query"), 0);
    ck_assert_no_messages();
}
END_TEST

START_TEST(test_include_list)
{
    use_testfw_components();
    select_components(testfw, "older, alpha");
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(opened_of(testfw), "alpha, older");
    ck_assert_text_eq(selected_name(testfw), "alpha");
}
END_TEST

START_TEST(test_exclude_listed)
{
    use_testfw_components();
    select_components(testfw, "^beta");
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(opened_of(testfw), "alpha, decline, older");
    ck_assert_text_eq(selected_name(testfw), "alpha");
    ck_assert_int_eq(count_events("testfw/beta query"), 0);
}
END_TEST

START_TEST(test_exclude_list)
{
    use_testfw_components();
    select_components(testfw, "^beta,alpha");
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(opened_of(testfw), "decline, older");
    ck_assert_text_eq(selected_name(testfw), "older");
}
END_TEST

// Equal priorities: the name first in alphabetical order wins.
START_TEST(test_tie_goes_to_first_name)
{
    use_testfw_components();
    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    set_param("testfw_alpha_priority", "20");
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(selected_name(testfw), "alpha");
    ck_assert_text_eq(select_all(testfw), "alpha:20, beta:20, older:5");
}
END_TEST

// A component's own parameter moves it past the others.
START_TEST(test_priority_parameter_decides)
{
    use_testfw_components();
    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    set_param("testfw_alpha_priority", "30");
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(selected_name(testfw), "alpha");
}
END_TEST

// Declining and failing to open both keep a component out of the choice;
// a component whose open failed is never asked and never closed.
START_TEST(test_declined_and_unopened_are_skipped)
{
    use_testfw_components();
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(select_all(testfw), "beta:20, alpha:10, older:5");
    ck_assert_int_eq(count_events("testfw/decline query"), 1);
    ck_assert_int_eq(count_events("testfw/openfail open"), 1);
    ck_assert_int_eq(count_events("testfw/openfail query"), 0);
    ck_assert_int_eq(meridian_mca_base_framework_close(&testfw), MERIDIAN_SUCCESS);
    ck_assert_int_eq(count_events("testfw/decline close"), 1);
    ck_assert_int_eq(count_events("testfw/openfail close"), 0);
    ck_assert_no_messages();
}
END_TEST

START_TEST(test_nothing_accepts)
{
    use_testfw_components();
    select_components(testfw, "decline");
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    mca_base_module_t *module = nullptr;
    ck_assert_int_eq(meridian_mca_base_select(&testfw, &module, nullptr), MERIDIAN_ERR_NOT_FOUND);
    ck_assert_ptr_null(module);
    ck_assert_messages(ERROR_MSG("no testfw component is available: decline declined (" +
                                 std::string(meridian_strerror(MERIDIAN_ERR_NOT_AVAILABLE)) +
                                 "); not selected: alpha, beta, older, openfail"));
}
END_TEST

START_TEST(test_nothing_opens)
{
    use_testfw_components();
    select_components(testfw, "openfail");
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    mca_base_module_t *module = nullptr;
    ck_assert_int_eq(meridian_mca_base_select(&testfw, &module, nullptr), MERIDIAN_ERR_NOT_FOUND);
    ck_assert_messages(ERROR_MSG("no testfw component is available: openfail did not open (" +
                                 std::string(meridian_strerror(MERIDIAN_ERR_NOT_AVAILABLE)) +
                                 "); not selected: alpha, beta, decline, older"));
}
END_TEST

// A query that succeeds without a module is named as such, not called a
// decline "(success)"; the base never takes the missing module.
START_TEST(test_query_success_without_module)
{
    ComponentDir dir("components");
    dir.add("mca_testfw_nomodule.so");
    dir.add("mca_testfw_openfail.so");
    use_component_path({dir.path()});
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    mca_base_module_t *module = nullptr;
    ck_assert_int_eq(meridian_mca_base_select(&testfw, &module, nullptr), MERIDIAN_ERR_NOT_FOUND);
    ck_assert_ptr_null(module);
    ck_assert_int_eq(count_events("testfw/nomodule query"), 1);
    ck_assert_messages(ERROR_MSG(
        "no testfw component is available: nomodule answered its query with success but no "
        "module; openfail did not open (" +
        std::string(meridian_strerror(MERIDIAN_ERR_NOT_AVAILABLE)) + ")"));
}
END_TEST

// With nothing found, or nothing loaded, the error says that and why.
START_TEST(test_nothing_found_or_loaded)
{
    ComponentDir empty("empty");
    use_component_path({empty.path()});
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    mca_base_module_t *module = nullptr;
    ck_assert_int_eq(meridian_mca_base_select(&testfw, &module, nullptr), MERIDIAN_ERR_NOT_FOUND);
    ck_assert_messages(ERROR_MSG("no testfw component is available: no component was found"));
    ck_assert_int_eq(meridian_mca_base_framework_close(&testfw), MERIDIAN_SUCCESS);

    clear_messages();
    ComponentDir broken("broken");
    const std::string nosym = broken.add("mca_testfw_nosym.so");
    use_component_path({broken.path()});
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_select(&testfw, &module, nullptr), MERIDIAN_ERR_NOT_FOUND);
    const std::string reason = nosym + ": does not export mca_testfw_nosym_component";
    ck_assert_messages(
        WARNING_MSG("cannot load component " + reason),
        ERROR_MSG("no testfw component is available: nosym did not load (" + reason + ")"));
}
END_TEST

// Naming a component that is not there fails the open, lists what is there
// and suggests the closest name; nothing is opened.  A corrected value then
// opens normally.
START_TEST(test_missing_component_lists_available)
{
    use_testfw_components();
    select_components(testfw, "alpah");
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_ERR_NOT_FOUND);
    ck_assert_messages(ERROR_MSG(
        std::string("MCA parameter testfw (from ") + from_api +
        ") names component \"alpah\", which is not available; available testfw components: "
        "alpha, beta, decline, older, openfail (did you mean alpha?)"));
    ck_assert_int_eq(meridian_mca_base_framework_is_open(&testfw), 0);
    ck_assert_text_eq(opened_of(testfw), "");
    ck_assert_int_eq(count_events("testfw/alpha open"), 0);
    ck_assert_int_eq(count_events("testfw open"), 0);

    clear_messages();
    set_param("testfw", "alpha");
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(selected_name(testfw), "alpha");
    ck_assert_no_messages();
}
END_TEST

// Excluding a component that is not there is the same error (a typo would
// otherwise exclude nothing); with no close name there is no suggestion.
START_TEST(test_missing_excluded_component)
{
    use_testfw_components();
    select_components(testfw, "^beta,gamma");
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_ERR_NOT_FOUND);
    ck_assert_messages(ERROR_MSG(
        std::string("MCA parameter testfw (from ") + from_api +
        ") names component \"gamma\", which is not available; available testfw components: "
        "alpha, beta, decline, older, openfail"));
    ck_assert_int_eq(meridian_mca_base_framework_is_open(&testfw), 0);
}
END_TEST

// A component that failed to load is not available either.
START_TEST(test_failed_component_is_not_available)
{
    ComponentDir dir("components");
    dir.add("mca_testfw_alpha.so");
    const std::string nosym = dir.add("mca_testfw_nosym.so");
    use_component_path({dir.path()});
    select_components(testfw, "nosym");
    clear_messages();
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_ERR_NOT_FOUND);
    ck_assert_messages(ERROR_MSG(std::string("MCA parameter testfw (from ") + from_api +
                                 ") names component \"nosym\", which is not available; "
                                 "available testfw components: alpha; " +
                                 nosym +
                                 " did not load: does not export mca_testfw_nosym_component"));
}
END_TEST

namespace
{

struct BadSelection {
    const char *value;
    const char *why;
};

const BadSelection bad_selections[] = {
    {"alpha,,beta", "expected a comma-separated list of component names, found an empty item"},
    {"alpha,", "expected a comma-separated list of component names, found an empty item"},
    {",alpha", "expected a comma-separated list of component names, found an empty item"},
    {"^", "expected a comma-separated list of component names, found an empty item"},
    {"alpha,^beta", "'^' may only start the list, where it excludes every component listed"},
    {"^^alpha", "'^' may only start the list, where it excludes every component listed"},
};

} // namespace

START_TEST(test_bad_selection_syntax)
{
    const BadSelection &bad = bad_selections[_i];
    use_testfw_components();
    select_components(testfw, bad.value);
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_ERR_BAD_PARAM);
    ck_assert_messages(ERROR_MSG("bad value \"" + std::string(bad.value) +
                                 "\" for MCA parameter testfw from " + from_api + ": " + bad.why));
    ck_assert_int_eq(meridian_mca_base_framework_is_open(&testfw), 0);
    ck_assert_int_eq(count_events("testfw/alpha open"), 0);
}
END_TEST

// The error says where the value came from.
START_TEST(test_selection_error_names_environment)
{
    // The environment is read when the MCA base opens.
    const std::string variable = std::string(meridian_mca_base_env_prefix()) + "testfw";
    ck_assert_int_eq(::setenv(variable.c_str(), "beta,,alpha", 1), 0);
    use_testfw_components();
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_ERR_BAD_PARAM);
    ck_assert_messages(ERROR_MSG(
        "bad value \"beta,,alpha\" for MCA parameter testfw from environment variable " + variable +
        ": expected a comma-separated list of component names, found an empty item"));
}
END_TEST

// ---------------------------------------------------------------- aliases

namespace
{

// alpha (10), beta (20) and aliased (15), which the selection also takes as
// "nick".
void use_aliased_components()
{
    ComponentDir dir("components");
    for (const char *name : {"alpha", "beta", "aliased"}) {
        dir.add("mca_testfw_" + std::string(name) + ".so");
    }
    use_component_path({dir.path()});
}

} // namespace

START_TEST(test_alias_selects_its_component)
{
    use_aliased_components();
    select_components(testfw, "nick");
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(opened_of(testfw), "aliased");
    ck_assert_text_eq(selected_name(testfw), "aliased");
    ck_assert_no_messages();
    // The C++ view lists the alias with its component.
    for (const auto &view : meridian::mca::framework_components(testfw)) {
        const std::string name = view.component->component_name;
        ck_assert_uint_eq(view.aliases.size(), name == "aliased" ? 1 : 0);
        if (name == "aliased") {
            ck_assert_text_eq(view.aliases.front(), "nick");
        }
    }
}
END_TEST

START_TEST(test_alias_in_a_list_and_excluded)
{
    use_aliased_components();
    select_components(testfw, "alpha,nick");
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(opened_of(testfw), "aliased, alpha");
    ck_assert_text_eq(selected_name(testfw), "aliased");
    ck_assert_int_eq(meridian_mca_base_framework_close(&testfw), MERIDIAN_SUCCESS);

    select_components(testfw, "^nick,beta");
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(opened_of(testfw), "alpha");
    ck_assert_text_eq(selected_name(testfw), "alpha");
    ck_assert_no_messages();
}
END_TEST

// Set in the environment and in a param file, as users do (both are read
// when the MCA base opens).
START_TEST(test_alias_from_environment)
{
    const std::string variable = std::string(meridian_mca_base_env_prefix()) + "testfw";
    ck_assert_int_eq(::setenv(variable.c_str(), "^nick", 1), 0);
    use_aliased_components();
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(opened_of(testfw), "alpha, beta");
    ck_assert_text_eq(selected_name(testfw), "beta");
    ck_assert_no_messages();
}
END_TEST

START_TEST(test_alias_from_param_file)
{
    const std::string file = scratch() + "/params.conf";
    FILE *out = std::fopen(file.c_str(), "w");
    ck_assert_ptr_nonnull(out);
    std::fputs("testfw = nick\n", out);
    std::fclose(out);
    set_param_env("mca_base_param_files", file);
    use_aliased_components();
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(opened_of(testfw), "aliased");
    ck_assert_no_messages();
}
END_TEST

START_TEST(test_alias_typo_lists_aliases)
{
    use_aliased_components();
    select_components(testfw, "nik");
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_ERR_NOT_FOUND);
    ck_assert_messages(ERROR_MSG(std::string("MCA parameter testfw (from ") + from_api +
                                 ") names component \"nik\", which is not available; available "
                                 "testfw components: aliased (also: nick), alpha, beta (did you "
                                 "mean nick?)"));
    ck_assert_int_eq(meridian_mca_base_framework_is_open(&testfw), 0);
    ck_assert_int_eq(count_events("testfw/aliased open"), 0);
}
END_TEST

START_TEST(test_alias_refusals)
{
    ComponentDir dir("components");
    for (const char *name : {"alpha", "aliased", "aliasclash"}) {
        dir.add("mca_testfw_" + std::string(name) + ".so");
    }
    use_component_path({dir.path()});
    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    // aliasclash registers first (file name order) and takes "nick".
    ck_assert_int_eq(count_events("testfw/aliasclash alias alpha -> -9"), 1);
    ck_assert_int_eq(count_events("testfw/aliasclash alias bad name -> -3"), 1);
    ck_assert_int_eq(count_events("testfw/aliasclash alias nick -> 0"), 1);
    ck_assert_int_eq(count_events("testfw/aliasclash alias nick -> -9"), 1);
    ck_assert_messages(
        ERROR_MSG("testfw component aliasclash cannot take the alias \"alpha\": a component has "
                  "that name"),
        ERROR_MSG("testfw component aliasclash cannot take the alias \"bad name\": expected 1-63 "
                  "letters, digits, '_', '-' or '.'"),
        ERROR_MSG("testfw component aliasclash cannot take the alias \"nick\": it has it already"),
        ERROR_MSG("testfw component aliased cannot take the alias \"nick\": it is already an "
                  "alias of component aliasclash"));
    // Every component stays, under its own name.
    clear_messages();
    set_param("testfw", "aliased,nick");
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(opened_of(testfw), "aliasclash, aliased");
    ck_assert_no_messages();
}
END_TEST

START_TEST(test_alias_outside_registration)
{
    use_aliased_components();
    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    mca_base_component_t stray{};
    ck_assert_int_eq(meridian_mca_base_component_alias(&stray, "x"), MERIDIAN_ERR_BAD_PARAM);
    ck_assert_int_eq(meridian_mca_base_component_alias(nullptr, "x"), MERIDIAN_ERR_BAD_PARAM);
    ck_assert_messages(
        ERROR_MSG("meridian_mca_base_component_alias(\"x\"): the component is not one a framework "
                  "is registering (call it from the component's register_params hook)"),
        ERROR_MSG("meridian_mca_base_component_alias: component is NULL"));
}
END_TEST

// ---------------------------------------------------------------- lifecycle

START_TEST(test_hooks_run_in_order)
{
    ComponentDir dir("components");
    dir.add("mca_testfw_alpha.so");
    dir.add("mca_testfw_beta.so");
    use_component_path({dir.path()});
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_framework_close(&testfw), MERIDIAN_SUCCESS);
    // beta has no hooks but query.  The framework's open runs after its
    // components opened, its close before they close.
    const std::vector<std::string> expected = {
        "testfw register", "testfw/alpha register", "testfw/alpha open",
        "testfw open",     "testfw close",          "testfw/alpha close",
    };
    ck_assert_uint_eq(events().size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        ck_assert_text_eq(events()[i], expected[i]);
    }
}
END_TEST

START_TEST(test_open_and_close_are_counted)
{
    ComponentDir dir("components");
    const std::string alpha = dir.add("mca_testfw_alpha.so");
    use_component_path({dir.path()});

    ck_assert_int_eq(meridian_mca_base_framework_is_open(&testfw), 0);
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_framework_is_open(&testfw), 1);
    ck_assert_int_eq(count_events("testfw/alpha register"), 1);
    ck_assert_int_eq(count_events("testfw/alpha open"), 1);

    ck_assert_int_eq(meridian_mca_base_framework_close(&testfw), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_framework_is_open(&testfw), 1);
    ck_assert_int_eq(count_events("testfw/alpha close"), 0);
    ck_assert_text_eq(selected_name(testfw), "alpha");

    ck_assert_int_eq(meridian_mca_base_framework_close(&testfw), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_framework_is_open(&testfw), 0);
    ck_assert_int_eq(count_events("testfw/alpha close"), 1);
    ck_assert_int_eq(count_events("testfw close"), 1);
    ck_assert_text_eq(components_of(testfw), "");
    ck_assert(!dso_is_loaded(alpha));

    // More closes than opens do nothing.
    ck_assert_int_eq(meridian_mca_base_framework_close(&testfw), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_framework_close(&testfw), MERIDIAN_SUCCESS);
    ck_assert_int_eq(count_events("testfw/alpha close"), 1);
    ck_assert_int_eq(count_events("testfw close"), 1);
    ck_assert_int_eq(meridian_mca_base_framework_is_open(&testfw), 0);
    ck_assert_no_messages();
}
END_TEST

// Registering twice is the same as once.
START_TEST(test_register_is_idempotent)
{
    ComponentDir dir("components");
    const std::string alpha = dir.add("mca_testfw_alpha.so");
    use_component_path({dir.path()});
    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    ck_assert_int_eq(count_events("testfw register"), 1);
    ck_assert_int_eq(count_events("testfw/alpha register"), 1);
    ck_assert_text_eq(components_of(testfw), "alpha=" + alpha);
}
END_TEST

// After the last close the DSOs are gone; opening again loads them afresh,
// and settings made before still apply to the reloaded component.
START_TEST(test_reopen_reloads)
{
    ComponentDir dir("components");
    const std::string alpha = dir.add("mca_testfw_alpha.so");
    dir.add("mca_testfw_beta.so");
    use_component_path({dir.path()});
    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    set_param("testfw_alpha_priority", "30");
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(selected_name(testfw), "alpha");
    ck_assert_int_eq(meridian_mca_base_framework_close(&testfw), MERIDIAN_SUCCESS);
    ck_assert(!dso_is_loaded(alpha));
    ck_assert_text_eq(value_of("testfw_alpha_priority"), "<unregistered>");

    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert(dso_is_loaded(alpha));
    ck_assert_int_eq(count_events("testfw register"), 2);
    ck_assert_int_eq(count_events("testfw/alpha register"), 2);
    ck_assert_int_eq(count_events("testfw/alpha open"), 2);
    ck_assert_text_eq(value_of("testfw_alpha_priority"), "30");
    ck_assert_text_eq(select_all(testfw), "alpha:30, beta:20");
    ck_assert_no_messages();
}
END_TEST

// On demand (meridian_init's way), registering loads no component: opening
// does, and registering without the flag.
START_TEST(test_components_on_demand)
{
    ComponentDir dir("components");
    const std::string alpha = dir.add("mca_testfw_alpha.so");
    dir.add("mca_testfw_beta.so");
    use_component_path({dir.path()});
    ck_assert_int_eq(
        meridian_mca_base_framework_register_flags(&testfw, MCA_BASE_REGISTER_COMPONENTS_ON_DEMAND),
        MERIDIAN_SUCCESS);
    ck_assert_int_eq(count_events("testfw register"), 1);
    ck_assert_int_eq(count_events("testfw/alpha register"), 0);
    ck_assert(!dso_is_loaded(alpha));
    ck_assert_text_eq(value_of("testfw_alpha_priority"), "<unregistered>");
    // The framework's own parameters are there.
    ck_assert_text_eq(value_of("testfw_base_verbose"), "0");

    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert(dso_is_loaded(alpha));
    ck_assert_int_eq(count_events("testfw register"), 1);
    ck_assert_int_eq(count_events("testfw/alpha register"), 1);
    ck_assert_text_eq(value_of("testfw_alpha_priority"), "10");
    ck_assert_text_eq(selected_name(testfw), "beta");
    ck_assert_int_eq(meridian_mca_base_framework_close(&testfw), MERIDIAN_SUCCESS);
    ck_assert(!dso_is_loaded(alpha));

    // A later registration without the flag loads what was put off.
    ck_assert_int_eq(
        meridian_mca_base_framework_register_flags(&testfw, MCA_BASE_REGISTER_COMPONENTS_ON_DEMAND),
        MERIDIAN_SUCCESS);
    ck_assert(!dso_is_loaded(alpha));
    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    ck_assert(dso_is_loaded(alpha));
    ck_assert_int_eq(count_events("testfw/alpha register"), 2);
    ck_assert_no_messages();
}
END_TEST

// On demand, with nothing set for a component, no directory is read: not at
// registration, nor by the start's check of the component path, which looks
// at the directories a framework searched (and tells their stray files once
// one has).
START_TEST(test_on_demand_reads_no_directory)
{
    ComponentDir dir("components");
    dir.add("mca_testfw_alpha.so");
    const std::string stray = dir.add("mca_testfw_beta.so", "mca_testfw_.so");
    use_component_path({dir.path()});
    ck_assert_int_eq(
        meridian_mca_base_framework_register_flags(&testfw, MCA_BASE_REGISTER_COMPONENTS_ON_DEMAND),
        MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_check_params(), MERIDIAN_SUCCESS);
    ck_assert_no_messages();
    ck_assert(!meridian::mca::component_directory_searched(dir.path()));

    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    ck_assert(meridian::mca::component_directory_searched(dir.path()));
    ck_assert_int_eq(meridian_mca_base_check_params(), MERIDIAN_SUCCESS);
    ck_assert_messages(WARNING_MSG("cannot load component " + stray +
                                   ": the file name has no component name (mca_testfw_NAME.so)"));
}
END_TEST

// A setting for a component this library was built with (configure's list)
// needs no look into the directories at registration on demand; a name no
// such component has (a misspelt one) does, and loads the components.
START_TEST(test_setting_for_a_built_component_reads_no_directory)
{
    std::string built;
    const std::string list = MERIDIAN_BUILT_COMPONENTS;
    if (const auto at = (" " + list).find(" pnet/"); at != std::string::npos) {
        built = list.substr(at + 5, list.find(' ', at) - at - 5);
    }
    if (built.empty()) {
        std::printf("skipped: this build made no pnet component\n");
        return;
    }
    ComponentDir dir("components");
    use_component_path({dir.path()});
    // The environment is read when the base opens: afresh.
    set_param_env("pnet_" + built + "_priority", "5");
    ck_assert_int_eq(meridian_mca_base_close(), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_framework_register_flags(
                         &meridian_pnet_base_framework, MCA_BASE_REGISTER_COMPONENTS_ON_DEMAND),
                     MERIDIAN_SUCCESS);
    ck_assert(!meridian::mca::component_directory_searched(dir.path()));

    set_param_env("pnet_x" + built + "_priority", "5");
    ck_assert_int_eq(meridian_mca_base_close(), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_framework_register_flags(
                         &meridian_pnet_base_framework, MCA_BASE_REGISTER_COMPONENTS_ON_DEMAND),
                     MERIDIAN_SUCCESS);
    ck_assert(meridian::mca::component_directory_searched(dir.path()));
}
END_TEST

// Listing the components (meridian_info) loads them.
START_TEST(test_components_on_demand_listed)
{
    ComponentDir dir("components");
    const std::string alpha = dir.add("mca_testfw_alpha.so");
    use_component_path({dir.path()});
    ck_assert_int_eq(
        meridian_mca_base_framework_register_flags(&testfw, MCA_BASE_REGISTER_COMPONENTS_ON_DEMAND),
        MERIDIAN_SUCCESS);
    ck_assert(!dso_is_loaded(alpha));
    ck_assert_text_eq(components_of(testfw), "alpha=" + alpha);
    ck_assert(dso_is_loaded(alpha));
    ck_assert_no_messages();
}
END_TEST

// Settings of the framework's own parameters load nothing; a setting for a
// component the framework does not have (a misspelt name) loads them at
// registration, so its problem is told at the start: a bad value, or the
// parameter a misspelt name was meant for.
START_TEST(test_component_setting_loads_at_register)
{
    ComponentDir dir("components");
    const std::string alpha = dir.add("mca_testfw_alpha.so");
    use_component_path({dir.path()});
    set_param_env("testfw_base_verbose", "0");
    set_param_env("testfw", "alpha");
    ck_assert_int_eq(
        meridian_mca_base_framework_register_flags(&testfw, MCA_BASE_REGISTER_COMPONENTS_ON_DEMAND),
        MERIDIAN_SUCCESS);
    ck_assert(!dso_is_loaded(alpha));
    ck_assert_int_eq(meridian_mca_base_framework_close(&testfw), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_close(), MERIDIAN_SUCCESS);

    set_param_env("testfw_alhpa_priority", "3");
    set_param_env("testfw_alpha_priority", "abc");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    ck_assert_int_eq(
        meridian_mca_base_framework_register_flags(&testfw, MCA_BASE_REGISTER_COMPONENTS_ON_DEMAND),
        MERIDIAN_SUCCESS);
    ck_assert(dso_is_loaded(alpha));
    ck_assert_int_eq(count_events("testfw/alpha register"), 1);
    // The bad value fails the start; the misspelt name only warns.
    ck_assert_int_eq(meridian_mca_base_check_params(), MERIDIAN_ERR_BAD_PARAM);
    ck_assert_messages(
        ERROR_MSG("bad value \"abc\" for MCA parameter testfw_alpha_priority from environment "
                  "variable " +
                  env_name("testfw_alpha_priority") +
                  ": expected an integer between -2147483648 and 2147483647"),
        WARNING_MSG("MCA parameter \"testfw_alhpa_priority\" (set in environment variable " +
                    env_name("testfw_alhpa_priority") +
                    ") is not registered by any component; did you mean testfw_alpha_priority?"));
}
END_TEST

// A setting for a component that is there waits for it: the start's check
// passes it over, and loading the components checks it (a bad value, which
// the framework does not open with; a name no parameter has, an error with
// mca_base_strict_params).
START_TEST(test_component_setting_waits_for_its_component)
{
    ComponentDir dir("components");
    const std::string alpha = dir.add("mca_testfw_alpha.so");
    use_component_path({dir.path()});
    // The environment is read when the base opens: afresh.
    ck_assert_int_eq(meridian_mca_base_close(), MERIDIAN_SUCCESS);
    set_param_env("testfw_alpha_priority", "abc");
    set_param_env("testfw_alpha_prority", "3");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    ck_assert_int_eq(
        meridian_mca_base_framework_register_flags(&testfw, MCA_BASE_REGISTER_COMPONENTS_ON_DEMAND),
        MERIDIAN_SUCCESS);
    ck_assert(!dso_is_loaded(alpha));
    ck_assert_int_eq(meridian_mca_base_check_params(), MERIDIAN_SUCCESS);
    ck_assert_no_messages();
    const Message bad_value = ERROR_MSG(
        "bad value \"abc\" for MCA parameter testfw_alpha_priority from environment variable " +
        env_name("testfw_alpha_priority") +
        ": expected an integer between -2147483648 and 2147483647");
    const std::string misspelt = "MCA parameter \"testfw_alpha_prority\" (set in environment "
                                 "variable " +
                                 env_name("testfw_alpha_prority") +
                                 ") is not registered by any component; did you mean "
                                 "testfw_alpha_priority?";
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_ERR_BAD_PARAM);
    ck_assert(dso_is_loaded(alpha));
    ck_assert_messages(bad_value, WARNING_MSG(misspelt));
    clear_messages();
    ck_assert_int_eq(meridian_mca_base_framework_is_open(&testfw), 0);
    ck_assert_int_eq(meridian_mca_base_framework_close(&testfw), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_close(), MERIDIAN_SUCCESS);

    // A value that can be used: it opens.
    set_param_env("testfw_alpha_priority", "7");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    clear_messages();
    ck_assert_text_eq(selected_name(testfw), "alpha");
    ck_assert_int_eq(meridian_mca_base_framework_close(&testfw), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_close(), MERIDIAN_SUCCESS);
    set_param_env("testfw_alpha_priority", "abc");

    set_param_env("mca_base_strict_params", "1");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    ck_assert_int_eq(
        meridian_mca_base_framework_register_flags(&testfw, MCA_BASE_REGISTER_COMPONENTS_ON_DEMAND),
        MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_check_params(), MERIDIAN_SUCCESS);
    ck_assert_no_messages();
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_ERR_BAD_PARAM);
    ck_assert_messages(bad_value, ERROR_MSG(misspelt));
    ck_assert_int_eq(meridian_mca_base_framework_is_open(&testfw), 0);
}
END_TEST

START_TEST(test_register_flags_refused)
{
    ck_assert_int_eq(meridian_mca_base_framework_register_flags(&testfw, 6),
                     MERIDIAN_ERR_BAD_PARAM);
    ck_assert_int_eq(count_events("testfw register"), 0);
    ck_assert_messages(ERROR_MSG("meridian_mca_base_framework_register_flags: unknown flags 6"));
}
END_TEST

START_TEST(test_select_needs_open)
{
    use_testfw_components();
    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    mca_base_module_t *module = nullptr;
    ck_assert_int_eq(meridian_mca_base_select(&testfw, &module, nullptr),
                     MERIDIAN_ERR_NOT_INITIALIZED);
    size_t count = 1;
    ck_assert_int_eq(meridian_mca_base_select_all(&testfw, nullptr, 0, &count),
                     MERIDIAN_ERR_NOT_INITIALIZED);
    ck_assert_int_eq(count_events("testfw/alpha query"), 0);
}
END_TEST

// The selection cannot change while the framework is open, and can again
// after it closed.
START_TEST(test_selection_fixed_while_open)
{
    use_testfw_components();
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    const int index = meridian_mca_base_param_find("testfw");
    ck_assert_int_ge(index, 0);
    ck_assert_int_eq(meridian_mca_base_param_set_value(index, "alpha"), MERIDIAN_ERR_READ_ONLY);
    ck_assert_messages(
        ERROR_MSG("MCA parameter testfw cannot change while framework testfw is open"));
    ck_assert_text_eq(opened_of(testfw), "alpha, beta, decline, older");
    ck_assert_text_eq(selected_name(testfw), "beta");

    ck_assert_int_eq(meridian_mca_base_framework_close(&testfw), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_param_set_value(index, "alpha"), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(opened_of(testfw), "alpha");
    ck_assert_text_eq(selected_name(testfw), "alpha");
}
END_TEST

START_TEST(test_verbose_output)
{
    ComponentDir dir("components");
    dir.add("mca_testfw_alpha.so");
    dir.add("mca_testfw_openfail.so");
    use_component_path({dir.path()});
    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    set_param("testfw_base_verbose", "info");
    ck_assert_int_eq(testfw.verbose, MCA_BASE_VERBOSE_INFO);
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(selected_name(testfw), "alpha");
    ck_assert_messages(VERBOSE_MSG("testfw: component alpha is open"),
                       VERBOSE_MSG("testfw: component openfail did not open (" +
                                   std::string(meridian_strerror(MERIDIAN_ERR_NOT_AVAILABLE)) +
                                   ")"),
                       VERBOSE_MSG("testfw: component alpha offers a module with priority 10"),
                       VERBOSE_MSG("testfw: selected component alpha"));
}
END_TEST

// ---------------------------------------------------------------- multi-select

START_TEST(test_multi_select_takes_all_in_order)
{
    use_testmulti_components();
    ck_assert_int_eq(meridian_mca_base_framework_open(&testmulti), MERIDIAN_SUCCESS);
    ck_assert_text_eq(opened_of(testmulti), "nope, one, three, two");
    // Ties (one, three) in name order; nope declines.
    ck_assert_text_eq(select_all(testmulti), "one:30, three:30, two:10");
    ck_assert_int_eq(count_events("testmulti/nope query"), 1);
    ck_assert_no_messages();
}
END_TEST

START_TEST(test_multi_select_capacity)
{
    use_testmulti_components();
    ck_assert_int_eq(meridian_mca_base_framework_open(&testmulti), MERIDIAN_SUCCESS);
    mca_base_selected_t selected[2];
    size_t count = 0;
    ck_assert_int_eq(meridian_mca_base_select_all(&testmulti, selected, 2, &count),
                     MERIDIAN_SUCCESS);
    ck_assert_uint_eq(count, 3);
    ck_assert_str_eq(selected[0].component->component_name, "one");
    ck_assert_str_eq(selected[1].component->component_name, "three");
    count = 0;
    ck_assert_int_eq(meridian_mca_base_select_all(&testmulti, nullptr, 0, &count),
                     MERIDIAN_SUCCESS);
    ck_assert_uint_eq(count, 3);
}
END_TEST

START_TEST(test_multi_select_exclude)
{
    use_testmulti_components();
    select_components(testmulti, "^one");
    ck_assert_int_eq(meridian_mca_base_framework_open(&testmulti), MERIDIAN_SUCCESS);
    ck_assert_text_eq(select_all(testmulti), "three:30, two:10");
}
END_TEST

// A multi-select framework in which nothing accepts has nothing to do: no
// error.
START_TEST(test_multi_select_none_accept)
{
    use_testmulti_components();
    select_components(testmulti, "nope");
    ck_assert_int_eq(meridian_mca_base_framework_open(&testmulti), MERIDIAN_SUCCESS);
    ck_assert_text_eq(select_all(testmulti), "");
    ck_assert_no_messages();
}
END_TEST

// Two frameworks share a directory; each takes only its own DSOs and has a
// lifecycle of its own.
START_TEST(test_frameworks_are_independent)
{
    ComponentDir dir("components");
    const std::string alpha = dir.add("mca_testfw_alpha.so");
    const std::string two = dir.add("mca_testmulti_two.so");
    use_component_path({dir.path()});
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_framework_open(&testmulti), MERIDIAN_SUCCESS);
    ck_assert_text_eq(components_of(testfw), "alpha=" + alpha);
    ck_assert_text_eq(components_of(testmulti), "two=" + two);

    ck_assert_int_eq(meridian_mca_base_framework_close(&testfw), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_framework_is_open(&testmulti), 1);
    ck_assert_text_eq(select_all(testmulti), "two:10");
    ck_assert(!dso_is_loaded(alpha));
    ck_assert(dso_is_loaded(two));
    ck_assert_no_messages();
}
END_TEST

int main()
{
    Suite *suite = suite_create("framework_lifecycle");

    TCase *selection = make_tcase("selection");
    tcase_add_test(selection, test_default_takes_highest_priority);
    tcase_add_test(selection, test_include_only_listed);
    tcase_add_test(selection, test_include_list);
    tcase_add_test(selection, test_exclude_listed);
    tcase_add_test(selection, test_exclude_list);
    tcase_add_test(selection, test_tie_goes_to_first_name);
    tcase_add_test(selection, test_priority_parameter_decides);
    tcase_add_test(selection, test_declined_and_unopened_are_skipped);
    tcase_add_test(selection, test_nothing_accepts);
    tcase_add_test(selection, test_nothing_opens);
    tcase_add_test(selection, test_query_success_without_module);
    tcase_add_test(selection, test_nothing_found_or_loaded);
    tcase_add_test(selection, test_missing_component_lists_available);
    tcase_add_test(selection, test_missing_excluded_component);
    tcase_add_test(selection, test_failed_component_is_not_available);
    tcase_add_loop_test(selection, test_bad_selection_syntax, 0,
                        static_cast<int>(sizeof bad_selections / sizeof bad_selections[0]));
    tcase_add_test(selection, test_selection_error_names_environment);
    suite_add_tcase(suite, selection);

    TCase *aliases = make_tcase("aliases");
    tcase_add_test(aliases, test_alias_selects_its_component);
    tcase_add_test(aliases, test_alias_in_a_list_and_excluded);
    tcase_add_test(aliases, test_alias_from_environment);
    tcase_add_test(aliases, test_alias_from_param_file);
    tcase_add_test(aliases, test_alias_typo_lists_aliases);
    tcase_add_test(aliases, test_alias_refusals);
    tcase_add_test(aliases, test_alias_outside_registration);
    suite_add_tcase(suite, aliases);

    TCase *lifecycle = make_tcase("lifecycle");
    tcase_add_test(lifecycle, test_hooks_run_in_order);
    tcase_add_test(lifecycle, test_open_and_close_are_counted);
    tcase_add_test(lifecycle, test_register_is_idempotent);
    tcase_add_test(lifecycle, test_reopen_reloads);
    tcase_add_test(lifecycle, test_components_on_demand);
    tcase_add_test(lifecycle, test_components_on_demand_listed);
    tcase_add_test(lifecycle, test_on_demand_reads_no_directory);
    tcase_add_test(lifecycle, test_setting_for_a_built_component_reads_no_directory);
    tcase_add_test(lifecycle, test_component_setting_loads_at_register);
    tcase_add_test(lifecycle, test_component_setting_waits_for_its_component);
    tcase_add_test(lifecycle, test_register_flags_refused);
    tcase_add_test(lifecycle, test_select_needs_open);
    tcase_add_test(lifecycle, test_selection_fixed_while_open);
    tcase_add_test(lifecycle, test_verbose_output);
    suite_add_tcase(suite, lifecycle);

    TCase *multi = make_tcase("multi_select");
    tcase_add_test(multi, test_multi_select_takes_all_in_order);
    tcase_add_test(multi, test_multi_select_capacity);
    tcase_add_test(multi, test_multi_select_exclude);
    tcase_add_test(multi, test_multi_select_none_accept);
    tcase_add_test(multi, test_frameworks_are_independent);
    suite_add_tcase(suite, multi);

    return run_suite(suite);
}
