/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The component ABI.  This header is the whole contract between libmeridian
 * and a component built by anybody: plain C types only, so a component can be
 * written in C or C++ and compiled against an installed Meridian.
 *
 * A framework's component struct begins with mca_base_component_t; its module
 * is a struct of function pointers (the framework's vtable) that query hands
 * back.  The loader refuses, and never calls, a component whose MCA ABI major
 * version differs from MCA_BASE_ABI_MAJOR, whose framework interface version
 * is incompatible (see mca_base_framework.h), or whose names differ from its
 * file name mca_<framework>_<component>.so.
 *
 * Threads: the hooks below (register_params, open, close, query) are called
 * by the framework's lifecycle, one at a time, from the thread that
 * registers, opens or closes the framework; never concurrently with each
 * other or with the module's calls.  What a module's calls may do
 * concurrently is said by each framework's header.  No hook lets a C++
 * exception out (opal/util/c_boundary.hpp guards each in Meridian's own
 * components).
 */
#ifndef MERIDIAN_MCA_MCA_H
#define MERIDIAN_MCA_MCA_H

#include <meridian/rename.h>

MERIDIAN_C_API_BEGIN

#define MCA_BASE_ABI_MAJOR 1
#define MCA_BASE_ABI_MINOR 0

#define MCA_BASE_MAX_NAME_LEN 63

typedef struct mca_base_version {
    int major;
    int minor;
    int release;
} mca_base_version_t;

/* A module is framework-specific: a struct of function pointers.  The base
 * only moves pointers to it around. */
typedef void mca_base_module_t;

typedef struct mca_base_component mca_base_component_t;

struct mca_base_component {
    /* Filled in by MCA_BASE_COMPONENT_ABI: the MCA ABI this was built for. */
    int mca_abi_major;
    int mca_abi_minor;

    /* Framework this component belongs to and the interface version it
     * implements. */
    char framework_name[MCA_BASE_MAX_NAME_LEN + 1];
    mca_base_version_t framework_version;

    /* The component's own name and version. */
    char component_name[MCA_BASE_MAX_NAME_LEN + 1];
    mca_base_version_t component_version;

    /* Optional hooks (NULL means "nothing to do").  All return a MERIDIAN_*
     * status code.
     *
     * register_params: called once, before open, to register the component's
     *   MCA parameters (mca_base_param.h).  Called even for components the
     *   selection parameter excludes, so their parameter names are known.
     * open: the component was selected by the framework's selection parameter;
     *   MERIDIAN_ERR_NOT_AVAILABLE (or any error) drops it quietly.
     * close: undo open.  Called once per successful open.
     * query: offer a module.  Set *module and *priority (higher wins) and
     *   return MERIDIAN_SUCCESS, or return MERIDIAN_ERR_NOT_AVAILABLE to
     *   decline.  The module stays owned by the component. */
    int (*register_params)(const mca_base_component_t *self);
    int (*open)(const mca_base_component_t *self);
    int (*close)(const mca_base_component_t *self);
    int (*query)(const mca_base_component_t *self, mca_base_module_t **module, int *priority);
};

/* Initialiser for the first two members. */
#define MCA_BASE_COMPONENT_ABI MCA_BASE_ABI_MAJOR, MCA_BASE_ABI_MINOR

/* Symbol a DSO named mca_<fw>_<comp>.so must export (C linkage). */
#define MCA_BASE_COMPONENT_SYMBOL_FORMAT "mca_%s_%s_component"

MERIDIAN_C_API_END

#endif
