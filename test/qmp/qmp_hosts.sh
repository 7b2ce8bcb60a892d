#!/bin/sh
# QMP over two hosts: the QMP drivers (init, output, errors, abort, machine,
# topology, communicators, message memory, channels, freed handles,
# collectives, the C++ binding, re-init) again, each job started by Open
# MPI's mpirun on two simulated hosts (contrib/cluster/cluster.sh), ranks
# dealt round-robin (--map-by node): ranks 0 and 1 on different hosts, so
# every run of two or more processes crosses hosts, over libfabric, while
# processes on one host use shared memory.  Needs root and iproute2.
# shellcheck source=qmp_lib.sh
. "$QMP_TEST_SRC/qmp_lib.sh"
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null 2>&1; then
    echo "SKIP: needs root and iproute2 (simulated hosts)"
    exit 77
fi
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
    --mca plm_rsh_agent "$CLUSTER agent" --mca oob_tcp_if_include 10.77.0.0/24 "\$@"
EOF
chmod +x "$scratch/mpirun"
MPIRUN=$scratch/mpirun
QMP_RANK_HOSTS="h1 h2"
export MPIRUN QMP_RANK_HOSTS

# The paths: shared memory within a host, libfabric between.
qmp_setp msg_base_verbose info
qmp_launch 4 qmp_init_test app-np=4
qmp_unsetp msg_base_verbose
for pair in "0 -> rank 2: shm(\+cma)?" "1 -> rank 3: shm(\+cma)?" "0 -> rank 1: ofi:.*" \
    "3 -> rank 0: ofi:.*"; do
    if ! grep -Eq "rank $pair\$" "$QMP_OUT" "$QMP_ERR"; then
        qmp_fail "np=4 on h1 and h2: expected the path rank $pair; the transport said:"
        grep -h -- '->' "$QMP_OUT" "$QMP_ERR" | sed 's/^/  | /'
    fi
done
[ "$qmp_status" -eq 0 ] && echo "ok: shared memory within each host, libfabric between them"

for driver in qmp_basic.sh qmp_machine.sh qmp_p2p.sh qmp_coll.sh qmp_cxx.sh qmp_reinit.sh; do
    echo "==== $driver over h1 and h2"
    if ! sh "$QMP_TEST_SRC/$driver"; then
        qmp_fail "$driver over h1 and h2"
    fi
done
exit "$qmp_status"
