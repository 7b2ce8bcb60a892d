#!/bin/sh
# Benchmark: Meridian's QMP against Open MPI on 2 processes of this node.
# Goal: latency at most 1.0x and bandwidth at least 1.0x Open MPI's.  Not
# part of `make check`; run it with
#
#   make -C test/bench bench-qmp               (from the build directory)
#   make -C test/bench bench-qmp BENCH_ROUNDS=9 BENCH_QMP_FLAGS='--scale 2'
#
# bench_qmp (QMP, built by make against this build's libqmp, transport from
# the build tree) and bench_mpi (Open MPI, built here with mpicc) measure the
# same cases the same way (bench_comm.h), each under
# `mpirun -np 2 --bind-to core --map-by core`:
#   - ping-pong of 8 B .. 4 MiB: half the round-trip time, and the bandwidth
#     size / half round trip (MB = 10^6 bytes); QMP over persistent channels,
#     Open MPI with MPI_Send/MPI_Recv and with persistent requests;
#   - two 4-D halo exchanges (faces contiguous, and strided);
#   - the global sum of one double: QMP_sum_double against MPI_Allreduce.
# Each run's figure is the best of BENCH_ROUNDS rounds (default 5), each
# round enough iterations to take milliseconds (bench_comm.h), after
# warm-up; the programs run BENCH_QMP_RUNS times (default 3), alternating,
# and the table gives the medians of the runs.  The ratio is QMP against
# the better of Open MPI's two figures.
#
# On one node, UCX's own ucx_perftest (Debian: ucx-utils) runs in each run too,
# over shared memory (UCX_TLS=shm,self) on the same two cores
# (-c 0, -c 1): tag_lat (half round trip) for the latency rows and tag_bw
# (a stream of messages, not a ping-pong) for the bandwidth rows.  Goal:
# QMP's latency from 8 B to 4 KiB at most 1.0x UCX's.
#
# Environment (set by test/bench/Makefile.am): MPIRUN, MPICC, srcdir,
# BENCH_QMP (the bench_qmp program), and the MCA environment for QMP;
# optionally BENCH_ROUNDS, BENCH_QMP_FLAGS (--scale F, --max-size BYTES),
# BENCH_QMP_RUNS, BENCH_MPIRUN_FLAGS (more mpirun options for both), BENCH_PLACEMENT
# (mpirun's placement, default "--bind-to core --map-by core": both
# processes on this node; run-hosts-bench.sh puts one on each of two hosts)
# and BENCH_WHERE (how the table's title says where they ran).
# shellcheck disable=SC2154 # lower-case names come from the environment
set -eu

bench_name="run-qmp-bench"
# shellcheck source=test/bench/bench_lib.sh
. "$srcdir/bench_lib.sh"

rounds=${BENCH_ROUNDS:-5}
whole_number BENCH_ROUNDS "$rounds"
runs=${BENCH_QMP_RUNS:-3}
whole_number BENCH_QMP_RUNS "$runs"
need_mpirun

work=$(mktemp -d "${TMPDIR:-/tmp}/meridian-qmp-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2086 # the flags are meant to split
set -- -np 2 ${BENCH_PLACEMENT:---bind-to core --map-by core} ${BENCH_MPIRUN_FLAGS:-}
# shellcheck disable=SC2086
bench_flags="--rounds $rounds ${BENCH_QMP_FLAGS:-}"

mpi=yes
if [ -z "${MPICC:-}" ] || ! command -v "$MPICC" >/dev/null 2>&1; then
    echo "mpicc was not found: no Open MPI columns (Debian: libopenmpi-dev)" >&2
    mpi=no
elif ! "$MPICC" -O2 -o bench_mpi "$srcdir/bench_mpi.c" 2>"$work/mpicc.log"; then
    cat "$work/mpicc.log" >&2
    fail "$MPICC could not build bench_mpi"
fi

# UCX's figures on this node only (BENCH_WHERE names other places).
ucx=no
if [ -z "${BENCH_WHERE:-}" ]; then
    if command -v ucx_perftest >/dev/null 2>&1; then
        ucx=yes
    else
        echo "ucx_perftest was not found: no UCX column (Debian: ucx-utils)" >&2
    fi
fi
ucx_port=$((20000 + $$ % 20000))
# ucx_one TEST SIZE: one ucx_perftest server and client on cores 0 and 1;
# prints the client's final line's overall latency (us) or bandwidth (MB/s,
# 10^6: ucx_perftest's MB are 2^20 bytes).
ucx_one() {
    test=$1 size=$2
    iterations=$((81920000 / (size + 4096)))
    [ "$iterations" -le 20000 ] || iterations=20000
    [ "$iterations" -ge 100 ] || iterations=100
    ucx_port=$((ucx_port + 1))
    UCX_TLS=shm,self timeout 60 ucx_perftest -t "$test" -c 0 -s "$size" -n "$iterations" \
        -p "$ucx_port" >/dev/null 2>&1 &
    server=$!
    tries=0
    line=
    while [ -z "$line" ] && [ $tries -lt 20 ]; do
        sleep 0.1
        line=$(UCX_TLS=shm,self timeout 60 ucx_perftest 127.0.0.1 -t "$test" -c 1 -s "$size" \
            -n "$iterations" -p "$ucx_port" 2>/dev/null | grep '^Final:' || true)
        tries=$((tries + 1))
    done
    wait "$server" 2>/dev/null || true
    [ -n "$line" ] || fail "ucx_perftest -t $test -s $size gave no result"
    echo "$line" | awk -v t="$test" '{ if (t == "tag_lat") print $5; else printf "%.2f\n", $7 * 1.048576 }'
}

: >"$work/mpi.all"
: >"$work/qmp.all"
: >"$work/ucx.all"
run=1
while [ $run -le "$runs" ]; do
    echo "Run $run of $runs: QMP: $MPIRUN $* $BENCH_QMP $bench_flags"
    # shellcheck disable=SC2086
    "$MPIRUN" "$@" "$BENCH_QMP" $bench_flags >"$work/qmp.out" ||
        fail "bench_qmp failed (its output: $(tr '\n' ' ' <"$work/qmp.out"))"
    cat "$work/qmp.out" >>"$work/qmp.all"
    if [ "$mpi" = yes ]; then
        echo "Run $run of $runs: Open MPI: $MPIRUN $* ./bench_mpi $bench_flags"
        # shellcheck disable=SC2086
        "$MPIRUN" "$@" ./bench_mpi $bench_flags >"$work/mpi.out" || fail "bench_mpi failed"
        cat "$work/mpi.out" >>"$work/mpi.all"
    fi
    if [ "$ucx" = yes ]; then
        echo "Run $run of $runs: UCX: ucx_perftest -t tag_lat, tag_bw (UCX_TLS=shm,self, -c 0 / -c 1)"
        # shellcheck disable=SC2013 # sizes are words
        for size in $(awk -F'|' '$1 == "pp" { print $2 }' "$work/qmp.out"); do
            echo "lat|$size|$(ucx_one tag_lat "$size")" >>"$work/ucx.all"
            echo "bw|$size|$(ucx_one tag_bw "$size")" >>"$work/ucx.all"
        done
    fi
    run=$((run + 1))
done
# The median of the runs' figures, by case (all fields but the last).
medians() {
    awk -F'|' "$bench_median_awk"'
        NF >= 2 {
            key = $1; for (i = 2; i < NF; ++i) key = key "|" $i
            if (!(key in values)) order[++n] = key
            values[key] = values[key] " " $NF
        }
        END { for (i = 1; i <= n; ++i) print order[i] "|" median(values[order[i]]) }' "$1"
}
medians "$work/qmp.all" >"$work/qmp.out"
medians "$work/mpi.all" >"$work/mpi.out"
medians "$work/ucx.all" >"$work/ucx.out"
ompi_version=$("$MPIRUN" --version 2>/dev/null | sed -n '1s/.*(Open MPI) *//p')

echo
echo "QMP (Meridian) against Open MPI ${ompi_version:-?}: 2 processes ${BENCH_WHERE:-on $(uname -n), bound to cores}" \
    "($(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)); medians of $runs runs, each the best of $rounds rounds"
awk -F'|' '
    function size_name(s) {
        if (s >= 1048576) return sprintf("%d MiB", s / 1048576)
        if (s >= 1024) return sprintf("%d KiB", s / 1024)
        return sprintf("%d B", s)
    }
    function cell(v) { return v == "" ? "-" : sprintf("%.2f", v) }
    # row LABEL UNIT QMP MPI MPI_PERSISTENT HIGHER_IS_BETTER UCX UCX_GOAL
    function row(label, unit, q, m, p, higher, u, ucx_goal,    best, ratio, verdict, uratio) {
        best = m
        if (p != "" && (best == "" || (higher ? p > best : p < best))) best = p
        ratio = "-"; verdict = "-"; uratio = "-"
        if (q != "" && best != "" && best > 0 && q > 0) {
            ratio = sprintf("%.2fx", q / best)
            met = higher ? q >= best : q <= best
            verdict = met ? "met" : "MISSED"
            ++rows; if (!met) { ++missed; missed_list = missed_list " " label }
        }
        if (q != "" && u != "" && u > 0 && q > 0) {
            uratio = sprintf("%.2fx", q / u)
            if (ucx_goal) {
                umet = q <= u
                verdict = verdict (umet ? ", UCX met" : ", UCX MISSED")
                ++urows; if (!umet) ++umissed
            }
        }
        printf "%-52s %-5s %10s %10s %10s %8s %10s %8s  %s\n", label, unit, cell(q), cell(m), cell(p), ratio, cell(u), uratio, verdict
    }
    { file = FILENAME ~ /qmp\.out$/ ? 1 : FILENAME ~ /mpi\.out$/ ? 2 : 3 }
    file == 1 && $1 == "pp" { q_pp[$2] = $3; size[++nsizes] = $2 }
    file == 1 && $1 == "halo" { q_halo[$2] = $4; halo_bytes[$2] = $3; halo[++nhalos] = $2 }
    file == 1 && $1 == "sum" { q_sum = $2 }
    file == 2 && $1 == "pp" { m_pp[$2] = $3 }
    file == 2 && $1 == "pp-persistent" { p_pp[$2] = $3 }
    file == 2 && $1 == "halo" { p_halo[$2] = $4 }
    file == 2 && $1 == "sum" { m_sum = $2 }
    file == 3 && $1 == "lat" { u_lat[$2] = $3 }
    file == 3 && $1 == "bw" { u_bw[$2] = $3 }
    END {
        printf "%-52s %-5s %10s %10s %10s %8s %10s %8s  %s\n", "case", "unit", "QMP", "Open MPI", "persistent", "QMP/MPI", "UCX", "QMP/UCX", "goal"
        for (i = 1; i <= nsizes; ++i) {
            s = size[i]
            row("latency (half round trip) " size_name(s), "us", q_pp[s], m_pp[s], p_pp[s], 0, u_lat[s], s <= 4096)
        }
        for (i = 1; i <= nsizes; ++i) {
            s = size[i]
            q = q_pp[s] != "" ? s / q_pp[s] : ""
            m = m_pp[s] != "" ? s / m_pp[s] : ""
            p = p_pp[s] != "" ? s / p_pp[s] : ""
            row("bandwidth " size_name(s), "MB/s", q, m, p, 1, u_bw[s], 0)
        }
        for (i = 1; i <= nhalos; ++i) {
            h = halo[i]
            row("halo " h, "us", q_halo[h], "", p_halo[h], 0, "", 0)
        }
        row("sum of a double (MPI_Allreduce)", "us", q_sum, m_sum, "", 0, "", 0)
        print ""
        print "Open MPI: MPI_Send/MPI_Recv; persistent: MPI_Send_init/MPI_Recv_init + MPI_Start(all)/MPI_Wait(all);"
        print "halo: 4 persistent requests, strided faces as an MPI vector type; sum: MPI_Allreduce(MPI_SUM, 1 double)."
        print "QMP: channels declared once (QMP_declare_send_to/receive_from, QMP_declare_multiple), QMP_start/QMP_wait."
        print "MB = 10^6 bytes; bandwidth = size / half round trip.  QMP/MPI: against the better Open MPI figure."
        if (urows) {
            print "UCX: ucx_perftest over shared memory, same cores: latency rows tag_lat (half round trip), bandwidth"
            print "rows tag_bw (a stream of messages: no goal; QMP/UCX only for reading)."
            printf "goal (latency 8 B .. 4 KiB <= 1.0x UCX): "
            if (!umissed) print "met in all " urows " rows"
            else print "missed in " umissed " of " urows " rows"
        }
        if (!rows) { print "goal (latency <= 1.0x, bandwidth >= 1.0x Open MPI): no Open MPI figures to compare"; exit }
        printf "goal (latency, halo and sum <= 1.0x, bandwidth >= 1.0x Open MPI): "
        if (!missed) print "met in all " rows " rows"
        else print "missed in " missed " of " rows " rows"
    }' "$work/qmp.out" "$work/mpi.out" "$work/ucx.out"
