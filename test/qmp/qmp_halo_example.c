/* SPDX-License-Identifier: BSD-3-Clause */
/* The QMP example (contrib/examples/qmp_halo.c) built from the tree against
 * libqmp, for qmp_hosts.sh: the halo exchange across two simulated hosts,
 * over a link that delays and drops packets and over one taken down. */
#include "contrib/examples/qmp_halo.c"
