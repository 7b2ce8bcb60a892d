#!/bin/sh
# pnet and coord in-job across hosts: Open MPI's mpirun starts cluster_peer
# on three simulated hosts (contrib/cluster/cluster.sh: h1 and h2 on switch
# data0, h3 on data1, all three on mgmt), two processes each, and every
# process runs the pnet pipeline at meridian_init through PMIx.  Checked from
# what the processes print:
#   - each host's inventory from its own interfaces: NICs eth0, mgmt0, lo
#     (nearest first), endpoints on the host's own data address;
#   - static ports unique on each host (hosts may repeat each other's), from
#     the pool;
#   - every process computed the same allocation (agree=yes);
#   - coord_tcp's coordinates from the real interfaces: x the NIC's index on
#     its host, y its switch (pnet_tcp_switches), z its subnet;
#   - cost 0 on one host, 2 hops between hosts on one switch, 4 across the
#     trunk: larger between switches than on one;
#   - a plain PMIx client (pmix_reader, no Meridian header) on every host
#     reads every process's results;
#   - two jobs at once on the same hosts share no static port on any host
#     (the port ledger, which keeps each host's entries apart), and the
#     ledger is empty once both are done.
# Needs root, iproute2 and mpirun with PMIx; skipped otherwise.
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null 2>&1; then
    echo "SKIP: needs root and iproute2"
    exit 77
fi
# shellcheck source=test/support/mpi_test_lib.sh
. "$srcdir/../support/mpi_test_lib.sh"
if [ $mpi != yes ]; then
    echo "SKIP: needs mpirun and Meridian built with PMIx"
    exit 77
fi
MERIDIAN_CLUSTER=p$$
export MERIDIAN_CLUSTER
C=$CLUSTER
scratch=$(pwd)/pnet-hosts.$$
ledger=$scratch/ports
status=0
fail() {
    echo "FAIL: $*"
    status=1
}
cleanup() {
    "$C" down
    rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
rm -rf "$scratch"
mkdir -p "$scratch" || exit 1

if ! "$C" up 3 >"$scratch/up.out" 2>&1; then
    echo "FAIL: cluster.sh up 3:"
    cat "$scratch/up.out"
    exit 1
fi

setp pnet_base_requests "id=data,type=tcp,endpts=2,plane=10.77.0.0/24"
setp pnet_tcp_static_ports "tcp:32000-32099"
setp pnet_tcp_switches "data0:10.77.0.1-10.77.0.2;data1:10.77.0.3-10.77.0.8"
setp pnet_tcp_ledger "$ledger"

# mpirun in h1; its daemons reach h2 and h3 through the cluster's agent.
# Every process inherits this environment (the agent keeps it).
cluster_mpirun() {
    timeout -s KILL 120 "$C" exec h1 "$MPIRUN" --host h1:2,h2:2,h3:2 \
        --mca plm_rsh_agent "$C agent" --mca oob_tcp_if_include 10.77.0.0/24 "$@"
}

# field RANK NAME FILE: the value of NAME= in RANK's line.
field() {
    sed -n "s/^rank $1: .* $2=\([^ ]*\).*/\1/p; s/^rank $1: $2=\([^ ]*\).*/\1/p" "$3" | head -n 1
}

out=$scratch/job.out
cluster_mpirun "$PEER" >"$out" 2>&1
rc=$?
if [ $rc -ne 0 ] || [ "$(grep -c '^rank [0-5]: node=' "$out")" -ne 6 ] || grep -q '^FAIL' "$out"; then
    fail "mpirun across h1-h3 (exit $rc):"
    sed 's/^/  /' "$out"
else
    echo "ok: 6 processes on 3 hosts ran the pipeline"
    sed 's/^/  /' "$out"
fi

for r in 0 1 2 3 4 5; do
    host=h$((r / 2 + 1))
    i=$((r / 2 + 1))
    [ "$(field $r node "$out")" = "$host" ] || fail "rank $r is on $(field $r node "$out"), expected $host"
    [ "$(field $r nics "$out")" = "eth0,mgmt0,lo" ] ||
        fail "rank $r's NICs: $(field $r nics "$out"), expected eth0,mgmt0,lo (its host's own)"
    [ "$(field $r agree "$out")" = yes ] || fail "rank $r disagrees about the allocation"
    ports=$(field $r ports "$out")
    for p in $(echo "$ports" | tr ',' ' '); do
        [ "$p" -ge 32000 ] && [ "$p" -le 32099 ] || fail "rank $r's port $p is not from the pool"
    done
    [ "$(echo "$ports" | tr ',' '\n' | grep -c .)" -eq 2 ] || fail "rank $r has ports $ports, asked 2"
    # Its endpoints: the host's own data address, on its ports.
    want=$(echo "$ports" | tr ',' '\n' | sed "s/^/10.77.0.$i:/" | paste -sd, -)
    [ "$(field $r endpt "$out")" = "$want" ] ||
        fail "rank $r's endpoints: $(field $r endpt "$out"), expected $want"
    # x: eth0 is the host's first NIC, mgmt0 its second; y: data0 (h1, h2)
    # or data1 (h3), mgmt's switch unknown (the map does not name it); z:
    # each plane is one subnet.
    if [ $i -le 2 ]; then y=0; else y=1; fi
    want="10.77.0.0/24:0,$y,0;10.78.0.0/24:1,0,0"
    got=$(field $r coord "$out" | tr ';' '\n' | grep -v '^127\.' | paste -sd';' -)
    [ "$got" = "$want" ] || fail "rank $r's coordinates: $got, expected $want"
    # Costs: 0 on its host, 2 to the other host on data0, 4 across the trunk.
    case $host in
    h1) want=0,0,2,2,4,4 ;;
    h2) want=2,2,0,0,4,4 ;;
    h3) want=4,4,4,4,0,0 ;;
    esac
    [ "$(field $r cost "$out")" = "$want" ] || fail "rank $r's costs: $(field $r cost "$out"), expected $want"
done
# Ports unique per host.
for host in h1 h2 h3; do
    dup=$(grep "^rank [0-5]: node=$host " "$out" | sed 's/.* ports=\([^ ]*\).*/\1/' | tr ',' '\n' |
        sort | uniq -d | paste -sd, -)
    [ -z "$dup" ] || fail "ports $dup given twice on $host"
done

# A PMIx client that knows nothing of Meridian, on every host, reads every
# process's results.
out=$scratch/reader.out
[ -x "$PMIX_READER" ] || fail "no $PMIX_READER: build test/injob first (make -C test/injob pmix_reader)"
cluster_mpirun -x MERIDIAN_LIBRARY "$PMIX_READER" data:tcp:2 >"$out" 2>&1
rc=$?
oks=$(grep -c ': ok' "$out")
if [ $rc -ne 0 ] || [ "$oks" -ne 6 ]; then
    fail "a plain PMIx client across the hosts (exit $rc, $oks of 6 ok):"
    sed 's/^/  /' "$out"
else
    echo "ok: a plain PMIx client on each host read every process's results"
fi

# Two jobs at once on the same hosts: no port on a host given to both.
rm -f "$scratch/go"
CLUSTER_PEER_WAIT=$scratch/go
export CLUSTER_PEER_WAIT
cluster_mpirun "$PEER" >"$scratch/a.out" 2>&1 &
job_a=$!
cluster_mpirun "$PEER" >"$scratch/b.out" 2>&1 &
job_b=$!
tries=0
while [ $tries -lt 900 ]; do
    [ "$(grep -c '^rank [0-5]: node=' "$scratch/a.out")" -eq 6 ] &&
        [ "$(grep -c '^rank [0-5]: node=' "$scratch/b.out")" -eq 6 ] && break
    kill -0 $job_a 2>/dev/null || kill -0 $job_b 2>/dev/null || break
    sleep 0.1
    tries=$((tries + 1))
done
cp "$ledger" "$scratch/both.ledger" 2>/dev/null
touch "$scratch/go"
wait $job_a
rc_a=$?
wait $job_b
rc_b=$?
unset CLUSTER_PEER_WAIT
if [ $rc_a -ne 0 ] || [ $rc_b -ne 0 ] || grep -q '^FAIL' "$scratch/a.out" "$scratch/b.out"; then
    fail "two jobs at once (exit $rc_a and $rc_b):"
    sed 's/^/  a: /' "$scratch/a.out"
    sed 's/^/  b: /' "$scratch/b.out"
else
    for host in h1 h2 h3; do
        both=$(cat "$scratch/a.out" "$scratch/b.out" | grep "^rank [0-5]: node=$host " |
            sed 's/.* ports=\([^ ]*\).*/\1/' | tr ',' '\n' | sort | uniq -d | paste -sd, -)
        [ -z "$both" ] || fail "ports $both of $host given to both jobs"
    done
    entries=$(grep -c '^job ' "$scratch/both.ledger" 2>/dev/null)
    [ "${entries:-0}" -eq 6 ] || {
        fail "while both ran the ledger held ${entries:-0} entries, expected 2 jobs x 3 hosts:"
        sed 's/^/  /' "$scratch/both.ledger" 2>/dev/null
    }
    echo "ok: two jobs at once on h1-h3 share no port on any host"
fi
left=$(grep -c '^job ' "$ledger" 2>/dev/null)
[ "${left:-0}" -eq 0 ] || fail "the ledger still holds ${left} entries after both jobs ended"

exit $status
