#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# pnet and coord across hosts under Slurm: srun --mpi=pmix starts
# cluster_peer on three simulated hosts (contrib/cluster/cluster.sh, with
# Slurm on them by contrib/cluster/slurm.sh: slurmctld on h1, a slurmd on
# each host), two processes each, and the PMIx server every process talks
# to is Slurm's (its pmix plugin in slurmstepd) instead of mpirun's.  Under
# srun the node-leader path is the default (one process per host sets its
# host up); a last job runs in-job.  The checks are pnet_hosts.sh's
# (hosts_checks.sh), whichever path:
#   - each host's inventory from its own interfaces, endpoints on the host's
#     own data address, static ports from the pool and unique on each host,
#     the same allocation in every process (agree=yes), coord_tcp's
#     coordinates and costs from the real interfaces and the switch map;
#   - a plain PMIx client (pmix_reader) on every host reads every process's
#     results;
#   - two jobs at once on the same hosts share no static port on any host,
#     and the port ledger is empty once both are done;
#   - the coordinates-updated event reaches the processes of the sender's
#     host without Slurm killing the step, and through the other hosts'
#     relays every process of a job across hosts (the node-leader path).
# Needs root, iproute2, Slurm and munge, and Meridian built with PMIx;
# skipped otherwise.
# shellcheck disable=SC2154 # srcdir comes from the environment (make check)
# shellcheck source=test/support/hosts_test_lib.sh
. "$srcdir/../support/hosts_test_lib.sh"
for tool in slurmctld slurmd srun munged; do
    if ! command -v $tool >/dev/null 2>&1; then
        echo "SKIP: needs Slurm and munge, no $tool (Debian: apt-get install slurm-wlm munge)"
        exit 77
    fi
done
# shellcheck source=test/support/mpi_test_lib.sh
. "$srcdir/../support/mpi_test_lib.sh"
# Not $mpi: srun starts the jobs, mpirun is not needed.
if [ "$HAVE_PMIX" != yes ]; then
    echo "SKIP: needs Meridian built with PMIx"
    exit 77
fi
MERIDIAN_CLUSTER=s$$
export MERIDIAN_CLUSTER
S=$SLURM_SH
# shellcheck source=test/cluster/hosts_checks.sh
. "$srcdir/hosts_checks.sh"
hosts_up slurm-hosts
if ! timeout 120 "$S" up >"$scratch/slurm-up.out" 2>&1; then
    echo "FAIL: slurm.sh up:"
    cat "$scratch/slurm-up.out"
    exit 1
fi
echo "ok: Slurm up on h1-h3"

hosts_params "$ledger"

# srun in h1; every process gets this environment (srun passes it on).
# Block distribution: ranks 0 and 1 on h1, 2 and 3 on h2, 4 and 5 on h3.
# The hosts share the machine's cores, so a job takes one CPU per node
# (--overcommit): six processes fit however few cores there are, and two
# jobs run side by side instead of one waiting for the other's.
# shellcheck disable=SC2317 # called through run_one_job and the others
cluster_srun() {
    timeout -k 10 120 "$S" srun --mpi=pmix -N 3 -n 6 --overcommit --distribution=block "$@" </dev/null
}

run_one_job cluster_srun
run_reader cluster_srun

# The coordinates-updated event under Slurm's PMIx server: rank 0 changes
# the fabric and both processes of its host hear it, and the step lives on.
# Slurm's server kills the step on any event its default handler sees;
# Meridian's events go to the handlers registered for them alone.  (Slurm
# forwards no client's event to other hosts: run_event below checks that
# Meridian's relays do.)
out=$scratch/event.out
timeout -k 10 120 "$S" srun --mpi=pmix -N 1 -n 2 --overcommit "$EVENT_PEER" >"$out" 2>&1 </dev/null
rc=$?
if [ $rc -ne 0 ] || [ "$(grep -c '^rank [01]: ok' "$out")" -ne 2 ]; then
    fail "the coordinates-updated event under srun (exit $rc):"
    sed 's/^/  /' "$out"
else
    echo "ok: the coordinates-updated event under srun reached both processes of h1"
fi
run_event cluster_srun
run_messages cluster_srun

# Two jobs at once on the same hosts: no port on a host given to both.
run_two_jobs cluster_srun

# The node-leader path (pnet_base_node_leader=auto, the default, under
# srun; the jobs above took it too): Slurm's server sets nothing up, so on
# each host the lowest rank makes the host's share and the host's other
# process reads it; a plain PMIx client on every host then reads every
# process's results.  Three processes say they computed their host's share,
# three that they computed nothing; none ran the whole job.
setp pnet_base_verbose 1
out=$scratch/leader.out
cluster_srun "$PMIX_READER" data:tcp:2 >"$out" 2>&1
rc=$?
ok=$(grep -c '^rank [0-5]: ok (read 6 ranks' "$out")
led=0
followed=0
for r in 0 2 4; do
    grep -q "meridian: pnet: process .*:$r, node h$((r / 2 + 1)): the node's leader set the node's network up (2 processes here); this process computed the node's share\$" "$out" &&
        led=$((led + 1))
    grep -q "meridian: pnet: process .*:$((r + 1)), node h$((r / 2 + 1)): the node's leader set the node's network up (2 processes here); this process computed nothing\$" "$out" &&
        followed=$((followed + 1))
done
injob=$(grep -c 'in-job' "$out")
if [ $rc -ne 0 ] || [ "$ok" -ne 6 ] || [ "$led" -ne 3 ] || [ "$followed" -ne 3 ] || [ "$injob" -ne 0 ]; then
    fail "the node-leader path under srun (exit $rc, $ok of 6 read every rank, $led of 3 leaders, $followed of 3 followers, $injob in-job):"
    sed 's/^/  /' "$out"
else
    echo "ok: the node-leader path under srun: one process per host set up its host, every process read every rank's results"
fi
unsetp pnet_base_verbose
check_ledger_empty "$ledger"

# A launch mistake: srun without PMIx (--mpi=none here; a site default that
# is not pmix does the same) starts four tasks that would each be a job of
# one, "node 0 of 1".  Each stops with the launcher and the fix instead.
out=$scratch/nopmix.out
timeout -k 10 120 "$S" srun --mpi=none -N 2 -n 4 --overcommit "$PEER" >"$out" 2>&1 </dev/null
rc=$?
said=$(grep -c '^meridian: error: srun started this process as task [0-3] of 4 without PMIx (its --mpi plugin, or the site.s MpiDefault, is none or not pmix): every task would run as a job of one. Run it with srun --mpi=pmix ' "$out")
if [ $rc -eq 0 ] || [ "$said" -ne 4 ] || grep -q '^rank ' "$out"; then
    fail "srun --mpi=none: each of the 4 tasks stops, naming srun and --mpi=pmix (exit $rc, said by $said of 4):"
    sed 's/^/  /' "$out"
else
    echo "ok: srun --mpi=none: each of the 4 tasks stopped, naming srun and --mpi=pmix"
fi
check_ledger_empty "$ledger"

# In-job under srun (pnet_base_node_leader=no): every process computes the
# whole job, with the same answers.
setp pnet_base_node_leader no
run_one_job cluster_srun
unsetp pnet_base_node_leader
check_ledger_empty "$ledger"

exit $status
