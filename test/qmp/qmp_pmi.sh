#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# QMP under a PMI launcher: MPICH's mpiexec (hydra), which has no PMIx
# server and hands each process a PMI_FD.  The drivers of init, output,
# errors and abort, machine and topology, point-to-point and collectives run
# again with their jobs started by mpiexec.hydra, the datastore of the
# launched processes held to pmi (mca_base_datastore=pmi, PMI-1 there: an
# error, not a job of one, when it cannot start); then the launcher's loss,
# its PMI server killed; then machine, point-to-point and collectives once
# more over PMI-2 (mca_base_datastore=pmi2; not abort: hydra 4.0 has no
# PMI-2 abort).  Skipped (77) without MPICH's mpiexec.
# shellcheck source=qmp_lib.sh
. "$QMP_TEST_SRC/qmp_lib.sh"

if [ -z "${MPIEXEC_HYDRA:-}" ]; then
    echo "SKIP: configure found no mpiexec.hydra (Debian's mpich package)"
    exit 77
fi
scratch=$(mktemp -d "${TMPDIR:-/tmp}/qmp-pmi.XXXXXX")
trap 'rm -rf "$scratch" "$QMP_OUT" "$QMP_ERR"' EXIT
# The drivers call "$MPIRUN -np N --oversubscribe [-x VAR] ...": hydra's
# words for those (it places any number of processes on a host).
cat >"$scratch/mpirun" <<END_OF_MPIRUN
#!/bin/sh
n=1
while [ \$# -gt 0 ]; do
    case \$1 in
    -np) n=\$2; shift 2 ;;
    --oversubscribe) shift ;;
    -x) set -- -genvlist "\$2" "\$@"; shift 2; break ;;
    *) break ;;
    esac
done
${MCA_ENV_PREFIX}mca_base_datastore=\${QMP_PMI_DATASTORE:-pmi}
export ${MCA_ENV_PREFIX}mca_base_datastore
exec "$MPIEXEC_HYDRA" -n "\$n" "\$@"
END_OF_MPIRUN
chmod +x "$scratch/mpirun"
MPIRUN=$scratch/mpirun
HAVE_PMIX=yes # what the drivers ask for a launcher; this one needs none
export MPIRUN HAVE_PMIX

for driver in qmp_basic.sh qmp_machine.sh qmp_p2p.sh qmp_coll.sh; do
    echo "==== $driver under mpiexec.hydra"
    if ! sh "$QMP_TEST_SRC/$driver"; then
        qmp_fail "$driver under mpiexec.hydra"
    fi
done
# The PMI server's end: hydra's proxy, the processes' parent and the other
# end of their PMI_FD, killed; each process sees its connection close, says
# so and ends.  (When mpiexec itself goes, its proxy ends the processes.)
echo "==== qmp_launcher_loss.sh under mpiexec.hydra, its proxy killed"
if ! QMP_LOSS_CASES=daemon sh "$QMP_TEST_SRC/qmp_launcher_loss.sh"; then
    qmp_fail "qmp_launcher_loss.sh under mpiexec.hydra, its proxy killed"
fi
QMP_PMI_DATASTORE=pmi2
export QMP_PMI_DATASTORE
for driver in qmp_machine.sh qmp_p2p.sh qmp_coll.sh; do
    echo "==== $driver under mpiexec.hydra, PMI-2"
    if ! sh "$QMP_TEST_SRC/$driver"; then
        qmp_fail "$driver under mpiexec.hydra, PMI-2"
    fi
done
exit "$qmp_status"
