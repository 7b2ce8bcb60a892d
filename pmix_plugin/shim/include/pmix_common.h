/* SPDX-License-Identifier: BSD-3-Clause */
/* libpmix 5's private headers include "include/pmix_common.h", the path inside
 * PMIx's source tree; installed, the header is <pmix_common.h>. */
#include <pmix_common.h>
