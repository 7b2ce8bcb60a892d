#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The halo example (contrib/examples/qmp_halo.c) between two hosts
# (qmp_hosts_lib.sh), one process on each: on a clean link, on a link that
# loses 5 % of its packets and delays them 2 ms (netem, or the cluster's link
# emulator), and on one taken down during the run, which must end in an
# error within msg_base_timeout, not a hang.  Needs root and iproute2.
# shellcheck source=qmp_hosts_lib.sh
. "$QMP_TEST_SRC/qmp_hosts_lib.sh"

echo "==== the halo example between h1 and h2"
# halo ITERATIONS: the example on 2 processes (one per host), at most 120 s
# (qmp_lib.sh's QMP_RUN_LIMIT); its exit status.
halo() {
    # shellcheck disable=SC2034 # read by qmp_launch
    QMP_RUN_LIMIT=120
    qmp_launch 2 qmp_halo_example --lattice 8x8x8x16 --iterations "$1" --warmup 4
    hrc=$?
    unset QMP_RUN_LIMIT
    return $hrc
}
halo_checked() {
    if halo "$2" && grep -q '^check: every halo value and every global sum as expected: OK$' "$QMP_OUT"; then
        echo "ok: halo example, $1"
        grep -E '^(lattice|grid|iteration|bandwidth)' "$QMP_OUT" | sed 's/^/  /'
    else
        qmp_fail "halo example, $1:"
        qmp_show_output
    fi
}
halo_checked "clean link" 40

# 5 % loss and 2 ms delay on what h2 sends on its data link (netem, or the
# cluster's link emulator where the kernel has no netem).
if out=$("$CLUSTER" fault h2 eth0 delay 2ms loss 5% 2>&1); then
    halo_checked "5 % loss and 2 ms delay on h2's eth0" 40
    "$CLUSTER" fault h2 eth0 clear
else
    qmp_fail "cluster.sh fault h2 eth0 delay 2ms loss 5%: $out"
fi

# h2's data link goes down 3 s into a long run: QMP's wait ends with an
# error within msg_base_timeout (5 s), the job ends, nothing hangs.
qmp_setp msg_base_timeout 5
(
    sleep 3
    "$CLUSTER" link h2 eth0 down
) &
downer=$!
start=$(date +%s)
halo 100000000
rc=$?
secs=$(($(date +%s) - start))
wait $downer
"$CLUSTER" link h2 eth0 up
qmp_unsetp msg_base_timeout
said=$(grep -E '^qmp_halo: node [01]: (halo exchange|QMP_sum_double)' "$QMP_ERR" | head -n 1)
if [ $rc -eq 0 ] || [ $rc -eq 124 ] || [ $rc -eq 137 ] || [ -z "$said" ] || [ $secs -gt 40 ]; then
    qmp_fail "link down during the halo: expected a QMP error within msg_base_timeout (5 s) after the link went down (3 s in), found exit $rc after $secs s:"
    qmp_show_output
else
    echo "ok: link down during the halo: exit $rc after $secs s; $said"
fi
exit "$qmp_status"
