# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the shell tests that run jobs under Open MPI's mpirun
# (test/injob/*.sh, test/qmp_ofi/ofi_test.sh):
#
#   $mpi               yes when make check found mpirun ($MPIRUN) and
#                      Meridian was built with PMIx ($HAVE_PMIX), else no
#   setp NAME VALUE    set MCA parameter NAME in the environment
#                      (${MCA_ENV_PREFIX}NAME, exported)
#   unsetp NAME        take it out again
#   untag              a filter: "meridian: warning: [rank 1 on h2] ..."
#                      as "meridian: warning: ...", for tests that check what
#                      each process says (with mca_base_message_aggregate=0;
#                      test/datastore/job_messages.sh checks the tags)
#   $ompi_major        the major version of $MPIRUN's Open MPI (4, 5, ...;
#                      empty without mpirun)
#   mpmd ARGS...       a job of several application contexts (A : B):
#                      $MPIRUN, but for Open MPI 5, whose mpirun (5.0.7)
#                      ends with a segmentation fault on any
#                      (open-mpi/ompi#13303): there PRRTE's prterun beside it
#
# As root it also lets mpirun run (Open MPI refuses root without these).
if [ -z "$MPIRUN" ] || [ "$HAVE_PMIX" != yes ]; then
    mpi=no
else
    mpi=yes
fi
if [ "$(id -u)" = 0 ]; then
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
fi
setp() { eval "${MCA_ENV_PREFIX}$1=\$2; export ${MCA_ENV_PREFIX}$1"; }
unsetp() { unset "${MCA_ENV_PREFIX}$1"; }
untag() { sed 's/^\(meridian: [a-z]*: \)\[[^]]*\] /\1/'; }
ompi_major=""
if [ -n "$MPIRUN" ]; then
    ompi_major=$("$MPIRUN" --version 2>/dev/null | sed -n 's/.*(Open MPI) \([0-9][0-9]*\)\..*/\1/p' | head -n 1)
fi
mpmd() {
    if [ "${ompi_major:-0}" -ge 5 ]; then
        if [ "$(id -u)" = 0 ]; then
            "$(dirname "$MPIRUN")/prterun" --allow-run-as-root "$@"
        else
            "$(dirname "$MPIRUN")/prterun" "$@"
        fi
    else
        "$MPIRUN" "$@"
    fi
}
