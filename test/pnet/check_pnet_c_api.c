/* SPDX-License-Identifier: BSD-3-Clause */
/* The pnet pipeline through its C API (mca/pnet/base/base.h), as a C
 * resource manager runs it: a fabric from inline text and from delivered
 * inventory, requests from PMIx-style attributes and from text, a job map,
 * allocation, each process's ports, NICs, plane, QoS, bandwidth and key,
 * node setup, a process's environment, deregister giving ports back, a
 * required value that cannot be met, and bad input -- each failure checked
 * by its message, taken through the message sink.  Components: pnet_tcp and
 * the "opa" fixture (fixtures/pnet_opa_fixture.cc), from the build tree. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <meridian/mca/pnet/base/base.h>
#include <meridian/mca/runtime/meridian.h>
#include <meridian/opal/mca/base/mca_base.h>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.h>
#ifdef TEST_WITH_PMIX
#include <pmix_common.h>
#endif

#include "lab_fabric.h"

/* ------------------------------------------------------------ messages */

enum { MAX_MESSAGES = 32, MAX_TEXT = 1024 };
static struct {
    meridian_severity_t severity;
    char text[MAX_TEXT];
} messages[MAX_MESSAGES];
static int message_count = 0;

static void capture(meridian_severity_t severity, const char *text, void *context)
{
    (void)context;
    if (message_count < MAX_MESSAGES) {
        messages[message_count].severity = severity;
        snprintf(messages[message_count].text, MAX_TEXT, "%s", text);
    }
    ++message_count;
}

static void clear_messages(void)
{
    message_count = 0;
}

static void show_messages(void)
{
    for (int i = 0; i < message_count && i < MAX_MESSAGES; ++i) {
        fprintf(stderr, "  message %d (severity %d): %s\n", i, (int)messages[i].severity,
                messages[i].text);
    }
}

/* Exactly one message since the last clear: this error. */
static void expect_error(const char *text)
{
    if (message_count != 1 || messages[0].severity != MERIDIAN_SEVERITY_ERROR) {
        show_messages();
    }
    ck_assert_int_eq(message_count, 1);
    ck_assert_int_eq(messages[0].severity, MERIDIAN_SEVERITY_ERROR);
    ck_assert_str_eq(messages[0].text, text);
    clear_messages();
}

static void expect_no_messages(void)
{
    if (message_count != 0) {
        show_messages();
    }
    ck_assert_int_eq(message_count, 0);
}

/* ------------------------------------------------------------ set-up */

static void set_param(const char *name, const char *value)
{
    char variable[256];
    snprintf(variable, sizeof variable, "%s%s", meridian_mca_base_env_prefix(), name);
    ck_assert_int_eq(setenv(variable, value, 1), 0);
}

/* pnet_tcp and the opa fixture from the build tree; no inherited settings. */
static void setup(void)
{
    extern char **environ;
    const char *prefix = meridian_mca_base_env_prefix();
    const size_t length = strlen(prefix);
    for (int again = 1; again;) {
        again = 0;
        for (char **entry = environ; *entry != NULL; ++entry) {
            const char *equals = strchr(*entry, '=');
            if (strncmp(*entry, prefix, length) == 0 && equals != NULL) {
                char name[256];
                snprintf(name, sizeof name, "%.*s", (int)(equals - *entry), *entry);
                unsetenv(name);
                again = 1;
                break;
            }
        }
    }
    set_param("mca_base_param_files", "none");
    set_param("mca_base_component_path", PNET_COMPONENT_PATH);
    set_param("pnet", "tcp,opa");
    set_param("pnet_opa_mode", "ok");
    meridian_set_message_sink(capture, NULL);
    clear_messages();
    ck_assert_int_eq(meridian_init(NULL, NULL), MERIDIAN_SUCCESS);
}

static void teardown(void)
{
    meridian_finalize();
    meridian_set_message_sink(NULL, NULL);
}

static meridian_pnet_fabric_t *lab(void)
{
    meridian_pnet_fabric_t *fabric = NULL;
    ck_assert_int_eq(meridian_pnet_fabric_parse(lab_fabric, "lab.fabric", &fabric),
                     MERIDIAN_SUCCESS);
    ck_assert_ptr_nonnull(fabric);
    return fabric;
}

/* Processes [first, first + count) on node index `node`, local ranks from 0,
 * packages alternating 0, 1. */
static void place(meridian_pnet_proc_t *procs, size_t first, size_t count, uint32_t node)
{
    for (size_t i = 0; i < count; ++i) {
        procs[first + i].node = node;
        procs[first + i].local_rank = (uint32_t)i;
        procs[first + i].package = (int32_t)(i % 2);
    }
}

static meridian_pnet_requests_t *requests_from_text(const char *text)
{
    meridian_pnet_requests_t *requests = NULL;
    ck_assert_int_eq(meridian_pnet_requests_new(&requests), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_pnet_requests_parse(requests, text, "--request"), MERIDIAN_SUCCESS);
    return requests;
}

static meridian_pnet_job_t *job_on(meridian_pnet_fabric_t *fabric, const char *nspace,
                                   const char *node, size_t count,
                                   const meridian_pnet_requests_t *requests)
{
    meridian_pnet_proc_t procs[8];
    ck_assert_uint_le(count, 8);
    place(procs, 0, count, 0);
    meridian_pnet_job_t *job = NULL;
    ck_assert_int_eq(meridian_pnet_job_new(fabric, nspace, &node, 1, procs, count, requests, &job),
                     MERIDIAN_SUCCESS);
    return job;
}

static meridian_pnet_assignment_t *assignment(const meridian_pnet_job_t *job, const char *id,
                                              uint32_t rank)
{
    meridian_pnet_assignment_t *got = NULL;
    ck_assert_int_eq(meridian_pnet_get_assignment(job, id, rank, &got), MERIDIAN_SUCCESS);
    ck_assert_ptr_nonnull(got);
    return got;
}

static void expect_ports(const meridian_pnet_job_t *job, const char *id, uint32_t rank,
                         uint16_t first, size_t count)
{
    meridian_pnet_assignment_t *got = assignment(job, id, rank);
    ck_assert_uint_eq(got->port_count, count);
    for (size_t i = 0; i < count; ++i) {
        ck_assert_uint_eq(got->ports[i], first + i);
    }
    meridian_pnet_assignment_free(got);
}

/* ------------------------------------------------------------ the pipeline */

/* Two requests, one from PMIx-style attributes, one from text, on two
 * nodes: what each process got, node setup, the environment. */
START_TEST(whole_pipeline)
{
    ck_assert_int_eq(meridian_pnet_open(), MERIDIAN_SUCCESS);
    char **names = NULL;
    size_t count = 0;
    ck_assert_int_eq(meridian_pnet_active_components(&names, &count), MERIDIAN_SUCCESS);
    ck_assert_uint_eq(count, 2);
    ck_assert_str_eq(names[0], "tcp");
    ck_assert_str_eq(names[1], "opa");
    for (size_t i = 0; i < count; ++i) {
        free(names[i]);
    }
    free(names);

    meridian_pnet_fabric_t *fabric = lab();
    meridian_pnet_requests_t *requests = NULL;
    ck_assert_int_eq(meridian_pnet_requests_new(&requests), MERIDIAN_SUCCESS);
    const meridian_pnet_attr_t data[] = {
        {MERIDIAN_PNET_ALLOC_NETWORK_ID, "data", 0},
        {MERIDIAN_PNET_ALLOC_NETWORK_TYPE, "tcp", 1},
        {MERIDIAN_PNET_ALLOC_NETWORK_PLANE, "10.10.0.0/16", 0},
        {MERIDIAN_PNET_ALLOC_NETWORK_ENDPTS, "2", 1},
        {MERIDIAN_PNET_ALLOC_NETWORK_SEC_KEY, "8", 0},
        {MERIDIAN_PNET_ALLOC_NETWORK_QOS, "1", 0},
        {MERIDIAN_PNET_ALLOC_BANDWIDTH, "1G", 0},
    };
    ck_assert_int_eq(meridian_pnet_requests_add(requests, data, sizeof data / sizeof data[0]),
                     MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_pnet_requests_parse(requests, "id=fast,type=opa", "--request"),
                     MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_pnet_requests_count(requests, &count), MERIDIAN_SUCCESS);
    ck_assert_uint_eq(count, 2);
    char *text = NULL;
    ck_assert_int_eq(meridian_pnet_requests_format(requests, &text), MERIDIAN_SUCCESS);
    ck_assert_str_eq(text, "id=data,type=tcp!,plane=10.10.0.0/16,endpts=2!,seckey=8,qos=1,bw=1000;"
                           "id=fast,type=opa");
    free(text);

    /* Ranks 0, 1 on node01 (packages 0, 1), rank 2 on node02. */
    const char *const nodes[] = {"node01", "node02"};
    meridian_pnet_proc_t procs[3];
    place(procs, 0, 2, 0);
    place(procs, 2, 1, 1);
    meridian_pnet_job_t *job = NULL;
    ck_assert_int_eq(meridian_pnet_job_new(fabric, "job1", nodes, 2, procs, 3, requests, &job),
                     MERIDIAN_SUCCESS);
    meridian_pnet_requests_free(requests);
    meridian_pnet_fabric_free(fabric); /* the job keeps its own */
    ck_assert_int_eq(meridian_pnet_allocate(job), MERIDIAN_SUCCESS);

    char **ids = NULL;
    ck_assert_int_eq(meridian_pnet_request_ids(job, &ids, &count), MERIDIAN_SUCCESS);
    ck_assert_uint_eq(count, 2);
    ck_assert_str_eq(ids[0], "data");
    ck_assert_str_eq(ids[1], "fast");
    free(ids[0]);
    free(ids[1]);
    free(ids);

    meridian_pnet_assignment_t *first = assignment(job, "data", 0);
    ck_assert_str_eq(first->id, "data");
    ck_assert_str_eq(first->type, "tcp");
    ck_assert_str_eq(first->plane, "10.10.0.0/16");
    ck_assert_str_eq(first->component, "tcp");
    ck_assert_uint_eq(first->port_count, 2);
    ck_assert_uint_eq(first->ports[0], 32000);
    ck_assert_uint_eq(first->ports[1], 32001);
    ck_assert_uint_eq(first->device_count, 1);
    ck_assert_str_eq(first->devices[0], "eth0");
    ck_assert_int_ne(first->has_qos, 0);
    ck_assert_uint_eq(first->qos, 1);
    ck_assert_int_ne(first->has_bandwidth, 0);
    ck_assert(first->bandwidth_mbps == 1000.0);
    ck_assert_uint_eq(first->seckey_size, 8);
    expect_ports(job, "data", 1, 32002, 2);
    meridian_pnet_assignment_t *third = assignment(job, "data", 2);
    ck_assert_uint_eq(third->port_count, 2);
    ck_assert_uint_eq(third->ports[0], 32000);
    ck_assert_str_eq(third->devices[0], "eth0");
    /* One key per request, job-wide. */
    ck_assert_uint_eq(third->seckey_size, 8);
    ck_assert_int_eq(memcmp(first->seckey, third->seckey, 8), 0);
    meridian_pnet_assignment_free(first);
    meridian_pnet_assignment_free(third);

    meridian_pnet_assignment_t *fast = assignment(job, "fast", 1);
    ck_assert_str_eq(fast->component, "opa");
    ck_assert_str_eq(fast->plane, "opa");
    ck_assert_uint_eq(fast->port_count, 0);
    ck_assert_ptr_null(fast->ports);
    ck_assert_uint_eq(fast->device_count, 1);
    ck_assert_str_eq(fast->devices[0], "hfi1_0");
    ck_assert_int_eq(fast->has_qos, 0);
    ck_assert_int_eq(fast->has_bandwidth, 0);
    ck_assert_ptr_null(fast->seckey);
    meridian_pnet_assignment_free(fast);

    ck_assert_int_eq(meridian_pnet_setup_local_network(job, "node01"), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_pnet_setup_local_network(job, "node02"), MERIDIAN_SUCCESS);
    char **values = NULL;
    ck_assert_int_eq(meridian_pnet_setup_fork(job, 2, &names, &values, &count), MERIDIAN_SUCCESS);
    ck_assert_uint_eq(count, 1);
    ck_assert_str_eq(names[0], "HFI_UNIT");
    ck_assert_str_eq(values[0], "0");
    free(names[0]);
    free(values[0]);
    free(names);
    free(values);

    ck_assert_int_eq(meridian_pnet_deregister(job), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_pnet_deregister(job), MERIDIAN_SUCCESS);
    meridian_pnet_job_free(job);
    ck_assert_int_eq(meridian_pnet_close(), MERIDIAN_SUCCESS);
    expect_no_messages();
}
END_TEST

/* node02 has 6 tcp ports: a job taking all of them leaves none for the
 * next, whose required request fails with the component's reason; after
 * deregister the next job gets the same ports, and the first job allocated
 * again too. */
START_TEST(deregister_gives_ports_back)
{
    meridian_pnet_fabric_t *fabric = lab();
    meridian_pnet_requests_t *all = requests_from_text("id=data,type=tcp,endpts=3,required");
    meridian_pnet_requests_t *one = requests_from_text("id=data,type=tcp,endpts=1,required");
    meridian_pnet_job_t *first = job_on(fabric, "first", "node02", 2, all);
    meridian_pnet_job_t *second = job_on(fabric, "second", "node02", 1, one);
    ck_assert_int_eq(meridian_pnet_allocate(first), MERIDIAN_SUCCESS);
    expect_ports(first, "data", 0, 32000, 3);
    expect_ports(first, "data", 1, 32003, 3);
    ck_assert_int_eq(meridian_pnet_allocate(first), MERIDIAN_ERR_EXISTS);
    expect_error("meridian_pnet_allocate: the job is allocated already (deregister it first)");

    ck_assert_int_eq(meridian_pnet_allocate(second), MERIDIAN_ERR_OUT_OF_RESOURCE);
    expect_error("request \"data\": ENDPTS 1 is required but node02 has 0 free tcp ports on "
                 "10.10.0.0/16 for 1 process");
    meridian_pnet_assignment_t *none = NULL;
    ck_assert_int_eq(meridian_pnet_get_assignment(second, "data", 0, &none),
                     MERIDIAN_ERR_NOT_INITIALIZED);
    ck_assert_ptr_null(none);
    expect_error("meridian_pnet_get_assignment: the job is not allocated (meridian_pnet_allocate)");

    ck_assert_int_eq(meridian_pnet_deregister(first), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_pnet_allocate(second), MERIDIAN_SUCCESS);
    expect_ports(second, "data", 0, 32000, 1);
    ck_assert_int_eq(meridian_pnet_deregister(second), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_pnet_allocate(first), MERIDIAN_SUCCESS);
    expect_ports(first, "data", 0, 32000, 3);
    expect_ports(first, "data", 1, 32003, 3);
    /* Freeing an allocated job gives its ports back too. */
    meridian_pnet_job_free(first);
    ck_assert_int_eq(meridian_pnet_allocate(second), MERIDIAN_SUCCESS);
    expect_ports(second, "data", 0, 32000, 1);
    meridian_pnet_job_free(second);
    meridian_pnet_requests_free(all);
    meridian_pnet_requests_free(one);
    meridian_pnet_fabric_free(fabric);
    expect_no_messages();
}
END_TEST

/* A required bandwidth node01's 10G eth0 cannot give 4 processes: the
 * allocation fails with the component's message, and holds nothing. */
START_TEST(required_value_not_met)
{
    meridian_pnet_fabric_t *fabric = lab();
    meridian_pnet_requests_t *requests = NULL;
    ck_assert_int_eq(meridian_pnet_requests_new(&requests), MERIDIAN_SUCCESS);
    const meridian_pnet_attr_t data[] = {
        {MERIDIAN_PNET_ALLOC_NETWORK_ID, "data", 0},
        {MERIDIAN_PNET_ALLOC_NETWORK_TYPE, "tcp", 0},
        {MERIDIAN_PNET_ALLOC_BANDWIDTH, "5G", 1},
    };
    ck_assert_int_eq(meridian_pnet_requests_add(requests, data, 3), MERIDIAN_SUCCESS);
    meridian_pnet_job_t *job = job_on(fabric, "job1", "node01", 4, requests);
    ck_assert_int_eq(meridian_pnet_allocate(job), MERIDIAN_ERR_OUT_OF_RESOURCE);
    expect_error("request \"data\": BANDWIDTH 5 Gb/s is required but node01's eth0 gives 2.5 "
                 "Gb/s per process (10 Gb/s shared by 4 processes)");
    char **names = NULL;
    char **values = NULL;
    size_t count = 1;
    ck_assert_int_eq(meridian_pnet_setup_fork(job, 0, &names, &values, &count),
                     MERIDIAN_ERR_NOT_INITIALIZED);
    ck_assert_uint_eq(count, 0);
    expect_error("meridian_pnet_setup_fork: the job is not allocated (meridian_pnet_allocate)");
    meridian_pnet_job_free(job);

    /* Best effort: allocated, with what each process gets and a warning. */
    meridian_pnet_requests_free(requests);
    requests = requests_from_text("id=data,type=tcp,bw=5G");
    job = job_on(fabric, "job2", "node01", 4, requests);
    ck_assert_int_eq(meridian_pnet_allocate(job), MERIDIAN_SUCCESS);
    meridian_pnet_assignment_t *got = assignment(job, "data", 3);
    ck_assert(got->bandwidth_mbps == 2500.0);
    meridian_pnet_assignment_free(got);
    ck_assert_int_eq(message_count, 1);
    ck_assert_int_eq(messages[0].severity, MERIDIAN_SEVERITY_WARNING);
    meridian_pnet_job_free(job);
    meridian_pnet_requests_free(requests);
    meridian_pnet_fabric_free(fabric);
}
END_TEST

/* A security key given by the launcher is every process's key. */
START_TEST(given_security_key)
{
    meridian_pnet_fabric_t *fabric = lab();
    meridian_pnet_requests_t *requests = requests_from_text("id=data,type=tcp,seckey=4");
    meridian_pnet_job_t *job = job_on(fabric, "job1", "node01", 2, requests);
    const uint8_t key[4] = {0xde, 0xad, 0xbe, 0xef};
    ck_assert_int_eq(meridian_pnet_job_set_seckey(job, "data", key, 2), MERIDIAN_ERR_BAD_PARAM);
    expect_error("meridian_pnet_job_set_seckey: request \"data\" asks for a 4-byte key, the key "
                 "given has 2 bytes");
    ck_assert_int_eq(meridian_pnet_job_set_seckey(job, "ctl", key, 4), MERIDIAN_ERR_NOT_FOUND);
    expect_error("meridian_pnet_job_set_seckey: the job has no request \"ctl\" (requests: data)");
    ck_assert_int_eq(meridian_pnet_job_set_seckey(job, "data", key, 4), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_pnet_allocate(job), MERIDIAN_SUCCESS);
    meridian_pnet_assignment_t *got = assignment(job, "data", 1);
    ck_assert_uint_eq(got->seckey_size, 4);
    ck_assert_int_eq(memcmp(got->seckey, key, 4), 0);
    meridian_pnet_assignment_free(got);
    meridian_pnet_job_free(job);
    meridian_pnet_requests_free(requests);
    meridian_pnet_fabric_free(fabric);
    expect_no_messages();
}
END_TEST

/* ------------------------------------------------------------ inventory */

/* This node's inventory (pnet_tcp reads it from pnet_tcp_fabric_file)
 * delivered into an empty fabric at the launcher gives the whole fabric. */
START_TEST(inventory_into_a_fabric)
{
    char path[] = "/tmp/check_pnet_c_api.XXXXXX";
    const int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    const size_t length = strlen(lab_fabric);
    const ssize_t written = write(fd, lab_fabric, length);
    close(fd);
    /* Parameters are read at meridian_init. */
    ck_assert_int_eq(meridian_finalize(), MERIDIAN_SUCCESS);
    set_param("pnet_tcp_fabric_file", path);
    const int started = meridian_init(NULL, NULL);
    meridian_pnet_inventory_t *inventory = NULL;
    size_t count = 0;
    const int collected = meridian_pnet_collect_inventory(&inventory, &count);
    unlink(path);
    ck_assert_int_eq(started, MERIDIAN_SUCCESS);
    ck_assert_int_eq((int)written, (int)length);
    ck_assert_int_eq(collected, MERIDIAN_SUCCESS);
    ck_assert_uint_eq(count, 1);
    ck_assert_str_eq(inventory[0].component, "tcp");
    ck_assert_uint_gt(inventory[0].size, 0);

    meridian_pnet_fabric_t *fabric = NULL;
    ck_assert_int_eq(meridian_pnet_fabric_new(&fabric), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_pnet_fabric_deliver(fabric, "node01", inventory[0].component,
                                                  inventory[0].bytes, inventory[0].size),
                     MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_pnet_fabric_deliver(fabric, "node01", "ucx", inventory[0].bytes,
                                                  inventory[0].size),
                     MERIDIAN_ERR_NOT_FOUND);
    expect_error("inventory from \"node01\" is for the pnet component \"ucx\", which is not "
                 "active (active: tcp, opa)");
    meridian_pnet_inventory_free(inventory, count);
    char *text = NULL;
    ck_assert_int_eq(meridian_pnet_fabric_format(fabric, &text), MERIDIAN_SUCCESS);
    ck_assert_ptr_nonnull(strstr(text, "\nnode node02 "));
    ck_assert_ptr_nonnull(strstr(text, "\nnic node03 eth0 plane=10.10.0.0/16 address=10.10.1.3"));
    free(text);

    /* A job on the delivered fabric. */
    meridian_pnet_requests_t *requests = requests_from_text("id=data,type=tcp");
    meridian_pnet_job_t *job = job_on(fabric, "job1", "node02", 1, requests);
    ck_assert_int_eq(meridian_pnet_allocate(job), MERIDIAN_SUCCESS);
    expect_ports(job, "data", 0, 32000, 1);
    meridian_pnet_job_free(job);
    meridian_pnet_requests_free(requests);
    meridian_pnet_fabric_free(fabric);
}
END_TEST

/* ------------------------------------------------------------ bad input */

static void expect_attrs_refused(const meridian_pnet_attr_t *attrs, size_t count,
                                 const char *message)
{
    meridian_pnet_requests_t *requests = NULL;
    ck_assert_int_eq(meridian_pnet_requests_new(&requests), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_pnet_requests_add(requests, attrs, count), MERIDIAN_ERR_BAD_PARAM);
    expect_error(message);
    size_t held = 1;
    ck_assert_int_eq(meridian_pnet_requests_count(requests, &held), MERIDIAN_SUCCESS);
    ck_assert_uint_eq(held, 0);
    meridian_pnet_requests_free(requests);
}

START_TEST(bad_request_attributes)
{
    const meridian_pnet_attr_t misspelt[] = {{"pmix.alloc.netid", "data", 0},
                                             {"pmix.alloc.endpt", "2", 0}};
    expect_attrs_refused(misspelt, 2,
                         "meridian_pnet_requests_add: attrs[1]: expected a request key "
                         "(pmix.alloc.netid, pmix.alloc.nettype, pmix.alloc.netplane, "
                         "pmix.alloc.endpts, pmix.alloc.nsec, pmix.alloc.netqos, pmix.alloc.bw), "
                         "found \"pmix.alloc.endpt\" (did you mean pmix.alloc.endpts?)");
    const meridian_pnet_attr_t zero[] = {{"pmix.alloc.netid", "data", 0},
                                         {"pmix.alloc.endpts", "0", 1}};
    expect_attrs_refused(zero, 2,
                         "meridian_pnet_requests_add: attrs[1] (pmix.alloc.endpts): expected a "
                         "number of endpoints 1-65535, found \"0\"");
    const meridian_pnet_attr_t slow[] = {{"pmix.alloc.bw", "fast", 1},
                                         {"pmix.alloc.netid", "data", 0}};
    expect_attrs_refused(slow, 2,
                         "meridian_pnet_requests_add: attrs[0] (pmix.alloc.bw): expected a rate "
                         "above 0 (such as 10G, 25Gb/s or 1000 = Mbit/s), found \"fast\"");
    const meridian_pnet_attr_t twice[] = {{"pmix.alloc.netid", "data", 0},
                                          {"pmix.alloc.nettype", "tcp", 0},
                                          {"pmix.alloc.nettype", "udp", 0}};
    expect_attrs_refused(twice, 3,
                         "meridian_pnet_requests_add: attrs[2] (pmix.alloc.nettype): the key is "
                         "given twice (attrs[1] has it too)");
    const meridian_pnet_attr_t anonymous[] = {{"pmix.alloc.nettype", "tcp", 0}};
    expect_attrs_refused(anonymous, 1,
                         "meridian_pnet_requests_add: the request has no pmix.alloc.netid (its "
                         "ID is required)");
    const meridian_pnet_attr_t no_value[] = {{"pmix.alloc.netid", NULL, 0}};
    expect_attrs_refused(no_value, 1,
                         "meridian_pnet_requests_add: attrs[0] (pmix.alloc.netid): expected a "
                         "request ID (letters, digits, \"_-.@\"), found NULL");

    /* One ID twice in a set; a text that does not parse. */
    meridian_pnet_requests_t *requests = requests_from_text("id=data");
    const meridian_pnet_attr_t again[] = {{"pmix.alloc.netid", "data", 0}};
    ck_assert_int_eq(meridian_pnet_requests_add(requests, again, 1), MERIDIAN_ERR_BAD_PARAM);
    expect_error("meridian_pnet_requests_add: request ID \"data\" is in the set already");
    ck_assert_int_eq(meridian_pnet_requests_parse(requests, "id=ctl,endpts=0", "srun --network"),
                     MERIDIAN_ERR_BAD_PARAM);
    expect_error("srun --network:15: expected endpts=N with N 1-65535, found \"0\"");
    size_t count = 0;
    ck_assert_int_eq(meridian_pnet_requests_count(requests, &count), MERIDIAN_SUCCESS);
    ck_assert_uint_eq(count, 1);
    meridian_pnet_requests_free(requests);
    ck_assert_int_eq(meridian_pnet_requests_add(NULL, again, 1), MERIDIAN_ERR_BAD_PARAM);
    expect_error("meridian_pnet_requests_add: requests is NULL");
}
END_TEST

START_TEST(bad_job_map)
{
    meridian_pnet_fabric_t *fabric = lab();
    meridian_pnet_requests_t *requests = requests_from_text("id=data,type=tcp");
    const char *const nodes[] = {"node01", "node02"};
    meridian_pnet_proc_t procs[2];
    place(procs, 0, 2, 0);
    meridian_pnet_job_t *job = NULL;

    procs[1].node = 5;
    ck_assert_int_eq(meridian_pnet_job_new(fabric, "job1", nodes, 2, procs, 2, requests, &job),
                     MERIDIAN_ERR_BAD_PARAM);
    ck_assert_ptr_null(job);
    expect_error("meridian_pnet_job_new: procs[1]: node index 5 is past the job's 2 nodes");

    const char *const unknown[] = {"node01", "node09"};
    place(procs, 0, 2, 0);
    ck_assert_int_eq(meridian_pnet_job_new(fabric, "job1", unknown, 2, procs, 2, requests, &job),
                     MERIDIAN_ERR_BAD_PARAM);
    expect_error("meridian_pnet_job_new: nodes[1]: unknown node \"node09\" (defined: node01, "
                 "node02, node03)");

    procs[1].local_rank = 0;
    ck_assert_int_eq(meridian_pnet_job_new(fabric, "job1", nodes, 2, procs, 2, requests, &job),
                     MERIDIAN_ERR_BAD_PARAM);
    expect_error("meridian_pnet_job_new: procs[1]: local rank 0 on node01 is procs[0]'s too");

    place(procs, 0, 2, 0);
    procs[0].package = 2;
    ck_assert_int_eq(meridian_pnet_job_new(fabric, "job1", nodes, 2, procs, 2, requests, &job),
                     MERIDIAN_ERR_BAD_PARAM);
    expect_error("meridian_pnet_job_new: procs[0]: package 2 is not one of node01's (0-1, or -1 "
                 "for none)");

    /* A good job, asked about a request and a rank it does not have. */
    place(procs, 0, 2, 0);
    ck_assert_int_eq(meridian_pnet_job_new(fabric, "job1", nodes, 2, procs, 2, requests, &job),
                     MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_pnet_allocate(job), MERIDIAN_SUCCESS);
    meridian_pnet_assignment_t *got = NULL;
    ck_assert_int_eq(meridian_pnet_get_assignment(job, "ctl", 0, &got), MERIDIAN_ERR_NOT_FOUND);
    expect_error("meridian_pnet_get_assignment: the job has no request \"ctl\" (requests: data)");
    ck_assert_int_eq(meridian_pnet_get_assignment(job, "data", 2, &got), MERIDIAN_ERR_BAD_PARAM);
    expect_error("meridian_pnet_get_assignment: rank 2 is not in the job (2 processes)");
    char **names = NULL;
    char **values = NULL;
    size_t count = 0;
    ck_assert_int_eq(meridian_pnet_setup_fork(job, 7, &names, &values, &count),
                     MERIDIAN_ERR_BAD_PARAM);
    expect_error("setup_fork: rank 7 is not in the job (2 processes)");
    ck_assert_int_eq(meridian_pnet_setup_local_network(job, "node09"), MERIDIAN_ERR_NOT_FOUND);
    expect_error("setup_local_network: node \"node09\" is not in the fabric");
    meridian_pnet_job_free(job);

    meridian_pnet_fabric_t *broken = NULL;
    ck_assert_int_eq(
        meridian_pnet_fabric_parse("plane p\nnic node01 eth0 plane=p\n", "bad.fabric", &broken),
        MERIDIAN_ERR_BAD_PARAM);
    ck_assert_ptr_null(broken);
    ck_assert_int_eq(message_count, 1);
    ck_assert_ptr_nonnull(strstr(messages[0].text, "bad.fabric:2:"));
    clear_messages();
    ck_assert_int_eq(meridian_pnet_close(), MERIDIAN_ERR_NOT_INITIALIZED);
    expect_error("meridian_pnet_close: no meridian_pnet_open to match");
    meridian_pnet_requests_free(requests);
    meridian_pnet_fabric_free(fabric);
}
END_TEST

/* Counts and sizes past what the call can hold are refused by name, value
 * and limit before anything is sized by them (the arrays given are short:
 * nothing past the check reads them). */
START_TEST(counts_are_bounded)
{
    meridian_pnet_fabric_t *fabric = lab();
    meridian_pnet_requests_t *requests = requests_from_text("id=data,type=tcp,seckey=4");
    const char *const nodes[] = {"node01", "node02"};
    meridian_pnet_proc_t procs[2];
    place(procs, 0, 2, 0);
    meridian_pnet_job_t *job = NULL;

    ck_assert_int_eq(
        meridian_pnet_job_new(fabric, "job1", nodes, SIZE_MAX, procs, 2, requests, &job),
        MERIDIAN_ERR_BAD_PARAM);
    ck_assert_ptr_null(job);
    expect_error("meridian_pnet_job_new: node_count 18446744073709551615 is more nodes than the "
                 "fabric holds (3)");
    ck_assert_int_eq(meridian_pnet_job_new(fabric, "job1", nodes, 4, procs, 2, requests, &job),
                     MERIDIAN_ERR_BAD_PARAM);
    expect_error("meridian_pnet_job_new: node_count 4 is more nodes than the fabric holds (3)");
    ck_assert_int_eq(meridian_pnet_job_new(fabric, "job1", NULL, 0, procs, 2, requests, &job),
                     MERIDIAN_ERR_BAD_PARAM);
    expect_error("meridian_pnet_job_new: the job has no nodes (node_count is 0)");
    ck_assert_int_eq(
        meridian_pnet_job_new(fabric, "job1", nodes, 2, procs, SIZE_MAX, requests, &job),
        MERIDIAN_ERR_BAD_PARAM);
    expect_error("meridian_pnet_job_new: proc_count 18446744073709551615 is more processes than "
                 "ranks can number (at most 2147483647)");
    ck_assert_int_eq(
        meridian_pnet_job_new(fabric, "job1", nodes, 2, procs, 20000001, requests, &job),
        MERIDIAN_ERR_BAD_PARAM);
    expect_error("meridian_pnet_job_new: proc_count 20000001 is more processes than 2 nodes can "
                 "hold (at most 10000000 per node)");
    ck_assert_ptr_null(job);

    const meridian_pnet_attr_t one[] = {{"pmix.alloc.netid", "ctl", 0}};
    expect_attrs_refused(one, SIZE_MAX,
                         "meridian_pnet_requests_add: count 18446744073709551615 is more "
                         "attributes than a request has keys (7)");
    expect_attrs_refused(one, 8,
                         "meridian_pnet_requests_add: count 8 is more attributes than a request "
                         "has keys (7)");

    const uint8_t bytes[4] = {0};
    ck_assert_int_eq(meridian_pnet_fabric_deliver(fabric, "node01", "tcp", bytes, SIZE_MAX),
                     MERIDIAN_ERR_BAD_PARAM);
    expect_error("meridian_pnet_fabric_deliver: size 18446744073709551615 is more than an "
                 "inventory may be (at most 67108864 bytes)");
    ck_assert_uint_eq(MERIDIAN_PNET_INVENTORY_MAX_SIZE, 67108864);

    job = job_on(fabric, "job1", "node01", 2, requests);
    ck_assert_int_eq(meridian_pnet_job_set_seckey(job, "data", bytes, SIZE_MAX),
                     MERIDIAN_ERR_BAD_PARAM);
    expect_error("meridian_pnet_job_set_seckey: request \"data\" asks for a 4-byte key, the key "
                 "given has 18446744073709551615 bytes");
    meridian_pnet_job_free(job);
    meridian_pnet_requests_free(requests);
    meridian_pnet_fabric_free(fabric);
    expect_no_messages();
}
END_TEST

/* A caller's bytes in a message are escaped as everywhere else (\xff), and
 * a node name no fabric can hold is not delivered. */
START_TEST(callers_bytes_are_escaped)
{
    meridian_pnet_fabric_t *fabric = lab();
    meridian_pnet_requests_t *requests = requests_from_text("id=data,type=tcp");
    const char *const odd[] = {"node\xff"};
    meridian_pnet_proc_t procs[1];
    place(procs, 0, 1, 0);
    meridian_pnet_job_t *job = NULL;
    ck_assert_int_eq(meridian_pnet_job_new(fabric, "job1", odd, 1, procs, 1, requests, &job),
                     MERIDIAN_ERR_BAD_PARAM);
    expect_error("meridian_pnet_job_new: nodes[0]: unknown node \"node\\xff\" (defined: node01, "
                 "node02, node03)");

    const uint8_t bytes[1] = {'x'};
    ck_assert_int_eq(meridian_pnet_fabric_deliver(fabric, "node\xff", "tcp", bytes, 1),
                     MERIDIAN_ERR_BAD_PARAM);
    expect_error("meridian_pnet_fabric_deliver: expected a node name (letters, digits and "
                 "\"_-.:/\"), found \"node\\xff\"");
    char long_name[257];
    memset(long_name, 'n', 256);
    long_name[256] = '\0';
    ck_assert_int_eq(meridian_pnet_fabric_deliver(fabric, long_name, "tcp", bytes, 1),
                     MERIDIAN_ERR_BAD_PARAM);
    expect_error("meridian_pnet_fabric_deliver: expected a node name of at most 255 bytes, found "
                 "256 bytes");
    ck_assert_int_eq(meridian_pnet_fabric_deliver(fabric, "node01", "uc\xff", bytes, 1),
                     MERIDIAN_ERR_NOT_FOUND);
    expect_error("inventory from \"node01\" is for the pnet component \"uc\\xff\", which is "
                 "not active (active: tcp, opa)");

    job = job_on(fabric, "job1", "node01", 1, requests);
    ck_assert_int_eq(meridian_pnet_allocate(job), MERIDIAN_SUCCESS);
    clear_messages(); /* the opa plane has no coordinates: a warning */
    ck_assert_int_eq(meridian_pnet_setup_local_network(job, "node\xff"), MERIDIAN_ERR_NOT_FOUND);
    expect_error("setup_local_network: node \"node\\xff\" is not in the fabric");
    meridian_pnet_assignment_t *got = NULL;
    ck_assert_int_eq(meridian_pnet_get_assignment(job, "d\xff", 0, &got), MERIDIAN_ERR_NOT_FOUND);
    expect_error("meridian_pnet_get_assignment: the job has no request \"d\\xff\" (requests: "
                 "data)");
    struct pmix_info *info = NULL;
    size_t count = 0;
#ifdef TEST_WITH_PMIX
    ck_assert_int_eq(meridian_pnet_pmix_node_data(job, "node\xff", &info, &count),
                     MERIDIAN_ERR_NOT_FOUND);
    expect_error("meridian_pnet_pmix_node_data: unknown node \"node\\xff\" (defined: node01, "
                 "node02, node03)");
#else
    ck_assert_int_eq(meridian_pnet_pmix_node_data(job, "node\xff", &info, &count),
                     MERIDIAN_ERR_NOT_SUPPORTED);
    expect_error("meridian_pnet_pmix_node_data: this Meridian was built without PMIx");
#endif
    ck_assert_ptr_null(info);
    ck_assert_uint_eq(count, 0);
    meridian_pnet_job_free(job);
    meridian_pnet_requests_free(requests);
    meridian_pnet_fabric_free(fabric);
}
END_TEST

/* A launcher's PMIx entries (meridian_pnet_pmix_proc_data and _node_data):
 * refused before allocate, before the node's setup, for a rank or node
 * the job lacks; then the request's entry, the endpoints and the
 * coordinates.  (Every
 * value as a PMIx client reads it: test/injob/pmix_launcher.sh.) */
/* A launcher's locality strings, read for meridian_pnet_node_job_new. */
START_TEST(package_of_locality)
{
    ck_assert_int_eq(meridian_pnet_package_of_locality("SK1:L31:L21:L11:CR1:HT1:NM0"), 1);
    ck_assert_int_eq(meridian_pnet_package_of_locality("NM0:SK12:CR3"), 12);
    ck_assert_int_eq(meridian_pnet_package_of_locality("SK0-1:L30-1:CR0-1:NM0"), -1);
    ck_assert_int_eq(meridian_pnet_package_of_locality("CR0:HT0"), -1);
    ck_assert_int_eq(meridian_pnet_package_of_locality(""), -1);
    ck_assert_int_eq(meridian_pnet_package_of_locality(NULL), -1);
}
END_TEST

START_TEST(pmix_results)
{
    meridian_pnet_fabric_t *fabric = lab();
    meridian_pnet_requests_t *requests = requests_from_text("id=data,type=tcp,endpts=2");
    meridian_pnet_job_t *job = job_on(fabric, "job1", "node01", 2, requests);
    struct pmix_info *info = NULL;
    size_t count = 7;
#ifndef TEST_WITH_PMIX
    ck_assert_int_eq(meridian_pnet_pmix_proc_data(job, 0, &info, &count),
                     MERIDIAN_ERR_NOT_SUPPORTED);
    ck_assert_ptr_null(info);
    ck_assert_uint_eq(count, 0);
    expect_error("meridian_pnet_pmix_proc_data: this Meridian was built without PMIx");
#else
    ck_assert_int_eq(meridian_pnet_pmix_proc_data(job, 0, &info, &count),
                     MERIDIAN_ERR_NOT_INITIALIZED);
    ck_assert_ptr_null(info);
    ck_assert_uint_eq(count, 0);
    expect_error("meridian_pnet_pmix_proc_data: the job is not allocated (meridian_pnet_allocate)");
    ck_assert_int_eq(meridian_pnet_pmix_node_data(job, "node01", &info, &count),
                     MERIDIAN_ERR_NOT_INITIALIZED);
    expect_error("meridian_pnet_pmix_node_data: the job is not allocated (meridian_pnet_allocate)");
    ck_assert_int_eq(meridian_pnet_allocate(job), MERIDIAN_SUCCESS);
    clear_messages(); /* the opa plane has no coordinates: a warning */
    ck_assert_int_eq(meridian_pnet_pmix_proc_data(job, 0, &info, &count),
                     MERIDIAN_ERR_NOT_INITIALIZED);
    expect_error("meridian_pnet_pmix_proc_data: the results of rank 0 are not stored: call "
                 "meridian_pnet_setup_local_network for node node01 first");
    ck_assert_int_eq(meridian_pnet_pmix_proc_data(job, 2, &info, &count), MERIDIAN_ERR_BAD_PARAM);
    expect_error("meridian_pnet_pmix_proc_data: rank 2 is not in the job (2 processes)");
    ck_assert_int_eq(meridian_pnet_pmix_node_data(job, "node09", &info, &count),
                     MERIDIAN_ERR_NOT_FOUND);
    expect_error("meridian_pnet_pmix_node_data: unknown node \"node09\" (defined: node01, "
                 "node02, node03)");
    ck_assert_int_eq(meridian_pnet_pmix_proc_data(NULL, 0, &info, &count), MERIDIAN_ERR_BAD_PARAM);
    ck_assert_int_eq(message_count, 1);
    ck_assert_ptr_nonnull(strstr(messages[0].text, "meridian_pnet_pmix_proc_data"));
    ck_assert_ptr_nonnull(strstr(messages[0].text, "job"));
    clear_messages();

    ck_assert_int_eq(meridian_pnet_setup_local_network(job, "node01"), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_pnet_pmix_proc_data(job, 1, &info, &count), MERIDIAN_SUCCESS);
    ck_assert_int_eq(message_count, 0);
    /* data, meridian.net.endpt, pmix.fab.endpt, meridian.net.coord, and what
     * a Meridian process puts for other hosts as one value. */
    ck_assert_uint_eq(count, 5);
    ck_assert_str_eq(info[0].key, "data");
    ck_assert_int_eq(info[0].value.type, PMIX_DATA_ARRAY);
    ck_assert_int_eq(info[0].value.data.darray->type, PMIX_INFO);
    ck_assert_str_eq(info[1].key, "meridian.net.endpt");
    ck_assert_uint_eq(info[1].value.data.darray->size, 2);
    ck_assert_str_eq(info[2].key, PMIX_FABRIC_ENDPT);
    ck_assert_int_eq(info[2].value.data.darray->type, PMIX_ENDPOINT);
    const pmix_endpoint_t *endpoints = (const pmix_endpoint_t *)info[2].value.data.darray->array;
    ck_assert_uint_eq(info[2].value.data.darray->size, 2);
    ck_assert_str_eq(endpoints[0].uuid, "node01:eth0");
    ck_assert_str_eq(endpoints[0].osname, "eth0");
    meridian_pnet_assignment_t *got = assignment(job, "data", 1);
    char text[64];
    snprintf(text, sizeof text, "10.10.1.1:%u", got->ports[0]);
    meridian_pnet_assignment_free(got);
    ck_assert_uint_eq(endpoints[0].endpt.size, strlen(text));
    ck_assert_int_eq(memcmp(endpoints[0].endpt.bytes, text, strlen(text)), 0);
    ck_assert_str_eq(info[3].key, "meridian.net.coord");
    ck_assert_int_eq(info[3].value.data.darray->type, PMIX_COORD);
    ck_assert_str_eq(info[4].key, "meridian.pnet.results");
    ck_assert_int_eq(info[4].value.type, PMIX_DATA_ARRAY);
    ck_assert_int_eq(info[4].value.data.darray->type, PMIX_INFO);
    ck_assert_uint_eq(info[4].value.data.darray->size, 3);
    const pmix_info_t *shared = (const pmix_info_t *)info[4].value.data.darray->array;
    /* the same values as the separate keys */
    for (size_t i = 0; i < 3; ++i) {
        const size_t separate = i == 0 ? 0 : i == 1 ? 1 : 3;
        ck_assert_str_eq(shared[i].key, info[separate].key);
        ck_assert_int_eq(shared[i].value.type, info[separate].value.type);
        ck_assert_int_eq(shared[i].value.data.darray->type, info[separate].value.data.darray->type);
        ck_assert_uint_eq(shared[i].value.data.darray->size,
                          info[separate].value.data.darray->size);
    }
    PMIX_INFO_FREE(info, count);
    /* The node's NICs with coordinates, in the fabric's order. */
    ck_assert_int_eq(meridian_pnet_pmix_node_data(job, "node01", &info, &count), MERIDIAN_SUCCESS);
    ck_assert_uint_eq(count, 1);
    ck_assert_str_eq(info[0].key, PMIX_FABRIC_COORDINATES);
    ck_assert_int_eq(info[0].value.data.darray->type, PMIX_GEOMETRY);
    const pmix_geometry_t *nics = (const pmix_geometry_t *)info[0].value.data.darray->array;
    ck_assert_uint_ge(info[0].value.data.darray->size, 1);
    ck_assert_str_eq(nics[0].uuid, "node01:eth0");
    ck_assert_uint_eq(nics[0].fabric, 0);
    ck_assert_uint_ge(nics[0].ncoords, 1);
    ck_assert_int_eq(nics[0].coordinates[0].view, PMIX_COORD_LOGICAL_VIEW);
    PMIX_INFO_FREE(info, count);
#endif
    meridian_pnet_job_free(job);
    meridian_pnet_requests_free(requests);
    meridian_pnet_fabric_free(fabric);
}
END_TEST

static Suite *pnet_c_api_suite(void)
{
    Suite *suite = suite_create("pnet C API");
    TCase *api = tcase_create("api");
    tcase_set_timeout(api, 60);
    tcase_add_checked_fixture(api, setup, teardown);
    tcase_add_test(api, whole_pipeline);
    tcase_add_test(api, deregister_gives_ports_back);
    tcase_add_test(api, required_value_not_met);
    tcase_add_test(api, given_security_key);
    tcase_add_test(api, inventory_into_a_fabric);
    tcase_add_test(api, bad_request_attributes);
    tcase_add_test(api, bad_job_map);
    tcase_add_test(api, counts_are_bounded);
    tcase_add_test(api, callers_bytes_are_escaped);
    tcase_add_test(api, package_of_locality);
    tcase_add_test(api, pmix_results);
    suite_add_tcase(suite, api);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(pnet_c_api_suite());
    /* Each test changes process-wide state: a process of its own. */
    srunner_set_fork_status(runner, CK_FORK);
    srunner_run_all(runner, CK_NORMAL);
    const int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
