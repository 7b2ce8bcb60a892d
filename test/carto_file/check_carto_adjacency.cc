// SPDX-License-Identifier: BSD-3-Clause
// The adjacency format (the carto requirements' figure 3): the figure parsed
// exactly, a vertex's list on its own line or on the indented lines below it,
// entries separated by commas or blanks, '#' comments, and vertex types read
// from names.
#include <string>

#include "test/carto_file/carto_test_support.hpp"
#include <meridian/mca/carto/base/base.hpp>

using meridian::carto::CartoFormat;
using meridian::carto::read_carto_file;
using meridian::carto::vertex_type_from_name;
using namespace carto_test;

START_TEST(figure3_parsed_exactly)
{
    const auto parsed = read_carto_file(contrib_file("figure3.carto"));
    ck_assert_text_eq(error_of(parsed), "parsed without error");
    ck_assert(parsed->format == CartoFormat::adjacency);
    ck_assert_uint_eq(parsed->vertices.size(), 12);
    ck_assert_uint_eq(parsed->edges.size(), 24);
    ck_assert_text_eq(vertices_of(parsed, true), "MEM0 MEM @12:1\n"
                                                 "Eth0 ETH @14:1\n"
                                                 "MTHCA0 IB @16:1\n"
                                                 "Slot0 SLOT @18:1\n"
                                                 "Slot1 SLOT @20:1\n"
                                                 "MEM1 MEM @22:1\n"
                                                 "Slot2 SLOT @24:1\n"
                                                 "MEM2 MEM @26:1\n"
                                                 "Slot3 SLOT @28:1\n"
                                                 "Eth1 ETH @30:1\n"
                                                 "MEM3 MEM @32:1\n"
                                                 "MTHCA1 IB @34:1\n");
    ck_assert_text_eq(edges_of(parsed, true), "MEM0->Slot0:0 @13:12\n"
                                              "Eth0->Slot0:1 @15:12\n"
                                              "MTHCA0->Slot0:1 @17:12\n"
                                              "Slot0->Eth0:1 @19:12\n"
                                              "Slot0->MTHCA0:1 @19:20\n"
                                              "Slot0->MEM0:0 @19:30\n"
                                              "Slot0->Slot2:1 @19:38\n"
                                              "Slot0->Slot1:1 @19:47\n"
                                              "Slot1->MEM1:0 @21:12\n"
                                              "Slot1->Slot0:1 @21:19\n"
                                              "Slot1->Slot3:1 @21:27\n"
                                              "MEM1->Slot1:0 @23:12\n"
                                              "Slot2->MEM2:0 @25:12\n"
                                              "Slot2->Slot0:1 @25:19\n"
                                              "Slot2->Slot3:1 @25:27\n"
                                              "MEM2->Slot2:0 @27:12\n"
                                              "Slot3->Eth1:1 @29:12\n"
                                              "Slot3->MEM3:0 @29:20\n"
                                              "Slot3->MTHCA1:1 @29:28\n"
                                              "Slot3->Slot1:1 @29:38\n"
                                              "Slot3->Slot2:1 @29:47\n"
                                              "Eth1->Slot3:1 @31:12\n"
                                              "MEM3->Slot3:0 @33:12\n"
                                              "MTHCA1->Slot3:1 @35:13\n");
}
END_TEST

// The same three vertices and edges in every layout the format allows.
const char *const three_vertices = "Slot0 SLOT\nMEM0 MEM\neth0 ETH\n";
const char *const three_edges = "Slot0->MEM0:0\nSlot0->eth0:1\nMEM0->Slot0:0\neth0->Slot0:1\n";

START_TEST(list_on_the_vertex_line)
{
    const auto parsed = parse("Slot0 MEM0:0, eth0:1\nMEM0 Slot0:0\neth0 Slot0:1\n");
    ck_assert_text_eq(vertices_of(parsed), three_vertices);
    ck_assert_text_eq(edges_of(parsed, true), "Slot0->MEM0:0 @1:7\n"
                                              "Slot0->eth0:1 @1:15\n"
                                              "MEM0->Slot0:0 @2:6\n"
                                              "eth0->Slot0:1 @3:6\n");
}
END_TEST

START_TEST(list_on_indented_lines)
{
    // Spaces or tabs, any amount; one entry or several per line.
    const auto parsed = parse("Slot0\n  MEM0:0\n\teth0:1\nMEM0\n      Slot0:0\neth0\n Slot0:1\n");
    ck_assert_text_eq(vertices_of(parsed, true), "Slot0 SLOT @1:1\nMEM0 MEM @4:1\neth0 ETH @6:1\n");
    ck_assert_text_eq(edges_of(parsed, true), "Slot0->MEM0:0 @2:3\n"
                                              "Slot0->eth0:1 @3:2\n"
                                              "MEM0->Slot0:0 @5:7\n"
                                              "eth0->Slot0:1 @7:2\n");
}
END_TEST

START_TEST(list_started_on_the_vertex_line_and_continued)
{
    const auto parsed = parse("Slot0 MEM0:0,\n      eth0:1\nMEM0 Slot0:0\neth0\n  Slot0:1\n");
    ck_assert_text_eq(vertices_of(parsed), three_vertices);
    ck_assert_text_eq(edges_of(parsed), three_edges);
}
END_TEST

START_TEST(blank_and_comment_lines_do_not_end_a_list)
{
    const auto parsed =
        parse("Slot0\n  MEM0:0\n\n  # the NIC:\n  eth0:1\n   \nMEM0 Slot0:0\neth0 Slot0:1\n");
    ck_assert_text_eq(edges_of(parsed), three_edges);
}
END_TEST

START_TEST(commas_blanks_or_both_separate_entries)
{
    const auto commas = parse("Slot0 MEM0:0,eth0:1,ib0:2\nMEM0\neth0\nib0\n");
    const auto blanks = parse("Slot0 MEM0:0 eth0:1\t ib0:2\nMEM0\neth0\nib0\n");
    const auto both = parse("Slot0 MEM0:0 ,eth0:1 ,\t ib0:2,\nMEM0\neth0\nib0\n");
    const char *const edges = "Slot0->MEM0:0\nSlot0->eth0:1\nSlot0->ib0:2\n";
    ck_assert_text_eq(edges_of(commas), edges);
    ck_assert_text_eq(edges_of(blanks), edges);
    ck_assert_text_eq(edges_of(both), edges);
}
END_TEST

START_TEST(blanks_around_the_colon)
{
    // The requirements' general form writes "V2 : W2" and "V1: W1".
    const auto parsed = parse("Slot0 MEM0 : 0, eth0: 1, ib0 :2\nMEM0\neth0\nib0\n");
    ck_assert_text_eq(edges_of(parsed, true),
                      "Slot0->MEM0:0 @1:7\nSlot0->eth0:1 @1:17\nSlot0->ib0:2 @1:26\n");
}
END_TEST

START_TEST(comments)
{
    const auto parsed = parse("# a carto file\n"
                              "   # indented comment\n"
                              "Slot0 MEM0:0 # the local memory\n"
                              "  eth0:1# right after a weight\n"
                              "MEM0#right after a name\n"
                              "  Slot0:0,# after a comma\n"
                              "eth0 Slot0:1 # MEM0:5 is not an entry\n");
    ck_assert_text_eq(vertices_of(parsed), three_vertices);
    ck_assert_text_eq(edges_of(parsed), three_edges);
}
END_TEST

START_TEST(line_ends_and_last_line)
{
    // CRLF line ends, and no line end after the last line.
    const auto crlf = parse("Slot0 MEM0:0, eth0:1\r\nMEM0\r\n  Slot0:0\r\neth0 Slot0:1");
    ck_assert_text_eq(vertices_of(crlf), three_vertices);
    ck_assert_text_eq(edges_of(crlf), three_edges);
}
END_TEST

START_TEST(names_declared_later_and_vertices_without_edges)
{
    const auto parsed = parse("MEM0 Slot0:0\nlo\nSlot0\n");
    ck_assert_text_eq(vertices_of(parsed), "MEM0 MEM\nlo OTHER\nSlot0 SLOT\n");
    ck_assert_text_eq(edges_of(parsed), "MEM0->Slot0:0\n");
}
END_TEST

START_TEST(name_characters_and_weights)
{
    const auto parsed = parse("mlx5_0 eth0.100:007, my-gpu.1:18446744073709551615, mlx5_0:0\n"
                              "eth0.100\nmy-gpu.1\n");
    ck_assert_text_eq(vertices_of(parsed), "mlx5_0 IB\neth0.100 ETH\nmy-gpu.1 OTHER\n");
    // Leading zeros are fine, the largest weight is 2^64-1, a self-loop is kept.
    ck_assert_text_eq(edges_of(parsed), "mlx5_0->eth0.100:7\n"
                                        "mlx5_0->my-gpu.1:18446744073709551615\n"
                                        "mlx5_0->mlx5_0:0\n");
}
END_TEST

START_TEST(types_from_names)
{
    struct Case {
        const char *name;
        const char *type;
    };
    const Case cases[] = {
        {"MEM0", "MEM"},    {"MEM12", "MEM"},    {"mem3", "MEM"},    {"Mem7", "MEM"},
        {"MEMO", "OTHER"},  {"MEM", "OTHER"},    {"MEM1a", "OTHER"}, {"MEMORY0", "OTHER"},
        {"Slot0", "SLOT"},  {"slot15", "SLOT"},  {"SLOT2", "SLOT"},  {"Slots", "OTHER"},
        {"Slot", "OTHER"},  {"Slot0a", "OTHER"}, {"eth0", "ETH"},    {"enp3s0f1", "ETH"},
        {"Eth1", "ETH"},    {"en", "ETH"},       {"ETH0", "OTHER"},  {"ib0", "IB"},
        {"mthca0", "IB"},   {"mlx5_1", "IB"},    {"hfi1_0", "IB"},   {"MTHCA1", "IB"},
        {"Ib0", "OTHER"},   {"IB0", "OTHER"},    {"lo", "OTHER"},    {"gpu0", "OTHER"},
        {"wlan0", "OTHER"}, {"", "OTHER"},
    };
    for (const Case &c : cases) {
        // The rule is the base's (base.hpp); the parser uses it as it is.
        const std::string type(meridian::vertex_type_name(vertex_type_from_name(c.name)));
        ck_assert_msg(type == c.type, "%s has type %s, expected %s", c.name, type.c_str(), c.type);
    }
    // The parser gives a vertex the type of its name.
    ck_assert_text_eq(vertices_of(parse("mem2\nSLOT1\nenp0s3\nhfi1_0\nMEMO\n")),
                      "mem2 MEM\nSLOT1 SLOT\nenp0s3 ETH\nhfi1_0 IB\nMEMO OTHER\n");
}
END_TEST

int main()
{
    Suite *suite = suite_create("carto_adjacency");
    TCase *figure = make_tcase("figure3");
    tcase_add_test(figure, figure3_parsed_exactly);
    suite_add_tcase(suite, figure);

    TCase *layout = make_tcase("layout");
    tcase_add_test(layout, list_on_the_vertex_line);
    tcase_add_test(layout, list_on_indented_lines);
    tcase_add_test(layout, list_started_on_the_vertex_line_and_continued);
    tcase_add_test(layout, blank_and_comment_lines_do_not_end_a_list);
    tcase_add_test(layout, commas_blanks_or_both_separate_entries);
    tcase_add_test(layout, blanks_around_the_colon);
    tcase_add_test(layout, comments);
    tcase_add_test(layout, line_ends_and_last_line);
    suite_add_tcase(suite, layout);

    TCase *content = make_tcase("content");
    tcase_add_test(content, names_declared_later_and_vertices_without_edges);
    tcase_add_test(content, name_characters_and_weights);
    tcase_add_test(content, types_from_names);
    suite_add_tcase(suite, content);
    return meridian_test::run_suite(suite);
}
