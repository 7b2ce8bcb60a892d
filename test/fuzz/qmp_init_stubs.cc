// SPDX-License-Identifier: BSD-3-Clause
// Stand-ins for what qmp_init.cc calls to start and stop QMP, for the
// libFuzzer build of qmp_args_fuzz only (a "fuzz-sources:" file there).
// take_options, which that target fuzzes, lives in qmp_init.cc beside
// QMP_init_msg_passing, whose runtime, transport and machine would pull in
// the whole of libmeridian and libqmp, configure's headers and the libraries
// they link; run-fuzzers.sh builds from the sources alone.  The target never
// starts QMP, so each stand-in aborts if it is ever called.  When the
// start-up calls something new, the link fails naming it: add it here.
// `make check` links the real functions (libqmp.la, libmeridian.la) and not
// this file.
#include <cstdio>
#include <cstdlib>

#include "mca/qmp/qmp_internal.hpp"
#include "opal/runtime/job_messages.hpp"
#include <meridian/mca/msg/base/base.h>
#include <meridian/mca/runtime/meridian.h>
#include <meridian/opal/mca/base/mca_base.h>
#include <meridian/opal/runtime/datastore.hpp>

namespace
{

[[noreturn]] void not_here(const char *function)
{
    std::fprintf(stderr, "qmp_args_fuzz: %s is not part of the fuzz build (QMP never starts)\n",
                 function);
    std::abort();
}

} // namespace

extern "C" {

int meridian_init(int *, char ***)
{
    not_here("meridian_init");
}

int meridian_finalize(void)
{
    not_here("meridian_finalize");
}

const char *meridian_version(void)
{
    not_here("meridian_version");
}

int meridian_mca_base_cmdline_apply(int *, char ***)
{
    not_here("meridian_mca_base_cmdline_apply");
}

int meridian_mca_msg_base_start(mca_msg_base_module_t **, const mca_msg_job_t **)
{
    not_here("meridian_mca_msg_base_start");
}

int meridian_mca_msg_base_stop(void)
{
    not_here("meridian_mca_msg_base_stop");
}

const char *meridian_mca_msg_base_transport_name(void)
{
    not_here("meridian_mca_msg_base_transport_name");
}

int meridian_mca_msg_base_can_release(void)
{
    not_here("meridian_mca_msg_base_can_release");
}

} // extern "C"

namespace meridian::datastore
{

Result<Store *> store()
{
    not_here("datastore::store");
}

} // namespace meridian::datastore

namespace meridian::job_messages
{

void print_now()
{
    not_here("job_messages::print_now");
}

} // namespace meridian::job_messages

namespace meridian::qmp
{

QMP_status_t set_up_machine(const Options &)
{
    not_here("set_up_machine");
}

QMP_status_t barrier(QMP_comm_t, int)
{
    not_here("barrier");
}

void destroy_collectives(Collectives *)
{
    not_here("destroy_collectives");
}

QMP_status_t start_mpi(const char *, QMP_thread_level_t *)
{
    not_here("start_mpi");
}

QMP_status_t init_mpi_first(const char *, QMP_thread_level_t)
{
    not_here("init_mpi_first");
}

void stop_mpi()
{
    not_here("stop_mpi");
}

} // namespace meridian::qmp
