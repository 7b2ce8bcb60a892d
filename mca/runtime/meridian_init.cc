// SPDX-License-Identifier: BSD-3-Clause
#include "config.h"

#include <meridian/mca/runtime/meridian.h>

#include "mca/pnet/base/pnet_base_internal.hpp"
#include "opal/runtime/job_messages.hpp"
#include <meridian/mca/coord/base/base.hpp>
#include <meridian/mca/pnet/base/base.hpp>
#include <meridian/opal/mca/base/mca_base.h>
#include <meridian/opal/runtime/datastore.hpp>
#include <meridian/opal/util/c_boundary.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>

namespace
{

int init_count = 0;

// Undo registration and the base's open after a failed init.  What the
// processes said about it goes out first, once per node.
int fail(int rc)
{
    meridian::job_messages::end_of_start(true);
    meridian::pnet::forget_in_job();
    meridian::coord::forget_context();
    meridian::datastore::shutdown();
    for (auto *const *framework = meridian_builtin_frameworks(); *framework != nullptr;
         ++framework) {
        meridian_mca_base_framework_close(*framework);
    }
    meridian_mca_base_close();
    return rc;
}

// pnet_base_in_job: yes runs the pipeline now; auto runs it now when PMIx
// started the job (every process of the job is in meridian_init, so the
// collective fence works) and leaves a singleton's to its first in_job()
// call; no never runs it.  Nothing here runs unless asked: a program that
// never sets pnet_base_in_job and is not under a PMIx launcher only gets a
// local datastore handle.
int start_in_job()
{
    using meridian::pnet::InJobMode;
    const InJobMode mode = meridian::pnet::in_job_mode();
    if (mode == InJobMode::no) {
        return MERIDIAN_SUCCESS;
    }
    auto store = meridian::datastore::store();
    if (!store) {
        meridian::report_error(store.error().message);
        return store.error().status;
    }
    if (mode == InJobMode::automatic && (*store)->backend() != "pmix") {
        meridian::pnet::detail::defer_in_job(true);
        return MERIDIAN_SUCCESS;
    }
    if (auto done = meridian::pnet::run_in_job(); !done) {
        meridian::report_error(done.error().message);
        return done.error().status;
    }
    return MERIDIAN_SUCCESS;
}

} // namespace

extern "C" int meridian_init(int *argc, char ***argv)
{
    return meridian::c_boundary("meridian_init", [&]() -> int {
        if (init_count > 0) {
            ++init_count;
            return MERIDIAN_SUCCESS;
        }
        // A process of a job names its rank in what it says, and holds it
        // back until the job can print it once per node.
        meridian::job_messages::hold();
        if (argc != nullptr && argv != nullptr) {
            if (const int rc = meridian_mca_base_cmdline_apply(argc, argv);
                rc != MERIDIAN_SUCCESS) {
                meridian::job_messages::release();
                return rc;
            }
        }
        if (const int rc = meridian_mca_base_open(); rc != MERIDIAN_SUCCESS) {
            meridian::job_messages::release();
            return fail(rc);
        }
        // From here a failure, said by a status or thrown (no memory), undoes
        // the open and the registrations, so the next init starts afresh.
        try {
            // Each framework's own parameters now, its components when it
            // opens: a process whose queries the launcher answered loads no
            // component DSO at all.
            for (auto *const *framework = meridian_builtin_frameworks(); *framework != nullptr;
                 ++framework) {
                if (const int rc = meridian_mca_base_framework_register_flags(
                        *framework, MCA_BASE_REGISTER_COMPONENTS_ON_DEMAND);
                    rc != MERIDIAN_SUCCESS) {
                    return fail(rc);
                }
            }
            if (const int rc = meridian_mca_base_check_params(); rc != MERIDIAN_SUCCESS) {
                return fail(rc);
            }
            if (const int rc = start_in_job(); rc != MERIDIAN_SUCCESS) {
                return fail(rc);
            }
        } catch (...) {
            fail(MERIDIAN_ERROR);
            throw; // to the guard, which says why
        }
        meridian::job_messages::end_of_start(false);
        init_count = 1;
        return MERIDIAN_SUCCESS;
    });
}

extern "C" int meridian_finalize(void)
{
    return meridian::c_boundary("meridian_finalize", [&]() -> int {
        if (init_count == 0) {
            return MERIDIAN_SUCCESS;
        }
        if (--init_count > 0) {
            return MERIDIAN_SUCCESS;
        }
        // The job gives its resources back before the frameworks close, and the
        // datastore (PMIx_Finalize) goes last: coord and pnet may still read it.
        meridian::pnet::forget_in_job();
        meridian::coord::forget_context();
        meridian::datastore::shutdown();
        for (auto *const *framework = meridian_builtin_frameworks(); *framework != nullptr;
             ++framework) {
            meridian_mca_base_framework_close(*framework);
        }
        return meridian_mca_base_close();
    });
}

extern "C" const char *meridian_version(void)
{
    return PACKAGE_VERSION;
}
