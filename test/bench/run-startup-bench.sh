#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench-startup: what a process of a job of 10^3..10^5 processes (10 per
# node; BENCH_STARTUP_SIZES adds 10^6, where libpmix 4.2 takes about 14
# minutes on a 2-core machine to register the job in the server and as long
# in each process to take in the job's maps, before the clock starts: raise
# BENCH_STARTUP_WAIT, in seconds, and see BENCH_STARTUP_PATHS and _START)
# pays from its start (PMIx connected) to its first answered query (its own
# endpoints), by where the job's network is set up:
#
#   in-job     every process allocates the whole job: bench_alloc's figure
#              for the same job (make_job + allocate), measured in this run
#   launcher   the pnet plugin for libpmix set the node up in the node's
#              PMIx server ("daemon": setup_local_support's time); the
#              process reads (bench_startup)
#   leader     the node's lowest rank sets up the node, the others read
#              (bench_startup; the leader's own time is the max column)
#   pmix       the baseline under both: the PMIx calls alone that any
#              reader of the launcher's results makes (get its results, put
#              them for other hosts, commit, register for the event), on the
#              same node set up by the same plugin, without Meridian
#
# Per process: its CPU time (user + system), median and max of the node's 10
# processes, medians over BENCH_STARTUP_RUNS runs; the median of their wall
# time (the node's processes start together on this machine's few cores, so
# wall time includes the wait for a core); the growth of the median
# process's peak resident size, and of its private memory (the peak also
# counts the pages of libraries' code the process ran, which the node's
# processes share).  Goal: per process at most 1 ms and 1 MiB at every
# size, judged on the median process (the leader does the node's work, as
# the daemon does: per daemon at most 50 ms at 10^6).
set -eu
sizes=${BENCH_STARTUP_SIZES:-1000,10000,100000}
runs=${BENCH_STARTUP_RUNS:-3}
# BENCH_STARTUP_PATHS measures some of the paths only (a 10^6 run of one path
# takes over an hour here); the others print as "-".
paths=${BENCH_STARTUP_PATHS:-pmix,launcher,leader}
# BENCH_STARTUP_START starts only the first K of each node's 10 processes
# (bench_startup --start: at 10^6 each process's own PMIx_Init takes minutes
# here); the figures are then those of the K.  A K below 10 raises the
# median (measured at 10^5 on the leader path: K=5 gave 1.04-1.16 ms where
# K=10 gave 0.78): compare figures of the same K only.
start=${BENCH_STARTUP_START:-10}
work=$(mktemp -d "${TMPDIR:-/tmp}/startup-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/plugins"
ln -s "$PLUGIN" "$work/plugins/pmix_mca_pnet_meridian.so"
PMIX_MCA_mca_base_component_path="$work/plugins:$PMIX_COMPONENT_DIR"
PMIX_MCA_pnet_meridian_library=$MERIDIAN_LIBRARY_SO
export PMIX_MCA_mca_base_component_path PMIX_MCA_pnet_meridian_library
prefix=$mca_env_prefix
eval "${prefix}pnet_base_requests='id=data,type=tcp,endpts=2'; export ${prefix}pnet_base_requests"
eval "${prefix}pnet_tcp_static_ports='tcp:32000-32999'; export ${prefix}pnet_tcp_static_ports"
eval "${prefix}pnet_tcp_ledger='$work/ports'; export ${prefix}pnet_tcp_ledger"
eval "${prefix}pnet=tcp; export ${prefix}pnet"
eval "${prefix}coord=tcp; export ${prefix}coord"
eval "${prefix}mca_base_component_path=\"\$${prefix}mca_base_component_path:$top_builddir/components/carto_auto/.libs\"; export ${prefix}mca_base_component_path"

nodes=$(echo "$sizes" | tr ',' '\n' | awk '{ printf "%s%d", (NR > 1 ? "," : ""), $1 / 10 }')
echo "in-job: bench_alloc --nodes $nodes --procs-per-node 10 ..." >&2
"$BENCH_ALLOC" --nodes "$nodes" --procs-per-node 10 --min-time 0.2 --naive-max 0 >"$work/alloc"
echo "$paths: bench_startup --sizes $sizes --runs $runs --start $start ..." >&2
"$BENCH_STARTUP" --sizes "$sizes" --runs "$runs" --per-node 10 --start "$start" --paths "$paths" \
    >"$work/startup"

echo "Start-up cost of one process, from PMIx connected to its first answered query"
echo "(10 processes per node; in-job: bench_alloc's make_job + allocate of the whole job;"
echo " pmix: the PMIx calls alone, the floor under the launcher path; launcher and leader:"
echo " CPU ms of the node's processes, median / max, wall ms and peak +MiB of the median"
echo " process, and its private +MiB)"
if [ "$start" != 10 ]; then
    echo "(each node's first $start processes started and measured, of its 10: BENCH_STARTUP_START;"
    echo " fewer than 10 raise the median: compare with figures of the same count only)"
fi
echo
printf '%8s | %9s %7s | %9s %6s | %17s %7s %6s %6s %9s | %17s %7s %6s %6s | %s\n' procs \
    "in-job ms" "+MiB" "pmix cpu" "+MiB" "launcher cpu ms" "wall" "+MiB" "priv" "daemon ms" \
    "leader cpu ms" "wall" "+MiB" "priv" "goal"
awk -v startup="$work/startup" '
    BEGIN {
        while ((getline line < startup) > 0) {
            split(line, f, " ")
            key = f[1] " " f[2]
            wall[key] = f[3] / 1000; med[key] = f[5] / 1000; max[key] = f[6] / 1000
            daemon[key] = f[8] / 1000; kib[key] = f[9]; anon[key] = f[10]
        }
    }
    # bench_alloc: nodes procs | floor ms MiB | ours ms ns/proc MiB +MiB rounds | ...
    $1 ~ /^[0-9]+$/ && $3 == "|" {
        procs = $2; injob_ms = $7; injob_mib = $10
        p = "pmix " procs; l = "launcher " procs; d = "leader " procs
        if (!(p in med) && !(l in med) && !(d in med)) { next }
        ok = 1
        if (l in med) { ok = ok && med[l] <= 1 && kib[l] <= 1024 && daemon[l] <= 50 }
        if (d in med) { ok = ok && med[d] <= 1 && kib[d] <= 1024 }
        pcol = sprintf("%9s %6s", "-", "-")
        lcol = sprintf("%17s %7s %6s %6s %9s", "-", "-", "-", "-", "-")
        dcol = sprintf("%17s %7s %6s %6s", "-", "-", "-", "-")
        if (p in med) { pcol = sprintf("%9.3f %6.2f", med[p], kib[p] / 1024) }
        if (l in med) {
            lcol = sprintf("%7.3f / %7.3f %7.2f %6.2f %6.2f %9.3f", med[l], max[l], wall[l],
                           kib[l] / 1024, anon[l] / 1024, daemon[l])
        }
        if (d in med) {
            dcol = sprintf("%7.3f / %7.3f %7.2f %6.2f %6.2f", med[d], max[d], wall[d],
                           kib[d] / 1024, anon[d] / 1024)
        }
        goal = "-"
        if ((l in med) || (d in med)) { goal = ok ? "met" : "missed" }
        printf "%8d | %9.3f %7.1f | %s | %s | %s | %s\n", procs, injob_ms, injob_mib, pcol, lcol, dcol, goal
    }' "$work/alloc"
echo
echo "goal: per process (median) <= 1 ms CPU and <= 1 MiB at every size; daemon <= 50 ms"
