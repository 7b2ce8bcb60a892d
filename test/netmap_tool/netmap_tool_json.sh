#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The JSON output read back (check_netmap_json): what must hold for any job
# -- every process has its ports for every request, no port twice on one
# node, one coordinate per NIC -- on example.fabric with every binding, and
# on a generated fabric of 1000 nodes and 10^4 processes whose pools come
# from pnet_tcp_static_ports (no ports= in the file).  The big job must be
# quick: the tool streams its output and does no per-pair work.
. "$TEST_LIB"

check()
{
    "$CHECK_NETMAP_JSON" "$out" "$@" >"$scratch/check" || fail "check_netmap_json: $(cat "$scratch/check")"
}

for bind in core package none; do
    run_netmap --fabric "$example" --hosts node01:8,node02:8,node03:8,node04:8 --bind "$bind" \
        --request "$bulk" --request "$ctl" --request id=third,plane=data,endpts=3 --format json
    expect_status 0
    expect_err_empty
    check --procs 32 --nics 3
done

# 1000 nodes: 2 planes, switches of 32 nodes, one NIC per plane.
awk 'BEGIN {
    print "fabric generated"
    print "plane data cidr=10.0.0.0/8"
    print "plane mgmt cidr=172.16.0.0/12"
    for (s = 0; s < 32; s++) { print "switch data-" s " plane=data"; print "switch mgmt-" s " plane=mgmt" }
    for (n = 0; n < 1000; n++) {
        print "node n" n " packages=2 cores=10"
        # Host addresses from .1: the .0 of each network is no host address.
        h = n + 1
        print "nic n" n " eth0 plane=data address=10.0." int(h / 256) "." h % 256 " switch=data-" int(n / 32) " package=0"
        print "nic n" n " mgmt0 plane=mgmt address=172.16." int(h / 256) "." h % 256 " switch=mgmt-" int(n / 32) " package=1"
    }
}' >"$scratch/big.fabric"
hosts=$(awk 'BEGIN { for (n = 0; n < 1000; n++) printf "%sn%d:10", (n ? "," : ""), n }')

run_netmap --fabric "$scratch/big.fabric" --hosts "$hosts" --mca pnet_tcp_static_ports 'tcp:32000-32999' \
    --request id=bulk,plane=data,endpts=2 --request id=ctl,plane=mgmt,seckey --format json
expect_status 0
expect_err_empty
check --procs 10000 --nics 2
expect_out_line '{"rank":9999,"node":"n999","ports":{"bulk":[32018,32019],"ctl":[32029]},"devices":{"bulk":["eth0"],"ctl":["mgmt0"]},"nics":["mgmt0","eth0"],"coords":[{"plane":"mgmt","view":"logical","coord":[1,31,0]},{"plane":"data","view":"logical","coord":[0,31,0]}]}'

# The table of the same job: one line per process after the headers.
run_netmap --fabric "$scratch/big.fabric" --hosts "$hosts" --mca pnet_tcp_static_ports 'tcp:32000-32999' \
    --request id=bulk,plane=data,endpts=2 --request id=ctl,plane=mgmt,seckey
expect_status 0
expect_err_empty
[ "$(wc -l <"$out")" -eq 10005 ] || fail "the table has $(wc -l <"$out") lines, expected 10005"
expect_out_line '9999  n999  32018-32019  32029  mgmt0,eth0  mgmt(1,31,0) data(0,31,0)'

finish
