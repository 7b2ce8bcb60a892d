// SPDX-License-Identifier: BSD-3-Clause
// carto_auto given an XML file it cannot map: one error message naming the
// file, the parameter and the reason; the query answers the error code (and
// keeps answering it without saying it again); never a silent fall-back to
// this machine's topology.
#include <string>

#include "test/carto_auto/carto_auto_test.hpp"
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/strings.hpp>

using namespace carto_auto_test;

namespace
{

// The start of every message about the file at path.
std::string about(const std::string &path)
{
    return "carto_auto: the hwloc XML topology " + meridian::util::quoted(path) +
           " (carto_auto_xml): ";
}

constexpr const char *invalid = "hwloc rejected it: not a valid hwloc XML topology "
                                "(HWLOC_XML_VERBOSE=1 shows hwloc's own messages)";

// Asks for the host graph through the C API and checks the code and the
// one message; asks again through the C++ API: the same code, no message.
void expect_failure(const std::string &path, int status, const std::string &message)
{
    init_with({{"carto_auto_xml", path}});
    mca_carto_graph_t *graph = reinterpret_cast<mca_carto_graph_t *>(&graph);
    ck_assert_int_eq(meridian_mca_carto_base_get_host_graph(MCA_CARTO_ALL, &graph), status);
    ck_assert_ptr_null(graph);
    ck_assert_messages(ERROR_MSG(message));
    ck_assert_ptr_null(meridian_mca_carto_base_selected_component());

    meridian_test::clear_messages();
    const auto again = meridian::carto::host_graph();
    ck_assert(!again.ok());
    ck_assert_int_eq(again.error().status, status);
    ck_assert_no_messages();
}

} // namespace

START_TEST(missing_file)
{
    const std::string path = meridian_test::scratch() + "/no-such-topology.xml";
    expect_failure(path, MERIDIAN_ERR_IO,
                   about(path) + "cannot read it: No such file or directory");
}
END_TEST

START_TEST(directory_instead_of_a_file)
{
    const std::string path = meridian_test::scratch();
    expect_failure(path, MERIDIAN_ERR_IO, about(path) + "cannot read it: Is a directory");
}
END_TEST

START_TEST(empty_file)
{
    const std::string path = write_scratch_file("empty.xml", "");
    expect_failure(path, MERIDIAN_ERR_BAD_PARAM, about(path) + invalid);
}
END_TEST

START_TEST(truncated_xml)
{
    const std::string path = test_xml("bad-truncated.xml");
    expect_failure(path, MERIDIAN_ERR_BAD_PARAM, about(path) + invalid);
}
END_TEST

START_TEST(not_an_hwloc_topology)
{
    const std::string path =
        write_scratch_file("other.xml", "<?xml version=\"1.0\"?>\n<html><body/></html>\n");
    expect_failure(path, MERIDIAN_ERR_BAD_PARAM, about(path) + invalid);
}
END_TEST

START_TEST(topology_hwloc_rejects)
{
    const std::string path = test_xml("bad-no-nodeset.xml");
    expect_failure(path, MERIDIAN_ERR_BAD_PARAM, about(path) + invalid);
}
END_TEST

// hwloc's own XML files have no comments, and its importers do not take
// them (hwloc may also print a line of its own about the lost NUMA node).
START_TEST(comment_inside_the_topology)
{
    const std::string path = test_xml("bad-comment.xml");
    expect_failure(path, MERIDIAN_ERR_BAD_PARAM, about(path) + invalid);
}
END_TEST

// A name with a control character is shown escaped, not raw.
START_TEST(path_is_quoted)
{
    const std::string path = meridian_test::scratch() + "/odd\tname.xml";
    expect_failure(path, MERIDIAN_ERR_IO,
                   about(path) + "cannot read it: No such file or directory");
    ck_assert(about(path).find("odd\\x09name.xml") != std::string::npos);
}
END_TEST

int main()
{
    Suite *suite = suite_create("carto_auto_errors");
    TCase *files = make_tcase("bad_xml");
    tcase_add_test(files, missing_file);
    tcase_add_test(files, directory_instead_of_a_file);
    tcase_add_test(files, empty_file);
    tcase_add_test(files, truncated_xml);
    tcase_add_test(files, not_an_hwloc_topology);
    tcase_add_test(files, topology_hwloc_rejects);
    tcase_add_test(files, comment_inside_the_topology);
    tcase_add_test(files, path_is_quoted);
    suite_add_tcase(suite, files);
    return run_carto_auto_suite(suite);
}
