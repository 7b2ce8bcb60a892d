/*
 * msg: the transport under the QMP API.  QMP semantics live in the msg base;
 * a transport only moves bytes between endpoints.  Single-select.
 */
#ifndef MERIDIAN_MCA_MSG_H
#define MERIDIAN_MCA_MSG_H

#include <stddef.h>

#include "opal/mca/base/mca_base_framework.h"
#include "opal/mca/mca.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MCA_MSG_BASE_VERSION_MAJOR 1
#define MCA_MSG_BASE_VERSION_MINOR 0
#define MCA_MSG_BASE_VERSION_RELEASE 0
#define MCA_MSG_BASE_VERSION                                                                   \
    {MCA_MSG_BASE_VERSION_MAJOR, MCA_MSG_BASE_VERSION_MINOR, MCA_MSG_BASE_VERSION_RELEASE}

typedef struct mca_msg_base_module {
    /* Bring up the endpoint of this process; rank and size of the job. */
    int (*init)(int *rank, int *size);
    int (*finalize)(void);
    /* Drive outstanding transfers; returns how many completed. */
    int (*progress)(void);
} mca_msg_base_module_t;

typedef struct mca_msg_base_component {
    mca_base_component_t base;
} mca_msg_base_component_t;

extern mca_base_framework_t meridian_msg_base_framework;

#ifdef __cplusplus
}
#endif

#endif
