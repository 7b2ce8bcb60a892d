/* SPDX-License-Identifier: BSD-3-Clause */
/* A library of the outer project with a copy of Meridian inside, built
 * twice: outer_embed.la (OUTER_NAME embed) with meridian/, whose C names
 * are embed_meridian_*, and outer_other.la (OUTER_NAME other) with other/,
 * whose C names are other_meridian_*.  It exports its own functions and its
 * copy's C API, nothing else of Meridian's (embed.sh lists what it exports);
 * twocopies.c loads both and a standalone libmeridian into one process. */
#include <stddef.h>
#include <stdio.h>

#include <meridian/meridian.h>

#define OUTER_PASTE_(copy, name) outer_##copy##_##name
#define OUTER_PASTE(copy, name) OUTER_PASTE_(copy, name)
#define OUTER(name) OUTER_PASTE(OUTER_NAME, name)

int OUTER(start)(void);
int OUTER(stop)(void);
const char *OUTER(env_prefix)(void);
int OUTER(set)(const char *name, const char *value);
int OUTER(get)(const char *name, char *buffer, size_t size);

int OUTER(start)(void)
{
    return meridian_init(NULL, NULL);
}

int OUTER(stop)(void)
{
    return meridian_finalize();
}

const char *OUTER(env_prefix)(void)
{
    return meridian_mca_base_env_prefix();
}

/* A parameter's value set from a program (0, or Meridian's error code). */
int OUTER(set)(const char *name, const char *value)
{
    const int index = meridian_mca_base_param_find(name);
    return index < 0 ? index : meridian_mca_base_param_set_value(index, value);
}

/* A parameter's value as text (0, or Meridian's error code). */
int OUTER(get)(const char *name, char *buffer, size_t size)
{
    const int index = meridian_mca_base_param_find(name);
    if (index < 0) {
        return index;
    }
    const int length = meridian_mca_base_param_value_string(index, buffer, size);
    return length < 0 ? length : 0;
}
