/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pnet: network resources assigned to a job's processes before launch.
 * Multi-select: every component whose query accepts takes part, best
 * priority first.
 *
 * Pipeline (mca/pnet/base/base.hpp runs it):
 *   collect_inventory    each node: what this node has (NICs, ports, devices)
 *   deliver_inventory    launcher: a node's inventory into the fabric model
 *   allocate             launcher: the job map and requests -> assignments
 *   setup_local_network  each node: store its processes' assignments in the
 *                        datastore (under each request's ID)
 *   setup_fork           each process: its environment
 *   deregister           job end: give everything back
 *
 * For every call the base asks each active module in turn.  MERIDIAN_SUCCESS
 * and MERIDIAN_ERR_TAKE_NEXT_OPTION ("nothing for me here") carry on to the
 * next module; any other code stops the call, which returns that code.  A
 * NULL function pointer counts as TAKE_NEXT_OPTION.  allocate is a
 * transaction: when a module fails, the base calls deregister on the modules
 * that had already allocated, so nothing stays half-allocated.
 *
 * A module reports why it failed (meridian_report, MERIDIAN_SEVERITY_ERROR)
 * before returning an error.  Requests name the module that serves them by
 * their type: each module lists the types it serves (`types`), and allocate
 * must serve exactly the job's requests of those types.
 *
 * Threads: the base makes the pipeline's calls for one job one after the
 * other, from whichever thread runs the pipeline (the launcher's, or the one
 * in meridian_init in in-job mode); a module must not rely on which.  A
 * launcher may deliver the inventories of different nodes from several
 * threads at once, so a module that keeps what deliver_inventory gave it
 * (outside the fabric it is handed) locks it.  Jobs are independent: two jobs
 * may run their pipelines in different threads, and a module keeps no
 * per-job state outside the job handle.  Every call is a C boundary
 * (opal/util/c_boundary.hpp): no exception leaves it.
 */
#ifndef MERIDIAN_MCA_PNET_H
#define MERIDIAN_MCA_PNET_H

#include <meridian/rename.h>

#include <stddef.h>
#include <stdint.h>

#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/mca/mca.h>

MERIDIAN_C_API_BEGIN

/* 2.0: the pipeline works on a fabric model and a job handle. */
#define MCA_PNET_BASE_VERSION_MAJOR 2
#define MCA_PNET_BASE_VERSION_MINOR 0
#define MCA_PNET_BASE_VERSION_RELEASE 0
#define MCA_PNET_BASE_VERSION                                                                      \
    {                                                                                              \
        MCA_PNET_BASE_VERSION_MAJOR, MCA_PNET_BASE_VERSION_MINOR, MCA_PNET_BASE_VERSION_RELEASE    \
    }

/* Bytes a component hands from one stage to the next (its own format).
 * collect_inventory allocates them with malloc; the base frees them. */
typedef struct mca_pnet_blob {
    void *bytes;
    size_t size;
} mca_pnet_blob_t;

/* The fabric model (opal/class/fabric.hpp) inventory is delivered into. */
typedef struct mca_pnet_fabric mca_pnet_fabric_t;
/* A job: its fabric, process map, requests (with their resolved types) and
 * the allocation being made (mca/pnet/base/base.hpp). */
typedef struct mca_pnet_job mca_pnet_job_t;
/* A process's environment being built by setup_fork. */
typedef struct mca_pnet_env mca_pnet_env_t;

/* Set NAME=VALUE in the environment being built (replacing an earlier
 * value).  MERIDIAN_ERR_BAD_PARAM for an empty name or one with '='. */
int meridian_mca_pnet_env_set(mca_pnet_env_t *env, const char *name, const char *value);

typedef struct mca_pnet_base_module mca_pnet_base_module_t;

struct mca_pnet_base_module {
    /* The request types this module serves, comma-separated ("tcp,udp"). */
    const char *types;
    /* This node's inventory as a blob (TAKE_NEXT_OPTION: nothing to say). */
    int (*collect_inventory)(const mca_pnet_base_module_t *self, mca_pnet_blob_t *inventory);
    /* Another node's blob from this module's collect_inventory, into the
     * fabric (or the module's own state). */
    int (*deliver_inventory)(const mca_pnet_base_module_t *self, const char *node,
                             const mca_pnet_blob_t *inventory, mca_pnet_fabric_t *fabric);
    /* Serve the job's requests of this module's types. */
    int (*allocate)(const mca_pnet_base_module_t *self, mca_pnet_job_t *job);
    /* Store the assignments of the job's processes on `node` in the
     * datastore. */
    int (*setup_local_network)(const mca_pnet_base_module_t *self, mca_pnet_job_t *job,
                               const char *node);
    /* The environment of one process of the job. */
    int (*setup_fork)(const mca_pnet_base_module_t *self, const mca_pnet_job_t *job, uint32_t rank,
                      mca_pnet_env_t *env);
    /* Give back what allocate took for this job (idempotent). */
    int (*deregister)(const mca_pnet_base_module_t *self, mca_pnet_job_t *job);
};

typedef struct mca_pnet_base_component {
    mca_base_component_t base;
} mca_pnet_base_component_t;

extern mca_base_framework_t meridian_pnet_base_framework;

MERIDIAN_C_API_END

#endif
