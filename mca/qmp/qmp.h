/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * qmp.h -- Meridian's QMP: the lattice-QCD message-passing API, source
 * compatible with QMP 2.x (as Chroma/QDP++, MILC and QUDA call it), plus the
 * calls of the 2002 specification that do not clash with 2.x.  Every name,
 * type and enum value below is the one applications compile against.
 *
 * Semantics in brief (details in mca/msg/README.md):
 *   - QMP_init_msg_passing starts Meridian (meridian_init), the msg framework
 *     and its transport, and removes QMP's and Meridian's own options from
 *     argv: -qmp-geom, -qmp-alloc-map, -qmp-logic-map, -qmp-job, --mca, --tune.
 *   - QMP_finalize_msg_passing ends the session; QMP may be initialized again
 *     after it.  Under a PMIx launcher Meridian itself (and PMIx, whose
 *     clients cannot be started twice in a process) stays up from the first
 *     finalize until the process exits.
 *   - Node numbers are process ranks in the job (or in a communicator).
 *   - Channels are persistent: declare once (the expensive part), then
 *     start / wait as often as needed.
 *   - Calls returning a pointer or a handle return NULL on error; the reason
 *     is QMP_get_error_number(NULL) / QMP_get_error_string(NULL).
 *   - No call lets a C++ exception out: running out of memory inside one is
 *     QMP_NOMEM_ERR (NULL from pointer calls), and QMP_get_error_string(NULL)
 *     then says "CALL: out of memory".
 */
#ifndef QMP_H
#define QMP_H
/* QMP's own guard, so code that tests for it sees the header. */
#ifndef _QMP_H
#define _QMP_H
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <meridian/meridian_config.h>

/* Meridian's extension: this QMP is Meridian's, of the version below (the
 * numbers of meridian_config.h), for a program that tests which QMP it
 * builds against:
 *   #if defined(QMP_MERIDIAN) && QMP_MERIDIAN_VERSION_NUMERIC >= QMP_MERIDIAN_VERSION_OF(0, 1, 0)
 * QMP_version_str / QMP_version_int give the QMP API's own release. */
#define QMP_MERIDIAN 1
#define QMP_MERIDIAN_VERSION_STRING MERIDIAN_VERSION_STRING
#define QMP_MERIDIAN_VERSION_MAJOR MERIDIAN_VERSION_MAJOR
#define QMP_MERIDIAN_VERSION_MINOR MERIDIAN_VERSION_MINOR
#define QMP_MERIDIAN_VERSION_RELEASE MERIDIAN_VERSION_RELEASE
#define QMP_MERIDIAN_VERSION_NUMERIC MERIDIAN_VERSION_NUMERIC
#define QMP_MERIDIAN_VERSION_OF(major, minor, release) MERIDIAN_VERSION_OF(major, minor, release)

/* ------------------------------------------------------------- types */

typedef int QMP_bool_t;
#define QMP_TRUE ((QMP_bool_t)1)
#define QMP_FALSE ((QMP_bool_t)0)

/* The 2002 specification's fixed-size types. */
typedef uint32_t QMP_u32_t;
typedef int32_t QMP_s32_t;
typedef uint64_t QMP_u64_t;
typedef int64_t QMP_s64_t;
typedef float QMP_float_t;
typedef double QMP_double_t;

/* Status codes: 0 is success; QMP's own errors start at 0x1001, in this
 * order (applications and tools compare the numbers). */
typedef enum QMP_status {
    QMP_SUCCESS = 0,
    QMP_ERROR = 0x1001,
    QMP_NOT_INITED,
    QMP_RTENV_ERR,
    QMP_CPUINFO_ERR,
    QMP_NODEINFO_ERR,
    QMP_NOMEM_ERR,
    QMP_MEMSIZE_ERR,
    QMP_HOSTNAME_ERR,
    QMP_INITSVC_ERR,
    QMP_TOPOLOGY_EXISTS,
    QMP_CH_TIMEOUT,
    QMP_NOTSUPPORTED,
    QMP_SVC_BUSY,
    QMP_BAD_MESSAGE,
    QMP_INVALID_ARG,
    QMP_INVALID_TOPOLOGY,
    QMP_NONEIGHBOR_INFO,
    QMP_MEMSIZE_TOOBIG,
    QMP_BAD_MEMORY,
    QMP_NO_PORTS,
    QMP_NODE_OUTRANGE,
    QMP_CHDEF_ERR,
    QMP_MEMUSED_ERR,
    QMP_INVALID_OP,
    QMP_TIMEOUT,
    QMP_MAX_STATUS
} QMP_status_t;

/* The allocated machine's interconnect: MESH when the processes have torus
 * or mesh coordinates (coord), SWITCH otherwise. */
typedef enum QMP_ictype {
    QMP_SWITCH = 0,
    QMP_GRID = 1,
    QMP_MESH = 1,
    QMP_FATTREE = 2
} QMP_ictype_t;

typedef enum QMP_thread_level {
    QMP_THREAD_SINGLE,
    QMP_THREAD_FUNNELED,
    QMP_THREAD_SERIALIZED,
    QMP_THREAD_MULTIPLE
} QMP_thread_level_t;

typedef enum QMP_clear_to_send {
    QMP_CTS_DISABLED = -1,
    QMP_CTS_NOT_READY = 0,
    QMP_CTS_READY = 1
} QMP_clear_to_send_t;

/* 2002: how the processes of one SMP node are addressed (Meridian always
 * gives each process its own node number). */
typedef enum QMP_smpaddr_type { QMP_SMP_ONE_ADDRESS, QMP_SMP_MULTIPLE_ADDRESS } QMP_smpaddr_type_t;
typedef QMP_smpaddr_type_t QMP_smpaddr_t;

#define QMP_ALIGN_ANY 0
#define QMP_ALIGN_DEFAULT 64

#define QMP_MEM_NONCACHE 0x01
#define QMP_MEM_COMMS 0x02
#define QMP_MEM_FAST 0x04
#define QMP_MEM_DEFAULT (QMP_MEM_COMMS | QMP_MEM_FAST)

typedef struct QMP_mem_struct QMP_mem_t;
typedef struct QMP_msgmem_struct *QMP_msgmem_t;
typedef struct QMP_comm_struct *QMP_comm_t;
typedef struct QMP_msghandle_struct *QMP_msghandle_t;

/* User reduction: inout = inout (op) in.  As in QMP 2.5 (whose MPI operator
 * is created commutative), the function must be associative and commutative:
 * the order in which the processes' values are combined is not rank order.
 * It is the same order on every process, so every process gets the same
 * bits. */
typedef void (*QMP_binary_func)(void *inout, void *in);

/* 2002: called on errors QMP cannot return (a failed wait, a dead peer);
 * returns what the failing call returns.  Default: print and abort. */
typedef int (*ERRFUNCPTR_t)(QMP_status_t status, const char *message);

#ifdef __cplusplus
extern "C" {
#endif
/* Visible even where the library is compiled hidden (embedded builds). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* ------------------------------------------------------------- init */

QMP_status_t QMP_init_msg_passing(int *argc, char ***argv, QMP_thread_level_t required,
                                  QMP_thread_level_t *provided);
QMP_bool_t QMP_is_initialized(void);
void QMP_finalize_msg_passing(void);
void QMP_abort(int error_code);
void QMP_abort_string(int error_code, char *message);

/* ------------------------------------------------------------- communicators */

QMP_comm_t QMP_comm_get_allocated(void);
QMP_status_t QMP_comm_set_allocated(QMP_comm_t comm);
QMP_comm_t QMP_comm_get_job(void);
QMP_status_t QMP_comm_set_job(QMP_comm_t comm);
QMP_comm_t QMP_comm_get_default(void);
QMP_status_t QMP_comm_set_default(QMP_comm_t comm);
QMP_status_t QMP_comm_split(QMP_comm_t comm, int color, int key, QMP_comm_t *newcomm);
QMP_status_t QMP_comm_free(QMP_comm_t comm);
int QMP_comm_get_number_of_colors(QMP_comm_t comm);
int QMP_comm_get_color(QMP_comm_t comm);
int QMP_comm_get_key(QMP_comm_t comm);
/* QMP over MPI's: the MPI communicator under a QMP one, as the address of
 * an MPI_Comm (read it as *(MPI_Comm *)handle), whose ranks are the QMP
 * communicator's; valid until the QMP communicator is freed.  Every QMP
 * communicator has one when the program linked QMP's MPI part (libqmp_mpi:
 * qmp-config --mpi, pkg-config qmp-mpi, or CMake's QMP::qmp), which also
 * starts MPI in QMP_init_msg_passing unless the program did (and then ends
 * it in QMP_finalize_msg_passing).  Without it, both set *comm to NULL,
 * return QMP_NOTSUPPORTED and print why (programs such as QUDA use the
 * answer without looking at the status, then call MPI on it). */
QMP_status_t QMP_get_hidden_comm(QMP_comm_t comm, void **hiddencomm);
QMP_status_t QMP_get_mpi_comm(QMP_comm_t comm, void **mpicomm);

/* ------------------------------------------------------------- allocated machine */

QMP_ictype_t QMP_get_msg_passing_type(void);
int QMP_get_number_of_nodes(void);
int QMP_comm_get_number_of_nodes(QMP_comm_t comm);
int QMP_get_node_number(void);
int QMP_comm_get_node_number(QMP_comm_t comm);
int QMP_get_number_of_jobs(void);
int QMP_get_job_number(void);
int QMP_get_number_of_job_geometry_dimensions(void);
const int *QMP_get_job_geometry(void);
QMP_bool_t QMP_is_primary_node(void);
QMP_bool_t QMP_comm_is_primary_node(QMP_comm_t comm);
int QMP_get_allocated_number_of_dimensions(void);
const int *QMP_get_allocated_dimensions(void);
const int *QMP_get_allocated_coordinates(void);
/* 2002: processes of this job on this node. */
QMP_u32_t QMP_get_SMP_count(void);

/* ------------------------------------------------------------- I/O layout */

int QMP_io_node(int node);
int QMP_master_io_node(void);

/* ------------------------------------------------------------- logical topology */

QMP_status_t QMP_declare_logical_topology(const int dims[], int ndim);
QMP_status_t QMP_comm_declare_logical_topology(QMP_comm_t comm, const int dims[], int ndim);
QMP_status_t QMP_declare_logical_topology_map(const int dims[], int ndim, const int map[],
                                              int mapdim);
QMP_status_t QMP_comm_declare_logical_topology_map(QMP_comm_t comm, const int dims[], int ndim,
                                                   const int map[], int mapdim);
QMP_bool_t QMP_logical_topology_is_declared(void);
QMP_bool_t QMP_comm_logical_topology_is_declared(QMP_comm_t comm);
int QMP_get_logical_number_of_dimensions(void);
int QMP_comm_get_logical_number_of_dimensions(QMP_comm_t comm);
const int *QMP_get_logical_dimensions(void);
const int *QMP_comm_get_logical_dimensions(QMP_comm_t comm);
const int *QMP_get_logical_coordinates(void);
const int *QMP_comm_get_logical_coordinates(QMP_comm_t comm);
/* The caller frees the result with free(). */
int *QMP_get_logical_coordinates_from(int node);
int *QMP_comm_get_logical_coordinates_from(QMP_comm_t comm, int node);
void QMP_get_logical_coordinates_from2(int coords[], int node);
void QMP_comm_get_logical_coordinates_from2(QMP_comm_t comm, int coords[], int node);
int QMP_get_node_number_from(const int coordinates[]);
int QMP_comm_get_node_number_from(QMP_comm_t comm, const int coordinates[]);

/* ------------------------------------------------------------- lattice layout */

QMP_status_t QMP_layout_grid(const int dimensions[], int ndims);
const int *QMP_get_subgrid_dimensions(void);
int QMP_get_number_of_subgrid_sites(void);

/* ------------------------------------------------------------- memory */

QMP_mem_t *QMP_allocate_memory(size_t nbytes);
QMP_mem_t *QMP_allocate_aligned_memory(size_t nbytes, size_t alignment, int flags);
void *QMP_get_memory_pointer(QMP_mem_t *mem);
void QMP_free_memory(QMP_mem_t *mem);
/* 2002: frees memory by the pointer QMP_get_memory_pointer gave. */
void QMP_free_aligned_memory(void *pointer);

QMP_msgmem_t QMP_declare_msgmem(const void *mem, size_t nbytes);
QMP_msgmem_t QMP_declare_strided_msgmem(void *base, size_t blksize, int nblocks, ptrdiff_t stride);
QMP_msgmem_t QMP_declare_strided_array_msgmem(void *base[], size_t blksize[], int nblocks[],
                                              ptrdiff_t stride[], int num);
QMP_msgmem_t QMP_declare_indexed_msgmem(void *base, int blocklen[], int index[], int elemsize,
                                        int count);
void QMP_free_msgmem(QMP_msgmem_t m);

/* ------------------------------------------------------------- channels */

/* A receive takes a message of its memory's size or shorter, as QMP over
 * MPI does (MPI receives a shorter message into a larger buffer): the
 * message fills the memory from its start -- for strided and indexed
 * memory, the blocks in order, each as far as the message reaches -- and
 * the bytes after it keep their values.  QMP tells the receiver no length:
 * a program that sends messages of varying length says so in the data
 * (text ends with its '\0').  A message larger than the receive memory
 * fails the receive: its wait returns QMP_MEMSIZE_ERR ("sending memory size
 * is larger than receiving memory size"), QMP_get_error_string(handle)
 * names the handle, and the error output gives both sizes; the memory's
 * contents are then undefined.  The send completes either way. */

QMP_msghandle_t QMP_declare_receive_relative(QMP_msgmem_t m, int axis, int dir, int priority);
QMP_msghandle_t QMP_comm_declare_receive_relative(QMP_comm_t comm, QMP_msgmem_t m, int axis,
                                                  int dir, int priority);
QMP_msghandle_t QMP_declare_send_relative(QMP_msgmem_t m, int axis, int dir, int priority);
QMP_msghandle_t QMP_comm_declare_send_relative(QMP_comm_t comm, QMP_msgmem_t m, int axis, int dir,
                                               int priority);
QMP_msghandle_t QMP_declare_send_to(QMP_msgmem_t m, int rem_node_rank, int priority);
QMP_msghandle_t QMP_comm_declare_send_to(QMP_comm_t comm, QMP_msgmem_t m, int rem_node_rank,
                                         int priority);
QMP_msghandle_t QMP_declare_receive_from(QMP_msgmem_t m, int rem_node_rank, int priority);
QMP_msghandle_t QMP_comm_declare_receive_from(QMP_comm_t comm, QMP_msgmem_t m, int rem_node_rank,
                                              int priority);
QMP_status_t QMP_change_address(QMP_msghandle_t msg, void *addr);
QMP_status_t QMP_change_address_multiple(QMP_msghandle_t msg, void *addr[], int naddr);
/* Frees a handle (a multiple with its members).  A handle that is started
 * (QMP_start without the wait) is freed as QMP over MPI frees it
 * (MPI_Request_free): its transfer is not cancelled but completes on its
 * own -- a send's message is still delivered, a receive still takes the
 * message meant for it, into its memory -- so the messages after it on that
 * peer and channel are never shifted.  Its memory must therefore stay
 * valid, and a send's unchanged, until the application knows otherwise
 * that the transfer is over (say, from a later message of the peer); only
 * a dead peer or QMP_finalize_msg_passing ends it early. */
void QMP_free_msghandle(QMP_msghandle_t h);
QMP_msghandle_t QMP_declare_multiple(QMP_msghandle_t msgh[], int num);
QMP_msghandle_t QMP_declare_send_recv_pairs(QMP_msghandle_t msgh[], int num);
QMP_status_t QMP_clear_to_send(QMP_msghandle_t mh, QMP_clear_to_send_t cts);
QMP_status_t QMP_start(QMP_msghandle_t h);
QMP_status_t QMP_wait(QMP_msghandle_t h);
QMP_status_t QMP_wait_all(QMP_msghandle_t h[], int num);
QMP_bool_t QMP_is_complete(QMP_msghandle_t h);

/* ------------------------------------------------------------- collectives */

QMP_status_t QMP_barrier(void);
QMP_status_t QMP_comm_barrier(QMP_comm_t comm);
/* 2002: a barrier that gives up after `milliseconds` (QMP_TIMEOUT).  A
 * barrier that timed out is not abandoned: this process stays in it, since
 * the others may be in it already.  The next barrier call on the
 * communicator (QMP_wait_for_barrier again, with any time limit, or
 * QMP_barrier) goes on with that same barrier rather than starting
 * another, and returns when every member has entered it; so
 *     while (QMP_wait_for_barrier(1000) == QMP_TIMEOUT) report_slow_node();
 * is one barrier.  Any other collective on the communicator first finishes
 * it, without a time limit. */
QMP_status_t QMP_wait_for_barrier(QMP_s32_t milliseconds);
QMP_status_t QMP_broadcast(void *buffer, size_t nbytes);
QMP_status_t QMP_comm_broadcast(QMP_comm_t comm, void *buffer, size_t nbytes);
QMP_status_t QMP_sum_int(int *value);
QMP_status_t QMP_comm_sum_int(QMP_comm_t comm, int *value);
QMP_status_t QMP_sum_uint64_t(uint64_t *value);
QMP_status_t QMP_comm_sum_uint64_t(QMP_comm_t comm, uint64_t *value);
QMP_status_t QMP_sum_float(float *value);
QMP_status_t QMP_comm_sum_float(QMP_comm_t comm, float *value);
QMP_status_t QMP_sum_double(double *value);
QMP_status_t QMP_comm_sum_double(QMP_comm_t comm, double *value);
QMP_status_t QMP_sum_long_double(long double *value);
QMP_status_t QMP_comm_sum_long_double(QMP_comm_t comm, long double *value);
QMP_status_t QMP_sum_double_extended(double *value);
QMP_status_t QMP_comm_sum_double_extended(QMP_comm_t comm, double *value);
QMP_status_t QMP_sum_float_array(float value[], int length);
QMP_status_t QMP_comm_sum_float_array(QMP_comm_t comm, float value[], int length);
QMP_status_t QMP_sum_double_array(double value[], int length);
QMP_status_t QMP_comm_sum_double_array(QMP_comm_t comm, double value[], int length);
QMP_status_t QMP_sum_long_double_array(long double value[], int length);
QMP_status_t QMP_comm_sum_long_double_array(QMP_comm_t comm, long double value[], int length);
QMP_status_t QMP_max_float(float *value);
QMP_status_t QMP_comm_max_float(QMP_comm_t comm, float *value);
QMP_status_t QMP_max_double(double *value);
QMP_status_t QMP_comm_max_double(QMP_comm_t comm, double *value);
QMP_status_t QMP_min_float(float *value);
QMP_status_t QMP_comm_min_float(QMP_comm_t comm, float *value);
QMP_status_t QMP_min_double(double *value);
QMP_status_t QMP_comm_min_double(QMP_comm_t comm, double *value);
QMP_status_t QMP_xor_ulong(unsigned long *value);
QMP_status_t QMP_comm_xor_ulong(QMP_comm_t comm, unsigned long *value);
/* 2002's name for the same over a long. */
QMP_status_t QMP_global_xor(long *value);
QMP_status_t QMP_comm_alltoall(QMP_comm_t comm, char *recvbuffer, char *sendbuffer, int count);
QMP_status_t QMP_binary_reduction(void *lbuffer, size_t buflen, QMP_binary_func bfunc);
QMP_status_t QMP_comm_binary_reduction(QMP_comm_t comm, void *lbuffer, size_t buflen,
                                       QMP_binary_func bfunc);

/* ------------------------------------------------------------- errors */

const char *QMP_error_string(QMP_status_t code);
QMP_status_t QMP_get_error_number(QMP_msghandle_t mh);
const char *QMP_get_error_string(QMP_msghandle_t mh);
/* The error function.  One the application sets is called for every
 * failure a QMP call reports -- a wait that times out or whose message is
 * too large, a refused declaration, a collective that fails -- with the
 * status and the text QMP_get_error_string gives, before the call returns
 * (its return value is not used; the call still returns the status or
 * NULL).  It may read the error (QMP_get_error_number / _string), print,
 * or end the job (QMP_abort); it must not call QMP's communication or
 * declaration functions (a failure inside it does not call it again).  The
 * default function (none set, or after QMP_set_error_function(NULL)) is
 * called only for errors a call cannot return (a handle freed while a
 * multiple holds it, memory QMP did not allocate): it prints the message
 * and aborts the job.  Returns the previous function, the default one
 * included. */
ERRFUNCPTR_t QMP_set_error_function(ERRFUNCPTR_t function);

/* ------------------------------------------------------------- output, timing, version */

int QMP_verbose(int level);
int QMP_profcontrol(int level);
int QMP_printf(const char *format, ...) __attribute__((format(printf, 1, 2)));
int QMP_fprintf(FILE *stream, const char *format, ...) __attribute__((format(printf, 2, 3)));
int QMP_info(const char *format, ...) __attribute__((format(printf, 1, 2)));
int QMP_error(const char *format, ...) __attribute__((format(printf, 1, 2)));
double QMP_time(void);
void QMP_reset_total_qmp_time(void);
double QMP_get_total_qmp_time(void);
const char *QMP_version_str(void);
int QMP_version_int(void);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif

/* QMP 2.5 defines this helper; some applications use it. */
#define _QMP_UNUSED_ARGUMENT(x) ((void)(x))

#endif /* QMP_H */
