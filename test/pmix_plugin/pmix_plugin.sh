#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The pnet plugin for libpmix (pmix_plugin/README.md) inside Open MPI's
# mpirun with instant-on support, on this host: libpmix loads the plugin
# from the build tree (PMIX_MCA_mca_base_component_path), mpirun's allocate
# hands the requests and keys on, its setup_local_network makes the node's
# share and stores each process's results before the processes start.
#
#   launcher    pmix_reader (libpmix only; calls Meridian's init) reads every
#               rank's results, and every process says (pnet_base_verbose)
#               that it ran no pipeline
#   libpmix     plugin_peer, which never loads libmeridian, reads its own
#               results without a fence, and libmeridian is not in it
#   side by side  two jobs at once hold different ports, and the ledger
#               is empty when both have ended
#   bad input   requests that do not parse, a required value the node cannot
#               meet, a component that does not exist: the job ends (no hang)
#               with Meridian's reason from every process, no process sets
#               its network up itself, and no port stays taken
#   bindings    the daemon orders each process's NICs from the package
#               mpirun bound it to (PMIX_LOCALITY_STRING): two packages (a
#               topology file for mpirun), a NIC on each (a fabric file), one
#               endpoint per process, on the NIC of its own package
#   mismatch    a plugin built for another libpmix says so once and takes no
#               part: the processes set the network up in-job
#   the launcher's own request  Open MPI 5's mpirun asks every job for
#               "<namespace>.net" with a security key: each process has the
#               entry, all hold one key, and nothing is warned about
#
# Open MPI 5's mpirun (PRRTE) calls the plugin for every job; 4.1 only with
# instant-on support (orte_enable_instant_on_support), and asks for nothing
# itself.
if [ "$HAVE_PMIX_PLUGIN" != yes ]; then
    echo "SKIP: the plugin for libpmix is not built (configure's summary says why)"
    exit 77
fi
if [ -z "$MPIRUN" ]; then
    echo "SKIP: no mpirun (Debian: openmpi-bin)"
    exit 77
fi
setp() { eval "${MCA_ENV_PREFIX}$1=\$2; export ${MCA_ENV_PREFIX}$1"; }
unsetp() { unset "${MCA_ENV_PREFIX}$1"; }

scratch=$(pwd)/pmix-plugin-scratch.$$
cleanup() {
    touch "$scratch/release" 2>/dev/null
    # Background jobs of a failed case: bounded by their timeout, ended here.
    for pid in $(jobs -p); do kill "$pid" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
mkdir -p "$scratch/plugins" "$scratch/mismatch" || exit 1
ln -s "$PLUGIN" "$scratch/plugins/pmix_mca_pnet_meridian.so" || exit 1
ln -s "$MISMATCH_PLUGIN" "$scratch/mismatch/pmix_mca_pnet_meridian.so" || exit 1
# The plugin first, then libpmix's own components.
PMIX_MCA_mca_base_component_path="$scratch/plugins:$PMIX_COMPONENT_DIR"
PMIX_MCA_pnet_meridian_library=$MERIDIAN_LIBRARY_SO
export PMIX_MCA_mca_base_component_path PMIX_MCA_pnet_meridian_library
ledger="$scratch/ports"
setp pnet_tcp_ledger "$ledger"
setp pnet_tcp_static_ports "tcp:32000-32099;udp:33000-33099"
setp pnet_base_verbose 1
# The cases up to the last are about pnet_base_requests: the launcher's own
# request (Open MPI 5) is left out until then.
setp pnet_base_launcher_requests no
host=$(hostname)
ompi_major=$("$MPIRUN" --version 2>/dev/null | sed -n 's/.*(Open MPI) \([0-9][0-9]*\)\..*/\1/p' | head -n 1)
case $ompi_major in
'' | *[!0-9]*)
    echo "FAIL: $MPIRUN --version does not say which Open MPI it is"
    exit 1
    ;;
esac
instant_on=""
[ "$ompi_major" -ge 5 ] || instant_on="--mca orte_enable_instant_on_support 1"

# In a build under the sanitizers the plugin, libmeridian and the test's
# programs are sanitized, mpirun and its daemons are not: their runtimes go
# into every process of the launch first (LD_PRELOAD), and the leaks of
# mpirun's own code are not looked for (the unit tests look for
# libmeridian's).
# shellcheck disable=SC2086 # CC may hold options
preload=""
case $SANITIZER_FLAGS in
*-fsanitize=*address*) preload=$($CC -print-file-name=libasan.so) ;;
esac
case $SANITIZER_FLAGS in
*-fsanitize=*undefined*) preload="${preload:+$preload }$($CC -print-file-name=libubsan.so)" ;;
esac
for runtime in $preload; do
    [ -e "$runtime" ] || { echo "FAIL: $CC has no sanitizer runtime $runtime to put into mpirun"; exit 1; }
done
[ -z "$preload" ] || echo "the sanitizers' runtimes go into mpirun and its processes: $preload"

launch() {
    if [ -n "$preload" ]; then
        # shellcheck disable=SC2086 # two words or none
        LD_PRELOAD=$preload ASAN_OPTIONS=detect_leaks=0 timeout 120 \
            "$MPIRUN" $instant_on --oversubscribe -x LD_PRELOAD -x ASAN_OPTIONS "$@"
    else
        # shellcheck disable=SC2086 # two words or none
        timeout 120 "$MPIRUN" $instant_on --oversubscribe "$@"
    fi
}

status=0
failed() {
    echo "FAIL: $1:"
    sed 's/^/  /' "$2"
    status=1
}

# No job's entry may stay in the ledger once its launcher has ended.
ledger_empty() {
    if [ -f "$ledger" ] && grep -q '^job ' "$ledger"; then
        echo "FAIL: $1: the port ledger still holds ports:"
        sed 's/^/  /' "$ledger"
        status=1
    fi
}

# ---------------------------------------------------------------- launcher
setp pnet_base_requests "id=data,type=tcp,endpts=2;id=ctl,type=udp,endpts=1"
launch -np 4 -x MERIDIAN_LIBRARY "$PMIX_READER" data:tcp:2 ctl:udp:1 >"$scratch/out" 2>&1
rc=$?
ok=$(grep -c '^rank [0-3]: ok (read 4 ranks' "$scratch/out")
quiet=$(grep -c "meridian: pnet: process .*:[0-3], node $host: the launcher set the job's network up (pnet plugin for libpmix); this process ran no pipeline$" "$scratch/out")
injob=$(grep -c 'in-job' "$scratch/out")
if [ $rc -ne 0 ] || [ "$ok" -ne 4 ] || [ "$quiet" -ne 4 ] || [ "$injob" -ne 0 ]; then
    failed "mpirun -np 4: every process reads every rank's results and ran no pipeline (exit $rc, $ok of 4 ok, $quiet of 4 ran none, $injob in-job)" "$scratch/out"
else
    echo "ok: mpirun -np 4: the launcher set the network up; 4 processes read every rank's results and ran no pipeline"
fi
ledger_empty "mpirun -np 4"

# ---------------------------------------------------------------- libpmix only
setp pnet_base_requests "id=data,type=tcp,endpts=2"
launch -np 2 "$PLUGIN_PEER" data:tcp:2 >"$scratch/out" 2>&1
rc=$?
ok=$(grep -c '^rank [01]: ok (data tcp, no libmeridian here)$' "$scratch/out")
if [ $rc -ne 0 ] || [ "$ok" -ne 2 ]; then
    failed "a program that links only libpmix reads its results (exit $rc, $ok of 2 ok)" "$scratch/out"
else
    echo "ok: a program that links only libpmix reads its results without a fence; libmeridian is not loaded in it"
fi
ledger_empty "libpmix only"

# ---------------------------------------------------------------- side by side
rm -f "$scratch/release"
WAIT_FILE="$scratch/release"
export WAIT_FILE
launch -np 2 -x WAIT_FILE "$PLUGIN_PEER" data:tcp:2 >"$scratch/one" 2>&1 &
launch -np 2 -x WAIT_FILE "$PLUGIN_PEER" data:tcp:2 >"$scratch/two" 2>&1 &
# Both jobs hold their ports (bounded: 60 s).
tries=0
while [ "$(cat "$scratch/one" "$scratch/two" 2>/dev/null | grep -c '^rank [01] ports ')" -lt 4 ] &&
    [ $tries -lt 600 ]; do
    sleep 0.1
    tries=$((tries + 1))
done
held=$(grep -c '^job ' "$ledger" 2>/dev/null)
touch "$scratch/release"
wait
unset WAIT_FILE
sed -n 's/^rank [01] ports //p' "$scratch/one" | tr ',' '\n' | sort >"$scratch/ports.one"
sed -n 's/^rank [01] ports //p' "$scratch/two" | tr ',' '\n' | sort >"$scratch/ports.two"
shared=$(comm -12 "$scratch/ports.one" "$scratch/ports.two" | wc -l)
if [ "$(wc -l <"$scratch/ports.one")" -ne 4 ] || [ "$(wc -l <"$scratch/ports.two")" -ne 4 ] ||
    [ "$shared" -ne 0 ] || [ "${held:-0}" -ne 2 ]; then
    cat "$scratch/one" "$scratch/two" >"$scratch/out"
    failed "two jobs at once hold 4 ports each, none of them shared, both in the ledger ($shared shared, ${held:-0} of 2 in the ledger)" "$scratch/out"
else
    echo "ok: two jobs side by side hold $(tr '\n' ' ' <"$scratch/ports.one")and $(tr '\n' ' ' <"$scratch/ports.two")"
fi
ledger_empty "two jobs side by side"

# ---------------------------------------------------------------- bindings
# mpirun reads two packages of one core each from the topology file (CPUs 0
# and 1 of this machine) and binds rank 0 to package 0, rank 1 to package 1;
# the fabric file puts eth1 on package 0 and eth0 on package 1.  Unbound,
# both processes get the same NIC.
if [ "$(nproc)" -lt 2 ]; then
    echo "ok: bindings: skipped (one CPU here; the case binds to CPUs 0 and 1)"
else
    {
        echo "fabric bindings"
        echo "plane data type=ethernet cidr=10.77.0.0/16"
        echo "node $host packages=2 cores=2 ports=tcp:10.77.0.0/16:34000-34009"
        echo "nic $host eth0 plane=data address=10.77.0.1 speed=25G package=1"
        echo "nic $host eth1 plane=data address=10.77.1.1 speed=25G package=0"
    } >"$scratch/bind.fabric"
    setp pnet_base_requests "id=data,type=tcp,endpts=1"
    setp pnet_tcp_fabric_file "$scratch/bind.fabric"
    # (PRRTE names the topology file's parameter and the package its own way)
    if [ "$ompi_major" -ge 5 ]; then
        topology="--prtemca hwloc_use_topo_file $srcdir/two-packages.xml --map-by package --bind-to package"
    else
        topology="--mca hwloc_base_topo_file $srcdir/two-packages.xml --map-by socket --bind-to socket"
    fi
    # shellcheck disable=SC2086 # the options above, split
    launch -np 2 $topology "$PLUGIN_PEER" data:tcp:1 >"$scratch/out" 2>&1
    rc=$?
    unsetp pnet_tcp_fabric_file
    near0=$(grep -c '^rank 0 endpoints 10\.77\.1\.1:340[0-9][0-9]$' "$scratch/out")
    near1=$(grep -c '^rank 1 endpoints 10\.77\.0\.1:340[0-9][0-9]$' "$scratch/out")
    if [ $rc -ne 0 ] || [ "$near0" -ne 1 ] || [ "$near1" -ne 1 ]; then
        failed "each process's endpoint on the NIC of the package it is bound to (exit $rc; rank 0 on eth1 10.77.1.1: $near0 of 1, rank 1 on eth0 10.77.0.1: $near1 of 1)" "$scratch/out"
    else
        echo "ok: bindings: rank 0 (package 0) got eth1's address, rank 1 (package 1) eth0's"
    fi
    ledger_empty "bindings"
fi

# ---------------------------------------------------------------- bad input
# Each: the job ends with the reason from the launcher and from its
# processes (once, with both ranks), which ran no pipeline of their own.
bad_input() {
    what=$1
    reason=$2
    shift 2
    launch -np 2 -x MERIDIAN_LIBRARY "$PMIX_READER" "$@" >"$scratch/out" 2>&1
    rc=$?
    said=$(grep -c "^meridian: error: \[ranks 0-1 on $host\] the launcher could not set up the job's network on node $host: .*$reason" "$scratch/out")
    injob=$(grep -c 'in-job' "$scratch/out")
    if [ $rc -eq 0 ] || [ $rc -eq 124 ] || [ "$said" -ne 1 ] || [ "$injob" -ne 0 ]; then
        failed "$what: the job ends with the reason of both processes, said once (exit $rc, said $said of 1, $injob in-job)" "$scratch/out"
    else
        echo "ok: $what: the job ends, saying"
        grep -m1 "^meridian: error: \[ranks 0-1 on $host\] the launcher could not" "$scratch/out" | sed 's/^/  /'
    fi
    ledger_empty "$what"
}
setp pnet_base_requests "id=data,type=tcp,endpts=0"
bad_input "requests that do not parse" \
    'pnet_base_requests from environment variable .*: expected endpts=N with N 1-65535, found "0"$' data:tcp:1
setp pnet_base_requests "id=data,type=tcp,endpts=80,required"
bad_input "a required value the node cannot meet" \
    "request \"data\": ENDPTS 80 is required but $host has 100 free tcp ports for 2 processes\$" data:tcp:80

# A component that does not exist fails Meridian's own start in the
# launcher; a program that links only libpmix still ends with a failure.
setp pnet_base_requests "id=data,type=tcp,endpts=1"
setp pnet tcp,nosuch
launch -np 2 "$PLUGIN_PEER" data:tcp:1 >"$scratch/out" 2>&1
rc=$?
said=$(grep -c 'meridian: error: .*nosuch' "$scratch/out")
# (Open MPI 5's mpirun ends the job when the first process fails, and the
# other may not get as far as saying it)
refused=$(grep -c '^FAIL: rank [01]: meridian.pnet.path is not "launcher": failed$' "$scratch/out")
if [ $rc -eq 0 ] || [ $rc -eq 124 ] || [ "$said" -lt 1 ] || [ "$refused" -lt 1 ]; then
    failed "a missing pnet component: the launcher says so and the processes find the failure (exit $rc)" "$scratch/out"
else
    echo "ok: a missing pnet component: the launcher says"
    grep -m1 'meridian: error: .*nosuch' "$scratch/out" | sed 's/^/  /'
fi
setp pnet tcp
ledger_empty "a missing component"

# ---------------------------------------------------------------- mismatch
PMIX_MCA_mca_base_component_path="$scratch/mismatch:$PMIX_COMPONENT_DIR"
setp pnet_base_requests "id=data,type=tcp,endpts=2"
launch -np 2 -x MERIDIAN_LIBRARY "$PMIX_READER" data:tcp:2 >"$scratch/out" 2>&1
rc=$?
warned=$(grep -c "^meridian: warning: the pnet plugin for libpmix (pmix_mca_pnet_meridian) was built for OpenPMIx 4\.2\.99 and this process runs OpenPMIx .*: it takes no part (rebuild Meridian against this libpmix); the job's processes set up the network themselves$" "$scratch/out")
injob=$(grep -c "meridian: pnet: process .*, node $host: set the job's network up in-job (2 processes)$" "$scratch/out")
ok=$(grep -c '^rank [01]: ok (read 2 ranks' "$scratch/out")
if [ $rc -ne 0 ] || [ "$warned" -lt 1 ] || [ "$injob" -ne 2 ] || [ "$ok" -ne 2 ]; then
    failed "a plugin built for another libpmix refuses, and the job sets its network up in-job (exit $rc, warned $warned, $injob of 2 in-job, $ok of 2 ok)" "$scratch/out"
else
    echo "ok: a plugin built for another libpmix takes no part; the job ran in-job"
    grep -m1 '^meridian: warning: the pnet plugin' "$scratch/out" | sed 's/^/  /'
fi
ledger_empty "mismatch"

# ---------------------------------------------------------------- the launcher's own request
PMIX_MCA_mca_base_component_path="$scratch/plugins:$PMIX_COMPONENT_DIR"
if [ "$ompi_major" -ge 5 ]; then
    unsetp pnet_base_requests
    unsetp pnet_base_launcher_requests
    launch -np 3 "$PLUGIN_PEER" @net:tcp:1:seckey >"$scratch/out" 2>&1
    rc=$?
    ok=$(grep -c '^rank [0-2]: ok (.*\.net tcp, no libmeridian here)$' "$scratch/out")
    keys=$(sed -n 's/^rank [0-2] seckey \([0-9a-f]\{32\}\)$/\1/p' "$scratch/out" | sort -u | wc -l)
    warned=$(grep -c 'warning' "$scratch/out")
    if [ $rc -ne 0 ] || [ "$ok" -ne 3 ] || [ "$keys" -ne 1 ] || [ "$warned" -ne 0 ]; then
        failed "mpirun's own request: each of 3 processes has its entry and one 16-byte key, and nothing is warned about (exit $rc, $ok of 3 ok, $keys keys, $warned warnings)" "$scratch/out"
    else
        echo "ok: mpirun's own request (<namespace>.net, a key): 3 processes hold its entry and one key; nothing warned"
    fi
    ledger_empty "the launcher's own request"
else
    echo "ok: the launcher's own request: skipped (Open MPI $ompi_major's mpirun asks for none)"
fi
exit $status
