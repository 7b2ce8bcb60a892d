#!/bin/sh
# QMP over two hosts: the QMP drivers (init, output, errors, abort, machine,
# topology, communicators, message memory, channels, freed handles,
# collectives, the C++ binding, re-init, a killed or silent peer) again, each
# job started by Open MPI's mpirun on two simulated hosts
# (contrib/cluster/cluster.sh), ranks dealt round-robin (--map-by node):
# ranks 0 and 1 on different hosts, so every run of two or more processes
# crosses hosts, over the tcp path, while processes on one host use shared
# memory; point to point and collectives once more under Slurm's srun
# (contrib/cluster/slurm.sh) where Slurm is installed.  Then the halo
# example (contrib/examples/qmp_halo.c) between the hosts: on a clean link,
# on a link that loses 5 % of its packets and delays them 2 ms (netem, or
# the cluster's link emulator), and on one taken down during the run, which
# must end in an error within msg_ofi_timeout, not a hang.  mpirun's own
# traffic goes over the mgmt plane and QMP's over the data plane
# (FI_TCP_IFACE=eth0), so a fault on eth0 reaches QMP alone.
# Needs root and iproute2.
# shellcheck source=qmp_lib.sh
. "$QMP_TEST_SRC/qmp_lib.sh"
# shellcheck source=test/support/hosts_test_lib.sh
. "$QMP_TEST_SRC/../support/hosts_test_lib.sh"
if ! qmp_have_mpirun; then
    echo "SKIP: needs mpirun and Meridian built with PMIx"
    exit 77
fi
MERIDIAN_CLUSTER=q$$
export MERIDIAN_CLUSTER
scratch=$(mktemp -d "${TMPDIR:-/tmp}/qmp-hosts.XXXXXX")
cleanup() {
    "$CLUSTER" down
    rm -rf "$scratch" "$QMP_OUT" "$QMP_ERR"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
if ! "$CLUSTER" up 2 >"$scratch/up.out" 2>&1; then
    echo "FAIL: cluster.sh up 2:"
    cat "$scratch/up.out"
    exit 1
fi

# The drivers call "$MPIRUN -np N --oversubscribe ...": this one runs mpirun
# in h1, its daemon reaching h2 through the cluster's agent.
cat >"$scratch/mpirun" <<EOF
#!/bin/sh
exec "$CLUSTER" exec h1 "$MPIRUN" --host h1:8,h2:8 --map-by node \\
    --mca plm_rsh_agent "$CLUSTER agent" --mca oob_tcp_if_include 10.78.0.0/24 "\$@"
EOF
chmod +x "$scratch/mpirun"
MPIRUN=$scratch/mpirun
QMP_RANK_HOSTS="h1 h2"
FI_TCP_IFACE=eth0
export MPIRUN QMP_RANK_HOSTS FI_TCP_IFACE

# The paths: shared memory within a host, the tcp path between.
qmp_setp msg_base_verbose info
qmp_launch 4 qmp_init_test app-np=4
qmp_unsetp msg_base_verbose
for pair in "0 -> rank 2: shm(\+cma)?" "1 -> rank 3: shm(\+cma)?" "0 -> rank 1: tcp" \
    "3 -> rank 0: tcp"; do
    if ! grep -Eq "rank $pair\$" "$QMP_OUT" "$QMP_ERR"; then
        qmp_fail "np=4 on h1 and h2: expected the path rank $pair; the transport said:"
        grep -h -- '->' "$QMP_OUT" "$QMP_ERR" | sed 's/^/  | /'
    fi
done
# shellcheck disable=SC2154 # qmp_lib.sh sets it
[ "$qmp_status" -eq 0 ] && echo "ok: shared memory within each host, the tcp path between them"

for driver in qmp_basic.sh qmp_machine.sh qmp_p2p.sh qmp_coll.sh qmp_cxx.sh qmp_reinit.sh \
    qmp_peer_death.sh; do
    echo "==== $driver over h1 and h2"
    if ! sh "$QMP_TEST_SRC/$driver"; then
        qmp_fail "$driver over h1 and h2"
    fi
done

# Point to point and collectives again under Slurm (contrib/cluster/slurm.sh:
# slurmctld on h1, a slurmd on each host), the processes started by srun
# --mpi=pmix and their PMIx server Slurm's, when Slurm and munge are there.
slurm_sh=$(dirname "$CLUSTER")/slurm.sh
if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
    echo "SKIP: the drivers under srun: no Slurm or munge (Debian: apt-get install slurm-wlm munge)"
elif ! timeout 120 "$slurm_sh" up >"$scratch/slurm-up.out" 2>&1; then
    qmp_fail "slurm.sh up:"
    sed 's/^/  /' "$scratch/slurm-up.out"
else
    # The drivers' "mpirun -np N --oversubscribe PROGRAM ..." as srun's,
    # ranks dealt to h1 and h2 in turn as mpirun --map-by node does.
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
exec "$slurm_sh" srun --mpi=pmix -N "\$nodes" -n "\$np" --overcommit --distribution=cyclic "\$@" </dev/null
EOF
    chmod +x "$scratch/srun"
    for driver in qmp_p2p.sh qmp_coll.sh; do
        echo "==== $driver over h1 and h2, under srun"
        if ! MPIRUN=$scratch/srun sh "$QMP_TEST_SRC/$driver"; then
            qmp_fail "$driver over h1 and h2, under srun"
        fi
    done
    "$slurm_sh" down
fi

echo "==== the halo example between h1 and h2"
# halo ITERATIONS: the example on 2 processes (one per host), at most 120 s
# (qmp_lib.sh's QMP_RUN_LIMIT); its exit status.
halo() {
    # shellcheck disable=SC2034 # read by qmp_launch
    QMP_RUN_LIMIT=120
    qmp_launch 2 qmp_halo_example --lattice 8x8x8x16 --iterations "$1" --warmup 4
    hrc=$?
    unset QMP_RUN_LIMIT
    return $hrc
}
halo_checked() {
    if halo "$2" && grep -q '^check: every halo value and every global sum as expected: OK$' "$QMP_OUT"; then
        echo "ok: halo example, $1"
        grep -E '^(lattice|grid|iteration|bandwidth)' "$QMP_OUT" | sed 's/^/  /'
    else
        qmp_fail "halo example, $1:"
        qmp_show_output
    fi
}
halo_checked "clean link" 40

# 5 % loss and 2 ms delay on what h2 sends on its data link (netem, or the
# cluster's link emulator where the kernel has no netem).
if out=$("$CLUSTER" fault h2 eth0 delay 2ms loss 5% 2>&1); then
    halo_checked "5 % loss and 2 ms delay on h2's eth0" 40
    "$CLUSTER" fault h2 eth0 clear
else
    qmp_fail "cluster.sh fault h2 eth0 delay 2ms loss 5%: $out"
fi

# h2's data link goes down 3 s into a long run: QMP's wait ends with an
# error within msg_ofi_timeout (5 s), the job ends, nothing hangs.
qmp_setp msg_ofi_timeout 5
(
    sleep 3
    "$CLUSTER" link h2 eth0 down
) &
downer=$!
start=$(date +%s)
halo 100000000
rc=$?
secs=$(($(date +%s) - start))
wait $downer
"$CLUSTER" link h2 eth0 up
qmp_unsetp msg_ofi_timeout
said=$(grep -E '^qmp_halo: node [01]: (halo exchange|QMP_sum_double)' "$QMP_ERR" | head -n 1)
if [ $rc -eq 0 ] || [ $rc -eq 124 ] || [ $rc -eq 137 ] || [ -z "$said" ] || [ $secs -gt 40 ]; then
    qmp_fail "link down during the halo: expected a QMP error within msg_ofi_timeout (5 s) after the link went down (3 s in), found exit $rc after $secs s:"
    qmp_show_output
else
    echo "ok: link down during the halo: exit $rc after $secs s; $said"
fi
exit "$qmp_status"
