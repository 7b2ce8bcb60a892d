/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pnet pipeline for C callers (resource managers, launchers): the same
 * steps as base.hpp -- inventory, fabric, requests, job map, allocation,
 * node setup, process environment, release -- over opaque handles and plain
 * C types.
 *
 *   meridian_init(NULL, NULL);
 *   meridian_pnet_fabric_t *fabric;          one per launcher
 *   meridian_pnet_fabric_new(&fabric);
 *   ... per node: meridian_pnet_fabric_deliver(fabric, node, component, bytes, size)
 *       with the (component, bytes) pairs meridian_pnet_collect_inventory gave there
 *   meridian_pnet_requests_t *requests;
 *   meridian_pnet_requests_new(&requests);
 *   meridian_pnet_requests_add(requests, attrs, nattrs);       or _parse(text)
 *   meridian_pnet_job_t *job;
 *   meridian_pnet_job_new(fabric, "job1", nodes, nnodes, procs, nprocs, requests, &job);
 *   meridian_pnet_allocate(job);
 *   meridian_pnet_get_assignment(job, "data", rank, &assignment);   ports, NICs, ...
 *   meridian_pnet_setup_local_network(job, node);                   on each node
 *   meridian_pnet_setup_fork(job, rank, &names, &values, &count);   per process
 *   meridian_pnet_pmix_proc_data(job, rank, &info, &ninfo);         for a PMIx
 *   meridian_pnet_pmix_node_data(job, node, &info, &ninfo);         server
 *   meridian_pnet_deregister(job);                                  job end
 *   meridian_pnet_job_free(job); ..._requests_free, ..._fabric_free; meridian_finalize();
 *
 * Errors: every call that can fail returns MERIDIAN_SUCCESS or a
 * MERIDIAN_ERR_* code, after reporting the reason once through Meridian's
 * message sink (meridian_set_message_sink in <meridian/opal/util/output.h>;
 * standard error by default) as an error: where, what was expected, what was
 * found ("meridian_pnet_requests_add: attrs[1] (pmix.alloc.endpts): expected
 * a number of endpoints 1-65535, found \"0\"").  When a pnet
 * component fails a step it reports its own reason (a required value it
 * cannot meet: "request \"data\": BANDWIDTH 15 Gb/s is required but ...") and
 * the call returns its code.  A call that fails changes nothing: no handle is
 * made, no request is added, a failed allocation holds nothing.  Output
 * parameters are set to NULL / 0 on error.  A NULL handle or output pointer
 * is MERIDIAN_ERR_BAD_PARAM.
 *
 * Memory: handles are freed by their _free call (NULL is ignored).  What a
 * call hands out is the caller's: assignments and inventories with their
 * _free call, string arrays with free() (each string, then the array), as
 * the coord C API does.
 *
 * Threads: opening and closing follow the framework lifecycle (one thread at
 * a time, not while another thread uses the pipeline).  A handle is used by
 * one thread at a time.  Different jobs may run their steps in different
 * threads as far as the active components allow (<meridian/mca/pnet/pnet.h>
 * says what a component must bear).
 */
#ifndef MERIDIAN_MCA_PNET_BASE_BASE_H
#define MERIDIAN_MCA_PNET_BASE_BASE_H

#include <meridian/rename.h>

#include <stddef.h>
#include <stdint.h>

#include <meridian/mca/pnet/pnet.h>

MERIDIAN_C_API_BEGIN

/* ------------------------------------------------------------ the pipeline */

/* Open the pnet framework (reference-counted) and select its components;
 * every pnet component whose query accepts takes part.  Optional: the calls
 * below open the framework on first use too (it then stays open until
 * meridian_finalize); open first to hear selection errors early.  Each
 * successful open needs a meridian_pnet_close.  Allocated jobs should be
 * deregistered before the last close: closing gives up the components and
 * what they hold. */
int meridian_pnet_open(void);
int meridian_pnet_close(void);

/* The active pnet components' names, best first (free() each, then the
 * array).  An inventory's component is one of these. */
int meridian_pnet_active_components(char ***names, size_t *count);

/* ------------------------------------------------------------ inventory */

/* One component's inventory of this node: bytes in the component's own
 * format, handed to meridian_pnet_fabric_deliver at the launcher. */
typedef struct meridian_pnet_inventory {
    char *component; /* the pnet component that made it ("tcp") */
    uint8_t *bytes;  /* NULL when size is 0 */
    size_t size;
} meridian_pnet_inventory_t;

/* This node's inventory from every active component that has one, in
 * component order.  Free with meridian_pnet_inventory_free. */
int meridian_pnet_collect_inventory(meridian_pnet_inventory_t **inventory, size_t *count);
void meridian_pnet_inventory_free(meridian_pnet_inventory_t *inventory, size_t count);

/* ------------------------------------------------------------ the fabric */

/* The model of the whole fabric the launcher allocates from
 * (<meridian/opal/class/fabric.hpp> describes it and its text format). */
typedef struct meridian_pnet_fabric meridian_pnet_fabric_t;

/* An empty fabric, for delivering inventories into. */
int meridian_pnet_fabric_new(meridian_pnet_fabric_t **fabric);
/* A fabric from fabric text; origin names the text in messages (NULL:
 * "<string>"): "lab.fabric:3:7: expected ..., found ...".  For tools and
 * tests, and for a launcher that keeps a fabric description. */
int meridian_pnet_fabric_parse(const char *text, const char *origin,
                               meridian_pnet_fabric_t **fabric);
/* A fabric from a fabric file (MERIDIAN_ERR_IO when it cannot be read,
 * MERIDIAN_ERR_BAD_PARAM when it is not a fabric). */
int meridian_pnet_fabric_read(const char *path, meridian_pnet_fabric_t **fabric);
/* The largest inventory meridian_pnet_fabric_deliver takes, in bytes: 64 MiB,
 * as large as a fabric file may be and far above any node's inventory. */
#define MERIDIAN_PNET_INVENTORY_MAX_SIZE ((size_t)64 << 20)
/* Node `node`'s inventory from `component` (as collected there) into the
 * fabric.  An inactive component is MERIDIAN_ERR_NOT_FOUND; a node that is
 * not a fabric name (letters, digits and "_-.:/", at most 255 bytes) and a
 * size over MERIDIAN_PNET_INVENTORY_MAX_SIZE are MERIDIAN_ERR_BAD_PARAM.
 * Jobs made from the fabric before keep the fabric as it was. */
int meridian_pnet_fabric_deliver(meridian_pnet_fabric_t *fabric, const char *node,
                                 const char *component, const void *bytes, size_t size);
/* The fabric as fabric text (free()), which meridian_pnet_fabric_parse
 * reads back to the same fabric. */
int meridian_pnet_fabric_format(const meridian_pnet_fabric_t *fabric, char **text);
void meridian_pnet_fabric_free(meridian_pnet_fabric_t *fabric);

/* ------------------------------------------------------------ requests */

/* A request: an entry of PMIx's pmix.alloc.net (an array of pmix_info_t, one
 * per attribute), and the keys of its attributes. */
#define MERIDIAN_PNET_ALLOC_NETWORK "pmix.alloc.net"
#define MERIDIAN_PNET_ALLOC_NETWORK_ID "pmix.alloc.netid"
#define MERIDIAN_PNET_ALLOC_NETWORK_TYPE "pmix.alloc.nettype"
#define MERIDIAN_PNET_ALLOC_NETWORK_PLANE "pmix.alloc.netplane"
#define MERIDIAN_PNET_ALLOC_NETWORK_ENDPTS "pmix.alloc.endpts"
#define MERIDIAN_PNET_ALLOC_NETWORK_SEC_KEY "pmix.alloc.nsec"
#define MERIDIAN_PNET_ALLOC_NETWORK_QOS "pmix.alloc.netqos"
#define MERIDIAN_PNET_ALLOC_BANDWIDTH "pmix.alloc.bw"

/* One attribute of a request, its value as text:
 *   pmix.alloc.netid     the request's ID, which names its allocation
 *                        (letters, digits, "_-.@"); required, once per set
 *   pmix.alloc.nettype   a transport: "tcp", "udp", "ucx", ...
 *   pmix.alloc.netplane  a plane's name or CIDR
 *   pmix.alloc.endpts    endpoints per process, 1-65535 (default 1)
 *   pmix.alloc.nsec      a security key of N random bytes, 1-1024; NULL or
 *                        "" for 16 (or give the key: meridian_pnet_job_set_seckey)
 *   pmix.alloc.netqos    a QoS level, 0-65535
 *   pmix.alloc.bw        bandwidth per process: a rate above 0 ("10G",
 *                        "25Gb/s", "1000" = Mbit/s)
 * required: non-zero when the value must be met exactly (else the value is
 * served as well as the fabric allows, and the assignment says what was
 * given); ignored for the ID. */
typedef struct meridian_pnet_attr {
    const char *key;
    const char *value;
    int required;
} meridian_pnet_attr_t;

typedef struct meridian_pnet_requests meridian_pnet_requests_t;

int meridian_pnet_requests_new(meridian_pnet_requests_t **requests);
/* Add one request made of count attributes.  Refused (nothing added) for an
 * unknown key, a key given twice, a bad value, no ID, an ID the set has
 * already, or more attributes than there are keys (7); the message names
 * the attribute by its index ("attrs[1]"). */
int meridian_pnet_requests_add(meridian_pnet_requests_t *requests,
                               const meridian_pnet_attr_t *attrs, size_t count);
/* Add the requests of a text in the syntax of pnet_base_requests:
 *   id=NAME[,type=T][,plane=P][,endpts=N][,seckey[=BYTES]][,qos=N][,bw=RATE][,required]
 * several separated by ';' ("!" after a value makes just that one
 * required).  origin names the text in messages (NULL: "requests"). */
int meridian_pnet_requests_parse(meridian_pnet_requests_t *requests, const char *text,
                                 const char *origin);
/* How many requests the set holds. */
int meridian_pnet_requests_count(const meridian_pnet_requests_t *requests, size_t *count);
/* The set in the text syntax (free()), for logs. */
int meridian_pnet_requests_format(const meridian_pnet_requests_t *requests, char **text);
void meridian_pnet_requests_free(meridian_pnet_requests_t *requests);

/* ------------------------------------------------------------ the job */

/* Where one process runs: its node (an index into the job's nodes), its
 * rank on that node, and the processor package it is bound to. */
typedef struct meridian_pnet_proc {
    uint32_t node;
    uint32_t local_rank;
    int32_t package; /* -1: not bound within one package */
} meridian_pnet_proc_t;

typedef struct meridian_pnet_job meridian_pnet_job_t;

/* A job ready to allocate: its namespace (NULL: "meridian"), its nodes by
 * fabric name, its processes (index = rank; procs[r].node indexes nodes)
 * and its requests (NULL: none; copied).  The job keeps the fabric as it is
 * now.  Refused with MERIDIAN_ERR_BAD_PARAM for a node the fabric lacks or
 * named twice, a node index past the nodes, a package past the node's
 * packages, two processes with one local rank on a node, node_count over
 * the fabric's nodes, proc_count over 2147483647 (ranks are an int) or over
 * 10000000 per node; and, as make_job does, for a request whose required
 * type no active component serves (MERIDIAN_ERR_NOT_AVAILABLE). */
int meridian_pnet_job_new(const meridian_pnet_fabric_t *fabric, const char *nspace,
                          const char *const *nodes, size_t node_count,
                          const meridian_pnet_proc_t *procs, size_t proc_count,
                          const meridian_pnet_requests_t *requests, meridian_pnet_job_t **job);
/* Use this security key for request `id` instead of drawing one (every
 * launcher of one job must hand out the same key); its size must be what
 * the request asks for.  Before meridian_pnet_allocate. */
int meridian_pnet_job_set_seckey(meridian_pnet_job_t *job, const char *id, const void *key,
                                 size_t size);
/* Gives back what the job still holds (as meridian_pnet_deregister), then
 * frees it. */
void meridian_pnet_job_free(meridian_pnet_job_t *job);

/* Every active component serves the job's requests of its types; all or
 * nothing.  A required value that cannot be met fails (the component
 * reports which); MERIDIAN_ERR_EXISTS when the job is allocated already. */
int meridian_pnet_allocate(meridian_pnet_job_t *job);
/* Store the assignments of the job's processes on `node` in the datastore
 * (under each request's ID), for those processes to read. */
int meridian_pnet_setup_local_network(meridian_pnet_job_t *job, const char *node);
/* The environment of process `rank`: count NAME=VALUE pairs as two arrays
 * (free() each string, then each array; NULL when count is 0).
 * MERIDIAN_ERR_BAD_PARAM for a rank outside the job. */
int meridian_pnet_setup_fork(const meridian_pnet_job_t *job, uint32_t rank, char ***names,
                             char ***values, size_t *count);
/* Give back what the allocation took; idempotent.  The job may be
 * allocated again afterwards. */
int meridian_pnet_deregister(meridian_pnet_job_t *job);

/* ------------------------------------------------------------ the result */

/* What one request gave one process. */
typedef struct meridian_pnet_assignment {
    char *id;        /* the request's ID */
    char *type;      /* the type served ("tcp") */
    char *plane;     /* the plane of this process's resources ("" when none) */
    char *component; /* the pnet component that served it */
    uint16_t *ports; /* static ports, ascending (tcp, udp); NULL when none */
    size_t port_count;
    char **devices; /* the NICs or devices ("eth1", "mlx5_0:1"); NULL when none */
    size_t device_count;
    int has_qos; /* qos is set when non-zero */
    uint32_t qos;
    int has_bandwidth; /* bandwidth_mbps is set when non-zero */
    double bandwidth_mbps;
    uint8_t *seckey; /* the request's security key; NULL when none */
    size_t seckey_size;
} meridian_pnet_assignment_t;

/* The IDs of the job's requests, in request order (free() each, then the
 * array). */
int meridian_pnet_request_ids(const meridian_pnet_job_t *job, char ***ids, size_t *count);
/* What request `id` gave process `rank` in the allocation; free with
 * meridian_pnet_assignment_free.  MERIDIAN_ERR_NOT_INITIALIZED before
 * meridian_pnet_allocate (and after deregister), MERIDIAN_ERR_NOT_FOUND for
 * an unknown ID, MERIDIAN_ERR_BAD_PARAM for a rank outside the job. */
int meridian_pnet_get_assignment(const meridian_pnet_job_t *job, const char *id, uint32_t rank,
                                 meridian_pnet_assignment_t **assignment);
void meridian_pnet_assignment_free(meridian_pnet_assignment_t *assignment);

/* ------------------------------------------------------------ for a PMIx server */

/* What the job's processes read with PMIx_Get, for a launcher that is a
 * PMIx server: entries for PMIx_server_register_nspace.  Include
 * <pmix_common.h> to use them; free with PMIX_INFO_FREE(info, count).
 * Under OpenPMIx 5 and later, have the server and the job's processes use
 * gds hash (PMIX_MCA_gds=hash): the shared-memory store (shmem2, shmem3)
 * gives a process a key outside PMIx's dictionary -- a request's ID,
 * meridian.* -- with another key's value.
 *
 * meridian_pnet_pmix_proc_data: put these after PMIX_RANK in process
 * `rank`'s PMIX_PROC_DATA array.  After meridian_pnet_setup_local_network
 * for the process's node (in this launcher); in this order:
 *   - each request's entry under its ID: a pmix_data_array_t of pmix_info_t
 *     (pmix.alloc.netid, pmix.alloc.nettype, ..., and the request's
 *     pmix.net.endpt), as in-job processes publish it;
 *   - meridian.net.endpt: every endpoint in request order, an array of
 *     strings ("10.1.0.1:32000");
 *   - pmix.fab.endpt (PMIX_FABRIC_ENDPT): the same endpoints as an array of
 *     pmix_endpoint_t: uuid the fabric's "node:nic" name of the NIC the
 *     endpoint is on ("" when none is known), osname the NIC's name, endpt
 *     the endpoint's text without a NUL;
 *   - meridian.net.coord: the process's coordinates, an array of
 *     pmix_coord_t (every plane, logical view, nearest NIC first).
 * Endpoints and coordinates are left out when there are none (a coord
 * component places no plane, say; a job without requests has no request
 * entries and no endpoints).
 *
 * meridian_pnet_pmix_node_data: put these after PMIX_HOSTNAME in `node`'s
 * PMIX_NODE_INFO_ARRAY (PMIx gives the devices' coordinates per node; a
 * PMIx 4.2 server drops pmix.fab.coord from a process's data):
 *   - pmix.fab.coord (PMIX_FABRIC_COORDINATES): an array of
 *     pmix_geometry_t, one per NIC of the node that has coordinates: fabric
 *     the plane's index, uuid "node:nic", osname the NIC's name, coordinates
 *     in each view the plane gives (logical, then physical).
 * count 0 (info NULL) when no NIC of the node has coordinates.  A process
 * reads it with PMIx_Get(rank wildcard, PMIX_FABRIC_COORDINATES) qualified
 * by PMIX_HOSTNAME.
 *
 * The seeds name the process-level values pmix.net.endpt and
 * pmix.net.coord; released PMIx calls them pmix.fab.endpt and
 * pmix.fab.coord, and a PMIx 4.2 server refuses a "pmix" key it does not
 * know, so only those are given.  The coordinates are this job's: when
 * another job was allocated since, this one is placed again (coord's
 * queries then answer for it).
 * Errors: MERIDIAN_ERR_NOT_INITIALIZED before allocate, and for process
 * data before the node's setup ("call meridian_pnet_setup_local_network
 * for node node02 first"); MERIDIAN_ERR_BAD_PARAM for a rank outside the
 * job; MERIDIAN_ERR_NOT_FOUND for an unknown node; MERIDIAN_ERR_NOT_SUPPORTED when Meridian was
 * built without PMIx. */
struct pmix_info;
int meridian_pnet_pmix_proc_data(const meridian_pnet_job_t *job, uint32_t rank,
                                 struct pmix_info **info, size_t *count);
int meridian_pnet_pmix_node_data(const meridian_pnet_job_t *job, const char *node,
                                 struct pmix_info **info, size_t *count);

/* ------------------------------------------------------------ for a launcher's daemons */
/* A launcher with a PMIx server on every node of a job (Open MPI's mpirun and
 * its daemons, through the pnet plugin for libpmix: pmix_plugin/README.md)
 * splits the pipeline so that nobody computes the whole job:
 *
 *   launcher:   meridian_pnet_launch_blob(&bytes, &size)
 *               the job's requests (pnet_base_requests, as this process's
 *               parameters give them) and their security keys, drawn once;
 *               handed to every node as they are
 *   each node:  meridian_pnet_node_job_new(nspace, node, packages, count,
 *                                          bytes, size, &job)
 *               meridian_pnet_pmix_proc_data(job, i, ...)  for i < count
 *               meridian_pnet_job_free(job)  at the job's end: ports go back
 *
 * meridian_pnet_launch_blob: text (free()), never empty, also when the job
 * asks for nothing.  Fails as pnet_base_requests does ("pnet_base_requests
 * from environment variable ...:4: expected ...").
 *
 * meridian_pnet_node_job_new: `node`'s share of job `nspace`: `count`
 * processes, the i-th the node's local rank i, bound to processor package
 * packages[i] (-1: not bound within one; a package the node lacks counts as
 * -1).  Runs the node's inventory, a job map of those processes, the blob's
 * requests with its keys, allocate and setup_local_network: the job comes
 * back allocated and set up, each process by its local rank.  Refuses a blob
 * of another version or a broken one ("the launcher's pnet blob, line 1:
 * expected ..."), and fails as the pipeline fails (a required value that
 * cannot be met); nothing is held then. */
int meridian_pnet_launch_blob(uint8_t **bytes, size_t *size);
/* meridian_pnet_launch_blob_with: the same, with the requests the launcher
 * itself asks for (PMIx's PMIX_ALLOC_NETWORK entries, as a request set;
 * NULL: none) after pnet_base_requests' ones.  A request ID in both is
 * refused: "the launcher asks for network allocation \"x\", and
 * pnet_base_requests has a request of that ID too". */
int meridian_pnet_launch_blob_with(const meridian_pnet_requests_t *launcher, uint8_t **bytes,
                                   size_t *size);
/* meridian_pnet_pmix_node_inventory: for a job of meridian_pnet_node_job_new,
 * one entry the node's server keeps as the job's data there:
 * meridian.node.inventory, the node's inventory the share was made from (an
 * array of pmix_info_t, one per pnet component: its blob as bytes).  The
 * node's lowest rank publishes it for the processes of other nodes, which
 * place the job's fabric from every node's (their coordinate and cost
 * queries).  Free with PMIX_INFO_FREE(info, count). */
struct pmix_info;
int meridian_pnet_pmix_node_inventory(const meridian_pnet_job_t *job, struct pmix_info **info,
                                      size_t *count);
int meridian_pnet_node_job_new(const char *nspace, const char *node, const int32_t *packages,
                               size_t count, const void *blob, size_t size,
                               meridian_pnet_job_t **job);
/* meridian_pnet_package_of_locality: the processor package a PMIx locality
 * string (PMIX_LOCALITY_STRING, "SK1:L31:L21:L11:CR1:HT1:NM0") binds a
 * process to, for meridian_pnet_node_job_new's packages; -1 when it names
 * none or several ("SK0-1"), or `locality` is NULL. */
int32_t meridian_pnet_package_of_locality(const char *locality);

MERIDIAN_C_API_END

#endif
