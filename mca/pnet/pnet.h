/*
 * pnet: network resources assigned before launch.  Multi-select: every
 * component that accepts takes part, in priority order.  For each call the
 * base asks every active module in turn: MERIDIAN_SUCCESS and
 * MERIDIAN_ERR_TAKE_NEXT_OPTION (nothing to do here) carry on to the next
 * module; any other error stops the pipeline and is returned.
 *
 * Pipeline: collect_inventory (each node) -> deliver_inventory (launcher)
 *   -> allocate (launcher, job map + requests) -> setup_local_network (each
 *   node, from the allocation blob) -> setup_fork (each process) ->
 *   deregister (job end).
 */
#ifndef MERIDIAN_MCA_PNET_H
#define MERIDIAN_MCA_PNET_H

#include <stddef.h>

#include "opal/mca/base/mca_base_framework.h"
#include "opal/mca/mca.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MCA_PNET_BASE_VERSION_MAJOR 1
#define MCA_PNET_BASE_VERSION_MINOR 0
#define MCA_PNET_BASE_VERSION_RELEASE 0
#define MCA_PNET_BASE_VERSION                                                                  \
    {MCA_PNET_BASE_VERSION_MAJOR, MCA_PNET_BASE_VERSION_MINOR, MCA_PNET_BASE_VERSION_RELEASE}

/* An opaque byte string a component hands from one stage to the next. */
typedef struct mca_pnet_blob {
    void *bytes;
    size_t size;
} mca_pnet_blob_t;

typedef struct mca_pnet_base_module {
    const char *name;
    int (*collect_inventory)(mca_pnet_blob_t *inventory);
    int (*deliver_inventory)(const char *node, const mca_pnet_blob_t *inventory);
    /* job_map and requests are defined by the pnet base (key strings as PMIx). */
    int (*allocate)(const char *job, const void *job_map, const void *requests,
                    mca_pnet_blob_t *per_node);
    int (*setup_local_network)(const char *job, const mca_pnet_blob_t *allocation);
    int (*setup_fork)(const char *job, int rank, char ***environment);
    int (*deregister)(const char *job);
} mca_pnet_base_module_t;

typedef struct mca_pnet_base_component {
    mca_base_component_t base;
} mca_pnet_base_component_t;

extern mca_base_framework_t meridian_pnet_base_framework;

#ifdef __cplusplus
}
#endif

#endif
