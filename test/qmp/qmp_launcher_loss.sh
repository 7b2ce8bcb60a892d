#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A job whose launcher dies ends: mpirun is killed (SIGKILL: it can do
# nothing; SIGTERM: it may still reach its processes) while its two
# processes compute without calling QMP, and while one of them waits in
# QMP_barrier.  With msg_base_launcher_loss 2, within 2 s and a grace of 6
# s no process of the job is left; each process whose PMIx server was
# killed said that the launcher is gone and that it ends; the waiting
# barrier failed first, saying why.  Across two hosts (qmp_hosts.sh) the
# process on h2 has its own PMIx server, Open MPI's daemon there, which
# ends it when mpirun goes; so the daemon on h2 is killed too (SIGKILL),
# and then the process on h2 must end on its own.  Before this was handled
# the processes ran on, re-parented to init.
# shellcheck source=qmp_lib.sh
. "$QMP_TEST_SRC/qmp_lib.sh"

if ! qmp_have_mpirun; then
    echo "SKIP: the launcher's loss needs mpirun (and Meridian built with PMIx)"
    exit 77
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/qmp-launcher-loss.XXXXXX")
# Whatever happens, no process of these jobs outlives the test.
cleanup() {
    for f in "$dir"/ready.*; do
        [ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
    done
    [ -n "${mpirun_pid:-}" ] && kill -KILL "$mpirun_pid" 2>/dev/null
    rm -rf "$dir" "$QMP_OUT" "$QMP_ERR"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

loss_s=2
grace_s=6

qmp_setp msg_base_launcher_loss $loss_s

# loss_case NAME SIGNAL MODE [daemon]: SIGNAL to mpirun, or with "daemon"
# to the parent of node 1 (its host's Open MPI daemon, its PMIx server).
loss_case() {
    name=$1 signal=$2 mode=$3 target=${4:-mpirun}
    rm -f "$dir"/*
    "$MPIRUN" -np 2 --oversubscribe "$QMP_TEST_BIN/qmp_launcher_loss_test" "$mode" "$dir" 60 \
        >"$QMP_OUT" 2>"$QMP_ERR" &
    mpirun_pid=$!
    tries=0
    while { [ ! -f "$dir/ready.0" ] || [ ! -f "$dir/ready.1" ]; } && [ $tries -lt 300 ]; do
        sleep 0.1
        tries=$((tries + 1))
    done
    if [ ! -f "$dir/ready.0" ] || [ ! -f "$dir/ready.1" ]; then
        qmp_fail "$name: the job did not start within 30 s"
        qmp_show_output
        kill -KILL "$mpirun_pid" 2>/dev/null
        wait "$mpirun_pid" 2>/dev/null
        return
    fi
    # The waiting node is in its barrier by now (or about to be).
    sleep 0.5
    # The processes whose PMIx server is killed: mpirun's on mpirun's host
    # (the first), or node 1 alone when its daemon is.
    if [ "$target" = daemon ]; then
        victim=$(awk '{ print $4 }' "/proc/$(cat "$dir/ready.1")/stat")
        orphans=1
    else
        victim=$mpirun_pid
        orphans=
        for rank in 0 1; do
            [ "$(qmp_host_of $rank)" = "$(qmp_host_of 0)" ] && orphans="$orphans $rank"
        done
    fi
    kill "-$signal" "$victim"
    start=$(date +%s)
    # Killing mpirun ends the whole job; killing node 1's daemon must end
    # node 1 (node 0's launcher may live on: under Slurm nothing ends it).
    required="0 1"
    [ "$target" = daemon ] && required=$orphans
    left=
    for rank in $required; do
        pid=$(cat "$dir/ready.$rank")
        while qmp_running "$pid" && [ $(($(date +%s) - start)) -le $((loss_s + grace_s)) ]; do
            sleep 0.1
        done
        if qmp_running "$pid"; then
            left="$left rank $rank (pid $pid)"
            kill -KILL "$pid" 2>/dev/null
        fi
    done
    secs=$(($(date +%s) - start))
    # The rest goes now (cleanup() would anyway), and so does the launcher:
    # given 10 s to see its processes end (srun waits on for a step whose
    # daemon was killed), then killed.
    for rank in 0 1; do
        kill -KILL "$(cat "$dir/ready.$rank")" 2>/dev/null
    done
    tries=0
    while qmp_running "$mpirun_pid" && [ $tries -lt 100 ]; do
        sleep 0.1
        tries=$((tries + 1))
    done
    kill -KILL "$mpirun_pid" 2>/dev/null
    wait "$mpirun_pid" 2>/dev/null
    mpirun_pid=
    if [ -n "$left" ]; then
        qmp_fail "$name: still running $((loss_s + grace_s)) s after the launcher's SIG$signal:$left"
        qmp_show_output
        return
    fi
    if [ -f "$dir/late.1" ] || { [ "$target" = mpirun ] && [ -f "$dir/late.0" ]; }; then
        qmp_fail "$name: a process computed on to its 60 s limit"
        return
    fi
    # A PMIx server killed by SIGKILL says nothing: each of its processes
    # says why it ends (its stderr is a file: the launcher forwarded it).
    if [ "$signal" = KILL ]; then
        for rank in $orphans; do
            grep -q "msg: rank $rank (node [^)]*): the launcher is gone (.*); this process ends in $loss_s s (msg_base_launcher_loss)" "$dir/stderr.$rank" &&
                grep -q "msg: rank $rank (node [^)]*): ending: the launcher is gone" "$dir/stderr.$rank" || {
                qmp_fail "$name: rank $rank did not say that the launcher is gone and that it ends; its stderr:"
                sed 's/^/  ! /' "$dir/stderr.$rank"
                return
            }
        done
    fi
    node1_orphan=no
    case " $orphans " in *" 1 "*) node1_orphan=yes ;; esac
    if [ "$mode" = wait ] && [ "$signal" = KILL ] && [ $node1_orphan = yes ]; then
        grep -q "^rank 1: QMP_barrier returned [1-9][0-9]*: .*" "$dir/barrier.1" 2>/dev/null || {
            qmp_fail "$name: node 1's QMP_barrier did not fail: $(cat "$dir/barrier.1" 2>/dev/null)"
            return
        }
        # Why: the launcher's loss, or (when mpirun ended node 0 on hearing
        # that node 1's daemon died) node 0's death, whichever came first.
        grep -Eq "msg: rank 1: waits fail: the launcher is gone|msg: rank 1 on node [^:]*: peer rank 0 .* (is unreachable|died)" "$dir/stderr.1" || {
            qmp_fail "$name: node 1's wait did not say why it failed; its stderr:"
            sed 's/^/  ! /' "$dir/stderr.1"
            return
        }
    fi
    echo "ok: $name: no process left after ${secs} s"
    [ "$mode" = wait ] && [ -f "$dir/barrier.1" ] && sed 's/^/  > /' "$dir/barrier.1"
    return 0
}

# QMP_LOSS_CASES=daemon (qmp_hosts_slurm.sh, qmp_pmi.sh): only the daemon's
# (under srun, node 1's slurmstepd; srun itself is not the processes' PMIx
# server; under hydra, its proxy on the one host, both nodes' PMI server).
if [ "${QMP_LOSS_CASES:-all}" = all ]; then
    loss_case "mpirun SIGKILL while computing" KILL compute
    loss_case "mpirun SIGKILL while one waits in QMP_barrier" KILL wait
    loss_case "mpirun SIGTERM while computing" TERM compute
    loss_case "mpirun SIGTERM while one waits in QMP_barrier" TERM wait
fi
if [ "$(qmp_host_of 1)" != "$(qmp_host_of 0)" ] || [ "${QMP_LOSS_CASES:-all}" = daemon ]; then
    loss_case "node 1's daemon SIGKILL while computing" KILL compute daemon
    loss_case "node 1's daemon SIGKILL while node 1 waits in QMP_barrier" KILL wait daemon
fi
exit $qmp_status
