/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI part of QMP: what libqmp_mpi does for libqmp.
 *
 * QMP over MPI hands out an MPI communicator under each QMP communicator
 * (QMP_get_mpi_comm); GPU solver libraries such as QUDA then call MPI on it.
 * libqmp knows no MPI: its messages go through the msg framework, and a QMP
 * program without MPI must not load an MPI library.  libqmp_mpi, built with
 * the MPI that configure found, is linked only by programs that use MPI
 * (qmp-config --mpi, pkg-config qmp-mpi, CMake's QMP::qmp); it defines
 * meridian_qmp_mpi, which libqmp refers to weakly: when the program has not
 * linked libqmp_mpi, the reference is NULL and QMP_get_mpi_comm says why.
 *
 * Handles are the addresses of MPI_Comm objects that libqmp_mpi owns: what
 * QMP_get_mpi_comm gives the program, which reads it as *(MPI_Comm *)handle.
 * Every call is made by the QMP layer in the same order on every process of
 * the communicators concerned (the collective calls are inside QMP's own
 * collective calls: QMP_init_msg_passing, QMP_comm_split).  Failures are
 * said in `why` (a sentence, without the caller's name) and returned as
 * nonzero; nothing here prints.
 */
#ifndef MERIDIAN_QMP_MPI_H
#define MERIDIAN_QMP_MPI_H

#include <meridian/rename.h>

#include <stddef.h>

MERIDIAN_C_API_BEGIN

#define MERIDIAN_QMP_MPI_VERSION 3

typedef struct meridian_qmp_mpi_ops {
    int version; /* MERIDIAN_QMP_MPI_VERSION */
    /* MPI's name and version, for messages ("Open MPI v4.1.4"). */
    const char *(*library)(void);
    /* QMP_init_msg_passing, once QMP knows the job (this process's rank and
     * the job's size): MPI is initialized at the thread level `level` (a
     * QMP_thread_level_t, whose order is MPI's) unless the program did it,
     * and MPI_COMM_WORLD must be QMP's job (same size, same rank).  *world:
     * a handle on MPI_COMM_WORLD, the parent of the first split; *provided:
     * the level MPI gives. */
    int (*start)(int rank, int size, int level, void **world, int *provided, char *why,
                 size_t why_len);
    /* The members of parent that give the same color (< 0: none; *comm is
     * then NULL), ordered by key: MPI_Comm_split, collective over parent. */
    int (*split)(void *parent, int color, int key, void **comm, char *why, size_t why_len);
    /* A handle from split, freed (MPI_Comm_free). */
    void (*release)(void *comm);
    /* QMP_finalize_msg_passing, after every handle was released:
     * MPI_Finalize when start initialized MPI. */
    void (*stop)(void);
    /* QMP_init_msg_passing, first of all, before Meridian starts (and with
     * it PMIx): MPI is initialized at `level` unless the program did it.
     * Open MPI 5 cannot start in a process where another library has
     * initialized PMIx already ("local rank ... Not found"); start then
     * checks the job as before.  *provided: the level MPI gives. */
    int (*init)(int level, int *provided, char *why, size_t why_len);
    /* Meridian's datastore over MPI (the bootstrap where no launcher
     * Meridian speaks carries the job), after init: */
    /* this process's rank in MPI_COMM_WORLD and its size; */
    void (*job)(int *rank, int *size);
    /* every process's bytes: `take` is called for each rank in order with
     * what that process gave (valid during the call only; take returns
     * nonzero to say it could not keep them, and the others are still
     * gathered).  Collective over a duplicate of MPI_COMM_WORLD, made at
     * the first call: the program's traffic never meets it.  Fails, saying
     * why, once MPI is finalized or beyond 2^31 bytes in all. */
    int (*allgather)(const void *mine, size_t len,
                     int (*take)(void *context, int rank, const void *bytes, size_t len),
                     void *context, char *why, size_t why_len);
    /* MPI_Abort of the whole job with `code`; returns only when MPI is not
     * running. */
    void (*abort)(int code);
} meridian_qmp_mpi_t;

MERIDIAN_C_API_END

#endif
