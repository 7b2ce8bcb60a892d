#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Slurm on the simulated cluster of cluster.sh, so that jobs start with srun
# (--mpi=pmix) as on a real cluster: slurmctld on h1, one slurmd on every
# host, and one munged for the credentials.  Needs root, the cluster up
# (cluster.sh up), and Slurm and munge (Debian: apt-get install slurm-wlm
# munge; srun --mpi=pmix also needs libpmix-dev, whose libpmix.so Slurm's
# pmix plugin loads).
#
#   slurm.sh up                 start Slurm on every host of the cluster and
#                               wait until all nodes are idle; takes down
#                               what a previous up left first
#   slurm.sh down               stop every daemon, job step and srun of it
#   slurm.sh srun ARGS...       srun on h1, the caller's environment kept
#   slurm.sh exec HOST CMD...   CMD (sinfo, squeue, scontrol ...) on HOST
#                               with SLURM_CONF set
#   slurm.sh status             what is up
#
# MERIDIAN_CLUSTER names the cluster, as for cluster.sh.  The configuration
# (SLURM_CONF is slurm.conf there), logs and spool are kept in
# /run/meridian-cluster/NAME/slurm; cluster.sh down runs slurm.sh down.
set -u

name=${MERIDIAN_CLUSTER:-mc}
case $name in
'' | *[!a-z0-9]*)
    echo "slurm.sh: MERIDIAN_CLUSTER must be lower-case letters and digits, found \"$name\"" >&2
    exit 2
    ;;
esac
C=$(dirname "$0")/cluster.sh
cluster_state=/run/meridian-cluster/$name
state=$cluster_state/slurm
conf=$state/slurm.conf
msock=$state/munge/munge.socket
# Every Slurm command run here, and every process of a job, reads this
# cluster's configuration.
SLURM_CONF=$conf
export SLURM_CONF

die() {
    echo "slurm.sh: $*" >&2
    exit 1
}

need_root() {
    [ "$(id -u)" = 0 ] || die "$1 needs root (the hosts are network namespaces)"
}

# need TOOL...: dies naming the missing ones and what installs them.
need() {
    missing=
    for tool in "$@"; do
        command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
    done
    [ -z "$missing" ] ||
        die "missing${missing}; install Slurm and munge (Debian: apt-get install slurm-wlm munge)"
}

need_cluster() {
    [ -f "$cluster_state/hosts" ] ||
        die "$1: the cluster \"$name\" is not up (MERIDIAN_CLUSTER=$name cluster.sh up N first)"
}

need_slurm() {
    [ -f "$state/up" ] || die "$1: Slurm is not up on the cluster \"$name\" (slurm.sh up first)"
}

# on NAMESPACE PATTERN...: the processes in NAMESPACE named as a PATTERN.
on() {
    ns=$1
    shift
    for pid in $(ip netns pids "$ns" 2>/dev/null); do
        comm=$(cat "/proc/$pid/comm" 2>/dev/null)
        for pattern in "$@"; do
            # shellcheck disable=SC2254 # a pattern
            case $comm in
            $pattern)
                echo "$pid"
                break
                ;;
            esac
        done
    done
}

# in_hosts PATTERN...: the same on every host of the cluster.  Each host is
# a network namespace, so what runs there is this cluster's.
in_hosts() {
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$name-h[0-9]+$"); do
        on "$ns" "$@"
    done
}

# The PIDs given and all their descendants.
with_descendants() {
    [ $# -gt 0 ] || return 0
    ps -e -o pid= -o ppid= | awk -v roots="$*" '
        BEGIN { n = split(roots, r, " "); for (i = 1; i <= n; i++) keep[r[i]] = 1 }
        { parent[$1] = $2 }
        END {
            do {
                more = 0
                for (p in parent)
                    if (!(p in keep) && (parent[p] in keep)) { keep[p] = 1; more = 1 }
            } while (more)
            for (p in keep) print p
        }'
}

# The PID in pid file $1 if that process is still the one named $2 (a pid
# file outlives its process, and the number may be another's by now).
pid_of() {
    [ -f "$1" ] || return 0
    pid=$(cat "$1" 2>/dev/null)
    case $(cat "/proc/$pid/comm" 2>/dev/null) in
    $2*) echo "$pid" ;;
    esac
}

# A process gone, or dead and not yet reaped by its parent (init).
dead() {
    case $(sed 's/.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null) in
    '' | Z) return 0 ;;
    esac
    return 1
}

# stop PID...: SIGTERM, at most 5 s to go, then SIGKILL.
stop() {
    [ $# -gt 0 ] || return 0
    kill "$@" 2>/dev/null
    tries=0
    while [ $tries -lt 50 ]; do
        alive=
        for pid in "$@"; do
            dead "$pid" || alive=yes
        done
        [ -n "$alive" ] || return 0
        sleep 0.1
        tries=$((tries + 1))
    done
    kill -9 "$@" 2>/dev/null
    return 0
}

# reaped PID...: at most 5 s until the processes are out of the process
# table, so that none is seen after down.  Their parent is init, which
# may take a while.
reaped() {
    tries=0
    for pid in "$@"; do
        while [ -e "/proc/$pid" ] && [ $tries -lt 50 ]; do
            sleep 0.1
            tries=$((tries + 1))
        done
    done
}

down() {
    [ -d "$state" ] || return 0
    # A step's tasks are found while they still hang off its slurmstepd:
    # slurmd's going does not end them.
    # shellcheck disable=SC2046 # one PID per word
    steps="$(with_descendants $(in_hosts slurmstepd)) $(in_hosts srun)"
    daemons="$(pid_of "$state/slurmctld.pid" slurmctld) $(in_hosts 'slurmctld*' 'slurmd*' slurmscriptd)"
    for pidfile in "$state"/slurmd.*.pid; do
        daemons="$daemons $(pid_of "$pidfile" slurmd)"
    done
    # All daemons at once, so that their shutdowns overlap.
    # shellcheck disable=SC2086 # one PID per word
    stop $daemons
    # shellcheck disable=SC2086
    kill -9 $steps 2>/dev/null
    # munged last: the daemons need it until they are gone.
    munged=$(pid_of "$state/munge/munged.pid" munged)
    # shellcheck disable=SC2086
    stop $munged
    # shellcheck disable=SC2086
    reaped $daemons $steps $munged
    rm -rf "$state"
    return 0
}

write_conf() {
    # The hosts' cores as slurmd sees them; the memory small, as all hosts
    # share the machine's.
    hw=$(timeout 30 "$C" exec h1 slurmd -C 2>/dev/null | sed -n '1{s/^NodeName=[^ ]* //; s/ RealMemory=[0-9]*//; p;}')
    case $hw in
    CPUs=*) ;;
    *) die "up: slurmd -C on h1 gave no CPUs: $(timeout 30 "$C" exec h1 slurmd -C 2>&1 | head -n 1)" ;;
    esac
    cat >"$conf" <<EOF
# Slurm on the simulated cluster "$name" (contrib/cluster/slurm.sh).
ClusterName=$name
SlurmctldHost=h1(10.77.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$msock
StateSaveLocation=$state/ctld
SlurmctldPidFile=$state/slurmctld.pid
SlurmctldLogFile=$state/log/slurmctld.log
# Per host (%n): the pmix plugin keeps its server's files in the spool and
# TmpFS, and steps on two hosts sharing them fail to start.
SlurmdSpoolDir=$state/spool/%n
SlurmdPidFile=$state/slurmd.%n.pid
SlurmdLogFile=$state/log/slurmd.%n.log
TmpFS=$state/tmp/%n
# No cgroups (ip netns exec mounts a /sys without them), no accounting, no
# mail.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MailProg=/bin/true
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
InactiveLimit=0
KillWait=5
MinJobAge=30
EOF
    i=1
    for h in $("$C" hosts); do
        echo "NodeName=$h NodeAddr=10.77.0.$i $hw RealMemory=1000 State=UNKNOWN"
        i=$((i + 1))
    done >>"$conf"
    echo "PartitionName=all Nodes=ALL Default=YES MaxTime=INFINITE State=UP" >>"$conf"
    # Slurm 22.05 has no CgroupPlugin=disabled, and finding the cgroup
    # version fails without /sys/fs/cgroup; with proctrack/linuxproc and
    # task/none no cgroup is ever made.
    printf 'CgroupPlugin=cgroup/v1\nCgroupAutomount=no\n' >"$state/cgroup.conf"
}

# die, and show the last lines of every log: why a start failed.
die_logs() {
    echo "slurm.sh: $*" >&2
    for log in "$state"/log/*.log "$state"/munge/munged.log; do
        [ -s "$log" ] || continue
        echo "--- $log:"
        tail -n 5 "$log"
    done >&2
    exit 1
}

up() {
    need_cluster up
    down
    # munged refuses a key or socket in a directory others may write to.
    umask 022
    mkdir -p "$state/munge" "$state/ctld" "$state/log" || die "up: cannot make $state"
    # Slurm half started is taken down again.
    trap down EXIT
    hosts=$("$C" hosts)
    count=0
    for h in $hosts; do
        mkdir -p "$state/spool/$h" "$state/tmp/$h"
        count=$((count + 1))
    done
    write_conf
    # One munged outside the hosts serves them all: its socket is a path,
    # which every network namespace reaches.  Its own key, so that no other
    # munge's credentials count here.
    mungekey --create --keyfile="$state/munge/munge.key" || die "up: mungekey failed"
    munged --key-file="$state/munge/munge.key" --socket="$msock" \
        --pid-file="$state/munge/munged.pid" --log-file="$state/munge/munged.log" \
        --seed-file="$state/munge/munged.seed" ||
        die "up: munged failed: $(tail -n 1 "$state/munge/munged.log" 2>/dev/null)"
    munge -n -S "$msock" | unmunge -S "$msock" >/dev/null 2>&1 || die "up: munged does not answer on $msock"
    timeout 30 "$C" exec h1 slurmctld || die_logs "up: slurmctld did not start on h1"
    for h in $hosts; do
        timeout 30 "$C" exec "$h" slurmd -N "$h" || die_logs "up: slurmd did not start on $h"
    done
    # Bounded wait until every node is idle.
    tries=0
    until [ "$(timeout 10 "$C" exec h1 sinfo -h -t idle -o %D 2>/dev/null)" = "$count" ]; do
        # A daemon that failed after it went into the background.
        gone=
        [ -n "$(on "$name-h1" 'slurmctld*')" ] || gone=" slurmctld(h1)"
        for h in $hosts; do
            [ -n "$(on "$name-$h" 'slurmd*')" ] || gone="$gone slurmd($h)"
        done
        tries=$((tries + 1))
        [ -z "$gone" ] || die_logs "up: exited:$gone"
        [ $tries -lt 120 ] ||
            die_logs "up: not every node idle after 60 s: $(timeout 10 "$C" exec h1 sinfo -h 2>&1 | paste -sd ';' -)"
        sleep 0.5
    done
    : >"$state/up"
    trap - EXIT
}

status() {
    if [ ! -f "$state/up" ]; then
        echo "slurm $name: down"
        return 0
    fi
    echo "slurm $name: controller h1, SLURM_CONF=$conf"
    timeout 10 "$C" exec h1 sinfo || echo "slurm.sh: status: sinfo on h1 failed" >&2
}

command=${1:-}
[ $# -gt 0 ] && shift
case $command in
up)
    need_root up
    need slurmctld slurmd srun sinfo munged mungekey munge unmunge
    up
    ;;
down)
    need_root down
    down
    ;;
srun)
    need_root srun
    need srun
    need_cluster srun
    need_slurm srun
    exec "$C" exec h1 srun "$@"
    ;;
exec)
    [ $# -ge 2 ] || die "usage: slurm.sh exec HOST CMD..."
    need_root exec
    need_cluster exec
    need_slurm exec
    exec "$C" exec "$@"
    ;;
status) status ;;
*)
    sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'
    [ -z "$command" ] || [ "$command" = help ] || [ "$command" = --help ] || exit 2
    ;;
esac
