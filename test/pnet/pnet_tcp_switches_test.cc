// SPDX-License-Identifier: BSD-3-Clause
// pnet_tcp's switch map without the framework (components/pnet_tcp/
// pnet_tcp_switches.hpp, compiled in by pnet_tcp_switches_for_tests.cc):
// addresses, ranges and subnets, a switch named in several parts, the
// look-ups, and every error with its column.
#include <string>

#include "components/pnet_tcp/pnet_tcp_switches.hpp"
#include "test/support/meridian_test.hpp"

using meridian::pnet_tcp::SwitchMap;

namespace
{

std::uint32_t ip(const char *text)
{
    const auto parsed = meridian::fabric::parse_ipv4(text);
    ck_assert_msg(parsed.has_value(), "bad address in the test: %s", text);
    return *parsed;
}

SwitchMap parsed(const char *text)
{
    auto map = SwitchMap::parse(text, "S");
    ck_assert_msg(map.ok(), "\"%s\": %s", text, map.ok() ? "" : map.error().message.c_str());
    return std::move(*map);
}

void expect_error(const char *text, const char *message)
{
    const auto map = SwitchMap::parse(text, "S");
    ck_assert_msg(!map.ok(), "\"%s\" parsed", text);
    ck_assert_int_eq(map.error().status, MERIDIAN_ERR_BAD_PARAM);
    ck_assert_str_eq(map.error().message.c_str(), message);
}

void expect_switch(const SwitchMap &map, const char *address, const char *name)
{
    const auto found = map.switch_of(ip(address));
    ck_assert_msg(found.has_value(), "%s is on no switch, expected %s", address, name);
    ck_assert_str_eq(map.switches()[*found].name.c_str(), name);
}

} // namespace

START_TEST(addresses_ranges_and_subnets)
{
    const SwitchMap map = parsed(
        " data0:10.77.0.1-10.77.0.2 ; data1:10.77.0.3, 10.77.0.9-10.77.0.20;mgmt:10.78.0.0/24");
    ck_assert_int_eq(map.switches().size(), 3);
    ck_assert_str_eq(map.switches()[0].name.c_str(), "data0");
    ck_assert_str_eq(map.switches()[1].name.c_str(), "data1");
    ck_assert_str_eq(map.switches()[2].name.c_str(), "mgmt");
    expect_switch(map, "10.77.0.1", "data0");
    expect_switch(map, "10.77.0.2", "data0");
    expect_switch(map, "10.77.0.3", "data1");
    expect_switch(map, "10.77.0.9", "data1");
    expect_switch(map, "10.77.0.20", "data1");
    expect_switch(map, "10.78.0.0", "mgmt");
    expect_switch(map, "10.78.0.255", "mgmt");
    ck_assert(!map.switch_of(ip("10.77.0.4")).has_value());
    ck_assert(!map.switch_of(ip("10.77.0.21")).has_value());
    ck_assert(!map.switch_of(ip("10.78.1.0")).has_value());
}
END_TEST

START_TEST(a_switch_in_several_parts_keeps_its_first_place)
{
    const SwitchMap map = parsed("b:10.0.0.5;a:10.0.0.1;b:10.0.0.7");
    ck_assert_int_eq(map.switches().size(), 2);
    ck_assert_str_eq(map.switches()[0].name.c_str(), "b");
    ck_assert_int_eq(map.switches()[0].spans.size(), 2);
    expect_switch(map, "10.0.0.7", "b");
    expect_switch(map, "10.0.0.1", "a");
}
END_TEST

START_TEST(touches_a_subnet)
{
    const SwitchMap map = parsed("data0:10.77.0.1-10.77.0.2");
    const SwitchMap wide = parsed("wide:0.0.0.0/0");
    const auto cidr = [](const char *text) { return *meridian::fabric::parse_cidr(text); };
    ck_assert(map.touches(0, cidr("10.77.0.0/24")));
    ck_assert(map.touches(0, cidr("10.77.0.2/32")));
    ck_assert(!map.touches(0, cidr("10.77.0.4/30")));
    ck_assert(!map.touches(0, cidr("10.78.0.0/24")));
    ck_assert(wide.touches(0, cidr("192.168.0.0/16")));
}
END_TEST

START_TEST(empty_is_no_switch)
{
    ck_assert(parsed("").empty());
    ck_assert(parsed("  ").empty());
}
END_TEST

START_TEST(errors_say_where_and_what)
{
    expect_error("data0",
                 "S:6: expected ':' and the addresses of switch \"data0\", found end of text");
    expect_error(":10.0.0.1",
                 "S:1: expected a switch NAME (letters, digits, '_', '-', '.'), found ':'");
    expect_error("sw/1:10.0.0.1",
                 "S:1: expected a switch NAME (letters, digits, '_', '-', '.'), found \"sw/1\"");
    expect_error("a:10.0.0.1;b:10.0.0.256",
                 "S:14: expected an address A.B.C.D, a range A.B.C.D-A.B.C.D or a subnet "
                 "A.B.C.D/N, found \"10.0.0.256\"");
    expect_error("a:10.0.0.1,",
                 "S:12: expected an address A.B.C.D, a range A.B.C.D-A.B.C.D or a subnet "
                 "A.B.C.D/N, found end of text");
    expect_error("a:10.0.0.1-x",
                 "S:12: expected the last address A.B.C.D of the range, found \"x\"");
    expect_error("a:10.0.0.9-10.0.0.1",
                 "S:3: expected FIRST <= LAST in an address range, found \"10.0.0.9-10.0.0.1\"");
    expect_error("a:10.0.1.0/16",
                 "S:3: expected a subnet A.B.C.D/N (host bits zero), found \"10.0.1.0/16\"");
    expect_error("a:10.0.0.0/24;b:10.0.0.7",
                 "S:17: address 10.0.0.7 is on switch \"a\" already; an address hangs off one "
                 "switch");
    expect_error("b:10.0.0.7;a:10.0.0.0/24",
                 "S:14: address 10.0.0.7 is on switch \"b\" already; an address hangs off one "
                 "switch");
    expect_error("a:10.0.0.1-10.0.0.5;a:10.0.0.5",
                 "S:23: address 10.0.0.5 is listed twice for switch \"a\"");
}
END_TEST

// A switch name is a fabric file's: at most 255 bytes, a longer one refused
// at its column without echoing it.
START_TEST(long_switch_names_are_refused)
{
    const std::string n255(255, 's');
    const SwitchMap map = parsed((n255 + ":10.0.0.1").c_str());
    expect_switch(map, "10.0.0.1", n255.c_str());
    expect_error((std::string(256, 's') + ":10.0.0.1").c_str(),
                 "S:1: expected a switch NAME of at most 255 bytes, found 256 bytes");
    const std::string huge = "a:10.0.0.1; " + std::string(std::size_t{20} << 20, 's') + ":10.0.0.2";
    expect_error(huge.c_str(),
                 "S:13: expected a switch NAME of at most 255 bytes, found 20971520 bytes");
}
END_TEST

int main()
{
    Suite *suite = suite_create("pnet_tcp_switches");
    TCase *parse = tcase_create("parse");
    tcase_add_test(parse, addresses_ranges_and_subnets);
    tcase_add_test(parse, a_switch_in_several_parts_keeps_its_first_place);
    tcase_add_test(parse, touches_a_subnet);
    tcase_add_test(parse, empty_is_no_switch);
    tcase_add_test(parse, errors_say_where_and_what);
    tcase_add_test(parse, long_switch_names_are_refused);
    suite_add_tcase(suite, parse);
    return meridian_test::run_suite(suite);
}
