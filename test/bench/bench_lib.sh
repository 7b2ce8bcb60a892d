# SPDX-License-Identifier: BSD-3-Clause
# Shared by the benchmark scripts (sourced; set bench_name first): failing
# with a message, whole-number settings, mpirun and Open MPI's environment,
# building with mpicc, and the median the tables are made of.
# shellcheck shell=sh disable=SC2154 # bench_name: set by the sourcing script

# fail MESSAGE: say it, prefixed with the script's name, and stop.
fail() {
    echo "$bench_name: $*" >&2
    exit 1
}

# whole_number NAME VALUE: VALUE must be a whole number >= 1.
whole_number() {
    case $2 in
    '' | *[!0-9]* | 0) fail "$1=$2: expected a whole number >= 1" ;;
    esac
}

# need_mpirun: MPIRUN must run; Open MPI may run as root and must not
# complain about networks nobody uses.
need_mpirun() {
    if [ -z "${MPIRUN:-}" ] || ! command -v "$MPIRUN" >/dev/null 2>&1; then
        fail "mpirun was not found (configure looks for it in PATH; Debian: openmpi-bin)"
    fi
    if [ "$(id -u)" = 0 ]; then
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
    fi
    OMPI_MCA_btl_base_warn_component_unused=0
    export OMPI_MCA_btl_base_warn_component_unused
}

# need_mpicc: MPICC must run (it builds Open MPI's side of a benchmark).
need_mpicc() {
    if [ -z "${MPICC:-}" ] || ! command -v "$MPICC" >/dev/null 2>&1; then
        fail "mpicc was not found (Debian: libopenmpi-dev)"
    fi
}

# mpicc_build OUTPUT SOURCE [FLAGS...]: SOURCE built with MPICC -O2 into
# OUTPUT; fails with mpicc's messages.
mpicc_build() {
    out=$1 src=$2
    shift 2
    "$MPICC" -O2 "$@" -o "$out" "$src" 2>"$out.log" ||
        { cat "$out.log" >&2; fail "$MPICC could not build $out"; }
}

# An awk function, put before an awk program's text: median(LIST) of the
# numbers in the space-separated LIST.
# shellcheck disable=SC2034 # used by the scripts that source this
bench_median_awk='
    function median(list,    n, v, i, j, t) {
        n = split(list, v, " ")
        for (i = 2; i <= n; ++i)
            for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; --j) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
        return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
'

# now_ms: milliseconds since the epoch (GNU date).
now_ms() { date +%s%N | sed 's/......$//'; }

# bench_rounds RUNS ROUND: runs the function ROUND, which appends its rows
# to $work/rows, RUNS + 1 times; the first round only warms the caches, and
# what it appended is dropped.
bench_rounds() {
    br_runs=$1 br_round=$2
    : >"$work/rows"
    br_i=0
    while [ "$br_i" -le "$br_runs" ]; do
        "$br_round"
        [ "$br_i" -gt 0 ] || : >"$work/rows"
        br_i=$((br_i + 1))
    done
}
