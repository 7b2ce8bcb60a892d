// SPDX-License-Identifier: BSD-3-Clause
// Settings outlive registrations: when a framework closes, its components'
// parameters are forgotten (their storage may go with a DSO), but the
// settings stay; registering again resolves the value from them anew.
#include <string>

#include "test/params/param_test_support.hpp"
#include <meridian/opal/mca/base/mca_base.h>
#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/mca/mca.h>
#include <meridian/opal/util/error.h>

using namespace meridian_test;
using namespace param_test;

namespace
{

int level = 0;
int registrations = 0;

int alpha_register(const mca_base_component_t *self)
{
    ++registrations;
    level = 1; // the default, as a component sets it before registering
    const int index = meridian_mca_base_component_param_register(
        self, "level", "how much", MCA_BASE_PARAM_TYPE_INT, nullptr, 1, MCA_BASE_PARAM_FLAG_NONE,
        &level);
    return index < 0 ? index : MERIDIAN_SUCCESS;
}

const mca_base_component_t alpha = {
    .mca_abi_major = MCA_BASE_ABI_MAJOR,
    .mca_abi_minor = MCA_BASE_ABI_MINOR,
    .framework_name = "ptestre",
    .framework_version = {1, 0, 0},
    .component_name = "alpha",
    .component_version = {1, 0, 0},
    .register_params = alpha_register,
    .open = nullptr,
    .close = nullptr,
    .query = nullptr,
};

const mca_base_component_t *const components[] = {&alpha, nullptr};

mca_base_framework_t framework = {
    .name = "ptestre",
    .description = "test framework whose component registers a parameter",
    .version = {1, 0, 0},
    .flags = MCA_BASE_FRAMEWORK_FLAG_NONE,
    .register_params = nullptr,
    .open = nullptr,
    .close = nullptr,
    .static_components = components,
    .verbose = 0,
    .internal = nullptr,
};

const char *const name = "ptestre_alpha_level";

} // namespace

START_TEST(setting_made_while_unregistered_applies_on_return)
{
    set_param_env(name, "7");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_framework_register(&framework), MERIDIAN_SUCCESS);
    ck_assert_int_eq(level, 7);
    ck_assert_text_eq(source_of(name), "environment");

    ck_assert_int_eq(meridian_mca_base_framework_close(&framework), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_param_find(name), MERIDIAN_ERR_NOT_FOUND);
    ck_assert_text_eq(value_of(name), "<unregistered>");
    // The storage is no longer Meridian's to write.
    level = -1;
    ck_assert_int_eq(apply_command_line({"prog", "--mca", name, "8"}).status, MERIDIAN_SUCCESS);
    ck_assert_int_eq(level, -1);

    ck_assert_int_eq(meridian_mca_base_framework_register(&framework), MERIDIAN_SUCCESS);
    ck_assert_int_eq(registrations, 2);
    ck_assert_int_eq(level, 8);
    ck_assert_text_eq(source_of(name), "command line");
    ck_assert_no_messages();
}
END_TEST

START_TEST(api_value_survives_a_close)
{
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_framework_open(&framework), MERIDIAN_SUCCESS);
    ck_assert_int_eq(level, 1);
    ck_assert_int_eq(meridian_mca_base_param_set_value(meridian_mca_base_param_find(name), "9"),
                     MERIDIAN_SUCCESS);
    ck_assert_int_eq(level, 9);
    ck_assert_int_eq(meridian_mca_base_framework_close(&framework), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_param_find(name), MERIDIAN_ERR_NOT_FOUND);

    ck_assert_int_eq(meridian_mca_base_framework_open(&framework), MERIDIAN_SUCCESS);
    ck_assert_int_eq(registrations, 2);
    ck_assert_int_eq(level, 9);
    ck_assert_text_eq(source_of(name), "api");
    ck_assert_int_eq(meridian_mca_base_framework_close(&framework), MERIDIAN_SUCCESS);
    ck_assert_no_messages();
}
END_TEST

// A value that is bad for the parameter is reported when it is registered,
// and not again when it is registered once more.
START_TEST(bad_setting_reported_once_across_registrations)
{
    set_param_env(name, "high");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_framework_register(&framework), MERIDIAN_SUCCESS);
    ck_assert_messages(ERROR_MSG("bad value \"high\" for MCA parameter " + std::string(name) +
                                 " from environment variable " + env_name(name) +
                                 ": expected an integer between -2147483648 and 2147483647"));
    ck_assert_int_eq(level, 1);
    clear_messages();
    ck_assert_int_eq(meridian_mca_base_framework_close(&framework), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_framework_register(&framework), MERIDIAN_SUCCESS);
    ck_assert_int_eq(level, 1);
    ck_assert_text_eq(source_of(name), "default");
    ck_assert_no_messages();
}
END_TEST

int main()
{
    Suite *suite = suite_create("param_reregistration");
    TCase *tcase = make_tcase("reregistration");
    tcase_add_test(tcase, setting_made_while_unregistered_applies_on_return);
    tcase_add_test(tcase, api_value_survives_a_close);
    tcase_add_test(tcase, bad_setting_reported_once_across_registrations);
    suite_add_tcase(suite, tcase);
    return run_suite(suite);
}
