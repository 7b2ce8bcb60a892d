/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Meridian status codes.  Every C entry point returns one of these; zero is
 * success and every error is negative so callers can test `rc < 0`.
 */
#ifndef MERIDIAN_UTIL_ERROR_H
#define MERIDIAN_UTIL_ERROR_H

#include <meridian/rename.h>

MERIDIAN_C_API_BEGIN

enum {
    MERIDIAN_SUCCESS = 0,
    MERIDIAN_ERROR = -1,               /* unspecified failure */
    MERIDIAN_ERR_OUT_OF_RESOURCE = -2, /* allocation failed */
    MERIDIAN_ERR_BAD_PARAM = -3,       /* a value or argument was rejected */
    MERIDIAN_ERR_NOT_FOUND = -4,       /* no such name */
    MERIDIAN_ERR_NOT_AVAILABLE = -5,   /* a component declines or a resource is absent */
    MERIDIAN_ERR_NOT_SUPPORTED = -6,
    MERIDIAN_ERR_VERSION_MISMATCH = -7, /* MCA ABI or framework interface version refused */
    MERIDIAN_ERR_READ_ONLY = -8,        /* parameter cannot change now */
    MERIDIAN_ERR_EXISTS = -9,           /* registered twice with different definitions */
    MERIDIAN_ERR_IO = -10,              /* a file could not be read */
    MERIDIAN_ERR_NOT_INITIALIZED = -11,
    MERIDIAN_ERR_TAKE_NEXT_OPTION =
        -12,                    /* multi-select: this module has nothing to do, ask the next */
    MERIDIAN_ERR_TIMEOUT = -13, /* a wait gave up after its time limit */
    MERIDIAN_ERR_UNREACH = -14  /* a peer died or cannot be reached */
};

/* A static, human-readable description of a status code; never NULL. */
const char *meridian_strerror(int status);

MERIDIAN_C_API_END

#endif
