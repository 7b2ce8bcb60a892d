#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# QMP started again in the same processes (qmp_reinit_test: init -> sum ->
# 1 MiB broadcast -> finalize, twice): alone, and 20 runs in a row under
# mpirun -np 2 (a lost message used to show in most of them), 5 with
# msg_sm_cma=off and 5 with 4 processes.  Every run is bounded
# (msg_base_timeout 5, each run ended after 60 s); every process's sum of
# every round is checked, and the transport's path to the neighbour must be
# the same in both rounds.
# shellcheck source=qmp_lib.sh
. "$QMP_TEST_SRC/qmp_lib.sh"

qmp_setp msg_base_timeout 5
QMP_RUN_LIMIT=60

# reinit_case NAME NP ROUNDS: one run; every process printed every round's
# sum (of node number + 1: n (n + 1) / 2) with status 0, and the ok line.
reinit_case() {
    rc_name=$1 rc_np=$2 rc_rounds=$3
    rc_procs=$rc_np
    [ "$rc_procs" -eq 0 ] && rc_procs=1
    rc_sum=$((rc_procs * (rc_procs + 1) / 2))
    qmp_run "$rc_name" "$rc_np" qmp_reinit_test app-rounds="$rc_rounds" || return 1
    rc_ok=yes
    r=0
    while [ $r -lt "$rc_procs" ]; do
        k=0
        while [ $k -lt "$rc_rounds" ]; do
            if [ "$(grep -cxF "rank $r round $k sum $rc_sum status 0" "$QMP_OUT")" -ne 1 ]; then
                qmp_fail "$rc_name: expected the line 'rank $r round $k sum $rc_sum status 0' once"
                rc_ok=no
            fi
            k=$((k + 1))
        done
        r=$((r + 1))
    done
    if [ $rc_ok = no ]; then
        qmp_show_output
        return 1
    fi
    return 0
}

reinit_case "init, sum, finalize three times, alone" 0 3
if qmp_have_mpirun; then
    # Each round names its paths (msg_base_verbose info): round 2's must be
    # round 1's.
    qmp_setp msg_base_verbose info
    passed=0
    i=1
    while [ $i -le 20 ]; do
        if reinit_case "init, sum, finalize twice, np=2, run $i of 20" 2 2; then
            paths=$(grep -ho 'rank 0 -> rank 1: .*' "$QMP_OUT" "$QMP_ERR")
            if [ "$(echo "$paths" | wc -l)" -ne 2 ] || [ "$(echo "$paths" | sort -u | wc -l)" -ne 1 ]; then
                qmp_fail "run $i of 20: expected the same path rank 0 -> rank 1 in both rounds, the transport said:"
                echo "$paths" | sed 's/^/  | /'
            else
                passed=$((passed + 1))
            fi
        fi
        i=$((i + 1))
    done
    qmp_unsetp msg_base_verbose
    echo "re-init under mpirun -np 2: $passed of 20 runs passed"
    qmp_setp msg_sm_cma off
    i=1
    while [ $i -le 5 ]; do
        reinit_case "init, sum, finalize twice, np=2, msg_sm_cma=off, run $i of 5" 2 2
        i=$((i + 1))
    done
    qmp_unsetp msg_sm_cma
    i=1
    while [ $i -le 5 ]; do
        reinit_case "init, sum, finalize twice, np=4, run $i of 5" 4 2
        i=$((i + 1))
    done
fi
exit $qmp_status
