#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Init / finalize (thread levels, argv, calls before init), output (the text
# of QMP_printf / QMP_info / QMP_error / QMP_fprintf lines and their
# streams), QMP_abort, timing and version, errors: alone and under mpirun
# with 1, 2 and 4 processes.
# shellcheck source=qmp_lib.sh
. "$QMP_TEST_SRC/qmp_lib.sh"

host=$(uname -n)
tune=$(mktemp "${TMPDIR:-/tmp}/qmp-tune.XXXXXX")
trap 'rm -f "$QMP_OUT" "$QMP_ERR" "$tune"' EXIT
# A --tune file that makes the msg base say when the transports are up.
echo "msg_base_verbose = info" >"$tune"

# init: the application's arguments ("app...") mixed with QMP's and
# Meridian's options; afterwards argv must hold exactly the app ones.
init_case() {
    np=$1 level=$2
    procs=$np
    [ "$procs" -eq 0 ] && procs=1
    case $procs in
    1) geom="1 1" ;;
    2) geom="2 1" ;;
    *) geom="2 2" ;;
    esac
    # shellcheck disable=SC2086 # $geom is two words
    qmp_run "init, $level, np=$np" "$np" qmp_init_test app-level="$level" app-np="$procs" \
        -qmp-geom $geom app-first --mca msg_base_timeout 30 -qmp-alloc-map 1 0 app-second \
        --tune "$tune" -qmp-logic-map 0 1 -qmp-job 1 1 app-last || return
    # The --tune file was applied: each process's base said its transports were up.
    ups=$(grep -c 'transports up (.*): rank' "$QMP_ERR" "$QMP_OUT" | awk -F: '{s += $NF} END {print s}')
    if [ "$ups" -ne "$procs" ]; then
        qmp_fail "init, $level, np=$np: --tune $tune (msg_base_verbose = info) not applied: $ups of $procs 'transports up' lines"
        qmp_show_output
    fi
}
for level in single funneled serialized multiple; do
    init_case 0 "$level"
    init_case 2 "$level"
done
init_case 1 single
init_case 4 single
init_case 4 multiple

# Output lines: "QMP m<node>,n<nodes>@<host>[ info| error]: <message>".
expect_line() {
    file=$1 stream=$2 text=$3
    count=$(grep -cxF "$text" "$file")
    if [ "$count" -ne 1 ]; then
        qmp_fail "output: expected the line '$text' once on $stream, found it $count times"
        return 1
    fi
}
for np in $QMP_SHAPES; do
    qmp_run "output, timing, version, np=$np" "$np" qmp_output_test app-mode=print || continue
    procs=$np
    [ "$procs" -eq 0 ] && procs=1
    ok=yes
    r=0
    while [ $r -lt "$procs" ]; do
        rhost=$host
        [ "$np" -gt 0 ] && rhost=$(qmp_host_of $r)
        tag="QMP m$r,n$procs@$rhost"
        expect_line "$QMP_OUT" stdout "$tag: printf line $r" || ok=no
        expect_line "$QMP_OUT" stdout "$tag info: info line $r" || ok=no
        expect_line "$QMP_OUT" stdout "$tag: fprintf stdout line $r" || ok=no
        expect_line "$QMP_ERR" stderr "$tag error: error line $r" || ok=no
        expect_line "$QMP_ERR" stderr "$tag: fprintf stderr line $r" || ok=no
        r=$((r + 1))
    done
    if [ $ok = no ]; then
        qmp_show_output
    else
        echo "ok: output lines, np=$np"
    fi
done

# QMP_abort: the process exits with the code (alone), the job ends (mpirun),
# after "QMP m.. error: abort: CODE".
abort_case() {
    name=$1 np=$2 mode=$3 want_rc=$4
    shift 4
    if [ "$np" -gt 0 ] && ! qmp_have_mpirun; then
        echo "SKIP: $name (no mpirun)"
        return
    fi
    start=$(date +%s)
    qmp_launch "$np" qmp_output_test app-mode="$mode"
    rc=$?
    secs=$(($(date +%s) - start))
    ok=yes
    if [ "$want_rc" = nonzero ]; then
        [ $rc -ne 0 ] || ok=no
    else
        [ $rc -eq "$want_rc" ] || ok=no
    fi
    [ $secs -le 20 ] || ok=no
    for line in "$@"; do
        grep -qxF "$line" "$QMP_ERR" || ok=no
    done
    if [ $ok = no ]; then
        qmp_fail "$name: expected exit $want_rc within 20 s and the lines: $* (exit $rc after $secs s)"
        qmp_show_output
    else
        echo "ok: $name (exit $rc, $secs s)"
    fi
}
abort_case "QMP_abort(7) alone" 0 abort 7 "QMP m0,n1@$host error: abort: 7"
abort_case "QMP_abort_string(3, ...) alone" 0 abort-string 3 \
    "QMP m0,n1@$host error: giving up" "QMP m0,n1@$host error: abort: 3"
# QMP's default error function (an error no call can return: memory freed
# twice) prints the message and aborts with 1.
abort_case "the default error function" 0 default-error 1 \
    "QMP m0,n1@$host error: abort: 1"
if ! grep -q "^QMP m0,n1@$host error: QMP_free_aligned_memory: " "$QMP_ERR"; then
    qmp_fail "the default error function: expected 'QMP m0,n1@$host error: QMP_free_aligned_memory: ...'"
    qmp_show_output
fi
abort_case "QMP_abort(7) on node 1 of 2" 2 abort nonzero "QMP m1,n2@$(qmp_host_of 1) error: abort: 7"

for np in $QMP_SHAPES; do
    qmp_run "errors, np=$np" "$np" qmp_error_test || continue
    [ "$np" -eq 4 ] || continue
    # Each failure is said when it happens: where every node gives the same
    # arguments (the layout, a relative declaration without a topology),
    # once for the job by node 0; otherwise by each node that failed.
    for once in "QMP_layout_grid: the lattice 3x3x3x3 has not enough prime factors for 4 nodes" \
        "QMP_declare_send_relative: no logical topology is declared on the communicator"; do
        said=$(grep -F "error: $once" "$QMP_ERR" || true)
        if [ "$(echo "$said" | grep -c .)" -ne 1 ] ||
            ! echo "$said" | grep -q "^QMP m0,n4@$(qmp_host_of 0) error: $once (every node gives the same arguments: said once, here)\$"; then
            qmp_fail "errors, np=4: expected '$once' once, by node 0, found:"
            echo "$said" | sed 's/^/  | /'
        fi
    done
    each="QMP_declare_send_to: node -1 is out of range: the communicator has 4 nodes"
    for r in 0 1 2 3; do
        if [ "$(grep -cxF "QMP m$r,n4@$(qmp_host_of "$r") error: $each" "$QMP_ERR")" -ne 1 ]; then
            qmp_fail "errors, np=4: expected node $r to say '$each' once"
            grep -F "$each" "$QMP_ERR" | sed 's/^/  | /'
        fi
    done
done
exit $qmp_status
