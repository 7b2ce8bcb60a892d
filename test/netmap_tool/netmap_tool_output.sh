#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The two-request job of contrib/fabric/example.fabric (the help text's
# example) in both formats, pinned exactly: ports per process from each
# node's own pools (data 32000-32063, mgmt 33000-33015; the same numbers on
# two nodes, never twice on one), NICs nearest first from package 0 (where
# --bind core puts ranks 0-1 of 8 cores), coord_tcp's coordinates (x = NIC
# index on the node, y = switch, z = subnet: node03's mgmt0 is on switch
# mgmt-b, eth1 on rail1 in 10.10.2.0/24), and the requests as served (the
# key's length, never its bytes).
. "$TEST_LIB"

run_netmap --fabric "$example" --hosts node01:2,node03:2 --request "$bulk" --request "$ctl"
expect_status 0
expect_err_empty
expect_out <<'END'
request  type  plane  endpts  qos  bandwidth  seckey    component
bulk     tcp   data   2       2    -          -         tcp
ctl      tcp   mgmt   1       -    -          16 bytes  tcp

rank  node    bulk         ctl    nics             coordinates (logical)
   0  node01  32000-32001  33000  eth0,mgmt0,eth1  data(0,0,0) mgmt(2,0,0) data(1,1,1)
   1  node01  32002-32003  33001  eth0,mgmt0,eth1  data(0,0,0) mgmt(2,0,0) data(1,1,1)
   2  node03  32000-32001  33000  eth0,mgmt0,eth1  data(0,0,0) mgmt(2,1,0) data(1,1,1)
   3  node03  32002-32003  33001  eth0,mgmt0,eth1  data(0,0,0) mgmt(2,1,0) data(1,1,1)
END

run_netmap --fabric "$example" --hosts node01:2,node03:2 --request "$bulk" --request "$ctl" --format json
expect_status 0
expect_err_empty
expect_out <<'END'
{"procs":[
{"rank":0,"node":"node01","ports":{"bulk":[32000,32001],"ctl":[33000]},"devices":{"bulk":["eth0"],"ctl":["mgmt0"]},"nics":["eth0","mgmt0","eth1"],"coords":[{"plane":"data","view":"logical","coord":[0,0,0]},{"plane":"mgmt","view":"logical","coord":[2,0,0]},{"plane":"data","view":"logical","coord":[1,1,1]}]},
{"rank":1,"node":"node01","ports":{"bulk":[32002,32003],"ctl":[33001]},"devices":{"bulk":["eth0"],"ctl":["mgmt0"]},"nics":["eth0","mgmt0","eth1"],"coords":[{"plane":"data","view":"logical","coord":[0,0,0]},{"plane":"mgmt","view":"logical","coord":[2,0,0]},{"plane":"data","view":"logical","coord":[1,1,1]}]},
{"rank":2,"node":"node03","ports":{"bulk":[32000,32001],"ctl":[33000]},"devices":{"bulk":["eth0"],"ctl":["mgmt0"]},"nics":["eth0","mgmt0","eth1"],"coords":[{"plane":"data","view":"logical","coord":[0,0,0]},{"plane":"mgmt","view":"logical","coord":[2,1,0]},{"plane":"data","view":"logical","coord":[1,1,1]}]},
{"rank":3,"node":"node03","ports":{"bulk":[32002,32003],"ctl":[33001]},"devices":{"bulk":["eth0"],"ctl":["mgmt0"]},"nics":["eth0","mgmt0","eth1"],"coords":[{"plane":"data","view":"logical","coord":[0,0,0]},{"plane":"mgmt","view":"logical","coord":[2,1,0]},{"plane":"data","view":"logical","coord":[1,1,1]}]}
],
"requests":[
{"id":"bulk","type":"tcp","plane":"data","endpts":2,"endpts_given":[2,2],"qos":2,"bandwidth_mbps":null,"seckey_bytes":0,"component":"tcp"},
{"id":"ctl","type":"tcp","plane":"mgmt","endpts":1,"endpts_given":[1,1],"qos":null,"bandwidth_mbps":null,"seckey_bytes":16,"component":"tcp"}
]}
END
"$CHECK_NETMAP_JSON" "$out" --procs 4 --nics 3 >"$scratch/check" || fail "check_netmap_json: $(cat "$scratch/check")"

# Formats and views in any case; no request: NICs and coordinates only.
run_netmap --fabric "$example" --hosts node04:1 --format JSON --view Logical
expect_status 0
expect_err_empty
expect_out <<'END'
{"procs":[
{"rank":0,"node":"node04","ports":{},"nics":["eth0","mgmt0","eth1"],"coords":[{"plane":"data","view":"logical","coord":[0,0,0]},{"plane":"mgmt","view":"logical","coord":[2,1,0]},{"plane":"data","view":"logical","coord":[1,1,1]}]}
],
"requests":[]}
END

# Bandwidth and QoS as assigned: a rate in the table, Mbit/s in JSON.
run_netmap --fabric "$example" --hosts node02:1 --request id=fast,plane=10.10.0.0/16,qos=3,bw=2.5G
expect_status 0
expect_err_empty
expect_out <<'END'
request  type  plane  endpts  qos  bandwidth  seckey  component
fast     tcp   data   1       3    2.5 Gb/s   -       tcp

rank  node    fast   nics             coordinates (logical)
   0  node02  32000  eth0,mgmt0,eth1  data(0,0,0) mgmt(2,0,0) data(1,1,1)
END
run_netmap --fabric "$example" --hosts node02:1 --request id=fast,plane=10.10.0.0/16,qos=3,bw=2.5G --format json
expect_status 0
expect_out_line '{"id":"fast","type":"tcp","plane":"data","endpts":1,"endpts_given":[1,1],"qos":3,"bandwidth_mbps":2500,"seckey_bytes":0,"component":"tcp"}'

finish
