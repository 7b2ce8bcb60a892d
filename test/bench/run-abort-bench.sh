#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Benchmark: how fast a job ends when one process fails, QMP against QMP
# over MPI.  Goal: the job ends at least as fast as the reference QMP's
# (QMP over Open MPI: QMP_abort is MPI_Abort there) in every case.  Not part
# of `make check`; run it with
#
#   make -C test/bench bench-abort               (from the build directory)
#   make -C test/bench bench-abort BENCH_ABORT_RUNS=11 BENCH_ABORT_NP=8
#
# bench_abort (bench_abort.c) is built twice: against this build's libqmp
# (by make) and with mpicc, making the MPI calls the reference QMP makes for
# it.  Under `mpirun -np BENCH_ABORT_NP --oversubscribe` (default 4), process
# 1 fails once all are up while the others wait in a barrier: QMP_abort(3) /
# MPI_Abort ("abort"), a SIGSEGV ("crash"), exit(3) without finalizing
# ("exit").  The figure is mpirun's wall time from start to exit, medians
# of BENCH_ABORT_RUNS runs (default 7), QMP and MPI alternating, after one
# untimed round; start-up is in both (bench-init compares it alone).
#
# Environment (set by test/bench/Makefile.am): MPIRUN, MPICC, srcdir,
# BENCH_ABORT_QMP (the QMP program), the MCA environment for QMP.
# shellcheck disable=SC2154 # lower-case names come from the environment
set -eu

bench_name="run-abort-bench"
# shellcheck source=test/bench/bench_lib.sh
. "$srcdir/bench_lib.sh"

runs=${BENCH_ABORT_RUNS:-7}
np=${BENCH_ABORT_NP:-4}
whole_number BENCH_ABORT_RUNS "$runs"
whole_number BENCH_ABORT_NP "$np"
[ "$np" -ge 2 ] || fail "BENCH_ABORT_NP must be 2 or more (process 1 fails), not $np"
need_mpirun
need_mpicc

work=$(mktemp -d "${TMPDIR:-/tmp}/meridian-abort-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
mpicc_build "$work/bench_abort_mpi" "$srcdir/bench_abort.c" -DBENCH_ABORT_MPI

# once CASE API PROGRAM: one run; appends "CASE|API|MS" to the results.  The
# job must fail (mpirun's status non-zero), or the case measured nothing.
once() {
    case_name=$1 api=$2 program=$3
    t0=$(now_ms)
    status=0
    timeout -k 5 120 "$MPIRUN" -np "$np" --oversubscribe "$program" "$case_name" \
        >"$work/out" 2>&1 || status=$?
    t1=$(now_ms)
    [ "$status" -ne 0 ] ||
        fail "$case_name, $api: the job exited 0: $(tail -n 5 "$work/out" | tr '\n' ' ')"
    [ "$status" -ne 124 ] && [ "$status" -ne 137 ] ||
        fail "$case_name, $api: the job was still running after 120 s"
    echo "$case_name|$api|$((t1 - t0))" >>"$work/rows"
}

round() {
    for case_name in abort crash exit; do
        once "$case_name" QMP "$BENCH_ABORT_QMP"
        once "$case_name" MPI "$work/bench_abort_mpi"
    done
}
echo "Timing $runs runs of each at np=$np after one untimed round, QMP and MPI alternating ..."
bench_rounds "$runs" round

ompi_version=$("$MPIRUN" --version 2>/dev/null | sed -n '1s/.*(Open MPI) *//p')
echo
echo "From start to the end of a job whose process 1 fails, np=$np, medians of $runs runs in ms"
echo "($(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)); baseline: QMP over MPI's calls (MPI_Abort, MPI_Barrier),"
echo "Open MPI $ompi_version, under the same mpirun"
awk -F'|' "$bench_median_awk"'
    { key = $1 "|" $2; if (!(key in n)) order[++keys] = key
      n[key]++; ms[key] = ms[key] " " $3 }
    END {
        printf "%-8s %-4s %10s %10s %10s %10s\n", "case", "API", "median", "min", "max", "vs MPI"
        met = 1
        for (k = 1; k <= keys; ++k) {
            key = order[k]; split(key, p, "|")
            m = median(ms[key])
            cnt = split(ms[key], v, " "); lo = v[1]; hi = v[1]
            for (j = 1; j <= cnt; ++j) { if (v[j] + 0 < lo + 0) lo = v[j]; if (v[j] + 0 > hi + 0) hi = v[j] }
            ratio = "-"
            if (p[2] == "QMP") {
                r = m / median(ms[p[1] "|MPI"])
                ratio = sprintf("%.2fx", r)
                if (r > 1.0) met = 0
            }
            printf "%-8s %-4s %10.0f %10.0f %10.0f %10s\n", p[1], p[2], m, lo, hi, ratio
        }
        print "goal: the job ends at least as fast as under QMP over MPI (at most 1.0x):" (met ? " met in every case" : " NOT met")
    }' "$work/rows"
