#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A small cluster of simulated hosts on this machine, for running Meridian
# jobs across hosts (README.md, "Running on many hosts").  Needs root,
# iproute2 (ip, tc), util-linux (nsenter, unshare) and iputils-ping.
#
# Each host is a Linux network namespace with its own hostname (a UTS
# namespace) and two NICs:
#   eth0   on the "data" plane, 10.77.0.0/24: hosts h1..h(N/2 rounded up) on
#          switch data0, the others on switch data1; the two switches are
#          joined by a trunk link
#   mgmt0  on the "mgmt" plane, 10.78.0.0/24, one switch (mgmt)
# Host i has the addresses 10.77.0.i and 10.78.0.i.  The switches are
# bridges inside a namespace of their own, so hosts reach each other only
# through them and nothing reaches the machine's own network.
#
#   cluster.sh up [N]             bring up N hosts (default 3, 1-8); tears
#                                 down a cluster left behind first
#   cluster.sh down               remove every host, switch and process of it
#   cluster.sh hosts              the host names, one per line
#   cluster.sh exec HOST CMD...   run CMD on HOST (its network and hostname)
#   cluster.sh agent HOST CMD...  the same, CMD given as one shell command
#                                 line (mpirun's plm_rsh_agent, like ssh)
#   cluster.sh fault HOST [IF] delay 2ms loss 5%   netem on HOST's link (IF:
#                                 eth0 by default): what HOST sends on IF is
#                                 delayed and dropped; "fault HOST [IF] clear".
#                                 A kernel without netem gets the same from
#                                 meridian-linkem (contrib/cluster/linkem.cc,
#                                 built by make), a frame forwarder put in
#                                 the middle of the link; "loss N%" alone
#                                 then drops through nftables, both ways
#   cluster.sh link HOST IF down|up
#   cluster.sh kill HOST PATTERN  SIGKILL HOST's processes whose command line
#                                 matches PATTERN (grep -E)
#   cluster.sh fabric             the cluster as a Meridian fabric file
#   cluster.sh switches           which switch each address hangs off, as
#                                 pnet_tcp_switches takes it
#   cluster.sh status             what is up
#
# MERIDIAN_CLUSTER names the cluster (default "mc"): namespaces are
# NAME-h1 ..., NAME-fabric; state is kept in /run/meridian-cluster/NAME.
# MERIDIAN_LINKEM: the link emulator (default: beside this script, or in
# the README's build directory, build/contrib/cluster).
set -u

name=${MERIDIAN_CLUSTER:-mc}
case $name in
'' | *[!a-z0-9]*)
    echo "cluster.sh: MERIDIAN_CLUSTER must be lower-case letters and digits, found \"$name\"" >&2
    exit 2
    ;;
esac
state=/run/meridian-cluster/$name
fabric_ns=$name-fabric

die() {
    echo "cluster.sh: $*" >&2
    exit 1
}

need_root() {
    [ "$(id -u)" = 0 ] || die "$1 needs root (network namespaces)"
    for tool in ip nsenter unshare; do
        command -v "$tool" >/dev/null 2>&1 || die "$tool is missing (iproute2, util-linux)"
    done
}

hosts() {
    [ -f "$state/hosts" ] && cat "$state/hosts"
}

host_index() {
    i=1
    for h in $(hosts); do
        if [ "$h" = "$1" ]; then
            echo "$i"
            return 0
        fi
        i=$((i + 1))
    done
    die "unknown host \"$1\" (hosts: $(hosts | tr '\n' ' '))"
}

# Runs the rest on host $1: its network namespace and hostname, and (as
# `ip netns exec` makes them) its own /sys, so /sys/class/net shows its
# NICs, and its /etc/hosts naming every host.
on_host() {
    host=$1
    shift
    host_index "$host" >/dev/null || exit 1
    exec ip netns exec "$name-$host" nsenter --uts="$state/$host.uts" -- "$@"
}

down() {
    # Slurm's first (slurm.sh): its munged runs outside the hosts, and its
    # daemons are best stopped before their hosts go.
    [ -d "$state/slurm" ] && MERIDIAN_CLUSTER=$name "$(dirname "$0")/slurm.sh" down
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$name-(h[0-9]+|fabric)$"); do
        # Every process of the namespace first, so that none holds it.
        for pid in $(ip netns pids "$ns" 2>/dev/null); do
            kill -9 "$pid" 2>/dev/null
        done
        ip netns delete "$ns" 2>/dev/null || echo "cluster.sh: could not delete namespace $ns" >&2
    done
    for etc in /etc/netns/"$name"-h*; do
        [ -d "$etc" ] && rm -rf "$etc"
    done
    # /etc/netns itself only when up made it and nothing else is in it.
    [ -f "$state/made-etc-netns" ] && rmdir /etc/netns 2>/dev/null
    if [ -d "$state" ]; then
        for uts in "$state"/*.uts; do
            [ -e "$uts" ] || continue
            umount "$uts" 2>/dev/null
            rm -f "$uts"
        done
        rm -rf "$state"
    fi
    return 0
}

up() {
    count=${1:-3}
    case $count in
    [1-8]) ;;
    *) die "up: expected a number of hosts 1-8, found \"$count\"" ;;
    esac
    down
    mkdir -p "$state" || die "cannot make $state"
    : >"$state/hosts"
    # A cluster half made is taken down again.
    trap down EXIT
    [ -d /etc/netns ] || : >"$state/made-etc-netns"
    ip netns add "$fabric_ns" || die "cannot add namespace $fabric_ns"
    F="ip -n $fabric_ns"
    $F link set lo up
    for sw in data0 data1 mgmt; do
        $F link add "$sw" type bridge || die "cannot add switch $sw"
        $F link set "$sw" up
    done
    # The inter-switch link of the data plane.
    $F link add trunk0 type veth peer name trunk1
    $F link set trunk0 master data0 up
    $F link set trunk1 master data1 up
    half=$(((count + 1) / 2))
    i=1
    while [ "$i" -le "$count" ]; do
        host=h$i
        ns=$name-$host
        echo "$host" >>"$state/hosts"
        ip netns add "$ns" || die "cannot add namespace $ns"
        # The hostname: a UTS namespace kept by a bind mount.
        touch "$state/$host.uts"
        unshare --uts="$state/$host.uts" hostname "$host" || die "cannot give $host its hostname"
        ip -n "$ns" link set lo up
        if [ "$i" -le "$half" ]; then sw=data0; else sw=data1; fi
        # veth pairs made in the fabric namespace, one end moved to the host.
        $F link add "$host-d" type veth peer name eth0 netns "$ns" || die "cannot wire $host"
        $F link add "$host-m" type veth peer name mgmt0 netns "$ns" || die "cannot wire $host"
        $F link set "$host-d" master "$sw" up
        $F link set "$host-m" master mgmt up
        ip -n "$ns" addr add "10.77.0.$i/24" dev eth0
        ip -n "$ns" addr add "10.78.0.$i/24" dev mgmt0
        ip -n "$ns" link set eth0 up
        ip -n "$ns" link set mgmt0 up
        i=$((i + 1))
    done
    echo "$count" >"$state/count"
    # Every host names every other (ip netns exec puts /etc/netns/NS/hosts
    # over /etc/hosts); the data plane's addresses.
    for h in $(hosts); do
        mkdir -p "/etc/netns/$name-$h"
        {
            echo "127.0.0.1 localhost"
            j=1
            for other in $(hosts); do
                echo "10.77.0.$j $other"
                j=$((j + 1))
            done
        } >"/etc/netns/$name-$h/hosts"
    done
    # Bounded wait until every host reaches every other on both planes.
    if ! command -v ping >/dev/null 2>&1; then
        trap - EXIT
        return 0
    fi
    for h in $(hosts); do
        j=1
        while [ "$j" -le "$count" ]; do
            for net in 10.77.0 10.78.0; do
                tries=0
                until ip netns exec "$name-$h" ping -c 1 -W 1 "$net.$j" >/dev/null 2>&1; do
                    tries=$((tries + 1))
                    [ "$tries" -lt 10 ] || die "up: $h does not reach $net.$j"
                done
            done
            j=$((j + 1))
        done
    done
    trap - EXIT
}

fabric() {
    [ -f "$state/count" ] || die "fabric: no cluster is up (cluster.sh up)"
    count=$(cat "$state/count")
    half=$(((count + 1) / 2))
    cat <<EOF
# The simulated cluster "$name" (contrib/cluster/cluster.sh): $count hosts.
fabric $name
plane data type=ethernet cidr=10.77.0.0/24
plane mgmt type=ethernet cidr=10.78.0.0/24
switch data0 plane=data
switch data1 plane=data
switch mgmt plane=mgmt
EOF
    i=1
    for host in $(hosts); do
        if [ "$i" -le "$half" ]; then sw=data0; else sw=data1; fi
        echo "node $host packages=1 cores=$(nproc)"
        echo "nic $host eth0 plane=data address=10.77.0.$i switch=$sw speed=10G"
        echo "nic $host mgmt0 plane=mgmt address=10.78.0.$i switch=mgmt speed=10G"
        i=$((i + 1))
    done
}

switches() {
    [ -f "$state/count" ] || die "switches: no cluster is up (cluster.sh up)"
    count=$(cat "$state/count")
    half=$(((count + 1) / 2))
    map="data0:10.77.0.1-10.77.0.$half"
    [ "$count" -gt "$half" ] && map="$map;data1:10.77.0.$((half + 1))-10.77.0.$count"
    echo "$map;mgmt:10.78.0.1-10.78.0.$count"
}

status() {
    if [ ! -f "$state/hosts" ]; then
        echo "cluster $name: down"
        return 0
    fi
    echo "cluster $name: $(cat "$state/count") hosts"
    for h in $(hosts); do
        printf '%s (%s):' "$h" "$(nsenter --uts="$state/$h.uts" hostname)"
        ip -n "$name-$h" -br -4 addr show | awk '$1 != "lo" {printf " %s %s %s", $1, $2, $3}'
        echo
    done
}

# The link emulator, for delays on a kernel without netem.
find_linkem() {
    here=$(dirname "$0")
    for linkem in "${MERIDIAN_LINKEM:-}" "$here/meridian-linkem" "$here/../../build/contrib/cluster/meridian-linkem"; do
        [ -n "$linkem" ] && [ -x "$linkem" ] && return 0
    done
    die "fault: this kernel has no netem (CONFIG_NET_SCH_NETEM), and meridian-linkem, which delays instead, is not built (make -C build contrib/cluster/meridian-linkem, or set MERIDIAN_LINKEM)"
}

# The switch's end of HOST's link IF, in the fabric namespace.
link_peer() {
    case $2 in
    eth0) echo "$1-d" ;;
    mgmt0) echo "$1-m" ;;
    *) die "fault: $1 has no link $2 (eth0, mgmt0)" ;;
    esac
}

# linkem_start HOST IF DELAY LOSS: the link cut in two at the switch's end,
# meridian-linkem forwarding between the halves (HOST's end, PEER, and a new
# pair PEER-l / PEER-s whose PEER-s takes PEER's place on the switch).
linkem_start() {
    find_linkem
    peer=$(link_peer "$1" "$2") || exit 1
    linkem_stop "$1" "$2"
    F="ip -n $fabric_ns"
    switch=$($F -o link show "$peer" | sed -n 's/.* master \([^ ]*\) .*/\1/p')
    [ -n "$switch" ] || die "fault: $1's $2 is on no switch"
    key="$state/linkem-$1-$2"
    echo "$switch" >"$key.switch"
    $F link add "$peer-l" type veth peer name "$peer-s" || die "fault: cannot cut $1's $2"
    $F link set "$peer" nomaster
    $F link set "$peer-s" master "$switch" up
    $F link set "$peer-l" up
    ip netns exec "$fabric_ns" "$linkem" --host "$peer" --switch "$peer-l" --delay "$3" --loss "$4" \
        </dev/null >"$key.log" 2>&1 &
    echo $! >"$key.pid"
    # Bounded wait (5 s) for its sockets.
    tries=0
    until grep -q '^ready$' "$key.log"; do
        tries=$((tries + 1))
        if ! kill -0 "$(cat "$key.pid")" 2>/dev/null || [ "$tries" -ge 50 ]; then
            said=$(cat "$key.log")
            linkem_stop "$1" "$2"
            die "fault: meridian-linkem on $1's $2 did not start: $said"
        fi
        sleep 0.1
    done
}

# The link whole again, as up made it.
linkem_stop() {
    key="$state/linkem-$1-$2"
    [ -f "$key.switch" ] || return 0
    peer=$(link_peer "$1" "$2") || exit 1
    if [ -f "$key.pid" ]; then
        kill "$(cat "$key.pid")" 2>/dev/null
        rm -f "$key.pid"
    fi
    ip -n "$fabric_ns" link del "$peer-l" 2>/dev/null
    ip -n "$fabric_ns" link set "$peer" master "$(cat "$key.switch")" up
    rm -f "$key.switch" "$key.log"
}

command=${1:-}
[ $# -gt 0 ] && shift
case $command in
up)
    need_root up
    up "$@"
    ;;
down)
    need_root down
    down
    ;;
hosts) hosts ;;
exec)
    [ $# -ge 2 ] || die "usage: cluster.sh exec HOST CMD..."
    on_host "$@"
    ;;
agent)
    # ORTE's rsh launcher hands over the remote command as words a shell
    # joins, as ssh does.
    [ $# -ge 2 ] || die "usage: cluster.sh agent HOST COMMAND-LINE"
    host=$1
    shift
    on_host "$host" /bin/sh -c "$*"
    ;;
fault)
    [ $# -ge 2 ] || die "usage: cluster.sh fault HOST [IF] delay 2ms loss 5% | clear"
    host=$1
    shift
    host_index "$host" >/dev/null || exit 1
    dev=eth0
    case $1 in
    delay | loss | clear | rate | duplicate | reorder) ;;
    *)
        dev=$1
        shift
        ;;
    esac
    if [ "${1:-}" = clear ]; then
        ip netns exec "$name-$host" tc qdisc del dev "$dev" root 2>/dev/null
        ip netns exec "$name-$host" nft delete table inet "mcfault_$dev" 2>/dev/null
        linkem_stop "$host" "$dev"
        exit 0
    fi
    if ip netns exec "$name-$host" tc qdisc replace dev "$dev" root netem "$@" 2>"$state/tc.err"; then
        exit 0
    fi
    grep -q 'qdisc kind is unknown' "$state/tc.err" ||
        die "fault: tc netem $* on $host's $dev: $(cat "$state/tc.err")"
    # No netem in this kernel: a delay (and loss with it) from the link
    # emulator, loss alone from nftables.
    delay=
    loss=
    while [ $# -gt 0 ]; do
        case $1 in
        delay) [ $# -ge 2 ] && [ -z "$delay" ] || die "fault: expected delay TIME once"; delay=$2 ;;
        loss) [ $# -ge 2 ] && [ -z "$loss" ] || die "fault: expected loss N% once"; loss=$2 ;;
        *) die "fault: this kernel has no netem (CONFIG_NET_SCH_NETEM), so only delay and loss can be made on $host's $dev, found \"$1\"" ;;
        esac
        shift 2
    done
    # A fault replaces the one before, as tc's replace does.
    ip netns exec "$name-$host" nft delete table inet "mcfault_$dev" 2>/dev/null
    linkem_stop "$host" "$dev"
    if [ -n "$delay" ]; then
        linkem_start "$host" "$dev" "$delay" "${loss:-0%}"
        exit 0
    fi
    set -- loss "$loss"
    percent=${2%\%}
    case $percent in
    '' | *[!0-9]*) die "fault: expected loss N% with N 0-100, found \"$2\"" ;;
    esac
    [ "$percent" -le 100 ] || die "fault: expected loss N% with N 0-100, found \"$2\""
    command -v nft >/dev/null 2>&1 ||
        die "fault: this kernel has no netem and nft is missing (Debian: apt-get install nftables), so it cannot drop on $host's $dev"
    table="mcfault_$dev"
    ip netns exec "$name-$host" nft delete table inet "$table" 2>/dev/null
    # Each packet through the link either way is dropped with that chance
    # (numgen's values are 0-99: 100 % drops every packet, 0 % none).
    case $percent in
    0) exit 0 ;;
    100) chance= ;;
    *) chance="numgen random mod 100 < $percent" ;;
    esac
    if ! ip netns exec "$name-$host" nft -f - 2>"$state/tc.err" <<EOF
table inet $table {
    chain out { type filter hook output priority 0; policy accept;
        oifname "$dev" $chance drop; }
    chain in { type filter hook input priority 0; policy accept;
        iifname "$dev" $chance drop; }
}
EOF
    then
        die "fault: nft on $host's $dev: $(cat "$state/tc.err")"
    fi
    ;;
link)
    [ $# -eq 3 ] || die "usage: cluster.sh link HOST IF down|up"
    host_index "$1" >/dev/null || exit 1
    case $3 in
    up | down) ip -n "$name-$1" link set "$2" "$3" ;;
    *) die "link: expected down or up, found \"$3\"" ;;
    esac
    ;;
kill)
    [ $# -eq 2 ] || die "usage: cluster.sh kill HOST PATTERN"
    host_index "$1" >/dev/null || exit 1
    killed=0
    for pid in $(ip netns pids "$name-$1"); do
        if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -Eq -- "$2"; then
            kill -9 "$pid" 2>/dev/null && killed=$((killed + 1))
        fi
    done
    echo "killed $killed process(es) on $1"
    ;;
fabric) fabric ;;
switches) switches ;;
status) status ;;
*)
    sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'
    [ -z "$command" ] || [ "$command" = help ] || [ "$command" = --help ] || exit 2
    ;;
esac
