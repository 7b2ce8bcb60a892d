#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# --bind decides each process's NIC order (carto distance from its package
# in the node's map: a NIC on the process's package is 10 away, one on the
# other package 30; ties in the node's NIC order) and so which data NIC its
# ports are on.  example.fabric's nodes have 2 packages of 4 cores; eth0 and
# mgmt0 hang off package 0, eth1 off package 1.
. "$TEST_LIB"

# package: ranks alternate packages, so odd ranks find eth1 nearest.
run_netmap --fabric "$example" --hosts node02:4 --bind package --request "$bulk"
expect_status 0
expect_err_empty
expect_out <<'END'
request  type  plane  endpts  qos  bandwidth  seckey  component
bulk     tcp   data   2       2    -          -       tcp

rank  node    bulk         nics             coordinates (logical)
   0  node02  32000-32001  eth0,mgmt0,eth1  data(0,0,0) mgmt(2,0,0) data(1,1,1)
   1  node02  32002-32003  eth1,eth0,mgmt0  data(1,1,1) data(0,0,0) mgmt(2,0,0)
   2  node02  32004-32005  eth0,mgmt0,eth1  data(0,0,0) mgmt(2,0,0) data(1,1,1)
   3  node02  32006-32007  eth1,eth0,mgmt0  data(1,1,1) data(0,0,0) mgmt(2,0,0)
END
run_netmap --fabric "$example" --hosts node02:2 --bind package --request "$bulk" --format json
expect_status 0
expect_out_line '{"rank":1,"node":"node02","ports":{"bulk":[32002,32003]},"devices":{"bulk":["eth1"]},"nics":["eth1","eth0","mgmt0"],"coords":[{"plane":"data","view":"logical","coord":[1,1,1]},{"plane":"data","view":"logical","coord":[0,0,0]},{"plane":"mgmt","view":"logical","coord":[2,0,0]}]}'

# none: no package is nearer, every process has the node's NIC order.
run_netmap --fabric "$example" --hosts node02:4 --bind none --request "$bulk"
expect_status 0
expect_err_empty
expect_out <<'END'
request  type  plane  endpts  qos  bandwidth  seckey  component
bulk     tcp   data   2       2    -          -       tcp

rank  node    bulk         nics             coordinates (logical)
   0  node02  32000-32001  eth0,eth1,mgmt0  data(0,0,0) data(1,1,1) mgmt(2,0,0)
   1  node02  32002-32003  eth0,eth1,mgmt0  data(0,0,0) data(1,1,1) mgmt(2,0,0)
   2  node02  32004-32005  eth0,eth1,mgmt0  data(0,0,0) data(1,1,1) mgmt(2,0,0)
   3  node02  32006-32007  eth0,eth1,mgmt0  data(0,0,0) data(1,1,1) mgmt(2,0,0)
END

# core (the default): local rank i on core i, cores 0-3 on package 0 and
# 4-7 on package 1.
run_netmap --fabric "$example" --hosts node02 --bind core
expect_status 0
expect_err_empty
expect_out <<'END'
rank  node    nics             coordinates (logical)
   0  node02  eth0,mgmt0,eth1  data(0,0,0) mgmt(2,0,0) data(1,1,1)
   1  node02  eth0,mgmt0,eth1  data(0,0,0) mgmt(2,0,0) data(1,1,1)
   2  node02  eth0,mgmt0,eth1  data(0,0,0) mgmt(2,0,0) data(1,1,1)
   3  node02  eth0,mgmt0,eth1  data(0,0,0) mgmt(2,0,0) data(1,1,1)
   4  node02  eth1,eth0,mgmt0  data(1,1,1) data(0,0,0) mgmt(2,0,0)
   5  node02  eth1,eth0,mgmt0  data(1,1,1) data(0,0,0) mgmt(2,0,0)
   6  node02  eth1,eth0,mgmt0  data(1,1,1) data(0,0,0) mgmt(2,0,0)
   7  node02  eth1,eth0,mgmt0  data(1,1,1) data(0,0,0) mgmt(2,0,0)
END
run_netmap --fabric "$example" --hosts node02
cp "$out" "$scratch/default"
run_netmap --fabric "$example" --hosts node02 --bind CORE
cmp -s "$out" "$scratch/default" || fail "--bind core is not the default"

finish
