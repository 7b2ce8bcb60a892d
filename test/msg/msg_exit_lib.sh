# SPDX-License-Identifier: BSD-3-Clause
# Sourced by msg_exit.sh and msg_exit_hosts.sh: the loop both run.  It
# reads the caller's runs and DRIVER and sets its status.
# shellcheck shell=sh disable=SC2154,SC2034
#
#   exit_repeat NAME WHERE ENV... -- LAUNCHER...
#       msg_driver's last_words and dead_sender, $runs times each, each run
#       "env ENV... LAUNCHER... $DRIVER MODE"; a run fails when it exits
#       non-zero, prints FAIL, or lacks its receiver's one "ok" line: then
#       its output is shown, status=1, and the mode stops.  WHERE ends the
#       "ok:" line ("" or " across h1 and h2").  ENV holds assignments
#       without spaces.
exit_repeat() {
    name=$1 where=$2
    shift 2
    envs=
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        envs="$envs $1"
        shift
    done
    [ $# -gt 0 ] && shift # the --
    for mode in last_words dead_sender; do
        case $mode in
        last_words) want="^rank 0: 41 last messages of a sender that ended: ok\$" ;;
        *) want="^rank 0: 4 messages of a dead sender: ok\$" ;;
        esac
        run=1
        while [ $run -le "$runs" ]; do
            # shellcheck disable=SC2086 # envs: assignments, split on purpose
            out=$(env $envs "$@" "$DRIVER" $mode 2>&1)
            rc=$?
            if [ $rc -ne 0 ] || [ "$(echo "$out" | grep -c "$want")" -ne 1 ] ||
                echo "$out" | grep -q FAIL; then
                echo "FAIL: $name, $mode, run $run of $runs (exit $rc)"
                echo "$out" | sed 's/^/  | /'
                status=1
                break
            fi
            run=$((run + 1))
        done
        [ $run -gt "$runs" ] && echo "ok: $name, $mode, $runs runs$where"
    done
}
