// SPDX-License-Identifier: BSD-3-Clause
// No exception reaches a C caller: with allocations failing
// (failing_allocation.hpp), QMP calls in a process started alone return
// QMP_NOMEM_ERR (or NULL) and say "CALL: out of memory" through
// QMP_get_error_string(NULL), and the msg transport's channel_create returns
// MERIDIAN_ERR_OUT_OF_RESOURCE and reports it; both work again once memory
// is back.  Without the guard at the C boundary the exception escapes and
// the test's process dies.  Each test is a process of its own.
#include <sys/uio.h>

#include <cstdio>
#include <string>

#include "mca/qmp/qmp.h"
#include "test/qmp_base/failing_allocation.hpp"
#include "test/qmp_base/qmp_args.hpp"
#include "test/support/meridian_test.hpp"
#include <meridian/mca/msg/base/base.h>
#include <meridian/mca/msg/msg.h>
#include <meridian/mca/runtime/meridian.h>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.h>

namespace
{

using failing_allocation::Mode;
using failing_allocation::Scope;

std::string last_error()
{
    return std::to_string(QMP_get_error_number(nullptr)) + ": " + QMP_get_error_string(nullptr);
}

std::string out_of_memory(const char *call)
{
    return std::to_string(QMP_NOMEM_ERR) + ": " + call + ": out of memory";
}

void init_plain()
{
    Args args{"prog"};
    QMP_thread_level_t provided = QMP_THREAD_SINGLE;
    const QMP_status_t status =
        QMP_init_msg_passing(&args.argc, &args.pointer, QMP_THREAD_SINGLE, &provided);
    ck_assert_msg(status == QMP_SUCCESS, "QMP_init_msg_passing: %s", last_error().c_str());
}

// A split, a sum over it, and a message to this node through a handle:
// QMP's communicators, collectives and channels all still work.
void qmp_still_works()
{
    QMP_comm_t made = nullptr;
    ck_assert_int_eq(QMP_comm_split(QMP_comm_get_default(), 2, 0, &made), QMP_SUCCESS);
    ck_assert_int_eq(QMP_comm_get_color(made), 2);
    int value = 5;
    ck_assert_int_eq(QMP_comm_sum_int(made, &value), QMP_SUCCESS);
    ck_assert_int_eq(value, 5);
    ck_assert_int_eq(QMP_comm_free(made), QMP_SUCCESS);
    int sent = 42;
    int received = 0;
    QMP_msgmem_t out = QMP_declare_msgmem(&sent, sizeof sent);
    QMP_msgmem_t in = QMP_declare_msgmem(&received, sizeof received);
    QMP_msghandle_t send = QMP_declare_send_to(out, 0, 0);
    QMP_msghandle_t receive = QMP_declare_receive_from(in, 0, 0);
    ck_assert_msg(send != nullptr && receive != nullptr, "declare: %s", last_error().c_str());
    ck_assert_int_eq(QMP_start(receive), QMP_SUCCESS);
    ck_assert_int_eq(QMP_start(send), QMP_SUCCESS);
    ck_assert_int_eq(QMP_wait(send), QMP_SUCCESS);
    ck_assert_int_eq(QMP_wait(receive), QMP_SUCCESS);
    ck_assert_int_eq(received, 42);
    QMP_free_msghandle(send);
    QMP_free_msghandle(receive);
    QMP_free_msgmem(out);
    QMP_free_msgmem(in);
}

// With no memory at all, even the message is recorded (from a fixed
// buffer), and the split leaves nothing behind.
START_TEST(comm_split_without_memory)
{
    init_plain();
    QMP_comm_t parent = QMP_comm_get_default();
    QMP_comm_t made = parent;
    QMP_status_t status;
    {
        const Scope failing(Mode::all);
        status = QMP_comm_split(parent, 0, 0, &made);
    }
    ck_assert_int_eq(status, QMP_NOMEM_ERR);
    ck_assert_ptr_eq(made, parent); // untouched
    ck_assert_text_eq(last_error(), out_of_memory("QMP_comm_split"));
    qmp_still_works();
    QMP_finalize_msg_passing();
}
END_TEST

// One allocation failing: the message is recorded the usual way.
START_TEST(comm_split_one_allocation_fails)
{
    init_plain();
    QMP_comm_t parent = QMP_comm_get_default();
    QMP_status_t status;
    {
        const Scope failing(Mode::next);
        QMP_comm_t made = nullptr;
        status = QMP_comm_split(parent, 0, 0, &made);
    }
    ck_assert_int_eq(status, QMP_NOMEM_ERR);
    ck_assert_text_eq(last_error(), out_of_memory("QMP_comm_split"));
    qmp_still_works();
    QMP_finalize_msg_passing();
}
END_TEST

// Whichever of the split's allocations fails, the split says so and
// leaves nothing half made: the communicator, its members, its collective
// channels.  The sweep ends when the split no longer runs out.
START_TEST(comm_split_fails_at_each_allocation)
{
    init_plain();
    QMP_comm_t parent = QMP_comm_get_default();
    constexpr long most = 10000;
    long successes = 0;
    for (; successes < most; ++successes) {
        QMP_comm_t made = nullptr;
        QMP_status_t status;
        {
            const Scope failing(Mode::nth, successes);
            status = QMP_comm_split(parent, 0, 0, &made);
        }
        if (status == QMP_SUCCESS) {
            ck_assert_ptr_nonnull(made);
            ck_assert_int_eq(QMP_comm_free(made), QMP_SUCCESS);
            break;
        }
        ck_assert_int_eq(status, QMP_NOMEM_ERR);
        ck_assert_ptr_null(made);
        ck_assert_text_eq(last_error(), out_of_memory("QMP_comm_split"));
    }
    // The split allocates, so at least its first allocation failed.
    ck_assert_int_gt(successes, 0);
    ck_assert_int_lt(successes, most);
    qmp_still_works();
    QMP_finalize_msg_passing();
}
END_TEST

// Reports made while nothing can be allocated, kept in a fixed buffer.
char reported[256];
int reports = 0;

void remember_report(meridian_severity_t severity, const char *text, void *)
{
    std::snprintf(reported, sizeof reported, "%s%s",
                  severity == MERIDIAN_SEVERITY_ERROR ? "error: " : "other: ", text);
    ++reports;
}

// Whichever allocation of QMP_init_msg_passing fails -- the MCA base's, a
// framework's, a component's, the transport's or QMP's own -- init either
// absorbs it or fails whole: an error status and message, QMP not
// initialized, argv as it was given; and the next init works.  Each
// allocation is failed in turn (a process started alone makes a few
// hundred in init), so a test of some hundred inits.
START_TEST(init_fails_at_each_allocation)
{
    meridian_set_message_sink(remember_report, nullptr);
    constexpr long most = 20000;
    long successes = 0;
    long refused = 0;
    for (; successes < most; ++successes) {
        Args args{"prog", "in", "-qmp-geom", "1", "--mca", "msg_base_verbose", "0", "-v"};
        const std::string given = args.now();
        QMP_thread_level_t provided = QMP_THREAD_SINGLE;
        QMP_status_t status;
        long failures;
        {
            const Scope failing(Mode::nth, successes);
            status = QMP_init_msg_passing(&args.argc, &args.pointer, QMP_THREAD_SINGLE, &provided);
            failures = failing.failures();
        }
        if (status == QMP_SUCCESS) {
            ck_assert_text_eq(args.now(), "prog in -v");
            QMP_finalize_msg_passing();
            if (failures == 0) {
                break; // init no longer reaches the failing allocation
            }
            continue; // absorbed (a component that could not open is left out)
        }
        ++refused;
        ck_assert_msg(status == QMP_NOMEM_ERR || status == QMP_RTENV_ERR ||
                          status == QMP_INITSVC_ERR,
                      "allocation %ld: status %d: %s", successes, status, last_error().c_str());
        const std::string why = QMP_get_error_string(nullptr);
        ck_assert_msg(why.starts_with("QMP_init_msg_passing: "), "allocation %ld: %s", successes,
                      why.c_str());
        ck_assert_int_eq(QMP_is_initialized(), QMP_FALSE);
        ck_assert_msg(args.now() == given && args.terminated(),
                      "allocation %ld (%s): argv is \"%s\", was \"%s\"", successes, why.c_str(),
                      args.now().c_str(), given.c_str());
    }
    meridian_set_message_sink(nullptr, nullptr);
    ck_assert_int_lt(successes, most);
    ck_assert_int_gt(refused, 0);
    init_plain();
    qmp_still_works();
    QMP_finalize_msg_passing();
}
END_TEST

START_TEST(declare_msgmem_without_memory)
{
    init_plain();
    int data[4] = {};
    QMP_msgmem_t mem = nullptr;
    {
        const Scope failing(Mode::all);
        mem = QMP_declare_msgmem(data, sizeof data);
    }
    ck_assert_ptr_null(mem);
    ck_assert_text_eq(last_error(), out_of_memory("QMP_declare_msgmem"));
    {
        const Scope failing(Mode::next);
        mem = QMP_declare_strided_msgmem(data, sizeof(int), 2, 2 * sizeof(int));
    }
    ck_assert_ptr_null(mem);
    ck_assert_text_eq(last_error(), out_of_memory("QMP_declare_strided_msgmem"));
    qmp_still_works();
    QMP_finalize_msg_passing();
}
END_TEST

START_TEST(declare_handle_and_memory_without_memory)
{
    init_plain();
    int data = 0;
    QMP_msgmem_t mem = QMP_declare_msgmem(&data, sizeof data);
    ck_assert_ptr_nonnull(mem);
    QMP_msghandle_t handle = nullptr;
    {
        const Scope failing(Mode::all);
        handle = QMP_declare_send_to(mem, 0, 0);
    }
    ck_assert_ptr_null(handle);
    ck_assert_text_eq(last_error(), out_of_memory("QMP_declare_send_to"));
    QMP_mem_t *block = nullptr;
    {
        const Scope failing(Mode::next);
        block = QMP_allocate_memory(64);
    }
    ck_assert_ptr_null(block);
    ck_assert_text_eq(last_error(), out_of_memory("QMP_allocate_memory"));
    QMP_free_msgmem(mem);
    qmp_still_works();
    QMP_finalize_msg_passing();
}
END_TEST

// The msg base's channel interface, driven directly as test/msg/msg_driver.cc does.
struct Transport {
    mca_msg_base_module_t *module = nullptr;
    const mca_msg_job_t *job = nullptr;

    Transport()
    {
        Args args{"prog"};
        ck_assert_int_eq(meridian_init(&args.argc, &args.pointer), MERIDIAN_SUCCESS);
        ck_assert_int_eq(meridian_mca_msg_base_start(&module, &job), MERIDIAN_SUCCESS);
    }
    ~Transport()
    {
        meridian_mca_msg_base_stop();
        meridian_finalize();
    }
    Transport(const Transport &) = delete;
    Transport &operator=(const Transport &) = delete;

    int create(mca_msg_direction_t direction, iovec *iov, mca_msg_channel_t **channel)
    {
        const mca_msg_channel_spec_t spec{direction, job->rank, 0x5e1f, iov, 1, iov->iov_len, 0};
        return module->channel_create(module, &spec, channel);
    }
};

// A message to this process over the transport's channels.
void transport_still_works(Transport &t)
{
    int sent = 7;
    int received = 0;
    iovec out{&sent, sizeof sent};
    iovec in{&received, sizeof received};
    mca_msg_channel_t *send = nullptr;
    mca_msg_channel_t *receive = nullptr;
    ck_assert_int_eq(t.create(MCA_MSG_SEND, &out, &send), MERIDIAN_SUCCESS);
    ck_assert_int_eq(t.create(MCA_MSG_RECV, &in, &receive), MERIDIAN_SUCCESS);
    ck_assert_int_eq(t.module->start(t.module, receive), MERIDIAN_SUCCESS);
    ck_assert_int_eq(t.module->start(t.module, send), MERIDIAN_SUCCESS);
    mca_msg_channel_t *const both[] = {send, receive};
    ck_assert_int_eq(t.module->wait(t.module, both, 2, -1), MERIDIAN_SUCCESS);
    ck_assert_int_eq(received, 7);
    t.module->channel_free(t.module, send);
    t.module->channel_free(t.module, receive);
}

// The report is checked with one allocation failing: capturing it needs
// memory of its own.
START_TEST(channel_create_one_allocation_fails)
{
    Transport t;
    int data = 0;
    iovec iov{&data, sizeof data};
    mca_msg_channel_t *channel = nullptr;
    meridian_test::capture_messages();
    int rc;
    {
        const Scope failing(Mode::next);
        rc = t.create(MCA_MSG_SEND, &iov, &channel);
    }
    ck_assert_int_eq(rc, MERIDIAN_ERR_OUT_OF_RESOURCE);
    ck_assert_ptr_null(channel);
    ck_assert_messages(ERROR_MSG("msg channel_create: out of memory"));
    meridian_test::stop_capturing_messages();
    transport_still_works(t);
}
END_TEST

START_TEST(channel_create_without_memory)
{
    reports = 0;
    Transport t;
    int data = 0;
    iovec iov{&data, sizeof data};
    mca_msg_channel_t *channel = nullptr;
    meridian_set_message_sink(remember_report, nullptr);
    int rc;
    {
        const Scope failing(Mode::all);
        rc = t.create(MCA_MSG_RECV, &iov, &channel);
    }
    meridian_set_message_sink(nullptr, nullptr);
    ck_assert_int_eq(rc, MERIDIAN_ERR_OUT_OF_RESOURCE);
    ck_assert_ptr_null(channel);
    ck_assert_int_eq(reports, 1);
    ck_assert_text_eq(reported, "error: msg channel_create: out of memory");
    transport_still_works(t);
}
END_TEST

} // namespace

// LeakSanitizer's hook for built-in suppressions, for this program only.
// Boost.Program_options takes an option's value semantic as a raw pointer
// (add_options()("tune", po::value<std::string>(), ...)) and owns it only
// once the option's description is made, so when the allocation between the
// two fails -- which init_fails_at_each_allocation makes happen in the MCA
// command line's parse -- the semantic is lost.  That is the library's
// interface; no program meets it short of running out of memory.
extern "C" const char *__lsan_default_suppressions();
extern "C" const char *__lsan_default_suppressions()
{
    return "leak:meridian::mca::parse_command_line\n";
}

int main()
{
    Suite *suite = suite_create("qmp_out_of_memory");
    TCase *tcase = tcase_create("out_of_memory");
    tcase_set_timeout(tcase, 60);
    tcase_add_test(tcase, comm_split_without_memory);
    tcase_add_test(tcase, comm_split_one_allocation_fails);
    tcase_add_test(tcase, comm_split_fails_at_each_allocation);
    tcase_add_test(tcase, init_fails_at_each_allocation);
    tcase_add_test(tcase, declare_msgmem_without_memory);
    tcase_add_test(tcase, declare_handle_and_memory_without_memory);
    tcase_add_test(tcase, channel_create_one_allocation_fails);
    tcase_add_test(tcase, channel_create_without_memory);
    suite_add_tcase(suite, tcase);
    return meridian_test::run_suite(suite);
}
