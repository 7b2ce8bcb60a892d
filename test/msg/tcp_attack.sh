#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Strangers at the tcp transport's listeners: a 2-process job over tcp
# (msg_driver attacked, --mca msg ^sm) is attacked from outside by
# tcp_attacker, on loopback, before its processes connect to each other and
# again after.  Each case checks what the stranger saw (no answer, its
# connections closed), what the job printed (every refusal with the
# stranger's address and why, the first three of every 10 s one by one,
# the rest counted) and that every value the job moved was right, with no
# peer declared dead.  Every job is bounded (timeout) and killed on exit.
#
# Across simulated hosts (tcp_attack_hosts.sh) the same cases run with, from
# the environment:
#   ATTACK_JOB         how the 2-process job starts (default: $MPIRUN -np 2)
#   ATTACK_STRANGER    a prefix that runs the attacker elsewhere (a third
#                      host: ip netns exec ...; default: nothing, this host)
#   ATTACK_RANK1_HOST  a prefix that runs it on rank 1's host (the replay
#                      comes from there; default: nothing)
#   ATTACK_WRONG_SOURCE an address rank 1 did not publish, local to where
#                      ATTACK_STRANGER runs (default: 127.0.0.2)
# shellcheck source=test/support/mpi_test_lib.sh
. "$srcdir/../support/mpi_test_lib.sh"
if [ $mpi != yes ]; then
    echo "SKIP: needs mpirun and PMIx"
    exit 77
fi
setp msg_base_timeout 60
setp msg ^sm

status=0
work=$(mktemp -d "${TMPDIR:-/tmp}/tcp_attack.XXXXXX")
job=
cleanup() {
    if [ -n "$job" ]; then
        kill "$job" 2>/dev/null
        wait "$job" 2>/dev/null
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
    echo "FAIL: $1"
    [ -f "$dir/job.out" ] && sed 's/^/  job | /' "$dir/job.out"
    [ -f "$dir/attack.out" ] && sed 's/^/  attacker | /' "$dir/attack.out"
    status=1
}
# expect NAME COUNT PATTERN FILE: FILE has COUNT lines matching PATTERN.
expect() {
    got=$(untag <"$4" | grep -c -e "$3")
    if [ "$got" -ne "$2" ]; then
        fail "$1: $got lines of $(basename "$4") match '$3', expected $2"
        return 1
    fi
}
# expect_some NAME PATTERN FILE: FILE has a line matching PATTERN.
expect_some() {
    untag <"$3" | grep -q -e "$2" || { fail "$1: no line of $(basename "$3") matches '$2'"; return 1; }
}
# Each file appears within 60 s.
wait_for() {
    for f in "$@"; do
        n=0
        while [ ! -e "$f" ]; do
            n=$((n + 1))
            if [ $n -gt 600 ]; then
                return 1
            fi
            sleep 0.1
        done
    done
}

# start_job NAME [hog]: the job in the background, its output in
# $dir/job.out; addr0, addr1: its listeners.
start_job() {
    dir=$work/$1
    mkdir -p "$dir"
    : >"$dir/attack.out"
    # shellcheck disable=SC2086 # ATTACK_JOB is a command line
    timeout 180 ${ATTACK_JOB:-$MPIRUN -np 2} "$DRIVER" attacked "$dir" ${2:-} >"$dir/job.out" 2>&1 &
    job=$!
    if ! wait_for "$dir/ready.0" "$dir/ready.1"; then
        fail "$1: the job did not start"
        kill "$job" 2>/dev/null
        wait "$job" 2>/dev/null
        job=
        return 1
    fi
    addr0=$(cat "$dir/rank0.addr")
    addr1=$(cat "$dir/rank1.addr")
    host1=${addr1%:*}
}
# connected: the processes talked and now wait for the second round.
connected() {
    touch "$dir/go1"
    wait_for "$dir/connected.0" "$dir/connected.1" || { fail "$1: no first exchange"; return 1; }
}
# finish_job NAME: the job ends well, every value right, no peer dead.
finish_job() {
    touch "$dir/go1" "$dir/go2"
    wait "$job"
    rc=$?
    job=
    [ $rc -eq 0 ] || { fail "$1: the job exited $rc"; return 1; }
    expect "$1" 2 "^rank [01]: values right after the attacks: ok\$" "$dir/job.out" || return 1
    expect "$1" 0 "FAIL" "$dir/job.out" || return 1
    expect "$1" 0 "peer rank" "$dir/job.out" || return 1
}
attack() {
    # shellcheck disable=SC2086 # a command prefix
    ${ATTACK_STRANGER:-} "$ATTACKER" "$@" >>"$dir/attack.out" 2>&1
}
attack_from_rank1_host() {
    # shellcheck disable=SC2086
    ${ATTACK_RANK1_HOST:-} "$ATTACKER" "$@" >>"$dir/attack.out" 2>&1
}
wrong=${ATTACK_WRONG_SOURCE:-127.0.0.2}
refused() { # RANK: the start of a refusal's line
    echo "^meridian: warning: msg tcp: rank $1 on node [^:]*: refused a tcp connection from [0-9.]*:[0-9]*: "
}

# 1. Forged hellos for the job's own namespace, one then 300 more (the old
# greeting's only secret was a hash of the namespace; now the proof is a MAC
# by a key of 256 random bits).
name="forged and brute-forced hellos"
if start_job forged; then
    nspace=$(cat "$dir/nspace")
    attack forge "$addr1" 0 1 "$nspace"
    attack brute "$addr1" 0 1 "$nspace" 300
    connected "$name" && attack forge "$addr0" 1 0 "$nspace"
    if finish_job "$name" &&
        expect "$name" 2 "^forge: a hello with a made-up key, a header and 16 bytes; the listener answered 0 bytes and closed: ok\$" "$dir/attack.out" &&
        expect "$name" 1 "^brute: 300 tries, 0 answered: ok\$" "$dir/attack.out" &&
        expect "$name" 3 "$(refused 1)it claims rank 0 but does not prove it holds that rank's key\$" "$dir/job.out" &&
        expect "$name" 1 "^meridian: warning: msg tcp: rank 1 on node .*: refused 298 more tcp connections (the last from [0-9.]*:[0-9]*: it claims rank 0 but does not prove it holds that rank's key)\$" "$dir/job.out" &&
        expect "$name" 1 "$(refused 0)it claims rank 1 but does not prove it holds that rank's key\$" "$dir/job.out"; then
        echo "ok: $name"
    fi
fi

# 2. Garbage, a huge header behind a forged hello, a hello trickled and cut
# off (claiming rank 0 at rank 1, and rank 1 at rank 0 once they talk): no
# real peer is declared dead.
name="garbage, huge header, trickle then close"
if start_job garbage; then
    attack garbage "$addr0" 1000
    attack huge "$addr1" 0 1
    attack trickle "$addr1" 0 1
    connected "$name" && attack trickle "$addr0" 1 0
    if finish_job "$name" &&
        expect "$name" 1 "^garbage: 1000 bytes; the listener answered 0 bytes and closed: ok\$" "$dir/attack.out" &&
        expect "$name" 1 "^huge: headers of 2^62 and 3 GiB, about [0-9]* MiB sent; the listener answered 0 bytes and closed: ok\$" "$dir/attack.out" &&
        expect "$name" 1 "$(refused 0)it is not a Meridian tcp greeting (it begins 0x[0-9a-f]\{8\})\$" "$dir/job.out" &&
        expect "$name" 1 "$(refused 1)it claims rank 0 but does not prove it holds that rank's key\$" "$dir/job.out" &&
        expect "$name" 1 "$(refused 1)it closed after 40 of the 80 bytes of a greeting\$" "$dir/job.out" &&
        expect "$name" 1 "$(refused 0)it closed after 40 of the 80 bytes of a greeting\$" "$dir/job.out"; then
        echo "ok: $name"
    fi
fi

# 3. A flood of silent connections while the processes connect: the oldest
# make room, the rest time out (msg_tcp_handshake_timeout=1000), and the
# peers get in.  Held 3 s, and then up to 20 s more for the listener to have
# closed every one (a loaded machine is slower to get to them all).
name="half-open flood"
setp msg_tcp_handshake_timeout 1000
if start_job flood; then
    attack flood "$addr0" 400 3 20 &
    flooder=$!
    sleep 0.5
    connected "$name"
    wait $flooder
    if finish_job "$name" &&
        expect "$name" 1 "^flood: 400 connections held 3 s, 400 closed by the listener\$" "$dir/attack.out" &&
        expect_some "$name" "$(refused 0)closed before it proved itself, to make room for newer connections (64 were waiting; msg_tcp_pending_max 64, or out of descriptors)\$" "$dir/job.out" &&
        expect_some "$name" "^meridian: warning: msg tcp: rank 0 on node .*: refused [0-9]* more tcp connections (the last from [0-9.]*:[0-9]*: it did not prove itself within 1000 ms (msg_tcp_handshake_timeout; 0 of the 80 bytes of a greeting came))\$" "$dir/job.out"; then
        echo "ok: $name"
    fi
fi
unsetp msg_tcp_handshake_timeout

# 4. The same flood at a process out of descriptors: its listener rests,
# 10 ms doubling to a second, instead of trying accept at every progress
# (some 2,000 times in these 2 s); once descriptors are free again the
# peers get in.  The refusals counted are the rests and the 100 flood
# connections accepted then.
name="flood at a process out of descriptors"
if start_job hog hog; then
    attack flood "$addr0" 100 2
    connected "$name"
    if finish_job "$name" &&
        expect "$name" 1 "^meridian: warning: msg tcp: rank 0 on node .*: refused a tcp connection: this process is out of file descriptors: the listener rests 10 ms\$" "$dir/job.out"; then
        rests=$(sed -n 's/.*: refused \([0-9]*\) more tcp connections .*/\1/p' "$dir/job.out" | head -n 1)
        if [ "${rests:-0}" -gt 100 ]; then
            fail "$name: $rests more refusals: the listener spun"
        else
            echo "ok: $name (${rests:-0} more refusals counted)"
        fi
    fi
fi

# 5. Hellos proved with rank 1's real key (as a captured one would be):
# from an address rank 1 did not publish, refused before its nonce counts;
# from rank 1's own address once the processes talk, answered "N" (the
# pair's connection stays), and the same hello again is a replay.
name="a keyed hello from a wrong address, and replayed"
if start_job keyed; then
    attack keyed "$addr0" 1 0 "$dir/rank1.key" "$(cat "$dir/nspace")" "$wrong"
    connected "$name" &&
        attack_from_rank1_host keyed "$addr0" 1 0 "$dir/rank1.key" "$(cat "$dir/nspace")" "$host1"
    if finish_job "$name" &&
        expect "$name" 1 "^keyed from $wrong: the listener answered 0 bytes, then 0 to the same hello\$" "$dir/attack.out" &&
        expect "$name" 1 "^keyed from $host1: the listener answered 40 bytes, then 0 to the same hello\$" "$dir/attack.out" &&
        expect "$name" 2 "$(refused 0)it proves it is rank 1 but comes from another address than the one rank 1 published ($host1)\$" "$dir/job.out" &&
        expect "$name" 1 "$(refused 0)it proves it is rank 1 with a greeting this process accepted before (a replay)\$" "$dir/job.out"; then
        echo "ok: $name"
    fi
fi
exit $status
