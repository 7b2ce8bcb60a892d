# SPDX-License-Identifier: BSD-3-Clause
# Sourced by pnet_hosts.sh (mpirun), slurm_hosts.sh (srun) and, for hosts_up,
# test/msg/tcp_attack_hosts.sh: the checks of a job of cluster_peer, six
# processes on h1-h3 two by two (ranks 0 and 1 on h1, 2 and 3 on h2, 4 and 5
# on h3), of pmix_reader in such a job, and of two such jobs at once,
# whichever launcher started them.
#
#   hosts_up STEM                a scratch directory ./STEM.PID ($scratch,
#                                $ledger in it) and three hosts; both go on
#                                exit (cluster.sh down stops Slurm too)
#   hosts_params LEDGER          the MCA parameters of every job: two ports
#                                per process from 32000-32099 on the data
#                                plane, the switch map, LEDGER the ledger
#   check_ran FILE RC LAUNCHER   the job (exit RC, output FILE) ran on all
#                                six; prints its lines
#   check_one_job FILE           what every process printed (node, NICs,
#                                ports, endpoints, coordinates, costs,
#                                agree), ports unique on each host
#   check_reader FILE RC         every pmix_reader said ok
#   wait_both FILE_A FILE_B PID_A PID_B   bounded wait until both jobs'
#                                processes have printed (or both ended)
#   check_two_jobs FILE_A FILE_B LEDGER RC_A RC_B   two jobs at once: no
#                                port of a host in both, and LEDGER (the
#                                ledger while both ran) held both
#   check_ledger_empty LEDGER    no entry left once the jobs ended (but
#                                those a leader handed over, all ended)
#   run_one_job LAUNCHER         a job of $PEER through the function
#                                LAUNCHER, then check_ran and check_one_job
#   run_reader LAUNCHER [ARGS]   pmix_reader through LAUNCHER (ARGS: its
#                                options before the program), then
#                                check_reader
#   run_two_jobs LAUNCHER        two jobs of $PEER at once through the
#                                function LAUNCHER, then the two checks above
#   run_event LAUNCHER           the coordinates-updated event across the
#                                hosts ($EVENT_PEER): rank 0 changes the
#                                fabric; every process hears it (h1's from
#                                their PMIx server, h2's and h3's through
#                                their node's relay: neither launcher
#                                forwards a process's event to other hosts);
#                                with coord_base_event_range=node, h1's
#                                processes hear it and those of h2 and h3
#                                do not
#   field RANK NAME FILE         the value of NAME= in RANK's line
#
# A failed check prints "FAIL: ..." and sets status to 1, the exit status
# of the sourcing script.
# shellcheck shell=sh
# shellcheck disable=SC2034 # read by the sourcing script
status=0
fail() {
    echo "FAIL: $*"
    status=1
}

# shellcheck disable=SC2317 # the trap's
hosts_cleanup() {
    "$CLUSTER" down
    rm -rf "$scratch"
}

hosts_up() {
    scratch=$(pwd)/$1.$$
    ledger=$scratch/ports
    trap hosts_cleanup EXIT
    trap 'exit 1' INT TERM HUP
    rm -rf "$scratch"
    mkdir -p "$scratch" || exit 1
    if ! "$CLUSTER" up 3 >"$scratch/up.out" 2>&1; then
        echo "FAIL: cluster.sh up 3:"
        cat "$scratch/up.out"
        exit 1
    fi
}

hosts_params() {
    setp pnet_base_requests "id=data,type=tcp,endpts=2,plane=10.77.0.0/24"
    setp pnet_tcp_static_ports "tcp:32000-32099"
    setp pnet_tcp_switches "data0:10.77.0.1-10.77.0.2;data1:10.77.0.3-10.77.0.8"
    setp pnet_tcp_ledger "$1"
}

field() {
    sed -n "s/^rank $1: .* $2=\([^ ]*\).*/\1/p; s/^rank $1: $2=\([^ ]*\).*/\1/p" "$3" | head -n 1
}

check_ran() {
    if [ "$2" -ne 0 ] || [ "$(grep -c '^rank [0-5]: node=' "$1")" -ne 6 ] || grep -q '^FAIL' "$1"; then
        fail "$3 (exit $2):"
        sed 's/^/  /' "$1"
    else
        echo "ok: 6 processes on 3 hosts ran the pipeline"
        sed 's/^/  /' "$1"
    fi
}

check_one_job() {
    out=$1
    for r in 0 1 2 3 4 5; do
        host=h$((r / 2 + 1))
        i=$((r / 2 + 1))
        [ "$(field $r node "$out")" = "$host" ] || fail "rank $r is on $(field $r node "$out"), expected $host"
        [ "$(field $r nics "$out")" = "eth0,mgmt0,lo" ] ||
            fail "rank $r's NICs: $(field $r nics "$out"), expected eth0,mgmt0,lo (its host's own)"
        [ "$(field $r agree "$out")" = yes ] || fail "rank $r disagrees about the allocation"
        ports=$(field $r ports "$out")
        for p in $(echo "$ports" | tr ',' ' '); do
            { [ "$p" -ge 32000 ] && [ "$p" -le 32099 ]; } || fail "rank $r's port $p is not from the pool"
        done
        [ "$(echo "$ports" | tr ',' '\n' | grep -c .)" -eq 2 ] || fail "rank $r has ports $ports, asked 2"
        # Its endpoints: the host's own data address, on its ports.
        want=$(echo "$ports" | tr ',' '\n' | sed "s/^/10.77.0.$i:/" | paste -sd, -)
        [ "$(field $r endpt "$out")" = "$want" ] ||
            fail "rank $r's endpoints: $(field $r endpt "$out"), expected $want"
        # x: eth0 is the host's first NIC, mgmt0 its second; y: data0 (h1,
        # h2) or data1 (h3), mgmt's switch unknown (the map does not name
        # it); z: each plane is one subnet.
        if [ $i -le 2 ]; then y=0; else y=1; fi
        want="10.77.0.0/24:0,$y,0;10.78.0.0/24:1,0,0"
        got=$(field $r coord "$out" | tr ';' '\n' | grep -v '^127\.' | paste -sd';' -)
        [ "$got" = "$want" ] || fail "rank $r's coordinates: $got, expected $want"
        # Costs: 0 on its host, 2 to the other host on data0, 4 across the
        # trunk.
        case $host in
        h1) want=0,0,2,2,4,4 ;;
        h2) want=2,2,0,0,4,4 ;;
        h3) want=4,4,4,4,0,0 ;;
        esac
        [ "$(field $r cost "$out")" = "$want" ] || fail "rank $r's costs: $(field $r cost "$out"), expected $want"
    done
    # Ports unique per host.
    for host in h1 h2 h3; do
        dup=$(grep "^rank [0-5]: node=$host " "$out" | sed 's/.* ports=\([^ ]*\).*/\1/' | tr ',' '\n' |
            sort | uniq -d | paste -sd, -)
        [ -z "$dup" ] || fail "ports $dup given twice on $host"
    done
}

check_reader() {
    oks=$(grep -c ': ok' "$1")
    if [ "$2" -ne 0 ] || [ "$oks" -ne 6 ]; then
        fail "a plain PMIx client across the hosts (exit $2, $oks of 6 ok):"
        sed 's/^/  /' "$1"
    else
        echo "ok: a plain PMIx client on each host read every process's results"
    fi
}

# The processes hold their ports until told (CLUSTER_PEER_WAIT), so both
# jobs' ports are in use at once; at most 90 s.
wait_both() {
    tries=0
    while [ $tries -lt 900 ]; do
        [ "$(grep -c '^rank [0-5]: node=' "$1")" -eq 6 ] &&
            [ "$(grep -c '^rank [0-5]: node=' "$2")" -eq 6 ] && break
        kill -0 "$3" 2>/dev/null || kill -0 "$4" 2>/dev/null || break
        sleep 0.1
        tries=$((tries + 1))
    done
}

check_two_jobs() {
    if [ "$4" -ne 0 ] || [ "$5" -ne 0 ] || grep -q '^FAIL' "$1" "$2"; then
        fail "two jobs at once (exit $4 and $5):"
        sed 's/^/  a: /' "$1"
        sed 's/^/  b: /' "$2"
    else
        for host in h1 h2 h3; do
            both=$(cat "$1" "$2" | grep "^rank [0-5]: node=$host " |
                sed 's/.* ports=\([^ ]*\).*/\1/' | tr ',' '\n' | sort | uniq -d | paste -sd, -)
            [ -z "$both" ] || fail "ports $both of $host given to both jobs"
        done
        entries=$(grep -c '^job ' "$3" 2>/dev/null)
        [ "${entries:-0}" -eq 6 ] || {
            fail "while both ran the ledger held ${entries:-0} entries, expected 2 jobs x 3 hosts:"
            sed 's/^/  /' "$3" 2>/dev/null
        }
        echo "ok: two jobs at once on h1-h3 share no port on any host"
    fi
}

# An entry may outlive its job only as a node's leader left it: handed over
# (left=the leader) to processes that have all ended since (they never
# leave it themselves; the next claim on the host reclaims it).
check_ledger_empty() {
    left=0
    while read -r line; do
        case "$line" in
        job\ *\ left=*) ;;
        job\ *)
            left=$((left + 1))
            continue
            ;;
        *) continue ;;
        esac
        procs=$(echo "$line" | sed -n 's/.* procs=\([^ ]*\).*/\1/p' | tr ',' ' ')
        for proc in $procs; do
            pid=${proc%%:*}
            if [ -e "/proc/$pid" ] &&
                [ "$(sed -n 's/.*) \(.\) .*/\1/p' "/proc/$pid/stat" 2>/dev/null)" != Z ]; then
                left=$((left + 1))
                break
            fi
        done
    done <"$1"
    [ "$left" -eq 0 ] || {
        fail "the ledger still holds ${left} entries of running processes or not handed over after both jobs ended:"
        sed 's/^/  /' "$1"
    }
}

# run_two_jobs LAUNCHER: two jobs of $PEER started at once by the function
# LAUNCHER (it takes the program and starts it on h1-h3), both holding their
# ports until both have them; then check_two_jobs and an empty ledger.
# Uses $scratch and $ledger.
run_two_jobs() {
    rm -f "$scratch/go"
    CLUSTER_PEER_WAIT=$scratch/go
    export CLUSTER_PEER_WAIT
    "$1" "$PEER" >"$scratch/a.out" 2>&1 &
    job_a=$!
    "$1" "$PEER" >"$scratch/b.out" 2>&1 &
    job_b=$!
    wait_both "$scratch/a.out" "$scratch/b.out" $job_a $job_b
    cp "$ledger" "$scratch/both.ledger" 2>/dev/null
    touch "$scratch/go"
    wait $job_a
    rc_a=$?
    wait $job_b
    rc_b=$?
    unset CLUSTER_PEER_WAIT
    check_two_jobs "$scratch/a.out" "$scratch/b.out" "$scratch/both.ledger" $rc_a $rc_b
    check_ledger_empty "$ledger"
}

run_one_job() {
    "$1" "$PEER" >"$scratch/job.out" 2>&1
    check_ran "$scratch/job.out" $? "$1 across h1-h3"
    check_one_job "$scratch/job.out"
}

run_event() {
    "$1" "$EVENT_PEER" >"$scratch/event.out" 2>&1
    rc=$?
    told=$(grep -c '^rank [0-5]: ok (event from rank 0;' "$scratch/event.out")
    if [ $rc -ne 0 ] || [ "$told" -ne 6 ] || grep -q 'warning' "$scratch/event.out"; then
        fail "the coordinates-updated event through $1 (exit $rc; $told of 6 told):"
        sed 's/^/  /' "$scratch/event.out"
    else
        echo "ok: the coordinates-updated event through $1: all six processes on h1-h3 told"
    fi
    setp coord_base_event_range node
    EVENT_OTHER_NODES_UNTOLD=1 "$1" "$EVENT_PEER" >"$scratch/event.out" 2>&1
    rc=$?
    unsetp coord_base_event_range
    told=$(grep -c '^rank [01]: ok (event from rank 0;' "$scratch/event.out")
    untold=$(grep -c '^rank [2-5]: ok (on another node than rank 0: not told)$' "$scratch/event.out")
    if [ $rc -ne 0 ] || [ "$told" -ne 2 ] || [ "$untold" -ne 4 ]; then
        fail "the coordinates-updated event through $1, range node (exit $rc; $told of 2 on h1 told, $untold of 4 on h2-h3 not told):"
        sed 's/^/  /' "$scratch/event.out"
    else
        echo "ok: the coordinates-updated event through $1, range node: both processes of h1 told, the four of h2 and h3 not"
    fi
}

# One message per node: a misspelt parameter that all six processes give is
# printed once on each host, with that host's two ranks.
run_messages() {
    [ -x "$JOB_MESSAGES_PEER" ] ||
        fail "no $JOB_MESSAGES_PEER: build test/datastore first (make -C test/datastore job_messages_peer)"
    setp carto_base_verbos 1
    "$1" "$JOB_MESSAGES_PEER" >"$scratch/messages.out" 2>&1
    rc=$?
    unsetp carto_base_verbos
    lines=$(grep -c 'carto_base_verbos' "$scratch/messages.out")
    hosts=0
    for h in h1 h2 h3; do
        grep -qE "^meridian: warning: \[ranks [0-5][-,][0-5] on $h\] MCA parameter \"carto_base_verbos\"" \
            "$scratch/messages.out" && hosts=$((hosts + 1))
    done
    if [ $rc -ne 0 ] || [ "$lines" -ne 3 ] || [ $hosts -ne 3 ]; then
        fail "one message per node through $1 (exit $rc; $lines lines, $hosts of 3 hosts with their ranks):"
        sed 's/^/  /' "$scratch/messages.out"
    else
        echo "ok: one message per node through $1: the six processes' warning printed once on each of h1-h3"
    fi
}

# A PMIx client that knows nothing of Meridian, on every host, reads every
# process's results.
run_reader() {
    [ -x "$PMIX_READER" ] ||
        fail "no $PMIX_READER: build test/injob first (make -C test/injob pmix_reader)"
    "$@" "$PMIX_READER" data:tcp:2 >"$scratch/reader.out" 2>&1
    check_reader "$scratch/reader.out" $?
}
