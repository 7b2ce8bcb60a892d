#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The launcher's path (meridian_pnet_pmix_proc_data): pmix_launcher, a PMIx
# server, runs the pnet pipeline through the C API for a job of two nodes
# of contrib/fabric/example.fabric (two processes each), registers each
# process's results in its PMIX_PROC_DATA and starts the four processes as
# plain PMIx clients (pmix_launched, libpmix only) on this host.  Every
# client must read, for every rank, what the launcher found through the
# assignments and coord's C API: each request's type and ports,
# meridian.net.endpt, pmix.fab.endpt (NIC and endpoint) and
# meridian.net.coord; and for each node pmix.fab.coord (plane, NIC,
# coordinates), registered in the node's info.
if [ "$HAVE_PMIX" != yes ]; then
    echo "SKIP: Meridian built without PMIx"
    exit 77
fi
setp() { eval "${MCA_ENV_PREFIX}$1=\$2; export ${MCA_ENV_PREFIX}$1"; }

scratch=$(pwd)/pmix-launcher-scratch.$$
cleanup() { rm -rf "$scratch"; }
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
mkdir -p "$scratch/tmp" || exit 1
setp pnet_tcp_ledger "$scratch/ports"
# PMIx 5's shared-memory store (gds shmem2) misreads the keys outside PMIx's
# dictionary that a server registers for a process (base.h,
# meridian_pnet_pmix_proc_data): the launcher and its clients use libpmix's
# own table, as every 4.x does.
PMIX_MCA_gds=hash
export PMIX_MCA_gds

requests="id=bulk,type=tcp,plane=data,endpts=2;id=ctl,type=tcp,plane=mgmt,endpts=1"
"$PMIX_LAUNCHER" "$EXAMPLE_FABRIC" "$requests" node01,node02 "$scratch/expected" \
    "$scratch/tmp" "$PMIX_LAUNCHED" >"$scratch/out" 2>&1
rc=$?
status=0
if [ $rc -ne 0 ] || grep -q '^FAIL' "$scratch/out"; then
    echo "FAIL: pmix_launcher (exit $rc):"
    cat "$scratch/out"
    exit 1
fi
sort "$scratch/expected" >"$scratch/want"
# The expectation itself must say something: 4 ranks x 2 requests,
# endpoints on the NICs of both nodes, and the coordinates of both nodes'
# three NICs.
requests_seen=$(grep -c ' request ' "$scratch/want")
endpoints_seen=$(grep -c '^[0-9]* fab\.endpt node0[12]:[a-z0-9]* [a-z0-9]* 10\.[12]0\.[0-9.]*:3[23][0-9]*$' "$scratch/want")
coords_seen=$(grep -c '^node node0[12] fab\.coord [01] node0[12]:[a-z0-9]* [a-z0-9]* logical:(' "$scratch/want")
process_coords=$(grep -c '^[0-9]* meridian\.net\.coord logical:(' "$scratch/want")
if [ "$requests_seen" -ne 8 ] || [ "$endpoints_seen" -lt 12 ] || [ "$coords_seen" -ne 6 ] ||
    [ "$process_coords" -ne 4 ]; then
    echo "FAIL: the launcher's expectation is short ($requests_seen request lines of 8," \
        "$endpoints_seen endpoints of >= 12, $coords_seen NIC coordinates of 6," \
        "$process_coords process coordinates of 4):"
    cat "$scratch/want"
    exit 1
fi
for rank in 0 1 2 3; do
    sed -n "s/^$rank| //p" "$scratch/out" | sort >"$scratch/got.$rank"
    if ! diff "$scratch/want" "$scratch/got.$rank" >"$scratch/diff.$rank"; then
        echo "FAIL: process $rank read other results than the launcher registered" \
            "(< launcher, > PMIx_Get):"
        cat "$scratch/diff.$rank"
        status=1
    else
        echo "ok: process $rank read every rank's results ($(wc -l <"$scratch/want") lines)"
    fi
done
[ $status -eq 0 ] && sed 's/^/  /' "$scratch/want"
exit $status
