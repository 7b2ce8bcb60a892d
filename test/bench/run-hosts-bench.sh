#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Benchmark between two hosts: bench-qmp's cases (ping-pong 8 B .. 4 MiB,
# the two halos, the global sum) with one process on each of two simulated
# hosts (contrib/cluster/cluster.sh: h1 and h2 on switch data0), QMP over
# its tcp transport (libfabric's tcp;ofi_rxm with MERIDIAN_MCA_msg=^tcp in
# the environment: the cluster's agent hands mpirun's environment to the
# other host) and Open MPI over its btl tcp, both on the hosts' eth0 (the
# same bridge), mpirun's own traffic on mgmt0.  Goal as bench-qmp's:
# latency at most 1.0x and bandwidth at least 1.0x Open MPI's.  Needs root.
# UCX's ucx_perftest runs beside them in each run, its server on h2 and its
# client on h1, unbound, over UCX's tcp on eth0 (UCX_TLS=tcp,self,
# UCX_NET_DEVICES=eth0), its own connection on mgmt0.
#
# BENCH_TRANSPORT=ucx (make bench-hosts-ucx): QMP over its ucx transport
# (MCA msg=self,ucx) against Open MPI's pml ucx (run-qmp-bench.sh), both
# over UCX's tcp on eth0 with the same UCX_TLS and UCX_NET_DEVICES as
# ucx_perftest: without UCX_NET_DEVICES, pml ucx spreads its messages over
# eth0 and mgmt0.
#
#   make -C test/bench bench-hosts                (from the build directory)
#   make -C test/bench bench-hosts BENCH_HOST_RUNS=5 BENCH_ROUNDS=3
#   make -C test/bench bench-hosts-ucx BENCH_HOST_RUNS=3
#
# Both sides share the machine's cores with the kernel's network work (the
# veth pairs and the bridge are softirq time on the same CPUs), so one run
# says little: run-qmp-bench.sh runs BENCH_HOST_RUNS times (default 3),
# QMP and Open MPI alternating within each run, and the summary gives, per
# case, the median of each side over the runs (UCX's too), the ratio of
# the medians, and how far the runs spread ((max - min) / median, the
# noise); QMP behind Open MPI by less than the larger of the two noises is a
# tie, which counts as "at" for the goal (as in run-qmp-bench.sh).
# Environment: as run-qmp-bench.sh's, plus CLUSTER (cluster.sh).
# shellcheck disable=SC2154 # lower-case names come from the environment
set -eu

bench_name="run-hosts-bench"
# shellcheck source=test/bench/bench_lib.sh
. "$srcdir/bench_lib.sh"

[ "$(id -u)" = 0 ] || fail "needs root: the hosts are network namespaces"
runs=${BENCH_HOST_RUNS:-3}
whole_number BENCH_HOST_RUNS "$runs"
need_mpirun

MERIDIAN_CLUSTER=b$$
export MERIDIAN_CLUSTER
work=$(mktemp -d "${TMPDIR:-/tmp}/meridian-hosts-bench.XXXXXX")
# shellcheck disable=SC2317 # the trap's
cleanup() {
    "$CLUSTER" down
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
"$CLUSTER" up 2 >"$work/up.out" 2>&1 || fail "cluster.sh up 2: $(cat "$work/up.out")"

cat >"$work/mpirun" <<EOF
#!/bin/sh
exec "$CLUSTER" exec h1 "$MPIRUN" --host h1:1,h2:1 \\
    --mca plm_rsh_agent "$CLUSTER agent" --mca oob_tcp_if_include 10.78.0.0/24 "\$@"
EOF
chmod +x "$work/mpirun"
MPIRUN=$work/mpirun
# QMP on the data plane; Open MPI's tcp btl on the same NIC, alone.
FI_TCP_IFACE=eth0
# UCX on the data plane too, the same for all three in the ucx runs.
UCX_TLS=tcp,self
UCX_NET_DEVICES=eth0
# Unbound: every simulated host has all the machine's cores, so binding
# each process to its host's first core would put both on one real core.
BENCH_PLACEMENT="--map-by node --bind-to none"
case ${BENCH_TRANSPORT:-} in
'')
    BENCH_MPIRUN_FLAGS="--mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include eth0 ${BENCH_MPIRUN_FLAGS:-}"
    mpi_name="Open MPI"
    ;;
ucx)
    # run-qmp-bench.sh adds pml ucx; the cluster's agent hands UCX_TLS and
    # UCX_NET_DEVICES on to h2 with the rest of mpirun's environment.
    export UCX_TLS
    mpi_name="Open MPI pml ucx"
    ;;
*) fail "BENCH_TRANSPORT=$BENCH_TRANSPORT: expected ucx, or nothing for the default transports" ;;
esac
mpi_name=${BENCH_MPI_NAME:-$mpi_name}
BENCH_WHERE="on h1 and h2 (simulated hosts, one switch), one each, unbound"
# Each of our runs is one run of run-qmp-bench.sh.
BENCH_QMP_RUNS=1
# ucx_perftest: server on h2, client on h1, reaching it on mgmt0.
BENCH_UCX_TLS=$UCX_TLS
BENCH_UCX_SERVER="$CLUSTER exec h2"
BENCH_UCX_CLIENT="$CLUSTER exec h1"
BENCH_UCX_ADDRESS=10.78.0.2
BENCH_UCX_CORES=
BENCH_UCX_WHERE="server on h2, client on h1, unbound"
export MPIRUN FI_TCP_IFACE UCX_NET_DEVICES BENCH_PLACEMENT BENCH_MPIRUN_FLAGS BENCH_WHERE BENCH_QMP_RUNS \
    BENCH_UCX_TLS BENCH_UCX_SERVER BENCH_UCX_CLIENT BENCH_UCX_ADDRESS BENCH_UCX_CORES BENCH_UCX_WHERE

run=1
while [ $run -le "$runs" ]; do
    echo "==== run $run of $runs"
    sh "$srcdir/run-qmp-bench.sh" | tee "$work/run$run.out"
    run=$((run + 1))
done

echo
echo "Between two hosts: medians over $runs runs (noise: (max - min) / median over the runs)"
# The rows of run-qmp-bench.sh's tables: the case in the first 52 columns,
# then unit, QMP, Open MPI, persistent, ratio, UCX, ratio, goal.
awk -v mpi_name="$mpi_name" "$bench_median_awk"'
    BEGIN {
        w = length(mpi_name) > 10 ? length(mpi_name) : 10
        head = "%-52s %-5s %10s %" w "s %8s %10s %8s %7s %7s %7s  %s\n"
        fmt = "%-52s %-5s %10.2f %" w ".2f %7.2fx %10s %8s %7s %7s %7s  %s\n"
    }
    function relspread(list,    n, v, i, lo, hi, m) {
        n = split(list, v, " "); lo = hi = v[1] + 0
        for (i = 2; i <= n; ++i) { if (v[i] + 0 < lo) lo = v[i] + 0; if (v[i] + 0 > hi) hi = v[i] + 0 }
        m = median(list)
        return m > 0 ? (hi - lo) / m : -1
    }
    function spread(list,    r) {
        r = relspread(list)
        return r >= 0 ? sprintf("%.0f%%", 100 * r) : "-"
    }
    # The UCX header: what run-qmp-bench.sh called it ("UCX tcp").
    /^case / && ucx_label == "" { ucx_label = substr($0, index($0, "QMP/MPI") + 8); sub(/^ +/, "", ucx_label); sub(/ +QMP\/UCX.*/, "", ucx_label) }
    length($0) > 60 && $0 !~ /^case / && NF >= 7 && substr($0, 54, 5) ~ /^(us|MB\/s)/ {
        label = substr($0, 1, 52); sub(/ +$/, "", label)
        split(substr($0, 53), f, " ")
        unit = f[1]; q = f[2]; m = f[3]; p = f[4]; u = f[6]
        best = m
        if (p != "-" && (best == "-" || (unit == "MB/s" ? p + 0 > best + 0 : p + 0 < best + 0))) best = p
        if (q == "-" || best == "-") next
        if (!(label in unitof)) { order[++n] = label; unitof[label] = unit }
        qs[label] = qs[label] " " q; ms[label] = ms[label] " " best
        if (u != "-") us[label] = us[label] " " u
    }
    END {
        if (ucx_label == "") ucx_label = "UCX"
        printf head, "case", "unit", "QMP", mpi_name, "QMP/MPI", ucx_label, "QMP/UCX", "noise Q", "noise M", "noise U", "goal"
        for (i = 1; i <= n; ++i) {
            l = order[i]; u = unitof[l]
            q = median(qs[l]); m = median(ms[l])
            higher = u == "MB/s"
            met = higher ? q >= m : q <= m
            # As run-qmp-bench.sh: behind by less than the larger noise
            # (Q or M: spread over the runs) is a tie.
            worse = higher ? (q > 0 ? m / q - 1 : 1) : (m > 0 ? q / m - 1 : 1)
            noise = relspread(ms[l]); if (relspread(qs[l]) > noise) noise = relspread(qs[l])
            verdict = met ? "met" : worse < noise ? "tie" : "MISSED"
            ++rows; if (verdict == "MISSED") ++missed; if (verdict == "tie") ++ties
            uc = "-"; ur = "-"; un = "-"
            if (us[l] != "") {
                x = median(us[l]); uc = sprintf("%.2f", x); un = spread(us[l])
                if (x > 0) ur = sprintf("%.2fx", q / x)
            }
            printf fmt, l, u, q, m, (m > 0 ? q / m : 0), uc, ur,
                spread(qs[l]), spread(ms[l]), un, verdict
        }
        if (ties) print "tie: QMP behind by less than the larger of noise Q and noise M (spreads over the runs)."
        printf "goal (latency, halo and sum <= 1.0x, bandwidth >= 1.0x %s, medians): ", mpi_name
        if (!missed) print "met in all " rows " rows" (ties ? " (" ties " of them ties)" : "")
        else print "missed in " missed " of " rows " rows" (ties ? " (and " ties " ties)" : "")
    }' "$work"/run*.out
