#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set up everything on a fresh Debian 12 or 13 machine, build, and run every
# test.
#   contrib/scripts/check.sh          the whole test suite
#   contrib/scripts/check.sh --lean   the build, the unit tests and the tests that
#                                     start jobs under each launcher (CI's
#                                     Debian 13 stage); not the tests across
#                                     many simulated hosts of the transports,
#                                     the tools, the embedding, the
#                                     installation or the benchmarks
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
lean=no
case ${1:-} in
--lean) lean=yes ;;
'') ;;
*)
    echo "usage: contrib/scripts/check.sh [--lean]" >&2
    exit 2
    ;;
esac
"$top/contrib/scripts/deps.sh"
"$top/contrib/scripts/build.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# The suite logs hold the output of every test that failed.
failed() {
    find "$top/build/test" -name test-suite.log -exec cat {} + 2>/dev/null || true
    exit 1
}

if [ "$lean" = no ]; then
    make -C "$top/build" -j"$(nproc)" check || failed
    exit 0
fi

# The unit tests: the test directories below the tools (test/Makefile.am's
# order), whole.
unit_dirs=(support class params mca carto_base carto_file carto_auto fabric datastore coord pnet
    pnet_ucx qmp_base qmp_msg_unit)
# The launchers: jobs under mpirun (in-job, the node leader, the plugin for
# libpmix in the launcher), under srun on simulated hosts, and QMP's
# programs over every transport under mpirun and under MPICH's mpiexec (PMI-1).
launcher_tests=(
    "injob: injob.sh ledger.sh pmix_launcher.sh"
    "pmix_plugin: pmix_plugin.sh"
    "cluster: pnet_hosts.sh slurm_hosts.sh"
    "msg: msg_test.sh"
    "qmp: qmp_basic.sh qmp_p2p.sh qmp_coll.sh qmp_machine.sh qmp_pmi.sh"
)
for dir in "${unit_dirs[@]}"; do
    make -C "$top/build/test/$dir" -j"$(nproc)" check || failed
done
for entry in "${launcher_tests[@]}"; do
    dir=${entry%%:*}
    make -C "$top/build/test/$dir" -j"$(nproc)" check TESTS="${entry#*: }" || failed
done
bash "$top/test/slowest-tests.sh" "$top/build/test" 15 || true
