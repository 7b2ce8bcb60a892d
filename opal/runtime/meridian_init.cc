#include "config.h"

#include "opal/runtime/meridian.h"

#include "mca/frameworks.h"
#include "opal/mca/base/mca_base.h"
#include "opal/util/error.h"


namespace {

int init_count = 0;

// Undo registration and the base's open after a failed init.
int fail(int rc)
{
    for (auto *const *framework = meridian_builtin_frameworks(); *framework != nullptr; ++framework) {
        mca_base_framework_close(*framework);
    }
    mca_base_close();
    return rc;
}

}  // namespace

extern "C" int meridian_init(int *argc, char ***argv)
{
    if (init_count > 0) {
        ++init_count;
        return MERIDIAN_SUCCESS;
    }
    if (argc != nullptr && argv != nullptr) {
        if (const int rc = mca_base_cmdline_apply(argc, argv); rc != MERIDIAN_SUCCESS) {
            return rc;
        }
    }
    if (const int rc = mca_base_open(); rc != MERIDIAN_SUCCESS) {
        return fail(rc);
    }
    for (auto *const *framework = meridian_builtin_frameworks(); *framework != nullptr; ++framework) {
        if (const int rc = mca_base_framework_register(*framework); rc != MERIDIAN_SUCCESS) {
            return fail(rc);
        }
    }
    if (const int rc = mca_base_check_params(); rc != MERIDIAN_SUCCESS) {
        return fail(rc);
    }
    init_count = 1;
    return MERIDIAN_SUCCESS;
}

extern "C" int meridian_finalize(void)
{
    if (init_count == 0) {
        return MERIDIAN_SUCCESS;
    }
    if (--init_count > 0) {
        return MERIDIAN_SUCCESS;
    }
    for (auto *const *framework = meridian_builtin_frameworks(); *framework != nullptr; ++framework) {
        mca_base_framework_close(*framework);
    }
    return mca_base_close();
}

extern "C" const char *meridian_version(void) { return PACKAGE_VERSION; }
