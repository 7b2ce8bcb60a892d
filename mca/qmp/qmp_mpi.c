/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libqmp_mpi: the MPI communicators under QMP's (qmp_mpi.h says why and
 * how libqmp finds this).  Built with the MPI that configure found; only
 * programs that use MPI link it.
 *
 * Each QMP communicator gets an MPI communicator of its own, split from its
 * parent's with the key its rank in QMP's (so its MPI ranks are QMP's ranks
 * by construction, whatever order QMP chose), the first from
 * MPI_COMM_WORLD: the program's own traffic on MPI_COMM_WORLD never meets
 * what is sent on QMP's communicators, as under QMP over MPI, whose
 * communicators are duplicates.
 */
#include <limits.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mca/qmp/qmp_mpi.h"

/* MPI was initialized here (and is finalized here). */
static int started_mpi = 0;
static MPI_Comm world = MPI_COMM_NULL;
/* The datastore's own duplicate of MPI_COMM_WORLD (allgather). */
static MPI_Comm exchange = MPI_COMM_NULL;

static int say(char *why, size_t why_len, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static int say(char *why, size_t why_len, const char *format, ...)
{
    if (why != NULL && why_len > 0) {
        va_list args;
        va_start(args, format);
        vsnprintf(why, why_len, format, args);
        va_end(args);
    }
    return 1;
}

/* MPI's own text for an error code. */
static const char *mpi_text(int rc, char *buffer, int len)
{
    int got = 0;
    if (MPI_Error_string(rc, buffer, &got) != MPI_SUCCESS || got <= 0 || got >= len) {
        snprintf(buffer, (size_t)len, "MPI error %d", rc);
    }
    return buffer;
}

static const char *library(void)
{
    static char text[MPI_MAX_LIBRARY_VERSION_STRING];
    if (text[0] == '\0') {
        int len = 0;
        if (MPI_Get_library_version(text, &len) != MPI_SUCCESS) {
            snprintf(text, sizeof text, "MPI %d.%d", MPI_VERSION, MPI_SUBVERSION);
        }
        /* The first line only (Open MPI adds its release date and more). */
        for (char *c = text; *c != '\0'; ++c) {
            if (*c == ',' || *c == '\n') {
                *c = '\0';
                break;
            }
        }
    }
    return text;
}

static int init(int level, int *provided, char *why, size_t why_len)
{
    char text[MPI_MAX_ERROR_STRING];
    int initialized = 0;
    int finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (finalized) {
        return say(why, why_len,
                   "MPI was finalized (by an earlier QMP session, or by the program), and MPI "
                   "cannot start twice in one process");
    }
    if (initialized) {
        MPI_Query_thread(provided);
        return 0;
    }
    int rc = MPI_Init_thread(NULL, NULL, level, provided);
    if (rc != MPI_SUCCESS) {
        return say(why, why_len, "MPI_Init_thread failed: %s",
                   mpi_text(rc, text, (int)sizeof text));
    }
    started_mpi = 1;
    return 0;
}

static int start(int rank, int size, int level, void **world_handle, int *provided, char *why,
                 size_t why_len)
{
    /* (QMP_init_msg_passing ran init before Meridian started: here MPI is
     * initialized already, and this asks its level) */
    if (init(level, provided, why, why_len) != 0) {
        return 1;
    }
    int mpi_rank = -1;
    int mpi_size = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
    if (mpi_rank != rank || mpi_size != size) {
        if (started_mpi) {
            MPI_Finalize();
            started_mpi = 0;
        }
        return say(why, why_len,
                   "MPI's job is not QMP's: MPI_COMM_WORLD has %d processes and this one is rank "
                   "%d, QMP's job %d and rank %d (MPI and Meridian must be started by the same "
                   "launcher: mpirun, or srun --mpi=pmix)",
                   mpi_size, mpi_rank, size, rank);
    }
    world = MPI_COMM_WORLD;
    *world_handle = &world;
    return 0;
}

static int split(void *parent, int color, int key, void **comm, char *why, size_t why_len)
{
    char text[MPI_MAX_ERROR_STRING];
    *comm = NULL;
    MPI_Comm *made = NULL;
    if (color >= 0) {
        made = malloc(sizeof *made);
        if (made == NULL) {
            /* Still in the split: the others are in it too. */
            MPI_Comm lost = MPI_COMM_NULL;
            MPI_Comm_split(*(MPI_Comm *)parent, MPI_UNDEFINED, key, &lost);
            return say(why, why_len, "no memory for an MPI communicator");
        }
    }
    MPI_Comm result = MPI_COMM_NULL;
    const int rc =
        MPI_Comm_split(*(MPI_Comm *)parent, color >= 0 ? color : MPI_UNDEFINED, key, &result);
    if (rc != MPI_SUCCESS) {
        free(made);
        return say(why, why_len, "MPI_Comm_split failed: %s", mpi_text(rc, text, (int)sizeof text));
    }
    if (made != NULL) {
        *made = result;
        *comm = made;
    }
    return 0;
}

static void release(void *comm)
{
    MPI_Comm *c = comm;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && *c != MPI_COMM_NULL) {
        MPI_Comm_free(c);
    }
    free(c);
}

static int mpi_running(void)
{
    int initialized = 0;
    int finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    return initialized && !finalized;
}

static void job(int *rank, int *size)
{
    *rank = -1;
    *size = 0;
    if (mpi_running()) {
        MPI_Comm_rank(MPI_COMM_WORLD, rank);
        MPI_Comm_size(MPI_COMM_WORLD, size);
    }
}

/* Out of memory in the middle of a collective: the others are in it, and
 * this process cannot take part, so the job ends here, saying why. */
static void *must_allocate(size_t bytes)
{
    void *p = malloc(bytes > 0 ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr,
                "QMP's MPI part: no memory for %zu bytes of the job's exchange: ending the job\n",
                bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* A collective's end, waited for gently: MPI_Test, a short spin, then
 * sleeps growing to a millisecond, so that the processes already there do
 * not take the CPUs the others still need (start-up on a node with more
 * processes than cores; MPI's own wait polls). */
static int finish(MPI_Request *request)
{
    long pause_ns = 10000;
    for (int polls = 0;; ++polls) {
        int done = 0;
        const int rc = MPI_Test(request, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || done) {
            return rc;
        }
        if (polls >= 100) {
            struct timespec pause = {0, pause_ns};
            nanosleep(&pause, NULL);
            pause_ns = pause_ns < 1000000 ? pause_ns * 2 : 1000000;
        }
    }
}

static int allgather(const void *mine, size_t len,
                     int (*take)(void *context, int rank, const void *bytes, size_t len),
                     void *context, char *why, size_t why_len)
{
    char text[MPI_MAX_ERROR_STRING];
    if (!mpi_running()) {
        return say(why, why_len, "MPI is not running (finalized already?)");
    }
    if (exchange == MPI_COMM_NULL) {
        const int rc = MPI_Comm_dup(MPI_COMM_WORLD, &exchange);
        if (rc != MPI_SUCCESS) {
            exchange = MPI_COMM_NULL;
            return say(why, why_len, "MPI_Comm_dup failed: %s",
                       mpi_text(rc, text, (int)sizeof text));
        }
        /* Errors come back as codes, not as MPI's default abort. */
        MPI_Comm_set_errhandler(exchange, MPI_ERRORS_RETURN);
    }
    int size = 0;
    MPI_Comm_size(exchange, &size);
    /* Two collectives: the lengths (-1: more than an int holds), then the
     * bytes.  Every process reads the same lengths, so all stop alike. */
    int own = len <= (size_t)INT_MAX ? (int)len : -1;
    int *lens = must_allocate(sizeof *lens * (size_t)size);
    int *starts = must_allocate(sizeof *starts * (size_t)size);
    char *all = NULL;
    int failed = 0;
    MPI_Request request = MPI_REQUEST_NULL;
    int rc = MPI_Iallgather(&own, 1, MPI_INT, lens, 1, MPI_INT, exchange, &request);
    if (rc == MPI_SUCCESS) {
        rc = finish(&request);
    }
    if (rc != MPI_SUCCESS) {
        failed =
            say(why, why_len, "MPI_Allgather failed: %s", mpi_text(rc, text, (int)sizeof text));
    }
    long long total = 0;
    for (int r = 0; !failed && r < size; ++r) {
        if (lens[r] < 0 || total + lens[r] > INT_MAX) {
            failed = say(why, why_len,
                         "the job's values pass 2^31 bytes in one exchange (rank %d's)", r);
            break;
        }
        starts[r] = (int)total;
        total += lens[r];
    }
    if (!failed) {
        all = must_allocate((size_t)total);
        rc = MPI_Iallgatherv(mine, own, MPI_BYTE, all, lens, starts, MPI_BYTE, exchange, &request);
        if (rc == MPI_SUCCESS) {
            rc = finish(&request);
        }
        if (rc != MPI_SUCCESS) {
            failed = say(why, why_len, "MPI_Allgatherv failed: %s",
                         mpi_text(rc, text, (int)sizeof text));
        }
    }
    for (int r = 0; !failed && r < size; ++r) {
        if (take(context, r, all + starts[r], (size_t)lens[r]) != 0) {
            failed = say(why, why_len, "the values of rank %d could not be kept", r);
        }
    }
    free(all);
    free(starts);
    free(lens);
    return failed;
}

static void abort_job(int code)
{
    if (mpi_running()) {
        MPI_Abort(MPI_COMM_WORLD, code);
    }
}

static void stop(void)
{
    world = MPI_COMM_NULL;
    if (exchange != MPI_COMM_NULL && mpi_running()) {
        MPI_Comm_free(&exchange);
    }
    exchange = MPI_COMM_NULL;
    if (started_mpi) {
        started_mpi = 0;
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (!finalized) {
            MPI_Finalize();
        }
    }
}

__attribute__((visibility("default"))) const meridian_qmp_mpi_t meridian_qmp_mpi = {
    MERIDIAN_QMP_MPI_VERSION, library, start, split, release, stop, init, job, allgather, abort_job,
};
