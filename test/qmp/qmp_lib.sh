# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=sh disable=SC2034 # variables for the drivers that source this
# Shared by the QMP test drivers (sourced).  From the environment
# (Makefile.am): MPIRUN, HAVE_PMIX, HAVE_LIBFABRIC, HAVE_UCX, MCA_ENV_PREFIX,
# QMP_TEST_BIN.
#
#   qmp_run NAME NP PROGRAM ARGS...   runs PROGRAM alone (NP = 0) or under
#                                     mpirun -np NP; passes when it exits 0
#                                     and every process printed "ok:".
#   QMP_MPIRUN_ARGS                   extra mpirun options for the next runs
#   QMP_RUN_LIMIT                     seconds a run may last (timeout(1) ends
#                                     it after that, exit 124), unset: none
#   qmp_have_mpirun                   whether the mpirun cases can run
#   qmp_status                        0 when everything passed so far
#   qmp_host_of RANK                  the host rank RANK runs on
#   qmp_running PID                   the process is there and not a zombie
#   QMP_RANK_HOSTS                    set by test/qmp/qmp_hosts.sh, which runs
#                                     the drivers again with MPIRUN starting
#                                     the processes round-robin over these
#                                     simulated hosts ("h1 h2"); unset: this
#                                     host
# (The functions' own variables start with ql_: sh has no local ones.)

if [ "$(id -u)" = 0 ]; then
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
fi
# Open MPI's own components must not look for networks we do not use.
OMPI_MCA_btl_base_warn_component_unused=0
export OMPI_MCA_btl_base_warn_component_unused

qmp_status=0
QMP_MPIRUN_ARGS=${QMP_MPIRUN_ARGS:-}
# Per-run output, kept for the checks that read it.
QMP_OUT=$(mktemp "${TMPDIR:-/tmp}/qmp-test.XXXXXX")
QMP_ERR=$(mktemp "${TMPDIR:-/tmp}/qmp-test.XXXXXX")
trap 'rm -f "$QMP_OUT" "$QMP_ERR"' EXIT

qmp_have_mpirun() {
    [ -n "$MPIRUN" ] && [ "$HAVE_PMIX" = yes ]
}

# Sets a Meridian MCA parameter in the environment (the prefix is configured).
qmp_setp() { eval "${MCA_ENV_PREFIX}$1=\$2; export ${MCA_ENV_PREFIX}$1"; }
qmp_unsetp() { unset "${MCA_ENV_PREFIX}$1"; }

qmp_fail() {
    echo "FAIL: $*"
    qmp_status=1
}

# An exited process whose parent is gone may wait a while for init to reap
# it: a zombie (Z) or dead (X) process does not run.
qmp_running() {
    kill -0 "$1" 2>/dev/null || return 1
    ql_state=$(sed -n 's/^[0-9]* ([^)]*) \([A-Za-z]\).*/\1/p' "/proc/$1/stat" 2>/dev/null)
    [ -n "$ql_state" ] && [ "$ql_state" != Z ] && [ "$ql_state" != X ]
}

# qmp_launch NP PROGRAM ARGS...: stdout to $QMP_OUT, stderr to $QMP_ERR.
qmp_launch() {
    ql_np=$1
    shift
    ql_prog=$1
    shift
    case $ql_prog in
    /*) ;;
    *) ql_prog="$QMP_TEST_BIN/$ql_prog" ;;
    esac
    ql_limit=
    [ -n "${QMP_RUN_LIMIT:-}" ] && ql_limit="timeout -k 5 $QMP_RUN_LIMIT"
    if [ "$ql_np" -eq 0 ]; then
        # shellcheck disable=SC2086 # ql_limit is a list of words
        $ql_limit "$ql_prog" "$@" >"$QMP_OUT" 2>"$QMP_ERR"
    else
        # shellcheck disable=SC2086 # so are ql_limit and QMP_MPIRUN_ARGS
        $ql_limit "$MPIRUN" -np "$ql_np" --oversubscribe $QMP_MPIRUN_ARGS "$ql_prog" "$@" >"$QMP_OUT" 2>"$QMP_ERR"
    fi
}

qmp_show_output() {
    sed 's/^/  | /' "$QMP_OUT"
    sed 's/^/  ! /' "$QMP_ERR"
}

qmp_run() {
    ql_name=$1
    ql_np=$2
    shift 2
    if [ "$ql_np" -gt 0 ] && ! qmp_have_mpirun; then
        echo "SKIP: $ql_name (no mpirun, or Meridian built without PMIx)"
        return 0
    fi
    ql_want=$ql_np
    [ "$ql_want" -eq 0 ] && ql_want=1
    ql_start=$(date +%s)
    qmp_launch "$ql_np" "$@"
    ql_rc=$?
    ql_oks=$(grep -c '^ok: ' "$QMP_OUT")
    ql_secs=$(($(date +%s) - ql_start))
    if [ $ql_rc -ne 0 ] || [ "$ql_oks" -ne "$ql_want" ]; then
        qmp_fail "$ql_name (exit $ql_rc, $ql_oks of $ql_want processes ok, $ql_secs s):"
        qmp_show_output
        return 1
    fi
    echo "ok: $ql_name ($ql_secs s)"
    return 0
}

# The shapes every API group runs in: alone, and mpirun -np 1, 2, 4.
QMP_SHAPES="0 1 2 4"

# Rank R's host: round-robin over QMP_RANK_HOSTS (mpirun --map-by node).
qmp_host_of() {
    if [ -z "${QMP_RANK_HOSTS:-}" ]; then
        uname -n
        return
    fi
    ql_rank=$1
    # shellcheck disable=SC2086 # the host names are words
    set -- $QMP_RANK_HOSTS
    shift $((ql_rank % $#))
    echo "$1"
}

# qmp_expect_path NAME REGEX: the transport's path from rank 0 to rank 1 of a
# 2-process job, as the msg base reports it at verbosity info, matches REGEX
# (grep -E): the runs that follow test the path they say they test.  With
# ranks 0 and 1 on two hosts (QMP_RANK_HOSTS) shared memory is not one:
# where it is asked, the path between the hosts is the tcp path.
qmp_expect_path() {
    qmp_have_mpirun || return 0
    if [ "$(qmp_host_of 0)" != "$(qmp_host_of 1)" ]; then
        case $2 in
        sm*) set -- "$1 (between hosts)" "tcp" ;;
        *) set -- "$1 (between hosts)" "$2" ;;
        esac
    fi
    qmp_setp msg_base_verbose info
    qmp_launch 2 qmp_init_test app-np=2
    qmp_unsetp msg_base_verbose
    ql_said=$(grep -hEo "rank 0 -> rank 1: $2\$" "$QMP_OUT" "$QMP_ERR" | head -n 1)
    if [ -z "$ql_said" ]; then
        qmp_fail "$1: expected the path rank 0 -> rank 1: $2; the transport said:"
        grep -h -- '->' "$QMP_OUT" "$QMP_ERR" | sed 's/^/  | /'
        return 1
    fi
    echo "ok: $1 ($ql_said)"
}
