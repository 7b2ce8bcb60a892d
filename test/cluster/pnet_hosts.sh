#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
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
#   - the coordinates-updated event reaches every process on every host
#     (through each other host's relay), in-job and in the launcher's path;
#   - two jobs at once on the same hosts share no static port on any host
#     (the port ledger, which keeps each host's entries apart), and the
#     ledger is empty once both are done.
# Needs root, iproute2 and mpirun with PMIx; skipped otherwise.
# shellcheck disable=SC2154 # srcdir comes from the environment (make check)
# shellcheck source=test/support/hosts_test_lib.sh
. "$srcdir/../support/hosts_test_lib.sh"
# shellcheck source=test/support/mpi_test_lib.sh
. "$srcdir/../support/mpi_test_lib.sh"
if [ $mpi != yes ]; then
    echo "SKIP: needs mpirun and Meridian built with PMIx"
    exit 77
fi
MERIDIAN_CLUSTER=p$$
export MERIDIAN_CLUSTER
C=$CLUSTER
# shellcheck source=test/cluster/hosts_checks.sh
. "$srcdir/hosts_checks.sh"
hosts_up pnet-hosts

hosts_params "$ledger"

# mpirun in h1; its daemons reach h2 and h3 through the cluster's agent.
# Every process inherits this environment (the agent keeps it).
# shellcheck disable=SC2317 # called through run_one_job and the others
cluster_mpirun() {
    timeout -s KILL 120 "$C" exec h1 "$MPIRUN" --host h1:2,h2:2,h3:2 \
        --mca plm_rsh_agent "$C agent" --mca oob_tcp_if_include 10.77.0.0/24 "$@"
}

run_one_job cluster_mpirun
run_reader cluster_mpirun -x MERIDIAN_LIBRARY
run_event cluster_mpirun
run_messages cluster_mpirun

# Two jobs at once on the same hosts: no port on a host given to both.
run_two_jobs cluster_mpirun

# The launcher's path: mpirun with instant-on support, and the pnet plugin
# for libpmix in mpirun and in the daemons of h2 and h3 (the agent keeps the
# environment, PMIX_MCA_* too).  Each daemon sets up its own host's share:
# plugin_peer (libpmix only) on every host reads its own results without a
# fence, its endpoints on its host's data address, ports unique on each
# host; the processes of pmix_reader say they ran no pipeline; and
# cluster_peer's checks hold: coordinates and costs from the job's fabric,
# assembled from each host's published inventory on the first query.
if [ "$HAVE_PMIX_PLUGIN" = yes ]; then
    mkdir -p "$scratch/plugins"
    ln -s "$PLUGIN" "$scratch/plugins/pmix_mca_pnet_meridian.so"
    PMIX_MCA_mca_base_component_path="$scratch/plugins:$PMIX_COMPONENT_DIR"
    PMIX_MCA_pnet_meridian_library=$MERIDIAN_LIBRARY_SO
    export PMIX_MCA_mca_base_component_path PMIX_MCA_pnet_meridian_library
    # Open MPI 5's mpirun calls the plugin for every job, and hands its
    # daemons libpmix's parameters on their command line, where a component
    # path finds nothing: libpmix's param file in HOME names the plugin
    # there (as a site's pmix-mca-params.conf does), in a HOME of this
    # test's own.  The cases are about pnet_base_requests: mpirun's own
    # request is left out.  4.1 needs instant-on support, and its daemons
    # take the environment.
    saved_home=$HOME
    if [ "${ompi_major:-4}" -ge 5 ]; then
        instant_on=""
        HOME=$scratch/home
        export HOME
        mkdir -p "$HOME/.pmix" || exit 1
        echo "mca_base_component_path = $PMIX_MCA_mca_base_component_path" >"$HOME/.pmix/mca-params.conf"
        setp pnet_base_launcher_requests no
    else
        instant_on="--mca orte_enable_instant_on_support 1"
    fi
    out=$scratch/plugin.out
    # shellcheck disable=SC2086 # two words or none
    cluster_mpirun $instant_on "$PLUGIN_PEER" data:tcp:2 >"$out" 2>&1
    rc=$?
    ok=$(grep -c '^rank [0-5]: ok (data tcp, no libmeridian here)$' "$out")
    placed=0
    for r in 0 1 2 3 4 5; do
        i=$((r / 2 + 1))
        grep -q "^rank $r endpoints 10\.77\.0\.$i:320[0-9][0-9],10\.77\.0\.$i:320[0-9][0-9]\$" "$out" &&
            placed=$((placed + 1))
    done
    dup=0
    for i in 1 2 3; do
        a=$(((i - 1) * 2))
        b=$((a + 1))
        n=$(sed -n "s/^rank [$a$b] ports //p" "$out" | tr ',' '\n' | sort | uniq -d | wc -l)
        dup=$((dup + n))
    done
    if [ $rc -ne 0 ] || [ "$ok" -ne 6 ] || [ "$placed" -ne 6 ] || [ "$dup" -ne 0 ]; then
        fail "the launcher's path on 3 hosts: every process reads its own results, on its host's address, ports unique per host (exit $rc, $ok of 6 ok, $placed of 6 placed, $dup shared):"
        sed 's/^/  /' "$out"
    else
        echo "ok: the launcher's path on 3 hosts: each daemon set up its host; 6 processes read their results"
        grep '^rank [0-5] endpoints' "$out" | sort | sed 's/^/  /'
    fi
    # What a process reads of the processes of other hosts in that path
    # (their results, each host's inventory for coordinates and costs),
    # published without a fence: under Open MPI 5 some of it is not found
    # or not in time (README, "Where the network is set up"), a gap the
    # note of this round names; checked under 4.1.
    if [ "${ompi_major:-4}" -ge 5 ]; then
        echo "skipped: the launcher's path on 3 hosts, reading other hosts' processes, under Open MPI $ompi_major (a known gap)"
    else
        setp pnet_base_verbose 1
        # shellcheck disable=SC2086 # two words or none
        cluster_mpirun $instant_on -x MERIDIAN_LIBRARY "$PMIX_READER" data:tcp:2 >"$out" 2>&1
        rc=$?
        quiet=$(grep -c "the launcher set the job's network up (pnet plugin for libpmix); this process ran no pipeline\$" "$out")
        injob=$(grep -c 'in-job' "$out")
        if [ $rc -ne 0 ] || [ "$quiet" -ne 6 ] || [ "$injob" -ne 0 ]; then
            fail "the launcher's path on 3 hosts: no process runs a pipeline, every rank's results are read (exit $rc, $quiet of 6 ran none):"
            sed 's/^/  /' "$out"
        else
            echo "ok: the launcher's path on 3 hosts: 6 processes ran no pipeline and read every rank's results"
        fi
        unsetp pnet_base_verbose
        # Queries in that path: every process answers coordinates and costs to
        # every other from the job's fabric (each host's published inventory)
        # and its endpoints from what each published -- the same answers as
        # in-job (check_one_job).
        # shellcheck disable=SC2317 # called through run_one_job
        # shellcheck disable=SC2086 # two words or none
        cluster_mpirun_instant() { cluster_mpirun $instant_on "$@"; }
        run_one_job cluster_mpirun_instant
        # The coordinates-updated event in that path: every host through the
        # relays of h2 and h3.
        run_event cluster_mpirun_instant
    fi
    unset PMIX_MCA_mca_base_component_path PMIX_MCA_pnet_meridian_library
    unsetp pnet_base_launcher_requests
    HOME=$saved_home
    check_ledger_empty "$ledger"
fi

exit $status
