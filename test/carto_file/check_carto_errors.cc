// SPDX-License-Identifier: BSD-3-Clause
// Every way a carto file can be wrong, with its exact message: one line
// "PATH:LINE:COLUMN: expected ..., found ..." (or "PATH: <strerror>" for a
// file that cannot be read), for the first syntax error, else the first use
// of an undeclared vertex; and no input, however odd, makes the parser fail
// any other way.
#include <string>

#include "test/carto_file/carto_test_support.hpp"

using meridian::carto::read_carto_file;
using namespace carto_test;

START_TEST(unknown_vertex)
{
    ck_assert_text_eq(error_of(parse("Slot0 MEM9:0\nMEM0 Slot0:0\n")),
                      "t.carto:1:7: expected a declared vertex, found \"MEM9\" (no line declares "
                      "it; did you mean MEM0?)");
    ck_assert_text_eq(error_of(parse("Slot0\n  eth0:1\nMEM0\n")),
                      "t.carto:2:3: expected a declared vertex, found \"eth0\" (no line declares "
                      "it)");
    // The first use in the file, not the first that fails to resolve later.
    ck_assert_text_eq(error_of(parse("Slot0 nic1:1\nSlot1 nic0:1\n")),
                      "t.carto:1:7: expected a declared vertex, found \"nic1\" (no line declares "
                      "it)");
    ck_assert_text_eq(error_of(parse("EDGE slot Slot0\nBRANCH Slot1 Slot0:1\n")),
                      "t.carto:2:8: expected a declared vertex, found \"Slot1\" (no line declares "
                      "it; did you mean Slot0?)");
    ck_assert_text_eq(error_of(parse("EDGE slot Slot0\nBRANCH_BI_DIR Slot0 mem0:0\n")),
                      "t.carto:2:21: expected a declared vertex, found \"mem0\" (no line declares "
                      "it)");
    ck_assert_text_eq(error_of(parse("BRANCH a b:1\n")),
                      "t.carto:1:8: expected a declared vertex, found \"a\" (no vertex is "
                      "declared in this file)");
}
END_TEST

START_TEST(syntax_errors_come_before_unknown_vertices)
{
    ck_assert_text_eq(error_of(parse("Slot0 nic0:1\nSlot1 Slot0:x\n")),
                      "t.carto:2:13: expected a weight (a whole number), found \"x\"");
}
END_TEST

START_TEST(bad_weight)
{
    const char *const weights[] = {"x", "1.5", "+1", "1e3", "0x10", "12abc", "-x", "-"};
    for (const char *weight : weights) {
        ck_assert_text_eq(
            error_of(parse(std::string("Slot0 MEM0:") + weight + "\nMEM0\n")),
            std::string("t.carto:1:12: expected a weight (a whole number), found \"") + weight +
                "\"");
    }
    ck_assert_text_eq(error_of(parse("EDGE slot a\nBRANCH a a:one\n")),
                      "t.carto:2:12: expected a weight (a whole number), found \"one\"");
}
END_TEST

START_TEST(negative_weight)
{
    ck_assert_text_eq(error_of(parse("Slot0 MEM0:-1\nMEM0\n")),
                      "t.carto:1:12: expected a weight of 0 or more, found \"-1\"");
    ck_assert_text_eq(error_of(parse("EDGE slot a\nBRANCH_BI_DIR a a:-20\n")),
                      "t.carto:2:19: expected a weight of 0 or more, found \"-20\"");
}
END_TEST

START_TEST(overflowing_weight)
{
    ck_assert_text_eq(error_of(parse("Slot0 MEM0:18446744073709551616\nMEM0\n")),
                      "t.carto:1:12: expected a weight of at most 18446744073709551615, found "
                      "\"18446744073709551616\"");
    ck_assert_text_eq(error_of(parse("Slot0 MEM0:99999999999999999999\nMEM0\n")),
                      "t.carto:1:12: expected a weight of at most 18446744073709551615, found "
                      "\"99999999999999999999\"");
    // A long number is cut short in the message.
    ck_assert_text_eq(error_of(parse("Slot0\n MEM0:" + std::string(40, '7') + "\nMEM0\n")),
                      "t.carto:2:7: expected a weight of at most 18446744073709551615, found \"" +
                          std::string(32, '7') + "\"...");
}
END_TEST

START_TEST(duplicate_vertex)
{
    ck_assert_text_eq(error_of(parse("Slot0\nMEM0 Slot0:0\nSlot0 MEM0:0\n")),
                      "t.carto:3:1: expected each vertex declared once, found \"Slot0\" again "
                      "(first declared at 1:1)");
    ck_assert_text_eq(error_of(parse("EDGE Memory MEM0\nEDGE  slot  MEM0\n")),
                      "t.carto:2:13: expected each vertex declared once, found \"MEM0\" again "
                      "(first declared at 1:13)");
}
END_TEST

START_TEST(duplicate_edge)
{
    ck_assert_text_eq(error_of(parse("Slot0 MEM0:1, MEM0:2\nMEM0\n")),
                      "t.carto:1:15: expected one edge from Slot0 to MEM0, found a second one "
                      "(the first is at 1:7)");
    ck_assert_text_eq(error_of(parse("Slot0 MEM0:1\n  MEM0:1\nMEM0\n")),
                      "t.carto:2:3: expected one edge from Slot0 to MEM0, found a second one "
                      "(the first is at 1:7)");
    // BRANCH_BI_DIR's edge back counts too.
    ck_assert_text_eq(error_of(parse("EDGE slot a\nEDGE slot b\nBRANCH_BI_DIR a b:1\n"
                                     "BRANCH b a:1\n")),
                      "t.carto:4:10: expected one edge from b to a, found a second one (the first "
                      "is at 3:17)");
}
END_TEST

START_TEST(missing_colon)
{
    ck_assert_text_eq(error_of(parse("Slot0 MEM0 1\nMEM0\n")),
                      "t.carto:1:12: expected ':' and a weight after MEM0, found \"1\"");
    // At the end of a line the column is just after the name.
    ck_assert_text_eq(error_of(parse("Slot0 MEM0\nMEM0\n")),
                      "t.carto:1:11: expected ':' and a weight after MEM0, found end of line");
    ck_assert_text_eq(error_of(parse("Slot0 MEM0   # no weight\nMEM0\n")),
                      "t.carto:1:11: expected ':' and a weight after MEM0, found end of line");
    ck_assert_text_eq(error_of(parse("Slot0 MEM0, eth0:1\nMEM0\neth0\n")),
                      "t.carto:1:11: expected ':' and a weight after MEM0, found ','");
    // A vertex on an indented line reads as an entry without a weight.
    ck_assert_text_eq(error_of(parse("Slot0 MEM0:0\n  eth0\nMEM0\n")),
                      "t.carto:2:7: expected ':' and a weight after eth0, found end of line");
    ck_assert_text_eq(error_of(parse("EDGE slot a\nBRANCH a a 1\n")),
                      "t.carto:2:12: expected ':' and a weight after a, found \"1\"");
}
END_TEST

START_TEST(missing_weight)
{
    ck_assert_text_eq(error_of(parse("Slot0 MEM0:\nMEM0\n")),
                      "t.carto:1:12: expected a weight after MEM0:, found end of line");
    ck_assert_text_eq(error_of(parse("Slot0 MEM0:, eth0:1\nMEM0\n")),
                      "t.carto:1:12: expected a weight after MEM0:, found ','");
    ck_assert_text_eq(error_of(parse("Slot0 MEM0::1\nMEM0\n")),
                      "t.carto:1:12: expected a weight after MEM0:, found ':'");
}
END_TEST

// A UTF-8 byte order mark at the start is skipped, in either format.
START_TEST(byte_order_mark)
{
    ck_assert_text_eq(error_of(parse("\xef\xbb\xbfSlot0 MEM0:10\nMEM0 Slot0:10\n")),
                      error_of(parse("Slot0 MEM0:10\nMEM0 Slot0:10\n")));
    ck_assert_text_eq(error_of(parse("\xef\xbb\xbf")),
                      "t.carto:1:1: expected at least one vertex, found an empty file");
    ck_assert_text_eq(error_of(parse("\xef\xbb\xbf"
                                     "EDGE slot Slot0\nEDGE Memory MEM0\n"
                                     "BRANCH_BI_DIR Slot0 MEM0:10\n")),
                      "parsed without error");
}
END_TEST

START_TEST(empty_file)
{
    ck_assert_text_eq(error_of(parse("")),
                      "t.carto:1:1: expected at least one vertex, found an empty file");
    ck_assert_text_eq(error_of(parse(" \n\t\r\n\n")),
                      "t.carto:1:1: expected at least one vertex, found an empty file");
    ck_assert_text_eq(error_of(parse("# only\n   # comments\n")),
                      "t.carto:1:1: expected at least one vertex, found no vertices (only blank "
                      "lines and comments)");
    ck_assert_text_eq(error_of(parse("// Open MPI\n/* style */\n")),
                      "t.carto:1:1: expected at least one vertex, found no vertices (only blank "
                      "lines and comments)");
    const std::string path = write_scratch_file("empty.carto", "");
    ck_assert_text_eq(error_of(read_carto_file(path)),
                      path + ":1:1: expected at least one vertex, found an empty file");
    ck_assert_text_eq(error_of(read_carto_file("/dev/null")),
                      "/dev/null:1:1: expected at least one vertex, found an empty file");
}
END_TEST

START_TEST(unreadable_file)
{
    const std::string missing = meridian_test::scratch() + "/missing.carto";
    ck_assert_text_eq(error_of(read_carto_file(missing)), missing + ": No such file or directory");
    ck_assert_text_eq(error_of(read_carto_file(meridian_test::scratch())),
                      meridian_test::scratch() + ": Is a directory");
    ck_assert_int_eq(read_carto_file(missing).error().status, MERIDIAN_ERR_IO);
    // Bounded (a device without end) and checked (a read failing part-way).
    ck_assert_text_eq(error_of(read_carto_file("/dev/zero")),
                      "/dev/zero: File too large (a carto file is at most 256 MiB)");
    ck_assert_text_eq(error_of(read_carto_file("/proc/self/mem")),
                      "/proc/self/mem: Input/output error");
}
END_TEST

START_TEST(errors_name_the_file_read)
{
    const std::string path = write_scratch_file("bad.carto", "Slot0 MEM0:1\n");
    const auto parsed = read_carto_file(path);
    ck_assert_text_eq(error_of(parsed), path + ":1:7: expected a declared vertex, found \"MEM0\" "
                                               "(no line declares it)");
    ck_assert_int_eq(parsed.error().status, MERIDIAN_ERR_BAD_PARAM);
}
END_TEST

START_TEST(unknown_edge_type)
{
    ck_assert_text_eq(error_of(parse("EDGE Memory MEM0\nEDGE Gpu gpu0\n")),
                      "t.carto:2:6: expected a vertex type (Memory, slot, Socket, Infiniband, "
                      "Ethernet or Other), found \"Gpu\"");
    ck_assert_text_eq(error_of(parse("EDGE\n")),
                      "t.carto:1:5: expected a vertex type after EDGE (Memory, slot, Socket, "
                      "Infiniband, Ethernet or Other), found end of line");
}
END_TEST

START_TEST(edge_statement_errors)
{
    ck_assert_text_eq(error_of(parse("EDGE Memory\n")),
                      "t.carto:1:12: expected a vertex name after EDGE Memory, found end of line");
    ck_assert_text_eq(error_of(parse("EDGE Memory MEM0 MEM1\n")),
                      "t.carto:1:18: expected the end of the line after EDGE Memory MEM0, found "
                      "\"MEM1\"");
    ck_assert_text_eq(error_of(parse("EDGE Memory MEM0:0\n")),
                      "t.carto:1:17: expected the end of the line after EDGE Memory MEM0, found "
                      "':'");
    ck_assert_text_eq(error_of(parse("EDGE Memory , MEM0\n")),
                      "t.carto:1:13: expected a vertex name after EDGE Memory, found ','");
}
END_TEST

START_TEST(branch_statement_errors)
{
    ck_assert_text_eq(error_of(parse("EDGE slot a\nBRANCH\n")),
                      "t.carto:2:7: expected a vertex name after BRANCH, found end of line");
    ck_assert_text_eq(error_of(parse("EDGE slot a\nBRANCH_BI_DIR a\n")),
                      "t.carto:2:16: expected an entry NAME:WEIGHT after BRANCH_BI_DIR a, found "
                      "end of line");
    ck_assert_text_eq(error_of(parse("EDGE slot a\nBRANCH a:1\n")),
                      "t.carto:2:9: expected an entry NAME:WEIGHT after BRANCH a, found ':'");
}
END_TEST

START_TEST(unknown_statement)
{
    ck_assert_text_eq(error_of(parse("EDGE slot a\nedge slot b\n")),
                      "t.carto:2:1: expected EDGE, BRANCH or BRANCH_BI_DIR, found \"edge\"");
    ck_assert_text_eq(error_of(parse("EDGE slot a\n  : b\n")),
                      "t.carto:2:3: expected EDGE, BRANCH or BRANCH_BI_DIR, found ':'");
    // A comment over several lines ends its statement: b:2 starts a new one.
    ck_assert_text_eq(
        error_of(parse("EDGE slot a\nEDGE slot b\nBRANCH a b:1 /* multi\nline */ b:2\n")),
        "t.carto:4:9: expected EDGE, BRANCH or BRANCH_BI_DIR, found \"b\"");
}
END_TEST

START_TEST(unterminated_comment)
{
    ck_assert_text_eq(error_of(parse("/* never closed\nEDGE slot a\n")),
                      "t.carto:1:1: expected '*/' to close the comment opened here, found end "
                      "of file");
    ck_assert_text_eq(error_of(parse("EDGE slot a\nEDGE slot b /* open\n\n")),
                      "t.carto:2:13: expected '*/' to close the comment opened here, found end "
                      "of file");
    // "/*/" opens a comment and does not close it.
    ck_assert_text_eq(error_of(parse("EDGE slot a /*/\n")),
                      "t.carto:1:13: expected '*/' to close the comment opened here, found end "
                      "of file");
    ck_assert_text_eq(error_of(parse("EDGE slot a\nBRANCH a a:1 /*")),
                      "t.carto:2:14: expected '*/' to close the comment opened here, found end "
                      "of file");
}
END_TEST

START_TEST(layout_errors)
{
    // Figure 3's header as the seed's text has it, split over two lines.
    ck_assert_text_eq(error_of(parse("#vertex\n            connected to\nMEM0\n")),
                      "t.carto:2:13: expected a vertex name in column 1 (an indented line "
                      "continues the list of the vertex above it, and there is none), found "
                      "\"connected\"");
    ck_assert_text_eq(error_of(parse("Slot0\nMEM0:0\n")),
                      "t.carto:2:1: expected a vertex name in column 1 (indent the lines that "
                      "continue a list), found the entry \"MEM0:\"");
    ck_assert_text_eq(error_of(parse(",Slot0\n")),
                      "t.carto:1:1: expected a vertex name at the start of the line, found ','");
    ck_assert_text_eq(error_of(parse("Slot0 , MEM0:0\nMEM0\n")),
                      "t.carto:1:7: expected an entry NAME:WEIGHT, found ','");
    ck_assert_text_eq(error_of(parse("Slot0 MEM0:0\n  , eth0:1\nMEM0\neth0\n")),
                      "t.carto:2:3: expected an entry NAME:WEIGHT, found ','");
    ck_assert_text_eq(error_of(parse("Slot0 MEM0:0,, eth0:1\nMEM0\neth0\n")),
                      "t.carto:1:14: expected an entry NAME:WEIGHT after ',', found ','");
    ck_assert_text_eq(error_of(parse("Slot0 MEM0:0:1\nMEM0\n")),
                      "t.carto:1:13: expected ',', a blank or the end of the line after MEM0:0, "
                      "found ':'");
}
END_TEST

START_TEST(bad_names)
{
    ck_assert_text_eq(error_of(parse("Sl@t0 MEM0:0\n")),
                      "t.carto:1:1: expected a vertex name (letters, digits, '_', '-', '.'), "
                      "found \"Sl@t0\"");
    ck_assert_text_eq(error_of(parse("Slot0 MEM\"0:0\n")),
                      "t.carto:1:7: expected a vertex name (letters, digits, '_', '-', '.'), "
                      "found \"MEM\\\"0\"");
    ck_assert_text_eq(error_of(parse("Slot0 BRANCH:1\n")),
                      "t.carto:1:7: expected a vertex name (EDGE, BRANCH and BRANCH_BI_DIR are "
                      "reserved), found \"BRANCH\"");
    ck_assert_text_eq(error_of(parse("EDGE slot EDGE\n")),
                      "t.carto:1:11: expected a vertex name (EDGE, BRANCH and BRANCH_BI_DIR are "
                      "reserved), found \"EDGE\"");
    // '//' is a comment in Open MPI's format only.
    ck_assert_text_eq(error_of(parse("Slot0 MEM0:0 // local\nMEM0\n")),
                      "t.carto:1:14: expected a vertex name (letters, digits, '_', '-', '.'), "
                      "found \"//\"");
}
END_TEST

START_TEST(odd_bytes_are_shown_escaped)
{
    ck_assert_text_eq(error_of(parse(std::string("Slot0\0x MEM0:1\n", 15))),
                      "t.carto:1:1: expected a vertex name (letters, digits, '_', '-', '.'), "
                      "found \"Slot0\\x00x\"");
    ck_assert_text_eq(error_of(parse("Slot0 M\xff\xfe\xc3\xa9:1\n")),
                      "t.carto:1:7: expected a vertex name (letters, digits, '_', '-', '.'), "
                      "found \"M\\xff\\xfe\\xc3\\xa9\"");
    ck_assert_text_eq(error_of(parse("Slot0 MEM0:1\x1b[31m\nMEM0\n")),
                      "t.carto:1:12: expected a weight (a whole number), found \"1\\x1b[31m\"");
    // A long name: the message shows its start.
    const std::string longest = "Slot0 " + std::string(255, 'a') + ":1\n";
    ck_assert_text_eq(error_of(parse(longest)),
                      "t.carto:1:7: expected a declared vertex, found \"" + std::string(32, 'a') +
                          "\"... (no line declares it)");
}
END_TEST

// A name is at most max_vertex_name_bytes: 255 bytes are a name, 256 are
// refused where they stand, in both formats, without echoing them.
START_TEST(long_names_are_refused)
{
    using meridian::carto::max_vertex_name_bytes;
    ck_assert_uint_eq(max_vertex_name_bytes, 255);
    const std::string n255(255, 'n');
    const std::string n256(256, 'n');
    ck_assert_text_eq(error_of(parse("Slot0 " + n255 + ":1\n" + n255 + "\n")),
                      "parsed without error");
    ck_assert_text_eq(
        error_of(parse("EDGE slot " + n255 + "\nEDGE Memory m\nBRANCH " + n255 + " m:1\n")),
        "parsed without error");
    ck_assert_text_eq(error_of(parse(n256 + " Slot0:1\nSlot0\n")),
                      "t.carto:1:1: expected a vertex name of at most 255 bytes, found 256 bytes");
    ck_assert_text_eq(error_of(parse("Slot0 MEM0:1,\n  " + n256 + ":2\n")),
                      "t.carto:2:3: expected a vertex name of at most 255 bytes, found 256 bytes");
    ck_assert_text_eq(error_of(parse("EDGE slot " + n256 + "\n")),
                      "t.carto:1:11: expected a vertex name of at most 255 bytes, found 256 bytes");
    ck_assert_text_eq(error_of(parse("EDGE slot s\nBRANCH " + n256 + " s:1\n")),
                      "t.carto:2:8: expected a vertex name of at most 255 bytes, found 256 bytes");
    // 20 MB of name, and 1 MB of bytes a name may not have: the length is
    // what is said.
    ck_assert_text_eq(error_of(parse("Slot0 " + std::string(std::size_t{20} << 20, 'a') + ":1\n")),
                      "t.carto:1:7: expected a vertex name of at most 255 bytes, found 20971520 "
                      "bytes");
    ck_assert_text_eq(error_of(parse(std::string(1 << 20, '\xff') + "\n")),
                      "t.carto:1:1: expected a vertex name of at most 255 bytes, found 1048576 "
                      "bytes");
}
END_TEST

START_TEST(any_bytes_give_a_description_or_one_error)
{
    // Every short sequence of a few interesting bytes, in both formats.
    const std::string bytes[] = {
        "a",    "0",     ":",       ",",    " ", "\n", "#", "/", "*", "-", std::string(1, '\0'),
        "\xff", "EDGE ", "BRANCH ", "slot "};
    std::size_t parsed = 0;
    std::size_t failed = 0;
    for (const auto &a : bytes) {
        for (const auto &b : bytes) {
            for (const auto &c : bytes) {
                for (const auto &d : bytes) {
                    const auto result = parse(a + b + c + d);
                    if (result) {
                        ++parsed;
                        ck_assert_uint_gt(result->vertices.size(), 0);
                    } else {
                        ++failed;
                        const std::string &message = result.error().message;
                        ck_assert_msg(message.starts_with("t.carto:") &&
                                          message.find(": expected ") != std::string::npos &&
                                          message.find(", found ") != std::string::npos &&
                                          message.find('\n') == std::string::npos,
                                      "odd message: %s", message.c_str());
                    }
                }
            }
        }
    }
    ck_assert_uint_eq(parsed + failed, 15 * 15 * 15 * 15);
    ck_assert_uint_gt(parsed, 0);
}
END_TEST

int main()
{
    Suite *suite = suite_create("carto_errors");
    TCase *graph = make_tcase("graph_errors");
    tcase_add_test(graph, unknown_vertex);
    tcase_add_test(graph, syntax_errors_come_before_unknown_vertices);
    tcase_add_test(graph, duplicate_vertex);
    tcase_add_test(graph, duplicate_edge);
    tcase_add_test(graph, empty_file);
    tcase_add_test(graph, byte_order_mark);
    suite_add_tcase(suite, graph);

    TCase *weights = make_tcase("weights");
    tcase_add_test(weights, bad_weight);
    tcase_add_test(weights, negative_weight);
    tcase_add_test(weights, overflowing_weight);
    tcase_add_test(weights, missing_colon);
    tcase_add_test(weights, missing_weight);
    suite_add_tcase(suite, weights);

    TCase *files = make_tcase("files");
    tcase_add_test(files, unreadable_file);
    tcase_add_test(files, errors_name_the_file_read);
    suite_add_tcase(suite, files);

    TCase *open_mpi = make_tcase("open_mpi");
    tcase_add_test(open_mpi, unknown_edge_type);
    tcase_add_test(open_mpi, edge_statement_errors);
    tcase_add_test(open_mpi, branch_statement_errors);
    tcase_add_test(open_mpi, unknown_statement);
    tcase_add_test(open_mpi, unterminated_comment);
    suite_add_tcase(suite, open_mpi);

    TCase *text = make_tcase("text");
    tcase_add_test(text, layout_errors);
    tcase_add_test(text, bad_names);
    tcase_add_test(text, odd_bytes_are_shown_escaped);
    tcase_add_test(text, long_names_are_refused);
    tcase_add_test(text, any_bytes_give_a_description_or_one_error);
    suite_add_tcase(suite, text);
    return meridian_test::run_suite(suite);
}
