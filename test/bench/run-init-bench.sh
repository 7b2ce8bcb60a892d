#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Benchmark: start-up and shut-down of a QMP program against an MPI program.
# Goal: QMP_init_msg_passing + QMP_finalize_msg_passing take at most 1.0x
# the time of the launcher's MPI's MPI_Init + MPI_Finalize: Open MPI's for
# one process and for 2 processes under mpirun, MPICH's for 2 and 16 under
# mpiexec.hydra.  Not part of `make check`; run it with
#
#   make -C test/bench bench-init                (from the build directory)
#   make -C test/bench bench-init BENCH_INIT_RUNS=21
#
# bench_init (bench_init.c) is built twice: against this build's libqmp (by
# make, transport from the build tree) and with mpicc.  Each case runs
# BENCH_INIT_RUNS times (default 11, after one untimed run), QMP and MPI
# alternating:
#   - one process: the program started alone (Open MPI's singleton);
#   - 2 processes: `mpirun -np 2 --bind-to core --map-by core PROGRAM`;
#   - where MPICH is installed too, 2 and 16 processes under its mpiexec
#     (hydra) against MPICH's MPI_Init + MPI_Finalize (bench_init built
#     with mpicc.mpich): QMP through PMI-1 (QMP), through PMI-2
#     (QMP-pmi2: mca_base_datastore=pmi2) and, where QMP's MPI part for
#     MPICH is built, through MPICH (QMP-mpi: bench_init_qmp_mpich, MPI_Init
#     inside QMP's init, the job through the MPI bootstrap).
# The QMP-mpi rows include MPI_Init + MPI_Finalize (QMP's MPI part starts
# MPI), so their goal is only reached by a QMP that costs nothing beyond.
# A run's figure is its slowest process's time from main's first line to
# the end of init and to the end of finalize; the table gives the medians,
# and the wall time of the whole command (process start and mpirun
# included; the same launcher for both).
#
# Environment (set by test/bench/Makefile.am): MPIRUN, MPICC, srcdir,
# BENCH_INIT_QMP (the QMP program), BENCH_INIT_QMP_MPICH (the same with
# libqmp_mpich, or empty), the MCA environment for QMP; optionally
# BENCH_INIT_RUNS.
# shellcheck disable=SC2154 # lower-case names come from the environment
set -eu

bench_name="run-init-bench"
# shellcheck source=test/bench/bench_lib.sh
. "$srcdir/bench_lib.sh"

runs=${BENCH_INIT_RUNS:-11}
whole_number BENCH_INIT_RUNS "$runs"
need_mpirun
need_mpicc

work=$(mktemp -d "${TMPDIR:-/tmp}/meridian-init-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
mpicc_build "$work/bench_init_mpi" "$srcdir/bench_init.c" -DBENCH_INIT_MPI

# once CASE API COMMAND...: one run; appends "CASE API INIT TOTAL WALL" (ms)
# to the results, INIT and TOTAL from its slowest process.
once() {
    case_name=$1 api=$2
    shift 2
    t0=$(now_ms)
    "$@" >"$work/out" 2>"$work/err" ||
        fail "$case_name, $api: $* failed: $(tr '\n' ' ' <"$work/err")"
    t1=$(now_ms)
    awk -v c="$case_name" -v a="$api" -v wall=$((t1 - t0)) '
        $1 == "init" { n++; if ($3 > init) init = $3; if ($4 > total) total = $4 }
        END { if (n == 0) exit 1; printf "%s|%s|%.3f|%.3f|%d\n", c, a, init, total, wall }' \
        "$work/out" >>"$work/rows" || fail "$case_name, $api: no timing line in: $(cat "$work/out")"
}

mpirun_np2() { "$MPIRUN" -np 2 --bind-to core --map-by core "$@"; }

# Under MPICH's mpiexec (hydra), where QMP starts through PMI-1, against
# MPICH's own MPI_Init: when both are installed (Debian: mpich, libmpich-dev).
hydra=no
if [ -n "${MPIEXEC_HYDRA:-}" ] && [ -n "${MPICC_MPICH:-}" ] && command -v "$MPICC_MPICH" >/dev/null 2>&1; then
    MPICC=$MPICC_MPICH mpicc_build "$work/bench_init_mpich" "$srcdir/bench_init.c" -DBENCH_INIT_MPI
    hydra=yes
fi
hydra_np2() { "$MPIEXEC_HYDRA" -n 2 -bind-to core "$@"; }
hydra_np16() { "$MPIEXEC_HYDRA" -n 16 "$@"; }
# QMP through PMI-2 there (hydra passes the environment on).
pmi2() (
    eval "${mca_env_prefix}mca_base_datastore=pmi2; export ${mca_env_prefix}mca_base_datastore"
    "$@"
)
mpich_qmp=no
[ $hydra = yes ] && [ -n "${BENCH_INIT_QMP_MPICH:-}" ] && mpich_qmp=yes

: >"$work/rows"
echo "Timing $runs runs of each after one untimed run, QMP and MPI alternating ..."
i=0
while [ "$i" -le "$runs" ]; do
    [ "$i" -gt 0 ] || cp "$work/rows" "$work/rows.keep"
    once "1 process" QMP "$BENCH_INIT_QMP"
    once "1 process" MPI "$work/bench_init_mpi"
    once "2 processes, mpirun" QMP mpirun_np2 "$BENCH_INIT_QMP"
    once "2 processes, mpirun" MPI mpirun_np2 "$work/bench_init_mpi"
    if [ $hydra = yes ]; then
        once "2 processes, hydra" QMP hydra_np2 "$BENCH_INIT_QMP"
        once "2 processes, hydra" MPI hydra_np2 "$work/bench_init_mpich"
        once "2 processes, hydra" QMP-pmi2 pmi2 hydra_np2 "$BENCH_INIT_QMP"
        [ $mpich_qmp = no ] || once "2 processes, hydra" QMP-mpi hydra_np2 "$BENCH_INIT_QMP_MPICH"
        once "16 processes, hydra" QMP hydra_np16 "$BENCH_INIT_QMP"
        once "16 processes, hydra" MPI hydra_np16 "$work/bench_init_mpich"
        once "16 processes, hydra" QMP-pmi2 pmi2 hydra_np16 "$BENCH_INIT_QMP"
        [ $mpich_qmp = no ] || once "16 processes, hydra" QMP-mpi hydra_np16 "$BENCH_INIT_QMP_MPICH"
    fi
    # The first round warms the caches: dropped.
    [ "$i" -gt 0 ] || cp "$work/rows.keep" "$work/rows"
    i=$((i + 1))
done

ompi_version=$("$MPIRUN" --version 2>/dev/null | sed -n '1s/.*(Open MPI) *//p')
echo
mpich_version=
[ $hydra = yes ] && mpich_version="; hydra rows: QMP through PMI-1, QMP-pmi2 through PMI-2, QMP-mpi through MPICH, MPI: MPICH $("$MPIEXEC_HYDRA" --version 2>/dev/null | sed -n 's/^ *Version: *//p' | head -n 1)"
echo "Start-up and shut-down, medians of $runs runs in ms ($(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)); MPI: Open MPI $ompi_version$mpich_version"
awk -F'|' "$bench_median_awk"'
    { key = $1 "|" $2; if (!(key in n)) order[++keys] = key
      n[key]++; init[key] = init[key] " " $3; total[key] = total[key] " " $4; wall[key] = wall[key] " " $5 }
    END {
        printf "%-22s %-8s %10s %16s %10s %12s\n", "case", "API", "init", "init+finalize", "wall", "vs MPI"
        met = 1
        for (k = 1; k <= keys; ++k) {
            key = order[k]; split(key, p, "|")
            mi = median(init[key]); mt = median(total[key]); mw = median(wall[key])
            ratio = "-"
            if (p[2] ~ /^QMP/) {
                mpi = p[1] "|MPI"
                mpi_total = median(total[mpi])
                r = mt / mpi_total
                ratio = sprintf("%.2fx", r)
                if (r > 1.0) { met = 0; missed = missed sprintf("%s%s %s (%s)", missed == "" ? "" : "; ", p[1], p[2], ratio) }
            }
            printf "%-22s %-8s %10.1f %16.1f %10.0f %12s\n", p[1], p[2], mi, mt, mw, ratio
        }
        print "goal: QMP init+finalize at most 1.0x of MPI_Init+MPI_Finalize:" (met ? " met in every case" : " NOT met: " missed)
        print "(QMP-mpi includes MPI_Init and MPI_Finalize: QMP starts MPI there)"
    }' "$work/rows"
