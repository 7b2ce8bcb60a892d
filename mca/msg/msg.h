/*
 * msg: the transport under the QMP API.  Single-select.
 *
 *   base       (libmeridian, mca/msg/base/base.h) opens the framework,
 *              selects one transport, learns the job (ranks, nodes) through
 *              the datastore and gives transports a key-value exchange
 *              ("modex") to publish their addresses;
 *   QMP        (libqmp, mca/qmp/qmp_*.cc) holds every QMP semantic:
 *              communicators, topology, layout, message memory, channels,
 *              collectives, errors; it moves bytes only through this vtable;
 *   transport  (components/, e.g. qmp_ofi) moves bytes between processes:
 *              persistent channels (declare once, start many times),
 *              progress, completion, and dead-peer detection.
 *
 * Matching: a send channel and a receive channel match when they name each
 * other (job ranks) and carry the same tag; several channels with one
 * (peer, tag) match in the order they were started, as MPI's persistent
 * requests do.  A send may start before its receive; the transport keeps
 * the message until the receive starts (QMP's channels are gated, but
 * applications do start sends first).  A receive takes a message of its
 * size or shorter, filling its blocks in order and leaving the bytes after
 * the message as they were (as MPI's receive does); one that gets a longer
 * message completes with MERIDIAN_ERR_BAD_PARAM.
 *
 * Threads: the QMP layer serialises calls (one thread in the transport at a
 * time); a transport need not lock.
 */
#ifndef MERIDIAN_MCA_MSG_H
#define MERIDIAN_MCA_MSG_H

#include <meridian/rename.h>

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/mca/mca.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 2.0: persistent channels, two-phase start (publish, then connect).
 * 2.1: channel_release. */
#define MCA_MSG_BASE_VERSION_MAJOR 2
#define MCA_MSG_BASE_VERSION_MINOR 1
#define MCA_MSG_BASE_VERSION_RELEASE 0
#define MCA_MSG_BASE_VERSION                                                                       \
    {                                                                                              \
        MCA_MSG_BASE_VERSION_MAJOR, MCA_MSG_BASE_VERSION_MINOR, MCA_MSG_BASE_VERSION_RELEASE       \
    }

/* The job, as the base learned it through the datastore.  Arrays have
 * `size` entries and stay valid until finalize.  Nodes are numbered in
 * order of their lowest rank (rank 0's node is node 0). */
typedef struct mca_msg_job {
    int rank; /* this process */
    int size; /* processes in the job */
    int node; /* this process's node */
    int num_nodes;
    int local_rank;           /* among the job's processes on its node, by rank */
    int local_size;           /* the job's processes on this node */
    const int *node_of;       /* node of each rank */
    const int *local_rank_of; /* local rank of each rank */
    const char *nspace;       /* the job's name (PMIx namespace, or "singleton.PID") */
} mca_msg_job_t;

/* A channel's direction. */
typedef enum mca_msg_direction { MCA_MSG_SEND = 0, MCA_MSG_RECV = 1 } mca_msg_direction_t;

/* What a channel moves: the message is the blocks of `iov` in order (QMP's
 * strided and indexed memory become one block per run of bytes).  The
 * transport copies the array (not the data) at create time; the memory
 * itself must stay valid until the channel is freed or readdressed. */
typedef struct mca_msg_channel_spec {
    mca_msg_direction_t direction;
    int peer; /* job rank; may be this process */
    uint64_t tag;
    const struct iovec *iov;
    size_t iovcnt;
    size_t nbytes; /* sum of the iov lengths */
    int priority;  /* QMP's priority: 0 is highest; a hint */
} mca_msg_channel_spec_t;

typedef struct mca_msg_channel mca_msg_channel_t; /* owned by the transport */

typedef struct mca_msg_base_module mca_msg_base_module_t;

struct mca_msg_base_module {
    /* Phase 1: the job is whole (the base exchanged node names first).
     * Open endpoints and publish what peers need to reach this process with
     * meridian_mca_msg_base_modex_put.  The base then exchanges every
     * process's data (one fence) and calls connect. */
    int (*init)(mca_msg_base_module_t *self, const mca_msg_job_t *job);
    /* Phase 2: read peers' data (meridian_mca_msg_base_modex_get) and get ready to
     * move bytes to any rank.  A transport may call
     * meridian_mca_msg_base_modex_exchange again if it needs a second round. */
    int (*connect)(mca_msg_base_module_t *self);
    /* Release everything (channels still open are freed). */
    void (*finalize)(mca_msg_base_module_t *self);

    /* Declare a channel: everything that can be computed is computed here
     * (peer path, registrations, staging space).  MERIDIAN_ERR_BAD_PARAM for
     * a peer out of range, MERIDIAN_ERR_OUT_OF_RESOURCE when it cannot be
     * set up; the transport reports why. */
    int (*channel_create)(mca_msg_base_module_t *self, const mca_msg_channel_spec_t *spec,
                          mca_msg_channel_t **channel);
    /* New memory for an idle channel (QMP_change_address); same rules as
     * create.  MERIDIAN_ERR_BAD_PARAM while the channel is started. */
    int (*channel_readdress)(mca_msg_base_module_t *self, mca_msg_channel_t *channel,
                             const struct iovec *iov, size_t iovcnt);
    /* Free a channel.  A started one is abandoned: its transfer is
     * cancelled where it can be and its memory is not touched afterwards,
     * but what was under way may be lost or half done, and a message meant
     * for an abandoned receive may go to the next receive of its peer and
     * tag.  For the QMP layer's own channels after a failure;
     * channel_release is the application's free. */
    void (*channel_free)(mca_msg_base_module_t *self, mca_msg_channel_t *channel);

    /* Start a transfer on an idle channel. */
    int (*start)(mca_msg_base_module_t *self, mca_msg_channel_t *channel);
    /* Drive progress once and say whether the channel's transfer is over:
     * *complete = 1 (then it is idle again) or 0.  A send is complete when
     * its memory may be reused; a receive when its memory holds the data.
     * An error (peer died, size mismatch) completes the transfer and is
     * returned, here and by wait.  An idle channel (never started, or
     * already complete) is complete. */
    int (*test)(mca_msg_base_module_t *self, mca_msg_channel_t *channel, int *complete);
    /* Wait until all `count` started channels are complete.
     * timeout_ms < 0: the transport's own limit (e.g. msg_ofi_timeout);
     * MERIDIAN_ERR_TIMEOUT when the limit passes, MERIDIAN_ERR_UNREACH as
     * soon as a peer of one of the channels is known dead.  Never hangs.
     * Idle channels among them count as complete (the QMP layer waits again
     * on the same list after a timeout); after any return, the completed
     * ones are idle. */
    int (*wait)(mca_msg_base_module_t *self, mca_msg_channel_t *const *channels, size_t count,
                int timeout_ms);
    /* Drive outstanding transfers; returns how many completed (>= 0). */
    int (*progress)(mca_msg_base_module_t *self);
    /* The name of the path to a peer, for messages and tools ("self",
     * "shm", "ofi:tcp;ofi_rxm", ...).  Never NULL. */
    const char *(*path_name)(mca_msg_base_module_t *self, int peer);
    /* 2.1: free a channel without cancelling its transfer, as
     * MPI_Request_free (QMP_free_msghandle): an idle channel goes at once;
     * a started one completes on its own, as if it were still there -- its
     * send's message is delivered, its receive takes the message meant for
     * it, into its memory -- so the messages after it on its (peer, tag)
     * are never shifted.  Its memory must stay valid until the transfer is
     * over (the caller learns that from later messages).  The transfer is
     * abandoned only when its peer dies or the transport finalizes. */
    void (*channel_release)(mca_msg_base_module_t *self, mca_msg_channel_t *channel);
};

/* The component's query offers an mca_msg_base_module_t; a transport that
 * cannot run here declines (MERIDIAN_ERR_NOT_AVAILABLE) and says why at its
 * verbosity. */
typedef struct mca_msg_base_component {
    mca_base_component_t base;
} mca_msg_base_component_t;

/* The exchange the base gives transports (valid between init and
 * finalize).  Keys are short names; the base scopes them to msg. */
int meridian_mca_msg_base_modex_put(const char *key, const void *data, size_t len);
/* Commit and fence: afterwards every process's puts are readable. */
int meridian_mca_msg_base_modex_exchange(void);
/* Copy rank's value for key into data (capacity *len); *len becomes its
 * size.  MERIDIAN_ERR_NOT_FOUND when rank published nothing under key,
 * MERIDIAN_ERR_BAD_PARAM (with *len set) when the capacity is too small. */
int meridian_mca_msg_base_modex_get(int rank, const char *key, void *data, size_t *len);

extern mca_base_framework_t meridian_msg_base_framework;

#ifdef __cplusplus
}
#endif

#endif
