/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MCA base as a whole: its own parameters, the sources it reads, and the
 * command line.
 */
#ifndef MERIDIAN_MCA_BASE_H
#define MERIDIAN_MCA_BASE_H

#include <meridian/rename.h>

MERIDIAN_C_API_BEGIN

/* Register the core parameters (mca_base_*) and read the environment and the
 * param files.  Reference-counted: each call needs an meridian_mca_base_close.  Returns
 * MERIDIAN_ERR_BAD_PARAM when a source could not be read (reported). */
int meridian_mca_base_open(void);
int meridian_mca_base_close(void);

/* Take Meridian's options (--mca NAME VALUE, --tune FILE[,FILE]) out of
 * argc/argv and apply them; what is left is the program's own arguments, in
 * order, with argv[*argc] == NULL.  May be called before or after
 * meridian_mca_base_open.  On error (reported) nothing is applied and argv is unchanged. */
int meridian_mca_base_cmdline_apply(int *argc, char ***argv);

/* Report settings that no registered parameter has, with the closest
 * registered name.  An error (MERIDIAN_ERR_BAD_PARAM) under
 * mca_base_strict_params=1, a warning otherwise.  Names under a framework that
 * Meridian declares but that is not registered yet are not judged. */
int meridian_mca_base_check_params(void);

/* The prefix of environment variables that set parameters ("MERIDIAN_MCA_"
 * unless configured --with-mca-env-prefix). */
const char *meridian_mca_base_env_prefix(void);

MERIDIAN_C_API_END

#endif
