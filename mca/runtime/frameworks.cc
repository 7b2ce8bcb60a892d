// SPDX-License-Identifier: BSD-3-Clause
// The frameworks built into this Meridian, declared to the MCA base.  The
// list is written by configure (MERIDIAN_FRAMEWORK_TABLE) from the framework
// directories autogen.sh found, so a new framework is a new mca/<fw>/
// directory and nothing else.
#include <meridian/mca/runtime/meridian.h>

#include "mca/runtime/static-frameworks.h"

extern "C" mca_base_framework_t *const *meridian_builtin_frameworks(void)
{
    // Declared once; two frameworks of one name cannot happen for the
    // built-in list, whose names are its directories' names.
    static const bool declared = [] {
        for (auto *const *framework = meridian_static_frameworks; *framework != nullptr;
             ++framework) {
            (void)meridian_mca_base_framework_declare(*framework);
        }
        return true;
    }();
    (void)declared;
    return meridian_static_frameworks;
}
