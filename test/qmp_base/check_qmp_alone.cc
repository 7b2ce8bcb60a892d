// SPDX-License-Identifier: BSD-3-Clause
// QMP in a process started alone (no launcher): QMP_init_msg_passing over
// the msg transport from the build tree, then the machine (one node,
// switched unless -qmp-geom says otherwise), the communicators and their
// roles, split and free, topology and layout, the options' effects and
// errors, finalize and init again, abort.  Each test is a process of its
// own.
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

#include "mca/qmp/qmp.h"
#include "test/qmp_base/qmp_args.hpp"
#include "test/support/meridian_test.hpp"

namespace
{

std::string join(const int *values, int n)
{
    if (values == nullptr) {
        return "NULL";
    }
    std::string out;
    for (int i = 0; i < n; ++i) {
        out += (i == 0 ? "" : ",") + std::to_string(values[i]);
    }
    return out;
}

std::string last_error()
{
    return std::to_string(QMP_get_error_number(nullptr)) + ": " + QMP_get_error_string(nullptr);
}

QMP_status_t init(Args &args, QMP_thread_level_t required = QMP_THREAD_SINGLE)
{
    QMP_thread_level_t provided = QMP_THREAD_SINGLE;
    const QMP_status_t status =
        QMP_init_msg_passing(&args.argc, &args.pointer, required, &provided);
    if (status == QMP_SUCCESS) {
        ck_assert_int_eq(provided, required);
    }
    return status;
}

void init_plain()
{
    Args args{"prog"};
    const QMP_status_t status = init(args);
    ck_assert_msg(status == QMP_SUCCESS, "QMP_init_msg_passing: %s", last_error().c_str());
}

START_TEST(before_init)
{
    ck_assert_int_eq(QMP_is_initialized(), QMP_FALSE);
    ck_assert_ptr_null(QMP_comm_get_default());
    ck_assert_text_eq(last_error(), std::to_string(QMP_NOT_INITED) +
                                        ": QMP_comm_get_default: QMP is not initialized");
    ck_assert_int_eq(QMP_get_number_of_nodes(), 0);
    ck_assert_int_eq(QMP_get_node_number(), -1);
    ck_assert_int_eq(QMP_get_msg_passing_type(), QMP_SWITCH);
    ck_assert_int_eq(QMP_get_allocated_number_of_dimensions(), 0);
    ck_assert_uint_eq(QMP_get_SMP_count(), 0);
    QMP_comm_t made = nullptr;
    ck_assert_int_eq(QMP_comm_split(nullptr, 0, 0, &made), QMP_NOT_INITED);
    ck_assert_text_eq(last_error(),
                      std::to_string(QMP_NOT_INITED) + ": QMP_comm_split: QMP is not initialized");
    // Finalize without init does nothing but say so.
    QMP_finalize_msg_passing();
    ck_assert_text_eq(last_error(), std::to_string(QMP_NOT_INITED) +
                                        ": QMP_finalize_msg_passing: QMP is not initialized");
}
END_TEST

START_TEST(one_switched_node)
{
    init_plain();
    ck_assert_int_eq(QMP_is_initialized(), QMP_TRUE);
    ck_assert_int_eq(QMP_get_number_of_nodes(), 1);
    ck_assert_int_eq(QMP_get_node_number(), 0);
    ck_assert_int_eq(QMP_is_primary_node(), QMP_TRUE);
    ck_assert_int_eq(QMP_get_msg_passing_type(), QMP_SWITCH);
    // QMP reports a switched machine with no dimensions.
    ck_assert_int_eq(QMP_get_allocated_number_of_dimensions(), 0);
    ck_assert_ptr_null(QMP_get_allocated_dimensions());
    ck_assert_ptr_null(QMP_get_allocated_coordinates());
    ck_assert_int_eq(QMP_get_number_of_jobs(), 1);
    ck_assert_int_eq(QMP_get_job_number(), 0);
    ck_assert_int_eq(QMP_get_number_of_job_geometry_dimensions(), 0);
    ck_assert_ptr_null(QMP_get_job_geometry());
    ck_assert_uint_eq(QMP_get_SMP_count(), 1);
    ck_assert_int_eq(QMP_io_node(0), 0);
    ck_assert_int_eq(QMP_io_node(5), 5);
    ck_assert_int_eq(QMP_master_io_node(), 0);
    ck_assert_int_eq(QMP_logical_topology_is_declared(), QMP_FALSE);
    QMP_finalize_msg_passing();
    ck_assert_int_eq(QMP_is_initialized(), QMP_FALSE);
}
END_TEST

START_TEST(communicator_roles)
{
    init_plain();
    QMP_comm_t allocated = QMP_comm_get_allocated();
    QMP_comm_t job = QMP_comm_get_job();
    QMP_comm_t def = QMP_comm_get_default();
    ck_assert_ptr_nonnull(allocated);
    ck_assert_ptr_nonnull(job);
    ck_assert_ptr_nonnull(def);
    // Three communicators, as QMP makes them (the job and default ones by
    // splitting).
    ck_assert_ptr_ne(allocated, job);
    ck_assert_ptr_ne(job, def);
    for (QMP_comm_t c : {allocated, job, def}) {
        ck_assert_int_eq(QMP_comm_get_number_of_nodes(c), 1);
        ck_assert_int_eq(QMP_comm_get_node_number(c), 0);
        ck_assert_int_eq(QMP_comm_is_primary_node(c), QMP_TRUE);
        ck_assert_int_eq(QMP_comm_get_number_of_colors(c), 1);
        ck_assert_int_eq(QMP_comm_get_color(c), 0);
        ck_assert_int_eq(QMP_comm_get_key(c), 0);
    }
    void *hidden = &hidden;
    ck_assert_int_eq(QMP_get_hidden_comm(def, &hidden), QMP_NOTSUPPORTED);
    ck_assert_ptr_null(hidden);
    const std::string no_comm =
        ": there is no MPI communicator: this program did not link QMP's MPI part (libqmp_mpi: "
        "`qmp-config --mpi --libs`, `pkg-config --libs qmp-mpi`, or CMake's QMP::qmp), and "
        "Meridian's QMP moves its own messages without MPI";
    ck_assert_text_eq(last_error(),
                      std::to_string(QMP_NOTSUPPORTED) + ": QMP_get_hidden_comm" + no_comm);
    hidden = &hidden;
    ck_assert_int_eq(QMP_get_mpi_comm(def, &hidden), QMP_NOTSUPPORTED);
    ck_assert_ptr_null(hidden);
    ck_assert_text_eq(last_error(),
                      std::to_string(QMP_NOTSUPPORTED) + ": QMP_get_mpi_comm" + no_comm);
    ck_assert_int_eq(QMP_get_mpi_comm(nullptr, &hidden), QMP_INVALID_ARG);
    ck_assert_int_eq(QMP_get_mpi_comm(def, nullptr), QMP_INVALID_ARG);
    ck_assert_text_eq(last_error(), std::to_string(QMP_INVALID_ARG) +
                                        ": QMP_get_mpi_comm: the place for the answer is NULL");
    // The roles can be given to another communicator and back.
    QMP_comm_t other = nullptr;
    ck_assert_int_eq(QMP_comm_split(def, 0, 0, &other), QMP_SUCCESS);
    ck_assert_int_eq(QMP_comm_set_default(other), QMP_SUCCESS);
    ck_assert_ptr_eq(QMP_comm_get_default(), other);
    ck_assert_int_eq(QMP_comm_set_job(other), QMP_SUCCESS);
    ck_assert_ptr_eq(QMP_comm_get_job(), other);
    ck_assert_int_eq(QMP_comm_set_allocated(other), QMP_SUCCESS);
    ck_assert_ptr_eq(QMP_comm_get_allocated(), other);
    ck_assert_int_eq(QMP_comm_set_default(nullptr), QMP_INVALID_ARG);
    ck_assert_text_eq(last_error(), std::to_string(QMP_INVALID_ARG) +
                                        ": QMP_comm_set_default: the communicator is NULL");
    // A communicator in a role is not freed.
    ck_assert_int_eq(QMP_comm_free(other), QMP_INVALID_ARG);
    ck_assert_text_eq(last_error(), std::to_string(QMP_INVALID_ARG) +
                                        ": QMP_comm_free: the communicator is the allocated, job "
                                        "or default one (give the role to another with "
                                        "QMP_comm_set_* first)");
    ck_assert_int_eq(QMP_comm_set_allocated(allocated), QMP_SUCCESS);
    ck_assert_int_eq(QMP_comm_set_job(job), QMP_SUCCESS);
    ck_assert_int_eq(QMP_comm_set_default(def), QMP_SUCCESS);
    ck_assert_int_eq(QMP_comm_free(other), QMP_SUCCESS);
    // The allocated communicator made at init is never freed.
    ck_assert_int_eq(QMP_comm_set_allocated(job), QMP_SUCCESS);
    ck_assert_int_eq(QMP_comm_free(allocated), QMP_INVALID_ARG);
    QMP_finalize_msg_passing();
}
END_TEST

START_TEST(split_of_one)
{
    init_plain();
    QMP_comm_t made = nullptr;
    ck_assert_int_eq(QMP_comm_split(QMP_comm_get_default(), 3, 7, &made), QMP_SUCCESS);
    ck_assert_ptr_nonnull(made);
    ck_assert_int_eq(QMP_comm_get_number_of_nodes(made), 1);
    ck_assert_int_eq(QMP_comm_get_node_number(made), 0);
    ck_assert_int_eq(QMP_comm_get_color(made), 3);
    ck_assert_int_eq(QMP_comm_get_key(made), 7);
    ck_assert_int_eq(QMP_comm_get_number_of_colors(made), 1);
    // The new communicator works: a sum and a barrier over it.
    int value = 5;
    ck_assert_int_eq(QMP_comm_sum_int(made, &value), QMP_SUCCESS);
    ck_assert_int_eq(value, 5);
    ck_assert_int_eq(QMP_comm_barrier(made), QMP_SUCCESS);
    // A split of a split, then free both.
    QMP_comm_t inner = nullptr;
    ck_assert_int_eq(QMP_comm_split(made, 0, 0, &inner), QMP_SUCCESS);
    ck_assert_int_eq(QMP_comm_get_color(inner), 0);
    ck_assert_int_eq(QMP_comm_free(inner), QMP_SUCCESS);
    ck_assert_int_eq(QMP_comm_free(made), QMP_SUCCESS);
    // A negative colour takes no part, as MPI_UNDEFINED.
    QMP_comm_t none = QMP_comm_get_default();
    ck_assert_int_eq(QMP_comm_split(QMP_comm_get_default(), -1, 0, &none), QMP_SUCCESS);
    ck_assert_ptr_null(none);
    ck_assert_int_eq(QMP_comm_split(QMP_comm_get_default(), 0, 0, nullptr), QMP_INVALID_ARG);
    ck_assert_text_eq(last_error(),
                      std::to_string(QMP_INVALID_ARG) + ": QMP_comm_split: newcomm is NULL");
    ck_assert_int_eq(QMP_comm_split(nullptr, 0, 0, &none), QMP_INVALID_ARG);
    ck_assert_text_eq(last_error(), std::to_string(QMP_INVALID_ARG) +
                                        ": QMP_comm_split: the communicator is NULL");
    QMP_finalize_msg_passing();
}
END_TEST

START_TEST(topology_and_layout)
{
    init_plain();
    const int dims[] = {1, 1};
    ck_assert_int_eq(QMP_declare_logical_topology(dims, 2), QMP_SUCCESS);
    ck_assert_text_eq(join(QMP_get_logical_dimensions(), 2), "1,1");
    ck_assert_text_eq(join(QMP_get_logical_coordinates(), 2), "0,0");
    const int origin[] = {0, 0};
    ck_assert_int_eq(QMP_get_node_number_from(origin), 0);
    const int lattice[] = {4, 6};
    ck_assert_int_eq(QMP_layout_grid(lattice, 2), QMP_SUCCESS);
    ck_assert_text_eq(join(QMP_get_subgrid_dimensions(), 2), "4,6");
    ck_assert_int_eq(QMP_get_number_of_subgrid_sites(), 24);
    const int two[] = {2};
    ck_assert_int_eq(QMP_declare_logical_topology(two, 1), QMP_INVALID_ARG);
    ck_assert_text_eq(last_error(), std::to_string(QMP_INVALID_ARG) +
                                        ": QMP_declare_logical_topology: expected sizes whose "
                                        "product is the number of nodes (1), found 2");
    QMP_finalize_msg_passing();
}
END_TEST

START_TEST(layout_without_a_declared_topology)
{
    init_plain();
    const int lattice[] = {8, 8, 8, 16};
    ck_assert_int_eq(QMP_layout_grid(lattice, 4), QMP_SUCCESS);
    ck_assert_int_eq(QMP_logical_topology_is_declared(), QMP_TRUE);
    ck_assert_text_eq(join(QMP_get_logical_dimensions(), 4), "1,1,1,1");
    ck_assert_text_eq(join(QMP_get_subgrid_dimensions(), 4), "8,8,8,16");
    ck_assert_int_eq(QMP_get_number_of_subgrid_sites(), 8192);
    QMP_finalize_msg_passing();
}
END_TEST

START_TEST(options_taken_out_and_applied)
{
    Args args{"prog", "in", "-qmp-geom",
              "1",    "1",  "-qmp-alloc-map",
              "1",    "0",  "-qmp-logic-map",
              "1",    "0",  "-qmp-job",
              "1",    "1",  "-v"};
    const QMP_status_t status = init(args);
    ck_assert_msg(status == QMP_SUCCESS, "QMP_init_msg_passing: %s", last_error().c_str());
    ck_assert_text_eq(args.now(), "prog in -v");
    ck_assert_ptr_null(args.pointer[args.argc]);
    ck_assert_int_eq(QMP_get_msg_passing_type(), QMP_MESH);
    ck_assert_int_eq(QMP_get_allocated_number_of_dimensions(), 2);
    ck_assert_text_eq(join(QMP_get_allocated_dimensions(), 2), "1,1");
    ck_assert_text_eq(join(QMP_get_allocated_coordinates(), 2), "0,0");
    ck_assert_int_eq(QMP_get_number_of_jobs(), 1);
    // On a MESH -qmp-job gives the job a grid: allocated / job = 1x1.
    ck_assert_int_eq(QMP_get_number_of_job_geometry_dimensions(), 2);
    ck_assert_text_eq(join(QMP_get_job_geometry(), 2), "1,1");
    // ...which QMP_layout_grid declares (with -qmp-logic-map) and lays out on.
    const int lattice[] = {4, 4, 2};
    ck_assert_int_eq(QMP_layout_grid(lattice, 3), QMP_SUCCESS);
    ck_assert_int_eq(QMP_get_logical_number_of_dimensions(), 2);
    ck_assert_text_eq(join(QMP_get_subgrid_dimensions(), 3), "4,4,2");
    QMP_finalize_msg_passing();
}
END_TEST

START_TEST(meridian_options_taken_out_too)
{
    Args args{"prog", "--mca", "msg_base_verbose", "0", "x", "-qmp-geom", "1"};
    const QMP_status_t status = init(args);
    ck_assert_msg(status == QMP_SUCCESS, "QMP_init_msg_passing: %s", last_error().c_str());
    ck_assert_text_eq(args.now(), "prog x");
    ck_assert_text_eq(join(QMP_get_allocated_dimensions(), 1), "1");
    QMP_finalize_msg_passing();
}
END_TEST

// A failed init leaves QMP down and argv whole; a good init works after it.
void init_fails(Args args, QMP_status_t expected, const std::string &message)
{
    const std::string before = args.now();
    ck_assert_int_eq(init(args), expected);
    ck_assert_text_eq(last_error(), std::to_string(expected) + ": " + message);
    ck_assert_int_eq(QMP_is_initialized(), QMP_FALSE);
    ck_assert_text_eq(args.now(), before);
}

START_TEST(bad_options_fail_init)
{
    meridian_test::capture_messages();
    init_fails({"prog", "-qmp-geom", "2"}, QMP_INVALID_ARG,
               "-qmp-geom: expected sizes whose product is the number of nodes (1), found 2");
    init_fails({"prog", "-qmp-geom", "1", "-qmp-alloc-map", "0", "1"}, QMP_INVALID_ARG,
               "-qmp-alloc-map: expected 1 values (one per -qmp-geom dimension), found 0 1");
    init_fails({"prog", "-qmp-job", "2"}, QMP_INVALID_ARG,
               "-qmp-job: expected a divisor of the number of nodes (1), found 2");
    init_fails({"prog", "-qmp-job", "1", "1"}, QMP_INVALID_ARG,
               "-qmp-job: expected one number on a switched machine (it has no allocated "
               "dimensions), found 1 1");
    init_fails({"prog", "-qmp-geom", "1", "1", "-qmp-job", "1"}, QMP_INVALID_ARG,
               "-qmp-job: expected 2 numbers (one per allocated dimension of 1x1), found 1");
    init_fails({"prog", "-qmp-geom", "x"}, QMP_INVALID_ARG,
               "-qmp-geom: expected the allocated dimensions (whole numbers) or native, found "
               "\"x\"");
    // Each failure was reported as well as returned.
    ck_assert_uint_eq(meridian_test::messages().size(), 6);
    ck_assert_text_eq(meridian_test::messages()[0].text,
                      "QMP_init_msg_passing: -qmp-geom: expected sizes whose product is the "
                      "number of nodes (1), found 2");
    meridian_test::stop_capturing_messages();
    init_plain();
    ck_assert_int_eq(QMP_get_msg_passing_type(), QMP_SWITCH);
    QMP_finalize_msg_passing();
}
END_TEST

START_TEST(geom_native_needs_a_mesh)
{
    meridian_test::capture_messages();
    Args args{"prog", "-qmp-geom", "native"};
    ck_assert_int_eq(init(args), QMP_INVALID_ARG);
    const std::string message = QMP_get_error_string(nullptr);
    ck_assert_msg(message.starts_with("-qmp-geom: expected native to find the processes on a "
                                      "mesh or torus (coord), found a switched machine: "),
                  "%s", message.c_str());
    meridian_test::stop_capturing_messages();
}
END_TEST

START_TEST(mesh_from_coord)
{
    // With coord_torus placing every plane on a 2x2 torus, this process's
    // node sits at one position of it: the allocated machine is the box the
    // job's nodes fill, 1x1, with the process at its origin.
    const char *path = std::getenv(meridian_test::env_name("mca_base_component_path").c_str());
    meridian_test::set_param_env("mca_base_component_path",
                                 std::string(path != nullptr ? path : "") + ":" +
                                     QMP_COORD_COMPONENT_PATH);
    meridian_test::set_param_env("coord_torus_shape", "2x2");
    Args args{"prog", "-qmp-alloc-map", "1", "0"};
    const QMP_status_t status = init(args);
    ck_assert_msg(status == QMP_SUCCESS, "QMP_init_msg_passing: %s", last_error().c_str());
    ck_assert_int_eq(QMP_get_msg_passing_type(), QMP_MESH);
    ck_assert_int_eq(QMP_get_allocated_number_of_dimensions(), 2);
    ck_assert_text_eq(join(QMP_get_allocated_dimensions(), 2), "1,1");
    ck_assert_text_eq(join(QMP_get_allocated_coordinates(), 2), "0,0");
    // The job and default communicators carry no grid (QMP: only -qmp-job
    // gives the job one), so layouts factorise as on a switch.
    ck_assert_int_eq(QMP_get_number_of_job_geometry_dimensions(), 0);
    const int lattice[] = {4, 4};
    ck_assert_int_eq(QMP_layout_grid(lattice, 2), QMP_SUCCESS);
    ck_assert_text_eq(join(QMP_get_subgrid_dimensions(), 2), "4,4");
    QMP_finalize_msg_passing();
}
END_TEST

START_TEST(thread_levels)
{
    for (const QMP_thread_level_t level :
         {QMP_THREAD_SINGLE, QMP_THREAD_FUNNELED, QMP_THREAD_SERIALIZED, QMP_THREAD_MULTIPLE}) {
        Args args{"prog"};
        ck_assert_int_eq(init(args, level), QMP_SUCCESS);
        // A split takes the lock at MULTIPLE.
        QMP_comm_t made = nullptr;
        ck_assert_int_eq(QMP_comm_split(QMP_comm_get_default(), 0, 0, &made), QMP_SUCCESS);
        ck_assert_int_eq(QMP_comm_free(made), QMP_SUCCESS);
        QMP_finalize_msg_passing();
    }
    Args args{"prog"};
    QMP_thread_level_t provided = QMP_THREAD_SINGLE;
    ck_assert_int_eq(QMP_init_msg_passing(&args.argc, &args.pointer,
                                          static_cast<QMP_thread_level_t>(7), &provided),
                     QMP_INVALID_ARG);
    ck_assert_text_eq(last_error(), std::to_string(QMP_INVALID_ARG) +
                                        ": QMP_init_msg_passing: the required thread level 7 is "
                                        "not one of QMP_THREAD_SINGLE .. MULTIPLE");
    ck_assert_int_eq(QMP_init_msg_passing(&args.argc, &args.pointer, QMP_THREAD_SINGLE, nullptr),
                     QMP_INVALID_ARG);
    ck_assert_text_eq(last_error(),
                      std::to_string(QMP_INVALID_ARG) + ": QMP_init_msg_passing: provided is NULL");
    ck_assert_int_eq(QMP_is_initialized(), QMP_FALSE);
}
END_TEST

std::string reported;

int remember(QMP_status_t status, const char *message)
{
    reported = std::to_string(status) + ": " + message;
    return static_cast<int>(status);
}

START_TEST(init_twice)
{
    init_plain();
    QMP_set_error_function(remember);
    Args args{"prog"};
    ck_assert_int_eq(init(args), QMP_ERROR);
    const std::string expected = std::to_string(QMP_ERROR) +
                                 ": QMP_init_msg_passing: QMP is initialized already "
                                 "(QMP_finalize_msg_passing first)";
    ck_assert_text_eq(reported, expected);
    ck_assert_text_eq(last_error(), expected);
    // Still up and usable.
    ck_assert_int_eq(QMP_is_initialized(), QMP_TRUE);
    ck_assert_int_eq(QMP_get_number_of_nodes(), 1);
    QMP_finalize_msg_passing();
}
END_TEST

START_TEST(init_again_after_finalize)
{
    for (int round = 0; round < 3; ++round) {
        init_plain();
        QMP_comm_t made = nullptr;
        ck_assert_int_eq(QMP_comm_split(QMP_comm_get_default(), round, 0, &made), QMP_SUCCESS);
        ck_assert_int_eq(QMP_comm_get_color(made), round);
        const int dims[] = {1};
        ck_assert_int_eq(QMP_declare_logical_topology(dims, 1), QMP_SUCCESS);
        // A communicator the application did not free goes with finalize.
        QMP_finalize_msg_passing();
        ck_assert_int_eq(QMP_is_initialized(), QMP_FALSE);
    }
}
END_TEST

START_TEST(abort_exits_with_the_code)
{
    init_plain();
    QMP_abort(3);
}
END_TEST

START_TEST(abort_string_exits_with_the_code)
{
    init_plain();
    char message[] = "giving up";
    QMP_abort_string(4, message);
}
END_TEST

} // namespace

int main()
{
    Suite *suite = suite_create("qmp_alone");
    TCase *tcase = tcase_create("alone");
    tcase_set_timeout(tcase, 60);
    tcase_add_test(tcase, before_init);
    tcase_add_test(tcase, one_switched_node);
    tcase_add_test(tcase, communicator_roles);
    tcase_add_test(tcase, split_of_one);
    tcase_add_test(tcase, topology_and_layout);
    tcase_add_test(tcase, layout_without_a_declared_topology);
    tcase_add_test(tcase, options_taken_out_and_applied);
    tcase_add_test(tcase, meridian_options_taken_out_too);
    tcase_add_test(tcase, bad_options_fail_init);
    tcase_add_test(tcase, geom_native_needs_a_mesh);
    tcase_add_test(tcase, mesh_from_coord);
    tcase_add_test(tcase, thread_levels);
    tcase_add_test(tcase, init_twice);
    tcase_add_test(tcase, init_again_after_finalize);
    tcase_add_exit_test(tcase, abort_exits_with_the_code, 3);
    tcase_add_exit_test(tcase, abort_string_exits_with_the_code, 4);
    suite_add_tcase(suite, tcase);
    return meridian_test::run_suite(suite);
}
