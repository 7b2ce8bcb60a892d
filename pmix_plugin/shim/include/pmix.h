/* SPDX-License-Identifier: BSD-3-Clause */
/* libpmix 5's private headers include "include/pmix.h", the path inside
 * PMIx's source tree; installed, the header is <pmix.h>. */
#include <pmix.h>
