#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A killed peer gives an error, not a hang; so does a silent one, after
# msg_base_timeout.  Two processes under mpirun.  Open MPI's mpirun ends the
# job when a process dies (SIGTERM, then SIGKILL after
# odls_base_sigkill_timeout seconds): node 0 ignores SIGTERM and the kill
# timeout is longer than msg_base_timeout, so node 0 has the time to see the
# error and say so; with --enable-recovery mpirun lets node 0 run to its end.
# Node 0's verdict goes to stdout and to a report file (checked, not only
# the exit code, which mpirun decides).
# shellcheck source=qmp_lib.sh
. "$QMP_TEST_SRC/qmp_lib.sh"

if ! qmp_have_mpirun; then
    echo "SKIP: the peer tests need mpirun (and Meridian built with PMIx)"
    exit 77
fi
report=$(mktemp "${TMPDIR:-/tmp}/qmp-peer.XXXXXX")
trap 'rm -f "$QMP_OUT" "$QMP_ERR" "$report"' EXIT

# peer_case NAME OFI_TIMEOUT LIMIT MPIRUN_ARGS ARGS...: node 0 must report
# QMP_wait's error within LIMIT seconds, then finalize.
peer_case() {
    name=$1 ofi_timeout=$2 limit=$3 mpirun_args=$4
    shift 4
    : >"$report"
    qmp_setp msg_base_timeout "$ofi_timeout"
    start=$(date +%s)
    QMP_MPIRUN_ARGS=$mpirun_args \
        qmp_launch 2 qmp_peer_death_test app-limit="$limit" app-report="$report" "$@"
    rc=$?
    secs=$(($(date +%s) - start))
    qmp_unsetp msg_base_timeout
    ok=yes
    grep -Eq '^peer .*: QMP_(wait|sum_double) returned' "$report" || ok=no
    grep -q '^ok: qmp_peer_death_test' "$report" || ok=no
    if grep -q '^FAIL' "$report"; then
        ok=no
    fi
    if [ $ok = no ]; then
        qmp_fail "$name (mpirun exit $rc after $secs s); node 0 reported:"
        sed 's/^/  > /' "$report"
        qmp_show_output
        return 1
    fi
    echo "ok: $name ($secs s)"
    sed 's/^/  > /' "$report"
    if ! grep -q '^rank 0 finalized' "$report"; then
        qmp_fail "$name: node 0 did not get through QMP_finalize_msg_passing after the error"
    fi
}

# mpirun terminates the job: node 0 has odls_base_sigkill_timeout (5 s)
# after the death to report (mpirun then takes twice that to end).
peer_case "killed peer, error function installed" 3 4 "--mca odls_base_sigkill_timeout 5" \
    app-mode=kill app-handler=yes
# mpirun lets the job run on (--enable-recovery): node 0 finalizes with a
# dead peer.
peer_case "killed peer, QMP's default error function" 3 4 "--enable-recovery" app-mode=kill
peer_case "killed peer during QMP_sum_double" 3 4 "--enable-recovery" app-mode=kill-sum
qmp_setp msg ^sm
qmp_setp msg_ofi_provider tcp
peer_case "killed peer (tcp path)" 3 4 "--enable-recovery" app-mode=kill
peer_case "killed peer during QMP_sum_double (tcp path)" 3 4 "--enable-recovery" app-mode=kill-sum
qmp_unsetp msg
qmp_unsetp msg_ofi_provider
peer_case "silent peer, msg_base_timeout 2" 2 4 "" app-mode=silent app-handler=yes
exit $qmp_status
