/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MCA parameters: the C API.
 *
 * A parameter is named <framework>_<component>_<name> (framework "mca" and
 * component "base" for the core's own).  It is bound to storage owned by the
 * caller: registration takes the value currently in *storage as the default,
 * then writes the value resolved from every source into it, and rewrites it
 * whenever a higher-precedence source sets it later.  Precedence, low to high:
 *
 *   default < system file < user file < --tune files < environment
 *           < command line < set by API < override file
 *
 * String and list storage points at memory owned by Meridian; it stays valid
 * until the value changes or the parameter is deregistered.  None of these
 * calls is thread-safe: register and set parameters from one thread during
 * start-up.
 */
#ifndef MERIDIAN_MCA_BASE_PARAM_H
#define MERIDIAN_MCA_BASE_PARAM_H

#include <meridian/rename.h>

#include <stddef.h>

#include <meridian/opal/mca/mca.h>

MERIDIAN_C_API_BEGIN

typedef enum mca_base_param_type {
    MCA_BASE_PARAM_TYPE_BOOL,     /* storage: bool *     values: 1/0, true/false, yes/no, on/off */
    MCA_BASE_PARAM_TYPE_INT,      /* storage: int *      decimal or 0x hex, optional named values */
    MCA_BASE_PARAM_TYPE_UNSIGNED, /* storage: unsigned * */
    MCA_BASE_PARAM_TYPE_SIZE,   /* storage: size_t *   with k, m, g, t suffixes (powers of 1024) */
    MCA_BASE_PARAM_TYPE_DOUBLE, /* storage: double * */
    MCA_BASE_PARAM_TYPE_STRING, /* storage: const char ** (NULL when unset) */
    MCA_BASE_PARAM_TYPE_ENUM,   /* storage: int *      one of the named values, by name or number */
    MCA_BASE_PARAM_TYPE_LIST    /* storage: const char *const ** NULL-terminated, comma-separated */
} mca_base_param_type_t;

enum mca_base_param_flags {
    MCA_BASE_PARAM_FLAG_NONE = 0,
    /* Cannot change once its framework is open (sources added later are
     * refused with an error). */
    MCA_BASE_PARAM_FLAG_READONLY_AFTER_OPEN = 1 << 0,
    /* The parameter itself is deprecated: setting it warns. */
    MCA_BASE_PARAM_FLAG_DEPRECATED = 1 << 1,
    /* Only the environment and the command line may set it (the core's
     * parameters that choose which files are read). */
    MCA_BASE_PARAM_FLAG_NOT_IN_FILES = 1 << 2
};

/* Info levels (meridian_info --level N shows levels 1 to N), as Open MPI
 * names its OPAL_INFO_LVL_n: who a parameter is for, and how deep it goes.
 * Registrations use these names, never bare numbers. */
typedef enum mca_base_param_info_level {
    MCA_BASE_INFO_USER_BASIC = 1, /* what every user may set */
    MCA_BASE_INFO_USER_DETAIL = 2,
    MCA_BASE_INFO_USER_ALL = 3,
    MCA_BASE_INFO_TUNER_BASIC = 4, /* for tuning a site or an application */
    MCA_BASE_INFO_TUNER_DETAIL = 5,
    MCA_BASE_INFO_TUNER_ALL = 6,
    MCA_BASE_INFO_DEV_BASIC = 7, /* for Meridian's and components' developers */
    MCA_BASE_INFO_DEV_DETAIL = 8,
    MCA_BASE_INFO_DEV_ALL = 9
} mca_base_param_info_level_t;

/* A named value for ENUM parameters (and aliases for INT ones).  Arrays end
 * with an entry whose name is NULL. */
typedef struct mca_base_param_enum_value {
    int value;
    const char *name;
} mca_base_param_enum_value_t;

/* Register a parameter.  framework and name are required; component may be
 * NULL or "" (framework-level name <framework>_<name>).  level is the info
 * level, an mca_base_param_info_level_t (1: every user; 9: developers).  enumerators is required
 * for ENUM, optional for INT (NULL otherwise) and is copied.  Returns the parameter's index (>= 0),
 * or MERIDIAN_ERR_BAD_PARAM for an invalid name, type, level or a default outside the enumerators,
 * or MERIDIAN_ERR_EXISTS when the name is already registered with another type.  Registering the
 * same name and type again rebinds it to the new storage. */
int meridian_mca_base_param_register(const char *framework, const char *component, const char *name,
                                     const char *help, mca_base_param_type_t type,
                                     const mca_base_param_enum_value_t *enumerators, int level,
                                     int flags, void *storage);

/* Same, with the framework and component names taken from the component. */
int meridian_mca_base_component_param_register(const mca_base_component_t *component,
                                               const char *name, const char *help,
                                               mca_base_param_type_t type,
                                               const mca_base_param_enum_value_t *enumerators,
                                               int level, int flags, void *storage);

/* Accept values only within [min, max] (INT, UNSIGNED, SIZE, DOUBLE).  Call it
 * right after registering: a setting made before registration whose value does
 * not parse is reported when the registration is complete (at the next call of
 * this API other than set_bounds and register_synonym for this parameter, or at
 * the end of the framework's or the component's parameter registration), so the
 * message names the parameter's range ("between 0 and 100"), not its type's. */
int meridian_mca_base_param_set_bounds(int index, double min, double max);

/* Add another name for a parameter.  With MCA_BASE_PARAM_FLAG_DEPRECATED,
 * using the synonym warns and names the new parameter. */
int meridian_mca_base_param_register_synonym(int index, const char *framework,
                                             const char *component, const char *name, int flags);

/* Index of a registered parameter by full name, or MERIDIAN_ERR_NOT_FOUND. */
int meridian_mca_base_param_find(const char *full_name);

/* Set a value from the program (source "api").  Returns MERIDIAN_ERR_BAD_PARAM
 * (and reports why) for a value of the wrong form, MERIDIAN_ERR_READ_ONLY when
 * its framework is open and the parameter is fixed then. */
int meridian_mca_base_param_set_value(int index, const char *value);

/* Copy the current value, as text, into buf (always NUL-terminated).  Returns
 * the full length, like snprintf, or a negative status. */
int meridian_mca_base_param_value_string(int index, char *buf, size_t size);

MERIDIAN_C_API_END

#endif
