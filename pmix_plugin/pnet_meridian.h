/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the pnet plugin for libpmix is built with (pmix_plugin/README.md).
 * The build defines MERIDIAN_PMIX_PLUGIN_LIBRARY (the libmeridian it
 * opens); the rest has defaults a test build may override.
 */
#ifndef MERIDIAN_PMIX_PLUGIN_PNET_MERIDIAN_H
#define MERIDIAN_PMIX_PLUGIN_PNET_MERIDIAN_H

#include <meridian/meridian_config.h>

#include "pmix_plugin/pmix_family.h"

#ifndef MERIDIAN_PMIX_PLUGIN_LIBRARY
#error "the build names the libmeridian the plugin opens (MERIDIAN_PMIX_PLUGIN_LIBRARY)"
#endif

/* The libpmix the plugin was built for: it takes part only there. */
#ifndef MERIDIAN_PMIX_PLUGIN_BUILT_MAJOR
#define MERIDIAN_PMIX_PLUGIN_BUILT_MAJOR ((int)PMIX_VERSION_MAJOR)
#define MERIDIAN_PMIX_PLUGIN_BUILT_MINOR ((int)PMIX_VERSION_MINOR)
#define MERIDIAN_PMIX_PLUGIN_BUILT_RELEASE ((int)PMIX_VERSION_RELEASE)
#endif

#define MERIDIAN_PMIX_PLUGIN_NAME "pmix_mca_pnet_meridian"
/* Among libpmix's pnet components: Meridian's results are whole, so it goes
 * first (libpmix's own components serve other fabrics). */
#define MERIDIAN_PMIX_PLUGIN_PRIORITY 50
#define MERIDIAN_PMIX_PLUGIN_MAJOR 0
#define MERIDIAN_PMIX_PLUGIN_MINOR 1
#define MERIDIAN_PMIX_PLUGIN_RELEASE 0

/* The launcher's blob in the launch message, and the job-level value that
 * tells a process the launcher set its network up ("launcher"). */
#define MERIDIAN_PMIX_PLUGIN_BLOB_KEY "meridian.pnet.launch"
/* The blob's first line (mca/pnet/base/pnet_base_launcher.cc). */
#define MERIDIAN_PMIX_PLUGIN_BLOB_MAGIC "meridian-pnet-launch 1"
/* "launcher", or "failed" with the reason under the error key
 * (mca/pnet/base/base.hpp: key_setup_path, key_setup_error). */
#define MERIDIAN_PMIX_PLUGIN_PATH_KEY "meridian.pnet.path"
#define MERIDIAN_PMIX_PLUGIN_ERROR_KEY "meridian.pnet.error"
/* The job's request IDs, comma-separated (key_setup_ids). */
#define MERIDIAN_PMIX_PLUGIN_IDS_KEY "meridian.pnet.ids"
/* Set in the environment of the node's processes of a job this plugin set
 * up (or failed to), to the job's namespace (launcher_env): they read the
 * path key only then -- asking PMIx for a job-level key nobody stored costs
 * in proportion to the job's size. */
#define MERIDIAN_PMIX_PLUGIN_ENV "MERIDIAN_PNET_LAUNCHER"

/* A libmeridian call's linked name: meridian_NAME, or PREFIXNAME in a
 * Meridian configured --with-symbol-prefix. */
#define MERIDIAN_PMIX_PLUGIN_TEXT_(x) #x
#define MERIDIAN_PMIX_PLUGIN_TEXT(x) MERIDIAN_PMIX_PLUGIN_TEXT_(x)
#define MERIDIAN_PMIX_PLUGIN_PASTE_(a, b) a##b
#define MERIDIAN_PMIX_PLUGIN_PASTE(a, b) MERIDIAN_PMIX_PLUGIN_PASTE_(a, b)
#define MERIDIAN_PMIX_PLUGIN_SYMBOL(name)                                                          \
    MERIDIAN_PMIX_PLUGIN_TEXT(MERIDIAN_PMIX_PLUGIN_PASTE(MERIDIAN_SYMBOL_PREFIX, name))

#endif
