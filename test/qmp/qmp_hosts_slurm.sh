#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# QMP over two hosts under Slurm (contrib/cluster/slurm.sh: slurmctld on h1,
# a slurmd on each host): point to point, collectives and MPI communicators
# under QMP's (MPI started in the same processes), the processes started by
# srun --mpi=pmix and their PMIx server Slurm's; point to point and
# collectives again under srun --mpi=pmi2, whose PMI server is Slurm's: over
# PMI-2 (what mca_base_datastore=pmi speaks under srun) and point to point
# over PMI-1.1 (mca_base_datastore=pmi1).
# Skipped without Slurm and munge.  Needs root and iproute2.
# shellcheck source=qmp_hosts_lib.sh
. "$QMP_TEST_SRC/qmp_hosts_lib.sh"

slurm_sh=$(dirname "$CLUSTER")/slurm.sh
if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
    echo "SKIP: no Slurm or munge (Debian: apt-get install slurm-wlm munge)"
    exit 77
fi
if ! timeout 120 "$slurm_sh" up >"$scratch/slurm-up.out" 2>&1; then
    echo "FAIL: slurm.sh up:"
    sed 's/^/  /' "$scratch/slurm-up.out"
    exit 1
fi
# (cluster.sh down, on exit, takes Slurm down with the hosts.)

# The drivers' "mpirun -np N --oversubscribe PROGRAM ..." as srun's, ranks
# dealt to h1 and h2 in turn as mpirun --map-by node does.
cat >"$scratch/srun" <<EOF
#!/bin/sh
np=1
while [ \$# -gt 0 ]; do
    case \$1 in
    -np) np=\$2; shift 2 ;;
    --oversubscribe) shift ;;
    -*) echo "srun for the QMP drivers: no mpirun option \$1 here" >&2; exit 2 ;;
    *) break ;;
    esac
done
nodes=2
[ "\$np" -lt 2 ] && nodes=1
if [ "\${QMP_SRUN_MPI:-pmix}" = pmi2 ]; then
    ${MCA_ENV_PREFIX}mca_base_datastore=\${QMP_SRUN_DATASTORE:-pmi}
    export ${MCA_ENV_PREFIX}mca_base_datastore
fi
exec "$slurm_sh" srun --mpi="\${QMP_SRUN_MPI:-pmix}" -N "\$nodes" -n "\$np" --overcommit --distribution=cyclic "\$@" </dev/null
EOF
chmod +x "$scratch/srun"
MPIRUN=$scratch/srun
qmp_hosts_drivers ", under srun" qmp_p2p.sh qmp_coll.sh qmp_mpi_comm.sh
# The Slurm step's daemon on h2 (node 1's PMIx server) killed.
QMP_LOSS_CASES=daemon
export QMP_LOSS_CASES
qmp_hosts_drivers ", under srun" qmp_launcher_loss.sh
unset QMP_LOSS_CASES
# Slurm's PMI server (--mpi=pmi2 serves PMI-2 and PMI-1.1 on PMI_FD): the
# processes' datastore held to it, PMI-2 first.
QMP_SRUN_MPI=pmi2
export QMP_SRUN_MPI
qmp_hosts_drivers ", under srun --mpi=pmi2" qmp_p2p.sh qmp_coll.sh
QMP_SRUN_DATASTORE=pmi1
export QMP_SRUN_DATASTORE
qmp_hosts_drivers ", under srun --mpi=pmi2, PMI-1" qmp_p2p.sh
exit "$qmp_status"
