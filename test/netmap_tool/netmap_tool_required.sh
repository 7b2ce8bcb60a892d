#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Required against best effort.  example.fabric's nodes have 16 ports on the
# mgmt network and one QoS level there.  A required value that cannot be met
# fails the whole allocation (exit status 1, the message naming the request,
# the value and why, nothing on standard output, even for the requests that
# could be served); the same value asked for without "required" is served as
# well as it can be, with a warning saying what was given instead.
. "$TEST_LIB"

ctl5='id=ctl,type=tcp,plane=mgmt,endpts=5'

# 4 processes x 5 ports > 16: "required" marks every value given.
run_netmap --fabric "$example" --hosts node01:4 --request "$bulk" --request "$ctl5,required"
expect_failure 'request "ctl": ENDPTS 5 is required but node01 has 16 free tcp ports on 10.20.0.0/16 for 4 processes'

# "!" marks one value.
run_netmap --fabric "$example" --hosts node01:4 --request "$bulk" --request "id=ctl,type=tcp,plane=mgmt,endpts=5!,qos=3"
expect_failure 'request "ctl": ENDPTS 5 is required but node01 has 16 free tcp ports on 10.20.0.0/16 for 4 processes'
run_netmap --fabric "$example" --hosts node01:4 --request "id=ctl,type=tcp,plane=mgmt,endpts=2,qos=3!"
expect_failure 'request "ctl": QOS 3 is required but plane mgmt has only QoS level 0'

# Required type and plane.
run_netmap --fabric "$example" --hosts node01:2 --request id=u,type=opa,required
expect_failure "request \"u\": TYPE opa is required but no pnet component serves it ($PNET_TYPES)"
run_netmap --fabric "$example" --hosts node01:2 --request id=u,plane=ib0,required
expect_failure 'request "u": PLANE ib0 is required but the fabric has no such plane (planes: data, mgmt)'

# Best effort: each process gets a share of the 16 ports.
run_netmap --fabric "$example" --hosts node01:4 --request "$bulk" --request "$ctl5"
expect_status 0
expect_err <<'END'
meridian: warning: request "ctl": ENDPTS 5 is not met: node01 has 16 free tcp ports on 10.20.0.0/16 for 4 processes; processes get what is free
END
expect_out <<'END'
request  type  plane  endpts  qos  bandwidth  seckey  component
bulk     tcp   data   2       2    -          -       tcp
ctl      tcp   mgmt   4 of 5  -    -          -       tcp

rank  node    bulk         ctl          nics             coordinates (logical)
   0  node01  32000-32001  33000-33003  eth0,mgmt0,eth1  data(0,0,0) mgmt(2,0,0) data(1,1,1)
   1  node01  32002-32003  33004-33007  eth0,mgmt0,eth1  data(0,0,0) mgmt(2,0,0) data(1,1,1)
   2  node01  32004-32005  33008-33011  eth0,mgmt0,eth1  data(0,0,0) mgmt(2,0,0) data(1,1,1)
   3  node01  32006-32007  33012-33015  eth0,mgmt0,eth1  data(0,0,0) mgmt(2,0,0) data(1,1,1)
END
run_netmap --fabric "$example" --hosts node01:4 --request "$bulk" --request "$ctl5" --format json
expect_status 0
"$CHECK_NETMAP_JSON" "$out" --procs 4 --best-effort >"$scratch/check" || fail "check_netmap_json: $(cat "$scratch/check")"
expect_out_line '{"id":"ctl","type":"tcp","plane":"mgmt","endpts":5,"endpts_given":[4,4],"qos":null,"bandwidth_mbps":null,"seckey_bytes":0,"component":"tcp"}'

# Shares that differ: 16 ports for 3 processes asking 6 each give 6, 5, 5.
run_netmap --fabric "$example" --hosts node01:3 --request id=ctl,type=tcp,plane=mgmt,endpts=6
expect_status 0
expect_out_line 'ctl      tcp   mgmt   5-6 of 6  -    -          -       tcp'
expect_out_line '   0  node01  33000-33005  eth0,mgmt0,eth1  data(0,0,0) mgmt(2,0,0) data(1,1,1)'
expect_out_line '   2  node01  33011-33015  eth0,mgmt0,eth1  data(0,0,0) mgmt(2,0,0) data(1,1,1)'
run_netmap --fabric "$example" --hosts node01:3 --request id=ctl,type=tcp,plane=mgmt,endpts=6 --format json
expect_status 0
"$CHECK_NETMAP_JSON" "$out" --procs 3 --best-effort >"$scratch/check" || fail "check_netmap_json: $(cat "$scratch/check")"
expect_out_line '{"id":"ctl","type":"tcp","plane":"mgmt","endpts":6,"endpts_given":[5,6],"qos":null,"bandwidth_mbps":null,"seckey_bytes":0,"component":"tcp"}'

# Best effort: the highest QoS level the plane has; the default type.
run_netmap --fabric "$example" --hosts node01:1 --request id=ctl,type=tcp,plane=mgmt,qos=3 --request id=u,type=opa,plane=data
expect_status 0
expect_err <<END
meridian: warning: request "u": no pnet component serves TYPE opa ($PNET_TYPES); using tcp
meridian: warning: request "ctl": QOS 3 is not available: plane mgmt has only QoS level 0; assigned 0
END
expect_out <<'END'
request  type  plane  endpts  qos  bandwidth  seckey  component
ctl      tcp   mgmt   1       0    -          -       tcp
u        tcp   data   1       -    -          -       tcp

rank  node    ctl    u      nics             coordinates (logical)
   0  node01  33000  32000  eth0,mgmt0,eth1  data(0,0,0) mgmt(2,0,0) data(1,1,1)
END

finish
