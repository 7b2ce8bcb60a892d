// SPDX-License-Identifier: BSD-3-Clause
#include <meridian/opal/util/error.h>

extern "C" const char *meridian_strerror(int status)
{
    switch (status) {
    case MERIDIAN_SUCCESS:
        return "success";
    case MERIDIAN_ERROR:
        return "error";
    case MERIDIAN_ERR_OUT_OF_RESOURCE:
        return "out of resources";
    case MERIDIAN_ERR_BAD_PARAM:
        return "bad parameter";
    case MERIDIAN_ERR_NOT_FOUND:
        return "not found";
    case MERIDIAN_ERR_NOT_AVAILABLE:
        return "not available";
    case MERIDIAN_ERR_NOT_SUPPORTED:
        return "not supported";
    case MERIDIAN_ERR_VERSION_MISMATCH:
        return "version mismatch";
    case MERIDIAN_ERR_READ_ONLY:
        return "read-only";
    case MERIDIAN_ERR_EXISTS:
        return "already exists";
    case MERIDIAN_ERR_IO:
        return "input/output error";
    case MERIDIAN_ERR_NOT_INITIALIZED:
        return "not initialized";
    case MERIDIAN_ERR_TAKE_NEXT_OPTION:
        return "take next option";
    case MERIDIAN_ERR_TIMEOUT:
        return "timed out";
    case MERIDIAN_ERR_UNREACH:
        return "peer unreachable";
    default:
        return "unknown status code";
    }
}
