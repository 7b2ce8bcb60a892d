#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Benchmark: what opening connections costs, QMP's tcp path against Open
# MPI's btl tcp.  Goal: QMP's connect cost at most 1.0x Open MPI's at every
# process count.  Not part of `make check`; run it with
#
#   make -C test/bench bench-connect             (from the build directory)
#   make -C test/bench bench-connect BENCH_CONNECT_RUNS=9 BENCH_CONNECT_NP='2 4 16'
#   make -C test/bench bench-connect BENCH_CONNECT_BEFORE=/tmp/old/build
#
# bench_connect (bench_connect.c) is built twice: against this build's
# libqmp (by make) and with mpicc.  Under mpirun on this node, every process
# sends 8 bytes to and receives 8 bytes from every other, all started
# together: the job's first such exchange opens every pair's connection
# (both transports connect lazily, at a pair's first message), the second
# finds them open; first minus second is what connecting costs.  QMP runs
# with --mca msg ^sm (its own TCP sockets: the tcp transport, checked once
# with msg_base_verbose=info), Open MPI with `--mca pml ob1 --mca btl
# tcp,self`.  Each process count of BENCH_CONNECT_NP (default "2 16"; more
# than this node's cores runs with --oversubscribe, without binding) runs
# BENCH_CONNECT_RUNS times (default 5, after one untimed round), QMP and
# Open MPI alternating; a run's figures are its slowest process's, the
# table gives the medians (connect: the median of the runs' differences).
#
# BENCH_CONNECT_BEFORE=BUILDDIR: another Meridian build (an older commit,
# say; its libmeridian.la, libqmp.la and components/qmp_ofi/mca_msg_ofi.la
# built) runs the same QMP program too, in the same rounds: its libqmp
# through LD_LIBRARY_PATH, and its components from the directories of this
# build's component path that it has.
#
# Environment (set by test/bench/Makefile.am): MPIRUN, MPICC, srcdir,
# top_builddir, mca_env_prefix, BENCH_CONNECT_QMP (the QMP program), the MCA
# environment for QMP; optionally BENCH_CONNECT_RUNS, BENCH_CONNECT_NP,
# BENCH_CONNECT_BEFORE.
# shellcheck disable=SC2154 # lower-case names come from the environment
set -eu

bench_name="run-connect-bench"
# shellcheck source=test/bench/bench_lib.sh
. "$srcdir/bench_lib.sh"

runs=${BENCH_CONNECT_RUNS:-5}
whole_number BENCH_CONNECT_RUNS "$runs"
nps=${BENCH_CONNECT_NP:-2 16}
[ -n "$nps" ] || fail "BENCH_CONNECT_NP is empty: expected process counts, such as '2 16'"
for np in $nps; do
    whole_number BENCH_CONNECT_NP "$np"
    [ "$np" -ge 2 ] || fail "BENCH_CONNECT_NP=$nps: a process count below 2 connects nothing"
done
need_mpirun
need_mpicc
[ -x "${BENCH_CONNECT_QMP:-}" ] || fail "the QMP program '${BENCH_CONNECT_QMP:-}' is missing (make bench_connect_qmp)"

work=$(mktemp -d "${TMPDIR:-/tmp}/meridian-connect-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
mpicc_build "$work/bench_connect_mpi" "$srcdir/bench_connect.c" -DBENCH_CONNECT_MPI

component_path_var=${mca_env_prefix}mca_base_component_path
after_path=$(printenv "$component_path_var" || true)
[ -n "$after_path" ] || fail "$component_path_var is not set (run through make bench-connect)"

before=
if [ -n "${BENCH_CONNECT_BEFORE:-}" ]; then
    before=$(cd "$BENCH_CONNECT_BEFORE" 2>/dev/null && pwd) ||
        fail "BENCH_CONNECT_BEFORE=$BENCH_CONNECT_BEFORE: no such directory"
    for built in .libs/libqmp.so .libs/libmeridian.so components/qmp_ofi/.libs/mca_msg_ofi.so; do
        [ -f "$before/$built" ] || fail "BENCH_CONNECT_BEFORE=$before has no $built" \
            "(make libmeridian.la libqmp.la components/qmp_ofi/mca_msg_ofi.la there)"
    done
    # This build's component directories, in the other build, where it has them.
    before_path=$(echo "$after_path" | tr ':' '\n' | awk -v from="$top_builddir/" -v to="$before/" '
        index($0, from) == 1 { print to substr($0, length(from) + 1) }' |
        while read -r dir; do [ ! -d "$dir" ] || echo "$dir"; done | paste -sd: -)
    # The program itself, not libtool's wrapper (which puts this build's
    # libraries first); it must load the other build's libqmp.
    before_program=$(dirname "$BENCH_CONNECT_QMP")/.libs/$(basename "$BENCH_CONNECT_QMP")
    [ -x "$before_program" ] || before_program=$BENCH_CONNECT_QMP
    before_libs=LD_LIBRARY_PATH=$before/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    loads=$(env "$before_libs" ldd "$before_program" 2>/dev/null | awk '$1 ~ /^libqmp\./ { print $3 }')
    case $loads in
    "$before/.libs/"*) ;;
    *) fail "$before_program would load libqmp from '$loads', not from $before/.libs" ;;
    esac
fi

# placement NP: mpirun's options for NP processes on this node.
placement() {
    if [ "$1" -le "$(nproc)" ]; then
        echo "-np $1 --bind-to core --map-by core"
    else
        echo "-np $1 --oversubscribe --bind-to none"
    fi
}

# once API NP COMMAND...: one run of COMMAND --sync FILE; appends
# "NP|API|FIRST|SECOND" (us) to the results and says it.
once() {
    api=$1 np=$2
    shift 2
    : >"$work/sync"
    # shellcheck disable=SC2046 # placement's options are meant to split
    "$MPIRUN" $(placement "$np") "$@" --sync "$work/sync" >"$work/out" 2>"$work/err" ||
        fail "$api, $np processes: $* failed: $(tr '\n' ' ' <"$work/err")"
    awk -F'|' -v api="$api" '$1 == "connect" { printf "%s|%s|%s|%s\n", $2, api, $3, $4; n++ }
        END { exit n != 1 }' "$work/out" >"$work/row" ||
        fail "$api, $np processes: no timing line in: $(cat "$work/out")"
    awk -F'|' '{ printf "  %2d processes %-10s first %10.1f us  second %8.1f us  connect %10.1f us\n",
        $1, $2, $3, $4, $3 - $4 }' "$work/row"
    cat "$work/row" >>"$work/rows"
}
# The environment of QMP's runs (the command after mpirun: env VAR=VALUE ...).
tcp_path=${mca_env_prefix}msg=^sm
# A build from before the transports were components names it otherwise.
before_tcp_path=${mca_env_prefix}msg_ofi_shm=off

# check_tcp LABEL COMMAND...: QMP's run must take the tcp path; each rank
# names its path to each peer at msg_base_verbose=info.
check_tcp() {
    label=$1
    shift
    : >"$work/sync"
    # shellcheck disable=SC2046 # placement's options are meant to split
    "$MPIRUN" $(placement 2) env "${mca_env_prefix}msg_base_verbose=info" "$@" --sync "$work/sync" \
        >"$work/verbose" 2>&1 || fail "$label, msg_base_verbose=info: $(tr '\n' ' ' <"$work/verbose")"
    if ! grep -q 'rank 0 -> rank 1: tcp$' "$work/verbose" || ! grep -q 'rank 1 -> rank 0: tcp$' "$work/verbose"; then
        fail "$label does not take the tcp path: $(grep -- '-> rank' "$work/verbose" | tr '\n' ' ')"
    fi
    echo "$label, msg_base_verbose=info: $(grep -- 'rank 0 -> rank 1' "$work/verbose" | sed 's/.*msg\( ofi\)*: //')"
}
check_tcp QMP env "$tcp_path" "$BENCH_CONNECT_QMP"
[ -z "$before" ] ||
    check_tcp "QMP before" env "$before_tcp_path" "$component_path_var=$before_path" "$before_libs" "$before_program"

: >"$work/rows"
echo "Timing $runs runs at $(echo "$nps" | sed 's/ /, /g') processes after one untimed round, alternating ..."
[ -z "$before" ] || echo "QMP before: $before (components: $before_path)"
round=0
while [ "$round" -le "$runs" ]; do
    if [ "$round" -gt 0 ]; then
        echo "Run $round of $runs:"
    else
        echo "Untimed round:"
        cp "$work/rows" "$work/rows.keep"
    fi
    for np in $nps; do
        once QMP "$np" env "$tcp_path" "$BENCH_CONNECT_QMP"
        once "Open MPI" "$np" --mca pml ob1 --mca btl tcp,self "$work/bench_connect_mpi"
        [ -z "$before" ] || once "QMP before" "$np" \
            env "$before_tcp_path" "$component_path_var=$before_path" "$before_libs" "$before_program"
    done
    [ "$round" -gt 0 ] || cp "$work/rows.keep" "$work/rows"
    round=$((round + 1))
done

ompi_version=$("$MPIRUN" --version 2>/dev/null | sed -n '1s/.*(Open MPI) *//p')
echo
echo "What connecting costs: the first all-to-all of 8-byte messages minus the second, slowest process;"
echo "medians of $runs runs in us on $(uname -n) ($(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg));" \
    "QMP: tcp transport (--mca msg ^sm); Open MPI ${ompi_version:-?}: pml ob1, btl tcp,self"
awk -F'|' -v before="$before" "$bench_median_awk"'
    { key = $1 "|" $2; if (!($1 in seen)) { seen[$1] = 1; nps[++n] = $1 }
      first[key] = first[key] " " $3; second[key] = second[key] " " $4; connect[key] = connect[key] " " ($3 - $4) }
    function cells(key) {
        if (!(key in first)) return sprintf("%10s %9s %10s", "-", "-", "-")
        return sprintf("%10.1f %9.1f %10.1f", median(first[key]), median(second[key]), median(connect[key]))
    }
    END {
        head = sprintf("%10s %9s %10s", "first", "second", "connect")
        printf "%-9s | %-31s | %-31s |", "", "QMP", "Open MPI"
        if (before != "") printf " %-31s |", "QMP before"
        printf " %9s", "connect:"
        if (before != "") printf " %10s", "connect:"
        printf "\n%-9s | %s | %s |", "processes", head, head
        if (before != "") printf " %s |", head
        printf " %9s", "QMP/MPI"
        if (before != "") printf " %10s", "QMP/before"
        printf "\n"
        met = 1
        for (i = 1; i <= n; ++i) {
            p = nps[i]; q = median(connect[p "|QMP"]); m = median(connect[p "|Open MPI"])
            ratio = m > 0 ? sprintf("%.2fx", q / m) : "-"
            if (!(m > 0) || q > m) met = 0
            printf "%-9s | %s | %s |", p, cells(p "|QMP"), cells(p "|Open MPI")
            if (before != "") printf " %s |", cells(p "|QMP before")
            printf " %9s", ratio
            if (before != "") {
                b = median(connect[p "|QMP before"])
                printf " %10s", (b > 0 ? sprintf("%.2fx", q / b) : "-")
            }
            printf "\n"
        }
        print "goal: QMP connect cost at most 1.0x Open MPI'"'"'s:" (met ? " met at every process count" : " NOT met")
    }' "$work/rows"
