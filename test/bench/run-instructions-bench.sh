#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Benchmark: what a small message costs in instructions, QMP against Open
# MPI, counted rather than timed (so it does not move with the machine's
# load).  Not part of `make check`; run it with
#
#   make -C test/bench bench-instructions      (from the build directory)
#
# bench_qmp and bench_mpi (run-qmp-bench.sh says what they are) run their
# 8-byte ping-pong only (--pingpong-only --max-size 8 --rounds 1, --scale
# 0.1: 2501 round trips) under `mpirun -np 2 --bind-to core --map-by core`,
# rank 1 under valgrind's callgrind, which counts the instructions it runs
# inside the ping-pong function (pingpong: QMP_start and QMP_wait of the
# receive, then of the send; pingpong_blocking: MPI_Recv, then MPI_Send),
# whatever they call, library code and UCX's included.  Rank 0 runs at full
# speed, so rank 1 finds most messages there at its first poll: the count is
# that of the work, not of waiting -- on an idle machine: when other work
# takes rank 0's core, rank 1 polls for its messages and the count grows
# (each figure is the least of BENCH_INSTRUCTION_RUNS runs, default 3, for
# that).  Two pairs:
#   - each side's own choice on one node: QMP's sm transport against Open
#     MPI's ob1 and vader;
#   - both over UCX: QMP's ucx transport (MCA msg=self,ucx) against Open
#     MPI's pml ucx (pml_ucx_devices and pml_ucx_tls "any", as bench-ucx).
# The table gives instructions per round trip of rank 1 and the ratio; no
# goal: it says what the latency rows of bench-qmp and bench-ucx are made of
# at small sizes, where the time is mostly these instructions.  UCX's memory
# hooks are off for both (UCX_MEM_MALLOC_HOOKS=no, UCX_MEM_EVENTS=no: they
# do not work under valgrind).  About 30 s.
#
# Environment (set by test/bench/Makefile.am): as run-qmp-bench.sh's
# (MPIRUN, MPICC, srcdir, mca_env_prefix, ompi_info, BENCH_QMP and the MCA
# environment for QMP), and LIBTOOL (the build tree's libtool).  Needs
# valgrind (Debian: valgrind).
# shellcheck disable=SC2154 # lower-case names come from the environment
set -eu

bench_name="run-instructions-bench"
# shellcheck source=test/bench/bench_lib.sh
. "$srcdir/bench_lib.sh"

need_mpirun
need_mpicc
[ -n "${LIBTOOL:-}" ] || fail "LIBTOOL is not set (Makefile.am sets it)"
export LIBTOOL
command -v valgrind >/dev/null 2>&1 || fail "valgrind was not found (Debian: valgrind)"

work=$(mktemp -d "${TMPDIR:-/tmp}/meridian-instructions-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
mpicc_build "$work/bench_mpi" "$srcdir/bench_mpi.c"

# Rank 1 under callgrind, counting inside the functions $1 matches; the
# others as they are.  Through libtool, which runs a program of the build
# tree (a wrapper script there) as the program itself.
cat >"$work/rank1.sh" <<'EOF'
#!/bin/sh
function=$1 out=$2
shift 2
if [ "${OMPI_COMM_WORLD_RANK:-}" = 1 ]; then
    exec "$LIBTOOL" --mode=execute valgrind -q --tool=callgrind --toggle-collect="$function" \
        --callgrind-out-file="$out" "$@"
fi
exec "$@"
EOF
chmod +x "$work/rank1.sh"
UCX_MEM_MALLOC_HOOKS=no UCX_MEM_EVENTS=no
export UCX_MEM_MALLOC_HOOKS UCX_MEM_EVENTS
flags="--pingpong-only --max-size 8 --rounds 1 --scale 0.1"

runs=${BENCH_INSTRUCTION_RUNS:-3}
whole_number BENCH_INSTRUCTION_RUNS "$runs"

# count NAME FUNCTION MPIRUN-FLAGS PROGRAM: the least over $runs runs of
# rank 1's instructions per round trip inside FUNCTION.
count() {
    least=
    run=1
    while [ $run -le "$runs" ]; do
        one=$(count_once "$@")
        if [ -z "$least" ] || [ "$one" -lt "$least" ]; then
            least=$one
        fi
        run=$((run + 1))
    done
    echo "$least"
}

# count_once NAME FUNCTION MPIRUN-FLAGS PROGRAM: instructions per round
# trip of rank 1 inside FUNCTION, or fails with the program's output.
count_once() {
    name=$1 function=$2 mpirun_flags=$3
    out="$work/$name.callgrind"
    rm -f "$out"
    # shellcheck disable=SC2086 # the flags are meant to split
    if ! "$MPIRUN" -np 2 --bind-to core --map-by core $mpirun_flags \
        "$work/rank1.sh" "$function" "$out" "$4" $flags >"$work/$name.log" 2>&1; then
        cat "$work/$name.log" >&2
        fail "$name: the ping-pong failed"
    fi
    trips=$(sed -n 's/^trips|8|\([0-9]*\)$/\1/p' "$work/$name.log" | head -n 1)
    total=$(sed -n 's/^totals: \([0-9]*\)$/\1/p' "$out" 2>/dev/null)
    if [ -z "$trips" ] || [ -z "$total" ] || [ "$total" -le 0 ]; then
        cat "$work/$name.log" >&2
        fail "$name: no count (trips '$trips', instructions '$total')"
    fi
    echo $((total / trips))
}

p=$mca_env_prefix
export "${p}msg=self,sm"
qmp_own=$(count qmp-own "pingpong*" "" "$BENCH_QMP")
mpi_own=$(count mpi-own "pingpong_blocking*" "" "$work/bench_mpi")
export "${p}msg=self,ucx"
qmp_ucx=$(count qmp-ucx "pingpong*" "" "$BENCH_QMP")
mpi_ucx=
if [ -z "${ompi_info:-}" ] || "$ompi_info" --parsable 2>/dev/null | grep -q '^mca:pml:ucx:'; then
    mpi_ucx=$(count mpi-ucx "pingpong_blocking*" \
        "--mca pml ucx --mca pml_ucx_devices any --mca pml_ucx_tls any" "$work/bench_mpi")
else
    echo "$ompi_info lists no pml ucx: no Open MPI figure over UCX" >&2
fi

version=$("$MPIRUN" --version 2>/dev/null | sed -n 's/.*(Open MPI) \([0-9.]*\).*/\1/p' | head -n 1)
echo
echo "Instructions per 8-byte round trip of the answering process (rank 1 of 2, callgrind), QMP (Meridian) against Open MPI ${version:-}"
awk -v qo="$qmp_own" -v mo="$mpi_own" -v qu="$qmp_ucx" -v mu="$mpi_ucx" '
    function row(name, q, m) {
        if (m == "")
            printf "%-44s %10d %10s %8s\n", name, q, "-", "-"
        else
            printf "%-44s %10d %10d %7.2fx\n", name, q, m, q / m
    }
    BEGIN {
        printf "%-44s %10s %10s %8s\n", "case", "QMP", "Open MPI", "QMP/MPI"
        row("own transports (msg sm / ob1+vader)", qo, mo)
        row("both over UCX (msg ucx / pml ucx)", qu, mu)
    }'
echo
echo "QMP: QMP_start/QMP_wait of a declared receive, then of a send; Open MPI: MPI_Recv, then MPI_Send;"
echo "each counted with all it calls (UCX included), in 2501 round trips.  For reading: no goal."
