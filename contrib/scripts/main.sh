#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set up everything on a fresh Debian 12 machine and run Meridian's main job:
# meridian_info (frameworks, components, parameters), the host's map, then the
# network resources and coordinates of a job on the example fabric, then a QMP
# program (a 4-D lattice halo exchange) on 2 processes under mpirun.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
"$top/contrib/scripts/deps.sh"
# One progress line for the build (its log in build/build.log), and only
# what this script runs: not the test tree.
"$top/contrib/scripts/build.sh" --quiet --no-tests
if ! make -C "$top/build" install SUBDIRS=. >>"$top/build/build.log" 2>&1; then
    echo "make install failed; the end of $top/build/build.log:" >&2
    tail -n 40 "$top/build/build.log" >&2
    exit 1
fi
echo
echo "== meridian_info =="
"$top/build/prefix/bin/meridian_info" "$@"
echo
echo "== meridian_carto graph (this machine's map, component auto on hwloc) =="
"$top/build/prefix/bin/meridian_carto" graph
echo
echo "== meridian_carto distance Slot0 =="
"$top/build/prefix/bin/meridian_carto" distance Slot0
echo
echo "== meridian_carto with the carto requirements' figure 3: distance Slot1 --type MEM =="
"$top/build/prefix/bin/meridian_carto" --mca carto_file_path "$top/contrib/carto/figure3.carto" \
    distance Slot1 --type MEM
echo
echo "== meridian_netmap: a job of 8 processes on contrib/fabric/example.fabric, two requests =="
"$top/build/prefix/bin/meridian_netmap" --fabric "$top/contrib/fabric/example.fabric" \
    --hosts node01:4,node02:4 --bind package \
    --request id=bulk,type=tcp,plane=data,endpts=2,qos=2,required \
    --request id=ctl,type=tcp,plane=mgmt,seckey
echo
echo "== QMP: contrib/examples/qmp_halo.c, built with qmp-config, a 4-D halo exchange on 2 processes (mpirun -np 2) =="
mkdir -p "$top/build/examples"
make -s -C "$top/build/examples" -f "$top/contrib/examples/Makefile" QMP_CONFIG="$top/build/prefix/bin/qmp-config"
if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
mpirun -np 2 "$top/build/examples/qmp_halo"
