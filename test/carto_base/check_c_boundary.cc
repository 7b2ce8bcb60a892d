// SPDX-License-Identifier: BSD-3-Clause
// The one guard at the C boundary (opal/util/c_boundary.hpp): what a C
// caller gets back, and what is said, when the body throws; then the carto
// base's C entry points with every allocation failing: each answers
// MERIDIAN_ERR_OUT_OF_RESOURCE (or NULL) and says which call ran out of
// memory, and nothing crashes or leaks across the boundary.
#include <cstdio>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>

#include "test/support/meridian_test.hpp"
#include <meridian/mca/carto/base/base.h>
#include <meridian/opal/util/c_boundary.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.h>

// ---------------------------------------------------------------- failing allocations
// While armed, every operator new of the process (libmeridian's too: the
// program's definitions interpose libstdc++'s) throws std::bad_alloc.
namespace
{
bool fail_allocations = false;

void *allocate(std::size_t size)
{
    if (fail_allocations) {
        throw std::bad_alloc();
    }
    if (void *p = std::malloc(size == 0 ? 1 : size)) {
        return p;
    }
    throw std::bad_alloc();
}

// Arms the failure for its lifetime; the messages are read after it ends.
struct NoMemory {
    NoMemory() { fail_allocations = true; }
    ~NoMemory() { fail_allocations = false; }
    NoMemory(const NoMemory &) = delete;
    NoMemory &operator=(const NoMemory &) = delete;
};
} // namespace

void *operator new(std::size_t size)
{
    return allocate(size);
}
void *operator new[](std::size_t size)
{
    return allocate(size);
}
void operator delete(void *p) noexcept
{
    std::free(p);
}
void operator delete[](void *p) noexcept
{
    std::free(p);
}
void operator delete(void *p, std::size_t) noexcept
{
    std::free(p);
}
void operator delete[](void *p, std::size_t) noexcept
{
    std::free(p);
}

namespace
{

using meridian::c_boundary;
using meridian::c_boundary_void;
using meridian::CFailure;

// The messages, kept without allocating (the test support's sink allocates,
// and the point here is to report while nothing can).
struct Said {
    char lines[8][160];
    int count;
};
Said said;

void keep(meridian_severity_t severity, const char *text, void *)
{
    if (said.count < 8) {
        std::snprintf(said.lines[said.count++], sizeof said.lines[0], "%s%s",
                      severity == MERIDIAN_SEVERITY_ERROR ? "error: " : "other: ", text);
    }
}

void capture()
{
    said.count = 0;
    meridian_set_message_sink(keep, nullptr);
}
void stop()
{
    meridian_set_message_sink(nullptr, nullptr);
}

// Empty when exactly these errors were said; otherwise what was.
std::string compare_messages(std::initializer_list<std::string> errors)
{
    bool same = static_cast<std::size_t>(said.count) == errors.size();
    int i = 0;
    for (const std::string &error : errors) {
        same = same && i < said.count && ("error: " + error) == said.lines[i];
        ++i;
    }
    if (same) {
        return {};
    }
    std::string text = "messages said:";
    for (int k = 0; k < said.count; ++k) {
        text += std::string("\n  ") + said.lines[k];
    }
    return text;
}

std::string error_message(const std::string &text)
{
    return text;
}

// ---------------------------------------------------------------- the guard

START_TEST(bad_alloc_is_out_of_resource)
{
    const int rc = c_boundary("some_call", []() -> int { throw std::bad_alloc(); });
    ck_assert_int_eq(rc, MERIDIAN_ERR_OUT_OF_RESOURCE);
    const std::string diff = compare_messages({error_message("some_call: out of memory")});
    ck_assert_msg(diff.empty(), "%s", diff.c_str());
}
END_TEST

START_TEST(other_exceptions_are_errors_with_their_text)
{
    ck_assert_int_eq(c_boundary("a_call", []() -> int { throw std::runtime_error("it broke"); }),
                     MERIDIAN_ERROR);
    ck_assert_int_eq(c_boundary("b_call", []() -> int { throw 42; }), MERIDIAN_ERROR);
    const std::string diff = compare_messages(
        {error_message("a_call: it broke"), error_message("b_call: an unknown exception")});
    ck_assert_msg(diff.empty(), "%s", diff.c_str());
}
END_TEST

START_TEST(a_body_that_returns_is_untouched)
{
    ck_assert_int_eq(c_boundary("fine", [] { return MERIDIAN_ERR_NOT_FOUND; }),
                     MERIDIAN_ERR_NOT_FOUND);
    const std::string diff = compare_messages({});
    ck_assert_msg(diff.empty(), "%s", diff.c_str());
}
END_TEST

std::string recorded;
void record(const char *call, const char *why) noexcept
{
    recorded = std::string(call) + " | " + why;
}

// A layer's own failure values and its own record of why (as QMP keeps its
// last error), nothing reported through Meridian's output.
START_TEST(own_failure_values_and_record)
{
    recorded.clear();
    const CFailure<const char *> failure{"oom", "other", record};
    ck_assert_str_eq(c_boundary("p", failure, []() -> const char * { throw std::bad_alloc(); }),
                     "oom");
    ck_assert_str_eq(recorded.c_str(), "p | out of memory");
    ck_assert_str_eq(
        c_boundary("q", failure, []() -> const char * { throw std::logic_error("no"); }), "other");
    ck_assert_str_eq(recorded.c_str(), "q | no");
    const std::string diff = compare_messages({});
    ck_assert_msg(diff.empty(), "%s", diff.c_str());
}
END_TEST

START_TEST(void_bodies_are_said_and_dropped)
{
    bool ran = false;
    c_boundary_void("v_call", [&] {
        ran = true;
        throw std::bad_alloc();
    });
    ck_assert(ran);
    const std::string diff = compare_messages({error_message("v_call: out of memory")});
    ck_assert_msg(diff.empty(), "%s", diff.c_str());
}
END_TEST

// ---------------------------------------------------------------- carto's C API without memory

START_TEST(carto_graph_calls_answer_out_of_resource)
{
    mca_carto_graph_t *graph = meridian_mca_carto_graph_new();
    ck_assert_ptr_nonnull(graph);
    ck_assert_int_eq(meridian_mca_carto_graph_add_vertex(graph, "Slot0", MCA_CARTO_SLOT),
                     MERIDIAN_SUCCESS);
    int added = 0;
    int listed = 0;
    mca_carto_distance_t *list = nullptr;
    size_t count = 0;
    mca_carto_graph_t *made = nullptr;
    {
        NoMemory none;
        added = meridian_mca_carto_graph_add_vertex(graph, "MEM0-with-a-name-too-long-for-sso",
                                                    MCA_CARTO_MEM);
        listed =
            meridian_mca_carto_graph_distance_list(graph, "Slot0", MCA_CARTO_ALL, &list, &count);
        made = meridian_mca_carto_graph_new();
    }
    ck_assert_int_eq(added, MERIDIAN_ERR_OUT_OF_RESOURCE);
    ck_assert_int_eq(listed, MERIDIAN_ERR_OUT_OF_RESOURCE);
    ck_assert_ptr_null(list);
    ck_assert_uint_eq(count, 0);
    ck_assert_ptr_null(made);
    const std::string diff =
        compare_messages({error_message("meridian_mca_carto_graph_add_vertex: out of memory"),
                          error_message("meridian_mca_carto_graph_distance_list: out of memory"),
                          error_message("meridian_mca_carto_graph_new: out of memory")});
    ck_assert_msg(diff.empty(), "%s", diff.c_str());
    // The graph is as it was, and works again once memory is back.
    ck_assert_uint_eq(meridian_mca_carto_graph_vertex_count(graph), 1);
    ck_assert_int_eq(meridian_mca_carto_graph_add_vertex(graph, "MEM0", MCA_CARTO_MEM),
                     MERIDIAN_SUCCESS);
    meridian_mca_carto_graph_free(graph);
}
END_TEST

} // namespace

int main()
{
    meridian_test::isolate_mca_environment();
    Suite *suite = suite_create("c_boundary");
    TCase *guard = tcase_create("guard");
    tcase_add_checked_fixture(guard, capture, stop);
    tcase_add_test(guard, bad_alloc_is_out_of_resource);
    tcase_add_test(guard, other_exceptions_are_errors_with_their_text);
    tcase_add_test(guard, a_body_that_returns_is_untouched);
    tcase_add_test(guard, own_failure_values_and_record);
    tcase_add_test(guard, void_bodies_are_said_and_dropped);
    suite_add_tcase(suite, guard);
    TCase *carto = tcase_create("carto_c_api");
    tcase_add_checked_fixture(carto, capture, stop);
    tcase_add_test(carto, carto_graph_calls_answer_out_of_resource);
    suite_add_tcase(suite, carto);
    return meridian_test::run_suite(suite);
}
