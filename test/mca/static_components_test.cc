// SPDX-License-Identifier: BSD-3-Clause
// Static mode: components built into the program (a framework's
// static_components, as --disable-dlopen builds them into libmeridian) are
// listed with no path, take part in selection next to DSO components, and a
// DSO of the same name is ignored with a notice.
#include <string>

#include "test/mca/mca_test_support.hpp"
#include <meridian/opal/mca/base/framework.hpp>
#include <meridian/opal/mca/base/mca_base.h>

using namespace mca_test;
using namespace meridian_test;

namespace
{

void log_hook(const mca_base_component_t *self, const char *event)
{
    meridian_test_event(self->framework_name, self->component_name, event);
}

int static_register(const mca_base_component_t *self)
{
    log_hook(self, "register");
    return MERIDIAN_SUCCESS;
}

int static_open(const mca_base_component_t *self)
{
    log_hook(self, "open");
    return MERIDIAN_SUCCESS;
}

int static_close(const mca_base_component_t *self)
{
    log_hook(self, "close");
    return MERIDIAN_SUCCESS;
}

// testfw/builtin, priority 15.
const char *builtin_name()
{
    return "builtin";
}
testfw_module_t builtin_module = {builtin_name};
int builtin_query(const mca_base_component_t *self, mca_base_module_t **module, int *priority)
{
    log_hook(self, "query");
    *module = &builtin_module;
    *priority = 15;
    return MERIDIAN_SUCCESS;
}

// A built-in testfw/alpha (priority 1), whose module says it is the static one.
const char *static_alpha_name()
{
    return "static alpha";
}
testfw_module_t static_alpha_module = {static_alpha_name};
int static_alpha_query(const mca_base_component_t *self, mca_base_module_t **module, int *priority)
{
    log_hook(self, "query");
    *module = &static_alpha_module;
    *priority = 1;
    return MERIDIAN_SUCCESS;
}

const mca_base_component_t builtin_component = {
    MCA_BASE_COMPONENT_ABI,
    "testfw",
    {TESTFW_VERSION_MAJOR, TESTFW_VERSION_MINOR, TESTFW_VERSION_RELEASE},
    "builtin",
    {1, 0, 0},
    static_register,
    static_open,
    static_close,
    builtin_query,
};

const mca_base_component_t static_alpha_component = {
    MCA_BASE_COMPONENT_ABI,
    "testfw",
    {TESTFW_VERSION_MAJOR, TESTFW_VERSION_MINOR, TESTFW_VERSION_RELEASE},
    "alpha",
    {1, 0, 0},
    static_register,
    static_open,
    static_close,
    static_alpha_query,
};

// Built against the next major testfw interface: refused like a DSO would be.
const mca_base_component_t stale_component = {
    MCA_BASE_COMPONENT_ABI,
    "testfw",
    {TESTFW_VERSION_MAJOR + 1, 0, 0},
    "stale",
    {1, 0, 0},
    static_register,
    static_open,
    static_close,
    builtin_query,
};

const mca_base_component_t *const built_in[] = {&builtin_component, &static_alpha_component,
                                                nullptr};

std::string select_all(mca_base_framework_t &framework)
{
    mca_base_selected_t selected[8];
    size_t count = 0;
    ck_assert_int_eq(meridian_mca_base_select_all(&framework, selected, 8, &count),
                     MERIDIAN_SUCCESS);
    ck_assert_uint_le(count, 8);
    std::string out;
    for (size_t i = 0; i < count; ++i) {
        out += (i != 0 ? ", " : "") + module_name(selected[i].module) + ":" +
               std::to_string(selected[i].priority);
    }
    return out;
}

std::string selected_module()
{
    mca_base_module_t *module = nullptr;
    ck_assert_int_eq(meridian_mca_base_select(&testfw, &module, nullptr), MERIDIAN_SUCCESS);
    return module_name(module);
}

} // namespace

START_TEST(test_static_components_have_no_path)
{
    testfw.static_components = built_in;
    ComponentDir dir("components");
    const std::string beta = dir.add("mca_testfw_beta.so");
    use_component_path({dir.path()});
    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(components_of(testfw), "builtin=, alpha=, beta=" + beta);
    ck_assert_int_eq(count_events("testfw/builtin register"), 1);
    ck_assert_int_eq(count_events("testfw/alpha register"), 1);
    ck_assert_text_eq(failures_of(testfw), "");
    ck_assert_no_messages();
}
END_TEST

START_TEST(test_dso_named_like_static_is_ignored)
{
    testfw.static_components = built_in;
    ComponentDir dir("components");
    const std::string alpha = dir.add("mca_testfw_alpha.so");
    const std::string beta = dir.add("mca_testfw_beta.so");
    use_component_path({dir.path()});
    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    ck_assert_messages(NOTICE_MSG(alpha + ": ignored: component testfw/alpha is built in"));
    ck_assert_text_eq(components_of(testfw), "builtin=, alpha=, beta=" + beta);
    ck_assert_text_eq(failures_of(testfw), "");
    // The DSO was never loaded, so nothing in it ran.
    ck_assert(!dso_is_loaded(alpha));
    ck_assert_int_eq(count_events("testfw/alpha register"), 1);

    set_param("testfw", "alpha");
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(selected_module(), "static alpha");
}
END_TEST

START_TEST(test_static_and_dso_components_compete)
{
    testfw.static_components = built_in;
    ComponentDir dir("components");
    dir.add("mca_testfw_beta.so");
    dir.add("mca_testfw_older.so");
    use_component_path({dir.path()});
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(opened_of(testfw), "builtin, alpha, beta, older");
    ck_assert_text_eq(select_all(testfw), "beta:20, builtin:15, older:5, static alpha:1");
    ck_assert_text_eq(selected_module(), "beta");
}
END_TEST

START_TEST(test_static_selection_include_exclude)
{
    testfw.static_components = built_in;
    ComponentDir dir("components");
    dir.add("mca_testfw_beta.so");
    use_component_path({dir.path()});
    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    set_param("testfw", "^beta");
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(opened_of(testfw), "builtin, alpha");
    ck_assert_text_eq(selected_module(), "builtin");
    ck_assert_int_eq(meridian_mca_base_framework_close(&testfw), MERIDIAN_SUCCESS);

    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    set_param("testfw", "beta");
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(opened_of(testfw), "beta");
    ck_assert_text_eq(selected_module(), "beta");
}
END_TEST

// No DSOs at all: the built-in components are the framework.
START_TEST(test_static_only)
{
    testfw.static_components = built_in;
    use_component_path({scratch() + "/no-such-directory"});
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(components_of(testfw), "builtin=, alpha=");
    ck_assert_text_eq(selected_module(), "builtin");
    ck_assert_no_messages();
}
END_TEST

// Closing keeps nothing of a built-in component's state either; reopening
// registers and opens it again.
START_TEST(test_static_reopen)
{
    testfw.static_components = built_in;
    use_component_path({scratch() + "/no-such-directory"});
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_framework_close(&testfw), MERIDIAN_SUCCESS);
    ck_assert_int_eq(count_events("testfw/builtin close"), 1);
    ck_assert_text_eq(components_of(testfw), "");
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(components_of(testfw), "builtin=, alpha=");
    ck_assert_int_eq(count_events("testfw/builtin register"), 2);
    ck_assert_int_eq(count_events("testfw/builtin open"), 2);
    ck_assert_text_eq(selected_module(), "builtin");
}
END_TEST

// Versions are checked for built-in components too.
START_TEST(test_static_wrong_version_refused)
{
    const mca_base_component_t *const table[] = {&stale_component, &builtin_component, nullptr};
    testfw.static_components = table;
    use_component_path({scratch() + "/no-such-directory"});
    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    const std::string wanted = std::to_string(TESTFW_VERSION_MAJOR) + "." +
                               std::to_string(TESTFW_VERSION_MINOR) + "." +
                               std::to_string(TESTFW_VERSION_RELEASE);
    ck_assert_messages(WARNING_MSG(
        "cannot load built-in component stale: implements testfw interface " +
        std::to_string(TESTFW_VERSION_MAJOR + 1) + ".0.0, this library's testfw framework is " +
        wanted + " (needs major " + std::to_string(TESTFW_VERSION_MAJOR) + ", minor at most " +
        std::to_string(TESTFW_VERSION_MINOR) + ")"));
    ck_assert_text_eq(components_of(testfw), "builtin=");
    ck_assert_int_eq(count_events("testfw/stale register"), 0);
    // Recorded like a DSO that did not load, so meridian_info --show-failed lists it.
    ck_assert_text_eq(failures_of(testfw),
                      "stale: implements testfw interface " +
                          std::to_string(TESTFW_VERSION_MAJOR + 1) +
                          ".0.0, this library's testfw framework is " + wanted + " (needs major " +
                          std::to_string(TESTFW_VERSION_MAJOR) + ", minor at most " +
                          std::to_string(TESTFW_VERSION_MINOR) + ")");
}
END_TEST

int main()
{
    Suite *suite = suite_create("static_components");
    TCase *tcase = make_tcase("static");
    tcase_add_test(tcase, test_static_components_have_no_path);
    tcase_add_test(tcase, test_dso_named_like_static_is_ignored);
    tcase_add_test(tcase, test_static_and_dso_components_compete);
    tcase_add_test(tcase, test_static_selection_include_exclude);
    tcase_add_test(tcase, test_static_only);
    tcase_add_test(tcase, test_static_reopen);
    tcase_add_test(tcase, test_static_wrong_version_refused);
    suite_add_tcase(suite, tcase);
    return run_suite(suite);
}
