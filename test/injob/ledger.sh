#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The host's port ledger (components/pnet_tcp/README.md, "Port ledger"):
# jobs started at once, side by side, get disjoint ports (and the same ports
# without the ledger, so the check can fail); a job killed with SIGKILL
# gives its ports back to the next job; a port another program holds is
# never handed out; a corrupt ledger is refused with a message naming the
# file and line, and left as it is.  Each case runs with jobs of one process
# (singletons), and with mpirun -np 2 jobs when mpirun and PMIx are there;
# in the node-leader path, a leader that ends before the node's other
# processes leaves them the node's ports.
# ledger_peer prints its ports ("rank R pid P: data=A,B dgram=C") and waits
# for a file when LEDGER_PEER_WAIT names one.
# shellcheck source=test/support/mpi_test_lib.sh
. "$srcdir/../support/mpi_test_lib.sh"

scratch=$(pwd)/ledger-scratch.$$
ledger=$scratch/ports
children=""
# Only processes this test started: its children, and peers that printed
# their pid and still run ledger_peer.
cleanup() {
    for pid in $children; do
        kill -9 "$pid" 2>/dev/null
    done
    sed -n 's/^rank [0-9]* pid \([0-9]*\):.*/\1/p' "$scratch"/*.out 2>/dev/null |
        while read -r peer; do
            if tr '\0' ' ' 2>/dev/null <"/proc/$peer/cmdline" | grep -q ledger_peer; then
                kill -9 "$peer" 2>/dev/null
            fi
        done
    rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
rm -rf "$scratch"
mkdir -p "$scratch" || exit 1

setp pnet_tcp_ledger "$ledger"
setp pnet_base_requests "id=data,type=tcp,endpts=2;id=dgram,type=udp,endpts=1"
setp pnet_tcp_static_ports "tcp:32000-32099;udp:32000-32099"
unset LEDGER_PEER_WAIT LEDGER_PEER_TIMEOUT

status=0
fail() {
    echo "FAIL: $*"
    status=1
}

# wait_until SECONDS COMMAND...: true once COMMAND is, polling every 0.1 s.
wait_until() {
    tries=$(($1 * 10))
    shift
    while [ "$tries" -gt 0 ]; do
        if "$@"; then
            return 0
        fi
        sleep 0.1
        tries=$((tries - 1))
    done
    return 1
}
# count PATTERN FILE: lines of FILE matching PATTERN (0 when none or no file).
count() {
    n=$(grep -c "$1" "$2" 2>/dev/null)
    echo "${n:-0}"
}
at_least() { [ "$(count "$1" "$2")" -ge "$3" ]; }
# gone PID: the process has exited (a zombie has: its sockets are closed).
gone() {
    [ ! -e "/proc/$1" ] || [ "$(sed -n 's/.*) \(.\) .*/\1/p' "/proc/$1/stat" 2>/dev/null)" = Z ]
}
jobs_in_ledger() { count '^job ' "$ledger"; }
# ports FILE...: "data:PORT" and "dgram:PORT", one a line, of every process.
ports() {
    sed -n 's/^rank [0-9]* pid [0-9]*: //p' "$@" | tr ' ' '\n' |
        while IFS='=' read -r id list; do
            [ -n "$id" ] || continue
            echo "$list" | tr ',' '\n' | sed "/^\$/d; s/^/$id:/"
        done
}
# start NAME COMMAND...: COMMAND in the background, its output in NAME.out.
start() {
    name=$1
    shift
    "$@" >"$scratch/$name.out" 2>&1 &
    eval "pid_$name=$!"
    children="$children $!"
}
# finish NAME: wait (at most 60 s, then SIGKILL) for NAME; its exit status.
finish() {
    eval "pid=\$pid_$1"
    if ! wait_until 60 gone "$pid"; then
        kill -9 "$pid" 2>/dev/null
    fi
    wait "$pid"
}
show() {
    sed 's/^/  /' "$@"
}

# side_by_side LABEL PROCS COMMAND...: three jobs of COMMAND started at once,
# kept alive until all three have their ports; the ports must be disjoint.
side_by_side() {
    label=$1 procs=$2
    shift 2
    rm -f "$ledger" "$scratch/go"
    LEDGER_PEER_WAIT=$scratch/go
    export LEDGER_PEER_WAIT
    for j in 1 2 3; do
        start "side$j" "$@"
    done
    for j in 1 2 3; do
        if ! wait_until 60 at_least '^rank [0-9]* pid ' "$scratch/side$j.out" "$procs"; then
            fail "$label: job $j did not print its ports within 60 s"
        fi
    done
    live=$(jobs_in_ledger)
    cp "$ledger" "$scratch/side.ledger" 2>/dev/null
    # Each entry expects the job's processes on the host (PMIx's local size).
    expecting=$(count "^job .* expect=$procs " "$scratch/side.ledger")
    touch "$scratch/go"
    unset LEDGER_PEER_WAIT
    for j in 1 2 3; do
        finish "side$j" || fail "$label: job $j failed: $(cat "$scratch/side$j.out")"
    done
    total=$(ports "$scratch"/side[123].out | wc -l)
    twice=$(ports "$scratch"/side[123].out | sort | uniq -d | tr '\n' ' ')
    if [ "$live" -ne 3 ] || [ "$expecting" -ne 3 ] || [ "$total" -ne $((procs * 3 * 3)) ] ||
        [ -n "$twice" ] || [ "$(jobs_in_ledger)" -ne 0 ]; then
        fail "$label: 3 jobs at once must hold disjoint ports ($live jobs in the ledger" \
            "while they ran, $expecting of them expecting $procs processes, $total ports," \
            "given twice: ${twice:-none}, $(jobs_in_ledger) jobs left in the ledger after them):"
        show "$scratch"/side[123].out "$scratch/side.ledger"
    else
        echo "ok: $label: 3 jobs at once, disjoint ports; the ledger while they ran:"
        show "$scratch"/side[123].out
        grep '^job ' "$scratch/side.ledger" | sed 's/^/  /'
    fi
}

# killed LABEL PROCS COMMAND...: a job killed with SIGKILL (COMMAND and its
# processes) while it holds ports; the next job gets those ports, and the
# dead entry is gone.
killed() {
    label=$1 procs=$2
    shift 2
    rm -f "$ledger"
    LEDGER_PEER_WAIT=$scratch/never LEDGER_PEER_TIMEOUT=60
    export LEDGER_PEER_WAIT LEDGER_PEER_TIMEOUT
    start victim "$@"
    unset LEDGER_PEER_WAIT LEDGER_PEER_TIMEOUT
    if ! wait_until 60 at_least '^rank [0-9]* pid ' "$scratch/victim.out" "$procs"; then
        fail "$label: the job did not print its ports within 60 s:"
        show "$scratch/victim.out"
        return
    fi
    held=$(ports "$scratch/victim.out" | sort | tr '\n' ' ')
    peers=$(sed -n 's/^rank [0-9]* pid \([0-9]*\):.*/\1/p' "$scratch/victim.out")
    # shellcheck disable=SC2086,SC2154 # one pid a word; start set pid_victim
    kill -9 $pid_victim $peers 2>/dev/null
    for victim in $pid_victim $peers; do
        wait_until 30 gone "$victim" || fail "$label: process $victim outlived SIGKILL for 30 s"
    done
    wait "$pid_victim" 2>/dev/null
    after_kill=$(jobs_in_ledger)
    start next "$@"
    finish next || fail "$label: the next job failed: $(cat "$scratch/next.out")"
    got=$(ports "$scratch/next.out" | sort | tr '\n' ' ')
    if [ "$after_kill" -ne 1 ] || [ -z "$held" ] || [ "$got" != "$held" ] ||
        [ "$(jobs_in_ledger)" -ne 0 ]; then
        fail "$label: the killed job held $held, the next job got $got ($after_kill" \
            "entries after the kill, $(jobs_in_ledger) after the next job):"
        show "$scratch/victim.out" "$scratch/next.out"
    else
        echo "ok: $label: a job killed with SIGKILL gave its ports back: $got"
    fi
}

# held_elsewhere LABEL COMMAND...: a tcp and a udp port of the pools held by
# another program (the lowest ones free) are not handed out.
held_elsewhere() {
    label=$1
    shift
    rm -f "$ledger" "$scratch/held.tcp" "$scratch/held.udp"
    start holder_tcp "$PORT_HOLDER" tcp 32000 32099 "$scratch/held.tcp"
    start holder_udp "$PORT_HOLDER" udp 32000 32099 "$scratch/held.udp"
    if ! wait_until 30 test -s "$scratch/held.tcp" || ! wait_until 30 test -s "$scratch/held.udp"; then
        fail "$label: port_holder did not start: $(cat "$scratch"/holder_*.out)"
    else
        tcp=$(cat "$scratch/held.tcp") udp=$(cat "$scratch/held.udp")
        start beside "$@"
        finish beside || fail "$label: the job failed: $(cat "$scratch/beside.out")"
        if ports "$scratch/beside.out" | grep -qx -e "data:$tcp" -e "dgram:$udp" ||
            [ "$(ports "$scratch/beside.out" | wc -l)" -eq 0 ]; then
            fail "$label: tcp $tcp and udp $udp are held by another program, yet:"
            show "$scratch/beside.out"
        else
            echo "ok: $label: tcp $tcp and udp $udp, held by another program, were not handed out:"
            show "$scratch/beside.out"
        fi
    fi
    for holder in holder_tcp holder_udp; do
        eval "kill \$pid_$holder" 2>/dev/null
        finish "$holder" >/dev/null 2>&1
    done
}

# --------------------------------------------------------------- singletons

side_by_side "singletons" 1 "$LEDGER_PEER"
killed "singleton" 1 "$LEDGER_PEER"
held_elsewhere "singleton" "$LEDGER_PEER"

# Without the ledger, jobs at once get the same ports: what side_by_side
# checks is the ledger's doing.
setp pnet_tcp_ledger none
rm -f "$ledger" "$scratch/go"
LEDGER_PEER_WAIT=$scratch/go
export LEDGER_PEER_WAIT
start alone1 "$LEDGER_PEER"
start alone2 "$LEDGER_PEER"
wait_until 60 at_least '^rank 0 pid ' "$scratch/alone1.out" 1
wait_until 60 at_least '^rank 0 pid ' "$scratch/alone2.out" 1
touch "$scratch/go"
unset LEDGER_PEER_WAIT
finish alone1
finish alone2
if [ "$(ports "$scratch/alone1.out" | sort)" != "$(ports "$scratch/alone2.out" | sort)" ] ||
    [ -e "$ledger" ]; then
    fail "pnet_tcp_ledger=none: two singletons at once should get the same ports, without a ledger:"
    show "$scratch"/alone[12].out
else
    echo "ok: pnet_tcp_ledger=none: two singletons at once get the same ports (no ledger)"
fi
setp pnet_tcp_ledger "$ledger"

# A corrupt ledger: refused with the file, line and column, and left as it is.
# corrupt LINE2 EXPECTED: a ledger of the header and LINE2 (or LINE2 alone
# when it is a header) must fail the job with EXPECTED after "port ledger".
corrupt() {
    case $1 in
    meridian-port-ledger*) printf '%s\n' "$1" >"$ledger" ;;
    *) printf '%s\n' '# a comment' 'meridian-port-ledger 1' "$1" >"$ledger" ;;
    esac
    cp "$ledger" "$scratch/corrupt.copy"
    out=$("$LEDGER_PEER" 2>&1)
    rc=$?
    want="meridian: error: pnet_tcp: port ledger $ledger:$2; the ledger is left as it is and no ports were claimed: remove the file (the jobs it lists lose their claims) or set pnet_tcp_ledger to another file or none"
    if [ $rc -eq 0 ] || ! echo "$out" | grep -qxF "$want" || ! cmp -s "$ledger" "$scratch/corrupt.copy"; then
        fail "corrupt ledger: expected exit status other than 0 (was $rc), the file unchanged, and"
        echo "  $want"
        echo "  in:"
        echo "$out" | sed 's/^/  /'
    else
        echo "ok: corrupt ledger refused:"
        echo "$out" | grep 'port ledger' | sed 's/^/  /'
    fi
}
corrupt 'job 1234 host=h boot=- expect=1 since=0 tcp=32000 bogus' \
    '3:51: expected KEY=VALUE with KEY host, boot, expect, since, tcp, udp, procs or left, found "bogus"'
corrupt 'job 1234 host=h boot=- expect=1 since=0 tcp=32000-31000' \
    '3:45: expected FIRST <= LAST in a port range, found "32000-31000"'
corrupt 'meridian-port-ledger 2' \
    '1:1: expected "meridian-port-ledger 1" (the ledger'"'"'s first line), found "meridian-port-ledger 2"'
rm -f "$ledger"

# A ledger that turns corrupt while a job runs: the job runs on, and says
# so when it leaves.
printf '%s\n' 'meridian-port-ledger 1' >"$ledger"
rm -f "$scratch/go"
LEDGER_PEER_WAIT=$scratch/go
export LEDGER_PEER_WAIT
start spoilt "$LEDGER_PEER"
unset LEDGER_PEER_WAIT
wait_until 60 at_least '^rank 0 pid ' "$scratch/spoilt.out" 1
printf '%s\n' 'meridian-port-ledger 1' 'bogus' >"$ledger"
touch "$scratch/go"
finish spoilt
rc=$?
pid=$(sed -n 's/^rank 0 pid \([0-9]*\):.*/\1/p' "$scratch/spoilt.out")
want="meridian: warning: pnet_tcp: port ledger $ledger:2:1: expected a line \"job NSPACE KEY=VALUE ...\", found \"bogus\"; job singleton.$pid did not leave it (its entry goes when its processes are gone)"
if [ $rc -ne 0 ] || ! grep -qxF "$want" "$scratch/spoilt.out"; then
    fail "a ledger corrupt at the end of a job: expected exit status 0 (was $rc) and"
    echo "  $want"
    show "$scratch/spoilt.out"
else
    echo "ok: a ledger corrupt at the end of a job is a warning:"
    grep 'port ledger' "$scratch/spoilt.out" | sed 's/^/  /'
fi
rm -f "$ledger"

# A relative path would be another file in each working directory.
setp pnet_tcp_ledger relative/ports
out=$("$LEDGER_PEER" 2>&1)
want="meridian: error: pnet_tcp_ledger from environment variable ${MCA_ENV_PREFIX}pnet_tcp_ledger: expected an absolute path, none, or nothing (the default), found \"relative/ports\""
if echo "$out" | grep -qxF "$want"; then
    echo "ok: a relative pnet_tcp_ledger is refused"
else
    fail "a relative pnet_tcp_ledger: expected"
    echo "  $want"
    echo "$out" | sed 's/^/  /'
fi
setp pnet_tcp_ledger "$ledger"

# leader_ends_first LABEL COMMAND...: the node-leader path
# (pnet_base_node_leader=yes), where the leader (rank 0) holds the node's
# ports in the ledger for the node's processes.  The leader ends while rank
# 1 still runs: the job's entry stays, held by rank 1, and its ports go
# back only once rank 1 has ended (the next job gets them).
leader_ends_first() {
    label=$1
    shift
    rm -f "$ledger" "$scratch/go"
    setp pnet_base_node_leader yes
    setp pnet_base_requests "id=data,type=tcp,endpts=2"
    LEDGER_PEER_WAIT=$scratch/go LEDGER_PEER_WAIT_RANK=1
    export LEDGER_PEER_WAIT LEDGER_PEER_WAIT_RANK
    start lead "$@"
    unset LEDGER_PEER_WAIT LEDGER_PEER_WAIT_RANK
    if ! wait_until 60 at_least '^rank 0: done' "$scratch/lead.out" 1 ||
        ! wait_until 60 at_least '^rank 1 pid ' "$scratch/lead.out" 1; then
        fail "$label: the leader did not end, or rank 1 did not start, within 60 s:"
        show "$scratch/lead.out"
    fi
    cp "$ledger" "$scratch/lead.ledger" 2>/dev/null
    heir=$(sed -n 's/^rank 1 pid \([0-9]*\):.*/\1/p' "$scratch/lead.out")
    held=$(count "^job .* tcp=[0-9].* procs=${heir:-none}:[0-9]* left=[0-9]*:[0-9]*\$" "$scratch/lead.ledger")
    ports=$(sed -n 's/^rank [01] pid [0-9]*: ports=//p' "$scratch/lead.out" | tr ',' '\n' | sort -n | tr '\n' ' ')
    touch "$scratch/go"
    finish lead || fail "$label: the job failed: $(cat "$scratch/lead.out")"
    # The next job (alone, in-job) gets the same ports: nobody holds them now.
    setp pnet_base_node_leader no
    start after "$LEDGER_PEER"
    finish after || fail "$label: the next job failed: $(cat "$scratch/after.out")"
    got=$(sed -n 's/^rank 0 pid [0-9]*: data=//p' "$scratch/after.out" | tr ',' '\n' | sort -n | tr '\n' ' ')
    unsetp pnet_base_node_leader
    setp pnet_base_requests "id=data,type=tcp,endpts=2;id=dgram,type=udp,endpts=1"
    if [ "$held" -ne 1 ] || [ -z "$ports" ] || [ "$(echo "$ports" | wc -w)" -ne 4 ] ||
        [ "$(echo "$got" | cut -d' ' -f1-2)" != "$(echo "$ports" | cut -d' ' -f1-2)" ] ||
        [ "$(jobs_in_ledger)" -ne 0 ]; then
        fail "$label: after the leader ended, its entry must be held by rank 1 (pid ${heir:-?})" \
            "until it ends ($held such entries; the job's ports: $ports; the next job's: $got;" \
            "$(jobs_in_ledger) entries left):"
        show "$scratch/lead.out" "$scratch/lead.ledger" "$scratch/after.out"
    else
        echo "ok: $label: the node's leader ended first; rank 1 held the node's ports ($ports) until it ended:"
        grep '^job ' "$scratch/lead.ledger" | sed 's/^/  /'
    fi
}

# --------------------------------------------------------------- mpirun

if [ $mpi = yes ]; then
    side_by_side "mpirun -np 2" 2 "$MPIRUN" -np 2 --oversubscribe "$LEDGER_PEER"
    killed "mpirun -np 2" 2 "$MPIRUN" -np 2 --oversubscribe "$LEDGER_PEER"
    held_elsewhere "mpirun -np 2" "$MPIRUN" -np 2 --oversubscribe "$LEDGER_PEER"
    leader_ends_first "mpirun -np 2, node leader" "$MPIRUN" -np 2 --oversubscribe \
        -x LEDGER_PEER_WAIT -x LEDGER_PEER_WAIT_RANK "$LEDGER_PEER"

    # A job whose allocation fails (80 required ports of 100 for 2
    # processes): its claim goes with its processes, at once.
    rm -f "$ledger"
    setp pnet_base_requests "id=data,type=tcp,endpts=80,required"
    out=$(LEDGER_PEER_EXPECT_FAILURE=1 "$MPIRUN" -np 2 --oversubscribe -x LEDGER_PEER_EXPECT_FAILURE "$LEDGER_PEER" 2>&1)
    if [ "$(echo "$out" | grep -c 'FAIL: meridian_init')" -ne 2 ] || [ "$(jobs_in_ledger)" -ne 0 ]; then
        fail "a job whose allocation failed must leave no entry ($(jobs_in_ledger) left):"
        echo "$out" | sed 's/^/  /'
        show "$ledger"
    else
        echo "ok: a job whose allocation failed left no entry in the ledger"
    fi
    setp pnet_base_requests "id=data,type=tcp,endpts=2;id=dgram,type=udp,endpts=1"
else
    echo "SKIP: the mpirun cases (no mpirun, or Meridian built without PMIx)"
fi
exit $status
