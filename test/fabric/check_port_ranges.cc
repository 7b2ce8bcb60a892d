// SPDX-License-Identifier: BSD-3-Clause
// Static port pools: PMIx's syntax with every message, the writer's round
// trip, port lists as PMIx shows them, and PortPool's take / give back.
#include <string>
#include <vector>

#include "test/support/meridian_test.hpp"
#include <meridian/opal/class/port_ranges.hpp>

using namespace meridian::fabric;

namespace
{

std::string error_of(std::string_view text, std::uint32_t column = 1)
{
    auto parsed = parse_static_ports(text, "ports", column);
    return parsed ? std::string("parsed without error") : parsed.error().message;
}

std::string reformatted(std::string_view text)
{
    auto parsed = parse_static_ports(text, "ports");
    if (!parsed) {
        return "error: " + parsed.error().message;
    }
    const std::string written = format_static_ports(*parsed);
    auto again = parse_static_ports(written, "ports");
    if (!again || *again != *parsed) {
        return "does not read back: " + written;
    }
    return written;
}

std::string taken(PortPool &pool, std::size_t count)
{
    std::vector<std::uint16_t> ports;
    pool.take(count, ports);
    return format_port_list(ports);
}

} // namespace

START_TEST(the_pmix_example)
{
    auto parsed = parse_static_ports("tcp:10.10.10.0/24:32000-32100,33000;udp:40000,40005", "p");
    ck_assert(parsed.ok());
    ck_assert_uint_eq(parsed->size(), 2);
    const PortPoolSpec &tcp = (*parsed)[0];
    ck_assert(tcp.protocol == Protocol::tcp);
    ck_assert_text_eq(tcp.subnet->text(), "10.10.10.0/24");
    ck_assert(tcp.ranges == (std::vector<PortRange>{{32000, 32100}, {33000, 33000}}));
    const PortPoolSpec &udp = (*parsed)[1];
    ck_assert(udp.protocol == Protocol::udp);
    ck_assert(!udp.subnet);
    ck_assert(udp.ranges == (std::vector<PortRange>{{40000, 40000}, {40005, 40005}}));
    ck_assert_text_eq(protocol_name(Protocol::udp), "udp");
}
END_TEST

START_TEST(spaces_case_and_empty)
{
    ck_assert_text_eq(reformatted(" TCP : 10.0.0.0/8 : 1 - 5 , 9 ; udp:7 "),
                      "tcp:10.0.0.0/8:1-5,9;udp:7");
    ck_assert_text_eq(reformatted(""), "");
    ck_assert_text_eq(reformatted("  \t"), "");
    ck_assert_text_eq(reformatted("tcp:65535,1"), "tcp:65535,1");
    // The same port in pools of different subnets or protocols is fine.
    ck_assert_text_eq(reformatted("tcp:5;udp:5;tcp:10.0.0.0/8:5;tcp:11.0.0.0/8:5"),
                      "tcp:5;udp:5;tcp:10.0.0.0/8:5;tcp:11.0.0.0/8:5");
}
END_TEST

START_TEST(every_error)
{
    ck_assert_text_eq(error_of("sctp:1"),
                      "ports:1: expected PROTOCOL \"tcp\" or \"udp\", found \"sctp\"");
    ck_assert_text_eq(error_of("tcp:70000"), "ports:5: expected a port 1-65535, found \"70000\"");
    ck_assert_text_eq(error_of("tcp:0"), "ports:5: expected a port 1-65535, found \"0\"");
    ck_assert_text_eq(error_of("tcp:33000-32000"),
                      "ports:5: expected FIRST <= LAST in a port range, found \"33000-32000\"");
    ck_assert_text_eq(error_of("tcp:32000-32010,32005"),
                      "ports:17: port 32005 is listed twice in the tcp pool");
    ck_assert_text_eq(error_of("udp:10.0.0.0/8:7;udp:10.0.0.0/8:1-9"),
                      "ports:33: port 7 is listed twice in the udp pool of 10.0.0.0/8");
    ck_assert_text_eq(error_of("tcp:1,1"), "ports:7: port 1 is listed twice in the tcp pool");
    ck_assert_text_eq(error_of("tcp"),
                      "ports:4: expected ':' and the ports after \"tcp\", found end of text");
    ck_assert_text_eq(error_of("tcp;udp:1"),
                      "ports:4: expected ':' and the ports after \"tcp\", found ';'");
    ck_assert_text_eq(error_of("tcp:"), "ports:5: expected a port 1-65535, found end of text");
    ck_assert_text_eq(error_of("tcp:1,,2"), "ports:7: expected a port 1-65535, found ','");
    ck_assert_text_eq(error_of("tcp:1;"),
                      "ports:7: expected PROTOCOL \"tcp\" or \"udp\", found end of text");
    ck_assert_text_eq(error_of(";tcp:1"),
                      "ports:1: expected PROTOCOL \"tcp\" or \"udp\", found ';'");
    ck_assert_text_eq(error_of("tcp:1-"), "ports:5: expected a port 1-65535, found \"1-\"");
    ck_assert_text_eq(error_of("tcp:-5"), "ports:5: expected a port 1-65535, found \"-5\"");
    ck_assert_text_eq(error_of("tcp:1-x"), "ports:7: expected a port 1-65535, found \"x\"");
    ck_assert_text_eq(
        error_of("tcp:10.0.0.1/8:1"),
        "ports:5: expected a subnet A.B.C.D/N (host bits zero), found \"10.0.0.1/8\"");
    ck_assert_text_eq(error_of("tcp::1"),
                      "ports:5: expected a subnet A.B.C.D/N (host bits zero), found ':'");
    ck_assert_text_eq(error_of("tcp:10.0.0.0/8:1:2"),
                      "ports:17: expected ',' or ';' after a port, found ':'");
    ck_assert_text_eq(error_of("tcp:\x01"), "ports:5: expected a port 1-65535, found \"\\x01\"");
    // The column counts from where the text starts in its file or line.
    ck_assert_text_eq(error_of("udp:x", 20), "ports:24: expected a port 1-65535, found \"x\"");
    auto parsed = parse_static_ports("udp:x", "node n1 (PATH:3)");
    ck_assert_int_eq(parsed.error().status, MERIDIAN_ERR_BAD_PARAM);
}
END_TEST

START_TEST(port_lists)
{
    const std::vector<std::uint16_t> ports{32010, 32001, 32000, 32003, 32002, 65535, 32002};
    ck_assert_text_eq(format_port_list(ports), "32000-32003,32010,65535");
    ck_assert_text_eq(format_port_list({}), "");
    const std::vector<std::uint16_t> one{7};
    ck_assert_text_eq(format_port_list(one), "7");
}
END_TEST

START_TEST(pool_take_and_give_back)
{
    const std::vector<PortRange> ranges{{33000, 33000}, {32000, 32004}, {32005, 32006}};
    PortPool pool(ranges);
    ck_assert_uint_eq(pool.free_count(), 8);
    ck_assert_text_eq(taken(pool, 3), "32000-32002");
    ck_assert_uint_eq(pool.free_count(), 5);
    ck_assert_text_eq(taken(pool, 2), "32003-32004");
    std::vector<std::uint16_t> back{32001, 32003};
    pool.give_back(back);
    ck_assert_uint_eq(pool.free_count(), 5);
    ck_assert_text_eq(taken(pool, 2), "32001,32003");
    // Ports that are not the pool's, or already free, are ignored.
    std::vector<std::uint16_t> foreign{1, 40000, 33000, 32006};
    pool.give_back(foreign);
    ck_assert_uint_eq(pool.free_count(), 3);
    // Fewer than asked when the pool runs dry; the answer says how many.
    std::vector<std::uint16_t> out;
    ck_assert_uint_eq(pool.take(10, out), 3);
    ck_assert_text_eq(format_port_list(out), "32005-32006,33000");
    ck_assert_uint_eq(pool.free_count(), 0);
    ck_assert_uint_eq(pool.take(1, out), 0);
    // Everything back joins into the original runs.
    std::vector<std::uint16_t> all{33000, 32006, 32004, 32000, 32002, 32001, 32003, 32005};
    pool.give_back(all);
    ck_assert_uint_eq(pool.free_count(), 8);
    ck_assert_text_eq(taken(pool, 8), "32000-32006,33000");
    PortPool empty;
    ck_assert_uint_eq(empty.free_count(), 0);
    ck_assert_uint_eq(empty.take(1, out), 0);
}
END_TEST

START_TEST(pool_extremes)
{
    const std::vector<PortRange> full{{1, 65535}};
    PortPool pool(full);
    ck_assert_uint_eq(pool.free_count(), 65535);
    std::vector<std::uint16_t> out;
    ck_assert_uint_eq(pool.take(70000, out), 65535);
    ck_assert_uint_eq(out.front(), 1);
    ck_assert_uint_eq(out.back(), 65535);
    // Give back every other port, then the rest: runs merge back into one.
    std::vector<std::uint16_t> odd;
    std::vector<std::uint16_t> even;
    for (const std::uint16_t port : out) {
        (port % 2 ? odd : even).push_back(port);
    }
    pool.give_back(odd);
    ck_assert_uint_eq(pool.free_count(), 32768);
    pool.give_back(even);
    ck_assert_uint_eq(pool.free_count(), 65535);
    out.clear();
    ck_assert_uint_eq(pool.take(2, out), 2);
    ck_assert_text_eq(format_port_list(out), "1-2");
}
END_TEST

int main()
{
    Suite *suite = suite_create("port_ranges");
    TCase *tcase = tcase_create("port_ranges");
    tcase_add_test(tcase, the_pmix_example);
    tcase_add_test(tcase, spaces_case_and_empty);
    tcase_add_test(tcase, every_error);
    tcase_add_test(tcase, port_lists);
    tcase_add_test(tcase, pool_take_and_give_back);
    tcase_add_test(tcase, pool_extremes);
    // pool_extremes gives back 32768 single-port runs one at a time: a
    // second at -O2, several under ASan at -O0 on a loaded machine.
    tcase_set_timeout(tcase, 30);
    suite_add_tcase(suite, tcase);
    return meridian_test::run_suite(suite);
}
