/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * msg: the transports under the QMP API.  Multi-select, chosen per peer.
 *
 *   QMP        (libqmp, mca/qmp/qmp_*.cc) holds every QMP semantic:
 *              communicators, topology, layout, message memory, channels,
 *              collectives, errors; it moves bytes only through the channel
 *              interface (mca_msg_base_module_t) the base hands it;
 *   base       (libmeridian, mca/msg/base/) holds what every transport
 *              shares: it learns the job (ranks, nodes) through the
 *              datastore, opens every selected transport component, chooses
 *              one transport per peer (the highest priority among those that
 *              reach it), and implements the channel interface -- channels,
 *              matching per (peer, tag) in start order, messages that arrive
 *              before their receive (bounded by msg_base_unexpected_limit),
 *              waiting (spin, yield, sleep), time-outs, dead peers (the pids
 *              of this node's processes are watched), released channels;
 *   transports (components/msg_<name>: self, sm, tcp, ofi, ucx) move bytes:
 *              each says which peers it reaches, brings itself up for the
 *              peers it was given, and carries their messages.
 *
 * Matching: a send channel and a receive channel match when they name each
 * other (job ranks) and carry the same tag; several channels with one
 * (peer, tag) match in the order they were started, as MPI's persistent
 * requests do.  A send may start before its receive; the message is kept
 * until the receive starts (QMP's channels are gated, but applications do
 * start sends first).  A receive takes a message of its size or shorter,
 * filling its blocks in order and leaving the bytes after the message as
 * they were (as MPI's receive does); one that gets a longer message
 * completes with MERIDIAN_ERR_BAD_PARAM.
 *
 * A transport matches in one of two ways, for all of its peers:
 *   - the base matches (self, sm, tcp): the transport hands every message
 *     that arrives to the base (meridian_mca_msg_base_arrive_*), which puts
 *     it into the receive it matches, or keeps it; a message whose bytes stay
 *     with the sender until its receive is there (a rendezvous) is announced
 *     instead, and the base gives the receive to the transport (take) once
 *     it matches;
 *   - the transport matches (MCA_MSG_TRANSPORT_MATCHES: ofi's tagged
 *     messages, ucx's tag API): the base hands it receives too (recv), and
 *     the network's own matching keeps (peer, tag, start order).
 * A peer has one transport, so its messages are matched in one place.
 *
 * No message is lost at exit: a send is complete for the application only
 * when its memory may be reused, and a transport's finalize delivers every
 * send that completed (or learns that its peer is gone) before it closes.
 *
 * Threads: the QMP layer serialises calls (one thread in the base and the
 * transports at a time); nothing here locks.
 */
#ifndef MERIDIAN_MCA_MSG_H
#define MERIDIAN_MCA_MSG_H

#include <meridian/rename.h>

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/mca/mca.h>

MERIDIAN_C_API_BEGIN

/* 3.0: transports chosen per peer under a channel layer in the base.
 * 3.1: a channel shows its transfer's phase and status and has its own
 *      start, which a transport that matches may take over (start_direct). */
#define MCA_MSG_BASE_VERSION_MAJOR 3
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
 * strided and indexed memory become one block per run of bytes).  The base
 * copies the array (not the data) at create time; the memory itself must
 * stay valid until the channel is freed or readdressed. */
typedef struct mca_msg_channel_spec {
    mca_msg_direction_t direction;
    int peer; /* job rank; may be this process */
    uint64_t tag;
    const struct iovec *iov;
    size_t iovcnt;
    size_t nbytes; /* sum of the iov lengths */
    int priority;  /* QMP's priority: 0 is highest; a hint */
} mca_msg_channel_spec_t;

/* A channel's transfer: idle (never started, or its completion taken),
 * active (started), done (over; its status not yet taken). */
enum { MCA_MSG_CHANNEL_IDLE = 0, MCA_MSG_CHANNEL_ACTIVE = 1, MCA_MSG_CHANNEL_DONE = 2 };

typedef struct mca_msg_channel mca_msg_channel_t;

/* A channel as the base keeps it.  Transports read these fields and keep
 * their own state for it in transport_data; they write only what a direct
 * start and a completion write (below).  The QMP layer reads phase and
 * status, and calls start. */
struct mca_msg_channel {
    mca_msg_direction_t direction;
    int peer;
    uint64_t tag;
    const struct iovec *iov; /* the base's copy of the blocks */
    size_t iovcnt;
    size_t nbytes;
    void *transport_data; /* the transport's (prepare sets it, cleanup frees it) */
    /* MCA_MSG_CHANNEL_*: the base sets ACTIVE at a start and DONE at the
     * completion (meridian_mca_msg_base_complete, with status); whoever
     * takes a done channel's status sets it IDLE again: the base's wait and
     * test, or the QMP layer, which may take it without calling them
     * (mca_msg_channel_take). */
    int phase;
    int status; /* a done transfer's result: MERIDIAN_SUCCESS or why not */
    /* Starts the idle channel, as the module's start does (same results):
     * the shortest way there, which the base chooses and may change at any
     * of its calls -- its own start, or the transport's start_direct while
     * the channel is prepared and its peer alive.  Never NULL. */
    int (*start)(mca_msg_channel_t *channel);
};

/* Takes a done channel's status (and makes it idle): 1 and *status, or 0
 * when the channel is not done (then wait or test). */
static inline int mca_msg_channel_take(mca_msg_channel_t *channel, int *status)
{
    if (channel->phase != MCA_MSG_CHANNEL_DONE) {
        return 0;
    }
    channel->phase = MCA_MSG_CHANNEL_IDLE;
    *status = channel->status;
    return 1;
}

/* ------------------------------------------------------------------------
 * The channel interface: what the QMP layer calls.  The base implements it
 * over the transports (meridian_mca_msg_base_start hands it out).
 */
typedef struct mca_msg_base_module mca_msg_base_module_t;

struct mca_msg_base_module {
    /* Declare a channel: everything that can be computed is computed here
     * (peer, transport, registrations, staging space).  MERIDIAN_ERR_BAD_PARAM
     * for a peer out of range, MERIDIAN_ERR_OUT_OF_RESOURCE when it cannot be
     * set up; the reason is reported. */
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
    /* Free a channel without cancelling its transfer, as MPI_Request_free
     * (QMP_free_msghandle): an idle channel goes at once; a started one
     * completes on its own, as if it were still there -- its send's message
     * is delivered, its receive takes the message meant for it, into its
     * memory -- so the messages after it on its (peer, tag) are never
     * shifted.  Its memory must stay valid until the transfer is over (the
     * caller learns that from later messages).  The transfer is abandoned
     * only when its peer dies or the base stops. */
    void (*channel_release)(mca_msg_base_module_t *self, mca_msg_channel_t *channel);

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
     * timeout_ms < 0: msg_base_timeout; MERIDIAN_ERR_TIMEOUT when the limit
     * passes, MERIDIAN_ERR_UNREACH as soon as a peer of one of the channels
     * is known dead.  Never hangs.  Idle channels among them count as
     * complete (the QMP layer waits again on the same list after a
     * timeout); after any return, the completed ones are idle. */
    int (*wait)(mca_msg_base_module_t *self, mca_msg_channel_t *const *channels, size_t count,
                int timeout_ms);
    /* Drive outstanding transfers; returns how many completed (>= 0). */
    int (*progress)(mca_msg_base_module_t *self);
    /* The transport and path to a peer, for messages and tools ("self",
     * "sm+cma", "tcp", "ofi:tcp;ofi_rxm", ...).  Never NULL. */
    const char *(*path_name)(mca_msg_base_module_t *self, int peer);
};

/* ------------------------------------------------------------------------
 * The transport contract: what a msg component's query hands the base.
 *
 * Bring-up, in every process alike (the base runs the exchanges, which are
 * collective: a transport never calls meridian_mca_msg_base_modex_exchange):
 *
 *   offer      which peers it reaches, and how well; nothing opened yet
 *   (the base chooses each peer's transport: the highest offer, ties to the
 *    name first in alphabetical order; transports given no peer are left
 *    alone: never initialized, never finalized)
 *   init       open what the given peers need, publish addresses
 *              (meridian_mca_msg_base_modex_put)
 *   -- exchange --
 *   connect    read the peers' addresses; may publish a second round
 *   -- exchange --
 *   ready      read the second round; then it moves bytes
 *
 * Callbacks come from the base's calls only (start, test, wait, progress)
 * and from a channel's start (start_direct): a transport completes a
 * channel with meridian_mca_msg_base_complete, from inside any of its
 * entries.
 */
typedef struct mca_msg_transport mca_msg_transport_t;

/* The transport matches (peer, tag) itself (see the top of this file). */
#define MCA_MSG_TRANSPORT_MATCHES 0x1u

/* The kinds of peer an offer is made for. */
enum { MCA_MSG_PEER_SELF = 0, MCA_MSG_PEER_NODE = 1, MCA_MSG_PEER_REMOTE = 2 };

struct mca_msg_transport {
    unsigned flags; /* MCA_MSG_TRANSPORT_* */

    /* How well it reaches each kind of peer: offer[MCA_MSG_PEER_SELF] this
     * process, offer[MCA_MSG_PEER_NODE] another process of this node,
     * offer[MCA_MSG_PEER_REMOTE] a process of another node; 0 when it cannot,
     * else its priority (1-100, its msg_<name>_priority as a rule).  Cheap
     * (nothing is opened yet), and alike in every process given alike
     * parameters: each process chooses on its own from its offers, and the
     * base checks that the two ends of each pair chose alike from theirs. */
    int (*offer)(mca_msg_transport_t *self, const mca_msg_job_t *job, int offer[3]);
    /* peers[r] != 0 for the ranks it carries (at least one). */
    int (*init)(mca_msg_transport_t *self, const mca_msg_job_t *job, const unsigned char *peers);
    int (*connect)(mca_msg_transport_t *self);
    int (*ready)(mca_msg_transport_t *self);
    /* Deliver what was sent (every completed send reaches its peer, or the
     * peer is gone) within the wait limit, then release everything.  Called
     * once for a transport that was initialized, after every channel is
     * gone; also after a failed bring-up. */
    void (*finalize)(mca_msg_transport_t *self);

    /* A channel to one of its peers is declared (or readdressed: prepare
     * again, after cleanup).  May be NULL.  An error is reported here. */
    int (*prepare)(mca_msg_transport_t *self, mca_msg_channel_t *channel);
    /* The channel is freed or readdressed, idle (its transport_data NULL
     * when its prepare failed).  May be NULL. */
    void (*cleanup)(mca_msg_transport_t *self, mca_msg_channel_t *channel);
    /* Start a send (complete it now or later). */
    void (*send)(mca_msg_transport_t *self, mca_msg_channel_t *channel);
    /* MATCHES: start a receive.  Otherwise NULL. */
    void (*recv)(mca_msg_transport_t *self, mca_msg_channel_t *channel);
    /* The base matched a receive with a message the transport announced:
     * move it in (now, or soon: return 1 when the next progress does it).
     * NULL when it announces nothing. */
    int (*take)(mca_msg_transport_t *self, mca_msg_channel_t *recv, void *message);
    /* An announced message nobody will take (its peer died, or the base
     * stops): forget it.  NULL when it announces nothing. */
    void (*drop)(mca_msg_transport_t *self, int peer, void *message);
    /* The base queued a receive that found no message.  May be NULL. */
    void (*posted)(mca_msg_transport_t *self, mca_msg_channel_t *recv);
    /* A started channel is abandoned (freed while started, or its peer
     * died: peer_alive 0): after the call the transport never touches its
     * memory nor completes it.  The base takes it out of its own queues. */
    void (*cancel)(mca_msg_transport_t *self, mca_msg_channel_t *channel, int peer_alive);
    /* The base learned that the peer died (its pid, a time limit, another
     * transport's word): take in what it sent before, past
     * msg_base_unexpected_limit too.  May be NULL. */
    void (*peer_died)(mca_msg_transport_t *self, int peer);
    /* Move bytes; returns how many events it handled (>= 0).  NULL when it
     * never has anything to move on its own (self). */
    int (*progress)(mca_msg_transport_t *self);
    /* The path to a peer it carries ("sm+cma", "ofi:tcp;ofi_rxm"). */
    const char *(*path_name)(mca_msg_transport_t *self, int peer);
    /* MATCHES only, may be NULL: a channel's start without the base (the
     * base makes it the channel's start while the channel is prepared and
     * its peer alive).  On an idle channel it does what the base's start
     * would: phase ACTIVE and status MERIDIAN_SUCCESS, then as send or
     * recv; on any other it returns meridian_mca_msg_base_start_channel(channel),
     * which says what is wrong. */
    int (*start_direct)(mca_msg_channel_t *channel);
};

/* The component's query offers an mca_msg_transport_t (as its module) and a
 * priority; a transport that cannot run here declines
 * (MERIDIAN_ERR_NOT_AVAILABLE) and says why at its verbosity. */
typedef struct mca_msg_base_component {
    mca_base_component_t base;
} mca_msg_base_component_t;

/* ------------------------------------------------------------------------
 * What the base gives transports (between offer and finalize).
 */

/* The exchange.  Keys are short names; the base scopes them to msg and
 * the transports should prefix theirs with their name ("tcp.addr"). */
int meridian_mca_msg_base_modex_put(const char *key, const void *data, size_t len);
/* Commit and fence: afterwards every process's puts are readable.  The
 * base's bring-up calls it; transports do not. */
int meridian_mca_msg_base_modex_exchange(void);
/* Copy rank's value for key into data (capacity *len); *len becomes its
 * size.  MERIDIAN_ERR_NOT_FOUND when rank published nothing under key,
 * MERIDIAN_ERR_BAD_PARAM (with *len set) when the capacity is too small. */
int meridian_mca_msg_base_modex_get(int rank, const char *key, void *data, size_t *len);

/* A started channel's transfer is over (status MERIDIAN_SUCCESS, or why
 * not).  Once per start. */
void meridian_mca_msg_base_complete(mca_msg_channel_t *channel, int status);
/* The base's start of a channel (the module's start, for one channel):
 * what a start_direct hands on a channel it does not start itself. */
int meridian_mca_msg_base_start_channel(mca_msg_channel_t *channel);

/* Messages to the base's matching (transports without MATCHES).  Per peer,
 * one message arrives at a time: begin, then more until `total` bytes. */
/* Whether a message of `total` bytes with `tag` from peer may arrive now: 0
 * when no receive waits for it and holding it would take the early
 * messages past msg_base_unexpected_limit -- it should stay with the sender
 * (in its ring, its connection) until its receive starts (posted). */
int meridian_mca_msg_base_may_arrive(int peer, uint64_t tag, uint64_t total);
/* A message's first `len` bytes (len <= total).  With hold, a message that
 * may not arrive yet (as may_arrive says) is not taken: 0, and it stays
 * with the sender; else 1. */
int meridian_mca_msg_base_arrive_begin(int peer, uint64_t tag, uint64_t total, const void *data,
                                       size_t len, int hold);
/* A message for one receive in particular (the transport's own protocol
 * matched it: a rendezvous sent through a ring after all); recv NULL: for a
 * receive that is gone, its bytes are dropped. */
void meridian_mca_msg_base_arrive_into(int peer, mca_msg_channel_t *recv, uint64_t total,
                                       const void *data, size_t len);
/* The next bytes of the message under way. */
void meridian_mca_msg_base_arrive_more(int peer, const void *data, size_t len);
/* The bytes of the message under way still to come (0: none under way). */
size_t meridian_mca_msg_base_arrive_left(int peer);
/* Where the next bytes of the message under way go, to read them straight
 * into place: up to max pieces covering at most `bytes`; 0 pieces when its
 * receive's blocks average fewer than min_block bytes (reading through a
 * buffer is cheaper then).  Then meridian_mca_msg_base_arrive_placed. */
size_t meridian_mca_msg_base_arrive_pieces(int peer, struct iovec *pieces, size_t max, size_t bytes,
                                           size_t min_block);
void meridian_mca_msg_base_arrive_placed(int peer, size_t len);
/* A message whose bytes stay with the transport until a receive takes it:
 * the base calls the transport's take with it once a receive matches (at
 * once when one waits), or drop. */
void meridian_mca_msg_base_announce(int peer, uint64_t tag, uint64_t total, void *message);
/* A message the base gave to take that the transport did not move (the
 * receive was cancelled first): first in line again for the next receive
 * of its (peer, tag). */
void meridian_mca_msg_base_announce_again(int peer, uint64_t tag, uint64_t total, void *message);
/* An announced message that is no longer there (its send was freed). */
void meridian_mca_msg_base_withdraw(int peer, uint64_t tag, void *message);

/* A receive takes at most its size: 1 when `total` fits, else 0 after the
 * base reported it and completed the receive with MERIDIAN_ERR_BAD_PARAM
 * (`got`: what to say of the message, NULL for its size). */
int meridian_mca_msg_base_fits(mca_msg_channel_t *recv, uint64_t total, const char *got);

/* The peer is gone (why: "closed its connection", ...): reported once, and
 * every started channel with it fails with MERIDIAN_ERR_UNREACH. */
void meridian_mca_msg_base_peer_died(int peer, const char *why);
/* 1 once the peer is known dead. */
int meridian_mca_msg_base_peer_dead(int peer);
/* Whether any started channel or message under way involves the peer. */
int meridian_mca_msg_base_peer_busy(int peer);

/* Text for messages: "rank 3 (node h2, path tcp)", "the send to rank 3
 * (...) with tag 0x10"; into buffer (truncated to size), returns buffer. */
const char *meridian_mca_msg_base_peer_text(int peer, char *buffer, size_t size);
const char *meridian_mca_msg_base_channel_text(const mca_msg_channel_t *channel, char *buffer,
                                               size_t size);
/* The wait limit (msg_base_timeout) in seconds, 0 for none. */
int meridian_mca_msg_base_timeout(void);
/* 1 when this node runs more of the job's processes than it has cores
 * (waits give the core away instead of spinning). */
int meridian_mca_msg_base_oversubscribed(void);

extern mca_base_framework_t meridian_msg_base_framework;

MERIDIAN_C_API_END

#endif
