# SPDX-License-Identifier: BSD-3-Clause
# Sourced first by the tests that run jobs on simulated hosts
# (contrib/cluster/cluster.sh: test/cluster/pnet_hosts.sh, slurm_hosts.sh,
# test/qmp/qmp_hosts.sh): they skip (exit 77) without root and iproute2,
# which network namespaces need, and when MERIDIAN_TEST_HOSTS=no (CI runs
# them in the README's build only).
# shellcheck shell=sh
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null 2>&1; then
    echo "SKIP: needs root and iproute2 (simulated hosts)"
    exit 77
fi
if [ "${MERIDIAN_TEST_HOSTS:-yes}" = no ]; then
    echo "SKIP: MERIDIAN_TEST_HOSTS=no (the jobs across hosts are tested in another build)"
    exit 77
fi
