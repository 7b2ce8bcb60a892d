// SPDX-License-Identifier: BSD-3-Clause
// Open MPI 1.3's carto format: EDGE declarations with their types, BRANCH
// (one way) and BRANCH_BI_DIR (both ways), the three comment styles, and the
// example contrib/carto/ompi13.carto, which describes figure 3's graph.
#include <string>

#include "test/carto_file/carto_test_support.hpp"

using meridian::carto::CartoFormat;
using meridian::carto::open_mpi_vertex_type;
using meridian::carto::read_carto_file;
using meridian::carto::vertex_type_name;
using namespace carto_test;

START_TEST(example_is_figure3s_graph)
{
    const auto example = read_carto_file(contrib_file("ompi13.carto"));
    ck_assert_text_eq(error_of(example), "parsed without error");
    ck_assert(example->format == CartoFormat::open_mpi);
    ck_assert_text_eq(vertices_of(example, true), "Slot0 SLOT @9:19\n"
                                                  "Slot1 SLOT @10:19\n"
                                                  "Slot2 SLOT @11:19\n"
                                                  "Slot3 SLOT @12:19\n"
                                                  "MEM0 MEM @13:19\n"
                                                  "MEM1 MEM @14:19\n"
                                                  "MEM2 MEM @15:19\n"
                                                  "MEM3 MEM @16:19\n"
                                                  "Eth0 ETH @17:19\n"
                                                  "Eth1 ETH @18:19\n"
                                                  "MTHCA0 IB @19:19\n"
                                                  "MTHCA1 IB @20:19\n");
    // BRANCH_BI_DIR gives the edge there, then the one back, at one position.
    ck_assert_text_eq(edges_of(example, true), "Slot0->MEM0:0 @23:23\n"
                                               "MEM0->Slot0:0 @23:23\n"
                                               "Slot0->Eth0:1 @23:31\n"
                                               "Eth0->Slot0:1 @23:31\n"
                                               "Slot0->MTHCA0:1 @23:39\n"
                                               "MTHCA0->Slot0:1 @23:39\n"
                                               "Slot1->MEM1:0 @24:23\n"
                                               "MEM1->Slot1:0 @25:23\n"
                                               "Slot2->MEM2:0 @26:23\n"
                                               "MEM2->Slot2:0 @26:23\n"
                                               "Slot3->MEM3:0 @27:23\n"
                                               "MEM3->Slot3:0 @27:23\n"
                                               "Slot3->Eth1:1 @27:31\n"
                                               "Eth1->Slot3:1 @27:31\n"
                                               "Slot3->MTHCA1:1 @27:39\n"
                                               "MTHCA1->Slot3:1 @27:39\n"
                                               "Slot0->Slot1:1 @30:23\n"
                                               "Slot1->Slot0:1 @30:23\n"
                                               "Slot0->Slot2:1 @30:32\n"
                                               "Slot2->Slot0:1 @30:32\n"
                                               "Slot3->Slot1:1 @31:23\n"
                                               "Slot1->Slot3:1 @31:23\n"
                                               "Slot3->Slot2:1 @31:32\n"
                                               "Slot2->Slot3:1 @31:32\n");
    // The same machine as figure 3: same vertex types, same edge set.
    const auto figure = read_carto_file(contrib_file("figure3.carto"));
    ck_assert_text_eq(sorted_edges_of(example), sorted_edges_of(figure));
    ck_assert_uint_eq(figure->vertices.size(), example->vertices.size());
    for (const auto &vertex : figure->vertices) {
        bool same = false;
        for (const auto &other : example->vertices) {
            same = same || (other.name == vertex.name && other.type == vertex.type);
        }
        ck_assert_msg(same, "%s differs between the two files", vertex.name.c_str());
    }
}
END_TEST

START_TEST(branch_is_one_way_bi_dir_both)
{
    const auto parsed = parse("EDGE slot a\nEDGE slot b\nEDGE slot c\n"
                              "BRANCH a b:1 c:2\n"
                              "BRANCH_BI_DIR c b:3\n");
    ck_assert_text_eq(edges_of(parsed, true),
                      "a->b:1 @4:10\na->c:2 @4:14\nc->b:3 @5:17\nb->c:3 @5:17\n");
}
END_TEST

START_TEST(bi_dir_self_loop_is_one_edge)
{
    ck_assert_text_eq(edges_of(parse("EDGE slot a\nBRANCH_BI_DIR a a:4\n")), "a->a:4\n");
}
END_TEST

START_TEST(types_come_from_edge_not_names)
{
    const auto parsed = parse("EDGE Memory numa0\n"
                              "EDGE MEMORY numa1\n"
                              "EDGE slot cpu0\n"
                              "EDGE SLOT cpu1\n"
                              "EDGE Socket cpu2\n"
                              "EDGE Infiniband hca\n"
                              "EDGE infiniband hca2\n"
                              "EDGE Ethernet myri0\n"
                              "EDGE Other Slot0\n");
    ck_assert_text_eq(vertices_of(parsed), "numa0 MEM\nnuma1 MEM\ncpu0 SLOT\ncpu1 SLOT\n"
                                           "cpu2 SLOT\nhca IB\nhca2 IB\nmyri0 ETH\nSlot0 OTHER\n");
    ck_assert(*open_mpi_vertex_type("ethernet") == MCA_CARTO_ETH);
    ck_assert(!open_mpi_vertex_type("Ether").has_value());
    ck_assert(!open_mpi_vertex_type("").has_value());
}
END_TEST

START_TEST(three_comment_styles)
{
    const auto parsed = parse("# hash comment\n"
                              "// slash comment\n"
                              "/* block comment */\n"
                              "/* block comment\n"
                              "   over lines, EDGE slot x */\n"
                              "EDGE slot a # after a statement\n"
                              "EDGE slot b // after a statement\n"
                              "EDGE /* inside */ slot /**/ c\n"
                              "EDGE slot/*no blank*/d\n"
                              "BRANCH a b:1 /* before an entry */ c:2 // the end\n"
                              "   /* indented */ BRANCH d a:3\n");
    ck_assert_text_eq(vertices_of(parsed), "a SLOT\nb SLOT\nc SLOT\nd SLOT\n");
    ck_assert_text_eq(edges_of(parsed, true), "a->b:1 @10:10\na->c:2 @10:36\nd->a:3 @11:28\n");
}
END_TEST

START_TEST(block_comment_over_lines_ends_the_statement)
{
    // Text after the comment's close is a new statement.
    const auto parsed = parse("EDGE slot a /* one\n two */ EDGE slot b\n"
                              "BRANCH a b:1 /*\n*/ BRANCH b a:2\n");
    ck_assert_text_eq(vertices_of(parsed, true), "a SLOT @1:11\nb SLOT @2:19\n");
    ck_assert_text_eq(edges_of(parsed, true), "a->b:1 @3:10\nb->a:2 @4:13\n");
}
END_TEST

START_TEST(commas_and_forward_references)
{
    // Entries as in the adjacency format; names used before their EDGE line.
    const auto parsed = parse("BRANCH a b:1, c : 2,\nEDGE slot a\nEDGE slot b\nEDGE slot c\n");
    ck_assert_text_eq(edges_of(parsed), "a->b:1\na->c:2\n");
}
END_TEST

START_TEST(indentation_and_line_ends_are_free)
{
    const auto parsed = parse("  EDGE\tslot   a\r\n\tEDGE slot b\r\nBRANCH a b:5");
    ck_assert_text_eq(vertices_of(parsed), "a SLOT\nb SLOT\n");
    ck_assert_text_eq(edges_of(parsed), "a->b:5\n");
}
END_TEST

int main()
{
    Suite *suite = suite_create("carto_open_mpi");
    TCase *example = make_tcase("example");
    tcase_add_test(example, example_is_figure3s_graph);
    suite_add_tcase(suite, example);

    TCase *statements = make_tcase("statements");
    tcase_add_test(statements, branch_is_one_way_bi_dir_both);
    tcase_add_test(statements, bi_dir_self_loop_is_one_edge);
    tcase_add_test(statements, types_come_from_edge_not_names);
    tcase_add_test(statements, commas_and_forward_references);
    tcase_add_test(statements, indentation_and_line_ends_are_free);
    suite_add_tcase(suite, statements);

    TCase *comments = make_tcase("comments");
    tcase_add_test(comments, three_comment_styles);
    tcase_add_test(comments, block_comment_over_lines_ends_the_statement);
    suite_add_tcase(suite, comments);
    return meridian_test::run_suite(suite);
}
