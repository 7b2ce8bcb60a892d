#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
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
# the better of Open MPI's two figures.  A row where QMP is behind by less
# than the larger of the two figures' spreads over the runs ((largest -
# smallest) / median) is a tie, not a miss: the runs cannot tell the two
# apart (over UCX both sides run UCX's same protocols, and little but noise
# separates them).  Ties count as "at" for the goal and are listed as such.
#
# UCX's own ucx_perftest (Debian: ucx-utils) runs in each run too, a
# server and a client: tag_lat (half round trip) for the latency rows and
# tag_bw (a stream of messages, not a ping-pong) for the bandwidth rows.  By
# default both are on this node, over shared memory (UCX_TLS=shm,self), on
# the same two cores (-c 0, -c 1); run-hosts-bench.sh puts the server on h2
# and the client on h1, over UCX's tcp.  Goal on one node: QMP's latency
# from 8 B to 4 KiB at most 1.0x UCX's (between hosts, for reading only).
#
# BENCH_TRANSPORT=ucx (make bench-ucx; run-hosts-bench.sh passes it on):
# QMP over its ucx transport (MCA msg=self,ucx: UCX for every peer) against
# Open MPI's pml ucx, so both sides are UCX's tag matching over the same
# UCX transports, and the goal compares the two; ucx_perftest is beside
# them for reading (QMP over UCX is UCX's own work and more: the goal
# against it is the sm transport's, in bench-qmp).  This Open MPI (4.1) takes
# pml ucx only on the devices and transports its pml_ucx_devices and
# pml_ucx_tls name (by default Mellanox's: mlx*, rc/dc/ud), so "any" for
# both: it fails to select pml ucx otherwise on a machine without them.
#
# Environment (set by test/bench/Makefile.am): MPIRUN, MPICC, srcdir,
# mca_env_prefix, ompi_info (may be empty: with BENCH_TRANSPORT=ucx, an
# Open MPI whose ompi_info lists no pml ucx gets no columns), BENCH_QMP (the
# bench_qmp program), and the MCA environment for QMP; optionally
# BENCH_ROUNDS, BENCH_QMP_FLAGS (--scale F, --max-size BYTES),
# BENCH_QMP_RUNS, BENCH_MPIRUN_FLAGS (more mpirun options for both),
# BENCH_TRANSPORT, BENCH_MPI_NAME (what the Open MPI columns are called:
# "Open MPI", with BENCH_TRANSPORT=ucx "Open MPI pml ucx"), BENCH_PLACEMENT
# (mpirun's placement, default "--bind-to core --map-by core": both
# processes on this node; run-hosts-bench.sh puts one on each of two hosts)
# and BENCH_WHERE (how the table's title says where they ran).  Where
# ucx_perftest runs: BENCH_UCX_TLS (UCX_TLS for it, default shm,self;
# UCX_NET_DEVICES from the environment), BENCH_UCX_SERVER and
# BENCH_UCX_CLIENT (command prefixes, split at spaces, that run the server
# and the client elsewhere; default none), BENCH_UCX_ADDRESS (where the
# client finds the server, default 127.0.0.1), BENCH_UCX_CORES (the
# server's and the client's core, default "0 1"; empty: unbound) and
# BENCH_UCX_WHERE (how the notes under the table say where it ran).
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

qmp_name="QMP (Meridian)"
mpi_name=${BENCH_MPI_NAME:-Open MPI}
mpirun_flags=${BENCH_MPIRUN_FLAGS:-}
case ${BENCH_TRANSPORT:-} in
'') ;;
ucx)
    [ -n "${mca_env_prefix:-}" ] || fail "BENCH_TRANSPORT=ucx needs mca_env_prefix (Makefile.am sets it)"
    export "${mca_env_prefix}msg=self,ucx"
    qmp_name="QMP (Meridian) over msg ucx"
    mpi_name=${BENCH_MPI_NAME:-Open MPI pml ucx}
    mpirun_flags="--mca pml ucx --mca pml_ucx_devices any --mca pml_ucx_tls any $mpirun_flags"
    ;;
*) fail "BENCH_TRANSPORT=$BENCH_TRANSPORT: expected ucx, or nothing for each side's own choice" ;;
esac

work=$(mktemp -d "${TMPDIR:-/tmp}/meridian-qmp-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2086 # the flags are meant to split
set -- -np 2 ${BENCH_PLACEMENT:---bind-to core --map-by core} $mpirun_flags
# shellcheck disable=SC2086
bench_flags="--rounds $rounds ${BENCH_QMP_FLAGS:-}"

mpi=yes
if [ -z "${MPICC:-}" ] || ! command -v "$MPICC" >/dev/null 2>&1; then
    echo "mpicc was not found: no Open MPI columns (Debian: libopenmpi-dev)" >&2
    mpi=no
elif [ "${BENCH_TRANSPORT:-}" = ucx ] && [ -n "${ompi_info:-}" ] &&
    ! "$ompi_info" --parsable 2>/dev/null | grep -q '^mca:pml:ucx:'; then
    echo "$ompi_info lists no pml ucx (an Open MPI built without UCX): no Open MPI columns" >&2
    mpi=no
elif ! "$MPICC" -O2 -o bench_mpi "$srcdir/bench_mpi.c" 2>"$work/mpicc.log"; then
    cat "$work/mpicc.log" >&2
    fail "$MPICC could not build bench_mpi"
fi

ucx=no
if command -v ucx_perftest >/dev/null 2>&1; then
    ucx=yes
else
    echo "ucx_perftest was not found: no UCX column (Debian: ucx-utils)" >&2
fi
ucx_tls=${BENCH_UCX_TLS:-shm,self}
ucx_address=${BENCH_UCX_ADDRESS:-127.0.0.1}
# -c CORE for the server and for the client, or nothing (unbound).
ucx_cores=${BENCH_UCX_CORES-0 1}
ucx_server_bind=
ucx_client_bind=
ucx_where="on this node, unbound"
if [ -n "$ucx_cores" ]; then
    ucx_server_bind="-c ${ucx_cores%% *}"
    ucx_client_bind="-c ${ucx_cores##* }"
    ucx_where="on this node, cores ${ucx_cores%% *} and ${ucx_cores##* }"
fi
ucx_where=${BENCH_UCX_WHERE:-$ucx_where}
# The column is named by UCX_TLS's first transport: "UCX shm", "UCX tcp".
ucx_label="UCX ${ucx_tls%%,*}"
ucx_port=$((20000 + $$ % 20000))
# ucx_one TEST SIZE: one ucx_perftest server and client; prints the
# client's final line's overall latency (us) or bandwidth (MB/s, 10^6:
# ucx_perftest's MB are 2^20 bytes).
ucx_one() {
    test=$1 size=$2
    iterations=$((81920000 / (size + 4096)))
    [ "$iterations" -le 20000 ] || iterations=20000
    [ "$iterations" -ge 100 ] || iterations=100
    ucx_port=$((ucx_port + 1))
    # shellcheck disable=SC2086 # the prefixes and -c CORE are meant to split
    UCX_TLS=$ucx_tls timeout 60 ${BENCH_UCX_SERVER:-} ucx_perftest -t "$test" $ucx_server_bind \
        -s "$size" -n "$iterations" -p "$ucx_port" >/dev/null 2>&1 &
    server=$!
    tries=0
    line=
    while [ -z "$line" ] && [ $tries -lt 20 ]; do
        sleep 0.1
        # shellcheck disable=SC2086
        line=$(UCX_TLS=$ucx_tls timeout 60 ${BENCH_UCX_CLIENT:-} ucx_perftest "$ucx_address" -t "$test" \
            $ucx_client_bind -s "$size" -n "$iterations" -p "$ucx_port" 2>/dev/null | grep '^Final:' || true)
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
        echo "Run $run of $runs: UCX: ucx_perftest -t tag_lat, tag_bw (UCX_TLS=$ucx_tls${UCX_NET_DEVICES:+ UCX_NET_DEVICES=$UCX_NET_DEVICES}, $ucx_where)"
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
# The spread of the runs' figures, by case: (largest - smallest) / median.
spreads() {
    awk -F'|' "$bench_median_awk"'
        NF >= 2 {
            key = $1; for (i = 2; i < NF; ++i) key = key "|" $i
            if (!(key in values)) { order[++n] = key; lo[key] = $NF; hi[key] = $NF }
            values[key] = values[key] " " $NF
            if ($NF + 0 < lo[key] + 0) lo[key] = $NF
            if ($NF + 0 > hi[key] + 0) hi[key] = $NF
        }
        END {
            for (i = 1; i <= n; ++i) {
                m = median(values[order[i]])
                print "spread|" order[i] "|" (m > 0 ? (hi[order[i]] - lo[order[i]]) / m : 0)
            }
        }' "$1"
}
medians "$work/qmp.all" >"$work/qmp.out"
medians "$work/mpi.all" >"$work/mpi.out"
spreads "$work/qmp.all" >>"$work/qmp.out"
spreads "$work/mpi.all" >>"$work/mpi.out"
medians "$work/ucx.all" >"$work/ucx.out"
ompi_version=$("$MPIRUN" --version 2>/dev/null | sed -n '1s/.*(Open MPI) *//p')

# The UCX goal holds on one node only, for QMP's own transports: between
# hosts, and for QMP over UCX, the column is for reading.
ucx_goal=1
[ -z "${BENCH_WHERE:-}" ] && [ "${BENCH_TRANSPORT:-}" != ucx ] || ucx_goal=0

echo
echo "$qmp_name against $mpi_name (${ompi_version:-?}): 2 processes ${BENCH_WHERE:-on $(uname -n), bound to cores}" \
    "($(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)); medians of $runs runs, each the best of $rounds rounds"
awk -F'|' -v mpi_name="$mpi_name" -v ucx_label="$ucx_label" -v ucx_goal_on="$ucx_goal" -v runs_n="$runs" \
    -v ucx_note="$ucx_label: ucx_perftest, UCX_TLS=$ucx_tls${UCX_NET_DEVICES:+ UCX_NET_DEVICES=$UCX_NET_DEVICES}, $ucx_where:" '
    BEGIN {
        # The Open MPI column as wide as its name.
        w = length(mpi_name) > 10 ? length(mpi_name) : 10
        fmt = "%-52s %-5s %10s %" w "s %10s %8s %10s %8s  %s\n"
    }
    function size_name(s) {
        if (s >= 1048576) return sprintf("%d MiB", s / 1048576)
        if (s >= 1024) return sprintf("%d KiB", s / 1024)
        return sprintf("%d B", s)
    }
    function cell(v) { return v == "" ? "-" : sprintf("%.2f", v) }
    # row LABEL UNIT QMP MPI MPI_PERSISTENT HIGHER_IS_BETTER UCX UCX_GOAL
    #     QMP_SPREAD MPI_SPREAD MPI_PERSISTENT_SPREAD
    # A row where QMP is behind by less than the larger of the two figures
    # spreads over their runs is a tie: that difference is within what
    # either program moves from run to run (each figure is a median).
    function row(label, unit, q, m, p, higher, u, ucx_goal, qs, ms, ps,    best, spread, ratio, verdict, uratio, worse) {
        best = m; spread = ms
        if (p != "" && (best == "" || (higher ? p > best : p < best))) { best = p; spread = ps }
        if (qs + 0 > spread + 0) spread = qs
        ratio = "-"; verdict = "-"; uratio = "-"
        if (q != "" && best != "" && best > 0 && q > 0) {
            ratio = sprintf("%.2fx", q / best)
            met = higher ? q >= best : q <= best
            worse = higher ? best / q - 1 : q / best - 1
            if (met) verdict = "met"
            else if (worse < spread + 0) { verdict = sprintf("tie (%.1f%% < %.1f%%)", 100 * worse, 100 * spread); ++ties }
            else verdict = "MISSED"
            ++rows; if (verdict == "MISSED") { ++missed; missed_list = missed_list " " label }
        }
        if (u != "") ++ucx_cells
        if (q != "" && u != "" && u > 0 && q > 0) {
            uratio = sprintf("%.2fx", q / u)
            if (ucx_goal && ucx_goal_on) {
                umet = q <= u
                verdict = verdict (umet ? ", UCX met" : ", UCX MISSED")
                ++urows; if (!umet) ++umissed
            }
        }
        printf fmt, label, unit, cell(q), cell(m), cell(p), ratio, cell(u), uratio, verdict
    }
    { file = FILENAME ~ /qmp\.out$/ ? 1 : FILENAME ~ /mpi\.out$/ ? 2 : 3 }
    file == 1 && $1 == "pp" { q_pp[$2] = $3; size[++nsizes] = $2 }
    file == 1 && $1 == "halo" { q_halo[$2] = $4; halo_bytes[$2] = $3; halo[++nhalos] = $2 }
    file == 1 && $1 == "sum" { q_sum = $2 }
    file == 1 && $1 == "spread" && $2 == "pp" { q_spread[$3] = $4 }
    file == 1 && $1 == "spread" && $2 == "halo" { q_halo_spread[$3] = $5 }
    file == 1 && $1 == "spread" && $2 == "sum" { q_sum_spread = $3 }
    file == 2 && $1 == "pp" { m_pp[$2] = $3 }
    file == 2 && $1 == "pp-persistent" { p_pp[$2] = $3 }
    file == 2 && $1 == "halo" { p_halo[$2] = $4 }
    file == 2 && $1 == "sum" { m_sum = $2 }
    file == 2 && $1 == "spread" && $2 == "pp" { m_spread[$3] = $4 }
    file == 2 && $1 == "spread" && $2 == "pp-persistent" { p_spread[$3] = $4 }
    file == 2 && $1 == "spread" && $2 == "halo" { p_halo_spread[$3] = $5 }
    file == 2 && $1 == "spread" && $2 == "sum" { m_sum_spread = $3 }
    file == 3 && $1 == "lat" { u_lat[$2] = $3 }
    file == 3 && $1 == "bw" { u_bw[$2] = $3 }
    END {
        printf fmt, "case", "unit", "QMP", mpi_name, "persistent", "QMP/MPI", ucx_label, "QMP/UCX", "goal"
        for (i = 1; i <= nsizes; ++i) {
            s = size[i]
            row("latency (half round trip) " size_name(s), "us", q_pp[s], m_pp[s], p_pp[s], 0, u_lat[s], s <= 4096,
                q_spread[s], m_spread[s], p_spread[s])
        }
        for (i = 1; i <= nsizes; ++i) {
            s = size[i]
            q = q_pp[s] != "" ? s / q_pp[s] : ""
            m = m_pp[s] != "" ? s / m_pp[s] : ""
            p = p_pp[s] != "" ? s / p_pp[s] : ""
            row("bandwidth " size_name(s), "MB/s", q, m, p, 1, u_bw[s], 0, q_spread[s], m_spread[s], p_spread[s])
        }
        for (i = 1; i <= nhalos; ++i) {
            h = halo[i]
            row("halo " h, "us", q_halo[h], "", p_halo[h], 0, "", 0, q_halo_spread[h], "", p_halo_spread[h])
        }
        row("sum of a double (MPI_Allreduce)", "us", q_sum, m_sum, "", 0, "", 0, q_sum_spread, m_sum_spread, "")
        print ""
        print mpi_name ": MPI_Send/MPI_Recv; persistent: MPI_Send_init/MPI_Recv_init + MPI_Start(all)/MPI_Wait(all);"
        print "halo: 4 persistent requests, strided faces as an MPI vector type; sum: MPI_Allreduce(MPI_SUM, 1 double)."
        print "QMP: channels declared once (QMP_declare_send_to/receive_from, QMP_declare_multiple), QMP_start/QMP_wait."
        print "MB = 10^6 bytes; bandwidth = size / half round trip.  QMP/MPI: against the better " mpi_name " figure."
        if (ucx_cells) {
            print ucx_note
            print "latency rows tag_lat (half round trip), bandwidth rows tag_bw (a stream of messages: no goal;"
            print "QMP/UCX only for reading)."
        }
        if (urows) {
            printf "goal (latency 8 B .. 4 KiB <= 1.0x UCX): "
            if (!umissed) print "met in all " urows " rows"
            else print "missed in " umissed " of " urows " rows"
        }
        if (!rows) { print "goal (latency <= 1.0x, bandwidth >= 1.0x " mpi_name "): no " mpi_name " figures to compare"; exit }
        if (ties) {
            print "tie: QMP is behind by less than its figure or the " mpi_name " figure moves over the " runs_n
            print "runs ((largest - smallest) / median): no difference these runs can tell; at, not below."
        }
        printf "goal (latency, halo and sum <= 1.0x, bandwidth >= 1.0x %s): ", mpi_name
        if (!missed) print "met in all " rows " rows" (ties ? " (" ties " of them ties)" : "")
        else print "missed in " missed " of " rows " rows" (ties ? " (and " ties " ties)" : "")
    }' "$work/qmp.out" "$work/mpi.out" "$work/ucx.out"
