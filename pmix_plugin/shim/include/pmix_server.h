/* SPDX-License-Identifier: BSD-3-Clause */
/* libpmix's private src/server/pmix_server_ops.h includes
 * "include/pmix_server.h", the path inside PMIx's source tree; installed,
 * the header is <pmix_server.h>. */
#include <pmix_server.h>
