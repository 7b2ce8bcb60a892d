/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Starting and stopping Meridian in a program: the runtime, above the
 * frameworks (it is what names them; the MCA base below learns them from
 * here, by declaration).
 */
#ifndef MERIDIAN_RUNTIME_MERIDIAN_H
#define MERIDIAN_RUNTIME_MERIDIAN_H

#include <meridian/rename.h>

#include <meridian/opal/mca/base/mca_base_framework.h>

MERIDIAN_C_API_BEGIN

/* Take --mca / --tune out of the arguments (argc and argv may be NULL), read
 * every parameter source, register Meridian's frameworks and report settings
 * nothing registers.  Reference-counted: every successful call needs a
 * meridian_finalize.  Errors are reported and returned; after an error nothing
 * needs finalizing. */
int meridian_init(int *argc, char ***argv);
int meridian_finalize(void);

/* The frameworks built into this Meridian -- one per mca/<framework>/
 * directory with a framework.am, found when the build system is generated --
 * NULL-terminated, in the order their framework.am gives (a framework after
 * those it uses: carto, pnet, coord, msg).  The first call
 * declares them to the MCA base (meridian_mca_base_framework_declare);
 * meridian_init makes it.  The array is static. */
mca_base_framework_t *const *meridian_builtin_frameworks(void);

/* Meridian's version, "MAJOR.MINOR.RELEASE". */
const char *meridian_version(void);

MERIDIAN_C_API_END

#endif
