/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The libpmix families the pnet plugin is written for, in one place for the
 * plugin and for configure's check.  OpenPMIx 4.2 wraps a pnet component's
 * MCA base in a struct of its own (pmix_pnet_base_component_t: base, data);
 * 5.0 made the type the MCA base component itself, and 6.0 keeps 5.0's
 * pnet.h.  The module (pmix_pnet_module_t) is the same in all three.  From
 * 5.0 on, a client may map the job's data from the server's shared memory
 * (gds shmem2, shmem3), which misreads keys outside PMIx's dictionary
 * (pnet_meridian.c: mark_processes).  Any other libpmix is refused at
 * compile time.
 */
#ifndef MERIDIAN_PMIX_PLUGIN_PMIX_FAMILY_H
#define MERIDIAN_PMIX_PLUGIN_PMIX_FAMILY_H

#include "pmix_version.h"

#if PMIX_NUMERIC_VERSION >= 0x00040200 && PMIX_NUMERIC_VERSION < 0x00050000
#define MERIDIAN_PMIX_PLUGIN_COMPONENT_WRAPPED 1
#define MERIDIAN_PMIX_PLUGIN_SHARED_JOB_DATA 0
#elif PMIX_NUMERIC_VERSION >= 0x00050000 && PMIX_NUMERIC_VERSION < 0x00070000
#define MERIDIAN_PMIX_PLUGIN_COMPONENT_WRAPPED 0
#define MERIDIAN_PMIX_PLUGIN_SHARED_JOB_DATA 1
#else
#error "the pnet plugin for libpmix is written for OpenPMIx 4.2, 5.x and 6.x"
#endif

#endif
