/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frameworks: the lifecycle every framework shares.
 *
 *   register -> open -> select -> (use) -> close
 *
 * register: registers <fw>_base_verbose, the selection parameter <fw>, the
 *   framework's own parameters, finds its components (built in, then
 *   mca_<fw>_<comp>.so in each directory of mca_base_component_path) and calls
 *   every component's register_params hook.  A DSO that cannot be used is
 *   reported on one line (path and reason) and skipped; the rest carry on.
 * open: reference-counted; the first call applies the selection parameter
 *   (<fw> = "a,b" for only these, "^a,b" for all but these; naming a component
 *   that is not available is an error listing those that are) and opens the
 *   selected components.  Parameters flagged READONLY_AFTER_OPEN refuse changes
 *   until the last close.
 * select: single-select frameworks take the accepting component with the
 *   highest query priority (ties: the name first in alphabetical order);
 *   multi-select frameworks take every accepting component in that order.
 * close: the last close closes the components, forgets their parameters and
 *   unloads their DSOs.  Closing a framework that is registered but not open
 *   only forgets and unloads; closing one that is neither does nothing.
 *
 * Threads: the lifecycle (declare, register, open, select, close) is not
 * thread-safe: run it from one thread at a time, as meridian_init and
 * meridian_finalize do, and not while another thread uses the framework's
 * modules.  meridian_mca_base_framework_verbose and
 * meridian_mca_base_framework_is_open may be called from any thread while
 * the framework is open.
 *
 * Interface versions: a component is accepted when its framework interface
 * has the framework's major version and a minor version not above the
 * framework's (a component built against an older minor still works).
 */
#ifndef MERIDIAN_MCA_BASE_FRAMEWORK_H
#define MERIDIAN_MCA_BASE_FRAMEWORK_H

#include <meridian/rename.h>

#include <stddef.h>

#include <meridian/opal/mca/mca.h>

MERIDIAN_C_API_BEGIN

enum { MCA_BASE_FRAMEWORK_FLAG_NONE = 0, MCA_BASE_FRAMEWORK_FLAG_MULTI_SELECT = 1 << 0 };

/* Verbosity levels of <fw>_base_verbose (any number 0-100 is accepted). */
enum {
    MCA_BASE_VERBOSE_NONE = 0,
    MCA_BASE_VERBOSE_ERROR = 1,
    MCA_BASE_VERBOSE_WARN = 10,
    MCA_BASE_VERBOSE_INFO = 20,
    MCA_BASE_VERBOSE_DEBUG = 40,
    MCA_BASE_VERBOSE_MAX = 100
};

typedef struct mca_base_framework mca_base_framework_t;

struct mca_base_framework {
    const char *name;           /* letters and digits only: "carto" */
    const char *description;    /* one line, for meridian_info */
    mca_base_version_t version; /* the interface its components implement */
    int flags;                  /* MCA_BASE_FRAMEWORK_FLAG_* */
    /* Optional hooks: register <fw>_base_* parameters; run after the
     * components are opened; run before they are closed. */
    int (*register_params)(mca_base_framework_t *framework);
    int (*open)(mca_base_framework_t *framework);
    int (*close)(mca_base_framework_t *framework);
    /* Components built into the library or program, NULL-terminated (may be
     * NULL).  A DSO of the same name is ignored with a notice. */
    const mca_base_component_t *const *static_components;
    /* Set by the base from <fw>_base_verbose. */
    int verbose;
    /* Owned by the base. */
    void *internal;
};

typedef struct mca_base_selected {
    const mca_base_component_t *component;
    mca_base_module_t *module;
    int priority;
} mca_base_selected_t;

/* Make a framework known to the base, which names none of its own: it is
 * listed by meridian_mca_base_frameworks(), and until it registers, settings
 * under its name ("<fw>_...") are not judged unknown.  The runtime above the
 * frameworks declares the built-in ones (meridian_builtin_frameworks); a
 * program may declare its own.  Idempotent; registering a framework declares
 * it too.  MERIDIAN_ERR_BAD_PARAM for NULL or a nameless framework,
 * MERIDIAN_ERR_EXISTS when another framework of that name was declared.  The
 * struct must stay valid while Meridian is in use. */
int meridian_mca_base_framework_declare(mca_base_framework_t *framework);

/* The declared frameworks, in the order they were declared, NULL-terminated.
 * The array belongs to the base and is valid until the next declaration. */
mca_base_framework_t *const *meridian_mca_base_frameworks(void);

/* Register a framework: its own parameters (<fw>, <fw>_base_*, and what its
 * register_params hook adds), then its components -- found in the component
 * path and the built-in list, loaded, and asked for their parameters.
 * Idempotent. */
int meridian_mca_base_framework_register(mca_base_framework_t *framework);

/* Flags of meridian_mca_base_framework_register_flags. */
#define MCA_BASE_REGISTER_DEFAULT 0
/* Register the framework's own parameters now and its components when they
 * are needed: when it opens, or when they are listed or checked
 * (meridian_info), so a process that never opens the framework loads none of
 * its DSOs.  When something is set for its components ("<fw>_<name>..." other
 * than <fw>_base_*: a component's parameter, or a misspelt one; from the
 * environment, the command line or a file), they load now all the same, so a
 * bad value or a misspelt name, with the parameter it was meant for, is told
 * at the start as for any other. */
#define MCA_BASE_REGISTER_COMPONENTS_ON_DEMAND 1

/* meridian_mca_base_framework_register with flags: MCA_BASE_REGISTER_DEFAULT
 * is that call; a later call without COMPONENTS_ON_DEMAND loads what an
 * earlier one put off.  MERIDIAN_ERR_BAD_PARAM (reported) for other bits. */
int meridian_mca_base_framework_register_flags(mca_base_framework_t *framework, int flags);
int meridian_mca_base_framework_open(mca_base_framework_t *framework);
int meridian_mca_base_framework_close(mca_base_framework_t *framework);
int meridian_mca_base_framework_is_open(const mca_base_framework_t *framework);

/* Single-select: the best module.  MERIDIAN_ERR_NOT_FOUND (reported) when no
 * open component accepts.  component may be NULL. */
int meridian_mca_base_select(mca_base_framework_t *framework, mca_base_module_t **module,
                             const mca_base_component_t **component);

/* Multi-select: every accepting module, best first.  Fills at most capacity
 * entries and sets *count to the number that accepted. */
int meridian_mca_base_select_all(mca_base_framework_t *framework, mca_base_selected_t *selected,
                                 size_t capacity, size_t *count);

/* Another name under which the framework's selection parameter takes the
 * component: with alias "autodetect" for carto's "auto", "--mca carto
 * autodetect" selects it and "^autodetect" leaves it out; meridian_info lists
 * it ("auto (also: autodetect)").  Call it from the component's
 * register_params hook: the alias lasts while the component is registered.
 * An alias is letters, digits, '_', '-' and '.' (at most
 * MCA_BASE_MAX_NAME_LEN); MERIDIAN_ERR_BAD_PARAM for another, or when the
 * component is not being registered; MERIDIAN_ERR_EXISTS when a component of
 * the framework has that name or alias.  Errors are reported, and leave the
 * component selectable under its own name. */
int meridian_mca_base_component_alias(const mca_base_component_t *component, const char *alias);

/* Verbose output when the framework's verbosity is at least level. */
void meridian_mca_base_framework_verbose(const mca_base_framework_t *framework, int level,
                                         const char *format, ...)
    __attribute__((format(printf, 3, 4)));

MERIDIAN_C_API_END

#endif
