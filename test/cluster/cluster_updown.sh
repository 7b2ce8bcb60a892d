#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# contrib/cluster/cluster.sh as a user drives it: up 3 hosts, each with its
# own hostname, NICs (/sys/class/net shows them, with a speed), addresses
# and /etc/hosts; every host reaches every other on both planes, the
# machine itself has no leg in the cluster; a link taken down cuts its host
# off and comes back; kill ends a host's process; bad commands are refused
# with a message; a delay and a loss on a link (netem, or the link emulator
# without it); mpirun runs across the hosts through the cluster's agent; a
# second up replaces the first (8 hosts, mpirun over all of them); down
# leaves no namespace, file or process.
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null 2>&1; then
    echo "SKIP: needs root and iproute2"
    exit 77
fi
MERIDIAN_CLUSTER=t$$
export MERIDIAN_CLUSTER
C=$CLUSTER
status=0
fail() {
    echo "FAIL: $*"
    status=1
}
up_out=$(mktemp)
cleanup() {
    "$C" down
    rm -f "$up_out"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

if ! "$C" up 3 >"$up_out" 2>&1; then
    echo "FAIL: cluster.sh up 3:"
    cat "$up_out"
    exit 1
fi
[ "$("$C" hosts | tr '\n' ' ')" = "h1 h2 h3 " ] || fail "hosts: $("$C" hosts)"
map=$("$C" switches)
[ "$map" = "data0:10.77.0.1-10.77.0.2;data1:10.77.0.3-10.77.0.3;mgmt:10.78.0.1-10.78.0.3" ] ||
    fail "switches: $map"
for i in 1 2 3; do
    h=h$i
    [ "$("$C" exec $h hostname)" = "$h" ] || fail "$h calls itself $("$C" exec $h hostname)"
    nics=$("$C" exec $h ls /sys/class/net | tr '\n' ' ')
    [ "$nics" = "eth0 lo mgmt0 " ] || fail "$h's /sys/class/net: $nics"
    speed=$("$C" exec $h cat /sys/class/net/eth0/speed)
    [ "$speed" -gt 0 ] 2>/dev/null || fail "$h's eth0 has no speed ($speed)"
    "$C" exec $h ip -4 -br addr show eth0 | grep -q " 10\.77\.0\.$i/24" || fail "$h's eth0 address"
    "$C" exec $h ip -4 -br addr show mgmt0 | grep -q " 10\.78\.0\.$i/24" || fail "$h's mgmt0 address"
    "$C" exec $h getent hosts h3 | grep -q '^10\.77\.0\.3 ' || fail "$h does not resolve h3"
done
if command -v ping >/dev/null 2>&1; then
    "$C" exec h1 ping -c 1 -W 2 10.78.0.3 >/dev/null || fail "h1 does not reach h3 on mgmt"
    "$C" exec h3 ping -c 1 -W 2 h1 >/dev/null || fail "h3 does not reach h1 on data (other switch)"
    "$C" link h3 eth0 down
    "$C" exec h1 ping -c 1 -W 1 10.77.0.3 >/dev/null 2>&1 && fail "h3 reachable with eth0 down"
    "$C" link h3 eth0 up
    tries=0
    until "$C" exec h1 ping -c 1 -W 1 10.77.0.3 >/dev/null 2>&1; do
        tries=$((tries + 1))
        [ $tries -lt 10 ] || {
            fail "h3 unreachable after eth0 came back"
            break
        }
    done
else
    echo "SKIP: reachability (no ping)"
fi

# A process on h2, killed by pattern; the other hosts' keep running.
"$C" exec h2 sleep 600 &
victim=$!
"$C" exec h3 sleep 601 &
bystander=$!
sleep 1
out=$("$C" kill h2 'sleep 600')
[ "$out" = "killed 1 process(es) on h2" ] || fail "kill said: $out"
wait $victim
kill -0 $bystander 2>/dev/null || fail "kill on h2 ended h3's process"

# The machine's own namespace has no leg in the cluster: no address on its
# subnets, no switch or host link.
ip -4 -br addr | grep -q ' 10\.7[78]\.0\.' && fail "the machine has an address on the cluster's subnets"
ip -br link | grep -Eq '^(data[01]|mgmt|h[0-9]-[dm])[@ ]' && fail "the machine holds a cluster link"

# Bad commands.
out=$("$C" up 9 2>&1) && fail "up 9 accepted"
[ "$out" = 'cluster.sh: up: expected a number of hosts 1-8, found "9"' ] || fail "up 9 said: $out"
out=$("$C" exec h7 true 2>&1) && fail "exec on h7 accepted"
[ "$out" = 'cluster.sh: unknown host "h7" (hosts: h1 h2 h3 )' ] || fail "exec h7 said: $out"
out=$("$C" link h1 eth0 sideways 2>&1) && fail "link sideways accepted"
[ "$out" = 'cluster.sh: link: expected down or up, found "sideways"' ] || fail "link said: $out"
# A delay on h1's eth0: netem where the kernel has it, meridian-linkem
# (built by make) where it does not; h1's other link keeps its speed, clear
# takes the delay away, a delay that is no time is refused by name.
min_rtt() {
    "$C" exec h1 ping -c 3 -i 0.2 -W 2 "$1" 2>/dev/null | sed -n 's|^rtt [^=]*= \([0-9.]*\)/.*|\1|p'
}
if command -v ping >/dev/null 2>&1; then
    if out=$("$C" fault h1 delay 30ms 2>&1); then
        rtt=$(min_rtt 10.77.0.2)
        awk -v r="${rtt:-0}" 'BEGIN { exit !(r >= 30 && r < 1000) }' ||
            fail "with 30 ms delay on h1's eth0 the round trip to h2 took ${rtt:-no answer} ms"
        rtt=$(min_rtt 10.78.0.2)
        awk -v r="${rtt:-99}" 'BEGIN { exit !(r < 30) }' ||
            fail "the delay on h1's eth0 slowed its mgmt0 too (${rtt:-no answer} ms)"
        "$C" fault h1 clear
        rtt=$(min_rtt 10.77.0.2)
        awk -v r="${rtt:-99}" 'BEGIN { exit !(r < 30) }' ||
            fail "after fault clear the round trip to h2 took ${rtt:-no answer} ms"
        ip -n "$MERIDIAN_CLUSTER-fabric" -br link | grep -q '^h1-d-[ls]' && fail "fault clear left the link emulator's pair"
    else
        fail "fault h1 delay 30ms: $out"
    fi
    out=$("$C" fault h1 delay soon 2>&1) && fail "delay soon accepted"
    case $out in
    'cluster.sh: fault: '*'"soon"'* | 'cluster.sh: fault: tc netem delay soon'*) ;;
    *) fail "delay soon said: $out" ;;
    esac
fi
# Loss works with netem or, without it, through nftables: all of it cuts h1
# off on eth0, clear brings it back.
if command -v ping >/dev/null 2>&1; then
    if out=$("$C" fault h1 loss 100% 2>&1); then
        "$C" exec h1 ping -c 2 -W 1 10.77.0.2 >/dev/null 2>&1 && fail "h1 reaches h2 through a link losing 100%"
        "$C" exec h1 ping -c 1 -W 2 10.78.0.2 >/dev/null 2>&1 || fail "loss on h1's eth0 cut its mgmt0 too"
        "$C" fault h1 clear
        "$C" exec h1 ping -c 1 -W 2 10.77.0.2 >/dev/null 2>&1 || fail "h1 still cut off after fault clear"
    else
        fail "fault h1 loss 100%: $out"
    fi
fi

# mpirun across the hosts, its daemons started through the agent.
if [ -n "$MPIRUN" ]; then
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
    out=$(timeout -s KILL 120 "$C" exec h1 "$MPIRUN" --host h1:1,h2:1,h3:1 \
        --mca plm_rsh_agent "$C agent" --mca oob_tcp_if_include 10.77.0.0/24 hostname 2>&1)
    # Only the programs' lines: mpirun's rsh launcher may warn that a
    # setpgid lost the race with its child's exec.
    [ "$(echo "$out" | grep -E '^h[0-9]+$' | sort | tr '\n' ' ')" = "h1 h2 h3 " ] ||
        fail "mpirun across the hosts: $out"
fi

# A second up replaces the first (the sleeper on h3 goes with it), here
# with the most hosts: 8, four on each data switch, every one reaching every
# other (up checks it), and mpirun over all of them.
"$C" up 8 >"$up_out" 2>&1 || fail "a second up, of 8 hosts, failed: $(cat "$up_out")"
wait $bystander 2>/dev/null
[ "$("$C" hosts | tr '\n' ' ')" = "h1 h2 h3 h4 h5 h6 h7 h8 " ] || fail "after up 8: $("$C" hosts)"
map=$("$C" switches)
[ "$map" = "data0:10.77.0.1-10.77.0.4;data1:10.77.0.5-10.77.0.8;mgmt:10.78.0.1-10.78.0.8" ] ||
    fail "switches of 8 hosts: $map"
[ "$("$C" exec h8 hostname)" = h8 ] || fail "h8 calls itself $("$C" exec h8 hostname)"
if [ -n "$MPIRUN" ]; then
    out=$(timeout -s KILL 120 "$C" exec h1 "$MPIRUN" --host h1,h2,h3,h4,h5,h6,h7,h8 -np 8 \
        --mca plm_rsh_agent "$C agent" --mca oob_tcp_if_include 10.77.0.0/24 hostname 2>&1)
    [ "$(echo "$out" | grep -E '^h[0-9]+$' | sort | tr '\n' ' ')" = "h1 h2 h3 h4 h5 h6 h7 h8 " ] ||
        fail "mpirun across 8 hosts: $out"
fi
"$C" up 2 >/dev/null 2>&1 || fail "a third up, of 2 hosts, failed"
[ "$("$C" hosts | tr '\n' ' ')" = "h1 h2 " ] || fail "after up 2: $("$C" hosts)"
ip netns list | grep -q "^$MERIDIAN_CLUSTER-h3" && fail "h3 left behind by up 2"

"$C" down
rm -f "$up_out"
trap - EXIT
left=$(ip netns list | grep -c "^$MERIDIAN_CLUSTER-")
[ "$left" -eq 0 ] || fail "down left $left namespaces: $(ip netns list)"
[ ! -e "/run/meridian-cluster/$MERIDIAN_CLUSTER" ] || fail "down left /run/meridian-cluster/$MERIDIAN_CLUSTER"
[ ! -e "/etc/netns/$MERIDIAN_CLUSTER-h1" ] || fail "down left /etc/netns/$MERIDIAN_CLUSTER-h1"
[ $status -eq 0 ] && echo "ok: up, hosts, links, kill, agent, bad commands, down"
exit $status
