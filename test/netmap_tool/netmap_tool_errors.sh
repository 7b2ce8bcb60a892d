#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# What goes wrong once the command line is right: a fabric file that cannot
# be read or has a mistake (file:line:column, what was expected, what was
# found), a host list that does not fit the fabric (--hosts:column), a bad
# port pool parameter, coordinates in a view the fabric has not got.  Exit
# status 1, one message, nothing on standard output.
. "$TEST_LIB"

# The fabric file.
run_netmap --fabric "$scratch/nosuch.fabric" --hosts node01:2
expect_failure "cannot read the fabric file $scratch/nosuch.fabric: No such file or directory"
run_netmap --fabric "$scratch" --hosts node01:2
expect_failure "cannot read the fabric file $scratch: Is a directory"
run_netmap --fabric /dev/zero --hosts node01:2
expect_failure "cannot read the fabric file /dev/zero: File too large (a fabric file is at most 64 MiB)"
run_netmap --fabric /proc/self/mem --hosts node01:2
expect_failure "cannot read the fabric file /proc/self/mem: Input/output error"

cat >"$scratch/typo.fabric" <<'END'
# a typo in an attribute
plane data cidr=10.10.0.0/16
node a ports=tcp:32000-32009
nic a eth0 plane=data adress=10.10.0.1
END
run_netmap --fabric "$scratch/typo.fabric" --hosts a
expect_failure "$scratch/typo.fabric:4:23: expected an attribute KEY=VALUE of nic (plane, address, switch, speed, package, coord), found \"adress\""

cat >"$scratch/plane.fabric" <<'END'
plane data cidr=10.10.0.0/16
node a
nic a eth0 plane=dta
END
run_netmap --fabric "$scratch/plane.fabric" --hosts a
expect_failure "$scratch/plane.fabric:3:18: unknown plane \"dta\" (defined: data)"

cat >"$scratch/address.fabric" <<'END'
plane data cidr=10.10.0.0/16
node a
nic a eth0 plane=data address=10.20.0.1
END
run_netmap --fabric "$scratch/address.fabric" --hosts a
expect_failure "$scratch/address.fabric:3:31: expected an address in a subnet of plane \"data\", found 10.20.0.1 (the plane has no subnets)"

cat >"$scratch/ports.fabric" <<'END'
plane data cidr=10.10.0.0/16
node a ports=tcp:70000
END
run_netmap --fabric "$scratch/ports.fabric" --hosts a
expect_failure "$scratch/ports.fabric:2:18: expected a port 1-65535, found \"70000\""

# The host list against the fabric.
run_netmap --fabric "$example" --hosts node01:2,nod03:2
expect_failure '--hosts:10: unknown node "nod03" (defined: node01, node02, node03, node04)'
run_netmap --fabric "$example" --hosts node01:2,node01:2
expect_failure '--hosts:10: expected each node once, found "node01" again (first at column 1)'
run_netmap --fabric "$example" --hosts node01:0
expect_failure '--hosts:8: expected a process count 1-10000000 after "node01:", found "0"'
run_netmap --fabric "$example" --hosts ''
expect_failure '--hosts:1: expected a node name, found end of text'

# The port pool parameter, for nodes without ports= of their own.
cat >"$scratch/noports.fabric" <<'END'
plane data cidr=10.10.0.0/16
node a
nic a eth0 plane=data address=10.10.0.1
END
run_netmap --fabric "$scratch/noports.fabric" --hosts a --request id=x --mca pnet_tcp_static_ports tcp:5000-500
expect_failure 'pnet_tcp_static_ports from the command line:5: expected FIRST <= LAST in a port range, found "5000-500"'

# Coordinates the coord components cannot place: nothing is printed, not this
# machine's own interfaces in their stead (an offline run never looks at the
# live host), and the reason is said once.
cat >"$scratch/same-place.fabric" <<'END'
plane ib type=infiniband shape=2x2
node a coord=0,0
node b coord=0,0
nic a ib0 plane=ib
nic b ib0 plane=ib
END
for format in table json; do
    run_netmap --fabric "$scratch/same-place.fabric" --hosts a,b --format $format
    expect_status 1
    expect_out_empty
    expect_err <<'END'
meridian: error: coord_torus: plane "ib": nodes a and b are both at (0,0)
meridian: warning: pnet: no coordinates for this job: the coord component "torus" could not place plane "ib": bad parameter
END
done

# coord_tcp places planes in the logical view only.
run_netmap --fabric "$example" --hosts node01:2 --view physical
expect_failure 'no plane of rank 0 (node node01) has coordinates in view physical'

finish
