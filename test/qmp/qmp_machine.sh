#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The allocated machine (SWITCH; MESH from -qmp-geom or from coord's torus
# placement, with -qmp-alloc-map; jobs from -qmp-job), logical topologies and QMP_layout_grid (with
# -qmp-logic-map, with -qmp-geom and a job grid), and communicators: alone
# and under mpirun with 1, 2 and 4 processes.
# shellcheck source=qmp_lib.sh
. "$QMP_TEST_SRC/qmp_lib.sh"

# A plain run is a switched machine; every process of a test is on this host.
qmp_run "machine, alone" 0 qmp_machine_test app-np=1 app-smp=1
for np in 1 2 4; do
    qmp_run "machine, np=$np" $np qmp_machine_test app-np=$np
done
# -qmp-geom makes a MESH of the given shape; -qmp-alloc-map orders it.
qmp_run "machine, alone, -qmp-geom 1 1 1 1" 0 qmp_machine_test app-np=1 app-smp=1 \
    -qmp-geom 1 1 1 1 app-geom=1x1x1x1
qmp_run "machine, np=2, -qmp-geom 1 2" 2 qmp_machine_test app-np=2 -qmp-geom 1 2 app-geom=1x2
qmp_run "machine, np=4, -qmp-geom 2 2" 4 qmp_machine_test app-np=4 -qmp-geom 2 2 app-geom=2x2
qmp_run "machine, np=4, -qmp-geom 2 2 -qmp-alloc-map 1 0" 4 qmp_machine_test app-np=4 \
    -qmp-geom 2 2 -qmp-alloc-map 1 0 app-geom=2x2 app-amap=1,0
# -qmp-job: jobs by rank on a switch, by allocated coordinates on a mesh.
qmp_run "machine, np=4, -qmp-job 2" 4 qmp_machine_test app-np=4 -qmp-job 2 app-job=2
qmp_run "machine, np=4, -qmp-geom 2 2 -qmp-job 2 1" 4 qmp_machine_test app-np=4 \
    -qmp-geom 2 2 -qmp-job 2 1 app-geom=2x2 app-job=2x1
qmp_run "machine, np=4, -qmp-geom 2 2 -qmp-alloc-map 1 0 -qmp-job 1 2" 4 qmp_machine_test \
    app-np=4 -qmp-geom 2 2 -qmp-alloc-map 1 0 -qmp-job 1 2 app-geom=2x2 app-amap=1,0 app-job=1x2

# coord's torus placement (coord_torus with a shape for the tcp plane; the
# in-job pipeline places this host): one node, so the grid is the node's
# 1x1 box and the processes of the node as one more dimension.
qmp_setp coord torus,tcp
qmp_setp coord_torus_shape 2x2
qmp_run "machine, alone, coord torus" 0 qmp_machine_test app-np=1 app-smp=1 app-torus=1x1
if [ "$(qmp_host_of 0)" = "$(qmp_host_of 1)" ]; then
    qmp_run "machine, np=2, coord torus" 2 qmp_machine_test app-np=2 app-torus=1x1x2
    qmp_run "machine, np=4, coord torus" 4 qmp_machine_test app-np=4 app-torus=1x1x4
    # -qmp-alloc-map permutes the axes of a machine coord placed.
    qmp_run "machine, np=4, coord torus, -qmp-alloc-map 2 0 1" 4 qmp_machine_test app-np=4 \
        -qmp-alloc-map 2 0 1 app-torus=1x4x1
else
    echo "SKIP: machine from coord's torus, np=2 and 4: these expect every process on one host"
fi
qmp_run "layouts, np=4, coord torus" 4 qmp_topology_test
qmp_unsetp coord
qmp_unsetp coord_torus_shape

for np in $QMP_SHAPES; do
    qmp_run "topology and layouts, np=$np" "$np" qmp_topology_test
done
qmp_run "topology 2x2, np=4" 4 qmp_topology_test app-dims=2x2
qmp_run "topology 1x4x1x1, np=4" 4 qmp_topology_test app-dims=1x4x1x1
qmp_run "topology 2x1, np=2, -qmp-logic-map 1 0" 2 qmp_topology_test app-dims=2x1 \
    -qmp-logic-map 1 0 app-lmap=1,0
qmp_run "topology 1x2x2, np=4, -qmp-logic-map 2 0 1" 4 qmp_topology_test app-dims=1x2x2 \
    -qmp-logic-map 2 0 1 app-lmap=2,0,1
# A MESH without a job grid lays out as a switch does (QMP 2.5); with one,
# the layout takes the job grid.
qmp_run "layouts, np=4, -qmp-geom 2 2" 4 qmp_topology_test -qmp-geom 2 2
qmp_run "layouts, np=4, -qmp-geom 2 2 -qmp-job 1 1" 4 qmp_topology_test -qmp-geom 2 2 \
    -qmp-job 1 1 app-jobgrid=2x2

for np in $QMP_SHAPES; do
    qmp_run "communicators, np=$np" "$np" qmp_comm_test
done
exit $qmp_status
