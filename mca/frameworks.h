/*
 * The frameworks Meridian itself declares.
 */
#ifndef MERIDIAN_MCA_FRAMEWORKS_H
#define MERIDIAN_MCA_FRAMEWORKS_H

#include <meridian/rename.h>

#include <meridian/opal/mca/base/mca_base_framework.h>

#ifdef __cplusplus
extern "C" {
#endif

/* NULL-terminated: carto, pnet, coord, msg. */
mca_base_framework_t *const *meridian_builtin_frameworks(void);

#ifdef __cplusplus
}
#endif

#endif
