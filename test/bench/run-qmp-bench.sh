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
# Each figure is the best of BENCH_ROUNDS rounds (default 5), each round
# enough iterations to take milliseconds (bench_comm.h), after warm-up.
# The ratio is QMP against the better of Open MPI's two figures.
#
# Environment (set by test/bench/Makefile.am): MPIRUN, MPICC, srcdir,
# BENCH_QMP (the bench_qmp program), and the MCA environment for QMP;
# optionally BENCH_ROUNDS, BENCH_QMP_FLAGS (--scale F, --max-size BYTES),
# BENCH_MPIRUN_FLAGS (more mpirun options for both runs), BENCH_PLACEMENT
# (mpirun's placement, default "--bind-to core --map-by core": both
# processes on this node; run-hosts-bench.sh puts one on each of two hosts)
# and BENCH_WHERE (how the table's title says where they ran).
# shellcheck disable=SC2154 # lower-case names come from the environment
set -eu

fail() {
    echo "run-qmp-bench: $*" >&2
    exit 1
}

rounds=${BENCH_ROUNDS:-5}
case $rounds in
'' | *[!0-9]* | 0) fail "BENCH_ROUNDS=$rounds: expected a whole number >= 1" ;;
esac
if [ -z "${MPIRUN:-}" ] || ! command -v "$MPIRUN" >/dev/null 2>&1; then
    fail "mpirun was not found (configure looks for it in PATH; Debian: openmpi-bin)"
fi
if [ "$(id -u)" = 0 ]; then
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
fi
# Open MPI's own components must not complain about networks nobody uses.
OMPI_MCA_btl_base_warn_component_unused=0
export OMPI_MCA_btl_base_warn_component_unused

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

echo "QMP: $MPIRUN $* $BENCH_QMP $bench_flags"
# shellcheck disable=SC2086
"$MPIRUN" "$@" "$BENCH_QMP" $bench_flags >"$work/qmp.out" ||
    fail "bench_qmp failed (its output: $(tr '\n' ' ' <"$work/qmp.out"))"
: >"$work/mpi.out"
if [ "$mpi" = yes ]; then
    echo "Open MPI: $MPIRUN $* ./bench_mpi $bench_flags"
    # shellcheck disable=SC2086
    "$MPIRUN" "$@" ./bench_mpi $bench_flags >"$work/mpi.out" || fail "bench_mpi failed"
fi
ompi_version=$("$MPIRUN" --version 2>/dev/null | sed -n '1s/.*(Open MPI) *//p')

echo
echo "QMP (Meridian) against Open MPI ${ompi_version:-?}: 2 processes ${BENCH_WHERE:-on $(uname -n), bound to cores}" \
    "($(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)); best of $rounds rounds"
awk -F'|' '
    function size_name(s) {
        if (s >= 1048576) return sprintf("%d MiB", s / 1048576)
        if (s >= 1024) return sprintf("%d KiB", s / 1024)
        return sprintf("%d B", s)
    }
    function cell(v) { return v == "" ? "-" : sprintf("%.2f", v) }
    # row LABEL UNIT QMP MPI MPI_PERSISTENT HIGHER_IS_BETTER
    function row(label, unit, q, m, p, higher,    best, ratio, verdict) {
        best = m
        if (p != "" && (best == "" || (higher ? p > best : p < best))) best = p
        ratio = "-"; verdict = "-"
        if (q != "" && best != "" && best > 0 && q > 0) {
            ratio = sprintf("%.2fx", q / best)
            met = higher ? q >= best : q <= best
            verdict = met ? "met" : "MISSED"
            ++rows; if (!met) { ++missed; missed_list = missed_list " " label }
        }
        printf "%-52s %-5s %10s %10s %10s %8s  %s\n", label, unit, cell(q), cell(m), cell(p), ratio, verdict
    }
    FNR == 1 { file++ }
    file == 1 && $1 == "pp" { q_pp[$2] = $3; size[++nsizes] = $2 }
    file == 1 && $1 == "halo" { q_halo[$2] = $4; halo_bytes[$2] = $3; halo[++nhalos] = $2 }
    file == 1 && $1 == "sum" { q_sum = $2 }
    file == 2 && $1 == "pp" { m_pp[$2] = $3 }
    file == 2 && $1 == "pp-persistent" { p_pp[$2] = $3 }
    file == 2 && $1 == "halo" { p_halo[$2] = $4 }
    file == 2 && $1 == "sum" { m_sum = $2 }
    END {
        printf "%-52s %-5s %10s %10s %10s %8s  %s\n", "case", "unit", "QMP", "Open MPI", "persistent", "QMP/MPI", "goal"
        for (i = 1; i <= nsizes; ++i) {
            s = size[i]
            row("latency (half round trip) " size_name(s), "us", q_pp[s], m_pp[s], p_pp[s], 0)
        }
        for (i = 1; i <= nsizes; ++i) {
            s = size[i]
            q = q_pp[s] != "" ? s / q_pp[s] : ""
            m = m_pp[s] != "" ? s / m_pp[s] : ""
            p = p_pp[s] != "" ? s / p_pp[s] : ""
            row("bandwidth " size_name(s), "MB/s", q, m, p, 1)
        }
        for (i = 1; i <= nhalos; ++i) {
            h = halo[i]
            row("halo " h, "us", q_halo[h], "", p_halo[h], 0)
        }
        row("sum of a double (MPI_Allreduce)", "us", q_sum, m_sum, "", 0)
        print ""
        print "Open MPI: MPI_Send/MPI_Recv; persistent: MPI_Send_init/MPI_Recv_init + MPI_Start(all)/MPI_Wait(all);"
        print "halo: 4 persistent requests, strided faces as an MPI vector type; sum: MPI_Allreduce(MPI_SUM, 1 double)."
        print "QMP: channels declared once (QMP_declare_send_to/receive_from, QMP_declare_multiple), QMP_start/QMP_wait."
        print "MB = 10^6 bytes; bandwidth = size / half round trip.  QMP/MPI: against the better Open MPI figure."
        if (!rows) { print "goal (latency <= 1.0x, bandwidth >= 1.0x Open MPI): no Open MPI figures to compare"; exit }
        printf "goal (latency, halo and sum <= 1.0x, bandwidth >= 1.0x Open MPI): "
        if (!missed) print "met in all " rows " rows"
        else print "missed in " missed " of " rows " rows"
    }' "$work/qmp.out" "$work/mpi.out"
