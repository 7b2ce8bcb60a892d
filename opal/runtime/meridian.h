/*
 * Starting and stopping Meridian in a program.
 */
#ifndef MERIDIAN_RUNTIME_MERIDIAN_H
#define MERIDIAN_RUNTIME_MERIDIAN_H

#include <meridian/rename.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Take --mca / --tune out of the arguments (argc and argv may be NULL), read
 * every parameter source, register Meridian's frameworks and report settings
 * nothing registers.  Reference-counted: every successful call needs a
 * meridian_finalize.  Errors are reported and returned; after an error nothing
 * needs finalizing. */
int meridian_init(int *argc, char ***argv);
int meridian_finalize(void);

/* Meridian's version, "MAJOR.MINOR.RELEASE". */
const char *meridian_version(void);

#ifdef __cplusplus
}
#endif

#endif
