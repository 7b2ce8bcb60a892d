#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The PMIx backend between two processes of one job under Open MPI's mpirun
# (datastore_pmix_peer.cc does the checking).  Skipped (77) when configure
# found no mpirun or Meridian was built without PMIx.
if [ -z "$MPIRUN" ]; then
    echo "SKIP: configure found no mpirun (Open MPI's launcher is needed for a PMIx job)"
    exit 77
fi
if [ "$HAVE_PMIX" != yes ]; then
    echo "SKIP: Meridian was built without PMIx"
    exit 77
fi
if [ "$(id -u)" = 0 ]; then
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
fi
# The processes must use PMIx, not fall back to a local store.
eval "${MCA_ENV_PREFIX}mca_base_datastore=pmix; export ${MCA_ENV_PREFIX}mca_base_datastore"

out=$("$MPIRUN" -np 2 --oversubscribe "$PEER" 2>&1)
rc=$?
echo "$out"
if [ $rc -ne 0 ]; then
    echo "FAIL: mpirun exited with $rc"
    exit 1
fi
expected="rank 0: ok
rank 1: ok"
sorted=$(echo "$out" | grep '^rank ' | sort)
if [ "$sorted" != "$expected" ]; then
    echo "FAIL: expected both ranks to report ok"
    exit 1
fi
exit 0
